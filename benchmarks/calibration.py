"""Calibration of the significance tests: type-I error under a true null, power under a known difference.

Null simulations in the style of Dietterich (1998): two learners with **no real difference** are
compared on many independent synthetic data sets, and we count how often each test rejects at
alpha = 0.05.  A well-calibrated test rejects about 5% of the time; more means it finds
differences that are not there.  The same is repeated with a **known difference** (power).

Learners and data (every replication draws a fresh data set of ``n`` examples):

* ``y`` is +1 or -1 with probability 1/2; four features ``x_j = mu_j y + N(0, 1)``.
* Learner A is 1-nearest-neighbour on features (0, 1), learner B is 1-nearest-neighbour on
  features (2, 3).  1-NN is unstable (its predictions move with the training set), which is
  what makes the fold scores of cross-validation correlated.
* Null: ``mu = (d, d, d, d)``: A and B are exchangeable, so their expected error for any training
  size is the same (the null hypothesis of Nadeau & Bengio 2003).  On one data set, though, one
  feature pair may happen to be more informative than the other: a difference that is real for
  that sample but not for the population, which the tests that resample one data set cannot see.
  A second null makes the learners share most of their input -- 1-NN on features (0, 1, 2) vs
  (0, 1, 3) -- so that their fold scores move together, as for two similar learners.
  Alternative: B's features are weaker (``mu = (d, d, d_B, d_B)``); the true accuracy difference
  is estimated on a large independent sample and reported.

Designs and tests (all from :mod:`replearn.stats`, called exactly as a user would):

* one 10-fold CV: plain paired t, corrected resampled t, Wilcoxon and sign test over the folds;
* 10 x 10-fold CV: plain paired t, corrected repeated k-fold t (Bouckaert & Frank 2004), and the
  Bayesian correlated t-test (counted as a rejection when P(A better) or P(B better) > 0.95,
  with a ROPE of 0.01);
* 30 random 2/3 - 1/3 hold-outs: Dietterich's "resampled paired t" and the corrected version;
* 5 x 2-fold CV: Dietterich's 5x2cv t and Alpaydin's 5x2cv F;
* one 2/3 - 1/3 hold-out: McNemar (exact, mid-p, chi-square with continuity correction), paired t
  on per-example 0/1 losses (CIML eq. 5.15), permutation and paired bootstrap tests.
* Across data sets (score tables, no learners): k = 4 models on N = 14 data sets whose scores
  share a data-set effect; Friedman, Iman-Davenport, the family-wise error of the Nemenyi / Holm /
  Shaffer / Bergmann-Hommel post-hoc tests (any pair declared different), and for two of the models
  the Wilcoxon and sign tests and the Bayesian signed-rank test.

Run: ``python -m benchmarks.calibration`` (1000 replications) or with ``--quick`` (200).
Writes ``benchmarks/results/local/calibration.json`` (untracked; ``make bench-docs`` publishes it) and prints a
Markdown table (docs/statistics.md).
Everything is seeded (``--seed``); replications are vectorised over the data sets.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numpy as np
import scipy

from replearn import stats
from replearn.evaluation.splits import make_splits, repeat_seed

from .common import RESULTS_DIR  # untracked benchmarks/results/local/

RESULTS = RESULTS_DIR / "calibration.json"
ALPHA = 0.05


# ----------------------------------------------------------------------------- data and learners
def draw(rng: np.random.Generator, reps: int, n: int, mu: np.ndarray):
    y = rng.choice(np.array([-1, 1]), size=(reps, n))
    x = mu[None, None, :] * y[:, :, None] + rng.normal(size=(reps, n, mu.size))
    return x, y


def sqdist(x: np.ndarray, feats) -> np.ndarray:
    """(reps, n, n) squared distances on the chosen features."""
    z = x[:, :, feats]
    g = np.einsum("rif,rjf->rij", z, z)
    sq = np.einsum("rif,rif->ri", z, z)
    return sq[:, :, None] + sq[:, None, :] - 2 * g


def nn_correct(dist: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray) -> np.ndarray:
    """(reps, n_test) 0/1 correctness of 1-NN trained on ``train`` (indices with repetitions allowed)."""
    d = dist[:, test][:, :, train]
    nearest = train[np.argmin(d, axis=2)]
    pred = np.take_along_axis(y, nearest.reshape(y.shape[0], -1), axis=1).reshape(nearest.shape)
    return (pred == y[:, test]).astype(np.float64)


def centroid_correct(x: np.ndarray, y: np.ndarray, feats, train: np.ndarray, test: np.ndarray) -> np.ndarray:
    """(reps, n_test) 0/1 correctness of the nearest-centroid classifier (a stable learner) on ``feats``."""
    z = x[:, :, list(feats)]
    pos = (y[:, train] == 1)[..., None]
    zt = z[:, train]
    mu_p = (zt * pos).sum(1) / np.maximum(pos.sum(1), 1)
    mu_n = (zt * ~pos).sum(1) / np.maximum((~pos).sum(1), 1)
    ze = z[:, test]
    dp = ((ze - mu_p[:, None]) ** 2).sum(-1)
    dn = ((ze - mu_n[:, None]) ** 2).sum(-1)
    return np.where(dp <= dn, 1, -1) == y[:, test]


def bagged_nn_correct(
    dist: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray, seed: int, n_bags: int = 7
) -> np.ndarray:
    """(reps, n_test) correctness of bagged 1-NN (majority of ``n_bags`` bootstrap 1-NNs) drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    votes = np.zeros((dist.shape[0], test.size))
    for _ in range(n_bags):
        boot = train[rng.integers(0, train.size, train.size)]
        nearest = np.argmin(dist[:, test][:, :, boot], axis=2)
        votes += np.take_along_axis(y[:, boot], nearest, axis=1)
    return np.where(votes > 0, 1, -1) == y[:, test]


def make_learners(kind: str, x: np.ndarray, y: np.ndarray, feats_a, feats_b, seed: int):
    """Two learners as functions ``(train, test) -> (reps, n_test)`` correctness; ``kind`` picks the design.

    * ``"1nn"``: 1-NN on ``feats_a`` vs 1-NN on ``feats_b`` (unstable learners);
    * ``"centroid"``: nearest centroid on ``feats_a`` vs on ``feats_b`` (stable learners);
    * ``"seeds"``: bagged 1-NN on the same features, differing only in the bootstrap seed.
    """
    if kind == "centroid":
        return (
            lambda tr, te: centroid_correct(x, y, feats_a, tr, te),
            lambda tr, te: centroid_correct(x, y, feats_b, tr, te),
        )
    if kind == "seeds":
        d = sqdist(x, list(feats_a))
        return (
            lambda tr, te: bagged_nn_correct(d, y, tr, te, repeat_seed(seed, 1)),
            lambda tr, te: bagged_nn_correct(d, y, tr, te, repeat_seed(seed, 2)),
        )
    da, db = sqdist(x, list(feats_a)), sqdist(x, list(feats_b))
    return (lambda tr, te: nn_correct(da, y, tr, te), lambda tr, te: nn_correct(db, y, tr, te))


def split_scores(fa, fb, splits):
    """Per-split accuracies (reps, J) for learners A and B on shared splits."""
    sa = np.stack([fa(s.train, s.test).mean(axis=1) for s in splits], axis=1)
    sb = np.stack([fb(s.train, s.test).mean(axis=1) for s in splits], axis=1)
    return sa, sb


def split_correlation(diffs: np.ndarray) -> float:
    """The correlation rho between the J split differences of one replication, estimated over replications.

    Under a null with mean difference 0, ``E[mean(d)^2] = s2 (rho + (1 - rho)/J)`` and ``E[s^2] = s2 (1 - rho)``,
    so with ``R = mean(mean(d)^2) / mean(s^2)``: ``rho = (R - 1/J) / (1 + R - 1/J)``. The corrected
    resampled t-test assumes ``rho / (1 - rho) = n_test / n_train`` (rho = 0.1 for 10-fold CV).
    """
    j = diffs.shape[1]
    r = float(np.mean(diffs.mean(axis=1) ** 2) / np.mean(diffs.var(axis=1, ddof=1)))
    return (r - 1 / j) / (1 + r - 1 / j)


# ----------------------------------------------------------------------------- one scenario
def learner_tests(
    reps: int, n: int, mu: np.ndarray, seed: int, feats_a=(0, 1), feats_b=(2, 3), chunk: int = 100, kind: str = "1nn"
) -> dict[str, np.ndarray]:
    """Rejections (bool per replication) of every learner-comparison test; ``"rho"`` holds the 10x10 CV
    split differences' correlation (one value, see :func:`split_correlation`)."""
    dummy = np.zeros(n, dtype=int)  # the split schemes only need n (plain, unstratified k-fold)
    kfold10x10 = make_splits("repeated_kfold", dummy.astype(float), folds=10, repeats=10, seed=seed)
    cv52 = make_splits("5x2", dummy.astype(float), seed=seed)
    holdouts = make_splits("holdout", dummy.astype(float), test_size=1 / 3, repeats=30, seed=seed)
    single = holdouts[0]
    ntr10 = np.array([s.train.size for s in kfold10x10], float)
    nte10 = np.array([s.test.size for s in kfold10x10], float)
    ntr_h = np.array([s.train.size for s in holdouts], float)
    nte_h = np.array([s.test.size for s in holdouts], float)

    out: dict[str, list[bool]] = {}

    def rec(name, p):
        out.setdefault(name, []).append(bool(p <= ALPHA))

    rng = np.random.default_rng(seed)
    done = 0
    diffs = []
    while done < reps:
        m = min(chunk, reps - done)
        x, y = draw(rng, m, n, mu)
        fa, fb = make_learners(kind, x, y, feats_a, feats_b, repeat_seed(seed, 1000 + done))
        a100, b100 = split_scores(fa, fb, kfold10x10)
        diffs.append(a100 - b100)
        a52, b52 = split_scores(fa, fb, cv52)
        ah, bh = split_scores(fa, fb, holdouts)
        ca = fa(single.train, single.test)
        cb = fb(single.train, single.test)
        for r in range(m):
            s = repeat_seed(seed, done + r)
            a10, b10 = a100[r, :10], b100[r, :10]
            rec("10-fold CV: paired t (CIML eq. 5.15)", stats.paired_ttest(a10, b10).pvalue)
            rec(
                "10-fold CV: corrected resampled t",
                stats.corrected_resampled_ttest(a10, b10, ntr10[:10], nte10[:10]).pvalue,
            )
            rec("10-fold CV: Wilcoxon signed-rank over folds", stats.wilcoxon(a10, b10).pvalue)
            rec("10-fold CV: sign test over folds", stats.sign_test(a10, b10).pvalue)
            rec("10x10 CV: paired t", stats.paired_ttest(a100[r], b100[r]).pvalue)
            rec(
                "10x10 CV: corrected repeated k-fold t (Bouckaert & Frank)",
                stats.corrected_resampled_ttest(a100[r], b100[r], ntr10, nte10).pvalue,
            )
            bay = stats.bayesian_correlated_ttest(a100[r], b100[r], n_train=ntr10, n_test=nte10, rope=0.01)
            out.setdefault("10x10 CV: Bayesian correlated t, P(A or B better) > 0.95", []).append(
                bool(max(bay.p_left, bay.p_right) > 0.95)
            )
            rec("30 hold-outs: resampled paired t (Dietterich)", stats.paired_ttest(ah[r], bh[r]).pvalue)
            rec(
                "30 hold-outs: corrected resampled t (Nadeau & Bengio)",
                stats.corrected_resampled_ttest(ah[r], bh[r], ntr_h, nte_h).pvalue,
            )
            rec("5x2 CV: 5x2cv t (Dietterich)", stats.cv52_ttest(a52[r], b52[r]).pvalue)
            rec("5x2 CV: 5x2cv F (Alpaydin)", stats.cv52_ftest(a52[r], b52[r]).pvalue)
            for method in ("exact", "midp", "chi2_cc"):
                rec(f"hold-out: McNemar ({method})", stats.mcnemar(ca[r], cb[r], method=method).pvalue)
            rec("hold-out: paired t on 0/1 losses", stats.paired_ttest(ca[r], cb[r]).pvalue)
            rec(
                "hold-out: permutation test (999)", stats.permutation_test(ca[r], cb[r], n_resamples=999, seed=s).pvalue
            )
            rec(
                "hold-out: paired bootstrap test (999)",
                stats.paired_bootstrap_test(ca[r], cb[r], n_resamples=999, seed=s).pvalue,
            )
        done += m
    res = {k: np.array(v) for k, v in out.items()}
    res["rho"] = np.array([split_correlation(np.concatenate(diffs))])
    return res


def true_accuracy_gap(n: int, mu: np.ndarray, seed: int, reps: int = 200, n_test: int = 2000) -> float:
    """E[acc(A) - acc(B)] for training sets of 2/3 n, on large independent test sets."""
    rng = np.random.default_rng(seed)
    n_tr = n - int(np.ceil(n / 3))
    gaps = []
    for _ in range(reps // 50):
        x, y = draw(rng, 50, n_tr + n_test, mu)
        tr, te = np.arange(n_tr), np.arange(n_tr, n_tr + n_test)
        acc = []
        for feats in ([0, 1], [2, 3]):
            z = x[:, :, feats]
            d = ((z[:, te, None, :] - z[:, None, tr, :]) ** 2).sum(-1)
            pred = np.take_along_axis(y, np.argmin(d, axis=2), axis=1)
            acc.append((pred == y[:, te]).mean(axis=1))
        gaps.append(acc[0] - acc[1])
    return float(np.mean(np.concatenate(gaps)))


def across_dataset_tests(reps: int, seed: int, shift: float) -> dict[str, np.ndarray]:
    """k = 4 models on N = 14 data sets: dataset effect N(0.8, 0.1) + model noise N(0, 0.02);
    model 3 (the last) better by ``shift`` in the power scenario."""
    k, n = 4, 14
    rng = np.random.default_rng(seed)
    base = rng.normal(0.8, 0.1, (reps, n, 1))
    scores = base + rng.normal(0, 0.02, (reps, n, k))
    scores[:, :, -1] += shift
    out: dict[str, list[bool]] = {}
    for r in range(reps):
        s = scores[r]
        fr = stats.friedman(s)
        out.setdefault("14 datasets, 4 models: Friedman chi2_F", []).append(fr.pvalue <= ALPHA)
        out.setdefault("14 datasets, 4 models: Iman-Davenport F_F", []).append(fr.extra["f_pvalue"] <= ALPHA)
        for method in ("nemenyi", "holm", "shaffer", "bergmann_hommel"):
            ph = stats.friedman_posthoc(s, method=method)
            out.setdefault(f"14 datasets, 4 models: any pair by {method} (family-wise)", []).append(
                any(c["significant"] for c in ph.comparisons)
            )
        small = stats.friedman(s[:3, -3:], exact=True)  # N = 3 datasets, k = 3 models (the last one shifted)
        out.setdefault("3 datasets, 3 models: Friedman, exact p", []).append(small.pvalue <= ALPHA)
        out.setdefault("3 datasets, 3 models: Iman-Davenport F_F (liberal)", []).append(small.f_pvalue <= ALPHA)
        a, b = s[:, -1], s[:, 0]
        out.setdefault("14 datasets, 2 models: Wilcoxon signed-rank", []).append(stats.wilcoxon(a, b).pvalue <= ALPHA)
        out.setdefault("14 datasets, 2 models: sign test", []).append(stats.sign_test(a, b).pvalue <= ALPHA)
        br = stats.bayesian_signed_rank(a, b, rope=0.01, n_samples=2000, seed=repeat_seed(seed, r))
        out.setdefault("14 datasets, 2 models: Bayesian signed-rank, P(A or B better) > 0.95", []).append(
            max(br.p_left, br.p_right) > 0.95
        )
    return {key: np.array(v) for key, v in out.items()}


# ----------------------------------------------------------------------------- driver
def run(reps: int, seed: int, n: int = 150, d: float = 0.9, d_alt: float = 0.7, shift: float = 0.02) -> dict:
    start = time.perf_counter()
    mu_null = np.array([d, d, d, d])
    mu_alt = np.array([d, d, d_alt, d_alt])
    null = learner_tests(reps, n, mu_null, repeat_seed(seed, 1))
    null_shared = learner_tests(reps, n, mu_null, repeat_seed(seed, 6), feats_a=(0, 1, 2), feats_b=(0, 1, 3))
    null_stable = learner_tests(reps, n, mu_null, repeat_seed(seed, 7), kind="centroid")
    null_seeds = learner_tests(reps, n, mu_null, repeat_seed(seed, 8), feats_a=(0, 1), feats_b=(0, 1), kind="seeds")
    rho = {
        "1-NN, disjoint features": float(null["rho"][0]),
        "1-NN, shared features": float(null_shared["rho"][0]),
        "nearest centroid (stable)": float(null_stable["rho"][0]),
        "bagged 1-NN, two seeds": float(null_seeds["rho"][0]),
    }
    alt = learner_tests(reps, n, mu_alt, repeat_seed(seed, 2))
    across_null = across_dataset_tests(reps, repeat_seed(seed, 3), 0.0)
    across_alt = across_dataset_tests(reps, repeat_seed(seed, 4), shift)
    gap = true_accuracy_gap(n, mu_alt, repeat_seed(seed, 5))
    rows = []
    for name in [k for k in null if k != "rho"] + list(across_null):
        t1 = (null.get(name) if name in null else across_null[name]).mean()
        extra = {
            key: (float(d[name].mean()) if name in d else None)
            for key, d in (
                ("type_I_error_shared_features", null_shared),
                ("type_I_error_stable", null_stable),
                ("type_I_error_seeds", null_seeds),
            )
        }
        pw = (alt.get(name) if name in alt else across_alt[name]).mean()
        rows.append({"test": name, "type_I_error": float(t1), **extra, "power": float(pw)})
    return {
        "alpha": ALPHA,
        "replications": reps,
        "seed": seed,
        "setup": {
            "n_examples": n,
            "mu_null": mu_null.tolist(),
            "mu_alternative": mu_alt.tolist(),
            "learners": "1-NN on features (0, 1) vs 1-NN on features (2, 3); shared-features null: "
            "1-NN on (0, 1, 2) vs 1-NN on (0, 1, 3); stable null: nearest centroid on (0, 1) vs "
            "(2, 3); seeds null: bagged 1-NN (7 bootstrap 1-NNs) on (0, 1) with two seeds",
            "true_accuracy_gap_alternative": gap,
            "across_datasets": {"k": 4, "N": 14, "dataset_effect_sd": 0.1, "noise_sd": 0.02, "shift": shift},
        },
        "split_correlation_10x10": rho,
        "monte_carlo_se_at_0.05": float(np.sqrt(ALPHA * (1 - ALPHA) / reps)),
        "seconds": round(time.perf_counter() - start, 1),
        "machine": {
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "scipy": scipy.__version__,
        },
        "results": rows,
    }


def markdown(res: dict) -> str:
    se = res["monte_carlo_se_at_0.05"]
    lines = [
        f"{res['replications']} replications per cell, alpha = {res['alpha']}, seed {res['seed']}; Monte-Carlo "
        f"standard error of a 5% rate: {100 * se:.1f} points. Power: B's features weaker, true accuracy gap "
        f"{100 * res['setup']['true_accuracy_gap_alternative']:.1f} points (learners) or a shift of "
        f"{res['setup']['across_datasets']['shift']} in one model's scores (across datasets).",
        "",
        "Correlation of the 10x10 CV split differences under each null (the corrected t-test assumes "
        "rho = n_test/n_train / (1 + n_test/n_train) = 0.10): "
        + ", ".join(f"{k} {v:.3f}" for k, v in res["split_correlation_10x10"].items())
        + ".",
        "",
        "| design: test | type-I error: 1-NN, disjoint features | 1-NN, shared features | nearest centroid "
        "(stable) | bagged 1-NN, two seeds | power (known difference) |",
        "|---|---:|---:|---:|---:|---:|",
    ]

    def cell(v):
        if v is None:
            return "—"
        return f"{100 * v:.1f}%" + (" ⚠" if v > res["alpha"] + 3 * se else "")

    for r in res["results"]:
        lines.append(
            f"| {r['test']} | {cell(r['type_I_error'])} | {cell(r['type_I_error_shared_features'])} "
            f"| {cell(r.get('type_I_error_stable'))} | {cell(r.get('type_I_error_seeds'))} "
            f"| {100 * r['power']:.1f}% |"
        )
    return "\n".join(lines)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 replications instead of 1000")
    parser.add_argument("--reps", type=int, default=None, help="number of replications (overrides --quick)")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument(
        "--no-write", action="store_true", help="do not write benchmarks/results/local/calibration.json"
    )
    args = parser.parse_args(argv)
    reps = args.reps or (200 if args.quick else 1000)
    res = run(reps, args.seed)
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    print(markdown(res))
    print(f"\n({res['seconds']} s)")
    return res


if __name__ == "__main__":
    main()
