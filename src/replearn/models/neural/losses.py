"""Losses at the network output, fused with the output non-linearity, returning (loss, dJ/dZ).

Each takes the output layer's pre-activations ``Z`` (n x k) and targets, and returns the mean loss
over the n rows and, unless ``need_grad=False``, its gradient with respect to ``Z`` (already divided
by n). Fusing the non-linearity with the loss keeps both finite for any finite ``Z`` and makes the
gradient the simple "prediction minus target" of CS229's annotation (seed 000 L3221-3257):

* softmax + cross-entropy (CS229 §3.2.3, seed 000 L839-961; CS480/680 §4/§8, seed 002 L1626-1722):
  ``J = mean_i [logsumexp(z_i) - z_{i, y_i}]``, ``dJ/dZ = (softmax(Z) - onehot(y)) / n``.
* sigmoid + binary cross-entropy (CS229 §2.1, L503-592): with y in {0, 1},
  ``J = mean_i [log(1 + e^{z_i}) - y_i z_i]``, ``dJ/dz = (sigmoid(z) - y) / n``.
* squared error (CS229 §7.1, seed 000 L2573-2597, J^(i) = ½ (h(x) - y)^2; CIML eq. 10.5):
  ``J = mean_i ½ ||z_i - y_i||^2``, ``dJ/dZ = (Z - Y) / n``. This is the output error
  delta^[r] = z^[r] - y of CS229's Alg. 5 (the notes print z^[r] - o at L3165, an erratum).

scikit-learn computes the same means (its ``log_loss`` clips probabilities at machine epsilon,
which only changes the reported loss of saturated outputs, not the gradient).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

__all__ = ["softmax_cross_entropy", "sigmoid_binary_cross_entropy", "squared_error", "LOSSES"]


def softmax_cross_entropy(Z: np.ndarray, y: np.ndarray, need_grad: bool = True):
    """Mean multinomial log-loss of logits ``Z`` (n, k) for integer labels ``y`` in 0..k-1."""
    n = Z.shape[0]
    rows = np.arange(n)
    zmax = Z.max(axis=1, keepdims=True)
    E = np.exp(Z - zmax)
    s = E.sum(axis=1, keepdims=True)
    loss = float(np.mean(np.log(s[:, 0]) + zmax[:, 0] - Z[rows, y]))
    if not need_grad:
        return loss, None
    P = E / s
    P[rows, y] -= 1.0
    P /= n
    return loss, P


def sigmoid_binary_cross_entropy(Z: np.ndarray, y: np.ndarray, need_grad: bool = True):
    """Mean binary log-loss of logits ``Z`` (n, 1) for targets ``y`` (n, 1) in {0, 1}."""
    n = Z.shape[0]
    loss = float(np.mean(np.logaddexp(0.0, Z) - y * Z))
    if not need_grad:
        return loss, None
    return loss, (expit(Z) - y) / n


def squared_error(Z: np.ndarray, Y: np.ndarray, need_grad: bool = True):
    """Mean over rows of ½ ||z_i - y_i||^2 for outputs and targets of shape (n, k)."""
    n = Z.shape[0]
    R = Z - Y
    loss = float(0.5 * np.vdot(R, R) / n)
    if not need_grad:
        return loss, None
    return loss, R / n


#: output non-linearity -> fused loss
LOSSES = {
    "softmax": softmax_cross_entropy,
    "logistic": sigmoid_binary_cross_entropy,
    "identity": squared_error,
}
