"""Numerical linear-algebra helpers shared by the algorithms.

Everything here is a thin, careful layer over BLAS/LAPACK (numpy and scipy.linalg):

* :func:`solve_spd` solves a symmetric positive-definite system by Cholesky, estimates the
  condition number from the factor, and falls back to least squares (or raises a clear error)
  when the matrix is singular or too ill-conditioned for Cholesky to be trusted.
  No explicit inverse is ever formed.
* :func:`center` / :func:`add_intercept` handle the unpenalized intercept.
* :func:`sq_euclidean` / :func:`sq_euclidean_chunks` compute squared Euclidean distances with
  the BLAS identity ``||a||^2 - 2 a.b + ||b||^2`` (clipped at 0), in row chunks so that the
  temporaries stay bounded.
* :func:`euclidean_distances` / :func:`pairwise_distances` / :func:`paired_distances`: Euclidean
  distances (CIML eq. 3.1) from :func:`sq_euclidean`, with the small ones recomputed directly so that
  near and equal points keep full relative accuracy; ``pairwise_distances`` returns every pair once
  (the condensed form of ``scipy.spatial.distance.pdist``).
* :func:`gaussian_sample` draws x = L n + mu with L L' = S and n ~ N(0, I) (the Cholesky sampler of the
  CS480/680 notes, seed 003 L1252-1260); :func:`cholesky_transform` is the same map applied to given
  standard normal draws (the reparametrization a generative model differentiates through).
* :func:`logsumexp` is :func:`scipy.special.logsumexp`, re-exported so models import numerics
  from one place.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import scipy.linalg
from scipy.linalg import lapack
from scipy.special import logsumexp  # noqa: F401  (re-exported)

__all__ = [
    "SingularMatrixError",
    "solve_spd",
    "center",
    "add_intercept",
    "sq_euclidean",
    "sq_euclidean_chunks",
    "euclidean_distances",
    "pairwise_distances",
    "paired_distances",
    "cholesky_transform",
    "p_norm",
    "gaussian_sample",
    "logsumexp",
]

_potrf, _pocon, _potrs = lapack.dpotrf, lapack.dpocon, lapack.dpotrs

#: Bytes one block of distances may take (4 MiB): small enough to stay in cache.
_CHUNK_BYTES = 4 * 2**20


class SingularMatrixError(np.linalg.LinAlgError):
    """The matrix handed to :func:`solve_spd` is singular or not positive definite."""


def solve_spd(A, b, *, fallback: str = "lstsq", overwrite_a: bool = False, rcond_min: float | None = None):
    """Solve ``A x = b`` for a symmetric positive (semi-)definite ``A`` by Cholesky.

    Parameters
    ----------
    A : array, shape (d, d)
        Symmetric matrix, both triangles filled (the factorization reads the lower one, the
        condition estimate the whole matrix). Typical callers pass a Gram matrix ``X^T X`` (plus
        a ridge term).
    b : array, shape (d,) or (d, k)
    fallback : {"lstsq", "raise"}
        What to do when ``A`` is singular, not positive definite, or so ill-conditioned that the
        Cholesky solution cannot be trusted (reciprocal condition number below ``rcond_min``):
        ``"lstsq"`` returns the minimum-norm least-squares solution of ``A x = b``
        (``scipy.linalg.lstsq``, SVD based); ``"raise"`` raises :class:`SingularMatrixError`, so the
        caller can fall back to something better (e.g. least squares on ``X`` itself rather than
        on ``X^T X``, whose condition number is the square of ``X``'s).
    overwrite_a : bool
        Let LAPACK factor ``A`` in place (saves a d x d copy; ``A`` is destroyed).
    rcond_min : float, optional
        Smallest acceptable reciprocal 1-norm condition number, estimated by LAPACK ``?pocon``
        from the Cholesky factor in O(d^2). Default ``d * eps``.

    Returns
    -------
    x : array with the shape of ``b``.
    """
    A = np.asarray(A, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square matrix, got shape {A.shape}")
    if b.shape[0] != A.shape[0]:
        raise ValueError(f"A has {A.shape[0]} rows but b has {b.shape[0]}")
    if fallback not in ("lstsq", "raise"):
        raise ValueError(f"fallback must be one of ['lstsq', 'raise'], got {fallback!r}")
    d = A.shape[0]
    if rcond_min is None:
        rcond_min = d * np.finfo(np.float64).eps
    # The 1-norm of A is needed by the condition estimate; take it before A may be overwritten.
    anorm = float(np.abs(A).sum(axis=0).max()) if d else 0.0
    A_keep = A if (fallback == "raise" or not overwrite_a) else A.copy()
    problem = None
    # LAPACK directly (?potrf / ?pocon / ?potrs, what cho_factor and cho_solve call): their argument checks and
    # batching layer cost ~40 us a call, more than the factorization of the small matrices the Newton and IRLS
    # loops solve thousands of times. Empty or batched right-hand sides keep scipy's wrappers.
    direct = d > 0 and b.ndim in (1, 2)
    if direct:
        c, info = _potrf(A, lower=1, clean=0, overwrite_a=int(overwrite_a))
        if info < 0:  # pragma: no cover - cannot happen for a square float64 matrix
            raise ValueError(f"illegal value in argument {-info} of LAPACK dpotrf")
        factored = info == 0
    else:
        try:
            c, _ = scipy.linalg.cho_factor(A, lower=True, overwrite_a=overwrite_a, check_finite=False)
            factored = True
        except np.linalg.LinAlgError:
            factored = False
    if not factored:
        problem = "is not positive definite (it is singular or indefinite)"
    elif anorm == 0.0:
        problem = "is zero"
    else:
        rcond, info = _pocon(c, anorm, uplo="L")
        if info != 0 or not rcond >= rcond_min:  # `not >=` also catches NaN
            problem = f"is ill-conditioned (reciprocal condition number {rcond:.2e} < {rcond_min:.2e})"
    if problem is None:
        if not direct:
            return scipy.linalg.cho_solve((c, True), b, check_finite=False)
        x, info = _potrs(c, b, lower=1)
        if info != 0:  # pragma: no cover - cannot happen after a successful dpotrf
            raise ValueError(f"illegal value in argument {-info} of LAPACK dpotrs")
        return x
    if fallback == "raise":
        raise SingularMatrixError(
            f"the {d}x{d} system matrix {problem}; Cholesky cannot solve it reliably. "
            "Use a least-squares solver or add regularization"
        )
    x, *_ = scipy.linalg.lstsq(A_keep, b, check_finite=False)
    return x


def center(X: np.ndarray, y: np.ndarray | None = None):
    """Return ``X - mean(X)``, the column means, and (if given) ``y - mean(y)`` and its mean.

    Fitting an unpenalized intercept ``b`` is the same as fitting the weights on centred data and
    then setting ``b = mean(y) - mean(X) @ w`` (the optimal ``b`` for any fixed ``w``); centring
    also improves the conditioning of ``X^T X``. New arrays are returned; the inputs are untouched.
    """
    x_mean = X.mean(axis=0)
    Xc = X - x_mean
    if y is None:
        return Xc, x_mean
    y_mean = y.mean(axis=0)
    return Xc, x_mean, y - y_mean, y_mean


def add_intercept(X: np.ndarray) -> np.ndarray:
    """Return ``[X, 1]``: ``X`` with a trailing column of ones (the intercept feature x_0 = 1).

    The ones go last (not first as in the CS229 notes' x_0) so that ``theta[:-1]`` are the weights
    and ``theta[-1]`` the intercept.
    """
    n, d = X.shape
    Xa = np.empty((n, d + 1), dtype=np.float64)
    Xa[:, :d] = X
    Xa[:, d] = 1.0
    return Xa


def _chunk_rows(n_cols: int, chunk_bytes: int | None = None) -> int:
    # one float64 block of (rows x n_cols); kept small so it stays in cache and its memory is reused
    chunk_bytes = _CHUNK_BYTES if chunk_bytes is None else chunk_bytes
    return max(1, int(chunk_bytes // (8 * max(n_cols, 1))))


def sq_euclidean_chunks(
    A: np.ndarray, B: np.ndarray, *, chunk_rows: int | None = None, clip: bool = True
) -> Iterator[tuple[int, int, np.ndarray]]:
    """Yield ``(start, stop, D)`` with ``D[i, j] = ||A[start + i] - B[j]||^2`` for row blocks of ``A``.

    Uses ``||a||^2 - 2 a.b + ||b||^2``, evaluated by a single GEMM per block on augmented
    matrices ``[a, ||a||^2, 1] . [-2 b, 1, ||b||^2]`` (no extra passes over the block), and clipped
    at 0 (``clip=True``) because rounding can make it slightly negative. The identity loses
    relative accuracy for points much closer together than their norms; callers needing exact
    small distances (e.g. exact matches) should recompute the few distances they keep directly.
    """
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"A has {A.shape[1]} features but B has {B.shape[1]}")
    n_b, d = B.shape
    if chunk_rows is None:
        chunk_rows = _chunk_rows(n_b)
    B_aug = np.empty((n_b, d + 2))
    np.multiply(B, -2.0, out=B_aug[:, :d])
    B_aug[:, d] = 1.0
    B_aug[:, d + 1] = np.einsum("ij,ij->i", B, B)
    for start in range(0, A.shape[0], chunk_rows):
        stop = min(start + chunk_rows, A.shape[0])
        Ab = A[start:stop]
        A_aug = np.empty((stop - start, d + 2))
        A_aug[:, :d] = Ab
        A_aug[:, d] = np.einsum("ij,ij->i", Ab, Ab)
        A_aug[:, d + 1] = 1.0
        D = A_aug @ B_aug.T
        if clip:
            np.maximum(D, 0.0, out=D)
        yield start, stop, D


def sq_euclidean(A: np.ndarray, B: np.ndarray, *, chunk_rows: int | None = None) -> np.ndarray:
    """Matrix of squared Euclidean distances, shape ``(len(A), len(B))``, computed in row chunks."""
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    out = np.empty((A.shape[0], B.shape[0]), dtype=np.float64)
    for start, stop, D in sq_euclidean_chunks(A, B, chunk_rows=chunk_rows):
        out[start:stop] = D
    return out


def _recompute_small(D: np.ndarray, A: np.ndarray, B: np.ndarray) -> None:
    """Squared distances below 1e-6 of ||a||^2 + ||b||^2 recomputed as sum((a - b)^2) (in place): the BLAS
    identity loses their relative accuracy (exactly equal points come out exactly 0)."""
    scale = np.einsum("ij,ij->i", A, A)[:, None] + np.einsum("ij,ij->i", B, B)[None, :]
    r, c = np.nonzero(D <= 1e-6 * scale)
    if r.size:
        diff = A[r] - B[c]
        D[r, c] = np.einsum("ij,ij->i", diff, diff)


def _as_2d(A, name: str) -> np.ndarray:
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n, d), got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return A


def euclidean_distances(A, B=None) -> np.ndarray:
    """``D[i, j] = ||A[i] - B[j]||_2`` (``B=None``: ``B = A``), shape ``(len(A), len(B))`` (CIML eq. 3.1).

    One GEMM per row block (:func:`sq_euclidean`); entries small relative to the points' norms are
    recomputed directly, so ``D[i, i] = 0`` exactly and near points are accurate.
    """
    A = _as_2d(A, "A")
    B = A if B is None else _as_2d(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"A has {A.shape[1]} features but B has {B.shape[1]}")
    D = sq_euclidean(A, B)
    _recompute_small(D, A, B)
    return np.sqrt(D, out=D)


def pairwise_distances(X) -> np.ndarray:
    """The distance of every pair ``i < j`` of rows of ``X``, once, in the order of
    ``scipy.spatial.distance.pdist`` (rows 0-1, 0-2, ..., 1-2, ...): ``n (n - 1) / 2`` values."""
    X = _as_2d(X, "X")
    n = X.shape[0]
    if n < 2:
        return np.empty(0)
    out = np.empty(n * (n - 1) // 2)
    pos = 0
    for start, stop, D in sq_euclidean_chunks(X, X):
        block = X[start:stop]
        _recompute_small(D, block, X)
        for i in range(start, stop):
            row = D[i - start, i + 1 :]
            out[pos : pos + row.size] = row
            pos += row.size
    return np.sqrt(out, out=out)


def paired_distances(A, B) -> np.ndarray:
    """``||A[i] - B[i]||_2`` for each row ``i`` (two arrays of the same shape)."""
    A, B = _as_2d(A, "A"), _as_2d(B, "B")
    if A.shape != B.shape:
        raise ValueError(f"A and B must have the same shape, got {A.shape} and {B.shape}")
    diff = A - B
    return np.sqrt(np.einsum("ij,ij->i", diff, diff))


def _cholesky_factor(cov) -> np.ndarray:
    S = np.asarray(cov, dtype=np.float64)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise ValueError(f"cov must be a square matrix, got shape {S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError("cov contains NaN or infinite values")
    if not np.allclose(S, S.T, rtol=1e-10, atol=1e-12 * max(float(np.abs(S).max()), 1e-300)):
        raise ValueError("cov must be symmetric")
    L, info = _potrf(S, lower=1, clean=1)
    if info != 0:
        raise SingularMatrixError(
            f"cov is not positive definite (Cholesky failed at column {info}); a degenerate Gaussian has no "
            "Cholesky factor L with L L' = S -- add a small multiple of the identity or drop the dependent directions"
        )
    return L


def cholesky_transform(noise, mean, cov) -> np.ndarray:
    """``x = L n + mu`` for each row ``n`` of ``noise`` (``L L' = cov``, lower Cholesky factor): rows of N(0, I)
    become rows of N(mean, cov) (CS480/680 notes L1252-1260: E[x] = mu, Cov[x] = L E[n n'] L' = S)."""
    mu = np.asarray(mean, dtype=np.float64)
    if mu.ndim != 1:
        raise ValueError(f"mean must be a 1-D vector, got shape {mu.shape}")
    L = _cholesky_factor(cov)
    if L.shape[0] != mu.size:
        raise ValueError(f"cov is {L.shape[0]} x {L.shape[0]} but mean has {mu.size} entries")
    Z = np.asarray(noise, dtype=np.float64)
    if Z.ndim != 2 or Z.shape[1] != mu.size:
        raise ValueError(f"noise must have shape (n, {mu.size}), got {Z.shape}")
    return Z @ L.T + mu


def gaussian_sample(mean, cov, size: int, random_state=None) -> np.ndarray:
    """``size`` draws of N(mean, cov) as ``x = L n + mu`` with ``n ~ N(0, I)`` (CS480/680 notes L1252-1260).

    The standard normals come from ``random_state`` (``Generator.standard_normal((size, d))``), so for the
    same generator state this equals ``Generator.multivariate_normal(mean, cov, size, method="cholesky")``.
    A covariance that is not positive definite raises :class:`SingularMatrixError`.
    """
    import numbers

    from .validation import check_random_state, check_scalar

    check_scalar(size, "size", numbers.Integral, low=1)
    mu = np.asarray(mean, dtype=np.float64)
    rng = check_random_state(random_state)
    L_check = _cholesky_factor(cov)  # fail before drawing
    if mu.ndim != 1 or L_check.shape[0] != mu.size:
        raise ValueError(f"mean must be a vector of {L_check.shape[0]} entries, got shape {mu.shape}")
    return cholesky_transform(rng.standard_normal((int(size), mu.size)), mu, cov)


def p_norm(w, p: float) -> np.ndarray:
    """``||w||_p = (sum_d |w_d|^p)^(1/p)`` of each row of ``w`` (CIML eq. 7.10, §7.3; ``p = inf`` is the max norm,
    ``p = 0`` the count of non-zeros, R^cnt). For ``p < 1`` it is not a norm: its unit ball is not convex (CIML
    Fig. 7.5's level sets)."""
    w = np.atleast_2d(np.asarray(w, dtype=np.float64))
    if not (p >= 0):
        raise ValueError(f"p must be >= 0 (or inf), got {p!r}")
    a = np.abs(w)
    if np.isinf(p):
        return a.max(axis=1)
    if p == 0:
        return np.count_nonzero(a, axis=1).astype(np.float64)
    return (a**p).sum(axis=1) ** (1.0 / p)
