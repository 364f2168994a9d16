"""How fit time and peak memory grow with n (and with d), replearn beside scikit-learn.

``python -m benchmarks.scaling`` fits seven models on synthetic data with n = 10^3 .. 10^5 examples
(20 features) and with d = 10 .. 1000 features (n = 5000), one BLAS thread for both libraries, and
records the wall-clock fit time (the best of ``--repeats`` runs, one for the largest sizes) and the
peak memory traced by ``tracemalloc`` during a separate fit (numpy's allocations are traced; memory
is what the fit allocates beyond its input). It fits the log-log exponent ``b`` of ``time ~ n^b``
(and ``~ d^b``) by least squares over the sizes where a fit takes at least a millisecond.

Writes ``benchmarks/results/local/scaling.json``, ``scaling.md`` (tables) and ``scaling.png`` (plot);
``--publish`` also copies the plot to docs/img/scaling.png and the tables into docs/performance.md
between the ``scaling:start`` / ``scaling:end`` markers. ``--quick`` runs a reduced grid. The full
grid takes about 5-10 minutes on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from .common import RESULTS_DIR, machine

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "performance.md"
IMG = ROOT / "docs" / "img" / "scaling.png"
START, END = "<!-- scaling:start -->", "<!-- scaling:end -->"


def _data(n: int, d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=2.0, size=(4, d))
    labels = rng.integers(0, 4, size=n)
    X = centers[labels] + rng.normal(size=(n, d))
    y_reg = X @ rng.normal(size=d) / np.sqrt(d) + rng.normal(size=n)
    y_bin = (y_reg > np.median(y_reg)).astype(int)
    return X, y_reg, y_bin, labels


def models() -> dict[str, tuple[Callable, Callable]]:
    """name -> (ours(X, y_reg, y_bin, labels), sklearn's(...)); the same objective and settings."""
    from sklearn.cluster import KMeans as SkKMeans
    from sklearn.linear_model import LinearRegression as SkLinear
    from sklearn.linear_model import LogisticRegression as SkLogistic
    from sklearn.mixture import GaussianMixture as SkGMM
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.tree import DecisionTreeClassifier

    from replearn.models.cluster.kmeans import KMeans
    from replearn.models.linear.least_squares import LinearRegression
    from replearn.models.linear.logistic import LogisticRegression
    from replearn.models.mixture.gaussian_mixture import GaussianMixture
    from replearn.models.neighbors.knn import KNearestNeighbors
    from replearn.models.neural.mlp import MLP
    from replearn.models.trees.decision_tree import DecisionTree

    def init(X):
        return X[:: max(1, len(X) // 8)][:8].copy()

    def queries(X):
        return X[:1000]

    return {
        "least squares (normal eq.)": (
            lambda X, yr, yb, lab: LinearRegression().fit(X, yr),
            lambda X, yr, yb, lab: SkLinear().fit(X, yr),
        ),
        "logistic regression (Newton)": (
            lambda X, yr, yb, lab: LogisticRegression(C=1.0, tol=1e-8).fit(X, yb),
            lambda X, yr, yb, lab: SkLogistic(C=1.0, tol=1e-8, solver="newton-cholesky").fit(X, yb),
        ),
        "k-means (k=8, 10 Lloyd iterations)": (
            lambda X, yr, yb, lab: KMeans(8, init=init(X), max_iter=10, tol=0.0).fit(X),
            lambda X, yr, yb, lab: SkKMeans(8, init=init(X), n_init=1, max_iter=10, tol=0.0, algorithm="lloyd").fit(X),
        ),
        "GMM (diag, K=4, 10 EM iterations)": (
            lambda X, yr, yb, lab: GaussianMixture(4, covariance_type="diag", max_iter=10, tol=0.0, random_state=0).fit(
                X
            ),
            lambda X, yr, yb, lab: SkGMM(4, covariance_type="diag", max_iter=10, tol=0.0, random_state=0).fit(X),
        ),
        "decision tree (gini, depth 10)": (
            lambda X, yr, yb, lab: DecisionTree(max_depth=10).fit(X, lab),
            lambda X, yr, yb, lab: DecisionTreeClassifier(max_depth=10, random_state=0).fit(X, lab),
        ),
        "k-NN (k=5, fit + 1000 queries)": (
            lambda X, yr, yb, lab: KNearestNeighbors(5).fit(X, lab).predict(queries(X)),
            lambda X, yr, yb, lab: KNeighborsClassifier(5, algorithm="brute").fit(X, lab).predict(queries(X)),
        ),
        "MLP (1x64, adam, 3 epochs)": (
            lambda X, yr, yb, lab: MLP(
                hidden_layer_sizes=(64,), max_iter=3, tol=0.0, batch_size=200, random_state=0
            ).fit(X, lab),
            lambda X, yr, yb, lab: MLPClassifier((64,), max_iter=3, tol=0.0, batch_size=200, random_state=0).fit(
                X, lab
            ),
        ),
    }


def _time(fn, args, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def _peak_mib(fn, args) -> float:
    tracemalloc.start()
    try:
        fn(*args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20


def exponent(sizes, times) -> float | None:
    """Least-squares slope of log(time) on log(size), over the points that take >= 1 ms."""
    pts = [(s, t) for s, t in zip(sizes, times) if t >= 1e-3]
    if len(pts) < 2:
        return None
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def run(ns, ds, n_for_d, d_for_n, repeats) -> dict:
    out = {"machine": machine(), "n_grid": ns, "d_grid": ds, "n_for_d": n_for_d, "d_for_n": d_for_n, "models": {}}
    for name, (ours, ref) in models().items():
        entry = {}
        for axis, grid in (("n", ns), ("d", ds)):
            rows = []
            for size in grid:
                n, d = (size, d_for_n) if axis == "n" else (n_for_d, size)
                args = _data(n, d)
                reps = 1 if n * d >= 1_000_000 else repeats
                ours(*args)  # warm-up (compiles numba kernels, fills caches)
                t_ours, t_ref = _time(ours, args, reps), _time(ref, args, reps)
                m_ours, m_ref = _peak_mib(ours, args), _peak_mib(ref, args)
                rows.append(
                    {"n": n, "d": d, "ours_s": t_ours, "sklearn_s": t_ref, "ours_mib": m_ours, "sklearn_mib": m_ref}
                )
                print(
                    f"{name:38s} n={n:>7d} d={d:>5d}  ours {t_ours:8.4f}s {m_ours:8.1f} MiB   "
                    f"sklearn {t_ref:8.4f}s {m_ref:8.1f} MiB",
                    flush=True,
                )
            sizes = [r[axis] for r in rows]
            entry[axis] = {
                "rows": rows,
                "exponent_ours": exponent(sizes, [r["ours_s"] for r in rows]),
                "exponent_sklearn": exponent(sizes, [r["sklearn_s"] for r in rows]),
            }
        out["models"][name] = entry
    return out


def _fmt(x, digits=3):
    return "—" if x is None else f"{x:.{digits}g}"


def markdown(result: dict) -> str:
    lines = [
        f"Fit time vs n (d = {result['d_for_n']}) and vs d (n = {result['n_for_d']}), one BLAS thread; "
        "exponent b of time ~ size^b fitted over the sizes taking >= 1 ms; peak memory traced by tracemalloc "
        "at the largest size.",
        "",
        "| model | b(n) ours | b(n) sklearn | b(d) ours | b(d) sklearn | time at n max: ours / sklearn (s) "
        "| peak MiB at n max: ours / sklearn | time at d max: ours / sklearn (s) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, e in result["models"].items():
        rn, rd = e["n"]["rows"][-1], e["d"]["rows"][-1]
        lines.append(
            f"| {name} | {_fmt(e['n']['exponent_ours'], 2)} | {_fmt(e['n']['exponent_sklearn'], 2)} "
            f"| {_fmt(e['d']['exponent_ours'], 2)} | {_fmt(e['d']['exponent_sklearn'], 2)} "
            f"| {_fmt(rn['ours_s'])} / {_fmt(rn['sklearn_s'])} | {rn['ours_mib']:.0f} / {rn['sklearn_mib']:.0f} "
            f"| {_fmt(rd['ours_s'])} / {_fmt(rd['sklearn_s'])} |"
        )
    return "\n".join(lines) + "\n"


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for (name, e), color in zip(result["models"].items(), colors):
        for ax, axis in zip(axes, ("n", "d")):
            rows = e[axis]["rows"]
            sizes = [r[axis] for r in rows]
            ax.loglog(sizes, [r["ours_s"] for r in rows], "o-", color=color, label=f"{name}")
            ax.loglog(sizes, [r["sklearn_s"] for r in rows], "x--", color=color, alpha=0.6)
    axes[0].set(xlabel=f"n (d = {result['d_for_n']})", ylabel="fit time (s)", title="time vs n")
    axes[1].set(xlabel=f"d (n = {result['n_for_d']})", title="time vs d")
    axes[0].legend(fontsize=7, title="replearn (o-), scikit-learn (x--)", title_fontsize=7)
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="reduced grid (n up to 10^4, d up to 100)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--publish", action="store_true", help="write docs/img/scaling.png and the table into docs")
    args = parser.parse_args(argv)
    if args.quick:
        ns, ds = [1000, 3000, 10000], [10, 30, 100]
    else:
        ns, ds = [1000, 3000, 10000, 30000, 100000], [10, 30, 100, 300, 1000]
    with warnings.catch_warnings(), threadpool_limits(limits=1):
        warnings.simplefilter("ignore")
        result = run(ns, ds, n_for_d=5000, d_for_n=20, repeats=args.repeats)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / "scaling.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    table = markdown(result)
    (RESULTS_DIR / "scaling.md").write_text(table, encoding="utf-8")
    plot(result, RESULTS_DIR / "scaling.png")
    print(table)
    if args.publish:
        plot(result, IMG)
        text = DOC.read_text(encoding="utf-8")
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        DOC.write_text(
            f"{head}{START}\n\n{table}\n![fit time vs n and d](img/scaling.png)\n\n{END}{tail}", encoding="utf-8"
        )
        print(f"updated {DOC.relative_to(ROOT)} and {IMG.relative_to(ROOT)}")
    return result


if __name__ == "__main__":
    main()
