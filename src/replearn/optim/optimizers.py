"""Stateful first-order update rules for stochastic (mini-batch) training.

Every optimizer has the same interface::

    opt = Adam(learning_rate=1e-3)
    opt.step(params, grads)      # params, grads: lists of arrays of equal shapes; params updated in place

``learning_rate`` is a plain attribute, so a schedule (:mod:`replearn.optim.schedules`) can change it
between steps. The state (velocities, squared-gradient accumulators, step count) is created on the
first ``step`` with the shapes of ``params`` and kept until :meth:`Optimizer.reset`; it is bound to
the order of the lists, so always pass the same parameters in the same order.

Update rules (g = gradient of the mini-batch objective, eta = learning rate):

* SGD (CS229 notes §7.1 Alg. 1-2, seed 000 L2599-2629; CS480/680 §9 mini-batch rule, seed 003
  L944-958): ``p -= eta * g``.
* Momentum (Polyak's heavy ball): ``v = mu * v - eta * g; p += v``.
* Nesterov (Sutskever et al. 2013 in the reparametrised form of Bengio et al. 2013):
  ``v = mu * v - eta * g; p += mu * v - eta * g``.
* AdaGrad (Duchi et al. 2011): ``G += g**2; p -= eta * g / (sqrt(G) + eps)``.
* RMSProp (Tieleman & Hinton 2012): ``s = rho * s + (1 - rho) * g**2; p -= eta * g / (sqrt(s) + eps)``.
* Adam (Kingma & Ba 2014, cited by CS229 notes L5138; the efficient form at the end of their §2):
  ``m = b1 m + (1-b1) g; v = b2 v + (1-b2) g**2; t += 1;
  eta_t = eta * sqrt(1 - b2**t) / (1 - b1**t); p -= eta_t * m / (sqrt(v) + eps)``.

Momentum, Nesterov, AdaGrad, RMSProp and Adam are not in the five course texts (the CS480/680 notes
say so explicitly, seed 003 catalogue); the rules above are the original papers'. Momentum, Nesterov
and Adam are written exactly as scikit-learn's ``neural_network._stochastic_optimizers`` (so an MLP
trained by either library takes the same steps from the same weights).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._jit import jit, jit_available
from ..validation import check_scalar

__all__ = ["Optimizer", "SGD", "Momentum", "Nesterov", "AdaGrad", "RMSProp", "Adam", "OPTIMIZERS", "make_optimizer"]


class Optimizer:
    """Base class: holds the learning rate and per-parameter state; subclasses implement ``_update``."""

    def __init__(self, learning_rate: float = 0.01):
        check_scalar(learning_rate, "learning_rate", numbers.Real, low=0.0, low_inclusive=False)
        self.learning_rate = float(learning_rate)
        self.t = 0
        self._state: list[list[np.ndarray]] | None = None
        self._work: list[list[np.ndarray]] = []

    #: number of state arrays kept per parameter
    _n_slots = 0
    #: number of scratch arrays per parameter the update writes its temporaries into (no allocation per step)
    _n_work = 1

    def reset(self) -> None:
        """Forget the state (velocities, accumulators, step count)."""
        self.t = 0
        self._state = None
        self._work = []

    def step(self, params: list[np.ndarray], grads: list[np.ndarray]) -> None:
        """Update every array of ``params`` in place from the matching array of ``grads``."""
        if len(params) != len(grads):
            raise ValueError(f"got {len(params)} parameter arrays but {len(grads)} gradient arrays")
        if self._state is None:
            self._state = [[np.zeros_like(p) for p in params] for _ in range(self._n_slots)]
            self._work = [[np.empty_like(p) for p in params] for _ in range(self._n_work)]
        elif self._state and len(self._state[0]) != len(params):
            raise ValueError(
                f"this optimizer was started on {len(self._state[0])} parameter arrays, got {len(params)}; "
                "call reset() before optimizing other parameters"
            )
        self.t += 1
        self._update(params, grads)

    def _update(self, params, grads) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(learning_rate={self.learning_rate:g})"


class SGD(Optimizer):
    """Plain (mini-batch) stochastic gradient descent: ``p -= eta * g``."""

    def _update(self, params, grads):
        lr = self.learning_rate
        for p, g, w in zip(params, grads, self._work[0]):
            p -= np.multiply(g, lr, out=w)  # lr * g


class Momentum(Optimizer):
    """Heavy-ball momentum: ``v = mu v - eta g; p += v`` (``momentum`` = mu in [0, 1))."""

    _n_slots = 1

    def __init__(self, learning_rate: float = 0.01, momentum: float = 0.9):
        super().__init__(learning_rate)
        check_scalar(momentum, "momentum", numbers.Real, low=0.0, high=1.0, high_inclusive=False)
        self.momentum = float(momentum)

    def _update(self, params, grads):
        mu, lr = self.momentum, self.learning_rate
        for p, g, v, w in zip(params, grads, self._state[0], self._work[0]):
            v *= mu
            v -= np.multiply(g, lr, out=w)  # lr * g
            p += v


class Nesterov(Momentum):
    """Nesterov's accelerated gradient: ``v = mu v - eta g; p += mu v - eta g``."""

    _n_work = 2

    def _update(self, params, grads):
        mu, lr = self.momentum, self.learning_rate
        for p, g, v, w, w2 in zip(params, grads, self._state[0], self._work[0], self._work[1]):
            np.multiply(g, lr, out=w)  # lr * g
            v *= mu
            v -= w
            np.multiply(v, mu, out=w2)
            w2 -= w
            p += w2  # mu * v - lr * g


class AdaGrad(Optimizer):
    """AdaGrad: per-coordinate steps ``eta / (sqrt(sum of past g**2) + eps)``."""

    _n_slots = 1

    def __init__(self, learning_rate: float = 0.01, epsilon: float = 1e-8):
        super().__init__(learning_rate)
        check_scalar(epsilon, "epsilon", numbers.Real, low=0.0, low_inclusive=False)
        self.epsilon = float(epsilon)

    _n_work = 2

    def _update(self, params, grads):
        lr, eps = self.learning_rate, self.epsilon
        for p, g, G, w, w2 in zip(params, grads, self._state[0], self._work[0], self._work[1]):
            G += np.multiply(g, g, out=w)
            _scaled_step(p, g, G, lr, eps, w, w2)


class RMSProp(Optimizer):
    """RMSProp: steps ``eta / (sqrt(running mean of g**2) + eps)``, running mean with decay ``rho``."""

    _n_slots = 1

    def __init__(self, learning_rate: float = 0.001, rho: float = 0.9, epsilon: float = 1e-8):
        super().__init__(learning_rate)
        check_scalar(rho, "rho", numbers.Real, low=0.0, high=1.0, high_inclusive=False)
        check_scalar(epsilon, "epsilon", numbers.Real, low=0.0, low_inclusive=False)
        self.rho, self.epsilon = float(rho), float(epsilon)

    _n_work = 2

    def _update(self, params, grads):
        lr, rho, eps = self.learning_rate, self.rho, self.epsilon
        for p, g, s, w, w2 in zip(params, grads, self._state[0], self._work[0], self._work[1]):
            s *= rho
            np.multiply(g, 1.0 - rho, out=w)
            w *= g
            s += w  # (1 - rho) * g * g
            _scaled_step(p, g, s, lr, eps, w, w2)


class Adam(Optimizer):
    """Adam with bias correction folded into the step size (Kingma & Ba's efficient form)."""

    _n_slots = 2

    def __init__(self, learning_rate: float = 0.001, beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-8):
        super().__init__(learning_rate)
        check_scalar(beta_1, "beta_1", numbers.Real, low=0.0, high=1.0, high_inclusive=False)
        check_scalar(beta_2, "beta_2", numbers.Real, low=0.0, high=1.0, high_inclusive=False)
        check_scalar(epsilon, "epsilon", numbers.Real, low=0.0, low_inclusive=False)
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)

    _n_work = 2

    def _update(self, params, grads):
        b1, b2, eps, t = self.beta_1, self.beta_2, self.epsilon, self.t
        lr_t = self.learning_rate * math.sqrt(1.0 - b2**t) / (1.0 - b1**t)
        fused = jit_available()  # without numba the array form below (a Python loop would be far slower)
        for p, g, m, v, w, w2 in zip(params, grads, self._state[0], self._state[1], self._work[0], self._work[1]):
            if fused and _flat_float64(p, g):  # one compiled pass over the four arrays
                _adam_kernel(p.reshape(-1), g.reshape(-1), m.reshape(-1), v.reshape(-1), b1, b2, lr_t, eps)
                continue
            m *= b1
            m += np.multiply(g, 1.0 - b1, out=w)  # (1 - b1) g
            v *= b2
            np.multiply(g, 1.0 - b2, out=w)
            w *= g
            v += w  # (1 - b2) g g
            _scaled_step(p, m, v, lr_t, eps, w, w2)


def _flat_float64(p: np.ndarray, g: np.ndarray) -> bool:
    """Whether ``p`` and ``g`` are C-contiguous float64 arrays of one shape (their flat views are the arrays)."""
    return (
        p.dtype == np.float64
        and g.dtype == np.float64
        and p.shape == g.shape
        and p.flags.c_contiguous
        and g.flags.c_contiguous
        and p.flags.writeable
    )


@jit
def _adam_kernel(p, g, m, v, b1, b2, lr_t, eps):
    """Adam's update of one flat parameter array in one pass, element by element in the order of operations
    of the array form: ``m = m b1 + (1 - b1) g; v = v b2 + ((1 - b2) g) g; p -= (lr_t m) / (sqrt(v) + eps)``."""
    c1 = 1.0 - b1
    c2 = 1.0 - b2
    for i in range(p.shape[0]):
        gi = g[i]
        mi = m[i] * b1 + gi * c1
        vi = v[i] * b2 + (gi * c2) * gi
        m[i] = mi
        v[i] = vi
        p[i] -= (mi * lr_t) / (math.sqrt(vi) + eps)


def _scaled_step(p, g, s, lr, eps, w, w2) -> None:
    """``p -= lr * g / (sqrt(s) + eps)`` in the same order of operations, through the scratch arrays ``w``, ``w2``."""
    np.sqrt(s, out=w2)
    w2 += eps
    np.multiply(g, lr, out=w)
    w /= w2
    p -= w


#: name -> class, the values the models' ``solver`` hyperparameter accepts
OPTIMIZERS: dict[str, type[Optimizer]] = {
    "sgd": SGD,
    "momentum": Momentum,
    "nesterov": Nesterov,
    "adagrad": AdaGrad,
    "rmsprop": RMSProp,
    "adam": Adam,
}


def make_optimizer(
    name: str,
    *,
    learning_rate: float,
    momentum: float = 0.9,
    beta_1: float = 0.9,
    beta_2: float = 0.999,
    rho: float = 0.9,
    epsilon: float = 1e-8,
) -> Optimizer:
    """Create optimizer ``name`` (a key of :data:`OPTIMIZERS`), passing it the settings it uses."""
    check_scalar(name, "solver", str, choices=tuple(OPTIMIZERS))
    if name == "sgd":
        return SGD(learning_rate)
    if name in ("momentum", "nesterov"):
        return OPTIMIZERS[name](learning_rate, momentum=momentum)
    if name == "adagrad":
        return AdaGrad(learning_rate, epsilon=epsilon)
    if name == "rmsprop":
        return RMSProp(learning_rate, rho=rho, epsilon=epsilon)
    return Adam(learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon)
