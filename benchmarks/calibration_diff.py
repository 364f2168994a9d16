"""Calibration of ``replearn diff``'s verdicts on real fits: false alarms, power and interval coverage (issue 36).

What a regression gate must get right, measured through the command's own code: every replication writes the
two runs' crossval records to folders (the records the crossval stage writes, :func:`replearn.pipeline.experiment
.crossval` on real fits of registry models) and runs :func:`replearn.pipeline.diff.run` on them -- the sources,
the engine and the verdicts of ``replearn diff A B``.

Setting (the issue's): breast_cancer, the default experiment's split (75 % training part) and 10 x 10 repeated
stratified cross-validation, the default metrics (accuracy and macro F1: two cells per model, the step-down maxT
over them; Holm's bound and
the primary metric alone are reported beside it),
alpha = 0.05, the margin of ``stats.rope``. A pool of runs differs only in ``model_seed`` (every learner's seed
redrawn on every replicate; the data, the splits and the sealed test part unchanged); replication ``i`` diffs
run ``2 i`` against run ``2 i + 1``:

* **seed-only change** (the null of the gate): a random forest of 10 trees (``random_forest``), and in the full
  run also a small MLP; a *false alarm* is any cell the diff calls worse or better ("fails more" included), and
  the outcome ``regression`` is what ``--fail-on regression`` exits 1 on;
* **nothing changed**: a run diffed against a rerun of itself must say "identical" without a test (a handful of
  reruns: the pipeline is deterministic);
* **planted drops** of 0.5, 1 and 2 accuracy points: run ``2 i + 1``'s predictions, each right one made wrong
  with probability ``delta / accuracy`` (a worse model by ``delta`` in expectation, on every replicate; macro F1
  recomputed from the changed predictions); *power* is the share of replications whose accuracy cell is called
  worse on these splits (and the diff's outcome ``regression``);
* **coverage**: the share of replications whose printed interval of the accuracy change holds the truth (0 for
  the seed-only change, ``-delta`` for a planted drop).

Bands (``--check``): false alarms at most 5 % + 3 Monte-Carlo standard errors; identical reruns always
identical; power at a 1-point drop at least 80 % - 3 s.e.; coverage in [93 %, 97 %] widened by 3 s.e.

Run: ``python -m benchmarks.calibration_diff`` (300 replications of the random forest = 600 runs of 100 fits, and
150 of the MLP; ~12 minutes on 2 cores), ``--quick`` (the CI gate: 100 replications of the random forest, ~2-3
minutes), ``--reps N``, ``--jobs``, ``--check``. Writes ``benchmarks/results/local/calibration_diff.json``
(untracked) and prints the Markdown table docs/statistics.md shows.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .common import RESULTS_DIR

ROOT = Path(__file__).resolve().parents[1]
RESULTS = RESULTS_DIR / "calibration_diff.json"
DATASET = "breast_cancer"
DROPS = (0.005, 0.01, 0.02)
FULL_REPS, QUICK_REPS, MLP_REPS = 300, 100, 150
IDENTICAL_RERUNS = 3
ALARM_MAX, POWER_MIN, COVERAGE_BAND, WIDEN = 0.05, 0.80, (0.93, 0.97), 3.0
LEARNERS = {
    "random_forest": ("random_forest", {"n_estimators": 10}, "random forest, 10 trees"),
    "mlp": ("mlp", {"hidden_layer_sizes": [16], "max_iter": 60, "early_stopping": False}, "MLP, 16 hidden units"),
}


def _project(work: Path) -> Path:
    """A project root with the shipped data (links into this checkout) and breast_cancer prepared as the default
    experiment prepares it."""
    from replearn.pipeline.config import compose, load_and_validate
    from replearn.pipeline.data import prepare

    (work / "data").mkdir(parents=True)
    for name in ("registry.yaml", "uci", "reference", "keel.yaml"):
        src = ROOT / "data" / name
        if src.exists():
            (work / "data" / name).symlink_to(src)
    params = _params("random_forest", 0, work)
    prepare(DATASET, params["dataset"][DATASET], seed=params["seed"], split=params["split"], root=work)
    assert compose and load_and_validate  # imported for _params
    return work


def _params(learner: str, model_seed: int, work: Path) -> dict:
    from replearn.pipeline.config import compose, load_and_validate

    name, hp, _ = LEARNERS[learner]
    out = work / f"params-{learner}.yaml"
    if not out.exists():
        compose(
            [
                f"dataset=[{DATASET}]",
                f"models=[{name}]",
                "cv=repeated_stratified_kfold",
                "cv.half_sampling.subsamples=0",  # the diff needs the replicates only
                "tracking=off",
                "reproduce=null",
            ],
            root=ROOT,
            output=out,
        )
    params = load_and_validate(out, root=ROOT)
    params["models"][name]["params"] = {**(params["models"][name].get("params") or {}), **hp}
    params["model_seed"] = int(model_seed)
    return params


def _run_one(args) -> dict:
    """One crossval run (plain record data) of ``learner`` with ``model_seed``."""
    learner, model_seed, work = args
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from replearn.pipeline import experiment, records

    params = _params(learner, model_seed, Path(work))
    res = experiment.crossval(params, DATASET, Path(work), progress=False)
    return records.to_dict(res)


def pool(learner: str, n: int, work: Path, jobs: int) -> list[dict]:
    tasks = [(learner, s, str(work)) for s in range(n)]
    if jobs <= 1:
        return [_run_one(t) for t in tasks]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=jobs)(delayed(_run_one)(t) for t in tasks)


def plant_drop(record: dict, delta: float, y: np.ndarray, rng: np.random.Generator) -> dict:
    """The record with each right prediction of its model made wrong with probability ``delta / accuracy``
    (binary labels: the other class), accuracy and macro F1 recomputed per replicate."""
    from replearn.evaluation.metrics import METRICS

    out = json.loads(json.dumps(record))
    for m in out["models"].values():
        acc = float(np.mean(m["scores"]["accuracy"]))
        q = min(1.0, delta / acc)
        for r, split in enumerate(out["splits"]):
            idx = np.asarray(split["test_index"])
            correct = np.asarray(m["correct"][r], dtype=bool)
            flip = correct & (rng.random(correct.size) < q)
            new = correct & ~flip
            yt = y[idx]
            pred = np.where(new, yt, 1 - yt)
            m["correct"][r] = new.astype(int).tolist()
            m["scores"]["accuracy"][r] = float(new.mean())
            m["scores"]["f1_macro"][r] = float(METRICS["f1_macro"].func(yt, pred, None))
    return out


def _write(folder: Path, record: dict) -> None:
    from replearn.pipeline import records

    folder.mkdir(parents=True, exist_ok=True)
    records.write(folder / f"{DATASET}.json", records.from_dict(records.EvaluationResult, record, source="pool"))


def _diff(a: dict, b: dict, work: Path, tag: str, **kw):
    """``replearn diff`` of the two records (written as the crossval stage writes them) with the default settings
    (alpha and the margin of conf/stats; the step-down maxT over the cells); ``kw``: other settings."""
    from replearn.pipeline import diff

    fa, fb = work / f"{tag}-a", work / f"{tag}-b"
    if a is not None:
        for f in (fa, fb):
            shutil.rmtree(f, ignore_errors=True)
        _write(fa, a)
        _write(fb, b)
    params = _params("random_forest", 0, work)
    stats_cfg = params["stats"]
    return diff.run(
        str(fa),
        str(fb),
        work,
        track=False,
        alpha=float(stats_cfg["alpha"]),
        margin=float(stats_cfg["rope"]),
        **kw,
    )


def _cell(result, metric="accuracy"):
    return next(c for c in result.cells if c.metric == metric)


def _rate(k: int, n: int) -> dict:
    p = k / n if n else float("nan")
    return {"count": k, "n": n, "rate": p, "se": float(np.sqrt(p * (1 - p) / n)) if n else None}


def measure(learner: str, reps: int, work: Path, jobs: int, seed: int, *, drops=DROPS) -> dict:
    t0 = time.time()
    runs = pool(learner, 2 * reps, work, jobs)
    fit_seconds = time.time() - t0
    y = np.load(work / "data" / "prepared" / DATASET / "train.npz")["y"]
    rng = np.random.default_rng(seed)
    alarms = regressions = covered = 0
    by_drop = {d: {"worse": 0, "regression": 0, "covered": 0, "worse_holm": 0, "worse_primary": 0} for d in drops}
    for i in range(reps):
        a, b = runs[2 * i], runs[2 * i + 1]
        res = _diff(a, b, work, "null")
        alarms += any(c.verdict in ("worse", "better", "fails more", "fails less") for c in res.cells)
        regressions += res.outcome() == "regression"
        acc = _cell(res)
        covered += acc.ci is not None and acc.ci[0] <= 0.0 <= acc.ci[1]
        for d in drops:
            rd = _diff(a, plant_drop(b, d, y, rng), work, "drop")
            cell = _cell(rd)
            by_drop[d]["worse"] += cell.verdict == "worse"
            # the same records with Holm's bound instead of maxT, and with the primary metric alone (one cell)
            by_drop[d]["worse_holm"] += _cell(_diff(None, None, work, "drop", correction="holm")).verdict == "worse"
            by_drop[d]["worse_primary"] += (
                _cell(_diff(None, None, work, "drop", metrics=("accuracy",))).verdict == "worse"
            )
            by_drop[d]["regression"] += rd.outcome() == "regression"
            by_drop[d]["covered"] += cell.ci is not None and cell.ci[0] <= -d <= cell.ci[1]
    return {
        "learner": learner,
        "label": LEARNERS[learner][2],
        "reps": reps,
        "runs": 2 * reps,
        "fit_seconds": round(fit_seconds, 1),
        "false_alarm": _rate(alarms, reps),
        "regression_outcome": _rate(regressions, reps),
        "coverage_null": _rate(covered, reps),
        "drops": {
            f"{d:g}": {
                "power": _rate(v["worse"], reps),
                "power_holm": _rate(v["worse_holm"], reps),
                "power_primary_only": _rate(v["worse_primary"], reps),
                "regression_outcome": _rate(v["regression"], reps),
                "coverage": _rate(v["covered"], reps),
            }
            for d, v in by_drop.items()
        },
    }


def identical_reruns(work: Path, n: int) -> dict:
    """``n`` runs diffed against a rerun of themselves: each must be "identical", untested."""
    ok = 0
    for s in range(n):
        first, again = (
            _run_one(("random_forest", 1000 + s, str(work))),
            _run_one(("random_forest", 1000 + s, str(work))),
        )
        res = _diff(first, again, work, "same")
        ok += res.outcome() == "identical" and res.n_tested == 0
    return _rate(ok, n)


def run(reps: int, seed: int, jobs: int, *, mlp_reps: int | None) -> dict:
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="replearn-diff-calibration-") as tmp:
        work = _project(Path(tmp) / "project")
        out = {
            "setup": {
                "dataset": DATASET,
                "cv": "10 x 10 repeated stratified k-fold (the default), half-sampling off (not used by the diff)",
                "metrics": ["accuracy", "f1_macro"],
                "alpha": 0.05,
                "correction": "step-down maxT over the cells (2 per model); Holm, the primary metric alone beside it",
                "drops": list(DROPS),
                "seed": seed,
                "python": platform.python_version(),
            },
            "identical": identical_reruns(work, IDENTICAL_RERUNS),
            "learners": [measure("random_forest", reps, work, jobs, seed)],
        }
        if mlp_reps:
            out["learners"].append(measure("mlp", mlp_reps, work, jobs, seed + 1, drops=(0.01,)))
    out["seconds"] = round(time.time() - t0, 1)
    return out


def _pct(r: dict) -> str:
    return f"{100 * r['rate']:.1f}%"


def markdown(res: dict) -> str:
    lines = [
        f"Real fits on {res['setup']['dataset']}, {res['setup']['cv']}; accuracy and macro F1 (the step-down maxT "
        "over the 2 cells), "
        f"alpha = 0.05, seed {res['setup']['seed']}. A run diffed against a rerun of itself: "
        f"{res['identical']['count']} of {res['identical']['n']} identical (no test).",
        "",
        "| learner | replications | false alarms (seed-only change) | coverage, seed-only | "
        + " | ".join(f"power at −{100 * float(d):g} pt / coverage" for d in res["setup"]["drops"])
        + " | power at −1 pt: Holm instead of maxT / accuracy alone |",
        "|---|---:|---:|---:|" + "---:|" * len(res["setup"]["drops"]) + "---:|",
    ]
    for learner in res["learners"]:
        drops = []
        for d in res["setup"]["drops"]:
            v = learner["drops"].get(f"{d:g}")
            drops.append(f"{_pct(v['power'])} / {_pct(v['coverage'])}" if v else "—")
        one = learner["drops"].get("0.01")
        extra = f"{_pct(one['power_holm'])} / {_pct(one['power_primary_only'])}" if one else "—"
        lines.append(
            f"| {learner['label']} | {learner['reps']} | {_pct(learner['false_alarm'])} | "
            f"{_pct(learner['coverage_null'])} | " + " | ".join(drops) + f" | {extra} |"
        )
    return "\n".join(lines)


def out_of_band(res: dict) -> list[str]:
    bad = []
    if res["identical"]["count"] != res["identical"]["n"]:
        bad.append(f"identical reruns: {res['identical']['count']} of {res['identical']['n']} identical")
    for learner in res["learners"]:
        n = learner["reps"]
        se5, se95, se80 = (float(np.sqrt(p * (1 - p) / n)) for p in (ALARM_MAX, 0.95, POWER_MIN))
        fa = learner["false_alarm"]["rate"]
        if fa > ALARM_MAX + WIDEN * se5:
            bad.append(f"{learner['label']}: false alarms {fa:.3f} > {ALARM_MAX + WIDEN * se5:.3f}")
        lo, hi = COVERAGE_BAND[0] - WIDEN * se95, COVERAGE_BAND[1] + WIDEN * se95
        cells = [("seed-only", learner["coverage_null"]["rate"])] + [
            (f"drop {d}", v["coverage"]["rate"]) for d, v in learner["drops"].items()
        ]
        for what, cov in cells:
            if not lo <= cov <= hi:
                bad.append(f"{learner['label']}: coverage ({what}) {cov:.3f} outside [{lo:.3f}, {hi:.3f}]")
        one = learner["drops"].get("0.01")
        if one and one["power"]["rate"] < POWER_MIN - WIDEN * se80:
            bad.append(
                f"{learner['label']}: power at a 1-point drop {one['power']['rate']:.3f} "
                f"< {POWER_MIN - WIDEN * se80:.3f}"
            )
    return bad


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"CI's gate: {QUICK_REPS} random-forest replications")
    parser.add_argument("--reps", type=int, default=None, help="random-forest replications (overrides --quick)")
    parser.add_argument("--mlp-reps", type=int, default=None, help=f"MLP replications (full run: {MLP_REPS}; 0: none)")
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--check", action="store_true", help="exit 1 when a cell is outside its widened band")
    parser.add_argument("--no-write", action="store_true", help=f"do not write {RESULTS}")
    args = parser.parse_args(argv)
    reps = args.reps or (QUICK_REPS if args.quick else FULL_REPS)
    mlp = args.mlp_reps if args.mlp_reps is not None else (0 if args.quick else MLP_REPS)
    res = run(reps, args.seed, args.jobs, mlp_reps=mlp)
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    print(markdown(res))
    print(f"\n({res['seconds']} s, {args.jobs} job(s))")
    if args.check:
        bad = out_of_band(res)
        if bad:
            print("\nOut of band:\n" + "\n".join(f"  {b}" for b in bad), file=sys.stderr)
            return 1
        print("\nEvery cell is inside its band.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
