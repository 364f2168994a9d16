"""CS229 notes Part V (RL and control): the 4x3 world, value iteration, LQR, the Kalman filter, REINFORCE.

==========================================  ================================================================
catalogue entry                             record(s)
==========================================  ================================================================
extra.aima-4x3 (AIMA Fig. 17.3)             the nine V* values of the 4x3 world by value iteration (the
                                            world of the CS229 lectures; its values are printed in AIMA,
                                            not in the five texts)
cs229.value-iteration-contraction (§16.1)   ||V_t+1 - V*|| <= gamma ||V_t - V*|| at every sweep; V_t -> V*
cs229.lqr-riccati (§16.2)                   stationary P = the discrete Riccati solution (scipy); the
                                            notes' corrected recursion for Phi_t, L_t; gains ignore the noise
cs229.lqr-noise-trace (§16.2 L5772)         Psi_t = Psi_t+1 + tr(Sigma Phi_t+1) (the notes print - tr: an
                                            erratum); V_0 = s'Phi_0 s + Psi_0 against the closed-loop cost
                                            simulated by replearn.control.simulate_lqg
cs229.kalman (§16.4)                        filtered means, covariances and likelihood = conditioning the
                                            joint Gaussian of all states and observations
cs229.pg-baseline (§17 L6008-6030)          the 1001 z / -998 z example with and without baseline 1000;
                                            E[sum grad log pi] = 0; REINFORCE is unbiased
==========================================  ================================================================

AIMA's values are printed to three decimals (tolerance half a unit, 0.0005). Exact identities are held
to 1e-8 relative (the Riccati iteration's own tolerance is 1e-12) or 1e-9; Monte Carlo quantities to
four standard errors, named in the record. Runs in about half a second.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg

from .. import rl
from ..control import kalman_filter, lqg, lqr, simulate_lqg
from ..rl import FiniteMDP, SoftmaxPolicy, Trajectories, exact_policy_gradient, policy_gradient
from ..rl.envs import russell_norvig_4x3
from .record import ExperimentResult, Recorder, register

PRESET = "cs229_control"
NOTES = "CS229 notes"

# AIMA 3rd ed. Fig. 17.3 (gamma = 1, R(s) = -0.04, noise 0.2): state index (envs.gridworld) -> U(s)
AIMA_4X3 = {
    0: ("(1,3)", "0.812"),
    1: ("(2,3)", "0.868"),
    2: ("(3,3)", "0.918"),
    4: ("(1,2)", "0.762"),
    5: ("(3,2)", "0.660"),
    7: ("(1,1)", "0.705"),
    8: ("(2,1)", "0.655"),
    9: ("(3,1)", "0.611"),
    10: ("(4,1)", "0.388"),
}

# a double integrator (position, velocity), as in tests/control
A = np.array([[1.0, 0.1], [0.0, 1.0]])
B = np.array([[0.005], [0.1]])
Q = np.diag([1.0, 0.1])
R = np.array([[0.01]])
SIGMA = np.diag([0.02, 0.05])


@register(PRESET)
def run(data_dir=None, *, seed: int, quick: bool = False) -> ExperimentResult:
    """The records of the module table; ``data_dir`` is unused."""
    rng = np.random.default_rng(seed)
    rec = Recorder(PRESET)
    curves, tables = {}, {}
    tables["gridworld_4x3"] = _gridworld(rec)
    curves["value_iteration_error"] = _contraction(rec, seed)
    _lqr(rec, rng, quick)
    _kalman(rec, rng)
    _policy_gradient(rec, seed, quick)
    notes = (
        "CS229 lecture notes (seed 000) Part V: value iteration on the 4x3 world of the lectures (values printed in "
        "Russell & Norvig, AIMA 3rd ed., Fig. 17.3 -- counted outside the texts' catalogue), the contraction of the "
        "Bellman backup (§16.1), LQR with the corrected Riccati recursion and its noise term (§16.2), the Kalman "
        "filter (§16.4) and REINFORCE's "
        f"baseline example (§17). Seed {seed}."
    )
    return rec.result(curves, tables, notes)


def _gridworld(rec: Recorder) -> dict:
    world = russell_norvig_4x3(living_reward=-0.04, noise=0.2).to_mdp(1.0)
    vi = rl.value_iteration(world, tol=1e-10)
    for s, (cell, printed) in AIMA_4X3.items():
        rec.add(
            "AIMA 3rd ed. Fig. 17.3 (Russell & Norvig; the 4x3 world of the CS229 lectures -- not in the five texts -- "
            "solved by the value iteration of the notes §15.2): gamma = 1, living reward -0.04, noise 0.2; printed to "
            "3 decimals",
            f"V* of cell {cell}",
            float(printed),
            float(vi.values[s]),
            0.0005,
            example="extra.aima-4x3",
            measured_by=("replearn.rl.value_iteration", "replearn.rl.envs.russell_norvig_4x3"),
        )
    return {cell: float(vi.values[s]) for s, (cell, _) in AIMA_4X3.items()}


def _random_mdp(seed: int, S: int = 20, A_: int = 3, gamma: float = 0.9) -> FiniteMDP:
    rng = np.random.default_rng(seed)
    return FiniteMDP(rng.dirichlet(np.ones(S) * 0.5, size=(S, A_)), rng.normal(size=(S, A_)), gamma)


def _contraction(rec: Recorder, seed: int) -> dict:
    mdp = _random_mdp(seed)
    v_star = rl.policy_iteration(mdp).values  # exact: a linear solve per policy
    vi = rl.value_iteration(mdp, tol=1e-10, keep_values=True)
    errors = np.max(np.abs(np.asarray(vi.value_history) - v_star), axis=1)
    excess = np.max(errors[1:] - mdp.gamma * errors[:-1])
    rec.add(
        f"{NOTES} §16.1 L5696-5702: ||B(V) - V*||_inf <= gamma ||V - V*||_inf (gamma = 0.9, a random 20-state MDP; "
        "V* by policy iteration); tolerance 1e-12 (round-off)",
        "largest excess of ||V_t+1 - V*|| over gamma ||V_t - V*|| (value iteration from V = 0)",
        0.0,
        max(0.0, float(excess)),
        1e-12,
        example="cs229.value-iteration-contraction",
        provenance="invariant",
        measured_by=("replearn.rl.value_iteration", "replearn.rl.policy_iteration"),
    )
    rec.add(
        f"{NOTES} §15.2: value iteration converges to V* (stopped at the guaranteed bound 1e-10)",
        "||V_final - V*||_inf of value iteration",
        0.0,
        float(errors[-1]),
        1e-9,
        example="cs229.value-iteration-contraction",
        provenance="invariant",
        measured_by=("replearn.rl.value_iteration", "replearn.rl.policy_iteration"),
    )
    t = np.arange(len(errors))
    return {
        "x": t.tolist(),
        "error": errors.tolist(),
        "gamma^t error_0": (errors[0] * mdp.gamma**t).tolist(),
        "x_label": "sweep t",
        "y_label": "||V_t - V*||_inf",
    }


def _lqr(rec: Recorder, rng: np.random.Generator, quick: bool) -> None:
    stationary = lqr(A, B, Q, R)
    P = scipy.linalg.solve_discrete_are(A, B, Q, R)
    rec.add(
        f"{NOTES} §16.2 L5704-5782: the stationary Phi solves the Riccati equation (here against "
        "scipy.linalg.solve_discrete_are, cost form P = -Phi); tolerance 1e-8 relative",
        "max relative |P (replearn) - P (discrete Riccati solution)|",
        0.0,
        float(np.max(np.abs(stationary.cost_to_go - P)) / np.max(np.abs(P))),
        1e-8,
        example="cs229.lqr-riccati",
        provenance="invariant",
        measured_by="replearn.control.lqr",
    )
    T = 5
    finite = lqr(A, B, Q, R, horizon=T)
    L, Phi, _ = finite.notes_form()
    U, W = Q, R
    worst = 0.0
    for t in range(T):
        Pn = Phi[t + 1]
        L_notes = np.linalg.solve(W - B.T @ Pn @ B, B.T @ Pn @ A)
        Phi_notes = A.T @ (Pn - Pn @ B @ np.linalg.solve(B.T @ Pn @ B - W, B.T @ Pn)) @ A - U
        worst = max(worst, float(np.max(np.abs(L[t] - L_notes))), float(np.max(np.abs(Phi[t] - Phi_notes))))
    rec.add(
        f"{NOTES} §16.2 L5758-5772, corrected (catalogue §6): L_t = (W - B'Phi B)^-1 B'Phi A, "
        "Phi_t = A'(Phi - Phi B (B'Phi B - W)^-1 B'Phi) A - U; tolerance 1e-9",
        f"max |replearn's (L_t, Phi_t) - the notes' recursion| over T = {T} steps",
        0.0,
        worst,
        1e-9,
        example="cs229.lqr-riccati",
        provenance="invariant",
        measured_by="replearn.control.lqr",
    )
    noisy = lqr(A, B, Q, R, horizon=15, noise_cov=SIGMA)
    rec.add(
        f"{NOTES} §16.2 L5780-5782: the optimal policy does not depend on the noise Sigma (only Psi_t does)",
        "max |gains with noise - gains without| (T = 15)",
        0.0,
        float(np.max(np.abs(noisy.gains - lqr(A, B, Q, R, horizon=15).gains))),
        1e-12,
        example="cs229.lqr-riccati",
        provenance="invariant",
        measured_by="replearn.control.lqr",
    )

    _, Phi, Psi = noisy.notes_form()
    rec.add(
        f"{NOTES} §16.2 L5772 **erratum**: the notes print Psi_t = -tr(Sigma Phi_t+1) + Psi_t+1; the expected "
        "reward of the noise is Psi_t = Psi_t+1 + tr(Sigma Phi_t+1) (catalogue §6, checked by the simulation "
        "below); Psi_0 - Psi_1 of replearn's LQR (T = 15, Sigma = diag(0.02, 0.05)), tolerance 1e-12",
        "Psi_0 - Psi_1 of the noisy LQR (notes' reward form)",
        float(np.trace(SIGMA @ Phi[1])),
        float(Psi[0] - Psi[1]),
        1e-12,
        example="cs229.lqr-noise-trace",
        provenance="erratum",
        erratum=-float(np.trace(SIGMA @ Phi[1])),
        measured_by="replearn.control.lqr",
    )
    m = 4000 if quick else 20000
    x0 = np.array([1.0, -0.5])
    full = lqg(A, B, np.eye(2), Q, R, SIGMA, 1e-8 * np.eye(2), x0, np.zeros((2, 2)), 15)
    cost = simulate_lqg(full, m, random_state=rng, full_state=True)
    rec.add(
        f"{NOTES} §16.2 L5772 (corrected sign): -V_0(s_0) = s_0'P_0 s_0 + c_0 with c_t = c_t+1 + tr(Sigma P_t+1) "
        f"from replearn's LQR, against the closed-loop cost of {m} rollouts of the LQR policy on the true state "
        "(T = 15); tolerance 4 standard errors",
        "mean simulated closed-loop cost from s_0 = (1, -0.5)",
        float(x0 @ noisy.cost_to_go[0] @ x0 + noisy.offsets[0]),
        float(cost.mean()),
        4 * float(cost.std(ddof=1)) / math.sqrt(m),
        example="cs229.lqr-noise-trace",
        provenance="invariant",
        measured_by=("replearn.control.simulate_lqg", "replearn.control.lqr"),
    )


KA = np.array([[1.0, 0.2], [0.0, 0.9]])
KC = np.array([[1.0, 0.0]])
KQ = np.diag([0.05, 0.1])
KR = np.array([[0.3]])
K_M0 = np.array([0.5, -1.0])
K_P0 = np.diag([1.0, 0.5])


def _joint_posterior(Y: np.ndarray):
    """The notes' naive approach (L5878-5902): condition the joint Gaussian of (x_0..x_T-1, y_0..y_T-1)."""
    T, n = Y.shape[0], 2
    var, mean = [K_P0], [K_M0]
    for _ in range(T - 1):
        var.append(KA @ var[-1] @ KA.T + KQ)
        mean.append(KA @ mean[-1])
    Sxx = np.zeros((T * n, T * n))
    for s in range(T):
        for t in range(s, T):
            blk = var[s] @ np.linalg.matrix_power(KA, t - s).T
            Sxx[s * n : (s + 1) * n, t * n : (t + 1) * n] = blk
            Sxx[t * n : (t + 1) * n, s * n : (s + 1) * n] = blk.T
    Cb = np.kron(np.eye(T), KC)
    Sxy = Sxx @ Cb.T
    Syy = Cb @ Sxx @ Cb.T + np.kron(np.eye(T), KR)
    mx = np.concatenate(mean)
    gain = scipy.linalg.solve(Syy, Sxy.T, assume_a="pos").T
    resid = Y.ravel() - Cb @ mx
    post_mean = (mx + gain @ resid).reshape(T, n)
    post_cov = Sxx - gain @ Sxy.T
    loglik = -0.5 * (resid @ np.linalg.solve(Syy, resid) + np.linalg.slogdet(Syy)[1] + T * np.log(2 * np.pi))
    return post_mean, post_cov, float(loglik)


def _kalman(rec: Recorder, rng: np.random.Generator) -> None:
    T = 12
    x = rng.multivariate_normal(K_M0, K_P0)
    ys = []
    for _ in range(T):
        ys.append(KC @ x + rng.multivariate_normal(np.zeros(1), KR))
        x = KA @ x + rng.multivariate_normal(np.zeros(2), KQ)
    Y = np.array(ys)
    kf = kalman_filter(Y, KA, KC, KQ, KR, K_M0, K_P0)
    mean_err, cov_err = 0.0, 0.0
    for t in range(T):  # filtering at t = conditioning on y_0..y_t only
        m_t, c_t, _ = _joint_posterior(Y[: t + 1])
        mean_err = max(mean_err, float(np.max(np.abs(kf.filtered_means[t] - m_t[t]))))
        cov_err = max(cov_err, float(np.max(np.abs(kf.filtered_covs[t] - c_t[2 * t : 2 * t + 2, 2 * t : 2 * t + 2]))))
    _, _, loglik = _joint_posterior(Y)
    source = (
        f"{NOTES} §16.4 L5858-5944: the Kalman filter's belief N(s_t|t, Sigma_t|t) equals conditioning the joint "
        "Gaussian of all states and observations (the naive O(t^3) approach); tolerance 1e-9"
    )
    rec.add(
        source,
        "max |filtered mean - joint-Gaussian posterior mean| (T = 12)",
        0.0,
        mean_err,
        1e-9,
        example="cs229.kalman",
        provenance="invariant",
        measured_by="replearn.control.kalman_filter",
    )
    rec.add(
        source,
        "max |filtered covariance - joint-Gaussian posterior covariance|",
        0.0,
        cov_err,
        1e-9,
        example="cs229.kalman",
        provenance="invariant",
        measured_by="replearn.control.kalman_filter",
    )
    rec.add(
        source,
        "Kalman log-likelihood of y_0..y_T-1 minus the joint Gaussian's",
        0.0,
        float(kf.log_likelihood) - loglik,
        1e-9,
        example="cs229.kalman",
        provenance="invariant",
        measured_by="replearn.control.kalman_filter",
    )


def _policy_gradient(rec: Recorder, seed: int, quick: bool) -> None:
    # notes footnote L6030: two trajectories, returns 1001 and 998, scores z and -z (uniform policy, two actions)
    pol = SoftmaxPolicy.tabular(1, 2)
    theta = np.zeros(2)
    tr = Trajectories(
        np.zeros((2, 1), dtype=int), np.array([[0], [1]]), np.array([[1001.0], [998.0]]), np.ones((2, 1), dtype=bool)
    )
    z = 0.5  # grad log pi(a = 0) = (1/2, -1/2) = z (1, -1)
    _, plain = policy_gradient(tr, pol, theta, gamma=0.9)
    _, based = policy_gradient(tr, pol, theta, gamma=0.9, baseline=lambda t, s: np.full(len(s), 1000.0))
    source = f"{NOTES} §17 L6030: returns 1000 + 1 and 1000 - 2 with scores z and -z"
    ex = "cs229.pg-baseline"
    by = "replearn.rl.policy_gradient"
    rec.add(
        source,
        "trajectory 1's estimate in units of z, no baseline",
        1001.0,
        plain[0, 0] / z,
        1e-9,
        example=ex,
        measured_by=by,
    )
    rec.add(
        source,
        "trajectory 2's estimate in units of z, no baseline",
        -998.0,
        plain[1, 0] / z,
        1e-9,
        example=ex,
        measured_by=by,
    )
    rec.add(
        source + ", baseline 1000",
        "trajectory 1's estimate in units of z, baseline 1000",
        1.0,
        based[0, 0] / z,
        1e-9,
        example=ex,
        measured_by=by,
    )
    rec.add(
        source + ", baseline 1000",
        "trajectory 2's estimate in units of z, baseline 1000",
        2.0,
        based[1, 0] / z,
        1e-9,
        example=ex,
        measured_by=by,
    )

    mdp = _random_mdp(seed + 1, S=3, A_=2)
    pol = SoftmaxPolicy.tabular(3, 2)
    theta = np.random.default_rng(seed + 2).normal(size=6)
    n = 8000 if quick else 30000
    batch = rl.sample_mdp_trajectories(mdp, pol, theta, n, 4, random_state=seed + 3)
    ones = Trajectories(batch.observations, batch.actions, np.ones_like(batch.rewards), batch.mask)
    est, samples = policy_gradient(ones, pol, theta, gamma=1.0, estimator="total")
    se = samples.std(axis=0, ddof=1) / math.sqrt(n)
    rec.add(
        f"{NOTES} §17 L6008 (eq. 17.9): with f = 1 the estimate is E[sum_t grad log pi(a_t|s_t)] = 0; "
        f"{n} trajectories, in units of the estimate's standard error (tolerance 4)",
        "largest |component of the mean score| / its standard error",
        0.0,
        float(np.max(np.abs(est) / se)),
        4.0,
        example=ex,
        provenance="invariant",
        measured_by=("replearn.rl.policy_gradient", "replearn.rl.sample_mdp_trajectories"),
    )
    exact = exact_policy_gradient(mdp, pol, theta, horizon=4)
    est, samples = policy_gradient(batch, pol, theta, gamma=mdp.gamma)
    se = samples.std(axis=0, ddof=1) / math.sqrt(n)
    rec.add(
        f"{NOTES} §17 eqs. 17.8-17.10: REINFORCE (reward to go) is unbiased; exact gradient by enumeration over the "
        f"horizon-4 MDP, {n} trajectories; in standard errors (tolerance 4)",
        "largest |REINFORCE estimate - exact gradient| / standard error",
        0.0,
        float(np.max(np.abs(est - exact) / se)),
        4.0,
        example=ex,
        provenance="invariant",
        measured_by=("replearn.rl.policy_gradient", "replearn.rl.exact_policy_gradient"),
    )
