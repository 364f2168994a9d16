"""Sequence data checks and the joint feature map phi(x, y) for sequence labelling (CIML §17.2).

A sequence input ``x`` is an (L, D) array: one row of D features per position (a one-hot word id
gives CIML's "word w has tag l" unary features). The joint feature map concatenates

* unary features: sum_l x_l (outer) e_{y_l}, a (D, K) block — "feature d is on at a position labelled k";
* Markov features: sum_{l >= 1} e_{y_{l-1}} (outer) e_{y_l}, a (K, K) block — "label k' followed by k",

so phi has K (D + K) entries (CIML L5089-5112: K(V + K) for a vocabulary of V words). With weights
``w = [W_unary (D, K), W_transition (K, K)]`` the score decomposes as in eqs. 17.15-17.16:
``w . phi(x, y) = sum_l (x_l W_unary)[y_l] + sum_l W_transition[y_{l-1}, y_l]``, i.e. Viterbi's
``unary = x @ W_unary`` and ``transition = W_transition``.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_array


def check_sequences(X_seqs, Y_seqs=None, *, n_features: int | None = None):
    """Validate a list of (L_i, D) inputs (and their (L_i,) label sequences); returns lists of arrays."""
    if X_seqs is None or isinstance(X_seqs, np.ndarray) and X_seqs.ndim == 2:
        raise ValueError("X_seqs must be a list of (L_i, D) arrays, one per sequence")
    try:
        X_list = list(X_seqs)
    except TypeError as exc:
        raise ValueError(f"X_seqs must be a list of (L_i, D) arrays, got {type(X_seqs).__name__}") from exc
    if not X_list:
        raise ValueError("X_seqs is empty; at least one sequence is needed")
    X_out = [check_array(x, name=f"X_seqs[{i}]") for i, x in enumerate(X_list)]
    D = X_out[0].shape[1] if n_features is None else n_features
    for i, x in enumerate(X_out):
        if x.shape[1] != D:
            what = "the model was fitted with" if n_features is not None else "X_seqs[0] has"
            raise ValueError(f"X_seqs[{i}] has {x.shape[1]} features per position, but {what} {D}")
    if Y_seqs is None:
        return X_out
    Y_list = list(Y_seqs)
    if len(Y_list) != len(X_out):
        raise ValueError(f"X_seqs has {len(X_out)} sequences but Y_seqs has {len(Y_list)}")
    Y_out = []
    for i, (x, y) in enumerate(zip(X_out, Y_list)):
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != x.shape[0]:
            raise ValueError(
                f"Y_seqs[{i}] must be a 1-D sequence of {x.shape[0]} labels (one per position), got shape {y.shape}"
            )
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise ValueError(f"Y_seqs[{i}] contains NaN or infinite labels")
        Y_out.append(y)
    return X_out, Y_out


def joint_features(x, y, n_labels: int) -> np.ndarray:
    """phi(x, y) as a flat vector of length K(D + K): unary block (D, K) then Markov block (K, K)."""
    x = check_array(x, name="x")
    y = np.asarray(y, dtype=np.int64)
    if y.shape != (x.shape[0],):
        raise ValueError(f"y must have one label per position ({x.shape[0]}), got shape {y.shape}")
    onehot = np.zeros((y.size, n_labels))
    onehot[np.arange(y.size), y] = 1.0
    unary = x.T @ onehot
    markov = np.zeros((n_labels, n_labels))
    np.add.at(markov, (y[:-1], y[1:]), 1.0)
    return np.concatenate([unary.ravel(), markov.ravel()])


def split_weights(w: np.ndarray, n_features: int, n_labels: int) -> tuple[np.ndarray, np.ndarray]:
    """Views of the flat weights as (W_unary (D, K), W_transition (K, K))."""
    D, K = n_features, n_labels
    return w[: D * K].reshape(D, K), w[D * K :].reshape(K, K)
