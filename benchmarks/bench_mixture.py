"""Gaussian mixtures: the same EM iterations from the same start, full and diagonal covariances."""

from __future__ import annotations

import os
import warnings

import numpy as np
from sklearn.mixture import GaussianMixture as SkGaussianMixture
from threadpoolctl import threadpool_limits

from replearn.models.mixture.gaussian_mixture import GaussianMixture

from .common import Case, run_cases

#: BLAS and OpenMP threads for both libraries (one by default: on the shared 2-core machine two-thread
#: timings swing by an order of magnitude whenever another process holds a core); set REPLEARN_BENCH_THREADS.
THREADS = int(os.environ.get("REPLEARN_BENCH_THREADS", "1"))


def mixture_data(n, d, k, seed=0):
    rng = np.random.default_rng(seed)
    means = rng.normal(scale=2.0, size=(k, d))
    y = rng.integers(0, k, size=n)
    return means[y] + rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=(k, d))[y]


def main() -> list[dict]:
    n, d, k, iters = 5000, 8, 4, 30
    X = mixture_data(n, d, k)
    rng = np.random.default_rng(1)
    means = X[rng.choice(n, k, replace=False)]
    w = np.full(k, 1.0 / k)
    cases = []
    for ct in ("full", "diag"):
        cov = np.array([np.eye(d)] * k) if ct == "full" else np.ones((k, d))
        prec = cov  # identity: its own inverse

        def ours(ct=ct, cov=cov):
            return GaussianMixture(
                k,
                covariance_type=ct,
                tol=0.0,
                max_iter=iters,  # noqa: E731
                weights_init=w,
                means_init=means,
                covariances_init=cov,
            ).fit(X)

        def ref(ct=ct, prec=prec):
            return SkGaussianMixture(
                k,
                covariance_type=ct,
                tol=0.0,
                max_iter=iters,  # noqa: E731
                weights_init=w,
                means_init=means,
                precisions_init=prec,
            ).fit(X)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a, b = ours(), ref()
        assert np.allclose(a.means_, b.means_, rtol=1e-6, atol=1e-8), "the two fits should run the same iterations"
        cases.append(
            Case(
                f"GaussianMixture('{ct}').fit, {a.n_iter_} EM iterations",
                f"{n}x{d}, K={k}",
                ours,
                ref,
                f"GaussianMixture('{ct}', same init, tol=0, max_iter={iters})",
            )
        )
    with warnings.catch_warnings(), threadpool_limits(limits=THREADS):
        warnings.simplefilter("ignore")
        return run_cases("mixture", cases, repeats=5)


if __name__ == "__main__":
    main()
