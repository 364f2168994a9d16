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

* absolute error (the regression head of the CS229 summaries §8.2, seed 002 L1724-1742, "|y_hat - y|"):
  ``J = mean_i ||z_i - y_i||_1``, ``dJ/dZ = sign(Z - Y) / n`` (a subgradient: 0 where z = y).
* a ReLU output unit (the same section: "the ReLU function makes sense to fit data that is non-negative,
  like age"): the prediction is ``max(z, 0)``; :func:`relu_squared_error` and :func:`relu_absolute_error`
  fuse it with either loss, ``dJ/dZ = dJ/d(prediction) * 1[z > 0]``.

scikit-learn computes the same means (its ``log_loss`` clips probabilities at machine epsilon,
which only changes the reported loss of saturated outputs, not the gradient).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

__all__ = [
    "softmax_cross_entropy",
    "sigmoid_binary_cross_entropy",
    "multilabel_binary_cross_entropy",
    "squared_error",
    "absolute_error",
    "relu_squared_error",
    "relu_absolute_error",
    "LOSSES",
]


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


def absolute_error(Z: np.ndarray, Y: np.ndarray, need_grad: bool = True):
    """Mean over rows of ``||z_i - y_i||_1`` (CS229 summaries §8.2's |y_hat - y|)."""
    n = Z.shape[0]
    R = Z - Y
    loss = float(np.abs(R).sum() / n)
    if not need_grad:
        return loss, None
    return loss, np.sign(R) / n


def relu_squared_error(Z: np.ndarray, Y: np.ndarray, need_grad: bool = True):
    """Squared error of the ReLU output ``max(Z, 0)``; the gradient flows where ``Z > 0``."""
    loss, G = squared_error(np.maximum(Z, 0.0), Y, need_grad)
    return loss, (None if G is None else G * (Z > 0))


def relu_absolute_error(Z: np.ndarray, Y: np.ndarray, need_grad: bool = True):
    """Absolute error of the ReLU output ``max(Z, 0)``; the gradient flows where ``Z > 0``."""
    loss, G = absolute_error(np.maximum(Z, 0.0), Y, need_grad)
    return loss, (None if G is None else G * (Z > 0))


def multilabel_binary_cross_entropy(Z: np.ndarray, Y: np.ndarray, need_grad: bool = True):
    """Multi-label loss of the CS229 summaries §8.1.2 (seed 002 L1693-1699): one sigmoid per label and
    ``L = -sum_c [y_c log y_hat_c + (1 - y_c) log(1 - y_hat_c)]`` summed over the labels, mean over the rows;
    ``dJ/dZ = (sigmoid(Z) - Y) / n`` -- each label's unit learns as an independent logistic regression."""
    n = Z.shape[0]
    loss = float(np.sum(np.logaddexp(0.0, Z) - Y * Z) / n)
    if not need_grad:
        return loss, None
    return loss, (expit(Z) - Y) / n


#: output non-linearity (and loss, when not the default one) -> fused loss
LOSSES = {
    "softmax": softmax_cross_entropy,
    "logistic": sigmoid_binary_cross_entropy,
    "multilabel": multilabel_binary_cross_entropy,
    "identity": squared_error,
    "identity+absolute_error": absolute_error,
    "relu": relu_squared_error,
    "relu+absolute_error": relu_absolute_error,
}
