"""k-nearest neighbours for classification and regression (brute force, Euclidean)."""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval, Options
from ...base import BaseEstimator, TaskMixin
from ...exceptions import NotFittedError
from ...linalg import sq_euclidean_chunks
from ...validation import check_classification_targets, check_X_y, dense

_WEIGHTS = ("distance", "uniform")


class KNearestNeighbors(TaskMixin, BaseEstimator):
    """k-NN: predict from the ``n_neighbors`` training points closest to the query (Euclidean).

    CIML §3.2 Alg. 3 KNN-Predict (seed 001 L692-710): sort the training points by their distance
    to the query (eq. 3.1, L643) and vote among the K closest (the book sums ±1 labels and takes
    the sign; this is the multiclass majority vote). Regression averages the neighbours' targets
    (EPFL notes L966-970, seed 004). All features count equally, so scale them first (CIML
    L714-720).

    * ``weights="uniform"``: every neighbour has weight 1.
    * ``weights="distance"``: weight ``1 / distance``; when a query coincides with one or more
      training points (distance 0), those points share all the weight and the others get none
      (scikit-learn's rule).

    Implementation: squared distances by the BLAS identity ``||a||^2 - 2 a.b + ||b||^2`` in row
    chunks (:func:`replearn.linalg.sq_euclidean_chunks`), an exact K-smallest selection per row
    (a threshold filter followed by a sort of the few candidates, see :func:`_k_smallest`); then
    the K distances are recomputed directly (so exact matches give exactly 0) and sorted.
    Ties are broken deterministically:

    * equal distances: the training point with the smaller index comes first, also at the K-th
      place (which of several equidistant points makes it into the K is decided by index);
    * equal votes (classification): the class that comes first in ``classes_`` wins.

    Parameters
    ----------
    n_neighbors : int >= 1, default 5
        K; must not exceed the number of training samples. Odd K avoids binary vote ties (CIML L684).
    weights : {"uniform", "distance"}, default "uniform"
    task : {"classification", "regression"}, default "classification"

    Attributes
    ----------
    X_fit_ : array (n_samples, n_features)
        A copy of the training inputs.
    y_fit_ : array (n_samples,)
        Training targets: class indices into ``classes_`` (classification) or floats (regression).
    classes_ : array (n_classes,)
        Sorted class labels (classification only).
    n_features_in_ : int

    scikit-learn equivalent: ``KNeighborsClassifier`` / ``KNeighborsRegressor`` with
    ``algorithm="brute"`` and the same ``n_neighbors`` and ``weights``.
    """

    _accept_sparse = True  # densified: distances are computed on dense arrays

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "n_neighbors": Interval(int, 1, None),
        "weights": Options({"uniform", "distance"}),
        "task": Options({"classification", "regression"}),
    }

    def __init__(self, n_neighbors=5, weights="uniform", task="classification"):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.task = task

    # -- fitting ----------------------------------------------------------------------------------
    def fit(self, X, y):
        """Store the training data (k-NN is non-parametric); returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=self.task == "regression", estimator=self)
        X = dense(X)
        if self.n_neighbors > X.shape[0]:
            raise ValueError(
                f"n_neighbors={self.n_neighbors} is larger than the number of training samples "
                f"({X.shape[0]}); use at most {X.shape[0]} neighbours"
            )
        if self.task == "classification":
            self.classes_ = check_classification_targets(y)
            self.y_fit_ = np.searchsorted(self.classes_, y).astype(np.int64)
        else:
            self.__dict__.pop("classes_", None)
            self.y_fit_ = np.array(y, dtype=np.float64)
        self.X_fit_ = np.array(X, dtype=np.float64, copy=True)
        self.n_features_in_ = X.shape[1]
        return self

    # -- neighbours -------------------------------------------------------------------------------
    def kneighbors(self, X):
        """Distances and indices of the ``n_neighbors`` nearest training points, nearest first.

        Returns ``(distances, indices)``, both of shape ``(n_queries, n_neighbors)``.
        """
        X = dense(self._validate_predict_input(X))
        k = int(self.n_neighbors)
        n_fit = self.X_fit_.shape[0]
        if k > n_fit:
            raise ValueError(f"n_neighbors={k} is larger than the number of training samples ({n_fit})")
        dist = np.empty((X.shape[0], k))
        ind = np.empty((X.shape[0], k), dtype=np.intp)

        for start, stop, D in sq_euclidean_chunks(X, self.X_fit_, clip=False):
            idx = _k_smallest(D, k)
            # exact distances of the K kept points (the GEMM identity loses accuracy near 0)
            diff = X[start:stop, None, :] - self.X_fit_[idx]
            d_exact = np.sqrt(np.einsum("mkj,mkj->mk", diff, diff))
            order = np.lexsort((idx, d_exact), axis=-1)  # by distance, then training index
            dist[start:stop] = np.take_along_axis(d_exact, order, axis=1)
            ind[start:stop] = np.take_along_axis(idx, order, axis=1)
        return dist, ind

    def loo_errors(self, X, y, max_k=None) -> np.ndarray:
        """Leave-one-out error of this model's settings for every K = 1..max_k on ``(X, y)``.

        CIML Alg. 9 (corrected), see :func:`replearn.models.neighbors.loo.loo_errors`: one sort per
        example gives the LOO error for all K at once. Entry K - 1 is the error rate
        (classification) or mean squared error (regression) of ``n_neighbors=K``; ``weights`` and
        ``task`` are this model's. Does not fit or change the model.
        """
        from .loo import loo_errors

        self._validate_params()
        return loo_errors(X, y, max_k=max_k, weights=self.weights, task=self.task)

    def _neighbor_weights(self, dist: np.ndarray) -> np.ndarray:
        if self.weights == "uniform":
            return np.ones_like(dist)
        exact = dist == 0.0
        with np.errstate(divide="ignore"):
            w = 1.0 / dist
        rows = exact.any(axis=1)
        w[rows] = exact[rows].astype(np.float64)
        return w

    # -- prediction -------------------------------------------------------------------------------
    def predict_proba(self, X):
        """Weighted share of each class among the neighbours, shape (n, n_classes)."""
        self._require_task("classification", "predict_proba")
        dist, ind = self.kneighbors(X)
        w = self._neighbor_weights(dist)
        m, n_classes = dist.shape[0], self.classes_.size
        flat = (np.arange(m)[:, None] * n_classes + self.y_fit_[ind]).ravel()
        votes = np.bincount(flat, weights=w.ravel(), minlength=m * n_classes).reshape(m, n_classes)
        return votes / votes.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Majority (weighted) class, or the (weighted) mean target for regression."""
        if self.task == "classification":
            proba = self.predict_proba(X)
            return self.classes_[np.argmax(proba, axis=1)]  # ties: first class in classes_
        self._require_task("regression", "predict")
        dist, ind = self.kneighbors(X)
        y_nb = self.y_fit_[ind]
        if self.weights == "uniform":
            return y_nb.mean(axis=1)
        w = self._neighbor_weights(dist)
        return np.sum(y_nb * w, axis=1) / np.sum(w, axis=1)

    def _require_task(self, task: str, method: str) -> None:
        if self.task != task:
            raise AttributeError(f"{method} is only available with task={task!r}, this model has task={self.task!r}")
        if task == "classification" and "y_fit_" in vars(self) and "classes_" not in vars(self):
            raise NotFittedError(
                "this KNearestNeighbors was fitted with task='regression'; refit it for classification"
            )


def _k_smallest(D: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the k smallest entries of each row of ``D``, in increasing order of value;
    equal values go to the smaller index (the same as ``np.argsort(D, kind="stable")[:, :k]``).

    A full ``argpartition`` of every row is the bottleneck of brute-force k-NN, so the rows are
    first filtered: the k-th smallest entry of a strided subsample of the columns is an upper bound
    ``t`` on the row's k-th smallest entry, so the k smallest entries are among those ``<= t``
    (usually a few dozen). Those candidates are sorted by (row, value, column) and the first k of
    each row are kept: an exact selection with deterministic tie-breaking.
    """
    m, n = D.shape
    if k >= n:
        return np.argsort(D, axis=1, kind="stable")
    step = max(n // max(64 * k, 1024), 1)
    threshold = np.partition(D[:, ::step], k - 1, axis=1)[:, k - 1]
    flat = np.flatnonzero(D <= threshold[:, None])
    rows = flat // n
    cols = flat - rows * n
    counts = np.bincount(rows, minlength=m)
    if counts.min() < k:  # only with NaN distances (overflowing inputs): plain stable sort
        return np.argsort(D, axis=1, kind="stable")[:, :k]
    # flat indices come in row-major order, so within a row the columns are already ascending;
    # lexsort is stable, so sorting by (row, value) keeps equal values in column order
    order = np.lexsort((D.ravel()[flat], rows))
    starts = np.cumsum(counts) - counts
    return cols[order[starts[:, None] + np.arange(k)]]
