"""PCA (SVD and eigen solvers), kernel PCA, factor analysis and ICA against scikit-learn.

ICA is timed with the fixed-point algorithm (scikit-learn's); the course's natural-gradient rule has no
scikit-learn counterpart and is not timed here (docs/performance.md reports it separately)."""

from __future__ import annotations

import os
import warnings

import numpy as np
from sklearn.decomposition import PCA as SkPCA
from sklearn.decomposition import FactorAnalysis as SkFactorAnalysis
from sklearn.decomposition import FastICA
from sklearn.decomposition import KernelPCA as SkKernelPCA
from threadpoolctl import threadpool_limits

from replearn.models.decomposition.factor_analysis import FactorAnalysis
from replearn.models.decomposition.ica import ICA
from replearn.models.decomposition.kernel_pca import KernelPCA
from replearn.models.decomposition.pca import PCA

from .common import Case, run_cases

#: BLAS and OpenMP threads for both libraries (one by default: on the shared 2-core machine two-thread
#: timings swing by an order of magnitude whenever another process holds a core); set REPLEARN_BENCH_THREADS.
THREADS = int(os.environ.get("REPLEARN_BENCH_THREADS", "1"))


def main() -> list[dict]:
    rng = np.random.default_rng(0)
    n, d = 4000, 80
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d))
    Xk = X[:1000, :20]
    # factor-analysis data: 5 factors in 30 features
    L = rng.normal(size=(30, 5))
    Xf = rng.normal(size=(2000, 5)) @ L.T + rng.normal(size=(2000, 30)) * rng.uniform(0.3, 1.0, 30)
    # ICA data: 4 Laplace sources, random mixing
    Xi = rng.laplace(size=(5000, 4)) @ rng.normal(size=(4, 4)).T
    sk_fa_tol = 1e-2  # scikit-learn's default, on the total log-likelihood; ours is per example
    cases = [
        Case(
            "PCA(10, solver='svd').fit",
            f"{n}x{d}",
            lambda: PCA(10).fit(X),
            lambda: SkPCA(10, svd_solver="full").fit(X),
            "PCA(10, svd_solver='full')",
        ),
        Case(
            "PCA(10, solver='eig').fit",
            f"{n}x{d}",
            lambda: PCA(10, solver="eig").fit(X),
            lambda: SkPCA(10, svd_solver="covariance_eigh").fit(X),
            "PCA(10, svd_solver='covariance_eigh')",
        ),
        Case(
            "KernelPCA(10, rbf, eigen_solver='dense').fit",
            "1000x20",
            lambda: KernelPCA(10, kernel="rbf", gamma=0.01, eigen_solver="dense").fit(Xk),
            lambda: SkKernelPCA(10, kernel="rbf", gamma=0.01, eigen_solver="dense").fit(Xk),
            "KernelPCA(10, rbf, eigen_solver='dense')",
        ),
        Case(
            "KernelPCA(10, rbf, eigen_solver='arpack').fit",
            "1000x20",
            lambda: KernelPCA(10, kernel="rbf", gamma=0.01, eigen_solver="arpack").fit(Xk),
            lambda: SkKernelPCA(10, kernel="rbf", gamma=0.01, eigen_solver="arpack", random_state=0).fit(Xk),
            "KernelPCA(10, rbf, eigen_solver='arpack')",
        ),
        Case(
            "FactorAnalysis(5).fit (profile iteration, same tolerance)",
            "2000x30",
            lambda: FactorAnalysis(5, tol=sk_fa_tol / 2000).fit(Xf),
            lambda: SkFactorAnalysis(5, tol=sk_fa_tol, svd_method="lapack").fit(Xf),
            "FactorAnalysis(5, svd_method='lapack') (the same iteration on an SVD of the data)",
        ),
        Case(
            "ICA(algorithm='fixed_point', fun='logcosh', tol=1e-4).fit",
            "5000x4",
            lambda: ICA(tol=1e-4, random_state=0).fit(Xi),
            lambda: FastICA(tol=1e-4, random_state=0, whiten="unit-variance").fit(Xi),
            "FastICA(tol=1e-4) (same fixed point, logcosh)",
        ),
    ]
    with warnings.catch_warnings(), threadpool_limits(limits=THREADS):
        warnings.simplefilter("ignore")
        return run_cases("decomposition", cases, repeats=5)


if __name__ == "__main__":
    main()
