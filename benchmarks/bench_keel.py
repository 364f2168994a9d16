"""The KEEL benchmark's learners on KEEL datasets: one fit per learner, replearn vs its scikit-learn counterpart.

The registry models of the KEEL benchmark preset, with the hyperparameters of ``conf/models/<name>.yaml``,
on four of the 43 KEEL classification datasets that stand for its sizes (``data/keel/``, installed by
``make keel``; the module prints a note and records nothing without them): spambase (4,597 x 57, 2 classes)
and satimage (6,435 x 36, 6 classes), mid-sized like most of the suite; magic (19,020 x 10, 2 classes) and
letter (20,000 x 16, 26 classes), the largest. As in the benchmark's cross-validation, one training fold of a
stratified 5-fold split (80 % of the rows, ``random_state=0``) with the features standardized on it; nominal
columns (none in these four) would be ordinal codes, as ``replearn.pipeline.data.read_keel`` reads them.

Timed: ``fit`` (k-NN, which learns nothing at fit time: ``fit`` + ``predict`` of the held-out fold). The MLP
runs with its early stopping on the validation *loss* (keeping the best epoch), scikit-learn's on the
validation *accuracy*: they stop after different numbers of epochs, so the MLP also has a fixed-epoch case
(20 epochs, no early stopping) that compares the time per epoch.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier

from replearn.models import create

from .common import Case, run_cases

KEEL_DIR = Path(os.environ.get("REPLEARN_KEEL_DIR", str(Path(__file__).resolve().parents[1] / "data" / "keel")))
DATASETS = ("spambase", "satimage", "magic", "letter")
MLP = {
    "hidden_layer_sizes": [100],
    "activation": "relu",
    "solver": "adam",
    "learning_rate_init": 0.001,
    "batch_size": 200,
    "alpha": 0.0001,
    "max_iter": 200,
}
MLP_SK = {
    "hidden_layer_sizes": (100,),
    "activation": "relu",
    "solver": "adam",
    "learning_rate_init": 0.001,
    "batch_size": 200,
    "alpha": 0.0001,
    "max_iter": 200,
}

# registry model (conf/models/<name>.yaml) -> (replearn factory, scikit-learn factory, reference description)
LEARNERS = {
    "logistic_regression": (
        lambda: create("logistic_regression", solver="newton", penalty="l2", C=1.0),
        lambda: LogisticRegression(C=1.0, solver="newton-cholesky"),
        "LogisticRegression(solver='newton-cholesky')",
    ),
    "gda": (
        lambda: create("gda", covariance="shared", reg_covar=0.01),
        lambda: LinearDiscriminantAnalysis(solver="lsqr"),
        "LinearDiscriminantAnalysis(solver='lsqr')",
    ),
    "gaussian_naive_bayes": (
        lambda: create("gaussian_naive_bayes", var_smoothing=1e-9),
        lambda: GaussianNB(),
        "GaussianNB()",
    ),
    "knn": (
        lambda: create("knn", n_neighbors=5, weights="uniform"),
        lambda: KNeighborsClassifier(5),
        "KNeighborsClassifier(5)",
    ),
    "decision_tree": (
        lambda: create("decision_tree", min_samples_leaf=1),
        lambda: DecisionTreeClassifier(random_state=0),
        "DecisionTreeClassifier()",
    ),
    "random_forest": (
        lambda: create("random_forest", n_estimators=50, random_state=0),
        lambda: RandomForestClassifier(n_estimators=50, random_state=0),
        "RandomForestClassifier(50)",
    ),
    "adaboost_stumps": (
        lambda: create("adaboost", n_estimators=50, random_state=0),
        lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=50, random_state=0),
        "AdaBoostClassifier(stumps, 50)",
    ),
    "linear_svm": (
        lambda: create("linear_svm", solver="dual_cd", C=1.0, tol=1e-3, random_state=0),
        lambda: LinearSVC(C=1.0, loss="hinge", tol=1e-3, random_state=0),
        "LinearSVC(loss='hinge', tol=1e-3)",
    ),
    "svm_rbf": (
        lambda: create("svm", kernel="rbf", C=1.0),
        lambda: SVC(C=1.0, kernel="rbf", gamma="scale"),
        "SVC(kernel='rbf', gamma='scale')",
    ),
    "mlp": (
        lambda: create("mlp", **MLP, early_stopping=True, validation_fraction=0.1, n_iter_no_change=10, random_state=0),
        lambda: MLPClassifier(
            **MLP_SK, early_stopping=True, validation_fraction=0.1, n_iter_no_change=10, random_state=0
        ),
        "MLPClassifier(100, adam, early_stopping)",
    ),
    "mlp, 20 epochs": (
        lambda: create("mlp", **{**MLP, "max_iter": 20}, early_stopping=False, random_state=0),
        lambda: MLPClassifier(**{**MLP_SK, "max_iter": 20}, tol=0.0, n_iter_no_change=10**6, random_state=0),
        "MLPClassifier(100, adam, max_iter=20)",
    ),
}


def read_keel(name: str) -> tuple[np.ndarray, np.ndarray]:
    """A KEEL file: comma-separated, class last; non-numeric columns become ordinal codes (sorted values)."""
    with open(KEEL_DIR / f"{name}.dat", newline="", encoding="utf-8") as fh:
        rows = [[f.strip() for f in row] for row in csv.reader(fh, skipinitialspace=True)]
    rows = [row for row in rows if any(row)]
    columns = []
    for col in zip(*(r[:-1] for r in rows)):
        try:
            columns.append(np.array(col, dtype=np.float64))
        except ValueError:
            values = sorted(set(col))
            columns.append(np.array([values.index(v) for v in col], dtype=np.float64))
    return np.column_stack(columns), np.array([r[-1] for r in rows])


def training_fold(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first training fold of a stratified 5-fold split, standardized on itself; and its test fold."""
    X, y = read_keel(name)
    train, test = next(iter(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)))
    mean, std = X[train].mean(axis=0), X[train].std(axis=0)
    std[std == 0] = 1.0
    return (X[train] - mean) / std, y[train], (X[test] - mean) / std


def cases(datasets=DATASETS, learners=None) -> list[Case]:
    out = []
    for name in datasets:
        X, y, X_test = training_fold(name)
        shape = f"{name} {X.shape[0]}x{X.shape[1]}, {np.unique(y).size} classes"
        for learner in learners or LEARNERS:
            ours, ref, ref_name = LEARNERS[learner]
            if learner == "knn":
                fit_ours = lambda o=ours, X=X, y=y, Xt=X_test: o().fit(X, y).predict(Xt)  # noqa: E731
                fit_ref = lambda r=ref, X=X, y=y, Xt=X_test: r().fit(X, y).predict(Xt)  # noqa: E731
                what = "fit+predict"
            else:
                fit_ours = lambda o=ours, X=X, y=y: o().fit(X, y)  # noqa: E731
                fit_ref = lambda r=ref, X=X, y=y: r().fit(X, y)  # noqa: E731
                what = "fit"
            out.append(Case(f"{learner} {what}", shape, fit_ours, fit_ref, ref_name))
    return out


def main() -> list[dict]:
    missing = [name for name in DATASETS if not (KEEL_DIR / f"{name}.dat").is_file()]
    if missing:
        print(f"bench_keel: skipped, {', '.join(missing)} not in {KEEL_DIR} (make keel installs the KEEL files)\n")
        return []
    import warnings

    from threadpoolctl import threadpool_limits

    from replearn.exceptions import ConvergenceWarning

    threads = int(os.environ.get("REPLEARN_BENCH_THREADS", "1"))
    with threadpool_limits(threads), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # LinearSVC and the linear SVM stop at max_iter alike
        warnings.simplefilter("ignore", UserWarning)
        warnings.filterwarnings("ignore", module="sklearn")
        return run_cases("keel", cases(), repeats=3, blas_threads=threads)


if __name__ == "__main__":
    main()
