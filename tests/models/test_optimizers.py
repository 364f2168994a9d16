"""Optimizers and learning-rate schedules: hand-computed steps, a convex quadratic, bad settings."""

import math

import numpy as np
import pytest

from replearn.optim.optimizers import OPTIMIZERS, SGD, AdaGrad, Adam, Momentum, Nesterov, RMSProp, make_optimizer
from replearn.optim.schedules import (
    Constant,
    CosineDecay,
    ExponentialDecay,
    InverseTimeDecay,
    StepDecay,
    make_schedule,
)

P0 = [1.0, -2.0]
G = [0.5, 1.0]


def two_steps(opt):
    """Apply two steps with the same gradient to p = P0; return p after each step."""
    p = np.array(P0)
    out = []
    for _ in range(2):
        opt.step([p], [np.array(G)])
        out.append(p.copy())
    return out


def test_sgd_step_by_hand():
    p1, p2 = two_steps(SGD(0.1))
    np.testing.assert_allclose(p1, [0.95, -2.1])
    np.testing.assert_allclose(p2, [0.90, -2.2])


def test_momentum_steps_by_hand():
    # v1 = -0.1 g = (-0.05, -0.1); v2 = 0.9 v1 - 0.1 g = (-0.095, -0.19)
    p1, p2 = two_steps(Momentum(0.1, momentum=0.9))
    np.testing.assert_allclose(p1, [0.95, -2.1])
    np.testing.assert_allclose(p2, [0.855, -2.29])


def test_nesterov_steps_by_hand():
    # p += mu v - eta g: step 1 moves by 0.9 (-0.05, -0.1) - (0.05, 0.1) = (-0.095, -0.19)
    # step 2: v2 = (-0.095, -0.19), move 0.9 v2 - 0.1 g = (-0.1355, -0.271)
    p1, p2 = two_steps(Nesterov(0.1, momentum=0.9))
    np.testing.assert_allclose(p1, [0.905, -2.19])
    np.testing.assert_allclose(p2, [0.7695, -2.461])


def test_adagrad_steps_by_hand():
    # G1 = g^2 -> step eta * sign(g); G2 = 2 g^2 -> step eta / sqrt(2) * sign(g)
    p1, p2 = two_steps(AdaGrad(0.1, epsilon=1e-12))
    np.testing.assert_allclose(p1, [0.9, -2.1])
    np.testing.assert_allclose(p2, [0.9 - 0.1 / math.sqrt(2), -2.1 - 0.1 / math.sqrt(2)])


def test_rmsprop_steps_by_hand():
    # s1 = 0.1 g^2 -> step eta / sqrt(0.1); s2 = 0.19 g^2 -> step eta / sqrt(0.19)
    p1, p2 = two_steps(RMSProp(0.1, rho=0.9, epsilon=1e-12))
    s1, s2 = 0.1 / math.sqrt(0.1), 0.1 / math.sqrt(0.19)
    np.testing.assert_allclose(p1, [1 - s1, -2 - s1])
    np.testing.assert_allclose(p2, [1 - s1 - s2, -2 - s1 - s2])


def test_adam_steps_by_hand():
    # With a constant gradient, the bias-corrected m_hat = g and v_hat = g^2 at every step, so each
    # step is eta * sign(g) (up to epsilon): Kingma & Ba §2.1's "effective step size" bound.
    opt = Adam(0.1, beta_1=0.9, beta_2=0.999, epsilon=1e-12)
    p1, p2 = two_steps(opt)
    np.testing.assert_allclose(p1, [0.9, -2.1])
    np.testing.assert_allclose(p2, [0.8, -2.2])
    assert opt.t == 2
    # first moment and second moment after two steps: m = 0.19 g, v = 0.001999 g^2
    np.testing.assert_allclose(opt._state[0][0], 0.19 * np.array(G))
    np.testing.assert_allclose(opt._state[1][0], (1 - 0.999**2) * np.array(G) ** 2)


def quadratic(seed=0):
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(5, 5)))
    A = Q @ np.diag(np.linspace(1.0, 10.0, 5)) @ Q.T  # condition number 10, L = 10
    b = rng.normal(size=5)
    return A, b, np.linalg.solve(A, b)


@pytest.mark.parametrize(
    "name, lr, steps, atol",
    [
        ("sgd", 0.1, 500, 1e-10),
        ("momentum", 0.05, 500, 1e-9),
        ("nesterov", 0.05, 500, 1e-10),
        ("adagrad", 0.5, 2000, 1e-10),
        ("adam", 0.05, 2000, 1e-8),
    ],
)
def test_minimizes_a_convex_quadratic(name, lr, steps, atol):
    A, b, x_star = quadratic()
    opt = make_optimizer(name, learning_rate=lr)
    x = np.zeros(5)
    f0 = 0.5 * x @ A @ x - b @ x
    for _ in range(steps):
        opt.step([x], [A @ x - b])
    assert 0.5 * x @ A @ x - b @ x < f0
    np.testing.assert_allclose(x, x_star, atol=atol)


def test_rmsprop_needs_a_decaying_step_on_a_quadratic():
    # With a constant step RMSProp's normalized steps keep a size ~eta around the minimum; a 1/t
    # schedule lets it settle.
    A, b, x_star = quadratic()
    schedule = InverseTimeDecay(0.02, c=0.01)
    const, decayed = RMSProp(0.02), RMSProp(0.02)
    x_c, x_d = np.zeros(5), np.zeros(5)
    for t in range(3000):
        const.step([x_c], [A @ x_c - b])
        decayed.learning_rate = schedule(t)
        decayed.step([x_d], [A @ x_d - b])
    assert np.max(np.abs(x_d - x_star)) < 1e-3 < np.max(np.abs(x_c - x_star))


def test_updates_every_array_in_place():
    params = [np.ones((2, 3)), np.zeros(3)]
    ids = [id(p) for p in params]
    opt = Adam(0.01)
    opt.step(params, [np.ones((2, 3)), -np.ones(3)])
    assert [id(p) for p in params] == ids
    assert np.all(params[0] < 1) and np.all(params[1] > 0)


def test_state_is_bound_to_the_parameter_list_and_reset_forgets_it():
    opt = Momentum(0.1)
    opt.step([np.zeros(2)], [np.ones(2)])
    with pytest.raises(ValueError, match="started on 1 parameter arrays, got 2"):
        opt.step([np.zeros(2), np.zeros(1)], [np.ones(2), np.ones(1)])
    with pytest.raises(ValueError, match="got 1 parameter arrays but 2 gradient arrays"):
        opt.step([np.zeros(2)], [np.ones(2), np.ones(2)])
    opt.reset()
    assert opt.t == 0
    opt.step([np.zeros(2), np.zeros(1)], [np.ones(2), np.ones(1)])


def test_make_optimizer_names_and_bad_settings():
    assert set(OPTIMIZERS) == {"sgd", "momentum", "nesterov", "adagrad", "rmsprop", "adam"}
    for name, cls in OPTIMIZERS.items():
        assert type(make_optimizer(name, learning_rate=0.1)) is cls
    with pytest.raises(ValueError, match="solver must be one of"):
        make_optimizer("lbfgs", learning_rate=0.1)
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        SGD(0.0)
    with pytest.raises(ValueError, match=r"momentum must be < 1"):
        Momentum(0.1, momentum=1.0)
    with pytest.raises(ValueError, match=r"beta_2 must be < 1"):
        Adam(0.1, beta_2=1.0)


def test_schedules_values():
    assert Constant(0.5)(100) == 0.5
    step = StepDecay(1.0, [10, 20], factor=0.1)  # CS480/680: eta0, eta0/10, eta0/100
    assert [step(t) for t in (0, 9, 10, 19, 20, 99)] == pytest.approx([1, 1, 0.1, 0.1, 0.01, 0.01])
    assert ExponentialDecay(2.0, gamma=0.5)(3) == pytest.approx(0.25)
    assert InverseTimeDecay(1.0, c=0.5)(4) == pytest.approx(1 / 3)
    assert InverseTimeDecay(1.0, c=1.0, power=0.5)(3) == pytest.approx(0.5)
    cos = CosineDecay(1.0, T=10, eta_min=0.1)
    assert cos(0) == pytest.approx(1.0) and cos(5) == pytest.approx(0.55) and cos(10) == cos(50) == pytest.approx(0.1)


def test_make_schedule():
    s = make_schedule("step", 0.3, max_epochs=30)
    assert [s(t) for t in (0, 10, 20)] == pytest.approx([0.3, 0.03, 0.003])
    assert make_schedule("exponential", 1.0)(2) == pytest.approx(0.95**2)
    assert make_schedule("inverse_sqrt", 1.0, decay=1.0)(3) == pytest.approx(0.5)
    assert make_schedule("cosine", 1.0, max_epochs=4)(4) == pytest.approx(0.0)
    assert make_schedule("constant", 0.2, decay=123.0)(7) == 0.2
    with pytest.raises(ValueError, match="lr_schedule must be one of"):
        make_schedule("cyclic", 0.1)
    with pytest.raises(ValueError, match="learning_rate_init must be > 0"):
        make_schedule("constant", -1.0)
