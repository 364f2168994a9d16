"""Perceptrons and CIML's linear classifier against scikit-learn's Cython SGD loops (same updates, fixed passes).

The perceptron is an online algorithm: one Python-level step per example in replearn (the algorithm as
written in CIML), against scikit-learn's compiled loop, so the ratio here measures interpreter overhead,
not numerics; it is reported as such and not targeted.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.linear_model import SGDClassifier

from replearn.models.linear.linear_classifier import LinearClassifier
from replearn.models.perceptron.perceptron import AveragedPerceptron, Perceptron

from .common import Case, run_cases


def data(n, d, k=2, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    return rng.normal(size=(n, d)) + rng.normal(size=(k, d))[y], y


def main() -> list[dict]:
    X, y = data(5000, 20)
    Xm, ym = data(3000, 20, k=5, seed=1)
    cases = [
        Case(
            "Perceptron(max_iter=5, shuffle=False).fit",
            "5000x20",
            lambda: Perceptron(max_iter=5, shuffle=False).fit(X, y),
            lambda: SkPerceptron(max_iter=5, tol=None, shuffle=False).fit(X, y),
            "Perceptron(tol=None)",
        ),
        Case(
            "AveragedPerceptron(max_iter=5).fit",
            "5000x20",
            lambda: AveragedPerceptron(max_iter=5, random_state=0).fit(X, y),
            lambda: SGDClassifier(
                loss="perceptron",
                penalty=None,
                learning_rate="constant",
                eta0=1.0,
                average=True,
                max_iter=5,
                tol=None,
                random_state=0,
            ).fit(X, y),
            "SGDClassifier(loss='perceptron', average=True)",
        ),
        Case(
            "Perceptron(max_iter=5).fit (multiclass, Alg. 39)",
            "3000x20, 5 classes",
            lambda: Perceptron(max_iter=5, random_state=0).fit(Xm, ym),
            lambda: SkPerceptron(max_iter=5, tol=None, random_state=0).fit(Xm, ym),
            "Perceptron (one-vs-all)",
        ),
        Case(
            "LinearClassifier(hinge, l2, sgd, batch 1).fit, 5 epochs",
            "5000x20",
            lambda: LinearClassifier(alpha=1e-4, max_iter=5, tol=0.0, n_iter_no_change=10, random_state=0).fit(X, y),
            lambda: SGDClassifier(alpha=1e-4, max_iter=5, tol=None, random_state=0).fit(X, y),
            "SGDClassifier(hinge, l2, max_iter=5)",
        ),
        Case(
            "LinearClassifier(hinge, l2, sgd, batch 50).fit, 5 epochs",
            "5000x20",
            lambda: LinearClassifier(
                alpha=1e-4, batch_size=50, max_iter=5, tol=0.0, n_iter_no_change=10, random_state=0
            ).fit(X, y),
            lambda: SGDClassifier(alpha=1e-4, max_iter=5, tol=None, random_state=0).fit(X, y),
            "SGDClassifier(hinge, l2, max_iter=5)",
        ),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_cases("perceptron", cases, repeats=5)


if __name__ == "__main__":
    main()
