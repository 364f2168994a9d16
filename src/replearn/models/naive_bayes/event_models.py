"""Naive Bayes with the Bernoulli, multinomial, categorical and Gaussian event models."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..._constraints import Boolean, Interval, Options, RealArray
from ..._jit import jit_available
from ...base import BaseEstimator, ClassifierMixin
from ...validation import check_classification_targets, check_X_y, dense
from ..cluster._kernels import cluster_sums
from .gaussian import GaussianNaiveBayes

_EVENT_MODELS = ("bernoulli", "categorical", "gaussian", "multinomial")


class NaiveBayes(ClassifierMixin, BaseEstimator):
    """Naive Bayes: features conditionally independent given the class, Bayes' rule for prediction.

    ``argmax_k log p(y = k) + sum_j log p(x_j | y = k)`` (CS229 notes §4.2, seed 000 L1351-1531;
    CIML §9.3-9.5, seed 001 L3022-3137; CS229 summaries §5.2, seed 002 L944-1145). Posteriors are
    normalized in log space (log-sum-exp after subtracting the row maximum), so long documents do
    not underflow. Event models and their smoothed estimates (``alpha`` = additive / Laplace
    smoothing, L1421-1477; ``alpha = 1`` is the notes' add-one rule; ``alpha = 0`` is the MLE)::

        "bernoulli"   x_j in {0, 1} (word present):   phi_{j|k} = (N_{jk} + alpha) / (N_k + 2 alpha)
                      log p(x | k) = sum_j x_j log phi_{j|k} + (1 - x_j) log(1 - phi_{j|k})
                      (CS229 §4.2 multivariate-Bernoulli model, L1351-1408; CIML eqs. 9.20-9.28)
        "multinomial" x_j = count of word j:
                      phi_{j|k} = (sum_{i in k} x_ij + alpha) / (sum_{i in k} sum_j x_ij + alpha d)
                      log p(x | k) = sum_j x_j log phi_{j|k}   (+ the multinomial coefficient, the
                      same for every class and omitted) (CS229 §4.2.2 multinomial event model,
                      L1479-1531, on bag-of-words counts; Laplace: (1 + .)/(|V| + .))
        "categorical" x_j in {0, ..., V_j - 1}:       phi_{v|j,k} = (N_{jvk} + alpha) / (N_k + alpha V_j)
                      (CS229 §4.2 with discretized features, L1410-1419; seed 002 §5.2.4)
        "gaussian"    x_j | k ~ N(theta_jk, var_jk) -- exactly ``gaussian_naive_bayes``
                      (:class:`~replearn.models.naive_bayes.gaussian.GaussianNaiveBayes`)

    ``N_k`` is the number of class-k examples and ``N_{jk}`` the number with ``x_j = 1``. Class
    priors: ``phi_y = N_k / n`` (``fit_prior=True``; not smoothed, as in the notes), uniform
    (``fit_prior=False``) or ``class_prior``. ``"bernoulli"`` first binarizes ``x_j > binarize``
    (``binarize=None``: the data must already be 0/1). ``"multinomial"`` needs non-negative counts,
    ``"categorical"`` non-negative integer codes; ``V_j`` is one plus the largest code seen in
    training, and a larger code at prediction time is an unseen category with count 0 (the
    smoothed probability ``alpha / (N_k + alpha V_j)``; with ``alpha = 0`` it rules the class out).

    Without smoothing a word never seen with either class gives ``0/0`` (CS229 L1427-1447, where
    "x_3500" is a typo for x_35000); with ``alpha > 0`` every probability is positive.

    Parameters
    ----------
    event_model : {"bernoulli", "multinomial", "categorical", "gaussian"}, default "bernoulli"
    alpha : float >= 0, default 1.0
        Additive (Laplace) smoothing; unused by "gaussian".
    fit_prior : bool, default True
    class_prior : array-like (n_classes,), optional
    binarize : float or None, default 0.0
        Threshold of "bernoulli".
    var_smoothing : float >= 0, default 1e-9
        For "gaussian" (see ``gaussian_naive_bayes``).

    Attributes
    ----------
    classes_, class_count_, class_log_prior_ : arrays (K,)
    feature_log_prob_ : array
        (K, d) log phi_{j|k} for bernoulli/multinomial; (K, d, V_max + 1) log phi_{v|j,k} for
        categorical (entries ``v >= V_j`` hold the unseen-category value); absent for gaussian.
    n_categories_ : int array (d,) -- categorical only
    theta_, var_, epsilon_ -- gaussian only
    n_features_in_ : int

    scikit-learn equivalents (same estimates and posteriors): ``BernoulliNB(alpha, binarize,
    fit_prior, class_prior)``, ``MultinomialNB(alpha, ...)``, ``CategoricalNB(alpha, ...)``,
    ``GaussianNB(var_smoothing)`` (``force_alpha=True`` for alpha below 1e-10).
    """

    _accept_sparse = True  # bernoulli / multinomial stay sparse (bag-of-words); the others densify

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints);
    #: ``class_prior`` is checked against the classes of ``y`` in fit
    _constraints = {
        "event_model": Options(set(_EVENT_MODELS)),
        "alpha": Interval(float, 0.0, None),
        "fit_prior": Boolean(),
        "binarize": (None, Interval(float)),
        "var_smoothing": Interval(float, 0.0, None),
        "class_prior": (None, RealArray(lo=0.0)),
    }

    def __init__(
        self, event_model="bernoulli", alpha=1.0, fit_prior=True, class_prior=None, binarize=0.0, var_smoothing=1e-9
    ):
        self.event_model = event_model
        self.alpha = alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.binarize = binarize
        self.var_smoothing = var_smoothing

    # -- fitting -----------------------------------------------------------------------------------
    def fit(self, X, y):
        """Estimate the class priors and the per-class feature distributions; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, estimator=self)
        if self.event_model in ("gaussian", "categorical"):
            X = dense(X)
        classes = check_classification_targets(y)
        d = X.shape[1]
        K = classes.size
        codes = np.searchsorted(classes, y)
        counts = np.bincount(codes, minlength=K).astype(np.float64)
        self.classes_ = classes
        self.class_count_ = counts
        self.class_log_prior_ = self._log_prior(counts)
        self.n_features_in_ = d
        if self.event_model == "gaussian":
            g = GaussianNaiveBayes(var_smoothing=self.var_smoothing, priors=np.exp(self.class_log_prior_)).fit(X, y)
            self.theta_, self.var_, self.epsilon_ = g.theta_, g.var_, g.epsilon_
            return self
        X = self._prepare(X)
        alpha = float(self.alpha)
        with np.errstate(divide="ignore"):
            if self.event_model == "bernoulli":
                Njk = _class_sums(X, codes, K)  # (K, d) examples with x_j = 1
                self.feature_log_prob_ = np.log(Njk + alpha) - np.log(counts + 2.0 * alpha)[:, None]
            elif self.event_model == "multinomial":
                Nkj = _class_sums(X, codes, K)  # (K, d) total counts
                self.feature_log_prob_ = np.log(Nkj + alpha) - np.log(Nkj.sum(axis=1) + alpha * d)[:, None]
            else:  # categorical
                Xi = X.astype(np.int64)
                V = Xi.max(axis=0) + 1  # categories per feature
                vmax = int(V.max())
                width = vmax + 1
                # N[k, j, v] = number of class-k examples with x_j = v, by one bincount over (k, j, v)
                flat = (codes[:, None] * d + np.arange(d)) * width + Xi
                N = np.bincount(flat.ravel(), minlength=K * d * width).reshape(K, d, width).astype(np.float64)
                denom = np.log(counts[:, None] + alpha * V[None, :])[:, :, None]  # (K, d, 1)
                table = np.log(N + alpha) - denom
                unseen = np.arange(width)[None, None, :] >= V[None, :, None]
                table = np.where(unseen, np.log(alpha) - denom, table)
                self.feature_log_prob_ = table
                self.n_categories_ = V.astype(np.int64)
        return self

    def _log_prior(self, counts: np.ndarray) -> np.ndarray:
        K = counts.size
        if self.class_prior is not None:
            prior = np.asarray(self.class_prior, dtype=np.float64)
            if prior.shape != (K,):
                raise ValueError(f"class_prior has {prior.size} entries but y has {K} classes")
            if np.any(prior < 0) or not np.isclose(prior.sum(), 1.0):
                raise ValueError(f"class_prior must be non-negative and sum to 1, got {prior.tolist()}")
        elif self.fit_prior:
            prior = counts / counts.sum()
        else:
            prior = np.full(K, 1.0 / K)
        with np.errstate(divide="ignore"):
            return np.log(prior)

    def _prepare(self, X: np.ndarray) -> np.ndarray:
        """Binarize / check the input for the discrete event models (sparse input stays sparse where
        zeros stay zeros)."""
        if sp.issparse(X):
            if self.event_model == "bernoulli" and self.binarize is not None and float(self.binarize) >= 0:
                X = X.copy()
                X.data = (X.data > float(self.binarize)).astype(np.float64)
                X.eliminate_zeros()
                return X
            if self.event_model == "multinomial" or (self.event_model == "bernoulli" and self.binarize is None):
                self._prepare(X.data[None, :])  # the same checks on the stored values
                return X
            X = X.toarray()
        if self.event_model == "bernoulli":
            if self.binarize is not None:
                return (X > float(self.binarize)).astype(np.float64)
            if not np.all((X == 0) | (X == 1)):
                raise ValueError("event_model='bernoulli' with binarize=None needs 0/1 features")
            return X
        if X.size and X.min() < 0:  # X is finite here (validated): min() needs no boolean temporary
            raise ValueError(f"event_model={self.event_model!r} needs non-negative features (counts or category codes)")
        if self.event_model == "categorical" and not np.all(np.mod(X, 1) == 0):
            raise ValueError("event_model='categorical' needs integer category codes")
        return X

    # -- prediction --------------------------------------------------------------------------------
    def _joint_log_likelihood(self, X) -> np.ndarray:
        X = self._validate_predict_input(X)
        if self.event_model == "gaussian":
            X = dense(X)
            jll = np.empty((X.shape[0], self.classes_.size))
            for c in range(self.classes_.size):
                norm = -0.5 * np.sum(np.log(2.0 * np.pi * self.var_[c]))
                jll[:, c] = self.class_log_prior_[c] + norm - 0.5 * (((X - self.theta_[c]) ** 2) @ (1.0 / self.var_[c]))
            return jll
        X = self._prepare(X)
        lp = self.feature_log_prob_
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.event_model == "bernoulli":
                log_not = np.log1p(-np.exp(lp))  # log(1 - phi)
                if sp.issparse(X) and np.all(np.isfinite(lp)) and np.all(np.isfinite(log_not)):
                    # x log phi + (1 - x) log(1 - phi) = x (log phi - log(1 - phi)) + sum_j log(1 - phi_j)
                    jll = X @ (lp - log_not).T + log_not.sum(axis=1)
                else:
                    X = dense(X)
                    # x log phi + (1 - x) log(1 - phi), written without 0 * -inf
                    jll = _safe_dot(X, lp.T) + _safe_dot(1.0 - X, log_not.T)
            elif self.event_model == "multinomial":
                jll = _safe_dot(X, lp.T)
            else:
                X = dense(X)
                K, d, width = lp.shape
                Xi = np.minimum(X.astype(np.int64), width - 1)
                flat = np.arange(d) * width + Xi  # (n, d) positions in each class's (d * width) table
                jll = lp.reshape(K, d * width)[:, flat].sum(axis=2).T
        return jll + self.class_log_prior_

    def predict_log_proba(self, X):
        """Log posterior ``log p(y = k | x)``, shape (n, K)."""
        jll = self._joint_log_likelihood(X)
        top = jll.max(axis=1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        shifted = jll - top
        with np.errstate(divide="ignore", invalid="ignore"):
            # each row's largest entry is 0 now (log-sum-exp without a second shift): log sum exp >= 0
            return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))

    def predict_proba(self, X):
        """Posterior ``p(y = k | x)``, shape (n, K), columns in the order of ``classes_``."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """Most probable class (ties go to the class that comes first in ``classes_``)."""
        scores = self._joint_log_likelihood(X)  # validates X and fittedness first
        return self.classes_[np.argmax(scores, axis=1)]


def _class_sums(X, codes: np.ndarray, K: int) -> np.ndarray:
    """(K, d) sums of the rows of ``X`` per class code: one compiled pass over dense rows where numba is
    available (a one-hot matrix product ``Y^T X`` otherwise, and for sparse ``X``)."""
    if not sp.issparse(X) and jit_available():
        return cluster_sums(np.ascontiguousarray(X), codes, K)[0]
    n = X.shape[0]
    Y = np.zeros((K, n))
    Y[codes, np.arange(n)] = 1.0
    return np.asarray(Y @ X) if not sp.issparse(X) else np.asarray((X.T @ Y.T).T)


def _safe_dot(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A @ B`` where ``0 * -inf`` counts as 0 (a zero count times the log of a zero probability)."""
    if np.all(np.isfinite(B)):
        return A @ B
    finite = np.where(np.isfinite(B), B, 0.0)
    out = A @ finite
    bad = ~np.isfinite(B)  # (d, K): -inf entries hit only where A > 0
    hits = (A > 0).astype(np.float64) @ bad.astype(np.float64)
    out[hits > 0] = -np.inf
    return out


__all__ = ["NaiveBayes"]
