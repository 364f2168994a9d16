"""Gaussian naive Bayes: fit, and fit + predict_proba, against scikit-learn's GaussianNB."""

from __future__ import annotations

import numpy as np
from sklearn.naive_bayes import GaussianNB

from replearn.models.naive_bayes.gaussian import GaussianNaiveBayes

from .common import Case, run_cases


def main() -> list[dict]:
    rng = np.random.default_rng(0)
    n, d, k = 20000, 50, 5
    y = rng.integers(0, k, size=n)
    X = rng.normal(size=(n, d)) + y[:, None] * rng.normal(size=d)
    cases = [
        Case("GaussianNaiveBayes().fit", f"{n}x{d}, {k} classes",
             lambda: GaussianNaiveBayes().fit(X, y), lambda: GaussianNB().fit(X, y), "GaussianNB()"),
        Case("GaussianNaiveBayes() fit+predict_proba", f"{n}x{d}, {k} classes",
             lambda: GaussianNaiveBayes().fit(X, y).predict_proba(X),
             lambda: GaussianNB().fit(X, y).predict_proba(X), "GaussianNB()"),
    ]
    return run_cases("naive_bayes", cases)


if __name__ == "__main__":
    main()
