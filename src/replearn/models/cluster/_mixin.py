"""What every clusterer shares: its estimator type, its task and ``fit_predict``."""

from __future__ import annotations


class ClusterMixin:
    """Mixin for clusterers: ``_estimator_type = "clusterer"``, task ``"clustering"``.

    A clusterer's ``fit(X, y=None)`` ignores ``y`` (it is accepted so that pipelines can pass
    it), sets ``labels_`` for the training examples, and ``predict(X)`` returns integer cluster
    indices ``0 .. n_clusters - 1`` for new examples.
    """

    _estimator_type = "clusterer"
    _tasks = ("clustering",)

    def fit_predict(self, X, y=None):
        """Fit on ``X`` and return the cluster index of each training example (``labels_``)."""
        return self.fit(X, y).labels_
