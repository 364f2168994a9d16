"""EPFL notes L1725-1769: sigmoid rectangles and Riemann sums as one hidden layer, and Barron's (2Cr)^2/n rate."""

from __future__ import annotations

import numpy as np
import pytest

from replearn.theory import (
    barron_bound,
    greedy_sigmoid_fit,
    l1_error,
    rectangle_network,
    riemann_network,
    sigmoid_step,
)


def test_the_transition_point_slope_and_width_of_a_sigmoid_step():
    """sigma(w (x - a)) = 1/2 at x = a, slope w/4 there (L1754), and it goes from 0.1 to 0.9 over 2 log(9)/w."""
    for a, w in ((0.3, 10.0), (-1.0, 250.0)):
        assert sigmoid_step(a, a, w) == pytest.approx(0.5)
        h = 1e-6 / w
        slope = (sigmoid_step(a + h, a, w) - sigmoid_step(a - h, a, w)) / (2 * h)
        assert slope == pytest.approx(w / 4, rel=1e-6)
        lo, hi = a - np.log(9) / w, a + np.log(9) / w
        assert sigmoid_step(lo, a, w) == pytest.approx(0.1) and sigmoid_step(hi, a, w) == pytest.approx(0.9)


def test_a_rectangle_is_two_hidden_nodes():
    net = rectangle_network(-0.5, 1.0, w=500.0, height=2.5)
    assert net.n_hidden == 2
    x = np.array([-2.0, -0.6, -0.4, 0.0, 0.9, 1.1, 3.0])
    np.testing.assert_allclose(net(x), [0, 0, 2.5, 2.5, 2.5, 0, 0], atol=1e-9)
    assert net(np.array([-0.5]))[0] == pytest.approx(1.25, rel=1e-6)  # half height at the edges
    with pytest.raises(ValueError, match="a < b"):
        rectangle_network(1.0, 0.0, w=1.0)


def test_riemann_networks_approximate_a_function_in_l1_as_rectangles_are_added():
    f = lambda x: np.sin(3 * np.asarray(x)) + np.asarray(x) ** 2  # noqa: E731
    errors = []
    for n in (4, 16, 64, 256):
        net = riemann_network(f, -1.0, 1.0, n, w=40.0 * n)
        assert net.n_hidden == 2 * n
        errors.append(l1_error(f, net, -1.0, 1.0))
    assert all(b < 0.5 * a for a, b in zip(errors, errors[1:]))  # at least halves per 4x rectangles
    assert errors[-1] < 0.01


def test_barrons_rate_bounds_the_greedy_network_for_every_n():
    """f(x) = exp(-x^2/2): f-tilde(omega) = exp(-omega^2/2)/sqrt(2 pi), so C = int |omega| f-tilde = sqrt(2/pi)."""
    f = lambda x: np.exp(-(np.asarray(x) ** 2) / 2)  # noqa: E731
    C, r = np.sqrt(2 / np.pi), 2.0
    net = greedy_sigmoid_fit(f, r, 12, C)
    errors = np.asarray(net.errors)
    bound = np.array([barron_bound(C, r, n) for n in range(1, 13)])
    assert np.all(errors <= bound)
    assert np.all(np.diff(errors) <= 1e-12) and errors[-1] < 0.3 * errors[0]
    x = np.linspace(-r, r, 401)
    assert np.mean((net(x) - f(x)) ** 2) == pytest.approx(errors[-1], rel=1e-9)
    assert np.sum(np.abs(net.coefficients)) <= 2 * C * r + 1e-9  # the convex hull of the theorem
    assert barron_bound(C, r, 4) == pytest.approx((2 * C * r) ** 2 / 4)
    with pytest.raises(ValueError):
        barron_bound(C, 0.0, 1)
