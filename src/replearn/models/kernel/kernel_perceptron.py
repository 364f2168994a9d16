"""The kernelized perceptron (CIML Alg. 30)."""

from __future__ import annotations

import warnings

import numpy as np

from ..._constraints import Boolean, Interval
from ...base import BaseEstimator, ClassifierMixin
from ...exceptions import ConvergenceWarning
from ...validation import check_classification_targets, check_random_state, check_X_y
from ._common import KERNEL_CONSTRAINTS, KernelMixin


class KernelPerceptron(KernelMixin, ClassifierMixin, BaseEstimator):
    """Perceptron in dual form: w = sum_n alpha_n phi(x_n) is never formed.

    CIML §11.2 Alg. 30 KernelizedPerceptronTrain, seed 001 L3683-3703 (representer theorem,
    Thm. 12, L3679; the kernel perceptron is also named in CS229 notes §5.4, seed 000 L1946)::

        a = sum_m alpha_m K(x_m, x_n) + b
        if y_n a <= 0:  alpha_n <- alpha_n + y_n,  b <- b + y_n

    for n over the training data, ``max_iter`` passes (the mistake test is ``<= 0``, CIML L1010, so
    the all-zero start makes the first example a mistake). ``shuffle=True`` visits the examples in a
    new random order every pass (CIML L1039: fewer passes in practice); a pass with no mistake ends
    training. Prediction: sign(sum_m alpha_m K(x_m, x) + b).

    More than two classes: one-vs-rest, all binary perceptrons trained in the same pass (each
    updates only on its own mistakes); predict the class with the largest score. With the linear
    kernel the model is exactly the primal perceptron w = sum_n alpha_n x_n (tests check this against
    scikit-learn's ``Perceptron(eta0=1, alpha=0, shuffle=False)``).

    Parameters
    ----------
    kernel, gamma, degree, coef0 : see :mod:`replearn.kernels`.
    max_iter : int, passes over the data (early stopping; CIML Fig. 4.3).
    shuffle : bool; random_state : seed of the pass orders.

    Attributes
    ----------
    dual_coef_ : (n_SV, n_problems) alpha (signed mistake counts) of the support vectors;
    support_vectors_ : training rows with alpha != 0; intercept_ : (n_problems,) b;
    n_iter_ : passes run; loss_history_ : mistakes per pass (summed over problems); classes_.
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {**KERNEL_CONSTRAINTS, "max_iter": Interval(int, 1, None), "shuffle": Boolean()}

    def __init__(self, kernel="rbf", gamma=None, degree=3, coef0=1.0, max_iter=20, shuffle=True, random_state=None):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    def fit(self, X, y):
        """Run the kernel perceptron for up to ``max_iter`` passes; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, estimator=self)
        classes = check_classification_targets(y)
        rng = check_random_state(self.random_state)
        self._resolve_kernel(X)
        codes = np.searchsorted(classes, y)
        if classes.size == 2:
            Y = np.where(codes == 1, 1.0, -1.0)[:, None]
        else:
            Y = np.where(codes[:, None] == np.arange(classes.size), 1.0, -1.0)
        n, k = Y.shape
        K = self._kernel(X, X)
        alpha = np.zeros((n, k))
        b = np.zeros(k)
        history = []
        epoch = 0
        for it in range(1, self.max_iter + 1):
            epoch = it
            mistakes = 0
            order = rng.permutation(n) if self.shuffle else range(n)
            for i in order:
                a = K[i] @ alpha + b  # all k problems at once
                wrong = Y[i] * a <= 0.0
                if wrong.any():
                    step = Y[i] * wrong
                    alpha[i] += step
                    b += step
                    mistakes += int(wrong.sum())
            history.append(mistakes)
            if mistakes == 0:
                break
        else:  # every pass made a mistake
            if history[-1] > 0:
                warnings.warn(
                    f"the kernel perceptron still made {history[-1]} mistake(s) in pass {self.max_iter} "
                    "(max_iter); the data may not be separable with this kernel",
                    ConvergenceWarning,
                    stacklevel=2,
                )
        sv = np.flatnonzero(np.any(alpha != 0.0, axis=1))
        self.support_ = sv
        self.support_vectors_ = X[sv].copy()
        self.dual_coef_ = alpha[sv]
        self.intercept_ = b
        self.loss_history_ = np.asarray(history, dtype=np.float64)
        self.n_iter_ = int(epoch)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X) -> np.ndarray:
        """sum_m alpha_m K(x_m, x) + b: (n,) for two classes (positive = ``classes_[1]``), else (n, n_classes)."""
        X = self._validate_predict_input(X)
        s = self._kernel(X, self.support_vectors_) @ self.dual_coef_ + self.intercept_
        return s[:, 0] if s.shape[1] == 1 else s

    def predict(self, X):
        s = self.decision_function(X)
        if s.ndim == 1:
            return self.classes_[(s > 0).astype(np.intp)]
        return self.classes_[np.argmax(s, axis=1)]
