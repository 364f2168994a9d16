"""Weight initialization: Glorot (Xavier) and He, uniform or normal.

Zero initialization makes every hidden unit compute the same function and receive the same gradient,
so the symmetry is never broken (CIML §10.2, seed 001 L3437); CIML initializes uniformly in
[-0.1, 0.1] (L3441). The scaled rules below keep the variance of activations and gradients roughly
constant across layers (not in the course texts):

* Glorot & Bengio (2010), for tanh/sigmoid: Var(w) = 2 / (fan_in + fan_out);
  uniform on ±sqrt(6 / (fan_in + fan_out)) or normal with that variance.
* He et al. (2015), for ReLU-like units: Var(w) = 2 / fan_in; normal, or uniform on ±sqrt(6 / fan_in).

For a convolution, fan_in = in_channels * kh * kw and fan_out = out_channels * kh * kw.
CIML's own rules are ``"ciml_uniform"`` (uniform on [-0.1, 0.1], L3441) and ``"zeros"`` (the symmetric
start that never learns distinct hidden units, §10.3 Fig. 10.3). Biases start at zero. (scikit-learn's MLP
draws both weights and biases uniformly on ±sqrt(6 / (fan_in + fan_out)), or ±sqrt(2 / (fan_in + fan_out))
for the logistic activation.)
"""

from __future__ import annotations

import numpy as np

from ...validation import check_scalar

INITS = ("glorot_uniform", "glorot_normal", "he_normal", "he_uniform", "ciml_uniform", "zeros")

#: the rule ``init="auto"`` picks for each hidden activation
AUTO_INIT = {
    "relu": "he_normal",
    "leaky_relu": "he_normal",
    "elu": "he_normal",
    "maxout": "he_normal",
    "tanh": "glorot_uniform",
    "sigmoid": "glorot_uniform",
    "logistic": "glorot_uniform",
    "identity": "glorot_uniform",
}


def initialize(shape: tuple[int, ...], fan_in: int, fan_out: int, rule: str, rng: np.random.Generator) -> np.ndarray:
    """Random weights of ``shape`` drawn by ``rule`` (one of :data:`INITS`)."""
    check_scalar(rule, "init", str, choices=INITS)
    if rule == "glorot_uniform":
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-limit, limit, size=shape)
    if rule == "glorot_normal":
        return rng.normal(0.0, np.sqrt(2.0 / (fan_in + fan_out)), size=shape)
    if rule == "he_normal":
        return rng.normal(0.0, np.sqrt(2.0 / fan_in), size=shape)
    if rule == "ciml_uniform":
        return rng.uniform(-0.1, 0.1, size=shape)
    if rule == "zeros":
        return np.zeros(shape)
    limit = np.sqrt(6.0 / fan_in)
    return rng.uniform(-limit, limit, size=shape)


def resolve_init(init: str, activation: str) -> str:
    """``init`` itself, or the rule that suits ``activation`` when ``init == "auto"``."""
    if init == "auto":
        return AUTO_INIT[activation]
    check_scalar(init, "init", str, choices=INITS + ("auto",))
    return init
