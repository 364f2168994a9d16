"""f-GAN: the variational bound of an f-divergence, its conjugates, and adversarial training on it.

CS480/680 §13 (seed 003 L1236-1346). For a strictly convex f with f(1) = 0 the f-divergence of the data density q
from the model density p is ``D_f(q || p) = integral f(q(x) / p(x)) p(x) dx`` (>= 0, = 0 iff p = q). With the
Fenchel conjugate ``f*(s) = max_t [s t - f(t)]`` (Definition 13.2; f = f** for a convex continuous f),

    D_f(q || p) = integral max_s [s q/p - f*(s)] p dx  >=  E_{x~q}[S(x)] - E_{x~p}[f*(S(x))]     for every S,

with equality at ``S*(x) = f'(q(x)/p(x))``. Replacing the expectations by averages over data x_i ~ q and
generated points T_theta(z_j) ~ p gives the game ``min_theta max_phi (1/n) sum S_phi(x_i) - (1/m) sum
f*(S_phi(T_theta(z_j)))`` (L1330-1336). The critic S must take values where f* is finite, so it is written
``S = g(V)`` with an unconstrained network output V and an output map g (Nowozin, Cseke and Tomioka 2016,
Table 2). The divergences (:data:`DIVERGENCES`):

============  ==========================================  ==========================  ===========  =============
name          f(t)                                        f*(s)                       g(v)         D_f(q || p)
============  ==========================================  ==========================  ===========  =============
"kl"          t log t - t + 1 (the text's, L1262)         e^s - 1                     v            KL(q || p)
"reverse_kl"  -log t                                      -1 - log(-s), s < 0         -e^v         KL(p || q)
"js"          t log t - (t+1) log(t+1) + log 4 (L1300)    -log(1 - e^s) - log 4, s<0  log sigm(v)  2 JSD(q, p)
"pearson"     (t - 1)^2                                   s + s^2/4 (s >= -2), -1     v            chi^2(q || p)
============  ==========================================  ==========================  ===========  =============

2 JSD(q, p) = KL(q || m) + KL(p || m), m = (q + p)/2 (the text's "JS", between 0 and log 4). Corrections to the
text (seed 003): its JS definition reads KL(q || m) + KL(q || m) (the second q is p; catalogue B1 §13); the KL game
(13.b) drops the constant of f* = e^s - 1 (its value is KL - 1; here the bound is exact); and in the JS game
(L1306) and its reparameterization (L1318) the two terms after the first have the wrong sign -- -f*(S) =
+log(1 - e^S) + log 4, so the game is (1/n) sum log D(x_i) + (1/m) sum log(1 - D(T(z_j))) + log 4, the logistic
regression of real against generated points that the text then describes (with D = e^S = sigmoid(V)).

:func:`variational_bound` evaluates the bound from critic outputs V (numpy arrays or autodiff tensors, so it is
also the training loss); :func:`optimal_critic` gives V* from the density ratio; :func:`f_divergence` computes
D_f exactly for discrete distributions (the reference of the tests). :class:`FGAN` trains a generator and a
critic on the bound of any of the four divergences (the GAN of :mod:`.gan` is the "js" case).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._constraints import Interval, IntSequence, Options
from ..autodiff import Adam, Tensor, ops
from ..base import BaseEstimator
from ..validation import check_array, check_is_fitted, check_random_state
from .layers import ACTIVATIONS, mlp
from .training import check_finite_loss

__all__ = ["DIVERGENCES", "FDivergence", "FGAN", "f_divergence", "optimal_critic", "variational_bound"]

_LOG4 = math.log(4.0)


@dataclass(frozen=True)
class FDivergence:
    """One f-divergence: ``f`` and ``conjugate`` (numpy, for checks), and how the bound reads in the critic's raw
    output v: ``real(v) = g(v)`` and ``fake(v) = f*(g(v))`` (numpy or autodiff), ``critic(r) = v*`` for the
    density ratio r = q/p, and ``conjugate_domain`` (a description of dom f*)."""

    name: str
    f: Callable[[Any], Any]
    conjugate: Callable[[Any], Any]
    real: Callable[[Any], Any]
    fake: Callable[[Any], Any]
    critic: Callable[[Any], Any]
    conjugate_domain: str


def _softplus_np(v):
    return np.logaddexp(0.0, v)


def _is_tensor(*values) -> bool:
    return any(isinstance(v, Tensor) for v in values)


def _kl_f(t):
    t = np.asarray(t, dtype=np.float64)
    return np.where(t > 0, t * np.log(np.where(t > 0, t, 1.0)), 0.0) - t + 1.0


def _js_f(t):
    t = np.asarray(t, dtype=np.float64)
    tlogt = np.where(t > 0, t * np.log(np.where(t > 0, t, 1.0)), 0.0)
    return tlogt - (t + 1.0) * np.log1p(t) + _LOG4


def _neg_log_conj(s):
    s = np.asarray(s, dtype=np.float64)
    return np.where(s < 0, -1.0 - np.log(np.where(s < 0, -s, 1.0)), np.inf)


def _js_conj(s):
    s = np.asarray(s, dtype=np.float64)
    return np.where(s < 0, -np.log(-np.expm1(np.minimum(s, -1e-300))) - _LOG4, np.inf)


def _pearson_conj(s):
    s = np.asarray(s, dtype=np.float64)
    return np.where(s >= -2.0, s + s**2 / 4.0, -1.0)


def _pearson_fake(v):
    # f*(s) over t >= 0 (a density ratio): s + s^2/4 for s >= -2, where its maximizer t = 1 + s/2 is >= 0, and
    # f(0)-bound -1 below (C^1 at -2); Nowozin et al.'s s + s^2/4 everywhere is the conjugate over all real t
    if _is_tensor(v):
        return ops.where(v.data >= -2.0, v + v * v * 0.25, v * 0.0 - 1.0)
    return _pearson_conj(v)


DIVERGENCES: dict[str, FDivergence] = {
    "kl": FDivergence(
        "kl",
        f=_kl_f,
        conjugate=lambda s: np.exp(s) - 1.0,
        real=lambda v: v,
        fake=lambda v: (ops.exp(v) - 1.0) if _is_tensor(v) else np.exp(v) - 1.0,
        critic=lambda r: np.log(r),
        conjugate_domain="all s",
    ),
    "reverse_kl": FDivergence(
        "reverse_kl",
        f=lambda t: -np.log(np.asarray(t, dtype=np.float64)),
        conjugate=_neg_log_conj,
        real=lambda v: -ops.exp(v) if _is_tensor(v) else -np.exp(v),
        fake=lambda v: -1.0 - v,
        critic=lambda r: -np.log(r),
        conjugate_domain="s < 0",
    ),
    "js": FDivergence(
        "js",
        f=_js_f,
        conjugate=_js_conj,
        real=lambda v: -ops.softplus(-v) if _is_tensor(v) else -_softplus_np(-v),
        fake=lambda v: (ops.softplus(v) - _LOG4) if _is_tensor(v) else _softplus_np(v) - _LOG4,
        critic=lambda r: np.log(r),
        conjugate_domain="s < 0",
    ),
    "pearson": FDivergence(
        "pearson",
        f=lambda t: (np.asarray(t, dtype=np.float64) - 1.0) ** 2,
        conjugate=_pearson_conj,
        real=lambda v: v,
        fake=_pearson_fake,
        critic=lambda r: 2.0 * (np.asarray(r, dtype=np.float64) - 1.0),
        conjugate_domain="all s",
    ),
}


def _get(name) -> FDivergence:
    if name not in DIVERGENCES:
        raise ValueError(f"divergence must be one of {sorted(DIVERGENCES)}, got {name!r}")
    return DIVERGENCES[name]


def variational_bound(divergence, v_real, v_fake, *, weights_real=None, weights_fake=None):
    """``mean g(v_real) - mean f*(g(v_fake))``: the lower bound on D_f(q || p) from critic outputs on points of q
    (``v_real``) and of p (``v_fake``). Tensors in, a scalar tensor out (a loss to differentiate); arrays in, a
    float. ``weights_*`` turn the means into weighted sums (exact expectations over a discrete support)."""
    div = _get(divergence)
    if _is_tensor(v_real, v_fake):
        real, fake = div.real(v_real), div.fake(v_fake)
        r = real.mean() if weights_real is None else (real * np.asarray(weights_real)).sum()
        f = fake.mean() if weights_fake is None else (fake * np.asarray(weights_fake)).sum()
        return r - f
    vr = np.asarray(v_real, dtype=np.float64)
    vf = np.asarray(v_fake, dtype=np.float64)
    with np.errstate(over="ignore"):
        real, fake = div.real(vr), div.fake(vf)
    r = real.mean() if weights_real is None else float(np.sum(real * np.asarray(weights_real)))
    f = fake.mean() if weights_fake is None else float(np.sum(fake * np.asarray(weights_fake)))
    return float(r - f)


def optimal_critic(divergence, ratio) -> np.ndarray:
    """``v*`` with ``g(v*) = f'(r)``: the critic output at which the bound is tight, from the ratio r = q/p > 0."""
    r = np.asarray(ratio, dtype=np.float64)
    if np.any(~np.isfinite(r)) or np.any(r <= 0):
        raise ValueError("ratio must hold finite positive density ratios q/p")
    return _get(divergence).critic(r)


def f_divergence(divergence, q, p) -> float:
    """``D_f(q || p) = sum_x p(x) f(q(x) / p(x))`` for two discrete distributions on the same support (p > 0)."""
    div = _get(divergence)
    q = check_array(q, name="q", ndim=1)
    p = check_array(p, name="p", ndim=1)
    if q.shape != p.shape:
        raise ValueError(f"q and p must have the same support size, got {q.size} and {p.size}")
    for name, v in (("q", q), ("p", p)):
        if np.any(v < 0) or not np.isclose(v.sum(), 1.0):
            raise ValueError(f"{name} must be a probability vector (non-negative, summing to 1)")
    if np.any(p <= 0):
        raise ValueError("p must be positive wherever q is defined (the ratio q/p)")
    return float(np.sum(p * div.f(q / p)))


class FGAN(BaseEstimator):
    """A generator T_theta (an MLP of Gaussian noise) and a critic V_phi trained on the f-divergence bound.

    Each step: one Adam step of the critic on ``-variational_bound(V(x), V(T(z)))`` (ascent on the bound),
    then one of the generator. ``generator_loss="saddle"`` descends the bound itself (the text's
    ``min_theta max_phi``; only the fake term depends on theta: minimize ``-mean f*(g(V(T(z))))``);
    ``"nonsaturating"`` (default) maximizes ``mean g(V(T(z)))`` instead -- Nowozin et al.'s heuristic, which for
    "js" is the usual ``-log D(G(z))`` GAN loss and keeps gradients while the critic wins.

    Parameters
    ----------
    divergence : {"kl", "reverse_kl", "js", "pearson"}, default "js"
    generator_loss : {"nonsaturating", "saddle"}, default "nonsaturating"
    n_components : int, default 2 (noise dimension)
    generator_hidden, critic_hidden : list of int, default (32, 32)
    activation : str, default "relu"
    learning_rate : float, default 1e-3; batch_size : int, default 128; max_iter : int, default 100 (epochs)
    random_state

    Attributes
    ----------
    generator_, critic_ : Sequential; bound_history_ : per-epoch mean of the critic's bound (an estimate of
    D_f(q || p_theta) from below once the critic is good); n_iter_, n_features_in_
    """

    _constraints = {
        "divergence": Options(set(DIVERGENCES)),
        "generator_loss": Options({"nonsaturating", "saddle"}),
        "n_components": Interval(int, 1, None),
        "generator_hidden": IntSequence(1),
        "critic_hidden": IntSequence(1),
        "activation": Options(set(ACTIVATIONS)),
        "learning_rate": Interval(float, 0.0, None, closed="neither"),
        "batch_size": Interval(int, 1, None),
        "max_iter": Interval(int, 1, None),
    }

    def __init__(
        self,
        divergence="js",
        generator_loss="nonsaturating",
        n_components=2,
        generator_hidden=(32, 32),
        critic_hidden=(32, 32),
        activation="relu",
        learning_rate=1e-3,
        batch_size=128,
        max_iter=100,
        random_state=None,
    ):
        self.divergence = divergence
        self.generator_loss = generator_loss
        self.n_components = n_components
        self.generator_hidden = generator_hidden
        self.critic_hidden = critic_hidden
        self.activation = activation
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y=None):
        """Train on the rows of ``X`` (samples of q); returns ``self``."""
        self._validate_params()
        X = check_array(X)
        rng = check_random_state(self.random_state)
        n, d = X.shape
        k = int(self.n_components)
        div = DIVERGENCES[self.divergence]
        G = mlp((k, *self.generator_hidden, d), rng, self.activation)
        V = mlp((d, *self.critic_hidden, 1), rng, self.activation)
        opt_g = Adam(G.parameters(), lr=self.learning_rate, betas=(0.5, 0.999))
        opt_v = Adam(V.parameters(), lr=self.learning_rate, betas=(0.5, 0.999))
        B = min(int(self.batch_size), n)
        history = []
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            for epoch in range(int(self.max_iter)):
                perm = rng.permutation(n)
                total, steps = 0.0, 0
                for start in range(0, n, B):
                    xb = X[perm[start : start + B]]
                    b = xb.shape[0]
                    fake = G(rng.normal(size=(b, k))).data  # a constant for the critic step
                    opt_v.zero_grad()
                    bound = variational_bound(self.divergence, V(xb), V(fake))
                    (-bound).backward()
                    opt_v.step()
                    opt_g.zero_grad()
                    v_fake = V(G(rng.normal(size=(b, k))))
                    if self.generator_loss == "saddle":
                        loss_g = -div.fake(v_fake).mean()
                    else:
                        loss_g = -div.real(v_fake).mean()
                    loss_g.backward()
                    opt_g.step()  # the critic's gradients from this pass are discarded
                    total += bound.item()
                    steps += 1
                check_finite_loss(total, f"FGAN({self.divergence!r}), epoch {epoch}")
                history.append(total / steps)
        self.generator_, self.critic_ = G, V
        self.bound_history_ = history
        self.n_iter_ = len(history)
        self.n_features_in_ = d
        return self

    def sample(self, n: int, random_state=None) -> np.ndarray:
        """``n`` generated points T(z), z ~ N(0, I)."""
        check_is_fitted(self, "generator_")
        rng = check_random_state(random_state)
        return self.generator_(rng.normal(size=(int(n), int(self.n_components)))).data

    def critic(self, X) -> np.ndarray:
        """The critic's raw output V(x) (``g(V(x))`` estimates f'(q(x)/p(x)))."""
        check_is_fitted(self, "critic_")
        X = check_array(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but FGAN was fitted with {self.n_features_in_}")
        return self.critic_(X).data[:, 0]
