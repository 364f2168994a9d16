"""Decision trees (compiled breadth-first growth on presorted features) vs scikit-learn's DecisionTreeClassifier /
DecisionTreeRegressor: gini at full depth and entropy at depth 8 (5000 x 20), many classes on few distinct values
(a letter-like 16000 x 16, 26 classes), regression trees with min_samples_leaf 5 and at full depth (5000 x 10)."""

from __future__ import annotations

import os

import numpy as np
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from threadpoolctl import threadpool_limits

from replearn.models.trees.decision_tree import DecisionTree

from .common import Case, run_cases

#: BLAS threads for both libraries (1: small products swing with a busy core); REPLEARN_BENCH_THREADS changes it
THREADS = int(os.environ.get("REPLEARN_BENCH_THREADS", "1"))


def main() -> list[dict]:
    X, y = make_classification(n_samples=5000, n_features=20, n_informative=8, random_state=0)
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(5000, 10))
    yr = np.sin(Xr[:, 0]) + Xr[:, 1] ** 2 + 0.1 * rng.normal(size=5000)
    Xc, yc = letter_like()
    cases = [
        Case(
            "DecisionTree(criterion='gini').fit (full depth)",
            "5000x20, 2 classes",
            lambda: DecisionTree(criterion="gini").fit(X, y),
            lambda: DecisionTreeClassifier(criterion="gini", random_state=0).fit(X, y),
            "DecisionTreeClassifier(criterion='gini')",
        ),
        Case(
            "DecisionTree(criterion='entropy', max_depth=8).fit",
            "5000x20, 2 classes",
            lambda: DecisionTree(criterion="entropy", max_depth=8).fit(X, y),
            lambda: DecisionTreeClassifier(criterion="entropy", max_depth=8, random_state=0).fit(X, y),
            "DecisionTreeClassifier(criterion='entropy', max_depth=8)",
        ),
        Case(
            "DecisionTree(task='regression', min_samples_leaf=5).fit",
            "5000x10",
            lambda: DecisionTree(task="regression", min_samples_leaf=5).fit(Xr, yr),
            lambda: DecisionTreeRegressor(min_samples_leaf=5, random_state=0).fit(Xr, yr),
            "DecisionTreeRegressor(min_samples_leaf=5)",
        ),
        Case(
            "DecisionTree(criterion='gini').fit (full depth)",
            "16000x16, 16 values per feature, 26 classes",
            lambda: DecisionTree(criterion="gini").fit(Xc, yc),
            lambda: DecisionTreeClassifier(criterion="gini", random_state=0).fit(Xc, yc),
            "DecisionTreeClassifier(criterion='gini')",
        ),
        Case(
            "DecisionTree(task='regression').fit (full depth)",
            "5000x10",
            lambda: DecisionTree(task="regression").fit(Xr, yr),
            lambda: DecisionTreeRegressor(random_state=0).fit(Xr, yr),
            "DecisionTreeRegressor()",
        ),
    ]
    with threadpool_limits(limits=THREADS):
        return run_cases("trees", cases, repeats=5, blas_threads=THREADS)


def letter_like(n=16000, d=16, n_classes=26, seed=0):
    """Like KEEL's letter (20,000 x 16, 26 classes): integer features with 16 values each (their quantiles)."""
    X, y = make_classification(
        n_samples=n, n_features=d, n_informative=12, n_classes=n_classes, n_clusters_per_class=1, random_state=seed
    )
    edges = np.quantile(X, np.linspace(0, 1, 17)[1:-1], axis=0)
    return np.column_stack([np.searchsorted(edges[:, j], X[:, j]) for j in range(d)]).astype(float), y


if __name__ == "__main__":
    main()
