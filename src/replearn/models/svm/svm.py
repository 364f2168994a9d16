"""Kernel support vector machine (soft margin, any kernel), trained by SMO."""

from __future__ import annotations

import warnings

import numpy as np

from ..._constraints import Interval
from ...base import BaseEstimator, ClassifierMixin
from ...exceptions import ConvergenceWarning
from ...kernels import kernel_matrix, resolve_kernel_params
from ...validation import check_classification_targets, check_X_y
from ..kernel._common import KERNEL_CONSTRAINTS
from .smo import CachedRows, smo


class SVM(ClassifierMixin, BaseEstimator):
    """Soft-margin support vector machine with a kernel, trained by SMO.

    Primal (CS229 notes §6.7, seed 000 L2325-2377; CIML §7.7 eq. 7.38/7.48, seed 001 L2554-2634;
    CS480/680 §6, seed 003 L509-614)::

        min_{w, b, xi}  1/2 ||w||^2 + C sum_i xi_i   s.t.  y_i (w . phi(x_i) + b) >= 1 - xi_i,  xi_i >= 0

    and its dual (CS229 §6.6-6.7 L2245-2377; CIML eq. 11.38 L3816-3918; seed 003 eq. 6.b)::

        max_a  W(a) = sum_i a_i - 1/2 sum_ij a_i a_j y_i y_j K(x_i, x_j)   s.t.  0 <= a_i <= C,  sum_i a_i y_i = 0,

    solved by SMO with LIBSVM's second-order working-set selection (see :mod:`.smo`). The decision
    function is f(x) = sum_i a_i y_i K(x_i, x) + b over the support vectors (a_i > 0); the bias b is
    averaged over the free support vectors 0 < a_i < C (the notes give no soft-margin b, erratum
    L2367). ``C=float("inf")`` is the hard-margin SVM (separable data only).

    Parameters
    ----------
    C : float > 0 or inf
        Cost of a unit of slack (scikit-learn's ``C``; CIML's lambda of the hinge form is 1/C).
    kernel : {"rbf", "linear", "polynomial", "laplace"}
        See :mod:`replearn.kernels`.
    gamma : float > 0 or None
        Kernel width; None is 1/(n_features * X.var()) for rbf/laplace (scikit-learn's "scale") and 1
        for the polynomial kernel (gamma x.z + coef0)^degree.
    degree, coef0 : polynomial kernel parameters (scikit-learn's default coef0 is 0, ours is 1 as in
        CIML eq. 11.13 and CS229's (x.z + c)^d).
    tol : float > 0
        KKT tolerance: stop when max_{I_up} -y G - min_{I_low} -y G < tol (scikit-learn's ``tol``).
    max_iter : int or None
        SMO iterations per binary problem; None is max(100000, 100 n). Reaching it warns.
    cache_size : float
        Megabytes for the kernel-row cache: SMO computes kernel rows k(x_i, X) on demand (one
        matrix-vector product each) and keeps the most recently used ones (LIBSVM's design; the whole
        matrix is cached when it fits).

    More than two classes: one-vs-one (like scikit-learn's ``SVC``): one binary SVM for each pair of
    classes (i < j) on their examples, labels +1 for class j and -1 for class i; ``predict`` takes
    the class with the most pairwise wins (ties: the smaller class), ``decision_function`` returns
    scikit-learn's "ovr" scores (votes plus a bounded sum of confidences).

    Attributes
    ----------
    classes_ : labels; support_ : indices of the support vectors in the training data (sorted);
    support_vectors_ : their rows; n_support_ : support vectors per class;
    dual_coef_ : (n_pairs, n_SV) a_i y_i of each pairwise problem (0 where a vector is not used),
    intercept_ : (n_pairs,) biases b; dual_objective_ : (n_pairs,) W(a) at the solution;
    n_iter_ : (n_pairs,) SMO iterations; loss_history_ : W(a) after each iteration (first pair);
    gamma_, degree_, coef0_ : the resolved kernel parameters (0 where the kernel has none).

    scikit-learn equivalent: ``SVC(C, kernel, gamma, degree, coef0, tol)`` with
    ``kernel="poly"`` for "polynomial"; the dual coefficients and decision function agree to the
    tolerance of the solvers (tests compare them).
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "C": Interval(float, 0.0, None, closed="neither", allow_inf=True),
        **KERNEL_CONSTRAINTS,
        "tol": Interval(float, 0.0, None, closed="neither"),
        "max_iter": (None, Interval(int, 1, None)),
        "cache_size": Interval(float, 0.0, None, closed="neither"),
    }

    def __init__(self, C=1.0, kernel="rbf", gamma=None, degree=3, coef0=1.0, tol=1e-3, max_iter=None, cache_size=512.0):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.cache_size = cache_size

    # -- fitting ----------------------------------------------------------------------------------
    def fit(self, X, y):
        """Solve one SMO problem per pair of classes; returns ``self``."""
        self._validate_params()
        C = float(self.C)
        X, y = check_X_y(X, y)
        classes = check_classification_targets(y)
        params = resolve_kernel_params(self.kernel, self.gamma, self.degree, self.coef0, X)
        codes = np.searchsorted(classes, y)
        n = X.shape[0]

        pairs = [(a, b) for a in range(classes.size) for b in range(a + 1, classes.size)]
        results, members = [], []
        for a, b in pairs:
            idx = np.flatnonzero((codes == a) | (codes == b))
            yy = np.where(codes[idx] == b, 1.0, -1.0)
            rows = CachedRows(X[idx], self.kernel, params, int(self.cache_size * 2**20))
            max_iter = self.max_iter if self.max_iter is not None else max(100_000, 100 * idx.size)
            res = smo(rows, yy, C, float(self.tol), int(max_iter))
            if not res.converged:
                warnings.warn(
                    f"SMO reached max_iter={max_iter} before the KKT conditions held to tol={self.tol} "
                    f"(violation {res.gap:.3g}) for classes {classes[a]!r} vs {classes[b]!r}; raise max_iter, "
                    "or lower C (C=inf needs separable data)",
                    ConvergenceWarning,
                    stacklevel=2,
                )
            results.append((res, yy))
            members.append(idx)

        sv_mask = np.zeros(n, dtype=bool)
        for (res, _), idx in zip(results, members):
            sv_mask[idx[res.alpha > 0]] = True
        self.support_ = np.flatnonzero(sv_mask)
        self.support_vectors_ = X[self.support_].copy()
        self.n_support_ = np.bincount(codes[self.support_], minlength=classes.size).astype(np.int64)
        position = np.full(n, -1)
        position[self.support_] = np.arange(self.support_.size)
        self.dual_coef_ = np.zeros((len(pairs), self.support_.size))
        for p, ((res, yy), idx) in enumerate(zip(results, members)):
            on = res.alpha > 0
            self.dual_coef_[p, position[idx[on]]] = res.alpha[on] * yy[on]
        self.intercept_ = np.array([res.b for res, _ in results])
        self.dual_objective_ = np.array([res.objective for res, _ in results])
        self.n_iter_ = np.array([res.n_iter for res, _ in results], dtype=np.int64)
        self.loss_history_ = np.asarray(results[0][0].history, dtype=np.float64)
        self.classes_ = classes
        self.gamma_ = float(params.get("gamma", 0.0))
        self.degree_ = int(params.get("degree", 0))
        self.coef0_ = float(params.get("coef0", 0.0))
        self.n_features_in_ = X.shape[1]
        return self

    def _kernel_params(self) -> dict:
        return {"gamma": self.gamma_, "degree": self.degree_, "coef0": self.coef0_}

    # -- prediction -------------------------------------------------------------------------------
    def pairwise_decision_function(self, X) -> np.ndarray:
        """f_ij(x) for every pair i < j, shape (n, n_pairs); positive means class j."""
        X = self._validate_predict_input(X)
        K = kernel_matrix(X, self.support_vectors_, self.kernel, **self._kernel_params())
        return K @ self.dual_coef_.T + self.intercept_

    def decision_function(self, X) -> np.ndarray:
        """Binary: f(x) (positive = ``classes_[1]``), shape (n,). More classes: (n, n_classes) votes
        plus sum-of-confidences / (3 (|sum| + 1)), scikit-learn's ``decision_function_shape="ovr"``."""
        dec = self.pairwise_decision_function(X)
        if self.classes_.size == 2:
            return dec[:, 0]
        votes, conf = self._votes(dec)
        return votes + conf / (3.0 * (np.abs(conf) + 1.0))

    def _votes(self, dec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = self.classes_.size
        votes = np.zeros((dec.shape[0], k))
        conf = np.zeros((dec.shape[0], k))
        p = 0
        for a in range(k):
            for b in range(a + 1, k):
                wins_b = dec[:, p] > 0
                votes[:, b] += wins_b
                votes[:, a] += ~wins_b
                conf[:, b] += dec[:, p]
                conf[:, a] -= dec[:, p]
                p += 1
        return votes, conf

    def predict(self, X):
        """Sign of f (binary) or the class with most one-vs-one wins (ties: the smaller class)."""
        dec = self.pairwise_decision_function(X)
        if self.classes_.size == 2:
            return self.classes_[(dec[:, 0] > 0).astype(np.intp)]
        votes, _ = self._votes(dec)
        return self.classes_[np.argmax(votes, axis=1)]
