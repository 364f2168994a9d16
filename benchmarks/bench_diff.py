"""How long `replearn diff` takes on a benchmark's records, read through DVC from the cache (issue 36: <= 3 s for
two runs of benchmark_keel, 43 datasets x 12 models).

Builds, in a temporary git + DVC repository, the crossval records of two runs shaped like ``benchmark_keel``'s:
the 43 KEEL datasets at their sizes (the training part, 75 %), stratified 10-fold x 1, 12 models, accuracy and
macro F1, with per-example ``correct`` flags (the bulk of a record). The second run changes one model's scores on
every dataset. Both revisions are committed with their ``results/crossval`` as a DVC output (``dvc add``: in the
cache, not in git), then ``python -m replearn diff A B --no-tracking`` is timed as a whole process, beside ``dvc
metrics diff`` on the same revisions (bare numbers, no test) for scale.

Run: ``python -m benchmarks.bench_diff [--rounds 5]``; prints a Markdown table (docs/performance.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
MODELS = [
    "logistic_regression",
    "gda",
    "gda_per_class",
    "gaussian_naive_bayes",
    "knn",
    "decision_tree",
    "random_forest",
    "adaboost_stumps",
    "linear_svm",
    "svm_rbf",
    "mlp",
    "averaged_perceptron",
]


def _record(name: str, n: int, rng: np.random.Generator, shift: float):
    """One dataset's record: the folds depend on the dataset only (both runs share them), the scores on ``rng``."""
    from replearn.pipeline import records

    folds = np.array_split(np.random.default_rng(sum(map(ord, name))).permutation(n), 10)
    splits = [
        records.Replicate(
            index=f,
            kind="split",
            n_train=n - len(t),
            n_test=len(t),
            seed=1,
            repeat=0,
            fold=f,
            test_index=sorted(int(i) for i in t),
        )
        for f, t in enumerate(folds)
    ]
    models = {}
    for k, key in enumerate(MODELS):
        p = 0.7 + 0.02 * k - (shift if key == "knn" else 0.0)
        correct = [(rng.random(len(t)) < p).astype(int).tolist() for t in folds]
        acc = [float(np.mean(c)) for c in correct]
        models[key] = records.ModelEvaluation(
            registry_name=key,
            params={},
            scores={"accuracy": acc, "f1_macro": [a - 0.01 for a in acc]},
            n_iter=[None] * 10,
            converged=[True] * 10,
            correct=correct,
        )
    return records.EvaluationResult(
        dataset=name,
        task="classification",
        n_examples=n,
        scheme=records.Scheme("stratified_kfold", folds=10, repeats=1, seed=1),
        metrics=["accuracy", "f1_macro"],
        primary_metric="accuracy",
        greater_is_better={"accuracy": True, "f1_macro": True},
        splits=splits,
        models=models,
        data_sha256=f"{sum(map(ord, name)):064d}",
    )


def build(repo: Path) -> None:
    from replearn.pipeline import records

    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    sizes = {
        d: int(0.75 * v["n_samples"])
        for d, v in yaml.safe_load((ROOT / "data" / "keel.yaml").read_text())["datasets"].items()
    }

    def sh(*cmd):
        subprocess.run(list(cmd), cwd=repo, env=env, check=True, capture_output=True)

    sh("git", "init", "-q", "-b", "main")
    sh("git", "config", "user.email", "b@example.invalid")
    sh("git", "config", "user.name", "bench")
    sh(sys.executable, "-m", "dvc", "init", "-q")
    (repo / "dvc.yaml").write_text("stages: {}\n")
    out = repo / "results" / "crossval"
    for tag, shift in (("a", 0.0), ("b", 0.02)):
        out.mkdir(parents=True, exist_ok=True)
        for d, n in sizes.items():
            records.write(out / f"{d}.json", _record(d, n, np.random.default_rng([sum(map(ord, d)), ord(tag)]), shift))
        sh(sys.executable, "-m", "dvc", "add", "-q", "results/crossval")
        sh("git", "add", "-A")
        sh("git", "commit", "-qm", tag)
        sh("git", "tag", tag)


def timed(cmd: list[str], cwd: Path, rounds: int) -> list[float]:
    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, check=False)  # warm-up
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
        out.append(time.perf_counter() - t)
        assert res.returncode in (0, 1), res.stderr
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="replearn-bench-diff-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        build(repo)
        size = sum(p.stat().st_size for p in (repo / "results" / "crossval").glob("*.json"))
        diff = timed([sys.executable, "-m", "replearn", "diff", "a", "b", "--no-tracking"], repo, args.rounds)
        out = subprocess.run(
            [sys.executable, "-m", "replearn", "diff", "a", "b", "--no-tracking"],
            cwd=repo,
            capture_output=True,
            text=True,
        ).stdout
        cells = [line for line in out.splitlines() if line.startswith("Outcome")]
    med = statistics.median(diff)
    print(f"records: 43 datasets x 12 models x 2 metrics, {size / 1e6:.1f} MB per revision, read through DVC")
    print("| command | median wall (s) | min | max |")
    print("|---|---:|---:|---:|")
    print(f"| replearn diff a b (1,032 cells) | {med:.2f} | {min(diff):.2f} | {max(diff):.2f} |")
    print(cells[0] if cells else out[-400:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
