"""Significance tests and effect sizes for comparing learners (see docs/statistics.md).

Every test takes score arrays (per-example correctness, per-split scores, or a data sets x
models table), never estimators, and returns a :class:`TestResult`.
"""

from ._result import TestResult, to_jsonable
from .effect_sizes import cliffs_delta, cohens_dz, paired_differences, rank_biserial
from .friedman import friedman, nemenyi_cd, nemenyi_cliques, nemenyi_pairwise, nemenyi_q, rank_scores
from .mcnemar import mcnemar
from .multiple import bonferroni, holm
from .ttests import corrected_resampled_ttest, paired_ttest

__all__ = [
    "TestResult",
    "bonferroni",
    "cliffs_delta",
    "cohens_dz",
    "corrected_resampled_ttest",
    "friedman",
    "holm",
    "mcnemar",
    "nemenyi_cd",
    "nemenyi_cliques",
    "nemenyi_pairwise",
    "nemenyi_q",
    "paired_differences",
    "paired_ttest",
    "rank_biserial",
    "rank_scores",
    "to_jsonable",
]
