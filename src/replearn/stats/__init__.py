"""Significance tests and effect sizes for comparing learners (see docs/statistics.md).

Every test takes score arrays (per-example correctness or losses, per-split scores, or a data
sets x models table), never estimators, and returns a :class:`TestResult` (``statistic``,
``pvalue``, ``df``, effect size, CI, the alternative and every convention used).  Bootstrap
intervals return a :class:`BootstrapResult`, the Bayesian tests a :class:`BayesianResult`
(posterior probabilities instead of a p-value) and the Friedman post-hoc analysis a
:class:`PosthocResult`.

=========================================  =====================================================
design                                     functions
=========================================  =====================================================
two models, one test set                   mcnemar, permutation_test, paired_bootstrap_test,
                                           paired_ttest (per-example losses), bootstrap_metric
k models, one test set                     cochrans_q
two models, (repeated) CV on one data set  half_sampling_ttest (population), corrected_resampled_ttest,
                                           cv52_ttest, cv52_ftest,
                                           bayesian_correlated_ttest
two models, N data sets                    wilcoxon, sign_test, bayesian_signed_rank
k models, N data sets                      friedman, nemenyi_cd / nemenyi_cliques, friedman_posthoc
two runs of one model, same replicates     sign_flip_test (exact), shifted_ttest (margins), lattice_unit
p-value adjustment                         benjamini_hochberg, bonferroni, bonferroni_dunn, holm, hochberg, hommel,
                                           shaffer, bergmann_hommel (all pairs), adjust,
                                           graphical (Bretz et al. 2009 gatekeeping graphs)
power and sequential designs               detectable_difference, t_power, sequential_pairs (planned looks)
effect sizes                               cohens_dz, rank_biserial, cliffs_delta
few runs (seeds x problems)                iqm, stratified_bootstrap_ci, probability_of_improvement(_ci),
                                           performance_profile, minimum_detectable_effect, paired_t_power,
                                           smallest_attainable_pvalue, smallest_adjusted_pvalue, min_replicates
=========================================  =====================================================
"""

from ._result import TestResult, to_jsonable
from .allpairs import bergmann_hommel, exhaustive_sets, shaffer, shaffer_multipliers
from .bayesian import BayesianResult, bayesian_correlated_ttest, bayesian_signed_rank, bayesian_t_posterior
from .bootstrap import BootstrapResult, bootstrap_ci, bootstrap_indices, bootstrap_metric, paired_bootstrap_test
from .cochran import cochrans_q
from .cv52 import cv52_ftest, cv52_ttest
from .effect_sizes import cliffs_delta, cohens_dz, paired_differences, rank_biserial
from .fewruns import (
    iqm,
    min_replicates,
    minimum_detectable_effect,
    paired_t_power,
    performance_profile,
    probability_of_improvement,
    probability_of_improvement_ci,
    smallest_adjusted_pvalue,
    smallest_attainable_pvalue,
    stratified_bootstrap_ci,
)
from .friedman import friedman, nemenyi_cd, nemenyi_cliques, nemenyi_pairwise, nemenyi_q, rank_scores
from .halfsampling import (
    MeanCovariance,
    SelectedContrast,
    half_sampling_ttest,
    max_t_adjusted,
    max_t_critical,
    mean_covariance,
    selected_contrast,
    selected_neighbours,
)
from .mcnemar import mcnemar
from .multiple import adjust, benjamini_hochberg, bonferroni, bonferroni_dunn, graphical, hochberg, holm, hommel
from .permutation import permutation_test
from .posthoc import PosthocResult, friedman_posthoc
from .power import detectable_difference, t_power, t_quantile
from .sequential import sequential_pairs
from .signflip import lattice_unit, shifted_ttest, sign_flip_test
from .ttests import corrected_resampled_ttest, paired_ttest, t_critical_value
from .wilcoxon import sign_test, wilcoxon

__all__ = [
    "BayesianResult",
    "BootstrapResult",
    "MeanCovariance",
    "SelectedContrast",
    "PosthocResult",
    "TestResult",
    "adjust",
    "detectable_difference",
    "t_power",
    "sequential_pairs",
    "t_quantile",
    "graphical",
    "bayesian_correlated_ttest",
    "bayesian_signed_rank",
    "bayesian_t_posterior",
    "benjamini_hochberg",
    "bergmann_hommel",
    "bonferroni",
    "bonferroni_dunn",
    "bootstrap_ci",
    "bootstrap_indices",
    "bootstrap_metric",
    "cliffs_delta",
    "cochrans_q",
    "cohens_dz",
    "corrected_resampled_ttest",
    "cv52_ftest",
    "cv52_ttest",
    "exhaustive_sets",
    "friedman",
    "friedman_posthoc",
    "half_sampling_ttest",
    "hochberg",
    "holm",
    "hommel",
    "iqm",
    "lattice_unit",
    "max_t_adjusted",
    "max_t_critical",
    "mcnemar",
    "mean_covariance",
    "selected_contrast",
    "selected_neighbours",
    "min_replicates",
    "minimum_detectable_effect",
    "nemenyi_cd",
    "nemenyi_cliques",
    "nemenyi_pairwise",
    "nemenyi_q",
    "paired_bootstrap_test",
    "paired_differences",
    "paired_t_power",
    "paired_ttest",
    "performance_profile",
    "permutation_test",
    "probability_of_improvement",
    "probability_of_improvement_ci",
    "rank_biserial",
    "rank_scores",
    "shaffer",
    "shaffer_multipliers",
    "shifted_ttest",
    "sign_flip_test",
    "sign_test",
    "smallest_adjusted_pvalue",
    "smallest_attainable_pvalue",
    "stratified_bootstrap_ci",
    "t_critical_value",
    "to_jsonable",
    "wilcoxon",
]
