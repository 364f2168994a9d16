"""Kernels: kernel matrices by one GEMM, and kernel ridge regression, vs scikit-learn."""

from __future__ import annotations

import numpy as np
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel

from replearn.kernels import kernel_matrix
from replearn.models.kernel.kernel_ridge import KernelRidge

from .common import Case, run_cases


def main() -> list[dict]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 20))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=3000)
    Xs, ys = X[:1500], y[:1500]
    cases = [
        Case(
            "kernel_matrix(X, X, 'rbf', gamma=0.05)",
            "3000x20 -> 3000x3000",
            lambda: kernel_matrix(X, X, "rbf", gamma=0.05),
            lambda: rbf_kernel(X, X, gamma=0.05),
            "sklearn.metrics.pairwise.rbf_kernel",
        ),
        Case(
            "kernel_matrix(X, X, 'polynomial', degree=3)",
            "3000x20 -> 3000x3000",
            lambda: kernel_matrix(X, X, "polynomial", degree=3, gamma=0.05, coef0=1.0),
            lambda: polynomial_kernel(X, X, degree=3, gamma=0.05, coef0=1.0),
            "sklearn.metrics.pairwise.polynomial_kernel",
        ),
        Case(
            "KernelRidge(alpha=1, kernel='rbf', gamma=0.05).fit",
            "1500x20",
            lambda: KernelRidge(alpha=1.0, kernel="rbf", gamma=0.05).fit(Xs, ys),
            lambda: SkKernelRidge(alpha=1.0, kernel="rbf", gamma=0.05).fit(Xs, ys),
            "KernelRidge(kernel='rbf')",
        ),
    ]
    return run_cases("kernel", cases, repeats=5)


if __name__ == "__main__":
    main()
