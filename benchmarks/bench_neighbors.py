"""k-NN: fit + predict against scikit-learn's brute-force search."""

from __future__ import annotations

import numpy as np
from sklearn.neighbors import KNeighborsClassifier

from replearn.models.neighbors.knn import KNearestNeighbors

from .common import Case, run_cases


def main() -> list[dict]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10000, 20))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    X_test = rng.normal(size=(2000, 20))
    cases = [
        Case(
            f"KNearestNeighbors(k=5, weights={w!r}) fit+predict",
            "10000x20 train, 2000 queries",
            lambda w=w: KNearestNeighbors(n_neighbors=5, weights=w).fit(X, y).predict(X_test),
            lambda w=w: KNeighborsClassifier(5, weights=w, algorithm="brute").fit(X, y).predict(X_test),
            "KNeighborsClassifier(algorithm='brute')",
        )
        for w in ("uniform", "distance")
    ]
    return run_cases("neighbors", cases)


if __name__ == "__main__":
    main()
