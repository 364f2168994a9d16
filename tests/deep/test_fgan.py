"""f-GAN objectives (CS480/680 §13): conjugates by direct maximization, the bound tight at f'(q/p) and below it
elsewhere, against closed-form divergences of Gaussians and exact sums over discrete distributions, a critic
learned by gradient ascent, gradients by finite differences, and a generator trained on the bound."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize
from scipy.stats import norm

from replearn.autodiff import Adam, Tensor, check_gradients
from replearn.deep.fgan import DIVERGENCES, FGAN, f_divergence, optimal_critic, variational_bound

NAMES = sorted(DIVERGENCES)


@pytest.mark.parametrize("name", NAMES)
def test_conjugates_equal_the_fenchel_maximum(name):
    """f*(s) = max_t [s t - f(t)] (Definition 13.2), found numerically over t > 0, at points of dom f*."""
    div = DIVERGENCES[name]
    for s in (-3.0, -1.0, -0.2, 0.3, 1.5):
        if div.conjugate_domain == "s < 0" and s >= 0:
            assert np.isinf(div.conjugate(s))
            continue
        res = optimize.minimize_scalar(lambda u, s=s: -(s * math.exp(u) - float(div.f(math.exp(u)))), bounds=(-30, 30))
        assert float(div.conjugate(s)) == pytest.approx(-res.fun, rel=1e-6, abs=1e-7), s
    # f(1) = 0 and strict convexity (the text's conditions for an f-divergence)
    assert float(div.f(1.0)) == pytest.approx(0.0, abs=1e-15)
    t = np.linspace(0.1, 5, 50)
    assert np.all(np.diff(div.f(t), 2) > 0)


@pytest.mark.parametrize("name", NAMES)
def test_discrete_bound_is_tight_at_the_optimal_critic_and_below_elsewhere(name):
    rng = np.random.default_rng(0)
    q, p = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    exact = f_divergence(name, q, p)
    v_star = optimal_critic(name, q / p)
    tight = variational_bound(name, v_star, v_star, weights_real=q, weights_fake=p)
    assert tight == pytest.approx(exact, rel=1e-12)
    for _ in range(20):
        v = v_star + rng.normal(scale=0.5, size=6)
        assert variational_bound(name, v, v, weights_real=q, weights_fake=p) < exact
    assert f_divergence(name, p, p) == pytest.approx(0.0, abs=1e-15)


def test_discrete_divergences_against_their_definitions():
    q, p = np.array([0.1, 0.6, 0.3]), np.array([0.3, 0.3, 0.4])
    kl = np.sum(q * np.log(q / p))
    m = (q + p) / 2
    assert f_divergence("kl", q, p) == pytest.approx(kl, rel=1e-12)
    assert f_divergence("reverse_kl", q, p) == pytest.approx(np.sum(p * np.log(p / q)), rel=1e-12)
    assert f_divergence("js", q, p) == pytest.approx(np.sum(q * np.log(q / m)) + np.sum(p * np.log(p / m)), rel=1e-12)
    assert f_divergence("pearson", q, p) == pytest.approx(np.sum((q - p) ** 2 / p), rel=1e-12)
    assert f_divergence("js", np.array([1.0, 0.0]), np.array([1e-300, 1 - 1e-300])) == pytest.approx(math.log(4))


# q = N(0.5, 0.8^2) (data), p = N(0, 1) (model): closed forms
MQ, SQ, MP, SP = 0.5, 0.8, 0.0, 1.0
CLOSED = {
    "kl": math.log(SP / SQ) + (SQ**2 + (MQ - MP) ** 2) / (2 * SP**2) - 0.5,
    "reverse_kl": math.log(SQ / SP) + (SP**2 + (MQ - MP) ** 2) / (2 * SQ**2) - 0.5,
    # chi^2(q || p) = integral q^2 / p - 1 = SP / (SQ sqrt(2 SP^2 - SQ^2)) exp((MQ - MP)^2 / (2 SP^2 - SQ^2)) - 1
    "pearson": SP / (SQ * math.sqrt(2 * SP**2 - SQ**2)) * math.exp((MQ - MP) ** 2 / (2 * SP**2 - SQ**2)) - 1,
}


def _js_by_quadrature():
    def integrand(x):
        q, p = norm.pdf(x, MQ, SQ), norm.pdf(x, MP, SP)
        m = (q + p) / 2
        return q * math.log(q / m) + p * math.log(p / m)

    return integrate.quad(integrand, -12, 12, epsabs=1e-12)[0]


@pytest.mark.parametrize("name", NAMES)
def test_gaussian_bound_with_the_optimal_critic_matches_the_closed_form(name):
    """Expectations of the bound by quadrature, with V* from the known density ratio: equal to the closed-form
    divergence (the JS one by quadrature of its definition); a Monte Carlo estimate from 200,000 samples agrees
    to its standard error."""
    exact = CLOSED[name] if name in CLOSED else _js_by_quadrature()
    div = DIVERGENCES[name]

    def v_star(x):
        return optimal_critic(name, norm.pdf(x, MQ, SQ) / norm.pdf(x, MP, SP))

    e_real = integrate.quad(lambda x: norm.pdf(x, MQ, SQ) * div.real(v_star(x)), -12, 12, epsabs=1e-12)[0]
    e_fake = integrate.quad(lambda x: norm.pdf(x, MP, SP) * div.fake(v_star(x)), -12, 12, epsabs=1e-12)[0]
    assert e_real - e_fake == pytest.approx(exact, rel=1e-7, abs=1e-9)
    rng = np.random.default_rng(1)
    xq, xp = rng.normal(MQ, SQ, 200_000), rng.normal(MP, SP, 200_000)
    vq, vp = v_star(xq), v_star(xp)
    mc = variational_bound(name, vq, vp)
    se = math.sqrt(np.var(div.real(vq)) / xq.size + np.var(div.fake(vp)) / xp.size)
    assert abs(mc - exact) < 4 * se


@pytest.mark.parametrize("name", ["kl", "reverse_kl", "js"])
def test_a_critic_learned_by_ascent_on_the_bound_estimates_the_divergence(name):
    """The log ratio of two Gaussians is quadratic, so a quadratic critic V(x) = a x^2 + b x + c contains V*
    for these three; gradient ascent on the sample bound (autodiff, Adam) reaches the divergence from below."""
    rng = np.random.default_rng(2)
    xq, xp = rng.normal(MQ, SQ, 20_000), rng.normal(MP, SP, 20_000)
    Fq, Fp = np.stack([xq**2, xq, np.ones_like(xq)], 1), np.stack([xp**2, xp, np.ones_like(xp)], 1)
    w = Tensor(np.zeros((3, 1)), requires_grad=True)
    opt = Adam([w], lr=0.05)
    for _ in range(600):
        opt.zero_grad()
        loss = -variational_bound(name, Tensor(Fq) @ w, Tensor(Fp) @ w)
        loss.backward()
        opt.step()
    estimate = variational_bound(name, Fq @ w.data, Fp @ w.data)
    exact = CLOSED.get(name) or _js_by_quadrature()
    assert estimate == pytest.approx(exact, abs=0.02)


@pytest.mark.parametrize("name", NAMES)
def test_bound_gradients_match_finite_differences(name):
    rng = np.random.default_rng(3)
    vr, vf = Tensor(rng.normal(size=(7, 1))), Tensor(rng.normal(size=(5, 1)))
    assert check_gradients(lambda a, b: variational_bound(name, a, b), [vr, vf]) < 1e-7


@pytest.mark.parametrize("divergence", ["js", "kl"])
def test_a_generator_trained_on_the_bound_matches_a_gaussian(divergence):
    """Data N(2, 0.5^2) in 1-D, noise of dimension 1: the generated mean and spread approach the data's."""
    X = np.random.default_rng(4).normal(2.0, 0.5, size=(1000, 1))
    model = FGAN(
        divergence=divergence,
        n_components=1,
        generator_hidden=(16,),
        critic_hidden=(16,),
        learning_rate=5e-3,
        batch_size=100,
        max_iter=30,
        random_state=0,
    ).fit(X)
    S = model.sample(2000, random_state=1)
    assert abs(S.mean() - 2.0) < 0.2 and abs(S.std() - 0.5) < 0.2
    assert len(model.bound_history_) == 30 and np.all(np.isfinite(model.bound_history_))
    assert model.critic(X[:3]).shape == (3,)


def test_bad_arguments():
    with pytest.raises(ValueError, match="divergence must be one of"):
        variational_bound("hellinger", np.zeros(2), np.zeros(2))
    with pytest.raises(ValueError, match="positive density ratios"):
        optimal_critic("kl", [0.0, 1.0])
    with pytest.raises(ValueError, match="probability vector"):
        f_divergence("kl", [0.5, 0.6], [0.5, 0.5])
    with pytest.raises(ValueError, match="divergence must be one of"):
        FGAN(divergence="tv").fit(np.zeros((4, 1)))
    with pytest.raises(ValueError, match="X contains NaN"):
        FGAN().fit(np.full((4, 1), np.nan))
