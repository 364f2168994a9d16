"""Errors of :mod:`replearn.control` (a subclass of the package's base type and of ``ValueError``)."""

from __future__ import annotations

from ..exceptions import ReplearnError

__all__ = ["ControlInputError"]


class ControlInputError(ReplearnError, ValueError):
    """Matrices given to an LQR / Kalman / LQG / iLQR routine have inconsistent shapes or invalid values."""
