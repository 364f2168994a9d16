"""Kernel functions, kernel matrices by matrix products, and the Mercer (PSD) check.

A kernel k(x, z) = <phi(x), phi(z)> is an inner product in a feature space that is never formed
(CS229 notes §5.3-5.4, seed 000 L1714-1938; CIML §11.4, seed 001 L3756-3808; CS480/680 §7,
seed 003 L616-691; EPFL notes L1137-1199, seed 004). The kernels here, for rows x of ``X`` and z of
``Z``:

* ``linear``:     k(x, z) = x.z                                  (CS229 annotation L1926)
* ``polynomial``: k(x, z) = (gamma x.z + coef0)^degree           (CS229 L1860-1908: (x.z + c)^d, i.e.
  gamma = 1; CIML eq. 11.13 (1 + x.z)^d: coef0 = 1)
* ``rbf``:        k(x, z) = exp(-gamma ||x - z||^2)              (CIML eq. 11.18; CS229's
  exp(-||x - z||^2 / (2 sigma^2)) is gamma = 1/(2 sigma^2); seed 003's exp(-||x - z||^2 / sigma) is
  gamma = 1/sigma)
* ``laplace``:    k(x, z) = exp(-gamma ||x - z||_2)              (seed 003 L677, gamma = 1/sigma).
  scikit-learn's ``laplacian_kernel`` uses the L1 distance ||x - z||_1 instead; ours follows the seed.

Every kernel matrix is built from one matrix product ``X @ Z.T`` (for the distance kernels through the
identity ||x - z||^2 = ||x||^2 - 2 x.z + ||z||^2, as in :func:`replearn.linalg.sq_euclidean`, with the
scale -gamma folded into the product), never a Python loop over pairs.

Mercer's condition (CS229 §5.4, seed 000 L1910-1938; CIML eq. 11.14): k is a valid kernel iff every
kernel matrix it produces is symmetric positive semi-definite. :func:`is_psd` checks one matrix.

New kernels from old ones (:class:`Kernel`; EPFL notes "New kernel functions from old ones", seed 004
L1181-1185; CIML §11.4 Thm. 13 and L3784-3800). For kernels k1, k2 with feature maps phi1, phi2:

* ``k1 + k2`` -- a kernel (Thm. 13: the quadratic form of a sum is the sum of two non-negative ones; the
  text's eq. 11.17 prints "> 0 + 0", read >=); feature map (phi1, phi2) concatenated;
* ``a * k1`` with ``a >= 0`` -- a kernel (feature map sqrt(a) phi1); ``a < 0`` is refused: -k1 is not PSD;
  "any positive linear combination of kernels is still a kernel" (CIML L3784);
* ``k1 * k2`` -- a kernel (the Schur product of two PSD matrices is PSD, CIML L3800); feature map the
  tensor product phi1 (x) phi2;
* :func:`feature_product_kernel` -- ``f(x) f(z)`` for any real f (feature map f itself);
* :meth:`Kernel.compose` -- ``k1(psi(x), psi(z))`` for any map psi (the features of psi(x)).

``Kernel("rbf", gamma=0.5)`` wraps a named kernel; every composite is a callable ``K(X, Z=None)``
returning the kernel matrix, and :func:`kernel_matrix` accepts one as ``kernel``.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg

__all__ = [
    "KERNELS",
    "linear_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "laplace_kernel",
    "kernel_matrix",
    "kernel_diagonal",
    "KernelRows",
    "resolve_kernel_params",
    "is_psd",
    "min_eigenvalue",
    "Kernel",
    "feature_product_kernel",
    "tensor_power_features",
    "polynomial_feature_map",
]


def linear_kernel(X, Z=None) -> np.ndarray:
    """K[i, j] = x_i . z_j (one GEMM)."""
    X, Z = _pair(X, Z)
    return X @ Z.T


def polynomial_kernel(X, Z=None, *, degree: int = 3, gamma: float = 1.0, coef0: float = 1.0) -> np.ndarray:
    """K[i, j] = (gamma x_i . z_j + coef0)^degree."""
    X, Z = _pair(X, Z)
    K = (X * gamma) @ Z.T if gamma != 1.0 else X @ Z.T
    if coef0 != 0.0:
        K += coef0
    if degree != 1:
        _integer_power(K, int(degree))
    return K


def _neg_scaled_sq_dist(X: np.ndarray, Z: np.ndarray, gamma: float) -> np.ndarray:
    """-gamma ||x_i - z_j||^2 from one GEMM: 2 gamma x.z - gamma ||x||^2 - gamma ||z||^2, clipped at 0."""
    G = (X * (2.0 * gamma)) @ Z.T
    G -= gamma * np.einsum("ij,ij->i", X, X)[:, None]
    G -= gamma * np.einsum("ij,ij->i", Z, Z)[None, :]
    return np.minimum(G, 0.0, out=G)


def rbf_kernel(X, Z=None, *, gamma: float = 1.0) -> np.ndarray:
    """K[i, j] = exp(-gamma ||x_i - z_j||^2) (Gaussian kernel)."""
    X, Z = _pair(X, Z)
    K = _neg_scaled_sq_dist(X, Z, gamma)
    return np.exp(K, out=K)


def laplace_kernel(X, Z=None, *, gamma: float = 1.0) -> np.ndarray:
    """K[i, j] = exp(-gamma ||x_i - z_j||_2) (Laplace kernel, Euclidean norm).

    The square root magnifies the rounding error of the GEMM identity near 0 (an error of eps ||x||^2
    in the square becomes sqrt(eps) ||x|| in the distance), so the few entries that are tiny relative
    to the norms (the diagonal, near-duplicates) are recomputed directly.
    """
    X, Z = _pair(X, Z)
    K = _neg_scaled_sq_dist(X, Z, 1.0)
    np.negative(K, out=K)
    _exact_near_zero(K, X, Z)
    np.sqrt(K, out=K)
    K *= -gamma
    return np.exp(K, out=K)


#: name -> (function, the keyword parameters it takes)
KERNELS = {
    "linear": (linear_kernel, ()),
    "polynomial": (polynomial_kernel, ("degree", "gamma", "coef0")),
    "rbf": (rbf_kernel, ("gamma",)),
    "laplace": (laplace_kernel, ("gamma",)),
}


def kernel_matrix(X, Z=None, kernel: str = "rbf", **params) -> np.ndarray:
    """The kernel matrix K[i, j] = k(x_i, z_j), shape ``(len(X), len(Z))`` (``Z=None``: ``Z = X``).

    ``kernel`` is one of :data:`KERNELS`; ``params`` are its keyword parameters (``gamma``,
    ``degree``, ``coef0``); parameters the kernel does not use are ignored, so estimators can pass
    all of theirs.
    """
    if isinstance(kernel, Kernel):
        return kernel(X, Z)
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {sorted(KERNELS)} or a Kernel, got {kernel!r}")
    fn, names = KERNELS[kernel]
    return fn(X, Z, **{k: v for k, v in params.items() if k in names and v is not None})


class KernelRows:
    """Rows k(x_i, X) of the kernel matrix of ``X`` one at a time, without forming the matrix.

    Each row is one matrix-vector product ``X @ x_i`` plus O(n) elementwise work (squared norms are
    computed once), written into a caller-supplied buffer. Used by SMO, which needs a few kernel rows
    per iteration and usually touches far fewer than n distinct rows.
    """

    def __init__(self, X, kernel: str = "rbf", **params):
        if kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {sorted(KERNELS)}, got {kernel!r}")
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        self.kernel = kernel
        self.gamma = float(params.get("gamma") or 1.0)
        self.degree = int(params.get("degree") or 3)
        self.coef0 = float(params.get("coef0", 1.0) if params.get("coef0") is not None else 1.0)
        self.sqn = np.einsum("ij,ij->i", self.X, self.X) if kernel in ("rbf", "laplace") else None
        self.diag = kernel_diagonal(self.X, kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0)

    def row(self, i: int, out: np.ndarray) -> np.ndarray:
        """Write k(x_i, x_t) for every t into ``out`` (length n) and return it."""
        np.dot(self.X, self.X[i], out=out)
        if self.kernel == "linear":
            return out
        if self.kernel == "polynomial":
            if self.gamma != 1.0:
                out *= self.gamma
            out += self.coef0
            if self.degree != 1:
                _integer_power(out, self.degree)
            return out
        # ||x_i - x_t||^2 = ||x_i||^2 + ||x_t||^2 - 2 x_i.x_t, clipped at 0
        out *= -2.0
        out += self.sqn
        out += self.sqn[i]
        np.maximum(out, 0.0, out=out)
        out[i] = 0.0
        if self.kernel == "laplace":
            near = np.flatnonzero(out <= 1e-6 * (self.sqn + self.sqn[i]))
            if near.size:  # as in laplace_kernel: exact distances where the square root magnifies rounding
                diff = self.X[near] - self.X[i]
                out[near] = np.einsum("ij,ij->i", diff, diff)
            np.sqrt(out, out=out)
        out *= -self.gamma
        return np.exp(out, out=out)


def _integer_power(out: np.ndarray, degree: int) -> np.ndarray:
    """``out **= degree`` for an integer degree >= 2, by repeated squaring in place: ``np.power`` with an integer
    exponent calls libm's ``pow`` per element (~10x the cost of the products, and the whole of an SMO kernel row for
    the polynomial kernel, issue 41); the products agree with it to a few ulps."""
    if degree == 2:
        return np.multiply(out, out, out=out)
    if degree == 3:
        sq = out * out
        return np.multiply(out, sq, out=out)
    base = out.copy()
    out.fill(1.0)
    k = degree
    while k:
        if k & 1:
            out *= base
        k >>= 1
        if k:
            base *= base
    return out


def kernel_diagonal(X, kernel: str = "rbf", **params) -> np.ndarray:
    """k(x_i, x_i) for every row, in O(n d) (the diagonal of ``kernel_matrix(X)``)."""
    X = np.asarray(X, dtype=np.float64)
    if kernel in ("rbf", "laplace"):
        return np.ones(X.shape[0])
    sq = np.einsum("ij,ij->i", X, X)
    if kernel == "linear":
        return sq
    if kernel == "polynomial":
        return (params.get("gamma", 1.0) * sq + params.get("coef0", 1.0)) ** params.get("degree", 3)
    raise ValueError(f"kernel must be one of {sorted(KERNELS)}, got {kernel!r}")


def resolve_kernel_params(kernel: str, gamma, degree, coef0, X: np.ndarray) -> dict:
    """Validate an estimator's kernel hyperparameters and return the keyword arguments for ``kernel``.

    ``gamma=None`` means scikit-learn's ``gamma="scale"``, 1 / (n_features * X.var()), for the
    ``rbf`` and ``laplace`` kernels, and 1 (the course's (x.z + c)^d) for ``polynomial``.
    """
    from .validation import check_scalar

    check_scalar(kernel, "kernel", str, choices=tuple(KERNELS))
    out: dict = {}
    if kernel == "linear":
        return out
    if gamma is None:
        if kernel == "polynomial":
            g = 1.0
        else:
            var = float(X.var())
            g = 1.0 / (X.shape[1] * var) if var > 0 else 1.0
    else:
        g = check_scalar(gamma, "gamma", numbers.Real, low=0.0, low_inclusive=False)
    out["gamma"] = float(g)
    if kernel == "polynomial":
        check_scalar(degree, "degree", numbers.Integral, low=1)
        check_scalar(coef0, "coef0", numbers.Real, low=0.0)
        out["degree"] = int(degree)
        out["coef0"] = float(coef0)
    return out


def min_eigenvalue(K) -> float:
    """Smallest eigenvalue of the symmetric part of ``K`` (LAPACK ``syevr``, eigenvalues only)."""
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}")
    S = 0.5 * (K + K.T)
    return float(scipy.linalg.eigvalsh(S, subset_by_index=[0, 0], check_finite=False)[0])


def is_psd(K, tol: float | None = None) -> bool:
    """Mercer check of one kernel matrix: symmetric and positive semi-definite up to rounding.

    ``K`` passes if ``|K - K.T| <= tol * max|K|`` and its smallest eigenvalue is
    ``>= -tol * max|K|``; ``tol`` defaults to ``n * eps * 100``, a bound on the rounding error of
    forming and factorizing an n x n matrix. A kernel that fails on some data set is not a valid
    kernel (e.g. tanh(1 + x.z), CIML eq. 11.21).
    """
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}")
    if not np.all(np.isfinite(K)):
        raise ValueError("K contains NaN or infinite values")
    n = K.shape[0]
    if tol is None:
        tol = 100.0 * max(n, 1) * np.finfo(np.float64).eps
    scale = float(np.abs(K).max()) if K.size else 0.0
    if scale == 0.0:
        return True
    if np.abs(K - K.T).max() > tol * scale:
        return False
    return min_eigenvalue(K) >= -tol * scale


class Kernel:
    """A kernel k(x, z) as a value that can be added, scaled and multiplied (module docstring).

    ``Kernel(name, **params)`` is one of :data:`KERNELS` with its parameters; ``K(X, Z=None)`` is the kernel
    matrix (``Z=None``: ``Z = X``) and ``K.diagonal(X)`` its diagonal in O(n d). Composites come from
    ``k1 + k2``, ``a * k`` (``a >= 0``), ``k1 * k2``, :meth:`compose` and :func:`feature_product_kernel`;
    each is a :class:`Kernel` too, so they nest (``2.0 * Kernel("rbf") + Kernel("linear") * Kernel("linear")``).
    """

    def __init__(self, name: str, **params):
        if name not in KERNELS:
            raise ValueError(f"kernel must be one of {sorted(KERNELS)}, got {name!r}")
        unknown = set(params) - set(KERNELS[name][1])
        if unknown:
            raise ValueError(
                f"kernel {name!r} takes {list(KERNELS[name][1]) or 'no parameters'}, got {sorted(unknown)}"
            )
        self.name = name
        self.params = dict(params)

    def __call__(self, X, Z=None) -> np.ndarray:
        X, Z = _pair(X, Z)
        return KERNELS[self.name][0](X, Z, **self.params)

    def diagonal(self, X) -> np.ndarray:
        """k(x_i, x_i) for every row of ``X``."""
        defaults = {"gamma": 1.0, "degree": 3, "coef0": 1.0}
        return kernel_diagonal(X, self.name, **{**defaults, **self.params})

    def __add__(self, other):
        if isinstance(other, (int, float)) and other == 0:  # sum() starts at 0
            return self
        if not isinstance(other, Kernel):
            return NotImplemented
        return _Sum(self, other)

    __radd__ = __add__

    def __mul__(self, other):
        if isinstance(other, Kernel):
            return _Product(self, other)
        if isinstance(other, numbers.Real) and not isinstance(other, bool):
            return _Scaled(float(other), self)
        return NotImplemented

    __rmul__ = __mul__

    def compose(self, psi) -> Kernel:
        """The kernel ``k(psi(x), psi(z))`` of the mapped inputs (``psi`` maps an (n, d) array to (n, d'))."""
        if not callable(psi):
            raise TypeError(f"psi must be a callable mapping X to features, got {type(psi).__name__}")
        return _Composed(self, psi)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"Kernel({self.name!r}{', ' if inner else ''}{inner})"


class _Sum(Kernel):
    def __init__(self, left: Kernel, right: Kernel):
        self.left, self.right = left, right

    def __call__(self, X, Z=None):
        return self.left(X, Z) + self.right(X, Z)

    def diagonal(self, X):
        return self.left.diagonal(X) + self.right.diagonal(X)

    def __repr__(self):
        return f"({self.left!r} + {self.right!r})"


class _Product(Kernel):
    def __init__(self, left: Kernel, right: Kernel):
        self.left, self.right = left, right

    def __call__(self, X, Z=None):
        return self.left(X, Z) * self.right(X, Z)

    def diagonal(self, X):
        return self.left.diagonal(X) * self.right.diagonal(X)

    def __repr__(self):
        return f"({self.left!r} * {self.right!r})"


class _Scaled(Kernel):
    def __init__(self, a: float, inner: Kernel):
        if not (np.isfinite(a) and a >= 0.0):
            raise ValueError(
                f"a kernel can only be scaled by a >= 0 (a K is PSD only then: a = {a!r} makes its quadratic forms "
                "negative); see CIML L3784"
            )
        self.a, self.inner = float(a), inner

    def __call__(self, X, Z=None):
        return self.a * self.inner(X, Z)

    def diagonal(self, X):
        return self.a * self.inner.diagonal(X)

    def __repr__(self):
        return f"{self.a!r} * {self.inner!r}"


class _Composed(Kernel):
    def __init__(self, inner: Kernel, psi):
        self.inner, self.psi = inner, psi

    def _map(self, X):
        out = np.asarray(self.psi(np.asarray(X, dtype=np.float64)), dtype=np.float64)
        return out[:, None] if out.ndim == 1 else out

    def __call__(self, X, Z=None):
        return self.inner(self._map(X), None if Z is None else self._map(Z))

    def diagonal(self, X):
        return self.inner.diagonal(self._map(X))

    def __repr__(self):
        return f"{self.inner!r}.compose({getattr(self.psi, '__name__', 'psi')})"


class _FeatureProduct(Kernel):
    def __init__(self, f):
        if not callable(f):
            raise TypeError(f"f must be a callable mapping X (n, d) to n reals, got {type(f).__name__}")
        self.f = f

    def _values(self, X):
        v = np.asarray(self.f(np.asarray(X, dtype=np.float64)), dtype=np.float64)
        if v.ndim != 1 or v.shape[0] != np.asarray(X).shape[0]:
            raise ValueError(f"f must return one real per row of X, got shape {v.shape}")
        return v

    def __call__(self, X, Z=None):
        X, Z = _pair(X, Z)
        return np.outer(self._values(X), self._values(Z))

    def diagonal(self, X):
        return self._values(X) ** 2

    def __repr__(self):
        return f"feature_product_kernel({getattr(self.f, '__name__', 'f')})"


def feature_product_kernel(f) -> Kernel:
    """The kernel ``k(x, z) = f(x) f(z)`` for a real function ``f`` of one example (``f(X)`` gives one value
    per row): the inner product of the one-dimensional feature map f (EPFL notes L1181-1185)."""
    return _FeatureProduct(f)


def tensor_power_features(X, k: int) -> np.ndarray:
    """The k-th tensor power of each row, flattened: all ordered products x_{i1} ... x_{ik} (d^k entries,
    with repetitions), so that ``<phi(x), phi(z)> = (x.z)^k`` -- the CS229 notes' vec(x x') for k = 2 (§5.4,
    L1843-1860), the CS480/680 notes' psi (L661-663) and EPFL's (L1161-1168). ``k = 0`` gives the constant 1."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"k must be a non-negative integer, got {k!r}")
    n, d = X.shape
    if d ** int(k) > 10**6:
        raise ValueError(f"the tensor power has d^k = {d}^{k} entries per row: use the kernel instead")
    out = np.ones((n, 1))
    for _ in range(int(k)):
        out = (out[:, :, None] * X[:, None, :]).reshape(n, -1)
    return out


def polynomial_feature_map(X, degree: int = 2, *, gamma: float = 1.0, coef0: float = 0.0, repeated: bool = True):
    """The explicit feature map phi of the polynomial kernel ``(gamma x.z + coef0)^degree``:
    ``<phi(x), phi(z)>`` equals :func:`polynomial_kernel` exactly (CS229 §5.3-5.4, CS480/680 L641-663).

    Binomial expansion: ``(gamma x.z + c)^p = sum_k C(p, k) c^(p-k) gamma^k (x.z)^k``, so with
    ``repeated=True`` phi concatenates ``sqrt(C(p, k) c^(p-k) gamma^k)`` times the k-th tensor powers
    (:func:`tensor_power_features`; for p = 2 the notes' (x_i x_j, sqrt(2c) x_i, c), d^2 + d + 1 entries);
    with ``repeated=False`` each distinct monomial appears once with the square root of its multinomial
    coefficient (for x in R^2, p = 2, c = 0: (x1^2, sqrt(2) x1 x2, x2^2), the CS480/680 notes' phi):
    C(d + p, p) entries when c > 0 (the notes' count, L1866).
    """
    import itertools
    import math

    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    if isinstance(degree, bool) or not isinstance(degree, (int, np.integer)) or degree < 0:
        raise ValueError(f"degree must be a non-negative integer, got {degree!r}")
    if not (np.isfinite(gamma) and gamma > 0) or not (np.isfinite(coef0) and coef0 >= 0):
        raise ValueError(f"gamma must be > 0 and coef0 >= 0, got gamma={gamma!r}, coef0={coef0!r}")
    p = int(degree)
    blocks = []
    for k in range(p + 1):
        weight = math.comb(p, k) * coef0 ** (p - k) * gamma**k
        if weight == 0.0:
            continue
        if repeated:
            blocks.append(math.sqrt(weight) * tensor_power_features(X, k))
            continue
        d = X.shape[1]
        cols = []
        for combo in itertools.combinations_with_replacement(range(d), k):
            counts = np.bincount(np.asarray(combo, dtype=np.int64), minlength=d)
            multinomial = math.factorial(k) / math.prod(math.factorial(int(c)) for c in counts)
            cols.append(math.sqrt(weight * multinomial) * np.prod(X[:, list(combo)], axis=1))
        blocks.append(np.column_stack(cols) if cols else np.ones((X.shape[0], 1)) * math.sqrt(weight))
    return np.hstack(blocks) if blocks else np.zeros((X.shape[0], 0))


def _exact_near_zero(D: np.ndarray, X: np.ndarray, Z: np.ndarray) -> None:
    """Recompute squared distances that are below 1e-6 of ||x||^2 + ||z||^2 directly (in place)."""
    scale = np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", Z, Z)[None, :]
    r, c = np.nonzero(D <= 1e-6 * scale)
    if r.size:
        diff = X[r] - Z[c]
        D[r, c] = np.einsum("ij,ij->i", diff, diff)


def _pair(X, Z):
    X = np.asarray(X, dtype=np.float64)
    Z = X if Z is None else np.asarray(Z, dtype=np.float64)
    if X.ndim != 2 or Z.ndim != 2:
        raise ValueError(f"X and Z must be 2-D, got shapes {X.shape} and {Z.shape}")
    if X.shape[1] != Z.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features but Z has {Z.shape[1]}")
    return X, Z
