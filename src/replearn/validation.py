"""Input checks at the boundary of every estimator.

Errors say what was wrong and what was expected ("X has 3 features, the model was fitted
with 4"), so nothing fails deep inside a numpy call.
"""

from __future__ import annotations

import numbers
import sys
import warnings

import numpy as np

from .exceptions import DataConversionWarning, InputScaleError, NotFittedError, SparseInputError

#: Largest magnitude accepted in X or numeric y. The square of a larger value, summed over 10^4
#: rows (a Gram matrix, a squared distance, X^T X), overflows float64 (max 1.8e308); no model
#: learns anything useful at such scales, so they are refused with a hint to standardize instead of
#: overflowing deep inside a solver or returning NaN predictions.
MAX_ABS = 1e152


def _numeric_object_array(arr: np.ndarray, name: str) -> np.ndarray:
    """An object array of numbers as float64 (as scikit-learn accepts it); anything else is refused."""
    flat = arr.ravel()
    bad = next((v for v in flat if not isinstance(v, (numbers.Real, np.number)) or np.iscomplexobj(v)), None)
    if bad is not None or (flat.size and any(v is None for v in flat)):
        raise ValueError(
            f"{name} must be numeric, got dtype object holding {type(bad).__name__} {bad!r}; "
            "convert it to numbers first"
        )
    return arr.astype(np.float64)


def _check_scale(values: np.ndarray, name: str, where) -> None:
    if values.size and np.max(np.abs(values)) > MAX_ABS:
        i = int(np.argmax(np.abs(values)))
        raise InputScaleError(
            f"{name} has values as large as {values.flat[i]:.3g} (at {where(i)}); float64 arithmetic overflows "
            f"at this scale (|values| > {MAX_ABS:.0e}); standardize the features (replearn.features.scaling."
            "Standardize) or rescale them before fitting"
        )


def issparse(X) -> bool:
    """Whether ``X`` is a scipy sparse array or matrix. Only an imported ``scipy.sparse`` can have made one, so a
    process that never imported it (most pipeline stages) skips that ~30 ms import and its scipy dependencies."""
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and sp.issparse(X)


def _check_sparse(X, name: str, allow_empty: bool):
    import scipy.sparse as sp  # imported already: X is a sparse array (issparse)

    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got a sparse array of shape {X.shape}")
    if X.dtype == object or X.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got a sparse matrix of dtype {X.dtype}")
    X = sp.csr_array(X, dtype=np.float64)  # a copy only where the format or dtype changes
    if not allow_empty and (X.shape[0] == 0 or X.shape[1] == 0):
        raise ValueError(f"{name} is empty (shape {X.shape}); at least one sample and one feature are needed")
    X.sum_duplicates()
    coo = None
    if not np.all(np.isfinite(X.data)):
        coo = X.tocoo()
        k = int(np.argmax(~np.isfinite(coo.data)))
        raise ValueError(f"{name} contains NaN or infinite values (first at row {coo.row[k]}, column {coo.col[k]})")
    if X.data.size and np.max(np.abs(X.data)) > MAX_ABS:
        coo = X.tocoo()
        _check_scale(coo.data, name, lambda k: f"row {coo.row[k]}, column {coo.col[k]}")
    return X


def dense(X) -> np.ndarray:
    """``X`` as a dense array (``X.toarray()`` for scipy sparse input), for models that accept sparse
    input but whose algorithm works on dense matrices."""
    return X.toarray() if issparse(X) else X


def check_array(
    X,
    *,
    name: str = "X",
    ndim: int = 2,
    allow_empty: bool = False,
    accept_sparse: bool = False,
    allow_nan: bool = False,
) -> np.ndarray:
    """Return ``X`` as a finite float64 array with ``ndim`` dimensions, or raise ``ValueError``.

    * scipy sparse input (CSR, CSC, ...) is returned as a float64 ``scipy.sparse.csr_array`` where
      the model declares ``accept_sparse``; elsewhere it raises :class:`SparseInputError`, which
      says to densify with ``X.toarray()``.
    * an object-dtype array of numbers is converted to float64 (strings and None are refused).
    * values larger in magnitude than :data:`MAX_ABS` raise :class:`InputScaleError`.
    * ``allow_nan``: NaN marks a missing entry and is kept (a model declaring ``_allow_nan``, e.g. the
      recommender's ratings matrix); infinities are still refused.
    """
    if X is None:
        raise ValueError(f"{name} is None; expected an array-like of numbers")
    if issparse(X):
        if not accept_sparse:
            raise SparseInputError(
                f"{name} is a scipy sparse matrix, and sparse input is not supported by this model; "
                f"densify it with {name}.toarray() (it then needs n_samples x n_features floats of memory)"
            )
        return _check_sparse(X, name, allow_empty)
    try:
        arr = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} could not be converted to an array: {exc}") from exc
    if arr.dtype == object:
        arr = _numeric_object_array(arr, name)
    if arr.dtype.kind in "USV":
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
    # C order always: a DataFrame's values (Fortran order) then take the same BLAS paths, bit for bit, as the array
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not allow_empty and (arr.shape[0] == 0 or (ndim == 2 and arr.shape[1] == 0)):
        raise ValueError(f"{name} is empty (shape {arr.shape}); at least one sample and one feature are needed")
    bad_values = np.isinf(arr) if allow_nan else ~np.isfinite(arr)
    if np.any(bad_values):
        bad = np.argwhere(bad_values)[0]
        where = f"row {bad[0]}" + (f", column {bad[1]}" if arr.ndim == 2 else "")
        what = "infinite values (NaN marks a missing entry)" if allow_nan else "NaN or infinite values"
        raise ValueError(f"{name} contains {what} (first at {where})")

    def where(i):
        idx = np.unravel_index(i, arr.shape)
        return f"row {idx[0]}" + (f", column {idx[1]}" if arr.ndim == 2 else "")

    _check_scale(np.where(np.isnan(arr), 0.0, arr) if allow_nan else arr, name, where)
    return arr


def check_X(X, *, accept_sparse: bool = False, estimator=None) -> np.ndarray:
    """Validate the training matrix of ``estimator`` (the model being fitted) without targets.

    :func:`check_array` with the class's declarations -- ``_accept_sparse`` (scipy sparse X allowed),
    ``_allow_nan`` (NaN marks a missing entry) -- and ``_min_samples`` (fewer training examples raise
    ``ValueError``). Unsupervised models call it in ``fit``; :func:`check_X_y` calls it for the others.
    """
    if estimator is not None:
        accept_sparse = accept_sparse or bool(getattr(estimator, "_accept_sparse", False))
    allow_nan = bool(getattr(estimator, "_allow_nan", False))
    X = check_array(X, accept_sparse=accept_sparse, allow_nan=allow_nan)
    need = int(getattr(estimator, "_min_samples", 1))
    if X.shape[0] < need:
        raise ValueError(
            f"{type(estimator).__name__} needs at least {need} training examples to learn from, got {X.shape[0]}"
        )
    return X


def check_X_y(
    X, y, *, y_numeric: bool = False, accept_sparse: bool = False, estimator=None
) -> tuple[np.ndarray, np.ndarray]:
    """Validate a design matrix and its targets; targets keep their dtype unless ``y_numeric``.

    ``estimator`` (the model being fitted) supplies its class's declarations: ``_accept_sparse``
    (scipy sparse X allowed) and ``_min_samples`` (fewer training examples raise ``ValueError``).
    A column vector ``y`` of shape (n, 1) is flattened with a :class:`DataConversionWarning`.
    """
    X = check_X(X, accept_sparse=accept_sparse, estimator=estimator)
    if y is None:
        raise ValueError("y is None; this estimator needs targets")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            f"y has shape {y.shape}, a column vector, where a 1-D array (n_samples,) was expected; "
            "it was flattened: pass y.ravel()",
            DataConversionWarning,
            stacklevel=3,
        )
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
        raise ValueError("y looks continuous (non-integer floats); a classifier needs discrete class labels")
    classes = np.unique(y)
    if classes.size < min_classes:
        raise ValueError(f"y has {classes.size} class(es) {classes.tolist()}; at least {min_classes} are needed")
    return classes


def check_ranking_targets(y) -> np.ndarray:
    """Relevance grades of a ranker (higher = preferred): numeric and finite, at least two distinct values.

    Real-valued grades are an order like any other (a ranker takes them); labels that are not numbers have
    no order and are refused.
    """
    y = np.asarray(y)
    if y.dtype.kind not in "biuf" and y.dtype != object:
        raise ValueError(f"y must be numeric relevance grades (higher = preferred), got dtype {y.dtype}")
    y = check_array(y, name="y", ndim=1)
    levels = np.unique(y)
    if levels.size < 2:
        raise ValueError(
            f"y has {levels.size} relevance grade(s) {levels.tolist()}; at least 2 are needed: "
            "no pair of items with different relevance to learn a preference from"
        )
    return y


def check_score_targets(y, n_samples: int, *, numeric: bool = False) -> np.ndarray:
    """The ``y`` given to ``score``: 1-D, as many entries as rows were predicted, finite numbers if ``numeric``."""
    if y is None:
        raise ValueError("y is None; score needs the true targets")
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D (n_samples,), got shape {y.shape}")
    if y.shape[0] != n_samples:
        raise ValueError(f"X and y have inconsistent numbers of samples: X has {n_samples}, y has {y.shape[0]}")
    if numeric:
        y = check_array(y, name="y", ndim=1)
    return y


def check_n_features(estimator, X: np.ndarray) -> None:
    """Raise when ``X`` has a different number of features from the data seen in ``fit``."""
    expected = getattr(estimator, "n_features_in_", None)
    if expected is not None and X.shape[1] != expected:
        raise ValueError(f"X has {X.shape[1]} features, but {type(estimator).__name__} was fitted with {expected}")


def check_is_fitted(estimator, attributes: str | list[str] | None = None) -> None:
    """Raise :class:`NotFittedError` unless ``fit`` has set the learned attributes."""
    if attributes is None:
        fitted = [k for k in vars(estimator) if k.endswith("_") and not k.startswith("_")]
    else:
        names = [attributes] if isinstance(attributes, str) else list(attributes)
        fitted = [a for a in names if hasattr(estimator, a)]
    if not fitted:
        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet; call fit(X, y) first")


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
    if seed is None or isinstance(seed, (numbers.Integral, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        if seed is not None and seed < 0:
            raise ValueError(f"random_state must be None, a non-negative int or a numpy Generator, got {seed!r}")
        return np.random.default_rng(seed)
    if isinstance(seed, np.random.Generator):
        return seed
    raise TypeError(
        f"random_state must be None, a non-negative int or a numpy Generator, got {type(seed).__name__} {seed!r}"
    )
