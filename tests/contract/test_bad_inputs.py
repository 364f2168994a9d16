"""Issue 17: a corpus of bad inputs through the library (every registry model), the stage functions and the CLI.

Each ends in a clear error (``ValueError``/``TypeError``, replearn's own exceptions) or the warning the issue
asks for -- never a bare internal exception (IndexError, KeyError, ZeroDivisionError, FloatingPointError,
LinAlgError) and never an overflow ``RuntimeWarning`` (turned into errors here). The specific wording of
each class of input is checked in tests/models/test_input_contract.py and tests/models/test_protocol.py.
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from replearn import features, models
from replearn.exceptions import (
    ConfigError,
    ConvergenceWarning,
    DataConversionWarning,
    InputScaleError,
    NotFittedError,
    SparseInputError,
)

ROOT = Path(__file__).resolve().parents[2]
INTERNAL = (IndexError, KeyError, ZeroDivisionError, FloatingPointError, np.linalg.LinAlgError, RuntimeWarning)
FAST = {
    "random_forest": {"n_estimators": 3},
    "random_structure_forest": {"n_estimators": 3},
    "adaboost": {"n_estimators": 3},
    "bagging": {"n_estimators": 3},
    "mlp": {"max_iter": 20},
    "cnn": {"max_iter": 5},
    "matrix_factorization": {"max_iter": 20},
}


def _params(name: str, task: str | None = None) -> dict:
    hps = models.hyperparameters(name)
    out = {"random_state": 0} if "random_state" in hps else {}
    if task is not None:
        out["task"] = task
    return {**out, **FAST.get(name, {})}


CASES = [(n, _params(n)) for n in models.builtin_names()] + [
    (n, _params(n, "regression")) for n in models.builtin_names() if "task" in models.hyperparameters(n)
]
IDS = [n + ("-regression" if p.get("task") == "regression" else "") for n, p in CASES]


def _data(model, n=30, d=3):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, d))
    if model._estimator_type == "recommender":  # fit(R): a ratings matrix, NaN = missing; no targets
        R = 3.0 + rng.normal(size=(n // 3, d + 3))
        R[rng.random(R.shape) < 0.2] = np.nan
        return R, None
    if getattr(model, "event_model", None) in ("multinomial", "categorical"):
        X = np.floor(2.0 * np.abs(X))
    if model._estimator_type == "classifier":
        y = (X[:, 0] > np.median(X[:, 0])).astype(int)
    else:
        y = X @ np.array([1.0, -2.0, 0.5][:d]) + 0.1 * rng.normal(size=n)
    return X, y


def _output(model, X):
    if model._estimator_type == "recommender":
        return model.rmse(X)
    return model.transform(X) if model._estimator_type == "transformer" else model.predict(X)


def _fit(model, X, y):
    return model.fit(X) if y is None else model.fit(X, y)


def _supervised(model) -> bool:
    return model._estimator_type in ("classifier", "regressor", "ranker")


def _corpus(model):
    """(label, action) pairs: each action takes a fresh model and must end in a clear error."""
    X, y = _data(model)
    nan, inf = X.copy(), X.copy()
    nan[3, 1], inf[4, 2] = np.nan, np.inf
    head = (lambda k: None) if y is None else (lambda k: y[:k])
    cases = [
        ("inf in X", lambda m: _fit(m, inf, y)),
        ("1-D X", lambda m: _fit(m, X[:, 0], y)),
        ("3-D X", lambda m: _fit(m, X[:, :, None], y)),
        ("empty X", lambda m: _fit(m, X[:0], head(0))),
        ("strings in X", lambda m: _fit(m, X.astype(str), y)),
        ("ragged X", lambda m: _fit(m, [[1.0, 2.0], [3.0]], head(2))),
        ("predict before fit", lambda m: _output(m, X)),
        ("wrong number of features", lambda m: _output(_fit(m, X, y), X[:, :2])),
        ("inf at predict", lambda m: _output(_fit(m, X, y), inf)),
    ]
    if not model._allow_nan:  # a declared input tag: NaN marks a missing entry (the recommender's ratings)
        cases += [("nan in X", lambda m: _fit(m, nan, y)), ("nan at predict", lambda m: _output(_fit(m, X, y), nan))]
    if _supervised(model):
        cases += [
            ("X and y of different lengths", lambda m: m.fit(X, y[:-3])),
            ("y is None", lambda m: m.fit(X, None)),
        ]
        if model._estimator_type == "classifier":
            cases.append(("one class", lambda m: m.fit(X, np.zeros(len(X), dtype=int))))
        else:
            cases += [
                ("nan in y", lambda m: m.fit(X, np.where(np.arange(len(y)) == 2, np.nan, y))),
                ("strings in y", lambda m: m.fit(X, y.astype(str))),
            ]
    return cases


def _expect_clear_error(action, model, label, allow_fit=False):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # overflow / invalid value / divide by zero
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            out = action(model)
        except INTERNAL as exc:
            pytest.fail(f"{label}: internal {type(exc).__name__}: {exc}")
        except (ValueError, TypeError) as exc:  # NotFittedError, InputScaleError, ... are ValueErrors
            assert str(exc).strip(), f"{label}: an error without a message"
            return exc
    if allow_fit:
        return out
    pytest.fail(f"{label}: accepted without an error")


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_every_bad_input_ends_in_a_clear_error(name, params):
    for label, action in _corpus(models.create(name, **params)):
        exc = _expect_clear_error(action, models.create(name, **params), label)
        if label == "predict before fit":
            assert isinstance(exc, NotFittedError), (label, exc)
        if label in ("nan in X", "inf in X", "nan at predict", "inf at predict"):
            assert "infinite" in str(exc), (label, exc)


SUPERVISED = [
    (i, c) for i, c in zip(IDS, CASES) if models.create(*c[:1], **c[1])._estimator_type in ("classifier", "regressor")
]


@pytest.mark.parametrize("name, params", [c for _, c in SUPERVISED], ids=[i for i, _ in SUPERVISED])
def test_a_2d_y_is_refused_or_fitted_column_by_column(name, params):
    """Two target columns: refused with a clear error, or (a multi-output model: least squares solves for
    several columns at once) one prediction column per target column."""
    model = models.create(name, **params)
    X, y = _data(model)
    Y = np.column_stack([y, y])
    out = _expect_clear_error(lambda m: m.fit(X, Y).predict(X), model, "2-D y", allow_fit=True)
    if not isinstance(out, Exception):
        assert out.shape == (len(X), 2)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_huge_sparse_object_and_column_inputs_end_in_an_answer(name, params):
    """~1e300 values (a scaling error or finite output), sparse input (used or refused with how to densify),
    numbers in an object array (accepted), a column-vector y (a warning), one example (refused where a
    model cannot learn from it) -- all without an internal exception or an overflow warning."""
    model = models.create(name, **params)
    X, y = _data(model)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            out = _output(models.create(name, **params).fit(X * 1e300, y), X * 1e300)
            assert np.all(np.isfinite(out)), "non-finite output on huge inputs"
        except InputScaleError as exc:
            assert "standardize" in str(exc)
        try:
            models.create(name, **params).fit(sp.csr_matrix(X), y)
        except SparseInputError as exc:
            assert "toarray()" in str(exc)
        models.create(name, **params).fit(X.astype(object), y)
        if _supervised(model):
            with pytest.warns(DataConversionWarning, match="column vector"):
                models.create(name, **params).fit(X, y[:, None])
        try:
            _fit(models.create(name, **params), X[:1], None if y is None else y[:1])
        except (ValueError, TypeError) as exc:
            assert not isinstance(exc, INTERNAL) and str(exc)


def test_unknown_names_list_the_choices():
    with pytest.raises(ConfigError, match=r"unknown model 'svn'; available models: .*svm"):
        models.create("svn")
    with pytest.raises(ConfigError, match=r"model 'knn' has no hyperparameter\(s\) \['k'\]; valid hyperparameters"):
        models.create("knn", k=3)
    with pytest.raises(ConfigError, match=r"unknown feature map 'standardise'; available feature maps: .*standardize"):
        features.create("standardise")
    with pytest.raises(ConfigError, match=r"unknown feature map"):
        features.FeaturePipeline([{"name": "nope", "params": {}}]).fit(np.ones((3, 2)))


# -- stage functions ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "old, new, message",
    [
        ("n_neighbors: 5", "n_neighbors: -1", r"models\.knn\.params\.n_neighbors: -1 is out of range"),
        ("n_neighbors: 5", "n_neighbors: 2.5", r"models\.knn\.params\.n_neighbors: expected int"),
        ("weights: uniform", "weights: gaussian", r"models\.knn\.params\.weights: 'gaussian' is out of range"),
        ("name: knn", "name: knn_v2", r"unknown model 'knn_v2'"),
    ],
)
def test_stages_reject_bad_hyperparameters_before_any_work(tmp_path, monkeypatch, capsys, old, new, message):
    """Every stage script runs through ``stage.run``: the whole configuration is validated before its body."""
    from replearn.pipeline import stage

    monkeypatch.delenv("DVC_EXP_NAME", raising=False)
    monkeypatch.chdir(ROOT)  # validation reads data/registry.yaml and conf/ of the repository (nothing is written)
    text = (ROOT / "params.yaml").read_text()
    assert old in text
    bad = tmp_path / "params.yaml"
    bad.write_text(text.replace(old, new, 1))
    ran = []
    with pytest.raises(SystemExit) as info:
        stage.run("train", ran.append, params_file=str(bad))
    assert info.value.code == 2 and ran == []
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert re.search(message, err), err


def test_a_model_error_inside_a_stage_is_one_line(tmp_path, monkeypatch, capsys):
    """An input the configuration cannot foresee (here: values so large float64 overflows) ends the stage with
    the model's message, not a traceback."""
    from replearn.pipeline import stage

    monkeypatch.delenv("DVC_EXP_NAME", raising=False)
    monkeypatch.chdir(ROOT)

    def body(params):
        X = np.random.default_rng(0).normal(size=(20, 2)) * 1e300
        models.create("knn").fit(X, np.arange(20) % 2)

    with pytest.raises(SystemExit) as info:
        stage.run("train", body, params_file=str(ROOT / "params.yaml"))
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("replearn train: X has values as large as") and "standardize" in err


# -- the command line ----------------------------------------------------------------------------------------
def _cli(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "replearn", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, message",
    [
        (("nope",), "invalid choice"),
        (("models", "--registry", "svn"), "svn"),
        (("datasets", "no_such_dataset"), "no_such_dataset"),
        (("validate", "no/such/params.yaml"), "no/such/params.yaml"),
        (("ui", "--port", "99999"), "99999"),
    ],
)
def test_cli_answers_bad_input_with_a_message_and_no_traceback(args, message):
    result = _cli(*args)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr + result.stdout
    assert message in result.stderr + result.stdout


@pytest.mark.slow
def test_cli_validate_rejects_an_out_of_range_hyperparameter(tmp_path):
    text = (ROOT / "params.yaml").read_text()
    assert "n_neighbors:" in text
    bad = tmp_path / "params.yaml"
    bad.write_text(text.replace("n_neighbors: 5", "n_neighbors: -1", 1))
    result = _cli("validate", str(bad))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "n_neighbors: -1 is out of range" in result.stderr + result.stdout
