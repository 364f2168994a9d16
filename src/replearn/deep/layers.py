"""Layers built on :mod:`replearn.autodiff`: their backward passes come from the graph, not by hand.

These are building blocks, not estimators: a :class:`Module` creates its parameters when it is
constructed (from the generator it is given), the way the estimators of :mod:`replearn.deep` build
them inside ``fit``. ``parameters()`` lists the trainable :class:`~replearn.autodiff.Tensor` s in a
fixed order (attribute order, depth first); ``state_dict()``/``load_state_dict()`` expose them as
plain arrays for :mod:`replearn.persistence`-style ``.npz`` saving (never pickled). ``train()`` and
``eval()`` switch batch normalization between batch and running statistics.

* :class:`Linear`: ``y = x W + b`` (rows are examples; CS229 notes §7.2, seed 000 L2704-2812),
  Glorot-uniform ``W`` (or He for ReLU-family activations), zero ``b``.
* :class:`Embedding`: row lookup ``E[ids]`` (a gather; repeated ids add their gradients).
* :class:`LayerNorm` (Ba et al. 2016; the transformer's "Add & Norm", CS480/680 §11,
  seed 003 L1165-1177): ``gamma * (x - mean) / sqrt(var + eps) + beta`` over the last axis of each
  example; the same in training and evaluation.
* :class:`BatchNorm` (Ioffe and Szegedy 2015; named in CS480/680 §9, seed 003 L1038-1040): in
  training, normalize every feature (last axis) with the mean and biased variance of the mini-batch
  (all other axes), then ``gamma * x_hat + beta``; keep exponential running averages
  ``running <- (1 - momentum) running + momentum batch`` (the variance with Bessel's correction, as
  PyTorch); in evaluation use the running values, so a prediction never depends on the rest of the
  batch. The gradient through the batch statistics comes from the graph.
* :class:`ELU`, :class:`ReLU`, :class:`Tanh`, :class:`Sigmoid`, :class:`Softplus`: the activations of
  :mod:`replearn.autodiff.ops`. ELU (Clevert et al. 2016) is ``x`` for ``x > 0`` and
  ``alpha (e^x - 1)`` otherwise; CS480/680 lists it (seed 003 L923, garbled in the text).
* :class:`Sequential` and :func:`mlp`: a stack of layers.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..autodiff import Tensor, ops
from ..autodiff.tensor import as_tensor

__all__ = [
    "Module",
    "Linear",
    "Embedding",
    "LayerNorm",
    "BatchNorm",
    "ELU",
    "ReLU",
    "Tanh",
    "Sigmoid",
    "Softplus",
    "Identity",
    "Sequential",
    "mlp",
    "ACTIVATIONS",
]


class Module:
    """Base class: parameters are the :class:`Tensor` attributes (and those of sub-modules)."""

    training: bool = True

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, x):  # pragma: no cover - overridden
        raise NotImplementedError

    def _children(self):
        for name, value in vars(self).items():
            if isinstance(value, (Tensor, Module)):
                yield name, value
            elif isinstance(value, (list, tuple)):
                for i, item in enumerate(value):
                    if isinstance(item, (Tensor, Module)):
                        yield f"{name}.{i}", item

    def named_parameters(self, prefix: str = ""):
        """``(name, tensor)`` for every trainable tensor, in a fixed order."""
        for name, value in self._children():
            if isinstance(value, Tensor):
                if value.requires_grad:
                    yield prefix + name, value
            else:
                yield from value.named_parameters(prefix + name + ".")

    def parameters(self) -> list[Tensor]:
        return [p for _, p in self.named_parameters()]

    def modules(self):
        yield self
        for _, value in self._children():
            if isinstance(value, Module):
                yield from value.modules()

    def train(self, mode: bool = True):
        for m in self.modules():
            m.training = mode
        return self

    def eval(self):
        return self.train(False)

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = None

    def state_dict(self) -> dict[str, np.ndarray]:
        """Copies of every parameter and buffer (running statistics), by name."""
        state = {name: p.data.copy() for name, p in self.named_parameters()}
        for mname, m in self._named_modules():
            for b in getattr(m, "_buffers", ()):
                state[mname + b] = np.array(getattr(m, b), copy=True)
        return state

    def load_state_dict(self, state: dict) -> None:
        """Set the parameters and buffers from ``state`` (as returned by :meth:`state_dict`)."""
        for name, p in self.named_parameters():
            if name not in state:
                raise KeyError(f"state has no entry {name!r}")
            if state[name].shape != p.shape:
                raise ValueError(f"{name}: shape {state[name].shape}, expected {p.shape}")
            p.data = np.array(state[name], dtype=p.data.dtype)
        for mname, m in self._named_modules():
            for b in getattr(m, "_buffers", ()):
                setattr(m, b, np.array(state[mname + b], copy=True))

    def _named_modules(self, prefix: str = ""):
        yield prefix, self
        for name, value in self._children():
            if isinstance(value, Module):
                yield from value._named_modules(prefix + name + ".")


def _glorot(rng: np.random.Generator, n_in: int, n_out: int) -> np.ndarray:
    bound = np.sqrt(6.0 / (n_in + n_out))
    return rng.uniform(-bound, bound, size=(n_in, n_out))


class Linear(Module):
    """``y = x W + b`` on the last axis; ``init`` is ``"glorot"`` (default) or ``"he"``."""

    def __init__(self, n_in: int, n_out: int, rng: np.random.Generator, bias: bool = True, init: str = "glorot"):
        if init == "glorot":
            w = _glorot(rng, n_in, n_out)
        elif init == "he":
            w = rng.normal(scale=np.sqrt(2.0 / n_in), size=(n_in, n_out))
        else:
            raise ValueError(f"init must be 'glorot' or 'he', got {init!r}")
        self.weight = Tensor(w, requires_grad=True)
        self.bias = Tensor(np.zeros(n_out), requires_grad=True) if bias else None

    def forward(self, x):
        y = as_tensor(x) @ self.weight
        return y + self.bias if self.bias is not None else y


class Embedding(Module):
    """A table of ``n`` vectors of length ``dim``, initialized N(0, scale^2)."""

    def __init__(self, n: int, dim: int, rng: np.random.Generator, scale: float = 0.1):
        self.weight = Tensor(rng.normal(scale=scale, size=(n, dim)), requires_grad=True)

    def forward(self, ids):
        return self.weight[np.asarray(ids, dtype=np.intp)]


class LayerNorm(Module):
    """Normalize each example over its last axis, then scale and shift."""

    def __init__(self, dim: int, eps: float = 1e-5):
        self.eps = float(eps)
        self.gamma = Tensor(np.ones(dim), requires_grad=True)
        self.beta = Tensor(np.zeros(dim), requires_grad=True)

    def forward(self, x):
        x = as_tensor(x)
        mu = x.mean(axis=-1, keepdims=True)
        centred = x - mu
        var = ops.square(centred).mean(axis=-1, keepdims=True)
        return centred / ops.sqrt(var + self.eps) * self.gamma + self.beta


class BatchNorm(Module):
    """Normalize each feature (last axis) over the batch (every other axis); running stats for eval."""

    _buffers = ("running_mean", "running_var")

    def __init__(self, dim: int, momentum: float = 0.1, eps: float = 1e-5):
        self.momentum = float(momentum)
        self.eps = float(eps)
        self.gamma = Tensor(np.ones(dim), requires_grad=True)
        self.beta = Tensor(np.zeros(dim), requires_grad=True)
        self.running_mean = np.zeros(dim)
        self.running_var = np.ones(dim)
        self.training = True

    def forward(self, x):
        x = as_tensor(x)
        axes = tuple(range(x.ndim - 1))
        if self.training:
            count = int(np.prod([x.shape[a] for a in axes]))
            if count < 2:
                raise ValueError("BatchNorm in training mode needs at least 2 values per feature")
            mu = x.mean(axis=axes, keepdims=True)
            centred = x - mu
            var = ops.square(centred).mean(axis=axes, keepdims=True)
            m = self.momentum
            self.running_mean = (1 - m) * self.running_mean + m * mu.data.reshape(-1)
            self.running_var = (1 - m) * self.running_var + m * var.data.reshape(-1) * count / (count - 1)
            return centred / ops.sqrt(var + self.eps) * self.gamma + self.beta
        x_hat = (x - self.running_mean) / np.sqrt(self.running_var + self.eps)
        return x_hat * self.gamma + self.beta


class _Activation(Module):
    fn = staticmethod(lambda x: x)

    def forward(self, x):
        return type(self).fn(as_tensor(x))


class Identity(_Activation):
    pass


class ReLU(_Activation):
    fn = staticmethod(ops.relu)


class Tanh(_Activation):
    fn = staticmethod(ops.tanh)


class Sigmoid(_Activation):
    fn = staticmethod(ops.sigmoid)


class Softplus(_Activation):
    fn = staticmethod(ops.softplus)


class ELU(Module):
    """Exponential linear unit with parameter ``alpha`` (the value it approaches as ``x -> -inf`` is ``-alpha``)."""

    def __init__(self, alpha: float = 1.0):
        self.alpha = float(alpha)

    def forward(self, x):
        return ops.elu(as_tensor(x), self.alpha)


ACTIVATIONS = {"relu": ReLU, "elu": ELU, "tanh": Tanh, "sigmoid": Sigmoid, "softplus": Softplus, "identity": Identity}


class Sequential(Module):
    """Apply the layers in order."""

    def __init__(self, *layers: Module):
        self.layers = list(layers)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def hidden_sizes(value) -> tuple[int, ...]:
    """Hidden layer widths as a tuple: one integer is one hidden layer (``IntSequence`` accepts both)."""
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool):
        return (int(value),)
    return tuple(int(h) for h in value)


def mlp(
    sizes, rng: np.random.Generator, activation: str = "relu", batchnorm: bool = False, layernorm: bool = False
) -> Sequential:
    """``Linear -> [norm] -> activation`` for each hidden size, then a final ``Linear`` (no activation).

    ``sizes = (n_in, h_1, ..., h_k, n_out)``. ``batchnorm``/``layernorm`` insert the normalization
    between each hidden linear map and its activation (Ioffe and Szegedy's placement).
    """
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
    sizes = [int(s) for s in sizes]
    if len(sizes) < 2 or min(sizes) < 1:
        raise ValueError(f"sizes must have at least 2 positive entries (n_in, ..., n_out), got {sizes}")
    init = "he" if activation in ("relu", "elu") else "glorot"
    layers: list[Module] = []
    for n_in, n_out in zip(sizes[:-2], sizes[1:-1]):
        layers.append(Linear(n_in, n_out, rng, init=init))
        if batchnorm:
            layers.append(BatchNorm(n_out))
        if layernorm:
            layers.append(LayerNorm(n_out))
        layers.append(ACTIVATIONS[activation]())
    layers.append(Linear(sizes[-2], sizes[-1], rng))
    return Sequential(*layers)
