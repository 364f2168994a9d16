"""The argmax problem as an integer linear program (CIML §17.6, seed 001 L5294-5326).

For sequence labelling with unary and Markov features (the scores of :mod:`.viterbi`), CIML casts
``argmax_y w . phi(x, y)`` as an ILP over binary indicators (eq. 17.33)::

    z[l, k', k] = 1[label l is k and label l-1 is k']          (l = 2..L; position 1 has only z[1, k])

with objective coefficients (eq. 17.34) ``a[l, k', k] = w . phi_l(x, <..., k', k>)`` -- here
``unary[l, k] + transition[k', k]`` (``unary[0, k]`` for the first position) -- and the constraints

1. every ``z`` is binary;
2. one active ``z`` per position: ``sum_{k, k'} z[l, k', k] = 1``;
3. consistency: ``sum_{k'} z[l, k', k] = sum_{k''} z[l+1, k, k'']`` for every l and k (the label read at
   position l from its incoming indicator is the one leaving it).

``max_z a . z`` then equals ``max_y s(y)``, and y is read off the active indicators. :func:`ilp_argmax`
solves it with SciPy's HiGHS MILP solver (``scipy.optimize.milp``); ``relax=True`` drops the integrality
constraints: for a chain the constraint matrix is that of a shortest-path flow (totally unimodular), so the
LP relaxation has an integral optimum -- a property the tests check, and the reason the DP of Alg. 42 is
exact. The loss-augmented argmax of the structured SVM (eq. 17.53, "the objective function of the ILP will
need to be modified to include terms corresponding to the loss") adds ``1[k != gold[l]]`` to ``a``.

This is the generic, slow route the text recommends for prototyping ("Will it be as efficient as the
dynamic program? Probably not."): O(L K^2) variables; :func:`~replearn.structured.viterbi` is the fast one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .viterbi import _check_gold, _check_scores

__all__ = ["ILPArgmax", "ilp_argmax"]


@dataclass(frozen=True)
class ILPArgmax:
    """labels : (L,) argmax sequence; score : its score a . z (loss included when augmented);
    z : the solver's indicator values (``z[0]`` of shape (K,), then (K, K) per later position);
    n_variables, n_constraints : size of the program; integral : whether every z is 0 or 1 (to 1e-9)."""

    labels: np.ndarray
    score: float
    z: list
    n_variables: int
    n_constraints: int
    integral: bool


def _program(unary: np.ndarray, transition: np.ndarray):
    """Objective a (flattened: K entries for position 0, then K*K per position, row k', column k) and the
    equality constraints A z = b (one per position, then consistency for l = 0..L-2 and every k)."""
    L, K = unary.shape
    n_vars = K + (L - 1) * K * K
    a = np.empty(n_vars)
    a[:K] = unary[0]
    for pos in range(1, L):
        start = K + (pos - 1) * K * K
        a[start : start + K * K] = (transition + unary[pos][None, :]).ravel()
    rows = []

    def block(pos):  # the slice of z belonging to position pos
        if pos == 0:
            return slice(0, K)
        start = K + (pos - 1) * K * K
        return slice(start, start + K * K)

    for pos in range(L):  # constraint 2: one active indicator per position
        row = np.zeros(n_vars)
        row[block(pos)] = 1.0
        rows.append((row, 1.0))
    for pos in range(L - 1):  # constraint 3: incoming label at pos = outgoing label at pos + 1
        for k in range(K):
            row = np.zeros(n_vars)
            if pos == 0:
                row[k] = 1.0
            else:
                incoming = np.zeros((K, K))
                incoming[:, k] = 1.0
                row[block(pos)] = incoming.ravel()
            outgoing = np.zeros((K, K))
            outgoing[k, :] = 1.0
            row[block(pos + 1)] -= outgoing.ravel()
            rows.append((row, 0.0))
    A = np.array([r for r, _ in rows])
    b = np.array([v for _, v in rows])
    return a, A, b, block


def ilp_argmax(unary, transition, *, gold=None, relax: bool = False) -> ILPArgmax:
    """``argmax_y s(y)`` (``+ Hamming(gold, y)`` when ``gold`` is given) as CIML's ILP (module docstring).

    ``unary`` (L, K) and ``transition`` (K, K) are the scores of :func:`~replearn.structured.viterbi`;
    ``relax=True`` solves the linear relaxation (0 <= z <= 1) instead. Raises ``RuntimeError`` when the
    solver reports no optimum (it always has one for these programs).
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    unary, transition = _check_scores(unary, transition)
    L, K = unary.shape
    if gold is not None:
        g = _check_gold(gold, L, K)
        unary = unary + (np.arange(K)[None, :] != g[:, None])  # + 1[k != y_l]  (eq. 17.53)
    a, A, b, block = _program(unary, transition)
    res = milp(
        c=-a,  # milp minimizes
        constraints=LinearConstraint(A, b, b),
        integrality=None if relax else np.ones(a.size),
        bounds=Bounds(0.0, 1.0),
    )
    if res.x is None or not res.success:
        raise RuntimeError(f"the ILP solver found no optimum: {res.message}")
    z = np.asarray(res.x)
    labels = np.empty(L, dtype=np.int64)
    labels[0] = int(np.argmax(z[block(0)]))
    zs = [z[block(0)].copy()]
    for pos in range(1, L):
        zz = z[block(pos)].reshape(K, K)
        zs.append(zz.copy())
        labels[pos] = int(np.argmax(zz.sum(axis=0)))
    integral = bool(np.all(np.minimum(np.abs(z), np.abs(z - 1.0)) <= 1e-9))
    return ILPArgmax(labels, float(a @ z), zs, int(a.size), int(A.shape[0]), integral)
