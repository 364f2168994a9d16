"""How the significance and report stages grow with the number of datasets N and models k.

A benchmark such as ``benchmark_keel`` (N = 43 datasets, k = 12 models) must not spend its time on
bookkeeping: the tests and the report should stay a small part of the run. This builds synthetic records in
exactly the schemas the crossval and train stages write (:mod:`replearn.pipeline.records`: 5 x 2 stratified
CV, accuracy and macro F1, the sealed test part's predictions), with models of different true accuracies
and per-dataset difficulty, then times, in this process, what the two stages do:

* ``significance``: :func:`replearn.pipeline.compare.compare_records` with the benchmark preset's stats
  settings (all pairs per dataset with Holm, the Bayesian correlated t-test, McNemar and the test-set
  permutation test, Friedman + Shaffer post-hoc, Wilcoxon and the Bayesian signed-rank over datasets);
* ``report``: :func:`replearn.pipeline.report.build_report` (HTML + Markdown with plots; the compact
  benchmark view above 8 datasets).

For each grid point the median of ``--rounds`` runs is kept, then ``time ~ c N^a`` (at the largest k) and
``time ~ c k^b`` (at the largest N) are fitted by least squares on the logs; the exponents tell how each
stage scales. Results go to ``stage_scaling.json`` in ``benchmarks/results/local/`` (git-ignored) and a
markdown table is printed: ``python -m benchmarks.bench_stage_scaling`` (``--quick`` for a small grid).
docs/performance.md, "Benchmark scale: significance and report", shows the numbers.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.common import RESULTS_DIR

STATS = {  # the benchmark preset's statistics (conf/experiment/benchmark_keel.yaml)
    "alpha": 0.05,
    "pairwise_test": "auto",
    "replicate_test": "replicate_ttest",
    "correction": "holm",
    "bayesian": True,
    "rope": 0.01,
    "rope_scale": "absolute",
    "test_set_test": "mcnemar",
    "mcnemar_method": "exact",
    "test_set_metric_test": "permutation",
    "resamples": 1999,
    "across_pairs_test": "wilcoxon",
    "across_datasets": "friedman_nemenyi",
    "min_datasets": 5,
    "posthoc": "shaffer",
    "control": None,
    "round_before_ranking": None,
}


def synthetic(n_datasets: int, n_models: int, *, seed: int = 0, n_examples: int = 600):
    """Crossval and train records for ``n_datasets`` x ``n_models`` (5 x 2 stratified CV, 2 classes)."""
    from replearn.pipeline import records

    rng = np.random.default_rng(seed)
    models = [f"model_{j:02d}" for j in range(n_models)]
    skill = np.linspace(0.0, 0.06, n_models)
    crossval, train, train_metrics = {}, {}, {}
    n_test = n_examples // 2 // 2
    for i in range(n_datasets):
        name = f"dataset_{i:02d}"
        base = rng.uniform(0.65, 0.9)
        splits = [
            records.Replicate(
                index=r * 2 + f,
                kind="split",
                n_train=n_examples // 2 - n_test,
                n_test=n_test,
                seed=r,
                repeat=r,
                fold=f,
                test_index=list(range(f * n_test, (f + 1) * n_test)),
            )
            for r in range(5)
            for f in range(2)
        ]
        mevals, trained = {}, {}
        y_true = rng.integers(0, 2, size=n_examples // 4).tolist()
        train_metrics[name] = {}
        for j, m in enumerate(models):
            p = min(0.99, base + skill[j] + rng.normal(0, 0.01))
            correct = (rng.random((len(splits), n_test)) < p).astype(int)
            acc = correct.mean(axis=1)
            mevals[m] = records.ModelEvaluation(
                registry_name=m,
                params={},
                scores={"accuracy": acc.tolist(), "f1_macro": (acc - 0.01).tolist()},
                n_iter=[None] * len(splits),
                converged=[True] * len(splits),
                correct=correct.tolist(),
            )
            test_correct = (rng.random(len(y_true)) < p).astype(int)
            pred = [t if c else 1 - t for t, c in zip(y_true, test_correct)]
            trained[m] = records.TrainedModel(converged=True, n_iter=None, pred=pred, correct=test_correct.tolist())
            train_metrics[name][m] = {
                "train": {"accuracy": float(min(1.0, p + 0.03)), "f1_macro": float(min(1.0, p + 0.02))},
                "test": {"accuracy": float(test_correct.mean()), "f1_macro": float(test_correct.mean() - 0.01)},
            }
        crossval[name] = records.EvaluationResult(
            dataset=name,
            task="classification",
            n_examples=n_examples // 2,
            scheme=records.Scheme(name="repeated_stratified_kfold", folds=2, repeats=5, seed=0, design="cv"),
            metrics=["accuracy", "f1_macro"],
            primary_metric="accuracy",
            greater_is_better={"accuracy": True, "f1_macro": True},
            splits=splits,
            models=mevals,
            classes=["a", "b"],
        )
        train[name] = records.TrainResult(dataset=name, task="classification", y_true=y_true, models=trained)
    return crossval, train, train_metrics


def time_stages(n_datasets: int, n_models: int, out: Path) -> dict[str, float]:
    from replearn.pipeline import records
    from replearn.pipeline.compare import compare_records
    from replearn.pipeline.report import build_report

    crossval, train, train_metrics = synthetic(n_datasets, n_models)
    t0 = time.perf_counter()
    sig = compare_records(crossval, train, STATS, seed=1)
    t1 = time.perf_counter()
    build_report(
        crossval={d: records.to_dict(r) for d, r in crossval.items()},
        significance=records.to_dict(sig),
        train_metrics=train_metrics,
        settings={"title": "scaling", "decimals": 3, "dpi": 60, "plots": True},
        experiment={"name": "scaling", "params_hash": "0", "datasets": list(crossval), "models": []},
        out_dir=out,
        train_results={d: records.to_dict(r) for d, r in train.items()},
    )
    t2 = time.perf_counter()
    return {"significance": t1 - t0, "report": t2 - t1}


def fit_exponent(xs, ys) -> float:
    slope, _ = np.polyfit(np.log(np.asarray(xs, float)), np.log(np.asarray(ys, float)), 1)
    return float(slope)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a small grid (N up to 16, k up to 8)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    ns = [4, 8, 16] if args.quick else [5, 11, 22, 43]
    ks = [3, 5, 8] if args.quick else [3, 6, 9, 12]
    grid = sorted({(n, ks[-1]) for n in ns} | {(ns[-1], k) for k in ks})
    time_stages(ns[0], ks[0], Path(tempfile.mkdtemp()) / "warm")  # imports and caches out of the timings
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, k in grid:
            runs = [time_stages(n, k, Path(tmp) / f"r{n}_{k}_{r}") for r in range(args.rounds)]
            rows.append({"n_datasets": n, "n_models": k, **{s: statistics.median(r[s] for r in runs) for s in runs[0]}})
            print(f"N = {n:3d}, k = {k:2d}: " + ", ".join(f"{s} {rows[-1][s]:.2f} s" for s in runs[0]), flush=True)
    exps = {}
    for stage in ("significance", "report"):
        by_n = [r for r in rows if r["n_models"] == ks[-1]]
        by_k = [r for r in rows if r["n_datasets"] == ns[-1]]
        exps[stage] = {
            "datasets": fit_exponent([r["n_datasets"] for r in by_n], [r[stage] for r in by_n]),
            "models": fit_exponent([r["n_models"] for r in by_k], [r[stage] for r in by_k]),
        }
    result = {"rows": rows, "exponents": exps, "stats": STATS}
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / "stage_scaling.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print("\n| N | k | significance (s) | report (s) |\n|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['n_datasets']} | {r['n_models']} | {r['significance']:.2f} | {r['report']:.2f} |")
    print("\n| stage | exponent in N (k fixed) | exponent in k (N fixed) |\n|---|---:|---:|")
    for stage, e in exps.items():
        print(f"| {stage} | {e['datasets']:.2f} | {e['models']:.2f} |")
    return result


if __name__ == "__main__":
    main()
