"""Ensembles: random forest and AdaBoost (decision stumps) vs scikit-learn."""

from __future__ import annotations

from sklearn.datasets import make_classification
from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from replearn.models.ensemble.adaboost import AdaBoost
from replearn.models.ensemble.random_forest import RandomForest

from .common import Case, run_cases


def main() -> list[dict]:
    X, y = make_classification(n_samples=2000, n_features=20, n_informative=8, random_state=0)
    stump = {"max_depth": 1, "criterion": "gini"}
    cases = [
        Case(
            "RandomForest(n_estimators=50).fit",
            "2000x20, 2 classes",
            lambda: RandomForest(n_estimators=50, random_state=0).fit(X, y),
            lambda: RandomForestClassifier(n_estimators=50, random_state=0).fit(X, y),
            "RandomForestClassifier(n_estimators=50)",
        ),
        Case(
            "AdaBoost(n_estimators=50, gini stumps).fit",
            "2000x20, 2 classes",
            lambda: AdaBoost(n_estimators=50, estimator_params=stump).fit(X, y),
            lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=50, random_state=0).fit(X, y),
            "AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=50)",
        ),
    ]
    return run_cases("ensemble", cases, repeats=5)


if __name__ == "__main__":
    main()
