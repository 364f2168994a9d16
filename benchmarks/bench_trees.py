"""Decision trees: level-wise vectorized growth vs scikit-learn's DecisionTreeClassifier/Regressor."""

from __future__ import annotations

import numpy as np
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from replearn.models.trees.decision_tree import DecisionTree

from .common import Case, run_cases


def main() -> list[dict]:
    X, y = make_classification(n_samples=5000, n_features=20, n_informative=8, random_state=0)
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(5000, 10))
    yr = np.sin(Xr[:, 0]) + Xr[:, 1] ** 2 + 0.1 * rng.normal(size=5000)
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
    ]
    return run_cases("trees", cases, repeats=5)


if __name__ == "__main__":
    main()
