"""Shared plumbing of the kernel machines: kernel hyperparameters and targets for either task."""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval, Options
from ...base import TaskMixin as _BaseTaskMixin
from ...exceptions import NotFittedError
from ...kernels import KERNELS, kernel_matrix, resolve_kernel_params
from ...validation import check_classification_targets

#: the constraints of the kernel hyperparameters (replearn._constraints), shared by every kernel machine;
#: ``gamma=None`` is resolved from the data at fit time (:func:`replearn.kernels.resolve_kernel_params`)
KERNEL_CONSTRAINTS = {
    "kernel": Options(set(KERNELS)),
    "gamma": (None, Interval(float, 0.0, None, closed="neither")),
    "degree": Interval(int, 1, None),
    "coef0": Interval(float, 0.0, None),
}
TASK_CONSTRAINT = Options({"classification", "regression"})


class KernelMixin:
    """``kernel``, ``gamma``, ``degree``, ``coef0`` hyperparameters resolved at fit time into
    ``gamma_``, ``degree_``, ``coef0_`` (floats and ints, so the model can be saved)."""

    def _resolve_kernel(self, X: np.ndarray) -> None:
        params = resolve_kernel_params(self.kernel, self.gamma, self.degree, self.coef0, X)
        self.gamma_ = float(params.get("gamma", 0.0))
        self.degree_ = int(params.get("degree", 0))
        self.coef0_ = float(params.get("coef0", 0.0))

    def _kernel(self, X: np.ndarray, Z: np.ndarray) -> np.ndarray:
        return kernel_matrix(X, Z, self.kernel, gamma=self.gamma_, degree=self.degree_, coef0=self.coef0_)


class TaskMixin(_BaseTaskMixin):
    """One class for both tasks, like ``knn``: ``_estimator_type`` follows the ``task`` hyperparameter.

    Classification regresses (or, for the perceptron, classifies) one-vs-rest on targets in
    {-1, +1}: one column for two classes (+1 = ``classes_[1]``), one per class otherwise.
    """

    def _encode_targets(self, y: np.ndarray) -> np.ndarray:
        """Targets as an (n, k) float matrix; sets ``classes_`` for classification."""
        if self.task == "regression":
            self.__dict__.pop("classes_", None)
            return np.asarray(y, dtype=np.float64)[:, None]
        self.classes_ = check_classification_targets(y)
        codes = np.searchsorted(self.classes_, y)
        if self.classes_.size == 2:
            return np.where(codes == 1, 1.0, -1.0)[:, None]
        return np.where(codes[:, None] == np.arange(self.classes_.size), 1.0, -1.0)

    def _scores_to_output(self, scores: np.ndarray) -> np.ndarray:
        if self.task == "regression":
            return scores[:, 0]
        if self.classes_.size == 2:
            return self.classes_[(scores[:, 0] > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    def _require_classification(self, method: str) -> None:
        if self.task != "classification":
            raise AttributeError(
                f"{method} is only available with task='classification', this model has task={self.task!r}"
            )
        if "classes_" not in vars(self) and "n_features_in_" in vars(self):
            raise NotFittedError(
                f"this {type(self).__name__} was fitted with task='regression'; refit it for classification"
            )
