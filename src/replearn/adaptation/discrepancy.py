"""How different two domains are (CIML §8.5): the discrepancy d_A estimated by a domain separator,
the total variation distance, and the adaptation bound of Theorem 9."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ..validation import check_array, check_random_state, check_scalar
from ._common import _SEED_MAX, make_learner


@dataclass
class DiscrepancyEstimate:
    """d_A = 2 (acc - 0.5) of a domain separator, with the held-out accuracy it came from."""

    d_A: float
    accuracy: float
    n_train: int
    n_test: int
    separator: str


def domain_discrepancy(
    X_old, X_new, estimator="logistic_regression", estimator_params=None, test_size=0.3, random_state=None
) -> DiscrepancyEstimate:
    """Estimate the discrepancy between two domains from unlabelled samples (CIML L2890-2896).

    Train a classifier (the "domain separator") to tell old from new examples and measure its
    held-out accuracy acc; then d_A = 2 (acc - 0.5): about 0 for identical domains, about 1 when
    separation is easy. Erratum (catalogue 001 item 21): L2892 says "twice the accuracy"; the formula
    at L2894, 2 (acc - 0.5), is what is computed.

    Conventions: the larger domain is subsampled (seeded) to the size of the smaller, so chance
    accuracy is exactly 0.5; the balanced data are split at random (``test_size`` held out, stratified
    by domain). d_A is reported unclipped (it can be slightly negative by chance).
    """
    X_old = check_array(X_old, name="X_old")
    X_new = check_array(X_new, name="X_new")
    if X_new.shape[1] != X_old.shape[1]:
        raise ValueError(f"X_new has {X_new.shape[1]} features, X_old has {X_old.shape[1]}")
    check_scalar(test_size, "test_size", numbers.Real, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    rng = check_random_state(random_state)
    m = min(X_old.shape[0], X_new.shape[0])
    n_test = round(test_size * m)
    if n_test < 1 or m - n_test < 1:
        raise ValueError(
            f"each domain needs at least one training and one test example; the smaller has {m} "
            f"rows and test_size={test_size}"
        )
    parts = []
    for X in (X_old, X_new):
        idx = rng.permutation(X.shape[0])[:m]
        parts.append((X[idx[n_test:]], X[idx[:n_test]]))
    Xtr = np.vstack([parts[0][0], parts[1][0]])
    Xte = np.vstack([parts[0][1], parts[1][1]])
    ytr = np.repeat([1, 0], m - n_test)
    yte = np.repeat([1, 0], n_test)
    sep = make_learner(estimator, estimator_params, rng.integers(_SEED_MAX), what="estimator").fit(Xtr, ytr)
    acc = float(np.mean(sep.predict(Xte) == yte))
    return DiscrepancyEstimate(
        d_A=2.0 * (acc - 0.5), accuracy=acc, n_train=2 * (m - n_test), n_test=2 * n_test, separator=estimator
    )


def total_variation_distance(p, q) -> float:
    """|P - Q|_Var = (1/2) sum_x |P(x) - Q(x)| for two discrete distributions (CIML eq. 8.24)."""
    p = check_array(p, name="p", ndim=1)
    q = check_array(q, name="q", ndim=1)
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same support size, got {p.shape} and {q.shape}")
    for name, v in (("p", p), ("q", q)):
        if np.any(v < 0) or not np.isclose(v.sum(), 1.0):
            raise ValueError(f"{name} must be a probability vector (non-negative, summing to 1)")
    return float(0.5 * np.abs(p - q).sum())


def adaptation_bound(error_old, error_best, d_A) -> float:
    """Theorem 9 (eq. 8.27): eps_new(f) <= eps_old(f) + eps_best + d_A."""
    for name, v in (("error_old", error_old), ("error_best", error_best)):
        check_scalar(v, name, numbers.Real, low=0.0, high=1.0)
    check_scalar(d_A, "d_A", numbers.Real)
    return float(error_old + error_best + d_A)
