"""The small environment interface shared by :mod:`replearn.rl.envs`.

``reset(seed=None) -> (observation, info)`` and
``step(action) -> (observation, reward, terminated, truncated, info)`` (the Gymnasium convention):
``terminated`` means the MDP reached a terminal state, ``truncated`` that a time limit cut the
episode. Randomness comes only from the generator built from ``random_state`` at construction
(:func:`replearn.validation.check_random_state`); ``reset(seed=...)`` replaces it.
"""

from __future__ import annotations

from ...validation import check_random_state

__all__ = ["Env"]


class Env:
    """Base class: subclasses set ``observation_space``/``action_space`` and implement ``_reset``/``_step``."""

    observation_space = None
    action_space = None

    def __init__(self, random_state=None, max_steps: int | None = None):
        self.random_state = random_state
        self.max_steps = max_steps
        self.rng = check_random_state(random_state)
        self._t = 0
        self._needs_reset = True

    def reset(self, seed=None):
        """Start an episode; ``seed`` (int or Generator) re-seeds the environment's generator."""
        if seed is not None:
            self.rng = check_random_state(seed)
        self._t = 0
        self._needs_reset = False
        return self._reset(), {}

    def step(self, action):
        if self._needs_reset:
            raise RuntimeError("call reset() before step() (and again after an episode ends)")
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in the action space {self.action_space}")
        obs, reward, terminated, info = self._step(action)
        self._t += 1
        truncated = bool(self.max_steps is not None and self._t >= self.max_steps and not terminated)
        if terminated or truncated:
            self._needs_reset = True
        return obs, float(reward), bool(terminated), truncated, info

    def _reset(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _step(self, action):  # pragma: no cover - abstract
        raise NotImplementedError
