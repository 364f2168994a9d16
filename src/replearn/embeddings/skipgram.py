"""Skip-gram with negative sampling (Mikolov et al. 2013; EPFL notes, seed 004 L1541-1545).

The EPFL text's view: logistic classification of real (word, context) pairs -- context words within
``window`` positions of the word -- against fake pairs whose context is drawn from a noise
distribution. For a real pair ``(d, n)`` and ``k = n_negative`` noise words ``n'_1..n'_k`` drawn from
the unigram distribution raised to ``noise_power`` (3/4, Mikolov et al.)::

    loss(d, n) = -log sigmoid(w_d^T z_n) - sum_j log sigmoid(-w_d^T z_{n'_j})
               = softplus(-w_d^T z_n) + sum_j softplus(w_d^T z_{n'_j}).

Training: mini-batches of real pairs, fresh negatives for each, the mean loss minimized with Adam
through :mod:`replearn.autodiff` (the gathers of the rows of ``W`` and ``Z`` scatter their gradients
back). The word vectors are ``W`` (the "input" vectors, as word2vec reports).
"""

from __future__ import annotations

import numpy as np

from .._constraints import Interval
from ..autodiff import Tensor, ops
from ..base import BaseEstimator
from ..deep.training import train_epochs
from ..validation import check_random_state

__all__ = ["skipgram_pairs", "SkipGramNS"]


def skipgram_pairs(encoded: list[np.ndarray], window: int) -> np.ndarray:
    """All ``(word, context)`` id pairs within ``window`` positions, shape ``(n_pairs, 2)``."""
    pairs = []
    for ids in encoded:
        for k in range(1, int(window) + 1):
            if ids.size <= k:
                break
            pairs.append(np.column_stack([ids[:-k], ids[k:]]))
            pairs.append(np.column_stack([ids[k:], ids[:-k]]))
    if not pairs:
        raise ValueError("no (word, context) pair: the sentences are too short for the window")
    return np.concatenate(pairs)


class SkipGramNS(BaseEstimator):
    """Skip-gram word vectors with negative sampling.

    Parameters
    ----------
    n_components : int, default 10
    window : int, default 2
    n_negative : int, default 5
    noise_power : float, default 0.75
    learning_rate : float, default 0.01
        Adam step size.
    batch_size : int, default 512
    max_iter : int, default 10
        Epochs over the pairs.
    random_state : int, Generator or None

    Attributes
    ----------
    embeddings_, context_vectors_ : ndarray (V, K)
    loss_history_ : list of float
    """

    _constraints = {
        "n_components": Interval(int, 1, None),
        "window": Interval(int, 1, None),
        "n_negative": Interval(int, 1, None),
        "noise_power": Interval(float, 0.0, None),
    }

    def __init__(
        self,
        n_components=10,
        window=2,
        n_negative=5,
        noise_power=0.75,
        learning_rate=0.01,
        batch_size=512,
        max_iter=10,
        random_state=None,
    ):
        self.n_components = n_components
        self.window = window
        self.n_negative = n_negative
        self.noise_power = noise_power
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y=None, vocab_size=None):
        """Train on ``X``, a list of sentences as arrays of word ids (``vocab_size`` defaults to max id + 1)."""
        self._validate_params()
        encoded = [np.asarray(s, dtype=np.intp) for s in X]
        if not encoded or any(s.ndim != 1 for s in encoded):
            raise ValueError("X must be a non-empty list of 1-D arrays of word ids")
        V = int(vocab_size) if vocab_size is not None else int(max(s.max() for s in encoded if s.size)) + 1
        pairs = skipgram_pairs(encoded, self.window)
        counts = np.bincount(np.concatenate(encoded), minlength=V).astype(float)
        noise = counts ** float(self.noise_power)
        noise /= noise.sum()
        rng = check_random_state(self.random_state)
        K, k = int(self.n_components), int(self.n_negative)
        W = Tensor(rng.uniform(-0.5, 0.5, size=(V, K)) / K, requires_grad=True)
        Z = Tensor(np.zeros((V, K)), requires_grad=True)

        def batch_loss(idx):
            d, n = pairs[idx, 0], pairs[idx, 1]
            neg = rng.choice(V, size=(idx.size, k), p=noise)
            wd = W[d]  # (B, K)
            pos = (wd * Z[n]).sum(axis=1)  # (B,)
            negs = (Z[neg] @ wd.reshape(idx.size, K, 1)).reshape(idx.size, k)
            return (ops.softplus(-pos) + ops.softplus(negs).sum(axis=1)).mean()

        self.loss_history_ = train_epochs(
            [W, Z],
            batch_loss,
            pairs.shape[0],
            batch_size=self.batch_size,
            max_iter=self.max_iter,
            learning_rate=self.learning_rate,
            rng=rng,
            name="SkipGramNS",
        )
        self.embeddings_, self.context_vectors_ = W.data, Z.data
        self.n_iter_ = len(self.loss_history_)
        return self
