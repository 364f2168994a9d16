"""The estimator protocol every replearn model follows.

* Hyperparameters are the ``__init__`` arguments, stored unchanged under the same names;
  ``__init__`` does no work and no validation.
* ``fit(X, y)`` validates its inputs, learns, and returns ``self``; learned attributes end
  with an underscore (``coef_``, ``n_iter_``, ``loss_history_``).
* ``predict(X)``; ``predict_proba(X)`` or ``decision_function(X)`` where meaningful.
* ``get_params()`` / ``set_params(**params)``; randomness only through ``random_state``.
* Models are saved as an ``.npz`` file of arrays plus a ``.json`` file of metadata
  (:mod:`replearn.persistence`), never pickled.
"""

from __future__ import annotations

import inspect

import numpy as np

from .validation import check_array, check_is_fitted, check_n_features


class BaseEstimator:
    """Parameter handling shared by all estimators (scikit-learn's contract)."""

    #: "classifier", "regressor", "transformer" or "clusterer"; used by the registry and config checks.
    _estimator_type: str = ""

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        names = []
        for p in sig.parameters.values():
            if p.name == "self":
                continue
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"{cls.__name__}.__init__ must not take *args or **kwargs")
            names.append(p.name)
        return sorted(names)

    @classmethod
    def _param_defaults(cls) -> dict:
        sig = inspect.signature(cls.__init__)
        return {p.name: p.default for p in sig.parameters.values() if p.name != "self"}

    def get_params(self) -> dict:
        """Return the hyperparameters as a dict (name -> value)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set hyperparameters by name; unknown names raise ``ValueError`` listing the valid ones."""
        valid = self._param_names()
        for key, value in params.items():
            if key not in valid:
                raise ValueError(
                    f"invalid parameter {key!r} for {type(self).__name__}; valid parameters are {valid}"
                )
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        defaults = self._param_defaults()
        changed = {
            k: v for k, v in self.get_params().items() if not _same(v, defaults.get(k, inspect.Parameter.empty))
        }
        args = ", ".join(f"{k}={v!r}" for k, v in changed.items())
        return f"{type(self).__name__}({args})"

    # -- helpers for subclasses -------------------------------------------------------------
    def _validate_predict_input(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = check_array(X)
        check_n_features(self, X)
        return X


def _same(a, b) -> bool:
    try:
        return bool(a == b) if not isinstance(a, np.ndarray) else False
    except Exception:
        return False


class ClassifierMixin:
    """``score`` is accuracy; ``classes_`` holds the sorted labels seen in ``fit``."""

    _estimator_type = "classifier"

    def score(self, X, y) -> float:
        """Mean accuracy of ``predict(X)`` against ``y``."""
        return float(np.mean(self.predict(X) == np.asarray(y)))


class RegressorMixin:
    """``score`` is the coefficient of determination R^2."""

    _estimator_type = "regressor"

    def score(self, X, y) -> float:
        """R^2 = 1 - SS_res / SS_tot of ``predict(X)`` against ``y``."""
        y = np.asarray(y, dtype=float)
        resid = y - self.predict(X)
        ss_tot = np.sum((y - y.mean()) ** 2)
        return float(1.0 - np.sum(resid**2) / ss_tot) if ss_tot > 0 else float("nan")


class TransformerMixin:
    """``fit_transform`` = ``fit`` then ``transform``."""

    _estimator_type = "transformer"

    def fit_transform(self, X, y=None):
        return self.fit(X, y).transform(X)


SUPERVISED_TASKS = ("classification", "regression")


class TaskMixin:
    """For models that are a classifier or a regressor according to their ``task`` hyperparameter
    (``knn``, trees, ensembles, kernel machines, ``mlp``): ``_estimator_type`` follows ``task``, and
    ``score`` is accuracy or R^2 accordingly. The pipeline passes a dataset's task to such models."""

    _tasks = SUPERVISED_TASKS

    @property
    def _estimator_type(self) -> str:
        return "classifier" if self.task == "classification" else "regressor"

    def _check_task(self) -> None:
        from .validation import check_scalar

        check_scalar(self.task, "task", str, choices=SUPERVISED_TASKS)

    def score(self, X, y) -> float:
        """Accuracy (classification) or R^2 (regression)."""
        if self.task == "classification":
            return ClassifierMixin.score(self, X, y)
        return RegressorMixin.score(self, X, y)
