"""Kernel k-means: Lloyd's algorithm in the feature space of a kernel (CIML §11.3)."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse

from ..._constraints import Interval, Options
from ...base import BaseEstimator
from ...exceptions import ConvergenceWarning
from ...validation import (
    check_array,
    check_is_fitted,
    check_n_features,
    check_random_state,
)
from ..decomposition.kernels import KERNEL_CONSTRAINTS, kernel_diagonal, kernel_matrix
from ._mixin import ClusterMixin
from .kmeans import relocate_empty
from .seeding import SEEDINGS, GivenArray, seed_indices


class KernelKMeans(ClusterMixin, BaseEstimator):
    """k-means on ``phi(x)`` using only kernel values ``K(x, z) = phi(x) . phi(z)``.

    CIML §11.3 (seed 001 L3717-3742): every mean lies in the span of the data,
    ``mu_k = sum_m alpha_mk phi(x_m)`` with ``alpha_mk = 1/N_k`` if ``z_m = k`` else 0 (eq. 11.12),
    so the squared distance of example ``n`` to mean ``k`` is::

        ||phi(x_n) - mu_k||^2 = K_nn - 2 sum_m alpha_mk K_mn + sum_{m,m'} alpha_mk alpha_m'k K_mm'

    **Erratum corrected**: the text's eqs. 11.10-11.11 write the cross term as
    ``+ phi(x_n) . sum_m alpha_m phi(x_m)``; expanding the square gives ``-2`` times it (CIML
    errata item 14). With the printed sign the assignment step would send each example to the
    *furthest* mean. The assignment drops the constant ``K_nn`` only inside the argmin; the
    distortion ``J = sum_n ||phi(x_n) - mu_{z_n}||^2`` is computed in full.

    Each iteration assigns every example to its nearest mean (ties to the lowest index) and
    recomputes the means (implicitly, as the new ``alpha``); ``distortion_history_`` is
    non-increasing. It stops when the assignment no longer changes or after ``max_iter``
    iterations (``ConvergenceWarning``). Empty clusters are refilled as in :class:`KMeans`: the
    example furthest from its mean (from a cluster with two or more members) moves into the empty
    cluster. ``n_init`` restarts keep the lowest final ``J``.

    With ``kernel="linear"`` this is exactly k-means (tested against :class:`KMeans` from the same
    initial centres). Cost: the ``n x n`` kernel matrix (memory ``8 n^2`` bytes) and ``O(n^2)``
    per iteration; predicting needs the training data (``X_fit_``).

    Initialization (``init``): ``"k-means++"``, ``"random"`` or ``"furthest-first"``, applied in
    feature space with ``||phi(x_n) - phi(x_i)||^2 = K_nn + K_ii - 2 K_ni`` (see
    :mod:`~replearn.models.cluster.seeding`), or an array-like of ``n_clusters`` distinct training
    example indices whose images ``phi(x_i)`` are the initial means (one run).

    Parameters
    ----------
    n_clusters : int >= 1, default 8
    kernel : {"linear", "poly", "rbf", "sigmoid"}, default "rbf"
    gamma : float > 0 or None (= 1 / n_features), default None
    degree : int >= 1, default 3
    coef0 : float, default 1.0
    init : str or array-like of ints, default "k-means++"
    n_init : int >= 1, default 10
    max_iter : int >= 1, default 300
    random_state : None, int or numpy Generator

    Attributes
    ----------
    labels_ : int array (n_samples,)
    inertia_ : float
        ``J`` at the returned partition, ``sum_n K_nn - sum_k (1/N_k) sum_{m,m' in k} K_mm'``.
    distortion_history_ : array, non-increasing; last entry ``inertia_`` when converged
    n_iter_ : int
    converged_ : bool
    X_fit_ : array (n_samples, n_features)
    cluster_sizes_ : array (n_clusters,) of ``N_k``
    center_norms_ : array (n_clusters,) of ``||mu_k||^2``
    n_features_in_ : int

    scikit-learn has no kernel k-means; the linear case is checked against ``KMeans``.
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "n_clusters": Interval(int, 1, None),
        "n_init": Interval(int, 1, None),
        "max_iter": Interval(int, 1, None),
        **KERNEL_CONSTRAINTS,
        "init": (Options(set(SEEDINGS)), GivenArray("a list of n_clusters example indices")),
    }

    def __init__(
        self,
        n_clusters=8,
        kernel="rbf",
        gamma=None,
        degree=3,
        coef0=1.0,
        init="k-means++",
        n_init=10,
        max_iter=300,
        random_state=None,
    ):
        self.n_clusters = n_clusters
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    def _kernel(self, A, B):
        return kernel_matrix(A, B, kernel=self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0)

    def _given_init(self, n: int) -> np.ndarray | None:
        """The limits that depend on the data, and ``init`` as example indices (None for a seeding name)."""
        if n < self.n_clusters:
            raise ValueError(f"n_samples={n} should be >= n_clusters={self.n_clusters}")
        if isinstance(self.init, str):
            if self.init not in SEEDINGS:
                raise ValueError(f"init must be one of {list(SEEDINGS)} or example indices, got {self.init!r}")
            return None
        idx = np.asarray(self.init)
        if idx.shape != (self.n_clusters,) or idx.dtype.kind not in "iu":
            raise ValueError(f"init must be {self.n_clusters} integer example indices, got {self.init!r}")
        if np.unique(idx).size != idx.size or idx.min() < 0 or idx.max() >= n:
            raise ValueError(f"init indices must be distinct and in [0, {n}), got {idx.tolist()}")
        return idx.astype(np.intp)

    def fit(self, X, y=None):
        """Cluster ``X`` in feature space; returns ``self``."""
        self._validate_params()
        X = check_array(X)
        n = X.shape[0]
        given = self._given_init(n)
        rng = check_random_state(self.random_state)
        K = self._kernel(X, X)
        diag = np.diag(K).copy()

        def d2_to(i: int) -> np.ndarray:
            return np.maximum(diag + diag[i] - 2.0 * K[:, i], 0.0)

        best = None
        for _ in range(1 if given is not None else int(self.n_init)):
            idx = given if given is not None else seed_indices(self.init, n, self.n_clusters, d2_to, rng)
            run = _kernel_lloyd(K, diag, idx, int(self.max_iter))
            if best is None or run["inertia"] < best["inertia"]:
                best = run
        self.labels_ = best["labels"]
        self.inertia_ = best["inertia"]
        self.distortion_history_ = best["history"]
        self.n_iter_ = best["n_iter"]
        self.converged_ = best["converged"]
        self.cluster_sizes_ = best["sizes"]
        self.center_norms_ = best["center_norms"]
        self.X_fit_ = X.copy()
        self.n_features_in_ = X.shape[1]
        if not self.converged_:
            warnings.warn(
                f"KernelKMeans stopped at max_iter={self.max_iter} while examples still changed clusters",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def predict(self, X) -> np.ndarray:
        """Nearest feature-space mean for each row of ``X``."""
        check_is_fitted(self, "labels_")
        X = check_array(X)
        check_n_features(self, X)
        cross = _sum_by_cluster(self._kernel(X, self.X_fit_), self.labels_, self.n_clusters)
        cross /= self.cluster_sizes_
        return np.argmin(self.center_norms_ - 2.0 * cross, axis=1)

    def score(self, X, y=None) -> float:
        """``-J`` on ``X``: minus the sum of squared feature-space distances to the nearest means."""
        check_is_fitted(self, "labels_")
        X = check_array(X)
        check_n_features(self, X)
        cross = _sum_by_cluster(self._kernel(X, self.X_fit_), self.labels_, self.n_clusters)
        cross /= self.cluster_sizes_
        d2 = (self.center_norms_ - 2.0 * cross).min(axis=1)
        diag = kernel_diagonal(X, kernel=self.kernel, gamma=self.gamma, degree=self.degree, coef0=self.coef0)
        return -float(np.maximum(diag + d2, 0.0).sum())


def _sum_by_cluster(K: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    """``S[i, j] = sum_{m: z_m = j} K[i, m]``: one sparse product with the one-hot matrix."""
    n = labels.shape[0]
    onehot = scipy.sparse.csr_matrix((np.ones(n), (np.arange(n), labels)), shape=(n, k))
    return np.asarray((onehot.T @ K.T).T)


def _distances(K: np.ndarray, diag: np.ndarray, labels: np.ndarray, k: int):
    """Squared feature-space distances to the means of ``labels`` (every cluster non-empty)."""
    sizes = np.bincount(labels, minlength=k).astype(np.float64)
    cross = _sum_by_cluster(K, labels, k) / sizes  # (n, k): phi(x_n) . mu_k
    center_norms = np.bincount(labels, weights=cross[np.arange(labels.size), labels], minlength=k) / sizes
    d2 = diag[:, None] - 2.0 * cross + center_norms
    return np.maximum(d2, 0.0), sizes, center_norms


def _kernel_lloyd(K: np.ndarray, diag: np.ndarray, seeds: np.ndarray, max_iter: int) -> dict:
    k = seeds.size
    d2 = np.maximum(diag[:, None] + diag[seeds][None, :] - 2.0 * K[:, seeds], 0.0)
    labels = np.argmin(d2, axis=1)
    closest = d2[np.arange(labels.size), labels]
    history = [float(closest.sum())]
    converged = False
    n_iter = 0
    for it in range(1, max_iter + 1):
        n_iter = it
        members, _ = relocate_empty(labels, closest, k)
        d2, sizes, center_norms = _distances(K, diag, members, k)
        labels = np.argmin(d2, axis=1)
        closest = d2[np.arange(labels.size), labels]
        history.append(float(closest.sum()))
        if np.array_equal(labels, members):
            converged = True
            break
    labels, _ = relocate_empty(labels, closest, k)
    _, sizes, center_norms = _distances(K, diag, labels, k)
    inertia = float(max(diag.sum() - (sizes * center_norms).sum(), 0.0))
    return {
        "labels": labels,
        "inertia": inertia,
        "history": np.asarray(history),
        "n_iter": n_iter,
        "converged": converged,
        "sizes": sizes,
        "center_norms": center_norms,
    }
