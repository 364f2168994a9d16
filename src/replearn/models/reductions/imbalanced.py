"""Learning from imbalanced classes by subsampling or oversampling (class weighting), CIML §6.1."""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval, Options
from ...base import BaseEstimator, ClassifierMixin
from ...exceptions import NotFittedError
from ...validation import check_classification_targets, check_random_state, check_X_y
from ._base import make_estimator, require_classifier

_STRATEGIES = ("oversample", "subsample")


class ImbalancedClassifier(ClassifierMixin, BaseEstimator):
    """Rebalance the training set, then train any classifier on it (CIML §6.1, seed 001 L1760-1878).

    CIML reduces the alpha-weighted binary task (mistakes on the rare class cost ``alpha`` times
    more, L1818-1828) to plain binary classification, with the guarantee that a binary error
    ``eps`` gives a weighted error ``alpha eps`` (Thm. 3, L1838):

    * ``"subsample"`` (Alg. 11 SubsampleMap, L1786-1800): keep every example of the rarest class
      and each example of every other class with probability ``1/alpha``. With ``alpha=None`` the
      classes are balanced exactly: each class is sampled without replacement down to the size of
      the rarest one. (CIML's "positives" are the rare class; the text at L1768 puts the
      importance weight 0.00101 on the "positives" where the negatives are meant.)
    * ``"oversample"`` (L1860-1870): ``alpha`` copies (an integer) of every example of the rarest
      class -- the same as weighting those examples by ``alpha`` for any learner whose objective
      is a sum over examples, without throwing data away. With ``alpha=None`` every class ``k`` is
      replicated ``round(n_max / n_k)`` times (approximately balanced class weights).

    Prediction is the base classifier's (Alg. 12 SubsampleTest). This is how class weighting is
    offered for every registered classifier: replearn's models take no ``sample_weight``.

    Parameters
    ----------
    estimator : str, default "logistic_regression"
        Registry name of the classifier trained on the rebalanced data.
    estimator_params : dict or None
    strategy : {"subsample", "oversample"}, default "subsample"
    alpha : float >= 1 or None, default None
        CIML's alpha (integer for "oversample"); None balances the classes.
    random_state : None or int
        Seeds the subsampling and the base classifier.

    Attributes
    ----------
    classes_ : array (n_classes,)
    estimator_ : the fitted base classifier
    class_counts_ : int array (n_classes,)
        Class sizes in the rebalanced training set.
    n_features_in_ : int

    scikit-learn has no sampler (imbalanced-learn's ``RandomUnderSampler`` / ``RandomOverSampler``
    are the analogue); ``class_weight={rare: alpha}`` in scikit-learn estimators equals
    ``"oversample"`` with an integer alpha.
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints);
    #: ``estimator`` and ``estimator_params`` are checked by the registry when the base learner is made
    _constraints = {"strategy": Options(set(_STRATEGIES)), "alpha": (None, Interval(float, 1.0, None))}

    def __init__(
        self,
        estimator="logistic_regression",
        estimator_params=None,
        strategy="subsample",
        alpha=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.strategy = strategy
        self.alpha = alpha
        self.random_state = random_state

    def fit(self, X, y):
        """Rebalance and fit the base classifier; returns ``self``."""
        self._validate_params()
        if self.alpha is not None:
            if self.strategy == "oversample" and float(self.alpha) != int(self.alpha):
                raise ValueError(f"strategy='oversample' needs an integer alpha (number of copies), got {self.alpha!r}")
        X, y = check_X_y(X, y, estimator=self)
        classes = check_classification_targets(y)
        rng = check_random_state(self.random_state)
        codes = np.searchsorted(classes, y)
        counts = np.bincount(codes, minlength=classes.size)
        rare = int(np.argmin(counts))
        keep = []
        for k in range(classes.size):
            idx = np.flatnonzero(codes == k)
            if self.strategy == "subsample":
                if self.alpha is None:
                    idx = np.sort(rng.choice(idx, size=counts[rare], replace=False))
                elif k != rare:
                    idx = idx[rng.random(idx.size) < 1.0 / float(self.alpha)]
            else:
                copies = (
                    (int(self.alpha) if k == rare else 1)
                    if self.alpha is not None
                    else int(round(counts.max() / counts[k]))
                )
                idx = np.repeat(idx, copies)
            keep.append(idx)
        keep = np.concatenate(keep)
        new_counts = np.bincount(codes[keep], minlength=classes.size)
        if np.any(new_counts == 0):
            raise ValueError("subsampling removed every example of a class; use a smaller alpha")
        est = make_estimator(self.estimator, self.estimator_params, seed=int(rng.integers(0, 2**31 - 1)))
        require_classifier(est, self.estimator)
        self.estimator_ = est.fit(X[keep], y[keep])
        self.classes_ = classes
        self.class_counts_ = new_counts.astype(np.int64)
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        """The base classifier's prediction."""
        X = self._validate_predict_input(X)
        return self.estimator_.predict(X)

    def _delegate(self, method):
        if not hasattr(self, "estimator_"):
            raise NotFittedError("This ImbalancedClassifier instance is not fitted yet; call fit(X, y) first")
        if not hasattr(self.estimator_, method):
            raise AttributeError(f"the base estimator {self.estimator!r} has no {method}")
        fn = getattr(self.estimator_, method)

        def call(X):
            return fn(self._validate_predict_input(X))

        return call

    @property
    def decision_function(self):
        """The base classifier's ``decision_function`` (if it has one)."""
        return self._delegate("decision_function")

    @property
    def predict_proba(self):
        """The base classifier's ``predict_proba`` (if it has one); probabilities of the rebalanced problem."""
        return self._delegate("predict_proba")
