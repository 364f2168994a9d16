"""Reinforcement learning on finite and continuous MDPs (CS229 notes chapters 15-17, seed 000).

* :mod:`.mdp` -- :class:`FiniteMDP` (validated ``P``, ``R``, ``gamma``; properness check for gamma = 1);
* :mod:`.planning` -- :func:`policy_evaluation`, :func:`value_iteration`, :func:`policy_iteration`,
  :func:`greedy_policy` (§15.1-15.2, 15.5);
* :mod:`.model_learning` -- :class:`ModelEstimator`, :func:`model_based_rl` (§15.3);
* :mod:`.continuous` -- :class:`StateGrid`, :func:`discretize_mdp`, :func:`fitted_value_iteration` (§15.4);
* :mod:`.finite_horizon` -- :func:`finite_horizon_dp` (§16.1);
* :mod:`.policy_gradient` -- softmax and Gaussian policies, :func:`reinforce` (ch. 17);
* :mod:`.envs` -- grid worlds, cart-pole, pendulum, linear-Gaussian system.

LQR, Kalman filtering, LQG and iLQR/DDP (ch. 16.2-16.4) live in :mod:`replearn.control`.
"""

from .continuous import (
    FittedVIResult,
    StateGrid,
    discretize_mdp,
    fitted_value_iteration,
    quadratic_features,
)
from .exceptions import ImproperMDPError, MDPValidationError
from .finite_horizon import FiniteHorizonSolution, finite_horizon_dp
from .mdp import FiniteMDP
from .model_learning import ModelBasedRLResult, ModelEstimator, model_based_rl
from .planning import (
    MDPSolution,
    greedy_policy,
    policy_evaluation,
    policy_iteration,
    value_iteration,
)
from .policy_gradient import (
    GaussianPolicy,
    ReinforceResult,
    SoftmaxPolicy,
    Trajectories,
    collect_trajectories,
    exact_policy_gradient,
    expected_return,
    policy_gradient,
    reinforce,
    sample_mdp_trajectories,
)

__all__ = [
    "FiniteHorizonSolution",
    "FiniteMDP",
    "FittedVIResult",
    "GaussianPolicy",
    "ImproperMDPError",
    "MDPSolution",
    "MDPValidationError",
    "ModelBasedRLResult",
    "ModelEstimator",
    "ReinforceResult",
    "SoftmaxPolicy",
    "StateGrid",
    "Trajectories",
    "collect_trajectories",
    "discretize_mdp",
    "exact_policy_gradient",
    "expected_return",
    "finite_horizon_dp",
    "fitted_value_iteration",
    "greedy_policy",
    "model_based_rl",
    "policy_evaluation",
    "policy_gradient",
    "policy_iteration",
    "quadratic_features",
    "reinforce",
    "sample_mdp_trajectories",
    "value_iteration",
]
