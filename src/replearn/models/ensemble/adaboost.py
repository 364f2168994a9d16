"""Discrete AdaBoost (CIML Alg. 32), with the SAMME extension to more than two classes."""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval
from ...base import BaseEstimator, ClassifierMixin
from ...validation import (
    check_classification_targets,
    check_random_state,
    check_X_y,
)
from ..trees._builder import Presorted, presort
from ..trees.decision_tree import DecisionTree
from ._base import accepts_sample_weight, make_estimator

_STUMP = {"max_depth": 1, "criterion": "misclassification"}
_EPS_FLOOR = 1e-10


class AdaBoost(ClassifierMixin, BaseEstimator):
    """AdaBoost: reweight the training data so that each new weak learner focuses on the examples
    the previous ones got wrong, and combine the learners by a weighted vote.

    CIML §13.2 Alg. 32, seed 001 L4218-4236 (two classes, labels y in {-1, +1})::

        d^(0) = (1/N, ..., 1/N)
        for k = 1..K:
            f^(k) = W(D, d^(k-1))                           weak learner on weighted data
            eps^(k) = sum_n d_n^(k-1) [y_n != f^(k)(x_n)]   weighted training error
            alpha^(k) = 1/2 log((1 - eps^(k)) / eps^(k))
            d_n^(k) = d_n^(k-1) exp(-alpha^(k) y_n f^(k)(x_n)) / Z
        f(x) = sgn(sum_k alpha^(k) f^(k)(x))

    The default weak learner is a decision stump that minimizes the weighted error (a depth-1
    ``decision_tree`` with ``criterion="misclassification"`` and the weights as sample weights;
    CIML L4256, seed 002 L1602-1616). The CIML example (L4244-4252): 80 positives and 20 negatives
    with a majority-class learner give eps = 0.2, alpha = 1/2 log 4, and weights 1/160 per positive and
    1/40 per negative, i.e. both classes carry 1/2 after one round (a test checks it).

    More than two classes (SAMME, Zhu et al. 2009): alpha = 1/2 [log((1 - eps) / eps) + log(K - 1)],
    and y f(x) above is +1 for a correct and -1 for a wrong prediction; for K = 2 this is Alg. 32. A
    weak learner must beat chance, eps < 1 - 1/K: if the first one does not, ``fit`` raises; a later
    one ends boosting (it is discarded). A learner with eps = 0 gets alpha computed with
    eps = 1e-10 and ends boosting (the book's alpha -> infinity; scikit-learn gives it weight 1 on
    its scale instead).

    The CS229 summaries (seed 002 L1614) write alpha = log((1 - err) / err), twice the book's value;
    scaling every alpha by the same factor changes neither the vote nor the reweighting after
    normalization. scikit-learn's ``AdaBoostClassifier`` (SAMME, learning_rate=1) uses that scale; its
    ``estimator_weights_`` are twice ours, everything else agrees.

    Parameters
    ----------
    estimator : registry name of the weak learner (its ``fit`` must take ``sample_weight``);
    estimator_params : dict or None (None: the stump above); n_estimators : int, rounds K;
    random_state : seeds weak learners that take one.

    Attributes
    ----------
    estimators_; estimator_weights_ : alpha^(k); estimator_errors_ : eps^(k);
    sample_weight_ : the weights d after the last round; loss_history_ : weighted training error
    eps^(k) per round; n_iter_ : rounds kept; classes_.
    """

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {
        "n_estimators": Interval(int, 1, None),
    }

    def __init__(self, estimator="decision_tree", estimator_params=None, n_estimators=50, random_state=None):
        self.estimator = estimator
        self.estimator_params = estimator_params
        self.n_estimators = n_estimators
        self.random_state = random_state

    def fit(self, X, y):
        """Run up to ``n_estimators`` boosting rounds; returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, estimator=self)
        classes = check_classification_targets(y)
        K = classes.size
        rng = check_random_state(self.random_state)
        params = self.estimator_params
        if params is None and self.estimator == "decision_tree":
            params = _STUMP
        n = X.shape[0]
        d = np.full(n, 1.0 / n)
        members, alphas, errors = [], [], []
        presorted: dict[bytes, Presorted] = {}  # trees: every feature sorted once for all rounds
        encoded = (classes, np.searchsorted(classes, y).astype(np.int64))
        for k in range(int(self.n_estimators)):
            model = make_estimator(self.estimator, params, "classification", rng, "estimator")
            if not accepts_sample_weight(model):
                raise ValueError(f"estimator {self.estimator!r} cannot be boosted: its fit does not take sample_weight")
            if type(model) is DecisionTree:
                model._validate_params()
                mask = model._categorical_mask(X.shape[1])
                if mask.tobytes() not in presorted:
                    presorted[mask.tobytes()] = presort(X, mask)
                model._fit(X, y, d, presorted=presorted[mask.tobytes()], encoded=encoded)
                correct = model.classes_[model._predict_codes(X)] == y
            else:
                model.fit(X, y, sample_weight=d)
                correct = model.predict(X) == y
            eps = float(d[~correct].sum())
            if eps >= 1.0 - 1.0 / K:
                if k == 0:
                    raise ValueError(
                        f"the first weak learner has weighted error {eps:.3g} >= 1 - 1/K = {1 - 1 / K:.3g} "
                        "(no better than chance); AdaBoost cannot start"
                    )
                break
            e = max(eps, _EPS_FLOOR)
            alpha = 0.5 * (np.log((1.0 - e) / e) + np.log(K - 1.0))
            members.append(model)
            alphas.append(alpha)
            errors.append(eps)
            d = d * np.exp(np.where(correct, -alpha, alpha))
            d /= d.sum()
            if eps <= 0.0:
                break
        self.estimators_ = members
        self.estimator_weights_ = np.asarray(alphas)
        self.estimator_errors_ = np.asarray(errors)
        self.loss_history_ = self.estimator_errors_.copy()
        self.sample_weight_ = d
        self.n_iter_ = len(members)
        self.classes_ = classes
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X) -> np.ndarray:
        """Normalized weighted vote: two classes, sum_k alpha_k f_k(x) / sum_k alpha_k in [-1, 1]
        (positive = ``classes_[1]``); more classes, (n, K) with alpha_k for the predicted class and
        -alpha_k / (K - 1) for the others (scikit-learn's SAMME decision function)."""
        X = self._validate_predict_input(X)
        K = self.classes_.size
        total = self.estimator_weights_.sum()
        score = np.zeros((X.shape[0], K))
        for model, a in zip(self.estimators_, self.estimator_weights_):
            hit = model.predict(X)[:, None] == self.classes_[None, :]
            score += np.where(hit, a, -a / (K - 1))
        score /= total
        if K == 2:
            return score[:, 1]  # = (alpha-weighted votes for class 1 - for class 0) / sum alpha
        return score

    def predict_proba(self, X) -> np.ndarray:
        """Weighted vote shares sum_k alpha_k [f_k(x) = c] / sum_k alpha_k (not calibrated)."""
        X = self._validate_predict_input(X)
        votes = np.zeros((X.shape[0], self.classes_.size))
        rows = np.arange(X.shape[0])
        for model, a in zip(self.estimators_, self.estimator_weights_):
            votes[rows, np.searchsorted(self.classes_, model.predict(X))] += a
        return votes / self.estimator_weights_.sum()

    def predict(self, X):
        """sgn of the weighted vote (two classes) or the class with the largest weighted vote."""
        s = self.decision_function(X)
        if s.ndim == 1:
            return self.classes_[(s > 0).astype(np.intp)]
        return self.classes_[np.argmax(s, axis=1)]
