"""The estimator protocol every replearn model follows.

* Hyperparameters are the ``__init__`` arguments, stored unchanged under the same names;
  ``__init__`` does no work and no validation.
* ``fit(X, y)`` validates its inputs, learns, and returns ``self``; learned attributes end
  with an underscore (``coef_``, ``n_iter_``, ``loss_history_``).
* ``predict(X)``; ``predict_proba(X)`` or ``decision_function(X)`` where meaningful -- and only
  there: a method that cannot be called is not an attribute (:func:`available_if`), so
  ``hasattr`` never lies.
* ``get_params(deep=...)`` / ``set_params(**params)``; a base learner named by the registry
  (``estimator="decision_tree", estimator_params={...}``) exposes its hyperparameters as
  ``estimator__<name>``, as scikit-learn's nested estimators do. Randomness only through ``random_state``.
* Per-class input declarations, read by :func:`replearn.validation.check_X_y` (or ``check_X`` for models
  without targets) when ``fit`` passes ``estimator=self``: ``_min_samples`` (the fewest training examples
  the model can learn from), ``_accept_sparse`` (scipy sparse input; other models say how to densify)
  and ``_allow_nan`` (NaN marks a missing entry).
* Hyperparameters are checked first thing in ``fit`` by ``_validate_params``: the class's declared
  ``_constraints`` and the ones every model shares by name (``random_state``, ``estimator``).
* The kind of model is a mixin: :class:`ClassifierMixin`, :class:`RegressorMixin`, :class:`RankerMixin`,
  :class:`TransformerMixin` (or :class:`TaskMixin`); each ``score`` validates its ``y`` as ``fit`` does.
* ``__sklearn_tags__`` describes the model to scikit-learn (``clone``, ``Pipeline``, ``GridSearchCV``,
  ``cross_val_score`` work on every model) without this package importing scikit-learn.
* Models are saved as an ``.npz`` file of arrays plus a ``.json`` file of metadata
  (:mod:`replearn.persistence`), never pickled.
"""

from __future__ import annotations

import functools
import inspect
import sys
import types
from collections.abc import Callable

import numpy as np

from .validation import check_array, check_is_fitted, check_n_features, check_score_targets


class available_if:
    """Decorator: the method exists on an instance only where ``check(instance)`` is true.

    scikit-learn's ``available_if`` pattern: ``hasattr(model, "predict_proba")`` is then True
    exactly when ``model.predict_proba(X)`` can be called. ``check`` returns a bool (or raises
    ``AttributeError`` with its own message); ``why(instance, name)`` words the ``AttributeError``
    raised where it is false. On the class the plain function is returned (for documentation and
    introspection).
    """

    def __init__(self, check, why=None):
        self.check = check
        self.why = why

    def __call__(self, fn):
        return _AvailableIf(fn, self.check, self.why)


class _AvailableIf:
    def __init__(self, fn, check, why):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.check = check
        self.why = why

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        if not self.check(obj):
            name = self.fn.__name__
            why = self.why(obj, name) if self.why else f"This {type(obj).__name__} has no method {name}"
            raise AttributeError(why)
        return types.MethodType(self.fn, obj)


@functools.cache
def _init_parameters(init) -> tuple[tuple[str, ...], dict, bool]:
    """``(sorted names, {name: default}, whether it takes *args/**kwargs)`` of an ``__init__``'s parameters
    other than ``self``: ``inspect.signature`` once per constructor (keyed by the function, so a class that
    replaces its ``__init__`` is looked up afresh), not on every ``get_params`` / ``clone`` / ``repr``."""
    params = [p for p in inspect.signature(init).parameters.values() if p.name != "self"]
    variadic = any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)
    return tuple(sorted(p.name for p in params)), {p.name: p.default for p in params}, variadic


class BaseEstimator:
    """Parameter handling shared by all estimators (scikit-learn's contract)."""

    #: "classifier", "regressor", "transformer" or "clusterer"; used by the registry and config checks.
    _estimator_type: str = ""
    #: the fewest training examples ``fit`` accepts (regressors: 2; one point determines nothing);
    #: enforced by ``check_X_y(..., estimator=self)``.
    _min_samples: int = 1
    #: whether ``fit``/``predict`` take scipy sparse matrices (CSR/CSC); others get a clear error.
    _accept_sparse: bool = False
    #: whether NaN in ``X`` marks a missing entry the model handles (the recommender's ratings matrix); others
    #: refuse NaN. Read by ``check_X``/``check_X_y(..., estimator=self)``.
    _allow_nan: bool = False
    #: the valid values of hyperparameters (``replearn._constraints``), read by ``_validate_params`` in
    #: ``fit`` and by the configuration check before any stage runs; unlisted ones are not checked there.
    _constraints: dict = {}

    def _validate_params(self) -> None:
        """Check the hyperparameters, first thing in every ``fit`` (``TypeError``/``ValueError`` naming one).

        The class's declared ``_constraints``, then the hyperparameters every model shares by name and
        whose valid values are the same everywhere: ``random_state`` (None, a non-negative int or a numpy
        Generator) and a base learner named by the registry (``estimator``: a registered name;
        ``estimator_params``: None or a dict of that model's hyperparameters, which its own ``fit`` checks).
        """
        from ._constraints import check_params
        from .validation import check_random_state

        check_params(type(self)._constraints, {name: getattr(self, name) for name in self._constraints})
        names = self._param_names()
        if "random_state" in names and not isinstance(self.random_state, np.random.Generator):
            check_random_state(self.random_state)
        if "estimator" in names and "estimator_params" in names and "estimator" not in type(self)._constraints:
            _check_base_learner(self.estimator, self.estimator_params)

    @classmethod
    def _param_names(cls) -> list[str]:
        names, _, variadic = _init_parameters(cls.__init__)
        if variadic:
            raise TypeError(f"{cls.__name__}.__init__ must not take *args or **kwargs")
        return list(names)

    @classmethod
    def _param_defaults(cls) -> dict:
        return dict(_init_parameters(cls.__init__)[1])

    def _nested(self) -> str | None:
        """The registry name of the base learner whose hyperparameters are ``estimator__<name>``
        (models with ``estimator`` + ``estimator_params`` hyperparameters), else None."""
        names = self._param_names()
        if "estimator" not in names or "estimator_params" not in names:
            return None
        name, params = self.estimator, self.estimator_params
        if not isinstance(name, str) or not (params is None or isinstance(params, dict)):
            return None
        return name

    def get_params(self, deep: bool = False) -> dict:
        """Return the hyperparameters as a dict (name -> value).

        ``deep=True`` adds the base learner's hyperparameters as ``estimator__<name>`` (its defaults
        overridden by ``estimator_params``). The default is ``deep=False`` -- the constructor's own
        arguments, so ``type(m)(**m.get_params())`` rebuilds the model and saved models stay plain;
        scikit-learn always passes ``deep`` explicitly.
        """
        out = {name: getattr(self, name) for name in self._param_names()}
        base = self._nested() if deep else None
        if base is not None:
            try:
                defaults = _registry("hyperparameters")(base)
            except ValueError:  # unknown name: fit will say so
                defaults = {}
            for key, value in {**defaults, **(self.estimator_params or {})}.items():
                out[f"estimator__{key}"] = value
        return out

    def set_params(self, **params):
        """Set hyperparameters by name; unknown names raise ``ValueError`` listing the valid ones.

        ``estimator__<name>=value`` sets one hyperparameter of the base learner (a new
        ``estimator_params`` dict; the old one is not modified).
        """
        valid = self._param_names()
        nested = {k: v for k, v in params.items() if "__" in k}
        for key, value in params.items():
            if key in nested:
                continue
            if key not in valid:
                raise ValueError(f"invalid parameter {key!r} for {type(self).__name__}; valid parameters are {valid}")
            setattr(self, key, value)
        for key, value in nested.items():  # after ``estimator`` itself may have changed
            prefix, _, sub = key.partition("__")
            base = self._nested()
            if prefix != "estimator" or base is None:
                raise ValueError(
                    f"invalid parameter {key!r} for {type(self).__name__}; nested parameters "
                    "estimator__<name> need a base learner named by the registry (estimator=...)"
                )
            hyperparameters = _registry("hyperparameters")
            if sub not in hyperparameters(base):
                raise ValueError(
                    f"invalid parameter {key!r} for {type(self).__name__}: {base!r} has no hyperparameter "
                    f"{sub!r}; valid ones are {sorted(hyperparameters(base))}"
                )
            self.estimator_params = {**(self.estimator_params or {}), sub: value}
        return self

    def __repr__(self) -> str:
        defaults = self._param_defaults()
        changed = {k: v for k, v in self.get_params().items() if not _same(v, defaults.get(k, inspect.Parameter.empty))}
        args = ", ".join(f"{k}={v!r}" for k, v in changed.items())
        return f"{type(self).__name__}({args})"

    def __sklearn_tags__(self):
        """scikit-learn's estimator tags (``sklearn.utils.Tags``), for scikit-learn >= 1.6.

        Only scikit-learn calls this, so its tag classes are taken from the already loaded module:
        replearn never imports scikit-learn.
        """
        tags_module = sys.modules.get("sklearn.utils._tags")
        if tags_module is None:
            raise RuntimeError("__sklearn_tags__ is for scikit-learn, which is not loaded")
        kind = self._estimator_type or None
        tags = tags_module.Tags(
            estimator_type=kind,
            target_tags=tags_module.TargetTags(required=kind in ("classifier", "regressor")),
        )
        tags.input_tags.sparse = bool(self._accept_sparse)
        tags.input_tags.allow_nan = bool(self._allow_nan)
        if kind == "classifier":
            tags.classifier_tags = tags_module.ClassifierTags()
        elif kind == "regressor":
            tags.regressor_tags = tags_module.RegressorTags()
        if hasattr(type(self), "transform"):
            tags.transformer_tags = tags_module.TransformerTags(
                preserves_dtype=[] if kind == "clusterer" else ["float64"]
            )
        return tags

    # -- helpers for subclasses -------------------------------------------------------------
    def _validate_predict_input(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = check_array(X, accept_sparse=self._accept_sparse)
        check_n_features(self, X)
        return X


#: The model registry's look-ups of a base learner named by ``estimator`` (``hyperparameters``, ``builtin_names``,
#: ``get_class``). :mod:`replearn.models` fills this in when it is imported, and every module defining a class with
#: ``estimator`` + ``estimator_params`` hyperparameters imports it. This module never imports the registry, so code
#: that only uses estimators' plumbing (a data generator, a bound) does not depend on every model
#: (:mod:`replearn.pipeline.deps`).
BASE_LEARNER_REGISTRY: dict[str, Callable] = {}


def _registry(name: str) -> Callable:
    try:
        return BASE_LEARNER_REGISTRY[name]
    except KeyError:
        raise RuntimeError(
            "a base learner named by the registry needs replearn.models, which is not imported; "
            "import replearn.models before using estimator=<name>"
        ) from None


def _check_base_learner(name, params) -> None:
    """``estimator`` is a registry name and ``estimator_params`` None or a dict of its hyperparameters."""
    from .exceptions import ConfigError

    builtin_names, get_class, hyperparameters = map(_registry, ("builtin_names", "get_class", "hyperparameters"))

    if not isinstance(name, str):
        raise ConfigError(f"estimator must be a registry name (a string), got {type(name).__name__} {name!r}")
    if name not in builtin_names():  # a plugin is looked up (and loaded) only when named
        try:
            get_class(name)
        except ConfigError as exc:
            raise ConfigError(f"estimator must be a registry name: {exc}") from None
    if params is None:
        return
    if not isinstance(params, dict):
        raise TypeError(
            f"estimator_params must be a dict of {name!r}'s hyperparameters or None, got {type(params).__name__} "
            f"{params!r}"
        )
    unknown = sorted(set(params) - set(hyperparameters(name)))
    if unknown:
        raise ValueError(
            f"estimator_params names {unknown}, which {name!r} does not have; its hyperparameters are "
            f"{sorted(hyperparameters(name))}"
        )


def _same(a, b) -> bool:
    try:
        return bool(a == b) if not isinstance(a, np.ndarray) else False
    except Exception:
        return False


class ClassifierMixin:
    """``score`` is accuracy; ``classes_`` holds the sorted labels seen in ``fit``."""

    _estimator_type = "classifier"

    def score(self, X, y) -> float:
        """Mean accuracy of ``predict(X)`` against ``y`` (as many labels as rows of ``X``)."""
        pred = self.predict(X)
        return float(np.mean(pred == check_score_targets(y, len(pred))))


class RegressorMixin:
    """``score`` is the coefficient of determination R^2; at least two training examples."""

    _estimator_type = "regressor"
    _min_samples = 2

    def score(self, X, y) -> float:
        """R^2 = 1 - SS_res / SS_tot of ``predict(X)`` against ``y``."""
        pred = self.predict(X)
        y = check_score_targets(y, len(pred), numeric=True)
        resid = y - pred
        ss_tot = np.sum((y - y.mean()) ** 2)
        return float(1.0 - np.sum(resid**2) / ss_tot) if ss_tot > 0 else float("nan")


def pairwise_accuracy(scores, y, groups=None) -> float:
    """Fraction of pairs with different relevance (within a group) ordered correctly by ``scores``;
    ties in the scores count 1/2 (the AUC for bipartite relevance)."""
    s = check_array(scores, name="scores", ndim=1)
    y = check_array(y, name="y", ndim=1)
    groups = np.zeros(s.size) if groups is None else np.asarray(groups)
    good = total = 0.0
    for g in np.unique(groups):
        idx = np.flatnonzero(groups == g)
        dy = np.sign(y[idx][:, None] - y[idx][None, :])
        ds = np.sign(s[idx][:, None] - s[idx][None, :])
        pairs = dy > 0
        total += pairs.sum()
        good += np.sum((ds > 0) & pairs) + 0.5 * np.sum((ds == 0) & pairs)
    return float(good / total) if total else float("nan")


class RankerMixin:
    """Learning to rank: ``fit(X, y)`` with relevance grades ``y`` (higher = preferred), ``predict(X)`` a
    score per item, ``score`` the fraction of preference pairs the scores order correctly.

    Grades are validated by :func:`replearn.validation.check_ranking_targets` (numbers, two distinct
    values at least; real-valued grades are an order like integer ones). A ranker with a query column
    (``group_column``) overrides ``_groups(X)``: pairs are formed, and scored, within a query only.
    """

    _estimator_type = "ranker"
    _min_samples = 2

    def _groups(self, X) -> np.ndarray:
        """The query id of each row (validated ``X``); one query for all by default."""
        return np.zeros(X.shape[0], dtype=np.int64)

    def score(self, X, y) -> float:
        """Fraction of pairs with different grades (within a query) ordered correctly; score ties count 1/2."""
        X = self._validate_predict_input(X)
        pred = self.predict(X)
        y = check_score_targets(y, len(pred), numeric=True)
        return pairwise_accuracy(pred, y, self._groups(X))


class TransformerMixin:
    """``fit_transform`` = ``fit`` then ``transform``."""

    _estimator_type = "transformer"

    def fit_transform(self, X, y=None):
        return self.fit(X, y).transform(X)


SUPERVISED_TASKS = ("classification", "regression")


def _is_classification(model) -> bool:
    return getattr(model, "task", None) == "classification"


def _classification_only_message(model, name: str) -> str:
    return f"{name} is only available with task='classification', this model has task={model.task!r}"


class TaskMixin:
    """For models that are a classifier or a regressor according to their ``task`` hyperparameter
    (``knn``, trees, ensembles, kernel machines, ``mlp``): ``_estimator_type`` follows ``task``, and
    ``score`` is accuracy or R^2 accordingly. The pipeline passes a dataset's task to such models.

    ``predict_proba`` and ``decision_function`` defined by such a model exist only with
    ``task="classification"`` (wrapped in :func:`available_if` when the class is created), and
    fitting needs two examples (a regressor learns nothing from one; a classifier needs two classes).
    """

    _tasks = SUPERVISED_TASKS
    _min_samples = 2
    _classification_only = ("predict_proba", "decision_function")

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for method in cls._classification_only:
            fn = cls.__dict__.get(method)
            if inspect.isfunction(fn):
                setattr(cls, method, available_if(_is_classification, _classification_only_message)(fn))

    @property
    def _estimator_type(self) -> str:
        return "classifier" if self.task == "classification" else "regressor"

    def score(self, X, y) -> float:
        """Accuracy (classification) or R^2 (regression)."""
        if self.task == "classification":
            return ClassifierMixin.score(self, X, y)
        return RegressorMixin.score(self, X, y)
