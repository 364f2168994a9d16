"""k-means clustering by Lloyd's algorithm, with restarts and several initializations."""

from __future__ import annotations

import warnings

import numpy as np

from ..._constraints import Interval, Options
from ...base import BaseEstimator
from ...exceptions import ConvergenceWarning
from ...validation import (
    check_array,
    check_is_fitted,
    check_n_features,
    check_random_state,
)
from ._kernels import cluster_sums, nearest_from_scores, sum_sq_to_centers
from ._mixin import ClusterMixin
from .seeding import SEEDINGS, GivenArray, euclidean_d2_to, seed_indices


class KMeans(ClusterMixin, BaseEstimator):
    """k-means: partition the examples into ``n_clusters`` groups around their means.

    Objective (the *distortion*, CS229 notes §10, seed 000 L4136-4204; CIML §15.1 eq. 15.1, seed
    001 L4526-4536; EPFL notes, seed 004 L1222-1295)::

        J(c, mu) = sum_i || x_i - mu_{c_i} ||^2

    minimized by Lloyd's algorithm -- coordinate descent on ``J`` (CIML Alg. 4, seed 001
    L801-822), alternating

    * assignment: ``c_i := argmin_j ||x_i - mu_j||^2`` (ties to the lowest index);
    * update:     ``mu_j := mean of {x_i : c_i = j}``.

    Neither step can increase ``J``, so ``distortion_history_`` is non-increasing (tested). ``J``
    is not convex: each of ``n_init`` restarts runs from its own initialization and the run with
    the lowest final ``J`` is kept (CS229 L4185; CIML L4536 suggests 10).

    Stopping rule (scikit-learn's Lloyd loop): stop when the assignment no longer changes ("strict
    convergence"), or when the total squared centre movement ``sum_j ||mu_j^new - mu_j||^2`` is at
    most ``tol * mean_j Var(x_j)`` (``tol`` is relative to the data's scale), or after
    ``max_iter`` iterations (then ``ConvergenceWarning``). If the loop did not stop on an unchanged
    assignment, the examples are assigned once more to the final centres, so ``labels_`` and
    ``cluster_centers_`` are always consistent.

    Empty clusters
    --------------
    CIML's algorithm leaves them undefined (the mean of an empty set). Here, when an update finds
    a cluster with no examples, the example furthest from its own centre (among clusters with at
    least two members) is moved into it, so the empty centre lands on that example; several empty
    clusters take the next-furthest examples. This is scikit-learn's rule, and it cannot increase
    ``J``: the moved example's term drops to 0 and its old cluster's mean is recomputed without it.
    ``n_relocated_`` counts these moves over the kept run.

    Initialization (``init``)
    -------------------------
    ``"k-means++"`` (default; CIML Alg. 36), ``"random"`` (k random training examples, CS229),
    ``"furthest-first"`` (CIML §15.1), or an array-like ``(n_clusters, n_features)`` of initial
    centres (then one run is made, whatever ``n_init``; a list of lists keeps the configuration
    JSON-serializable). See :mod:`replearn.models.cluster.seeding`.

    Randomness: one ``numpy.random.Generator`` from ``random_state`` draws the seeds of all
    restarts in order; the same ``random_state`` gives the same clustering.

    Parameters
    ----------
    n_clusters : int >= 1, default 8
    init : {"k-means++", "random", "furthest-first"} or array-like, default "k-means++"
    n_init : int >= 1, default 10
    max_iter : int >= 1, default 300
    tol : float >= 0, default 1e-4
        Relative tolerance on the centre movement (see above).
    random_state : None, int or numpy Generator

    Attributes
    ----------
    cluster_centers_ : array (n_clusters, n_features)
    labels_ : int array (n_samples,)
    inertia_ : float
        ``J`` at the returned centres and labels: the sum of squared distances (scikit-learn's
        ``inertia_``); ``replearn.evaluation.clustering.distortion`` is the mean instead.
    distortion_history_ : array
        ``J(c_t, mu_{t-1})`` after each assignment step of the kept run, from the distance expansion
        the assignment uses (accurate to ``eps * sum ||x||^2``); the last entry is ``inertia_``,
        computed directly. Non-increasing.
    n_iter_ : int
        Lloyd iterations of the kept run.
    converged_ : bool
    n_relocated_ : int
    n_features_in_ : int

    Methods ``predict(X)`` (nearest centre), ``fit_predict``, ``transform(X)`` (distances to the
    centres) and ``score(X) = -J(X)`` (scikit-learn's sign: higher is better).

    scikit-learn equivalent: ``sklearn.cluster.KMeans(n_clusters, init=..., n_init=...,
    algorithm="lloyd", tol=tol, max_iter=max_iter)``; with the same given initial centres and
    ``n_init=1`` the labels, centres, inertia and iteration count are identical (tested).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "n_clusters": Interval(int, 1, None),
        "n_init": Interval(int, 1, None),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
        "init": (Options(set(SEEDINGS)), GivenArray("an array of initial centres (n_clusters, n_features)")),
    }

    def __init__(self, n_clusters=8, init="k-means++", n_init=10, max_iter=300, tol=1e-4, random_state=None):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def _given_init(self, X: np.ndarray) -> np.ndarray | None:
        """The limit that depends on the data, and ``init`` as an array of centres (None for a seeding name)."""
        if X.shape[0] < self.n_clusters:
            raise ValueError(f"n_samples={X.shape[0]} should be >= n_clusters={self.n_clusters}")
        return initial_centers_param(self.init, self.n_clusters, X.shape[1])

    def fit(self, X, y=None):
        """Run ``n_init`` restarts of Lloyd's algorithm and keep the lowest distortion; returns ``self``."""
        self._validate_params()
        X = check_array(X)
        given = self._given_init(X)
        rng = check_random_state(self.random_state)
        tol_abs = float(np.mean(np.var(X, axis=0))) * float(self.tol)
        runs = 1 if given is not None else int(self.n_init)
        best = None
        d2_to = euclidean_d2_to(X)
        for _ in range(runs):
            if given is not None:
                centers = given.copy()
            else:
                centers = X[seed_indices(self.init, X.shape[0], self.n_clusters, d2_to, rng)].copy()
            run = lloyd(X, centers, max_iter=int(self.max_iter), tol=tol_abs)
            if best is None or run["inertia"] < best["inertia"]:
                best = run
        self.cluster_centers_ = best["centers"]
        self.labels_ = best["labels"]
        self.inertia_ = best["inertia"]
        self.distortion_history_ = best["history"]
        self.n_iter_ = best["n_iter"]
        self.converged_ = best["converged"]
        self.n_relocated_ = best["n_relocated"]
        self.n_features_in_ = X.shape[1]
        if not self.converged_:
            warnings.warn(
                f"KMeans stopped at max_iter={self.max_iter} before the centres settled; increase max_iter or tol",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def _check(self, X) -> np.ndarray:
        check_is_fitted(self, "cluster_centers_")
        X = check_array(X)
        check_n_features(self, X)
        return X

    def predict(self, X) -> np.ndarray:
        """Index of the nearest centre for each row of ``X``."""
        X = self._check(X)
        return assign(X, self.cluster_centers_)

    def transform(self, X) -> np.ndarray:
        """Euclidean distances from each row of ``X`` to each centre, shape (n, n_clusters)."""
        X = self._check(X)
        diff = X[:, None, :] - self.cluster_centers_[None, :, :]
        return np.sqrt(np.einsum("nkd,nkd->nk", diff, diff))

    def score(self, X, y=None) -> float:
        """``-J`` on ``X``: minus the sum of squared distances to the nearest centres."""
        X = self._check(X)
        labels = assign(X, self.cluster_centers_)
        return -sum_sq_distances(X, self.cluster_centers_, labels)


# -- Lloyd's algorithm -------------------------------------------------------------------------------
def initial_centers_param(init, n_clusters: int, n_features: int) -> np.ndarray | None:
    """Validate ``init``: ``None`` for a seeding method name, else the given centres as an array."""
    if isinstance(init, str):
        if init not in SEEDINGS:
            raise ValueError(f"init must be one of {list(SEEDINGS)} or an array of initial centres, got {init!r}")
        return None
    centers = check_array(init, name="init")
    if centers.shape != (n_clusters, n_features):
        raise ValueError(
            f"init has shape {centers.shape}; the initial centres must have shape "
            f"(n_clusters, n_features) = ({n_clusters}, {n_features})"
        )
    return centers.copy()


def assign(X: np.ndarray, centers: np.ndarray, *, with_distances: bool = False, x_sq: np.ndarray | None = None):
    """Nearest centre of each row: ``argmin_j ||c_j||^2 - 2 x.c_j`` (one GEMM; ties to the lowest j).

    With ``with_distances`` also returns ``||x - c_label||^2`` from the same expansion (plus
    ``||x||^2``, clipped at 0): accurate to ``eps * (||x||^2 + ||c||^2)``, which is what the
    iteration needs; exact distances are recomputed where they are reported (``inertia_``).
    """
    scores = X @ (-2.0 * centers).T
    c_sq = np.einsum("ij,ij->i", centers, centers)
    if x_sq is None:
        x_sq = np.einsum("ij,ij->i", X, X) if with_distances else np.zeros(X.shape[0])
    labels = np.empty(X.shape[0], dtype=np.intp)
    d2 = np.empty(X.shape[0])
    nearest_from_scores(scores, c_sq, x_sq, labels, d2)  # argmin and distances in one pass (compiled)
    return (labels, d2) if with_distances else labels


def sum_sq_distances(X: np.ndarray, centers: np.ndarray, labels: np.ndarray) -> float:
    """``sum_i ||x_i - mu_{c_i}||^2``, computed directly (exact; no cancellation)."""
    return float(
        sum_sq_to_centers(
            np.ascontiguousarray(X, dtype=np.float64),
            np.ascontiguousarray(centers, dtype=np.float64),
            np.ascontiguousarray(labels, dtype=np.intp),
        )
    )


def relocate_empty(labels: np.ndarray, d2: np.ndarray, n_clusters: int) -> tuple[np.ndarray, int]:
    """Labels with every empty cluster given the example furthest from its centre.

    Candidates come from clusters with at least two members (so no cluster is emptied), furthest
    first (ties to the lowest index). Returns the new labels (a copy when anything moved) and
    the number of moves.
    """
    counts = np.bincount(labels, minlength=n_clusters)
    empty = np.flatnonzero(counts == 0)
    if empty.size == 0:
        return labels, 0
    labels = labels.copy()
    moved = 0
    for i in np.argsort(-d2, kind="stable"):
        if moved == empty.size:
            break
        if counts[labels[i]] > 1:
            counts[labels[i]] -= 1
            labels[i] = empty[moved]
            counts[empty[moved]] = 1
            moved += 1
    return labels, moved


def cluster_means(X: np.ndarray, labels: np.ndarray, n_clusters: int) -> np.ndarray:
    """Mean of the rows of each cluster (every cluster must be non-empty).

    Sums in one pass over the examples (compiled; :mod:`._kernels`).
    """
    sums, counts = cluster_sums(np.ascontiguousarray(X), np.ascontiguousarray(labels, dtype=np.intp), n_clusters)
    return sums / counts[:, None]


def lloyd(X: np.ndarray, centers: np.ndarray, *, max_iter: int, tol: float) -> dict:
    """One run of Lloyd's algorithm from ``centers`` (absolute tolerance ``tol``); see :class:`KMeans`."""
    k = centers.shape[0]
    labels_old = np.full(X.shape[0], -1)
    history: list[float] = []
    strict = converged = False
    n_relocated = 0
    n_iter = 0
    x_sq = np.einsum("ij,ij->i", X, X)
    for it in range(1, max_iter + 1):
        n_iter = it
        labels, d2 = assign(X, centers, with_distances=True, x_sq=x_sq)
        history.append(float(d2.sum()))
        labels_for_means, moved = relocate_empty(labels, d2, k)
        n_relocated += moved
        new_centers = cluster_means(X, labels_for_means, k)
        shift = float(np.sum((new_centers - centers) ** 2))
        centers = new_centers
        if np.array_equal(labels, labels_old):
            strict = converged = True
            break
        if shift <= tol:
            converged = True
            break
        labels_old = labels
    if not strict:
        labels = assign(X, centers)
    inertia = sum_sq_distances(X, centers, labels)  # exact, where the loop used the expansion
    if strict:
        history[-1] = inertia
    else:
        history.append(inertia)
    return {
        "centers": centers,
        "labels": labels,
        "inertia": inertia,
        "history": np.asarray(history),
        "n_iter": n_iter,
        "converged": converged,
        "n_relocated": n_relocated,
    }
