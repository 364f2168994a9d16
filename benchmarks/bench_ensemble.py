"""Ensembles: random forests (classification, sqrt(d) features per split; regression, all features) and AdaBoost
(decision stumps) vs scikit-learn, 50 trees each."""

from __future__ import annotations

import os

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier, RandomForestRegressor
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

from replearn.models.ensemble.adaboost import AdaBoost
from replearn.models.ensemble.random_forest import RandomForest

from .common import Case, run_cases

#: BLAS threads for both libraries (1: small products swing with a busy core); REPLEARN_BENCH_THREADS changes it
THREADS = int(os.environ.get("REPLEARN_BENCH_THREADS", "1"))


def main() -> list[dict]:
    X, y = make_classification(n_samples=2000, n_features=20, n_informative=8, random_state=0)
    stump = {"max_depth": 1, "criterion": "gini"}
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(2000, 10))
    yr = np.sin(Xr[:, 0]) + Xr[:, 1] ** 2 + 0.1 * rng.normal(size=2000)
    cases = [
        Case(
            "RandomForest(n_estimators=50).fit",
            "2000x20, 2 classes",
            lambda: RandomForest(n_estimators=50, random_state=0).fit(X, y),
            lambda: RandomForestClassifier(n_estimators=50, random_state=0).fit(X, y),
            "RandomForestClassifier(n_estimators=50)",
        ),
        Case(
            "RandomForest(n_estimators=50, task='regression').fit",
            "2000x10",
            lambda: RandomForest(n_estimators=50, task="regression", random_state=0).fit(Xr, yr),
            lambda: RandomForestRegressor(n_estimators=50, random_state=0).fit(Xr, yr),
            "RandomForestRegressor(n_estimators=50) (all features per split)",
        ),
        Case(
            "AdaBoost(n_estimators=50, gini stumps).fit",
            "2000x20, 2 classes",
            lambda: AdaBoost(n_estimators=50, estimator_params=stump).fit(X, y),
            lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=50, random_state=0).fit(X, y),
            "AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=50)",
        ),
    ]
    with threadpool_limits(limits=THREADS):
        return run_cases("ensemble", cases, repeats=5, blas_threads=THREADS)


if __name__ == "__main__":
    main()
