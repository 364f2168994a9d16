"""The expectation-maximization loop, shared by every latent-variable model in replearn.

EM maximizes a log-likelihood ``l(theta) = sum_i log sum_z p(x_i, z; theta)`` by coordinate ascent
on the evidence lower bound (CS229 notes §11.3, seed 000 L4414-4605; CIML §16.3, seed 001
L4913-4968)::

    E-step:  Q_i(z) := p(z | x_i; theta)              (the bound touches l at theta)
    M-step:  theta  := argmax_theta sum_i sum_z Q_i(z) log( p(x_i, z; theta) / Q_i(z) )

so ``l(theta_{t+1}) >= l(theta_t)``. A model supplies the two steps as callables and this
module iterates them:

* ``e_step(params) -> (stats, loglik)``: the expected sufficient statistics (responsibilities,
  posterior moments, ...) *and* the log-likelihood of ``params`` -- both come out of the same
  computation for every model here (the normalizer of the posterior is the likelihood);
* ``m_step(stats) -> params``.

The loop (:func:`expectation_maximization`)::

    stats, l_0 = e_step(theta_0)
    for t = 1 .. max_iter:
        theta_t = m_step(stats);  stats, l_t = e_step(theta_t)
        stop if l_t - l_{t-1} < tol

It records ``l_0 .. l_T`` (``n_iter + 1`` values, where ``n_iter`` counts M-steps), raises
:class:`~replearn.exceptions.DivergenceError` when ``l_t`` is NaN or infinite, raises
:class:`EMMonotonicityError` when ``l_t`` falls below ``l_{t-1}`` by more than
``monotone_tol * max(1, |l_{t-1}|)`` -- for exact EM that signals a bug in one of the steps, so it
is checked on every run, not only in tests -- and warns
:class:`~replearn.exceptions.ConvergenceWarning` after ``max_iter`` M-steps without meeting
``tol``. Models that are only approximately EM (a variance floor, a covariance ridge) pass a
looser ``monotone_tol``.

The stopping rule on the *mean* per-example log-likelihood with ``tol = 1e-3`` is scikit-learn's
(``GaussianMixture``); the notes' rule is the same "stop when the increase is below a tolerance"
(CS229 L4596). Unlike scikit-learn, the loop stops on the increase produced by the latest
M-step, so it makes one M-step fewer for the same ``tol``; with ``tol=0`` both make the same
``max_iter`` M-steps from the same start (this loop stops earlier only at a fixed point, when an
M-step lowers the log-likelihood by rounding).

Users: :class:`~replearn.models.mixture.gaussian_mixture.GaussianMixture`,
:class:`~replearn.models.mixture.grading.ExamGrader` (CIML §16.1) and
:class:`~replearn.models.decomposition.factor_analysis.FactorAnalysis`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...exceptions import ConvergenceWarning, DivergenceError, ReplearnError

__all__ = ["EMResult", "EMMonotonicityError", "expectation_maximization"]


class EMMonotonicityError(ReplearnError, ArithmeticError):
    """An EM iteration decreased the log-likelihood by more than rounding allows."""


@dataclass
class EMResult:
    """Outcome of :func:`expectation_maximization`.

    ``log_likelihood_history[t]`` is the log-likelihood after ``t`` M-steps (entry 0: the start),
    ``stats`` the E-step statistics of the final ``params`` (e.g. the final responsibilities).
    """

    params: Any
    stats: Any
    log_likelihood_history: np.ndarray
    n_iter: int
    converged: bool

    @property
    def log_likelihood(self) -> float:
        return float(self.log_likelihood_history[-1])


def expectation_maximization(
    params: Any,
    e_step: Callable[[Any], tuple[Any, float]],
    m_step: Callable[[Any], Any],
    *,
    tol: float = 1e-3,
    max_iter: int = 100,
    monotone_tol: float = 1e-9,
    name: str = "EM",
    warn: bool = True,
) -> EMResult:
    """Alternate ``e_step`` and ``m_step`` from ``params`` until the log-likelihood gain is below ``tol``.

    Parameters
    ----------
    params : the starting parameters (any object ``e_step`` accepts).
    e_step : ``params -> (stats, loglik)``.
    m_step : ``stats -> params``.
    tol : float >= 0
        Stop when one M-step raises the log-likelihood by less than ``tol`` (``tol=0``: run
        ``max_iter`` M-steps unless one lowers it by rounding, at a fixed point).
    max_iter : int >= 0
        Most M-steps. ``0`` evaluates the start only.
    monotone_tol : float >= 0 or ``inf``
        Allowed relative decrease per iteration (``inf`` disables the check).
    name : used in the messages.
    warn : bool
        Warn ``ConvergenceWarning`` at ``max_iter`` (a model running several restarts warns once
        itself instead).
    """
    if not (tol >= 0):
        raise ValueError(f"tol must be >= 0, got {tol!r}")
    if int(max_iter) != max_iter or max_iter < 0:
        raise ValueError(f"max_iter must be an integer >= 0, got {max_iter!r}")
    stats, ll = e_step(params)
    _check_finite(ll, 0, name)
    history = [float(ll)]
    converged = False
    n_iter = 0
    for n_iter in range(1, int(max_iter) + 1):
        params = m_step(stats)
        stats, ll = e_step(params)
        _check_finite(ll, n_iter, name)
        prev = history[-1]
        history.append(float(ll))
        gain = ll - prev
        if gain < -monotone_tol * max(1.0, abs(prev)):
            raise EMMonotonicityError(
                f"{name}: iteration {n_iter} decreased the log-likelihood from {prev:.12g} to {ll:.12g} "
                f"(by {-gain:.3g}); exact EM never does, so the E- or M-step is wrong or the problem is "
                "numerically degenerate"
            )
        if gain < tol:
            converged = True
            break
    if max_iter == 0:
        converged = False
    if not converged and warn and max_iter > 0:
        warnings.warn(
            f"{name} did not converge: the log-likelihood still rose by more than tol={tol} after "
            f"max_iter={max_iter} iterations; increase max_iter or tol",
            ConvergenceWarning,
            stacklevel=3,
        )
    return EMResult(
        params=params,
        stats=stats,
        log_likelihood_history=np.asarray(history),
        n_iter=n_iter,
        converged=converged,
    )


def _check_finite(ll, iteration: int, name: str) -> None:
    if not np.isfinite(ll):
        raise DivergenceError(
            f"{name}: the log-likelihood became {ll} at iteration {iteration}; a component may have "
            "collapsed onto a single point (increase the covariance regularization) or the data "
            "contain extreme values"
        )
