"""Generative classifiers (closed form): GDA vs LinearDiscriminantAnalysis / QuadraticDiscriminantAnalysis."""

from __future__ import annotations

import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis

from replearn.models.generative.gda import GaussianDiscriminantAnalysis

from .common import Case, run_cases


def main() -> list[dict]:
    rng = np.random.default_rng(0)
    n, d, k = 20000, 50, 5
    y = rng.integers(0, k, size=n)
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) / np.sqrt(d) + rng.normal(size=(k, d))[y]
    cases = [
        Case(
            "GDA(shared).fit",
            f"{n}x{d}, {k} classes",
            lambda: GaussianDiscriminantAnalysis(reg_covar=0.0).fit(X, y),
            lambda: LinearDiscriminantAnalysis(solver="lsqr").fit(X, y),
            "LinearDiscriminantAnalysis(solver='lsqr')",
        ),
        Case(
            "GDA(shared) fit+predict_proba",
            f"{n}x{d}, {k} classes",
            lambda: GaussianDiscriminantAnalysis(reg_covar=0.0).fit(X, y).predict_proba(X),
            lambda: LinearDiscriminantAnalysis(solver="lsqr").fit(X, y).predict_proba(X),
            "LinearDiscriminantAnalysis(solver='lsqr')",
        ),
        Case(
            "GDA(per_class) fit+predict_proba",
            f"{n}x{d}, {k} classes",
            lambda: GaussianDiscriminantAnalysis(covariance="per_class", reg_covar=0.0).fit(X, y).predict_proba(X),
            lambda: QuadraticDiscriminantAnalysis().fit(X, y).predict_proba(X),
            "QuadraticDiscriminantAnalysis()",
        ),
    ]
    return run_cases("generative", cases)


if __name__ == "__main__":
    main()
