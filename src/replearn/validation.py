"""Input checks at the boundary of every estimator.

Errors say what was wrong and what was expected ("X has 3 features, the model was fitted
with 4"), so nothing fails deep inside a numpy call.
"""

from __future__ import annotations

import numbers

import numpy as np

from .exceptions import NotFittedError


def check_array(X, *, name: str = "X", ndim: int = 2, allow_empty: bool = False) -> np.ndarray:
    """Return ``X`` as a finite float64 array with ``ndim`` dimensions, or raise ``ValueError``."""
    if X is None:
        raise ValueError(f"{name} is None; expected an array-like of numbers")
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} could not be converted to an array: {exc}") from exc
    if arr.dtype == object or arr.dtype.kind in "USV":
        raise ValueError(f"{name} must be numeric, got dtype {arr.dtype}")
    if arr.dtype.kind == "c":
        raise ValueError(f"{name} must be real-valued, got complex dtype {arr.dtype}")
    if ndim == 2 and arr.ndim == 1:
        raise ValueError(
            f"{name} must be 2-D (n_samples, n_features), got a 1-D array of shape {arr.shape}; "
            "reshape with X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single sample"
        )
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got {arr.ndim}-D with shape {arr.shape}")
    arr = arr.astype(np.float64, copy=False)
    if not allow_empty and (arr.shape[0] == 0 or (ndim == 2 and arr.shape[1] == 0)):
        raise ValueError(f"{name} is empty (shape {arr.shape}); at least one sample and one feature are needed")
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        where = f"row {bad[0]}" + (f", column {bad[1]}" if arr.ndim == 2 else "")
        raise ValueError(f"{name} contains NaN or infinite values (first at {where})")
    return arr


def check_X_y(X, y, *, y_numeric: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Validate a design matrix and its targets; targets keep their dtype unless ``y_numeric``."""
    X = check_array(X)
    if y is None:
        raise ValueError("y is None; this estimator needs targets")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D (n_samples,), got shape {y.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y have inconsistent numbers of samples: X has {X.shape[0]}, y has {y.shape[0]}")
    if y_numeric:
        y = check_array(y, name="y", ndim=1)
    elif y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinite values")
    elif y.dtype == object and any(v is None for v in y):
        raise ValueError("y contains missing labels (None)")
    return X, y


def check_classification_targets(y: np.ndarray, *, min_classes: int = 2) -> np.ndarray:
    """Return the sorted class labels of ``y``; reject continuous targets and single-class data."""
    if y.dtype.kind == "f" and not np.all(np.mod(y, 1) == 0):
        raise ValueError(
            "y looks continuous (non-integer floats); a classifier needs discrete class labels"
        )
    classes = np.unique(y)
    if classes.size < min_classes:
        raise ValueError(f"y has {classes.size} class(es) {classes.tolist()}; at least {min_classes} are needed")
    return classes


def check_n_features(estimator, X: np.ndarray) -> None:
    """Raise when ``X`` has a different number of features from the data seen in ``fit``."""
    expected = getattr(estimator, "n_features_in_", None)
    if expected is not None and X.shape[1] != expected:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} was fitted with {expected}"
        )


def check_is_fitted(estimator, attributes: str | list[str] | None = None) -> None:
    """Raise :class:`NotFittedError` unless ``fit`` has set the learned attributes."""
    if attributes is None:
        fitted = [k for k in vars(estimator) if k.endswith("_") and not k.startswith("_")]
    else:
        names = [attributes] if isinstance(attributes, str) else list(attributes)
        fitted = [a for a in names if hasattr(estimator, a)]
    if not fitted:
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet; call fit(X, y) first"
        )


def check_scalar(value, name: str, kind, *, low=None, high=None, low_inclusive=True, high_inclusive=True, choices=None):
    """Validate one hyperparameter: its type, its range or its allowed values."""
    if choices is not None:
        if value not in choices:
            raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
        return value
    if kind is numbers.Integral and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if kind is numbers.Real and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    if kind is numbers.Real and not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if low is not None and (value < low or (not low_inclusive and value == low)):
        op = ">=" if low_inclusive else ">"
        raise ValueError(f"{name} must be {op} {low}, got {value!r}")
    if high is not None and (value > high or (not high_inclusive and value == high)):
        op = "<=" if high_inclusive else "<"
        raise ValueError(f"{name} must be {op} {high}, got {value!r}")
    return value


def check_random_state(seed) -> np.random.Generator:
    """Turn ``random_state`` (None, int or Generator) into a ``numpy.random.Generator``.

    ``None`` is allowed for interactive use, but the pipeline always passes an integer from the
    config, so every run is reproducible.
    """
    if seed is None or isinstance(seed, (numbers.Integral, np.integer)) and not isinstance(seed, bool):
        return np.random.default_rng(seed)
    if isinstance(seed, np.random.Generator):
        return seed
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {type(seed).__name__}")
