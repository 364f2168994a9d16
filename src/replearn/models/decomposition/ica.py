"""Independent component analysis: Bell and Sejnowski's maximum-likelihood ICA (CS229 §13), its
extended-infomax form for mixed sub- and super-Gaussian sources, and the FastICA fixed point."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from scipy.special import expit

from ..._constraints import Boolean, Interval, Options
from ...base import BaseEstimator, TransformerMixin
from ...exceptions import ConvergenceWarning, DivergenceError
from ...validation import check_array, check_is_fitted, check_n_features, check_random_state

_ALGORITHMS = ("fixed_point", "gradient", "natural")
_FUNS = ("cube", "exp", "logcosh")


def _log_sigmoid_density(Y: np.ndarray) -> np.ndarray:
    """``log g'(y) = log g(y) + log(1 - g(y)) = -|y| - 2 log(1 + e^{-|y|})`` (stable for any y)."""
    a = np.abs(Y)
    return -a - 2.0 * np.log1p(np.exp(-a))


def log_likelihood_gradient(Z: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Gradient of ``l(W) / n`` (CS229 notes L5100-5108, averaged over the rows of ``Z``)::

        (1/n) sum_i [1 - 2 g(w_j^T z_i)]_j z_i^T + (W^T)^{-1}

    ``(W^T)^{-1}`` -- the gradient of ``log |det W|`` -- is the quantity itself, computed by an LU
    solve of ``W^T G = I``.
    """
    G = 1.0 - 2.0 * expit(Z @ W.T)
    return G.T @ Z / Z.shape[0] + scipy.linalg.solve(W.T, np.eye(W.shape[0]), check_finite=False)


class ICA(TransformerMixin, BaseEstimator):
    """Recover independent non-Gaussian sources ``s`` from linear mixtures ``x = A s``.

    Model (CS229 notes §13, seed 000 L5018-5116): the sources are independent with density
    ``p_s = g'``, the derivative of the sigmoid ``g(s) = 1 / (1 + e^{-s})`` (a heavy-tailed
    default; L5092), so with ``W = A^{-1}`` (rows ``w_j``) the density of ``x`` is
    ``p(x) = prod_j g'(w_j^T x) |det W|`` (L5080-5086) and the log-likelihood of ``n`` examples is::

        l(W) = sum_i ( sum_j log g'(w_j^T x_i) + log |det W| )

    Its gradient gives the stochastic gradient ascent rule of the notes (L5100-5108), **with the
    bracket the OCR lost restored** (catalogue erratum L5108: the step size multiplies both terms)::

        W := W + alpha ( [1 - 2 g(w_j^T x_i)]_j x_i^T + (W^T)^{-1} )

    Algorithms
    ----------
    * ``"gradient"``: that rule, averaged over mini-batches of ``batch_size`` examples visited in a
      fresh random order every epoch (the notes' advice for correlated data, L5116);
      ``batch_size=1`` is exactly the per-example rule; ``None`` is full-batch gradient ascent on
      ``l(W) / n``. ``(W^T)^{-1}`` is the gradient of ``log |det W|`` itself, computed by an LU
      solve against the identity.
    * ``"natural"``: the same ascent preconditioned by ``W^T W`` (Amari's natural /
      relative gradient, Cardoso & Laheld's equivariant form), ``W := W + alpha (I + [1 - 2 g(Y)]^T Y / b) W``
      with ``Y = X_batch W^T``: the same fixed points, no matrix inverse, and convergence that does
      not depend on how badly ``A`` is conditioned.
    * ``extended=True`` (with ``"natural"``): extended infomax (Lee, Girolami & Sejnowski 1999, not in
      the course texts). The sigmoid prior is super-Gaussian, so the text's rule cannot separate
      sub-Gaussian sources (a square wave, a sine); extended infomax picks, for each source and each
      step, a super-Gaussian prior ``N(0,1) sech^2`` or a sub-Gaussian one (a mixture of two
      Gaussians at +-1) by the sign ``k_j`` of the excess kurtosis of ``y_j`` (EEGLAB's ``runica``
      switch: scale-free, where Lee et al.'s ``E[sech^2 y] E[y^2] - E[y tanh y]`` depends on the
      scale ``W`` gives ``y`` and can flip back and forth near the fixed point), and ascends
      ``W := W + alpha (I - K tanh(Y)^T Y / b - Y^T Y / b) W`` with ``K = diag(k)``.
    * ``"fixed_point"`` (default): FastICA's symmetric fixed-point iteration (Hyvarinen & Oja 2000,
      not in the course texts) on the whitened data: with ``Y = Z W^T`` and a contrast ``G``
      (``fun``: ``"logcosh"`` ``G'(y) = tanh y``, ``"exp"`` ``y e^{-y^2/2}``, ``"cube"`` ``y^3``),
      ``W := (E[G'(Y)^T Z] - diag(E[G''(Y)]) W)`` followed by the symmetric decorrelation
      ``W := (W W^T)^{-1/2} W``. It maximizes an approximation of each source's negentropy, so it
      separates sub- and super-Gaussian sources alike, in a handful of iterations (Newton-like,
      cubic convergence for ``"cube"``). Stops when ``max_j | |w_j^new . w_j| - 1 | <= tol``
      (scikit-learn's rule). Needs ``whiten=True``. ``learning_rate`` and ``batch_size`` are unused.

    Preprocessing: the data are centred (the model needs ``E[x] = 0``, footnote L5094; ``mean_``
    is added back by ``inverse_transform``) and, with ``whiten=True`` (default), whitened by PCA to
    ``n_components`` unit-variance directions: ``x~ = K (x - mean)``, ``K = D^{-1/2} E^T``. The
    unmixing is then ``components_ = W K``. Whitening is a change of variables: it only shifts
    ``l`` by the constant ``n log |det K|``, so the maximizer is the same ICA solution, but it
    makes the problem well conditioned and allows ``n_components < n_features``. Without
    whitening ``n_components`` must equal ``n_features``.

    ``log_likelihood_history_`` holds ``l(W) / n`` of the (whitened) data after each epoch (the
    text's sigmoid-prior likelihood, which only ``"natural"`` and ``"gradient"`` without
    ``extended`` maximize; a diagnostic for the others); it is not guaranteed to increase
    (stochastic steps). The gradient rules stop when the largest entry of the change of ``W`` over
    an epoch is at most ``tol``; every algorithm stops after ``max_iter`` epochs (``ConvergenceWarning``);
    a non-finite ``W`` raises :class:`~replearn.exceptions.DivergenceError` (lower
    ``learning_rate``).

    Sources come back only up to permutation, scale and sign (L5040-5052); Gaussian sources cannot
    be separated at all (rotation symmetry, L5056-5066). Check a fit with
    :func:`replearn.evaluation.clustering.amari_index`.

    Randomness: ``random_state`` draws the initial ``W`` (identity plus small noise) and the visiting
    order of every epoch.

    Parameters
    ----------
    n_components : int >= 1 or None (= n_features), default None
    algorithm : {"fixed_point", "natural", "gradient"}, default "fixed_point"
        ``"natural"`` / ``"gradient"`` are the course text's rule; ``"fixed_point"`` separates
        mixtures of sub- and super-Gaussian sources (as does ``"natural"`` with ``extended=True``).
    fun : {"logcosh", "exp", "cube"}, default "logcosh"
        Contrast of ``"fixed_point"``.
    extended : bool, default False
        Extended infomax (only with ``algorithm="natural"``).
    learning_rate : float > 0, default 0.2
        Full-batch natural gradient on whitened data is stable up to about 0.5 (1.0 oscillates);
        per-example steps (``batch_size=1``) need a much smaller rate (about 0.005).
    batch_size : int >= 1 or None (full batch), default None
    whiten : bool, default True
    max_iter : int >= 1, default 500 (epochs)
    tol : float >= 0, default 1e-5
    random_state : None, int or numpy Generator

    Attributes
    ----------
    components_ : array (k, d) -- the unmixing matrix applied to centred data, ``s = components_ (x - mean_)``
    mixing_ : array (d, k) -- its (pseudo-)inverse, the estimated ``A``
    unmixing_whitened_ : array (k, k) -- ``W`` in the whitened space
    whitening_ : array (k, d) -- ``K`` (identity when ``whiten=False``)
    mean_ : array (d,)
    log_likelihood_history_ : array (n_iter_ + 1,)
    n_iter_ : int
    converged_ : bool
    n_features_in_ : int

    scikit-learn's ``FastICA(fun=..., algorithm="parallel", whiten="unit-variance")`` runs the same
    fixed-point iteration (the benchmark compares them at the same ``tol``); the gradient rules
    maximize a different objective and are checked against it by the Amari index on the same data.
    """

    _tasks = ("decomposition",)

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints);
    #: ``n_components`` is also checked against the number of features in fit
    _constraints = {
        "n_components": (None, Interval(int, 1, None)),
        "algorithm": Options(set(_ALGORITHMS)),
        "fun": Options(set(_FUNS)),
        "extended": Boolean(),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "batch_size": (None, Interval(int, 1, None)),
        "whiten": Boolean(),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
    }

    def __init__(
        self,
        n_components=None,
        algorithm="fixed_point",
        fun="logcosh",
        extended=False,
        learning_rate=0.2,
        batch_size=None,
        whiten=True,
        max_iter=500,
        tol=1e-5,
        random_state=None,
    ):
        self.n_components = n_components
        self.algorithm = algorithm
        self.fun = fun
        self.extended = extended
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.whiten = whiten
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _n_components(self, n: int, d: int) -> int:
        """The combinations the table cannot express and the limits that depend on the data."""
        if self.extended and self.algorithm != "natural":
            raise ValueError(
                f"extended=True is extended infomax, a natural-gradient rule; got algorithm={self.algorithm!r}"
            )
        if self.algorithm == "fixed_point" and not self.whiten:
            raise ValueError("algorithm='fixed_point' works on whitened data and needs whiten=True")
        k = d if self.n_components is None else self.n_components
        if k > d:
            raise ValueError(f"n_components must be <= {d} (the number of features), got {k}")
        if not self.whiten and k != d:
            raise ValueError(f"n_components={k} < n_features={d} needs whiten=True")
        if n < 2:
            raise ValueError("ICA needs at least 2 samples")
        return int(k)

    def fit(self, X, y=None):
        """Estimate the unmixing matrix; returns ``self``."""
        self._validate_params()
        X = check_array(X)
        n, d = X.shape
        k = self._n_components(n, d)
        rng = check_random_state(self.random_state)
        mean = X.mean(axis=0)
        Xc = X - mean
        if self.whiten:
            _, s, Vt = scipy.linalg.svd(Xc, full_matrices=False, check_finite=False)
            if s[k - 1] <= s[0] * max(n, d) * np.finfo(np.float64).eps:
                raise ValueError(f"the centred data have rank < n_components={k}; lower n_components")
            K = (Vt[:k].T / (s[:k] / np.sqrt(n))).T  # D^{-1/2} E^T
            Z = Xc @ K.T
        else:
            K = np.eye(d)
            Z = Xc
        if self.algorithm == "fixed_point":
            W, history, n_iter, converged = self._fixed_point(Z, _symmetric_decorrelation(rng.standard_normal((k, k))))
        else:
            W = np.eye(k) + 0.01 * rng.standard_normal((k, k))
            W, history, n_iter, converged = self._ascend(Z, W, rng)
        self.unmixing_whitened_ = W
        self.whitening_ = K
        self.components_ = W @ K
        if self.whiten:
            # A = K^+ W^{-1}; K^+ = E D^{1/2} since K = D^{-1/2} E^T with orthonormal E
            K_pinv = Vt[:k].T * (s[:k] / np.sqrt(n))
            self.mixing_ = K_pinv @ scipy.linalg.solve(W, np.eye(k), check_finite=False)
        else:
            self.mixing_ = scipy.linalg.solve(W, np.eye(k), check_finite=False)
        self.mean_ = mean
        self.log_likelihood_history_ = np.asarray(history)
        self.n_iter_ = n_iter
        self.converged_ = converged
        self.n_features_in_ = d
        if not converged:
            warnings.warn(
                f"ICA did not converge in max_iter={self.max_iter} epochs (tol={self.tol}); "
                "increase max_iter or learning_rate",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    @staticmethod
    def log_likelihood(Z: np.ndarray, W: np.ndarray, Y: np.ndarray | None = None) -> float:
        """``l(W) / n = mean_i sum_j log g'(w_j^T z_i) + log |det W|`` (``Y = Z W^T`` if known)."""
        sign, logdet = np.linalg.slogdet(W)
        if sign == 0 or not np.isfinite(logdet):
            return -np.inf
        Y = Z @ W.T if Y is None else Y
        return float(_log_sigmoid_density(Y).sum(axis=1).mean() + logdet)

    def _ascend(self, Z: np.ndarray, W: np.ndarray, rng: np.random.Generator):
        n, k = Z.shape
        lr = float(self.learning_rate)
        batch = n if self.batch_size is None else min(int(self.batch_size), n)
        eye = np.eye(k)
        history = []
        converged = False
        n_iter = 0
        for n_iter in range(1, int(self.max_iter) + 1):
            W_old = W
            with np.errstate(over="ignore", invalid="ignore"):  # reported as DivergenceError below
                if batch == n:  # full batch: l(W) comes from the same Y = Z W^T as the step
                    Y = Z @ W.T
                    history.append(self.log_likelihood(Z, W, Y))
                    W = self._step(Z, Y, W, lr, eye)
                else:
                    history.append(self.log_likelihood(Z, W))
                    order = rng.permutation(n)
                    for start in range(0, n, batch):
                        Zb = Z[order[start : start + batch]]
                        W = self._step(Zb, Zb @ W.T, W, lr, eye)
            if not (np.all(np.isfinite(W)) and np.isfinite(history[-1])):
                raise DivergenceError(
                    f"ICA diverged at epoch {n_iter}: W became non-finite or singular; lower learning_rate "
                    f"(now {self.learning_rate})"
                )
            if np.max(np.abs(W - W_old)) <= self.tol:
                converged = True
                break
        with np.errstate(over="ignore", invalid="ignore"):
            history.append(self.log_likelihood(Z, W))
        if not np.isfinite(history[-1]):
            raise DivergenceError(f"ICA diverged: W became singular; lower learning_rate (now {self.learning_rate})")
        return W, history, n_iter, converged

    def _fixed_point(self, Z: np.ndarray, W: np.ndarray):
        """FastICA's symmetric fixed-point iteration on whitened ``Z`` (rows of ``W`` orthonormal)."""
        n = Z.shape[0]
        g = _CONTRASTS[self.fun]
        ZT = np.ascontiguousarray(Z.T)  # (k, n): the products below are GEMMs on contiguous rows
        history = []
        converged = False
        n_iter = 0
        for n_iter in range(1, int(self.max_iter) + 1):
            Yt = W @ ZT  # (k, n) = Y^T
            history.append(self.log_likelihood(Z, W, Yt.T))
            gY, g_prime_mean = g(Yt)
            W_new = _symmetric_decorrelation(gY @ Z / n - g_prime_mean[:, None] * W)
            if not np.all(np.isfinite(W_new)):
                raise DivergenceError(f"ICA fixed point became non-finite at iteration {n_iter}; check the data")
            lim = float(np.max(np.abs(np.abs(np.einsum("ij,ij->i", W_new, W)) - 1.0)))
            W = W_new
            if lim <= self.tol:
                converged = True
                break
        history.append(self.log_likelihood(Z, W))
        return W, history, n_iter, converged

    def _step(self, Zb: np.ndarray, Y: np.ndarray, W: np.ndarray, lr: float, eye: np.ndarray) -> np.ndarray:
        """One ascent step on the batch ``Zb`` (``Y = Zb W^T``)."""
        if not np.all(np.isfinite(W)):
            return W
        if self.extended:  # extended infomax: a super- or sub-Gaussian prior per source
            b = Zb.shape[0]
            T = np.tanh(Y)
            Y2 = Y * Y
            m2 = np.mean(Y2, axis=0)
            k = np.where(np.mean(Y2 * Y2, axis=0) >= 3.0 * m2 * m2, 1.0, -1.0)  # sign of the excess kurtosis
            return W + lr * (eye - (k[:, None] * (T.T @ Y)) / b - (Y.T @ Y) / b) @ W
        if self.algorithm == "natural":
            G = 1.0 - 2.0 * expit(Y)  # [1 - 2 g(w_j^T x)]_j per example
            return W + lr * (eye + G.T @ Y / Zb.shape[0]) @ W
        try:
            return W + lr * log_likelihood_gradient(Zb, W)
        except np.linalg.LinAlgError:  # W became singular: log|det W| = -inf
            return np.full_like(W, np.nan)

    def _check(self, X, width=None) -> np.ndarray:
        check_is_fitted(self, "components_")
        X = check_array(X)
        if width is None:
            check_n_features(self, X)
        elif X.shape[1] != width:
            raise ValueError(f"S has {X.shape[1]} columns, but ICA has {width} components")
        return X

    def transform(self, X) -> np.ndarray:
        """Estimated sources ``s = components_ (x - mean_)``, shape (n, k)."""
        X = self._check(X)
        return (X - self.mean_) @ self.components_.T

    def inverse_transform(self, S) -> np.ndarray:
        """Mix sources back: ``x = mixing_ s + mean_``."""
        S = self._check(S, width=self.components_.shape[0])
        return S @ self.mixing_.T + self.mean_


def _symmetric_decorrelation(W: np.ndarray) -> np.ndarray:
    """``(W W^T)^{-1/2} W``: the nearest matrix with orthonormal rows (FastICA's parallel update)."""
    s, U = np.linalg.eigh(W @ W.T)
    s = np.maximum(s, np.finfo(W.dtype).tiny)  # W W^T is positive definite unless W is singular
    return (U * (1.0 / np.sqrt(s))) @ U.T @ W


def _logcosh(Yt: np.ndarray):
    """``G'(y) = tanh y`` and the row means of ``G''(y) = 1 - tanh^2 y``."""
    T = np.tanh(Yt, out=np.empty_like(Yt))
    g_prime = 1.0 - np.einsum("ij,ij->i", T, T) / Yt.shape[1]
    return T, g_prime


def _exp(Yt: np.ndarray):
    """``G'(y) = y e^{-y^2/2}``, ``G''(y) = (1 - y^2) e^{-y^2/2}``."""
    Y2 = Yt * Yt
    E = np.exp(-0.5 * Y2)
    return Yt * E, ((1.0 - Y2) * E).mean(axis=1)


def _cube(Yt: np.ndarray):
    """``G'(y) = y^3``, ``G''(y) = 3 y^2``."""
    Y2 = Yt * Yt
    return Y2 * Yt, 3.0 * Y2.mean(axis=1)


_CONTRASTS = {"logcosh": _logcosh, "exp": _exp, "cube": _cube}


def mixture_density(source_density, W, X) -> np.ndarray:
    """The density of ``x = A s`` from the sources' density: ``p_x(x) = p_s(W x) |det W|`` with ``W = A^-1``
    (CS229 notes §13, seed 000 L5060-5074: for s ~ Uniform[0, 1] and A = 2, p_x = 0.5 on [0, 2]; the notes
    warn that p_s(W x) alone -- here 1 -- is wrong).

    ``source_density(S)`` takes the unmixed rows ``S = X W'`` (n, k) and returns one density per row; ``W`` is
    (k, k) and ``X`` (n, k) (a 1-D ``X`` is one row).
    """
    W = np.atleast_2d(np.asarray(W, dtype=np.float64))
    if W.shape[0] != W.shape[1]:
        raise ValueError(f"W must be square (the unmixing matrix), got shape {W.shape}")
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    if X.shape[1] != W.shape[0]:
        raise ValueError(f"X has {X.shape[1]} columns but W is {W.shape[0]} x {W.shape[0]}")
    det = float(np.linalg.det(W))
    if det == 0.0:
        raise ValueError("W is singular: x = A s has no density (A is not invertible)")
    dens = np.asarray(source_density(X @ W.T), dtype=np.float64)
    if dens.shape != (X.shape[0],):
        raise ValueError(f"source_density must return one value per row, got shape {dens.shape}")
    return dens * abs(det)
