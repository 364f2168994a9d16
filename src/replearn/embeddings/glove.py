"""GloVe: weighted least-squares factorization of log co-occurrence counts (Pennington et al. 2014;
EPFL notes, seed 004 L1547-1561).

Objective over the non-zero counts ``Omega`` (EPFL's form, with GloVe's biases)::

    J = 1/2 sum_{(d,n) in Omega} f(n_dn) (w_d^T z_n + b_d + c_n - log n_dn)^2,
    f(n) = min(1, (n / x_max)^alpha)

``fit_bias=False`` drops ``b`` and ``c`` (the EPFL text's version). ``x_max = 100`` and
``alpha = 3/4`` are the paper's values (catalogue seed 004, 1F). Optimization: full-batch AdaGrad
(the paper's optimizer, here on the whole matrix at once since the vocabularies are small), starting
from small uniform weights. The word vectors are ``W + Z`` (the paper's sum of word and context
vectors, §4.2). ``loss_history_`` records ``J`` per iteration; a non-finite value raises
:class:`~replearn.exceptions.DivergenceError`.
"""

from __future__ import annotations

import numpy as np

from .._constraints import Boolean, Interval
from ..base import BaseEstimator
from ..deep.training import check_finite_loss
from ..validation import check_array, check_random_state

__all__ = ["GloVe", "glove_loss_and_gradients"]


def glove_loss_and_gradients(W, Z, b, c, F, logC):
    """``J`` and its gradients with respect to ``W, Z, b, c``, for weights ``F`` (0 off ``Omega``).

    With the residual ``R = W Z^T + b 1^T + 1 c^T - log C`` and ``E = F * R``:
    ``J = 1/2 sum(E * R)``, ``dJ/dW = E Z``, ``dJ/dZ = E^T W``, ``dJ/db = E 1``, ``dJ/dc = E^T 1``.
    """
    R = W @ Z.T + b[:, None] + c[None, :] - logC
    E = F * R
    return 0.5 * float(np.sum(E * R)), [E @ Z, E.T @ W, E.sum(axis=1), E.sum(axis=0)]


class GloVe(BaseEstimator):
    """Word vectors from a square co-occurrence matrix.

    Parameters
    ----------
    n_components : int, default 10
    x_max : float, default 100.0
    alpha : float, default 0.75
    learning_rate : float, default 0.05
        AdaGrad step size.
    max_iter : int, default 500
        Full-batch AdaGrad iterations.
    fit_bias : bool, default True
    random_state : int, Generator or None

    Attributes
    ----------
    word_vectors_, context_vectors_ : ndarray (V, K)
    embeddings_ : ndarray (V, K)
        ``word_vectors_ + context_vectors_``.
    loss_history_ : list of float
    """

    _constraints = {
        "n_components": Interval(int, 1, None),
        "x_max": Interval(float, 0.0, None, closed="neither"),
        "alpha": Interval(float, 0.0, None),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "max_iter": Interval(int, 1, None),
        "fit_bias": Boolean(),
    }

    def __init__(
        self,
        n_components=10,
        x_max=100.0,
        alpha=0.75,
        learning_rate=0.05,
        max_iter=500,
        fit_bias=True,
        random_state=None,
    ):
        self.n_components = n_components
        self.x_max = x_max
        self.alpha = alpha
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.fit_bias = fit_bias
        self.random_state = random_state

    def fit(self, X, y=None):
        """Factorize the co-occurrence matrix ``X`` (square, non-negative); ``y`` is ignored."""
        self._validate_params()
        C = check_array(X)
        if C.shape[0] != C.shape[1]:
            raise ValueError(f"X must be a square co-occurrence matrix, got shape {C.shape}")
        if C.min() < 0:
            raise ValueError("co-occurrence counts must be non-negative")
        rng = check_random_state(self.random_state)
        V, K = C.shape[0], int(self.n_components)
        observed = C > 0
        logC = np.log(np.where(observed, C, 1.0))
        F = np.where(observed, np.minimum(1.0, (C / float(self.x_max)) ** float(self.alpha)), 0.0)
        W = rng.uniform(-0.5, 0.5, size=(V, K)) / K
        Z = rng.uniform(-0.5, 0.5, size=(V, K)) / K
        b, c = np.zeros(V), np.zeros(V)
        params = [W, Z, b, c]
        accum = [np.full_like(p, 1e-8) for p in params]
        lr = float(self.learning_rate)
        history = []
        with np.errstate(over="ignore", invalid="ignore"):
            for it in range(int(self.max_iter)):
                loss, grads = glove_loss_and_gradients(W, Z, b, c, F, logC)
                check_finite_loss(loss, f"GloVe, iteration {it}")
                history.append(loss)
                n_params = 4 if self.fit_bias else 2
                for p, g, a in zip(params[:n_params], grads[:n_params], accum[:n_params]):
                    a += g * g
                    p -= lr * g / np.sqrt(a)
        self.word_vectors_, self.context_vectors_ = W, Z
        self.word_bias_, self.context_bias_ = b, c
        self.embeddings_ = W + Z
        self.loss_history_ = history
        self.n_iter_ = len(history)
        return self
