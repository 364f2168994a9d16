"""Linear models: closed-form least squares, ridge (primal and dual), logistic Newton, and the solvers of
issue 4: lasso (coordinate descent), softmax regression (Newton), Poisson GLM (IRLS), L1 logistic
(proximal gradient), LMS / SGD least squares (fixed number of epochs).

Iterative solvers are timed against scikit-learn on the same objective with the same tolerance (or the
same number of epochs where the stopping rules differ); the scikit-learn solver is named in each row.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.linear_model import Lasso as SkLasso
from sklearn.linear_model import LinearRegression as SkLinearRegression
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.linear_model import PoissonRegressor, SGDRegressor
from sklearn.linear_model import Ridge as SkRidge

from replearn.models.linear.glm import GeneralizedLinearModel
from replearn.models.linear.lasso import Lasso
from replearn.models.linear.least_squares import LinearRegression
from replearn.models.linear.logistic import LogisticRegression
from replearn.models.linear.ridge import Ridge
from replearn.models.linear.softmax import SoftmaxRegression

from .common import Case, run_cases


def regression_data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, X @ rng.normal(size=d) + rng.normal(size=n)


def classification_data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X @ rng.normal(size=d) / np.sqrt(d) + rng.normal(size=n) > 0).astype(int)


def multiclass_data(n, d, k, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    return rng.normal(size=(n, d)) + 0.5 * rng.normal(size=(k, d))[y], y


def count_data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    return X, rng.poisson(np.exp(X @ rng.normal(size=d) + 0.5)).astype(float)


def issue4_cases() -> list[Case]:
    Xl, yl = regression_data(5000, 50, seed=2)
    Xm, ym = multiclass_data(5000, 30, 5)
    Xp, yp = count_data(20000, 30)
    Xc, yc = classification_data(2000, 30, seed=3)
    Xs, ys = regression_data(2000, 20, seed=4)
    return [
        Case(
            "Lasso(alpha=0.1, solver='cd', tol=1e-6).fit",
            "5000x50",
            lambda: Lasso(alpha=0.1, tol=1e-6).fit(Xl, yl),
            lambda: SkLasso(alpha=0.1, tol=1e-6).fit(Xl, yl),
            "Lasso(tol=1e-6) (Cython coordinate descent)",
        ),
        Case(
            "SoftmaxRegression(C=1, tol=1e-6).fit (newton)",
            "5000x30, 5 classes",
            lambda: SoftmaxRegression(C=1.0, tol=1e-6).fit(Xm, ym),
            lambda: SkLogisticRegression(C=1.0, tol=1e-6, max_iter=1000).fit(Xm, ym),
            "LogisticRegression(solver='lbfgs') (multinomial)",
        ),
        Case(
            "SoftmaxRegression(C=1, tol=1e-6).fit (newton)",
            "5000x30, 5 classes",
            lambda: SoftmaxRegression(C=1.0, tol=1e-6).fit(Xm, ym),
            lambda: SkLogisticRegression(C=1.0, tol=1e-6, solver="newton-cholesky").fit(Xm, ym),
            "LogisticRegression(solver='newton-cholesky') (multinomial)",
        ),
        Case(
            "GeneralizedLinearModel(family='poisson', tol=1e-8).fit (IRLS)",
            "20000x30",
            lambda: GeneralizedLinearModel(family="poisson", tol=1e-8).fit(Xp, yp),
            lambda: PoissonRegressor(alpha=0.0, tol=1e-8, solver="newton-cholesky").fit(Xp, yp),
            "PoissonRegressor(solver='newton-cholesky')",
        ),
        Case(
            "LogisticRegression(penalty='l1', C=0.1, solver='gd').fit (FISTA)",
            "2000x30",
            lambda: LogisticRegression(
                penalty="l1", C=0.1, solver="gd", learning_rate=1.0, tol=1e-6, max_iter=10_000
            ).fit(Xc, yc),
            lambda: SkLogisticRegression(C=0.1, l1_ratio=1.0, solver="saga", tol=1e-6, max_iter=10_000).fit(Xc, yc),
            "LogisticRegression(l1_ratio=1, solver='saga')",
        ),
        Case(
            "LinearRegression(solver='sgd').fit, 5 epochs (LMS)",
            "2000x20",
            lambda: LinearRegression(
                solver="sgd", learning_rate=0.01, max_iter=5, tol=0.0, n_iter_no_change=10, random_state=0
            ).fit(Xs, ys),
            lambda: SGDRegressor(
                penalty=None, learning_rate="constant", eta0=0.01, max_iter=5, tol=None, random_state=0
            ).fit(Xs, ys),
            "SGDRegressor(max_iter=5, tol=None) (Cython loop)",
        ),
    ]


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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fixed-epoch SGD runs warn by design
        return run_cases("linear", cases + issue4_cases())


if __name__ == "__main__":
    main()
