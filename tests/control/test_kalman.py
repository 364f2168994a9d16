"""Kalman filter and RTS smoother against direct conditioning of the joint Gaussian (notes L5878-5902)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from replearn.control import (
    ControlInputError,
    kalman_filter,
    rts_smoother,
    steady_state_kalman,
)

A = np.array([[1.0, 0.2], [0.0, 0.9]])
C = np.array([[1.0, 0.0]])
Qs = np.diag([0.05, 0.1])
Ry = np.array([[0.3]])
m0 = np.array([0.5, -1.0])
P0 = np.diag([1.0, 0.5])


def simulate(T, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.multivariate_normal(m0, P0)
    ys = []
    for _ in range(T):
        ys.append(C @ x + rng.multivariate_normal(np.zeros(1), Ry))
        x = A @ x + rng.multivariate_normal(np.zeros(2), Qs)
    return np.array(ys)


def joint_posterior(Y):
    """The notes' 'naive' approach: condition the joint Gaussian of (x_0..x_{T-1}, y_0..y_{T-1})."""
    T, n = Y.shape[0], 2
    # Cov(x_s, x_t) for s <= t is Var(x_s) A^{t-s}^T
    var = [P0]
    for _ in range(T - 1):
        var.append(A @ var[-1] @ A.T + Qs)
    mean = [m0]
    for _ in range(T - 1):
        mean.append(A @ mean[-1])
    Sxx = np.zeros((T * n, T * n))
    for s in range(T):
        for t in range(s, T):
            blk = var[s] @ np.linalg.matrix_power(A, t - s).T
            Sxx[s * n : (s + 1) * n, t * n : (t + 1) * n] = blk
            Sxx[t * n : (t + 1) * n, s * n : (s + 1) * n] = blk.T
    Cb = np.kron(np.eye(T), C)
    Sxy = Sxx @ Cb.T
    Syy = Cb @ Sxx @ Cb.T + np.kron(np.eye(T), Ry)
    mx = np.concatenate(mean)
    gain = scipy.linalg.solve(Syy, Sxy.T, assume_a="pos").T
    post_mean = mx + gain @ (Y.ravel() - Cb @ mx)
    post_cov = Sxx - gain @ Sxy.T
    loglik = -0.5 * (
        (Y.ravel() - Cb @ mx) @ np.linalg.solve(Syy, Y.ravel() - Cb @ mx)
        + np.linalg.slogdet(Syy)[1]
        + T * np.log(2 * np.pi)
    )
    return post_mean.reshape(T, n), post_cov, loglik


def test_filter_and_smoother_equal_direct_gaussian_conditioning():
    Y = simulate(12)
    kf = kalman_filter(Y, A, C, Qs, Ry, m0, P0)
    sm = rts_smoother(kf)
    mean, cov, loglik = joint_posterior(Y)
    np.testing.assert_allclose(sm.means, mean, atol=1e-10)
    for t in range(12):
        np.testing.assert_allclose(sm.covs[t], cov[2 * t : 2 * t + 2, 2 * t : 2 * t + 2], atol=1e-10)
    # filtering at each t = conditioning on y_0..y_t only
    for t in (0, 5, 11):
        m_t, c_t, _ = joint_posterior(Y[: t + 1])
        np.testing.assert_allclose(kf.filtered_means[t], m_t[t], atol=1e-10)
        np.testing.assert_allclose(kf.filtered_covs[t], c_t[2 * t : 2 * t + 2, 2 * t : 2 * t + 2], atol=1e-10)
    assert kf.log_likelihood == pytest.approx(loglik, rel=1e-10)
    np.testing.assert_allclose(sm.means[-1], kf.filtered_means[-1])


def test_joseph_update_equals_the_notes_form():
    Y = simulate(6)
    kf = kalman_filter(Y, A, C, Qs, Ry, m0, P0)
    for t in range(6):
        Pp, K = kf.predicted_covs[t], kf.gains[t]
        np.testing.assert_allclose(kf.filtered_covs[t], Pp - K @ C @ Pp, atol=1e-12)
        np.testing.assert_allclose(K, Pp @ C.T @ np.linalg.inv(C @ Pp @ C.T + Ry), atol=1e-12)


def test_scalar_random_walk_steady_state_gain_closed_form():
    q, r = 0.5, 2.0
    P_closed = (q + np.sqrt(q * q + 4 * q * r)) / 2
    K_closed = P_closed / (P_closed + r)
    P, K, post = steady_state_kalman([[1.0]], [[1.0]], [[q]], [[r]])
    assert P[0, 0] == pytest.approx(P_closed, rel=1e-10)
    assert K[0, 0] == pytest.approx(K_closed, rel=1e-10)
    assert post[0, 0] == pytest.approx(P_closed * r / (P_closed + r), rel=1e-10)
    # the running filter's gain converges to it
    y = np.random.default_rng(0).normal(size=60)
    kf = kalman_filter(y, [[1.0]], [[1.0]], [[q]], [[r]], [0.0], [[10.0]])
    assert kf.gains[-1, 0, 0] == pytest.approx(K_closed, rel=1e-8)
    # and the multivariate fixed point is the dual DARE
    P2, _, _ = steady_state_kalman(A, C, Qs, Ry)
    np.testing.assert_allclose(P2, scipy.linalg.solve_discrete_are(A.T, C.T, Qs, Ry), rtol=1e-8)


def test_controls_and_missing_observations():
    Y = simulate(5)
    B = np.array([[0.0], [1.0]])
    U = np.ones((5, 1))
    kf = kalman_filter(Y, A, C, Qs, Ry, m0, P0, B=B, controls=U)
    np.testing.assert_allclose(kf.predicted_means[1], A @ kf.filtered_means[0] + B @ U[0])
    Y2 = Y.copy()
    Y2[2] = np.nan
    kf2 = kalman_filter(Y2, A, C, Qs, Ry, m0, P0)
    np.testing.assert_allclose(kf2.filtered_means[2], kf2.predicted_means[2])
    assert np.trace(kf2.filtered_covs[2]) > np.trace(kalman_filter(Y, A, C, Qs, Ry, m0, P0).filtered_covs[2])


@pytest.mark.parametrize(
    "change, match",
    [
        ({"C": np.ones((1, 3))}, "C must have shape"),
        ({"obs_cov": np.ones((2, 2))}, "obs_cov must have shape"),
        ({"observations": np.ones((4, 2))}, "observations must have shape"),
        ({"initial_mean": np.zeros(3)}, "initial_mean"),
        ({"process_cov": -np.eye(2)}, "positive semi-definite"),
    ],
)
def test_bad_inputs_raise(change, match):
    args = {
        "observations": simulate(4),
        "A": A,
        "C": C,
        "process_cov": Qs,
        "obs_cov": Ry,
        "initial_mean": m0,
        "initial_cov": P0,
    } | change
    with pytest.raises(ControlInputError, match=match):
        kalman_filter(**args)
