"""Errors of :mod:`replearn.rl` (subclasses of the package's base types).

Both are ``ValueError`` subclasses, so callers catching ``ValueError`` still catch them.
"""

from __future__ import annotations

from ..exceptions import ReplearnError

__all__ = ["ImproperMDPError", "MDPValidationError"]


class MDPValidationError(ReplearnError, ValueError):
    """An MDP's arrays are invalid: wrong shapes, rows of P that do not sum to 1, a discount outside [0, 1]."""


class ImproperMDPError(MDPValidationError):
    """Undiscounted (gamma = 1) problem whose total reward is not well defined.

    Raised when no absorbing zero-reward set exists, when some state cannot reach it under any policy,
    when some policy can avoid it forever without a strictly negative reward each step (so its total
    reward is 0 or +inf and the Bellman equations have no unique solution), or when an improper policy
    is evaluated.
    """
