"""Shape and value checks shared by the control routines (errors name the matrix and the expected shape)."""

from __future__ import annotations

import numpy as np

from .exceptions import ControlInputError


def as_matrix(M, name: str, shape=None, *, allow_time: int | None = None) -> np.ndarray:
    """Return ``M`` as a finite float array of ``shape``, or ``(allow_time,) + shape`` when time-varying."""
    try:
        arr = np.asarray(M, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ControlInputError(f"{name} could not be converted to a float array: {exc}") from exc
    if arr.ndim == 0:
        arr = arr.reshape(1, 1)
    elif arr.ndim == 1 and shape is not None and len(shape) == 2:
        arr = arr.reshape(1, -1) if shape[0] == 1 else arr.reshape(-1, 1)
    if not np.all(np.isfinite(arr)):
        raise ControlInputError(f"{name} contains NaN or infinite values")
    if shape is not None:
        ok = arr.shape == tuple(shape) or (allow_time is not None and arr.shape == (allow_time,) + tuple(shape))
        if not ok:
            want = f"{tuple(shape)}" + (f" or {(allow_time,) + tuple(shape)}" if allow_time is not None else "")
            raise ControlInputError(f"{name} must have shape {want}, got {arr.shape}")
    return arr


def check_square(M, name: str) -> np.ndarray:
    arr = as_matrix(M, name)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ControlInputError(f"{name} must be a square matrix, got shape {arr.shape}")
    return arr


def check_symmetric_psd(M: np.ndarray, name: str, *, definite: bool = False) -> np.ndarray:
    """Symmetric (to 1e-10 relative) and positive semi-definite (definite if asked)."""
    mats = M if M.ndim == 3 else M[None]
    for k, S in enumerate(mats):
        scale = max(1.0, float(np.max(np.abs(S))))
        if not np.allclose(S, S.T, atol=1e-10 * scale):
            raise ControlInputError(f"{name} must be symmetric")
        lam = float(np.linalg.eigvalsh((S + S.T) / 2).min()) if S.size else 0.0
        if (definite and lam <= 0) or lam < -1e-10 * scale:
            kind = "positive definite" if definite else "positive semi-definite"
            where = f" (time step {k})" if M.ndim == 3 else ""
            raise ControlInputError(f"{name} must be {kind}{where}; its smallest eigenvalue is {lam:.3g}")
    return M


def at(M: np.ndarray, t: int, base_ndim: int = 2) -> np.ndarray:
    """``M[t]`` for a time-varying array, ``M`` otherwise."""
    return M[t] if M.ndim == base_ndim + 1 else M
