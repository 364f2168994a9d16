"""Guard the class of records, not the instances: every record of every preset fails under a planted error.

A record that a wrong model also "reproduces" checks nothing. For each preset, :data:`PLANTS` lists
plausible wrong models -- one that ignores the data (shuffled labels), a wrong sign, a wrong step
size, a wrong bandwidth, a missing smoothing term -- planted by monkeypatching what the preset
calls (its ``models`` module, one of its helpers, or a helper inside a model); the production code
has no hooks for it. Each preset is run (``quick=True``, seed 0) once clean and once per plant.

The records are enumerated from the clean run's output, so a new record that no plant makes fail
fails :func:`test_every_record_fails_under_some_planted_error` -- there is no list of exceptions.
Every plant must also fail at least one record and leave the preset runnable (a crash is not a
failed record).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import numpy as np
import pytest

from replearn import models as real_models
from replearn.models.cluster import kmeans as kmeans_module
from replearn.models.perceptron import perceptron as perceptron_module
from replearn.reproductions import EXPERIMENTS, run_experiment
from replearn.reproductions import bias_variance as bias_variance_module

SEED = 0


def _preset_module(name: str) -> ModuleType:
    import importlib

    return importlib.import_module(f"replearn.reproductions.{name}")


# ---------------------------------------------------------------------------------------------
# planting helpers


def _shuffled(X, y):
    """Ignore the data: the labels / targets in a random order (fixed seed)."""
    return X, np.random.default_rng(12345).permutation(np.asarray(y))


def _negate_coef(model):
    model.coef_ = -np.asarray(model.coef_)
    model.intercept_ = -np.asarray(model.intercept_)


def _negate_predictions(model):
    predict = model.predict
    model.predict = lambda X: -np.asarray(predict(X))


def wrong_model(
    model: str,
    *,
    when: Callable[[dict], bool] = lambda params: True,
    params: Callable[[dict], dict] | None = None,
    replace_with: str | None = None,
    data: Callable | None = None,
    after: Callable | None = None,
) -> Callable[[pytest.MonkeyPatch, ModuleType], None]:
    """A plant: the preset's ``models.create(model, **p)`` (when ``when(p)``) builds a wrong model.

    ``params`` rewrites the hyperparameters, ``replace_with`` builds another model instead,
    ``data`` rewrites ``(X, y)`` before ``fit``, ``after`` corrupts the fitted model.
    """

    def apply(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
        class Shim:
            def __getattr__(self, attr):
                return getattr(real_models, attr)

            def create(self, name, **p):
                if name != model or not when(p):
                    return real_models.create(name, **p)
                p = params(dict(p)) if params else p
                m = real_models.create(replace_with or name, **p)
                fit = m.fit

                def planted_fit(X, y=None):
                    X2, y2 = data(X, y) if data else (X, y)
                    fit(X2) if y2 is None else fit(X2, y2)
                    if after:
                        after(m)
                    return m

                m.fit = planted_fit
                return m

        monkeypatch.setattr(module, "models", Shim())

    return apply


def patch(target: object, attr: str, make: Callable[[Callable], Callable]):
    """A plant that replaces ``target.attr`` by ``make(original)``."""

    def apply(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
        monkeypatch.setattr(target, attr, make(getattr(target, attr)))

    return apply


def _with(**changes) -> Callable[[dict], dict]:
    return lambda p: {**p, **changes}


def _scaled(key: str, factor: float) -> Callable[[dict], dict]:
    return lambda p: {**p, key: p[key] * factor}


def _solver(name: str) -> Callable[[dict], bool]:
    return lambda p: p.get("solver") == name


@dataclass(frozen=True)
class Plant:
    what: str
    apply: Callable[[pytest.MonkeyPatch, ModuleType], None]


def _poly_without_linear_term(original):
    return lambda x, degree: original(x, degree + 1)[:, 1:]  # x^2 .. x^(k+1): the powers start one too high


def _means_of_random_clusters(original):
    rng = np.random.default_rng(0)
    return lambda X, labels, k: original(X, rng.permutation(labels), k)


def _noisy_assignment(original):
    """The assignment step sends a random 5% of the points to a random centre."""
    rng = np.random.default_rng(0)

    def assign(X, centers, **kw):
        out = original(X, centers, **kw)
        labels = (out[0] if isinstance(out, tuple) else out).copy()
        moved = rng.random(len(labels)) < 0.05
        labels[moved] = rng.integers(0, len(centers), int(moved.sum()))
        return (labels, out[1]) if isinstance(out, tuple) else labels

    return assign


def _labels_ignored(original):
    rng = np.random.default_rng(0)

    def binary_pass(X, s, order, *rest):
        return original(X, np.ascontiguousarray(rng.choice([-1.0, 1.0], size=len(s))), order, *rest)

    return binary_pass


def _reverse_weights(model):
    model.weights_ = np.asarray(model.weights_)[::-1].copy()


PLANTS: dict[str, list[Plant]] = {
    "cs229_housing": [
        Plant(
            "normal equations on shuffled prices",
            wrong_model("linear_regression", when=_solver("normal"), data=_shuffled),
        ),
        Plant(
            "batch GD with a 1000x smaller step",
            wrong_model("linear_regression", when=_solver("gd"), params=_scaled("learning_rate", 1e-3)),
        ),
        Plant(
            "SGD with a 100x smaller step",
            wrong_model("linear_regression", when=_solver("sgd"), params=_scaled("learning_rate", 1e-2)),
        ),
        Plant(
            "SGD with a constant step (no decay)",
            wrong_model("linear_regression", when=_solver("sgd"), params=_with(schedule="constant")),
        ),
    ],
    "cs229_logistic": [
        Plant(
            "Newton on an L2-penalized objective",
            wrong_model("logistic_regression", when=_solver("newton"), params=_with(penalty="l2")),
        ),
        Plant(
            "gradient ascent with a 100x smaller step",
            wrong_model("logistic_regression", when=_solver("gd"), params=_scaled("learning_rate", 1e-2)),
        ),
        Plant(
            "Newton's method replaced by first-order steps",
            wrong_model("logistic_regression", when=_solver("newton"), params=_with(solver="gd", learning_rate=1.0)),
        ),
        Plant("wrong sign of theta", wrong_model("logistic_regression", after=_negate_coef)),
    ],
    "cs229_lwr": [
        Plant(
            "bandwidth used as a precision (tau -> 1/tau)",
            wrong_model("lwr", params=lambda p: {**p, "tau": 1.0 / p["tau"]}),
        ),
        Plant("OLS on shuffled targets", wrong_model("linear_regression", data=_shuffled)),
    ],
    "cs229_spam": [
        Plant("naive Bayes on shuffled labels", wrong_model("naive_bayes", data=_shuffled)),
        Plant("no Laplace smoothing (alpha = 0)", wrong_model("naive_bayes", params=_with(alpha=0.0))),
    ],
    "ciml_course_ratings": [
        Plant("tree predictions of the wrong sign", wrong_model("decision_tree", after=_negate_predictions)),
        Plant("tree on shuffled labels", wrong_model("decision_tree", data=_shuffled)),
    ],
    "bias_variance": [
        Plant("least squares on shuffled targets", wrong_model("linear_regression", data=_shuffled)),
        Plant("polynomial features start at x^2", patch(bias_variance_module, "_poly", _poly_without_linear_term)),
        Plant("wrong sign of the fit", wrong_model("linear_regression", after=_negate_coef)),
    ],
    "double_descent": [
        Plant(
            "min-norm least squares replaced by ridge (alpha = 100)",
            wrong_model(
                "linear_regression", replace_with="ridge", params=lambda p: {"alpha": 100.0, "fit_intercept": False}
            ),
        ),
        Plant("ridge lambda grid 1e6x too small", wrong_model("ridge", params=_scaled("alpha", 1e-6))),
    ],
    "learning_curves": [
        Plant("trees predict with the wrong sign", wrong_model("decision_tree", after=_negate_predictions)),
        Plant("logistic regression on shuffled labels", wrong_model("logistic_regression", data=_shuffled)),
        Plant(
            "the high-bias learner is a full tree",
            wrong_model("logistic_regression", replace_with="decision_tree", params=lambda p: {}),
        ),
    ],
    "perceptron_epochs": [
        Plant("perceptron updates ignore the labels", patch(perceptron_module, "binary_pass", _labels_ignored)),
        Plant("averaged/voted perceptron on shuffled labels", wrong_model("averaged_perceptron", data=_shuffled)),
        Plant("voted perceptron on shuffled labels", wrong_model("voted_perceptron", data=_shuffled)),
    ],
    "kmeans_em": [
        Plant(
            "k-means update ignores the assignment", patch(kmeans_module, "cluster_means", _means_of_random_clusters)
        ),
        Plant("k-means assignment step 5% random", patch(kmeans_module, "assign", _noisy_assignment)),
        Plant("GMM weights in the wrong order", wrong_model("gmm", after=_reverse_weights)),
        Plant("EM stopped after 3 steps", wrong_model("gmm", params=_with(max_iter=3))),
    ],
}


# ---------------------------------------------------------------------------------------------


def _run(name: str, data_dir) -> dict[str, bool]:
    result = run_experiment(name, data_dir, seed=SEED, quick=True)
    quantities = [r.quantity for r in result.records]
    assert len(set(quantities)) == len(quantities), f"{name}: duplicate record quantities"
    return {r.quantity: r.reproduced for r in result.records}


_CACHE: dict[tuple[str, str], dict[str, bool]] = {}


def _planted(name: str, plant: Plant, data_dir) -> dict[str, bool]:
    key = (name, plant.what)
    if key not in _CACHE:
        with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a wrong model may overflow or fail to converge
            plant.apply(mp, _preset_module(name))
            _CACHE[key] = _run(name, data_dir)
    return _CACHE[key]


def test_every_preset_has_plants():
    assert set(PLANTS) == set(EXPERIMENTS)


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_record_fails_under_some_planted_error(name, data_dir):
    clean = _run(name, data_dir)
    assert clean and all(clean.values()), f"{name}: the clean quick run must reproduce every record: {clean}"
    caught: dict[str, list[str]] = {q: [] for q in clean}
    for plant in PLANTS.get(name, []):
        planted = _planted(name, plant, data_dir)
        assert set(planted) == set(clean), f"{name} / {plant.what}: the planted run has other records"
        for quantity, reproduced in planted.items():
            if not reproduced:
                caught[quantity].append(plant.what)
    uncaught = [q for q, plants in caught.items() if not plants]
    assert not uncaught, f"{name}: no planted error makes these records fail: {uncaught}"


@pytest.mark.parametrize(
    ("name", "plant"), [(n, p) for n in sorted(PLANTS) for p in PLANTS[n]], ids=lambda v: getattr(v, "what", v)
)
def test_each_plant_fails_some_record(name, plant, data_dir):
    planted = _planted(name, plant, data_dir)
    assert not all(planted.values()), f"{name}: the planted error {plant.what!r} fails no record"
