"""The perceptron and its voted, averaged and multiclass variants (CIML ch. 4 and §17.1)."""

from __future__ import annotations

import numpy as np

from ..._constraints import Boolean, Interval
from ...base import BaseEstimator, ClassifierMixin
from ...validation import check_classification_targets, check_random_state, check_X_y
from ._kernels import binary_pass, multiclass_pass


class _PerceptronBase(ClassifierMixin, BaseEstimator):
    """Shared training loop; subclasses choose which weights to keep and how to predict.

    Binary problems (two classes) run CIML's Algorithm 5 on labels ``s = +1`` for ``classes_[1]``
    and ``-1`` for ``classes_[0]``; more classes run the multiclass perceptron (CIML Alg. 39).
    """

    _average = False
    _vote = False
    _force_multiclass = False

    #: valid hyperparameter values: checked by fit and by the configuration (replearn._constraints)
    _constraints = {"max_iter": Interval(int, 1, None), "shuffle": Boolean(), "fit_intercept": Boolean()}

    def __init__(self, max_iter=10, shuffle=True, random_state=None, fit_intercept=True):
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.fit_intercept = fit_intercept

    def fit(self, X, y):
        """Run ``max_iter`` passes over the data (fewer if a pass makes no mistake); returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y)
        classes = check_classification_targets(y)
        rng = check_random_state(self.random_state)
        n, d = X.shape
        codes = np.searchsorted(classes, y)
        multiclass = classes.size > 2 or self._force_multiclass
        if multiclass:
            out = _train_multiclass(
                X, codes, classes.size, self.max_iter, self.shuffle, rng, self.fit_intercept, self._vote
            )
        else:
            out = _train_binary(
                X, np.where(codes == 1, 1.0, -1.0), self.max_iter, self.shuffle, rng, self.fit_intercept, self._vote
            )
        W, b, U, beta, c, mistakes, votes = out
        if self._averaged():  # CIML Alg. 7 line 15: w - u/c, b - beta/c
            W, b = W - U / c, b - beta / c
        self.classes_ = classes
        self.coef_ = np.atleast_2d(W).astype(np.float64)
        self.intercept_ = np.atleast_1d(np.asarray(b, dtype=np.float64))
        self.multiclass_ = bool(multiclass)
        self.mistakes_ = np.asarray(mistakes, dtype=np.int64)
        self.loss_history_ = self.mistakes_ / n  # online training error of each pass
        self.n_iter_ = len(mistakes)
        self.converged_ = bool(mistakes[-1] == 0)
        if self._vote:
            vw, vb, vc = votes
            self.vote_coef_ = vw
            self.vote_intercept_ = vb
            self.vote_counts_ = vc
        self.n_features_in_ = d
        return self

    def _averaged(self) -> bool:
        return self._average

    def decision_function(self, X):
        """Activation ``w^T x + b``: shape (n,) for a binary model, (n, n_classes) for a multiclass one."""
        X = self._validate_predict_input(X)
        scores = X @ self.coef_.T + self.intercept_
        return scores if self.multiclass_ else scores[:, 0]

    def predict(self, X):
        """``SIGN(a)`` (CIML Alg. 6; ``a = 0`` goes to ``classes_[0]``), or the highest-scoring class."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]


class Perceptron(_PerceptronBase):
    """The perceptron, CIML Algorithm 5 PerceptronTrain (§4.2, seed 001 L966-985) and Alg. 6 (L989-998).

    Labels ``y in {-1, +1}`` (``classes_[1]`` is +1). Starting from ``w = 0, b = 0``, each example
    in turn::

        a = w^T x + b;   if y a <= 0:  w := w + y x,  b := b + y

    The test is ``<= 0``, not ``< 0`` (CIML L1010: otherwise ``w = 0`` never moves). The order of
    the examples is re-permuted every pass (``shuffle=True``, a fresh permutation from
    ``random_state``; CIML L1030-1039: a fixed order can stall and permuting saves ~20%).
    ``max_iter`` (CIML's MaxIter) is the number of passes and the only hyperparameter: it is an
    early-stopping regularizer (Fig. 4.3), so reaching it is not a failure and no warning is
    given; ``converged_`` says whether the last pass was mistake-free (the data were separated --
    on linearly separable data the number of mistakes is at most ``(R/gamma)^2``, Thm. 2 L1149).
    Training stops early after a pass without mistakes. The CS229 form (§2.2, seed 000
    L594-606: ``theta := theta + alpha (y - h(x)) x`` with 0/1 labels) makes the same
    predictions: from ``theta = 0`` the step ``alpha`` only rescales ``theta``.

    More than two classes: the multiclass perceptron (CIML Alg. 39, §17.1, seed 001 L5017-5036)
    with one weight vector and bias per class: ``yhat = argmax_k w_k^T x + b_k``; on a mistake
    ``w_y += x, b_y += 1, w_yhat -= x, b_yhat -= 1``. To mirror the ``<= 0`` test, a tie between the
    true class and another one counts as a mistake (``yhat`` = the best class other than ``y``,
    updated when its score is ``>=`` that of ``y``).

    Parameters
    ----------
    max_iter : int >= 1, default 10
        Passes over the data (MaxIter).
    shuffle : bool, default True
    random_state : None, int or numpy Generator
    fit_intercept : bool, default True
        Learn the bias ``b`` (otherwise ``b = 0``).

    Attributes
    ----------
    classes_ : array (n_classes,)
    coef_ : array (1, n_features) binary, (n_classes, n_features) multiclass
    intercept_ : array (1,) or (n_classes,)
    multiclass_ : bool
    mistakes_ : int array (n_iter_,)
        Updates made in each pass; ``loss_history_`` = ``mistakes_ / n`` (online training error).
    n_iter_ : int
    converged_ : bool
    n_features_in_ : int

    scikit-learn equivalent: ``sklearn.linear_model.Perceptron(max_iter=max_iter, tol=None,
    shuffle=..., eta0=1)`` updates on ``y a <= 0`` too but is one-vs-all for more classes.
    """


class AveragedPerceptron(_PerceptronBase):
    """The averaged perceptron, CIML Algorithm 7 (§4.6, seed 001 L1219-1243; eq. 4.18-4.19).

    Trains exactly like :class:`Perceptron` (the updates use the current ``w``), and keeps the
    cached sums ``u += y c x`` and ``beta += y c`` on each update, where the counter ``c`` (from 1) is
    incremented after every example. It returns ``w - u/c, b - beta/c``, which equals the average
    ``1/(T+1) sum_{t=0}^{T} w_t`` of the weight vectors after each of the ``T`` examples processed
    (``w_0 = 0``): predictions by the *average* of the hyperplanes, weighted by how long each
    survived, at the cost of a single vector. Almost always generalizes better than the vanilla
    perceptron (L1249), but ``max_iter`` still acts as early stopping (L1251).

    More than two classes: the multiclass perceptron (CIML Alg. 39) with the same averaging of the
    weight matrix ("averaging helps", L5048). Parameters and attributes as :class:`Perceptron`.

    scikit-learn has no averaged perceptron (``SGDClassifier(loss="perceptron", average=True)``
    averages SGD iterates with a different step size and penalty).
    """

    _average = True


class VotedPerceptron(_PerceptronBase):
    """The voted perceptron, CIML §4.6 eq. 4.17 (seed 001 L1195-1217; Freund & Schapire 1999).

    Trains exactly like :class:`Perceptron` and stores every weight vector it passes through with
    its survival time ``c^(k)``: the number of examples processed while it was the current vector
    (CIML L1201: "a weight vector that gets immediately updated gets c = 1"; the initial ``w = 0``
    gets 0 if the first example is a mistake, and vectors with ``c = 0`` are dropped). Prediction::

        yhat = sign( sum_k c^(k) sign(w^(k)^T x + b^(k)) )          (eq. 4.17; sign(0) = -1)

    ``decision_function`` returns the vote ``sum_k c^(k) sign(...) / sum_k c^(k)`` in [-1, 1]. The
    storage is one vector per update -- "completely impractical" for large data (L1205); prefer
    :class:`AveragedPerceptron`. ``coef_``/``intercept_`` hold the last (vanilla) vector.

    More than two classes: every stored weight matrix votes ``c^(k)`` for its argmax class.

    Extra attributes: ``vote_coef_`` (n_vectors, n_outputs, n_features), ``vote_intercept_``
    (n_vectors, n_outputs), ``vote_counts_`` (n_vectors,).
    """

    _vote = True

    def decision_function(self, X):
        """Normalized vote: (n,) in [-1, 1] for two classes, (n, n_classes) vote shares otherwise."""
        X = self._validate_predict_input(X)
        total = float(self.vote_counts_.sum())
        if not self.multiclass_:
            acts = np.einsum("nd,kd->nk", X, self.vote_coef_[:, 0, :]) + self.vote_intercept_[:, 0]
            return (np.where(acts > 0, 1.0, -1.0) @ self.vote_counts_) / total
        votes = np.zeros((X.shape[0], self.classes_.size))
        for Wk, bk, ck in zip(self.vote_coef_, self.vote_intercept_, self.vote_counts_):
            winner = np.argmax(X @ Wk.T + bk, axis=1)
            votes[np.arange(X.shape[0]), winner] += ck
        return votes / total


class MulticlassPerceptron(_PerceptronBase):
    """The multiclass perceptron, CIML Algorithm 39 (§17.1, seed 001 L5017-5036), for any number of classes.

    ``w`` is the stacked per-class vectors (the block feature map ``phi(x, k)`` of eq. 17.2):
    ``yhat = argmax_k w_k^T x + b_k``; on a mistake ``w_y += x, b_y += 1, w_yhat -= x, b_yhat -= 1``
    (ties with the true class count as mistakes, as the binary ``<= 0`` test). Unlike
    :class:`Perceptron` it keeps one vector per class even for two classes. With ``average=True`` the
    weights are averaged as in Alg. 7 (L5048: "averaging helps").

    scikit-learn has no equivalent (its ``Perceptron`` is one-vs-all).
    """

    _force_multiclass = True
    _constraints = {**_PerceptronBase._constraints, "average": Boolean()}

    def __init__(self, max_iter=10, shuffle=True, random_state=None, fit_intercept=True, average=False):
        super().__init__(max_iter=max_iter, shuffle=shuffle, random_state=random_state, fit_intercept=fit_intercept)
        self.average = average

    def _averaged(self) -> bool:
        return bool(self.average)

    def decision_function(self, X):
        """Class scores ``w_k^T x + b_k``, (n, n_classes); for two classes the margin
        ``score_1 - score_0``, shape (n,), positive for ``classes_[1]`` (what ``predict`` picks)."""
        scores = super().decision_function(X)
        if self.classes_.size == 2:
            return scores[:, 1] - scores[:, 0]
        return scores


# -- training loops: the passes are compiled (replearn._jit); the algorithms are online -------------
def _train_binary(X, s, max_iter, shuffle, rng, fit_intercept, keep_votes):
    """Passes of CIML Alg. 5 (with Alg. 7's sums ``u, beta`` and eq. 4.17's votes) until a clean pass."""
    n, d = X.shape
    X = np.ascontiguousarray(X, dtype=np.float64)
    s = np.ascontiguousarray(s, dtype=np.float64)
    w = np.zeros(d)
    u = np.zeros(d)
    state = np.array([0.0, 0.0, 1.0 if fit_intercept else 0.0])  # b, beta, bias
    counts = np.array([1, 0], dtype=np.int64)  # CIML Alg. 7's counter c (from 1), survival time
    vw = np.empty((n if keep_votes else 0, d))
    vb = np.empty(n if keep_votes else 0)
    vc = np.empty(n if keep_votes else 0, dtype=np.int64)
    mistakes = []
    votes_w, votes_b, votes_c = [], [], []
    order = np.arange(n)
    for _ in range(max_iter):
        if shuffle:
            order = rng.permutation(n)
        m, nv = binary_pass(X, s, order, w, u, state, counts, keep_votes, vw, vb, vc)
        if keep_votes and nv:
            votes_w.append(vw[:nv].copy())
            votes_b.append(vb[:nv].copy())
            votes_c.append(vc[:nv].copy())
        mistakes.append(int(m))
        if m == 0:
            break
    b, beta = float(state[0]), float(state[1])
    votes = None
    if keep_votes:
        votes_w.append(w[None, :].copy())
        votes_b.append(np.array([b]))
        votes_c.append(np.array([counts[1]]))
        votes = (
            np.concatenate(votes_w)[:, None, :],
            np.concatenate(votes_b)[:, None],
            np.concatenate(votes_c).astype(np.float64),
        )
    return w, b, u, beta, float(counts[0]), mistakes, votes


def _train_multiclass(X, codes, K, max_iter, shuffle, rng, fit_intercept, keep_votes):
    """Passes of CIML Alg. 39 (with Alg. 7's averaging sums and the votes) until a clean pass."""
    n, d = X.shape
    X = np.ascontiguousarray(X, dtype=np.float64)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    W = np.zeros((K, d))
    b = np.zeros(K)
    U = np.zeros((K, d))
    beta = np.zeros(K)
    counts = np.array([1, 0], dtype=np.int64)
    vw = np.empty((n if keep_votes else 0, K, d))
    vb = np.empty((n if keep_votes else 0, K))
    vc = np.empty(n if keep_votes else 0, dtype=np.int64)
    bias = 1.0 if fit_intercept else 0.0
    mistakes = []
    votes_w, votes_b, votes_c = [], [], []
    order = np.arange(n)
    for _ in range(max_iter):
        if shuffle:
            order = rng.permutation(n)
        m, nv = multiclass_pass(X, codes, order, W, b, U, beta, counts, bias, keep_votes, vw, vb, vc)
        if keep_votes and nv:
            votes_w.append(vw[:nv].copy())
            votes_b.append(vb[:nv].copy())
            votes_c.append(vc[:nv].copy())
        mistakes.append(int(m))
        if m == 0:
            break
    votes = None
    if keep_votes:
        votes_w.append(W[None].copy())
        votes_b.append(b[None].copy())
        votes_c.append(np.array([counts[1]]))
        votes = (np.concatenate(votes_w), np.concatenate(votes_b), np.concatenate(votes_c).astype(np.float64))
    return W, b, U, beta, float(counts[0]), mistakes, votes
