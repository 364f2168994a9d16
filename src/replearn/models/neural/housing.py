"""The hand-wired housing network of the CS229 notes §7.2 (seed 000 L2656-2696, Fig. 7.2, eq. 7.8).

Four input features -- x1 size, x2 number of bedrooms, x3 zip code, x4 wealth of the neighbourhood -- feed
three hidden units, each a single ReLU neuron on a chosen *subset* of the inputs, and a linear output::

    a1 = ReLU(theta1 x1 + theta2 x2 + theta3)          "family size"     (size, bedrooms)
    a2 = ReLU(theta4 x3 + theta5)                      "walkable"        (zip code)
    a3 = ReLU(theta6 x3 + theta7 x4 + theta8)          "school quality"  (zip code, wealth)
    h_theta(x) = theta9 a1 + theta10 a2 + theta11 a3 + theta12                          (7.8)

twelve parameters theta1..theta12 (L2690-2696) -- a fully connected 4-3-1 network with the wiring of
Fig. 7.2 imposed (19 parameters fully connected). "Then you can use this parametrization h_theta with the
machinery of Section 7.1 to learn the parameters": :class:`HandWiredHousingNetwork` minimizes the mean
squared error J = 1/(2n) sum (h_theta(x_i) - y_i)^2 by batch gradient descent
(:func:`replearn.optim.gradient_descent`) with the gradient by back-propagation (§7.3: dJ/dtheta9 =
mean (h - y) a1, dJ/dtheta1 = mean (h - y) theta9 1[z1 > 0] x1, ...).

Initialization: theta1..theta8 and theta9..theta11 are drawn from N(0, 1/fan_in) by ``random_state``, the
hidden biases start at 0.1 (so no unit starts dead on standardized inputs) and theta12 at the mean target.
Features are used as given: standardize them (and the prices) for gradient descent to work with a
reasonable ``learning_rate`` -- a unit whose input is never positive has zero gradient (a dead ReLU) and stays
at 0.
"""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval
from ...base import BaseEstimator, RegressorMixin
from ...optim import gradient_descent
from ...validation import check_random_state, check_X_y

__all__ = ["HandWiredHousingNetwork", "housing_network_forward", "N_PARAMETERS"]

#: theta_1 .. theta_12 (CS229 L2690-2696)
N_PARAMETERS = 12
#: which inputs each hidden unit sees (0-based columns of x1..x4)
WIRING = ((0, 1), (2,), (2, 3))


def housing_network_forward(theta, X) -> tuple[np.ndarray, np.ndarray]:
    """``(h_theta(X), hidden activations (n, 3))`` for ``theta`` of 12 entries and ``X`` of 4 columns (eq. 7.8)."""
    theta = np.asarray(theta, dtype=np.float64)
    if theta.shape != (N_PARAMETERS,):
        raise ValueError(f"theta must hold the {N_PARAMETERS} parameters theta1..theta12, got shape {theta.shape}")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 4:
        raise ValueError(
            f"the housing network takes 4 features (size, bedrooms, zip code, wealth), got shape {X.shape}"
        )
    Zs = np.column_stack(
        [
            theta[0] * X[:, 0] + theta[1] * X[:, 1] + theta[2],
            theta[3] * X[:, 2] + theta[4],
            theta[5] * X[:, 2] + theta[6] * X[:, 3] + theta[7],
        ]
    )
    A = np.maximum(Zs, 0.0)
    return A @ theta[8:11] + theta[11], A


def _loss_and_gradient(theta: np.ndarray, X: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    h, A = housing_network_forward(theta, X)
    r = h - y
    n = X.shape[0]
    loss = 0.5 * float(r @ r) / n
    g = np.empty(N_PARAMETERS)
    g[8:11] = A.T @ r / n  # output weights
    g[11] = r.mean()
    delta = (r[:, None] * theta[8:11][None, :]) * (A > 0)  # dJ/dz_j per example (ReLU'(z) = 1[z > 0])
    g[0] = delta[:, 0] @ X[:, 0] / n
    g[1] = delta[:, 0] @ X[:, 1] / n
    g[2] = delta[:, 0].mean()
    g[3] = delta[:, 1] @ X[:, 2] / n
    g[4] = delta[:, 1].mean()
    g[5] = delta[:, 2] @ X[:, 2] / n
    g[6] = delta[:, 2] @ X[:, 3] / n
    g[7] = delta[:, 2].mean()
    return loss, g


class HandWiredHousingNetwork(RegressorMixin, BaseEstimator):
    """The 12-parameter housing network of CS229 §7.2 (module docstring), fitted by batch gradient descent.

    Parameters
    ----------
    learning_rate : float > 0, default 0.1
    max_iter : int >= 1, default 2000
    tol : float >= 0, default 1e-10 (relative change of J, :func:`replearn.optim.gradient_descent`)
    n_init : int >= 1, default 3
        Gradient descent from this many random starts; the lowest J is kept (the objective is not convex:
        a unit on the wrong side of its kink is a local optimum, as k-means restarts in CS229 §10).
    random_state : None, int or numpy Generator

    Attributes
    ----------
    theta_ : array (12,) -- theta1..theta12 in the notes' order
    loss_history_ : array -- J after each step
    n_iter_ : int
    """

    _constraints = {
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "max_iter": Interval(int, 1, None),
        "tol": Interval(float, 0.0, None),
        "n_init": Interval(int, 1, None),
    }

    def __init__(self, learning_rate=0.1, max_iter=2000, tol=1e-10, n_init=3, random_state=None):
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, X, y):
        """Learn theta1..theta12 from ``X`` (n, 4) and prices ``y`` (n,); returns ``self``."""
        self._validate_params()
        X, y = check_X_y(X, y, y_numeric=True, estimator=self)
        if X.shape[1] != 4:
            raise ValueError(
                f"the housing network takes 4 features (size, bedrooms, zip code, wealth), got {X.shape[1]}"
            )
        rng = check_random_state(self.random_state)
        best = None
        for _ in range(int(self.n_init)):
            theta0 = np.empty(N_PARAMETERS)
            theta0[[0, 1]] = rng.normal(0.0, np.sqrt(1 / 2), 2)
            theta0[3] = rng.normal(0.0, 1.0)
            theta0[[5, 6]] = rng.normal(0.0, np.sqrt(1 / 2), 2)
            theta0[[2, 4, 7]] = 0.1
            theta0[8:11] = rng.normal(0.0, np.sqrt(1 / 3), 3)
            theta0[11] = float(np.mean(y))
            res = gradient_descent(
                lambda t: _loss_and_gradient(t, X, y),
                theta0,
                learning_rate=self.learning_rate,
                max_iter=self.max_iter,
                tol=self.tol,
            )
            if best is None or res.loss_history[-1] < best.loss_history[-1]:
                best = res
        res = best
        self.theta_ = res.params
        self.loss_history_ = res.loss_history
        self.n_iter_ = res.n_iter
        self.n_features_in_ = 4
        return self

    def hidden(self, X) -> np.ndarray:
        """The hidden units (a1, a2, a3) = (family size, walkable, school quality), shape (n, 3)."""
        X = self._validate_predict_input(X)
        return housing_network_forward(self.theta_, X)[1]

    def predict(self, X) -> np.ndarray:
        """h_theta(x) of eq. 7.8."""
        X = self._validate_predict_input(X)
        return housing_network_forward(self.theta_, X)[0]
