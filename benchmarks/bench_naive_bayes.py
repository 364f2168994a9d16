"""Naive Bayes: Gaussian (fit, fit + predict_proba) and the Bernoulli / multinomial / categorical event models
against scikit-learn's GaussianNB, BernoulliNB, MultinomialNB and CategoricalNB (closed form)."""

from __future__ import annotations

import numpy as np
from sklearn.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB

from replearn.models.naive_bayes.event_models import NaiveBayes
from replearn.models.naive_bayes.gaussian import GaussianNaiveBayes

from .common import Case, run_cases


def main() -> list[dict]:
    rng = np.random.default_rng(0)
    n, d, k = 20000, 50, 5
    y = rng.integers(0, k, size=n)
    X = rng.normal(size=(n, d)) + y[:, None] * rng.normal(size=d)
    cases = [
        Case(
            "GaussianNaiveBayes().fit",
            f"{n}x{d}, {k} classes",
            lambda: GaussianNaiveBayes().fit(X, y),
            lambda: GaussianNB().fit(X, y),
            "GaussianNB()",
        ),
        Case(
            "GaussianNaiveBayes() fit+predict_proba",
            f"{n}x{d}, {k} classes",
            lambda: GaussianNaiveBayes().fit(X, y).predict_proba(X),
            lambda: GaussianNB().fit(X, y).predict_proba(X),
            "GaussianNB()",
        ),
    ]
    counts = rng.poisson(rng.gamma(1.0, 1.0, size=(k, 200))[y]).astype(float)  # 20000 x 200 word counts
    codes = np.minimum(counts[:, :50], 4)  # 50 categorical features with 5 values
    for event_model, ref, Xe, shape in [
        ("bernoulli", BernoulliNB(), counts, f"{n}x200"),
        ("multinomial", MultinomialNB(), counts, f"{n}x200"),
        ("categorical", CategoricalNB(), codes, f"{n}x50, 5 values"),
    ]:
        cases.append(
            Case(
                f"NaiveBayes(event_model={event_model!r}) fit+predict_proba",
                f"{shape}, {k} classes",
                lambda e=event_model, X=Xe: NaiveBayes(event_model=e).fit(X, y).predict_proba(X),
                lambda r=ref, X=Xe: r.fit(X, y).predict_proba(X),
                type(ref).__name__ + "()",
            )
        )
    return run_cases("naive_bayes", cases)


if __name__ == "__main__":
    main()
