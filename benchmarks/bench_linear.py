"""Linear models: closed-form least squares, ridge (primal and dual), logistic Newton."""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LinearRegression as SkLinearRegression
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import Ridge as SkRidge

from replearn.models.linear.least_squares import LinearRegression
from replearn.models.linear.logistic import LogisticRegression
from replearn.models.linear.ridge import Ridge

from .common import Case, run_cases


def regression_data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, X @ rng.normal(size=d) + rng.normal(size=n)


def classification_data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X @ rng.normal(size=d) / np.sqrt(d) + rng.normal(size=n) > 0).astype(int)


def main() -> list[dict]:
    X, y = regression_data(20000, 100)
    Xw, yw = regression_data(1000, 4000, seed=1)
    Xc, yc = classification_data(20000, 50)
    C, tol = 1.0, 1e-8
    cases = [
        Case(
            "LinearRegression(solver='normal').fit",
            "20000x100",
            lambda: LinearRegression(solver="normal").fit(X, y),
            lambda: SkLinearRegression().fit(X, y),
            "LinearRegression()",
        ),
        Case(
            "Ridge(alpha=1).fit (primal)",
            "20000x100",
            lambda: Ridge(alpha=1.0).fit(X, y),
            lambda: SkRidge(alpha=1.0, solver="cholesky").fit(X, y),
            "Ridge(solver='cholesky')",
        ),
        Case(
            "Ridge(alpha=1).fit (dual, n < d)",
            "1000x4000",
            lambda: Ridge(alpha=1.0).fit(Xw, yw),
            lambda: SkRidge(alpha=1.0, solver="cholesky").fit(Xw, yw),
            "Ridge(solver='cholesky')",
        ),
        Case(
            f"LogisticRegression(C={C}, tol={tol}).fit (newton)",
            "20000x50",
            lambda: LogisticRegression(C=C, tol=tol).fit(Xc, yc),
            lambda: SkLogisticRegression(C=C, tol=tol, solver="newton-cholesky").fit(Xc, yc),
            "LogisticRegression(solver='newton-cholesky')",
        ),
    ]
    return run_cases("linear", cases)


if __name__ == "__main__":
    main()
