"""The one registry of significance tests, corrections and post-hoc procedures.

Each procedure is registered once, with its name (the value used in ``conf/stats``), the function
of :mod:`replearn.stats` that computes it, a label for the report, a citation and when it applies
(the design, the role it plays, what it needs). The configuration schema takes its choices from
here, the significance stage its functions, and the report its labels and citations, so the three
cannot disagree about what a name means.

Roles:

* ``cv_pairwise`` -- two models on one dataset, from per-replicate scores of resampling with
  overlapping training sets (cross-validation); ``cv_sequential`` -- the same question with the half-sampling
  subsets run in planned looks (``cv.half_sampling.sequential``);
* ``replicate_pairwise`` -- two models on one dataset, from independent replicates (seeds);
* ``test_set`` / ``test_set_metric`` -- two models on one sealed test set;
* ``across_pairs`` -- two models over N datasets; ``across_datasets`` -- k models over N datasets;
* ``correction`` -- p-value adjustment over the pairs of one family; ``posthoc`` -- after Friedman;
* ``bayesian`` -- posterior probabilities instead of p-values;
* ``run_diff`` / ``run_diff_margin`` -- one model in two runs on the same replicates (``replearn diff``): did the
  change alter the score, and is it within a margin;
* ``effect_size`` -- how large a difference is (beside the tests).

The decision rule is one function, :func:`is_significant` (reject when ``p <= alpha``), used by every
caller.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

__all__ = ["Procedure", "REGISTRY", "get", "is_significant", "label", "names", "replicates_needed"]


@dataclass(frozen=True)
class Procedure:
    name: str
    role: str
    function: str  # attribute of replearn.stats (imported on first use)
    label: str
    citation: str
    applies: str
    #: smallest number of replicates/datasets/examples it is valid for; for the replicate tests (role
    #: ``replicate_pairwise``) the smallest number of seeds with which one comparison can reach p <= 0.05
    #: (replearn.stats.fewruns.min_replicates; the configuration check, :func:`replicates_needed`, also counts the
    #: correction over the pairs of models and the configured alpha)
    min_n: int = 1
    #: the works it rests on: keys of :data:`replearn.stats.bibliography.ENTRIES` (the same works as ``citation``)
    references: tuple[str, ...] = ()

    @property
    def func(self):
        return getattr(importlib.import_module("replearn.stats"), self.function)


_P = Procedure
REGISTRY: dict[str, Procedure] = {
    p.name: p
    for p in (
        # two models, one dataset, k-fold / repeated k-fold CV
        _P(
            "half_sampling_ttest",
            "cv_pairwise",
            "half_sampling_ttest",
            "t-test with half-sampling variance",
            "Shao & Wu 1989 (delete-d jackknife); Nadeau & Bengio 2003 (variance decomposition)",
            "resampling splits plus the half-sampling fits (cv.half_sampling): the data-sampling variance "
            "estimated, not assumed; a claim about datasets of this size from the same distribution",
            2,
            references=("shao1989", "nadeau2003"),
        ),
        _P(
            "sequential_half_sampling",
            "cv_sequential",
            "sequential_pairs",
            "sequential half-sampling t-test (planned looks)",
            "Haybittle 1971 / Peto et al. 1976 (alpha spending, Bonferroni-bounded); Schuirmann 1987 (TOST); "
            "Shao & Wu 1989 (delete-d jackknife)",
            "the half-sampling t-test at planned looks (cv.half_sampling.sequential): stops adding subsets "
            "once every pair is decided (difference, practical equivalence or futility); Holm over the pairs "
            "at each look",
            2,
            references=("haybittle1971", "peto1976", "schuirmann1987", "shao1989"),
        ),
        _P(
            "corrected_resampled_ttest",
            "cv_pairwise",
            "corrected_resampled_ttest",
            "corrected resampled t-test",
            "Nadeau & Bengio 2003; Bouckaert & Frank 2004",
            "repeated k-fold CV scores: the n_test/n_train term stands in for the correlation of overlapping splits",
            2,
            references=("nadeau2003", "bouckaert2004"),
        ),
        _P(
            "cv52_ttest",
            "cv_pairwise",
            "cv52_ttest",
            "5x2cv paired t-test",
            "Dietterich 1998",
            "exactly five repeats of 2-fold CV",
            10,
            references=("dietterich1998",),
        ),
        _P(
            "cv52_ftest",
            "cv_pairwise",
            "cv52_ftest",
            "5x2cv combined F test",
            "Alpaydın 1999",
            "exactly five repeats of 2-fold CV",
            10,
            references=("alpaydin1999",),
        ),
        _P(
            "paired_ttest",
            "cv_pairwise",
            "paired_ttest",
            "paired t-test",
            "Student 1908",
            "independent paired replicates; on CV splits it is liberal (overlapping training sets)",
            2,
            references=("student1908",),
        ),
        # a sweep: the best point against its neighbours (not configurable: the sweep design's test)
        _P(
            "max_t_adjacent",
            "sweep",
            "selected_neighbours",
            "max-t test of the best point against its neighbours, the best re-chosen in the null",
            "Hothorn, Bretz & Westfall 2008 (single-step max-t); Westfall & Young 1993 (resampling the selection)",
            "a sweep's best point against its neighbours: the null distribution chooses the best point again in "
            "every draw (with gaps on the axis: every adjacent pair in one max-t family)",
            2,
            references=("hothorn2008", "westfall1993"),
        ),
        _P(
            "selected_contrast",
            "sweep",
            "selected_contrast",
            "t-test of models at their best points, the choice redone in the null",
            "Hsu 1996 (multiple comparisons with the best); Westfall & Young 1993 (resampling the selection)",
            "two models of a sweep, each at its best point: the null distribution chooses both points again in "
            "every draw, the interval is selection-aware and agrees with the test",
            2,
            references=("hsu1996", "westfall1993"),
        ),
        # two models, one dataset, independent replicates
        _P(
            "replicate_ttest",
            "replicate_pairwise",
            "paired_ttest",
            "paired t-test over independent replicates",
            "Student 1908",
            "replicates that differ only by seed (independent, paired by seed)",
            2,
            references=("student1908",),
        ),
        _P(
            "replicate_wilcoxon",
            "replicate_pairwise",
            "wilcoxon",
            "Wilcoxon signed-rank test over replicates",
            "Wilcoxon 1945",
            "independent replicates, paired by seed; no normality assumption (exact: the smallest two-sided p is "
            "2/2^n, so it needs 6 seeds to reach 0.05 at all, more after a correction over pairs)",
            6,
            references=("wilcoxon1945",),
        ),
        _P(
            "replicate_sign_test",
            "replicate_pairwise",
            "sign_test",
            "sign test over replicates",
            "Dixon & Mood 1946",
            "independent replicates, paired by seed; only the direction of each difference (the smallest "
            "two-sided p is 2/2^n: 6 seeds to reach 0.05 at all, more after a correction over pairs)",
            6,
            references=("dixon1946",),
        ),
        # one sealed test set
        _P(
            "mcnemar",
            "test_set",
            "mcnemar",
            "McNemar's test",
            "McNemar 1947; Dietterich 1998",
            "two classifiers on one test set: the discordant predictions",
            1,
            references=("mcnemar1947", "dietterich1998"),
        ),
        _P(
            "permutation",
            "test_set_metric",
            "permutation_test",
            "paired permutation test",
            "Good 2005",
            "any metric on one test set, paired by example",
            1,
            references=("good2005",),
        ),
        _P(
            "paired_bootstrap",
            "test_set_metric",
            "paired_bootstrap_test",
            "paired bootstrap test",
            "Efron & Tibshirani 1993; Berg-Kirkpatrick et al. (2012)",
            "any metric on one test set, paired by example",
            1,
            references=("efron1993", "bergkirkpatrick2012"),
        ),
        # two models over N datasets
        _P(
            "wilcoxon",
            "across_pairs",
            "wilcoxon",
            "Wilcoxon signed-rank test",
            "Wilcoxon 1945; Demšar 2006 §3.1.3",
            "two models over N datasets (exact for small N: the smallest p is 2/2^N)",
            2,
            references=("wilcoxon1945", "demsar2006"),
        ),
        _P(
            "sign_test",
            "across_pairs",
            "sign_test",
            "sign test",
            "Dixon & Mood 1946; Demšar 2006 §3.1.2",
            "two models over N datasets, counting wins",
            2,
            references=("dixon1946", "demsar2006"),
        ),
        # k models over N datasets
        _P(
            "friedman_nemenyi",
            "across_datasets",
            "friedman",
            "Friedman test",
            "Friedman 1937; Demšar 2006 §3.2.2",
            "k >= 3 models over N >= 5 datasets (exact p-value for N <= 10); Nemenyi CD for the diagram",
            5,
            references=("friedman1937", "demsar2006"),
        ),
        # corrections over the pairs of one family
        _P("holm", "correction", "holm", "Holm", "Holm 1979", "any family of p-values", references=("holm1979",)),
        _P(
            "bonferroni",
            "correction",
            "bonferroni",
            "Bonferroni",
            "Dunn 1961",
            "any family of p-values",
            references=("dunn1961",),
        ),
        _P(
            "hochberg",
            "correction",
            "hochberg",
            "Hochberg",
            "Hochberg 1988",
            "independent or positively dependent p-values",
            references=("hochberg1988",),
        ),
        _P(
            "hommel",
            "correction",
            "hommel",
            "Hommel",
            "Hommel 1988",
            "independent or positively dependent p-values",
            references=("hommel1988",),
        ),
        _P(
            "shaffer",
            "correction",
            "shaffer",
            "Shaffer",
            "Shaffer 1986; García & Herrera 2008",
            "all pairwise comparisons of k models",
            references=("shaffer1986", "garcia2008"),
        ),
        _P(
            "bergmann_hommel",
            "correction",
            "bergmann_hommel",
            "Bergmann–Hommel",
            "Bergmann & Hommel 1988; García & Herrera 2008",
            "all pairwise comparisons of k <= 10 models",
            references=("bergmann1988", "garcia2008"),
        ),
        _P(
            "bh",
            "correction",
            "benjamini_hochberg",
            "Benjamini–Hochberg (false discovery rate)",
            "Benjamini & Hochberg 1995",
            "any family of independent or positively dependent p-values; controls the expected share of false "
            "discoveries, not the family-wise error",
            references=("benjamini1995",),
        ),
        _P("none", "correction", "", "no correction", "", "a single comparison, or exploratory use"),
        # post-hoc procedures after Friedman
        _P(
            "nemenyi",
            "posthoc",
            "friedman_posthoc",
            "Nemenyi",
            "Nemenyi 1963; Demšar 2006",
            "all pairs",
            references=("nemenyi1963", "demsar2006"),
        ),
        _P(
            "bonferroni_dunn",
            "posthoc",
            "friedman_posthoc",
            "Bonferroni–Dunn",
            "Dunn 1961; Demšar 2006",
            "every model against a control",
            references=("dunn1961", "demsar2006"),
        ),
        *(
            _P(f"posthoc_{n}", "posthoc", "friedman_posthoc", lab, cite, "all pairs or against a control", 1, refs)
            for n, lab, cite, refs in (
                ("holm", "Holm", "Holm 1979", ("holm1979",)),
                ("hochberg", "Hochberg", "Hochberg 1988", ("hochberg1988",)),
                ("hommel", "Hommel", "Hommel 1988", ("hommel1988",)),
                ("bonferroni", "Bonferroni", "Dunn 1961", ("dunn1961",)),
            )
        ),
        _P(
            "posthoc_shaffer",
            "posthoc",
            "friedman_posthoc",
            "Shaffer",
            "Shaffer 1986; García & Herrera 2008",
            "all pairs",
            references=("shaffer1986", "garcia2008"),
        ),
        _P(
            "posthoc_bergmann_hommel",
            "posthoc",
            "friedman_posthoc",
            "Bergmann–Hommel",
            "Bergmann & Hommel 1988; García & Herrera 2008",
            "all pairs, k <= 10",
            references=("bergmann1988", "garcia2008"),
        ),
        # one model, two runs of an experiment on the same replicates (replearn diff)
        _P(
            "sign_flip",
            "run_diff",
            "sign_flip_test",
            "sign-flip test over the paired replicates",
            "Fisher 1935; Good 2005 §3.1; Phipson & Smyth 2010",
            "two runs of one model on the same data and splits: exact under the null that the change touched only "
            "the learners' randomness (the replicates' fits exchangeable, independent given the splits); a claim "
            "about this dataset with these splits",
            2,
            references=("fisher1935", "good2005", "phipson2010"),
        ),
        _P(
            "signflip_maxt",
            "run_diff",
            "sign_flip_maxt",
            "step-down maxT over the joint sign flips (Holm's step-down, the cells' correlation used)",
            "Westfall & Young 1993",
            "the sign-flip tests of every cell of a diff: a model's metrics flip together (the same fits), models "
            "and datasets independently; controls the family-wise error exactly under the null of each model",
            2,
            references=("westfall1993",),
        ),
        _P(
            "margin_ttest",
            "run_diff_margin",
            "shifted_ttest",
            "one-sided t-tests of a margin (non-inferiority, beyond the margin; TOST for equivalence)",
            "Schuirmann 1987; Wellek 2010",
            "two runs of one model on the same replicates, against a practical margin delta",
            2,
            references=("schuirmann1987", "wellek2010"),
        ),
        # Bayesian
        _P(
            "bayesian_correlated_ttest",
            "bayesian",
            "bayesian_correlated_ttest",
            "Bayesian correlated t-test",
            "Corani & Benavoli 2015; Benavoli et al. (2017)",
            "CV scores of two models on one dataset",
            2,
            references=("corani2015", "benavoli2017"),
        ),
        _P(
            "bayesian_signed_rank",
            "bayesian",
            "bayesian_signed_rank",
            "Bayesian signed-rank test",
            "Benavoli et al. (2014, 2017)",
            "two models over N datasets, or independent replicates",
            2,
            references=("benavoli2014", "benavoli2017"),
        ),
        # effect sizes beside the tests (the report's and replearn compare's columns)
        _P(
            "rank_biserial",
            "effect_size",
            "rank_biserial",
            "matched-pairs rank-biserial correlation",
            "Kerby 2014",
            "paired scores: the signed-rank sums' difference over their total, in [-1, 1]",
            references=("kerby2014",),
        ),
        _P(
            "cliffs_delta",
            "effect_size",
            "cliffs_delta",
            "Cliff's delta",
            "Cliff 1993",
            "two samples: how often one exceeds the other, in [-1, 1]",
            references=("cliff1993",),
        ),
    )
}

#: config values that name a post-hoc procedure (``stats.posthoc``) -> registry name
POSTHOC_CONFIG = {
    "nemenyi": "nemenyi",
    "bonferroni_dunn": "bonferroni_dunn",
    "none": None,
    **{n: f"posthoc_{n}" for n in ("holm", "hochberg", "hommel", "shaffer", "bergmann_hommel", "bonferroni")},
}


def names(role: str) -> list[str]:
    """Registered names of one role, in registration order."""
    return [n for n, p in REGISTRY.items() if p.role == role]


def get(name: str) -> Procedure:
    if name not in REGISTRY:
        raise KeyError(f"unknown statistical procedure {name!r}; registered: {', '.join(REGISTRY)}")
    return REGISTRY[name]


def label(name: str | None, *, cite: bool = False) -> str:
    """The report's name for a procedure (with its citation when ``cite``); unknown names pass through."""
    if name is None:
        return "no correction"
    key = POSTHOC_CONFIG.get(name, name) if name not in REGISTRY else name
    p = REGISTRY.get(key) if key else None
    if p is None:
        return str(name)
    return f"{p.label} ({p.citation})" if cite and p.citation else p.label


def replicates_needed(name: str, alpha: float, n_comparisons: int = 1, correction: str | None = "holm") -> int:
    """The smallest number of paired replicates with which the replicate test ``name`` can reach ``alpha`` after
    ``correction`` over ``n_comparisons`` pairs (:func:`replearn.stats.fewruns.min_replicates`; ``min_n`` is its
    value at alpha = 0.05 for one comparison). The configuration check refuses fewer seeds."""
    from .fewruns import min_replicates

    p = get(name)
    if p.role != "replicate_pairwise":
        raise ValueError(f"{name} is not a test for independent replicates (role {p.role})")
    return min_replicates(name, alpha, n_comparisons, correction)


def is_significant(pvalue: float | None, alpha: float) -> bool:
    """The one decision rule: reject the null hypothesis when ``p <= alpha``."""
    return pvalue is not None and float(pvalue) <= float(alpha)
