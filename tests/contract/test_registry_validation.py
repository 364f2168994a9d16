"""Issue 24 §3: every registry model goes through the same validation path -- no exceptions list.

Each built-in model (both tasks of the models with a ``task`` hyperparameter) is fed the same corpus:

* hyperparameters given as a string, as NaN and as a negative number -- every hyperparameter, declared in
  ``_constraints`` or not (``random_state``, a base learner's ``estimator``/``estimator_params``, array-valued
  ones): refused by ``fit`` with a message that names it, or accepted where the declared table allows it;
* ``X`` with NaN or inf, empty, one sample, 3-D, of objects, complex, ragged, with huge (1e300) and large
  (1e6, 1e100) values, with a constant feature; ``predict`` (``transform``) on the wrong width, on a 1-D row,
  before ``fit`` -- each ends in the shared helpers' wording (replearn.validation), never an internal exception
  or an overflow warning;
* the estimator contract of scikit-learn's ``check_estimator``, per kind of model: string and non-contiguous
  labels, pandas input, refit without state leaking from the previous fit, ``score`` consistent with the
  predictions (and validating its ``y``), one class refused, continuous ``y`` refused by classifiers.

The kind of a model (``_estimator_type``) and its declared input tags (``_allow_nan``: the recommender's NaN
marks a missing rating) say which data it takes; no model is named here except in ``FAST`` (fewer ensemble
members and epochs, for time only).
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

from replearn import models
from replearn._constraints import satisfies
from replearn.exceptions import ConvergenceWarning, InputScaleError, NotFittedError

pytestmark = pytest.mark.filterwarnings(f"ignore::{ConvergenceWarning.__module__}.{ConvergenceWarning.__name__}")
INTERNAL = (IndexError, KeyError, ZeroDivisionError, FloatingPointError, np.linalg.LinAlgError, RuntimeWarning)
FAST = {  # time only: every model is in the suite
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


# -- the data each kind of model takes --------------------------------------------------------------------
def _kind(model) -> str:
    return model._estimator_type


def _data(model, n=30, d=3, seed=1):
    """``(X, y)`` of the model's kind; ``y`` is None for unsupervised models and the recommender."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    kind = _kind(model)
    if kind == "recommender":  # a ratings matrix, NaN = missing
        R = np.round(3.0 + rng.normal(size=(n // 3, d + 3)), 1)
        R[rng.random(R.shape) < 0.2] = np.nan
        R[:, 0] = np.where(np.isnan(R[:, 0]), 3.0, R[:, 0])
        return R, None
    if getattr(model, "event_model", None) in ("multinomial", "categorical"):
        X = np.floor(2.0 * np.abs(X))
    if kind == "classifier":
        y = (X[:, 0] > np.median(X[:, 0])).astype(int)
    elif kind == "ranker":
        y = np.digitize(X @ np.array([1.0, -1.0, 0.5, 0.2, 0.1][:d]), [-0.5, 0.5])  # grades 0, 1, 2
    elif kind == "regressor":
        y = X @ np.array([1.0, -2.0, 0.5, 0.3, 0.1][:d]) + 0.1 * rng.normal(size=n)
    else:
        y = None
    return X, y


def _fit(model, X, y):
    return model.fit(X) if y is None else model.fit(X, y)


def _output(model, X):
    """What a fitted model computes on new data of the training width."""
    kind = _kind(model)
    if kind == "recommender":
        return model.rmse(X)
    return model.transform(X) if kind == "transformer" else model.predict(X)


def _clear_error(action, label, *, allow=()):
    """Run ``action``; it must raise ValueError/TypeError (replearn's errors are such) with a message, never an
    internal exception or an overflow warning. ``allow``: outcomes other than an error that are fine."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            out = action()
        except INTERNAL as exc:
            pytest.fail(f"{label}: internal {type(exc).__name__}: {exc}")
        except (ValueError, TypeError) as exc:
            assert str(exc).strip(), f"{label}: an error without a message"
            return exc
    if "fit" in allow:
        return out
    pytest.fail(f"{label}: accepted without an error")


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f":
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)
    else:
        np.testing.assert_array_equal(a, b)


# -- hyperparameters ---------------------------------------------------------------------------------------
BAD_VALUES = ("abc", math.nan, -1)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_every_hyperparameter_is_validated_at_fit(name, params):
    """A string, NaN or a negative number for any hyperparameter: refused with a message naming it (the
    declared wording "<hp> must ..." for declared ones), or -- where the declared table allows the value --
    a fit or an error that still names the hyperparameter."""
    cls = models.get_class(name)
    X, y = _data(models.create(name, **params))
    for hp in models.hyperparameters(name):
        if hp == "task" and "task" in params:
            continue
        for value in BAD_VALUES:
            label = f"{name}({hp}={value!r})"
            allowed = hp in cls._constraints and satisfies(cls._constraints[hp], value)
            model = models.create(name, **{**params, hp: value})
            result = _clear_error(lambda m=model: _fit(m, X, y), label, allow=("fit",) if allowed else ())
            if isinstance(result, Exception):
                assert re.search(rf"\b{hp}\b", str(result)), f"{label}: the error does not name {hp}: {result}"
                if not allowed and hp in cls._constraints:
                    assert str(result).startswith(f"{hp} must"), f"{label}: {result}"


# -- the bad-input corpus ----------------------------------------------------------------------------------
def _one_sample_ok(exc, name) -> bool:
    text = str(exc)
    return "at least" in text or any(re.search(rf"\b{hp}\b", text) for hp in models.hyperparameters(name))


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_bad_X_ends_in_the_shared_validation_errors(name, params):
    def mk():
        return models.create(name, **params)

    model = mk()
    X, y = _data(model)
    nan_ok = bool(getattr(model, "_allow_nan", False))
    nan, inf = X.copy(), X.copy()
    nan[3, 1], inf[4, 2] = np.nan, np.inf
    ys = (lambda k: None) if y is None else (lambda k: y[:k])

    def err(label, action, pattern):
        exc = _clear_error(action, f"{name}: {label}")
        assert re.search(pattern, str(exc)), f"{name}: {label}: {exc}"
        return exc

    if nan_ok:
        _fit(mk(), nan, y)
    else:
        err("NaN in X", lambda: _fit(mk(), nan, y), "NaN or infinite")
    err("inf in X", lambda: _fit(mk(), inf, y), "infinite")
    err("empty X", lambda: _fit(mk(), X[:0], ys(0)), "is empty")
    err("no feature", lambda: _fit(mk(), X[:, :0], y), "is empty")
    err("3-D X", lambda: _fit(mk(), X[:, :, None], y), "must be 2-D")
    err("1-D X", lambda: _fit(mk(), X[:, 0], y), "must be 2-D")
    err("objects in X", lambda: _fit(mk(), np.full(X.shape, {}, dtype=object), y), "must be numeric")
    err("strings in X", lambda: _fit(mk(), X.astype(str), y), "must be numeric")
    err("complex X", lambda: _fit(mk(), X + 1j, y), "real-valued")
    err("ragged X", lambda: _fit(mk(), [[1.0, 2.0], [3.0]], ys(2)), "could not be converted")
    exc = err("huge X", lambda: _fit(mk(), X * 1e300, y), "standardize")
    assert isinstance(exc, InputScaleError)
    one = _clear_error(lambda: _fit(mk(), X[:1], ys(1)), f"{name}: one sample", allow=("fit",))
    if isinstance(one, Exception):
        assert _one_sample_ok(one, name), f"{name}: one sample: {one}"
    fitted = _fit(mk(), X, y)
    err("predict before fit", lambda: _output(mk(), X), "not fitted yet")
    assert isinstance(_clear_error(lambda: _output(mk(), X), name), NotFittedError)
    err("predict on the wrong width", lambda: _output(fitted, X[:, :2]), "fitted")
    err("predict on a 1-D row", lambda: _output(fitted, X[0]), "must be 2-D")
    err("NaN at predict", lambda: _output(fitted, inf), "infinite")


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
@pytest.mark.parametrize("scale", [1e6, 1e100])
def test_large_scale_X_gives_a_finite_answer_or_a_scale_error(name, params, scale):
    """Unstandardized features (incomes, counts) and extreme ones below the overflow limit: a finite result, or
    InputScaleError saying to standardize -- not a solver's DivergenceError (a FloatingPointError) mid-fit."""
    X, y = _data(models.create(name, **params))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            out = _output(_fit(models.create(name, **params), X * scale, y), X * scale)
        except InputScaleError as exc:
            assert "standardize" in str(exc)
            return
    assert np.all(np.isfinite(out))


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_a_constant_feature_is_data_not_an_error(name, params):
    """A constant column (a one-hot level absent from a fold, a unit flag) is fitted like any other; a model may
    refuse only by naming the hyperparameter that asks more of the data than it holds (n_components > rank)."""
    model = models.create(name, **params)
    X, y = _data(model)
    X = X.copy()
    X[:, 1] = 3.0
    result = _clear_error(lambda: _output(_fit(model, X, y), X), f"{name}: constant feature", allow=("fit",))
    if isinstance(result, Exception):
        hps = models.hyperparameters(name)
        assert any(re.search(rf"\b{hp}\b", str(result)) for hp in hps), f"{name}: constant feature: {result}"
    else:
        assert np.all(np.isfinite(result))


# -- the estimator contract --------------------------------------------------------------------------------
@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_pandas_input_gives_the_numpy_answer(name, params):
    pd = pytest.importorskip("pandas")
    model = models.create(name, **params)
    X, y = _data(model)
    columns = [f"f{j}" for j in range(X.shape[1])]
    expected = _output(_fit(models.create(name, **params), X, y), X)
    frame = pd.DataFrame(X, columns=columns)
    got = _output(_fit(model, frame, None if y is None else pd.Series(y)), frame)
    _same(got, expected)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_refit_leaves_no_state_from_the_previous_fit(name, params):
    """fit(A) then fit(B) is a fresh fit(B): the same output and the same learned attributes (B has another
    width, another number of classes or grades)."""
    model = models.create(name, **params)
    X_a, y_a = _data(model, n=36, d=3, seed=2)
    X_b, y_b = _data(model, n=30, d=5, seed=3)
    if _kind(model) == "classifier":
        y_a = np.digitize(X_a[:, 0], [-0.5, 0.5])  # three classes, then two
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        twice = _fit(_fit(model, X_a, y_a), X_b, y_b)
        fresh = _fit(models.create(name, **params), X_b, y_b)
    assert sorted(vars(twice)) == sorted(vars(fresh))
    _same(_output(twice, X_b), _output(fresh, X_b))
    assert twice.n_features_in_ == fresh.n_features_in_


def _pairwise_accuracy(scores, y):
    dy = np.sign(y[:, None] - y[None, :])
    ds = np.sign(scores[:, None] - scores[None, :])
    pairs = dy > 0
    return (np.sum((ds > 0) & pairs) + 0.5 * np.sum((ds == 0) & pairs)) / pairs.sum()


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_score_is_the_metric_of_the_predictions_and_checks_y(name, params):
    model = models.create(name, **params)
    X, y = _data(model)
    kind = _kind(model)
    if y is None or not hasattr(model, "score"):
        return  # unsupervised: score is a likelihood or an inertia of X alone (tested with each model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = model.fit(X, y)
    pred = fitted.predict(X)
    if kind == "classifier":
        expected = np.mean(pred == y)
    elif kind == "regressor":
        expected = 1.0 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2)
    else:
        expected = _pairwise_accuracy(pred, y)
    assert fitted.score(X, y) == pytest.approx(expected, abs=1e-12)
    err = _clear_error(lambda: fitted.score(X, y[:-3]), f"{name}: score with a short y")
    assert "inconsistent numbers of samples" in str(err), err
    err = _clear_error(lambda: fitted.score(X, np.column_stack([y, y])), f"{name}: score with a 2-D y")
    assert "must be 1-D" in str(err), err


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_labels_are_any_hashable_values(name, params):
    """Classifiers: string labels and non-contiguous integers give the predictions of labels 0..K-1, renamed.
    Rankers: grades are an order -- any increasing relabelling gives the same scores; strings are refused."""
    model = models.create(name, **params)
    kind = _kind(model)
    if kind not in ("classifier", "ranker"):
        return
    X, _ = _data(model, n=36)
    codes = np.digitize(X[:, 0] + 0.3 * X[:, 1], [-0.4, 0.4])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        base = models.create(name, **params).fit(X, codes).predict(X)
        if kind == "classifier":
            for names in (np.array(["cat", "dog", "emu"]), np.array([-7, 2, 15])):
                got = models.create(name, **params).fit(X, names[codes])
                assert list(got.classes_) == sorted(names.tolist())
                np.testing.assert_array_equal(got.predict(X), names[base])
        else:
            got = models.create(name, **params).fit(X, np.array([-7.0, 2.0, 15.0])[codes]).predict(X)
            np.testing.assert_allclose(got, base, rtol=1e-9, atol=1e-12)
            err = _clear_error(
                lambda: models.create(name, **params).fit(X, np.array(["lo", "mid", "hi"])[codes]), "string grades"
            )
            assert "numeric" in str(err)


@pytest.mark.parametrize("name, params", CASES, ids=IDS)
def test_one_class_and_continuous_targets(name, params):
    """One class (one grade) is refused with a message saying how many are needed; a classifier refuses
    continuous targets; a ranker takes them (real-valued relevance is an order)."""
    model = models.create(name, **params)
    kind = _kind(model)
    if kind not in ("classifier", "ranker"):
        return
    X, y = _data(model)
    err = _clear_error(lambda: models.create(name, **params).fit(X, np.zeros(len(X), dtype=int)), f"{name}: one class")
    assert re.search(r"at least 2", str(err)), err
    if kind == "classifier":
        err = _clear_error(lambda: models.create(name, **params).fit(X, X[:, 0]), f"{name}: continuous y")
        assert "continuous" in str(err)
    else:
        scores = models.create(name, **params).fit(X, X[:, 0]).predict(X)
        assert np.all(np.isfinite(scores))
