"""Multiclass reductions around the same binary learner (Newton logistic regression) vs scikit-learn's wrappers
around its own Newton logistic regression: the reduction overhead plus the base learner."""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier

from replearn.models import create

from .common import Case, run_cases


def main() -> list[dict]:
    rng = np.random.default_rng(0)
    n, d, k = 5000, 30, 6
    y = rng.integers(0, k, size=n)
    X = rng.normal(size=(n, d)) + 0.7 * rng.normal(size=(k, d))[y]
    params = {"C": 1.0, "tol": 1e-8}

    def sk():
        return SkLogisticRegression(C=1.0, tol=1e-8, solver="newton-cholesky")

    cases = [
        Case(
            "one_vs_all(logistic_regression) fit+predict",
            f"{n}x{d}, {k} classes",
            lambda: create("one_vs_all", estimator_params=params).fit(X, y).predict(X),
            lambda: OneVsRestClassifier(sk()).fit(X, y).predict(X),
            "OneVsRestClassifier(LogisticRegression)",
        ),
        Case(
            "all_vs_all(logistic_regression) fit+predict",
            f"{n}x{d}, {k} classes",
            lambda: create("all_vs_all", estimator_params=params).fit(X, y).predict(X),
            lambda: OneVsOneClassifier(sk()).fit(X, y).predict(X),
            "OneVsOneClassifier(LogisticRegression)",
        ),
    ]
    return run_cases("reductions", cases)


if __name__ == "__main__":
    main()
