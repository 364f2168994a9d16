"""k-means: Lloyd from the same given centres (identical iterations), and the default k-means++ with restarts."""

from __future__ import annotations

import os
import warnings

import numpy as np
from sklearn.cluster import KMeans as SkKMeans
from threadpoolctl import threadpool_limits

from replearn.models.cluster.kmeans import KMeans

from .common import Case, run_cases

#: BLAS and OpenMP threads for both libraries (one by default: on the shared 2-core machine two-thread
#: timings swing by an order of magnitude whenever another process holds a core); set REPLEARN_BENCH_THREADS.
THREADS = int(os.environ.get("REPLEARN_BENCH_THREADS", "1"))


def blobs(n, d, k, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=3.0, size=(k, d))
    return centers[rng.integers(0, k, size=n)] + rng.normal(size=(n, d))


def main() -> list[dict]:
    n, d, k = 10000, 20, 8
    X = blobs(n, d, k)
    init = X[np.random.default_rng(1).choice(n, k, replace=False)]
    ours = KMeans(k, init=init, max_iter=100).fit(X)
    ref = SkKMeans(k, init=init, n_init=1, algorithm="lloyd", max_iter=100).fit(X)
    assert ours.n_iter_ == ref.n_iter_ and np.array_equal(ours.labels_, ref.labels_)
    shape = f"{n}x{d}, k={k}"
    cases = [
        Case(
            f"KMeans(init=given, n_init=1).fit ({ours.n_iter_} iterations each)",
            shape,
            lambda: KMeans(k, init=init, max_iter=100).fit(X),
            lambda: SkKMeans(k, init=init, n_init=1, algorithm="lloyd", max_iter=100).fit(X),
            "KMeans(init=given, n_init=1, algorithm='lloyd')",
        ),
        Case(
            "KMeans(k-means++, n_init=10).fit",
            shape,
            lambda: KMeans(k, n_init=10, random_state=0).fit(X),
            lambda: SkKMeans(k, n_init=10, algorithm="lloyd", random_state=0).fit(X),
            "KMeans(n_init=10, algorithm='lloyd') (greedy k-means++)",
        ),
    ]
    with warnings.catch_warnings(), threadpool_limits(limits=THREADS):
        warnings.simplefilter("ignore")
        return run_cases("cluster", cases, repeats=5)


if __name__ == "__main__":
    main()
