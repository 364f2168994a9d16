"""Learning-theory bounds you can compute: Hoeffding, uniform convergence over a finite class,
ERM's generalization bound, Occam's razor and the test-set bound with a union bound over models.

* Hoeffding (CS229 notes §8.3.1, seed 000 L3622-3636; the notes also call it the Chernoff bound):
  for n iid Bernoulli(phi) draws, P(|phi - phi_hat| > gamma) <= 2 exp(-2 gamma^2 n).
* Uniform convergence over |H| = k hypotheses (§8.3.2, L3679-3768, union bound L3612):
  P(exists h: |eps(h) - eps_hat(h)| > gamma) <= 2 k exp(-2 gamma^2 n). Setting this to delta gives the
  sample complexity n >= (1 / (2 gamma^2)) log(2k / delta) (L3726) and, for fixed n, the gap
  gamma = sqrt(log(2k / delta) / (2n)) (L3736).
* ERM (Theorem, L3750): with probability >= 1 - delta, eps(h_hat) <= min_h eps(h) + 2 sqrt(log(2k/delta) / (2n)).
* Occam's razor (CIML §12.5 Theorem 15, seed 001 L4111-4121): the text's statement ("sample
  complexity at most log |H|") and its proof are unfinished (TODO in the book). The standard bound
  for a learner that is consistent with the training data (zero training error) over a finite H is
  N >= (1/eps) (ln |H| + ln(1/delta)) (Blumer et al. 1987): every hypothesis with true error > eps
  survives N examples with probability <= (1 - eps)^N <= exp(-eps N), union over |H|. Class sizes from
  the text: 4^D conjunctions (L4117), D 4^D complete depth-D trees (L4121).
* Test-set bound (EPFL notes, seed 004 L603-651; the notes call it Chernoff, it is Hoeffding): for a
  loss in [a, b] and |S_test| = n, P(|L_D(f) - L_S(f)| >= sqrt((b - a)^2 ln(2K / delta) / (2n))) <= delta,
  simultaneously for K models (union bound) — grid search on a test set costs only sqrt(ln K).

Logarithms are natural throughout (CS229's "log").
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from ..validation import check_random_state, check_scalar


def _check_prob(value, name):
    check_scalar(value, name, numbers.Real, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)


def _check_k(k, name="n_hypotheses"):
    if isinstance(k, float) and k.is_integer():
        k = int(k)
    check_scalar(k, name, numbers.Integral, low=1)
    return int(k)


def hoeffding_bound(n, gamma, n_hypotheses=1) -> float:
    """Upper bound 2 k exp(-2 gamma^2 n) on the probability of a deviation larger than gamma (k = n_hypotheses)."""
    check_scalar(n, "n", numbers.Integral, low=1)
    check_scalar(gamma, "gamma", numbers.Real, low=0.0, low_inclusive=False)
    k = _check_k(n_hypotheses)
    return float(2.0 * k * math.exp(-2.0 * gamma**2 * n))


def hoeffding_sample_size(epsilon, delta, n_hypotheses=1) -> int:
    """Smallest n with 2 k exp(-2 epsilon^2 n) <= delta, i.e. n >= (1 / (2 epsilon^2)) log(2k / delta).

    CS229 notes §8.3.2 (L3726): with that many examples, |eps(h) - eps_hat(h)| <= epsilon for every
    h of a class of k hypotheses with probability >= 1 - delta. Example: epsilon = 0.1,
    delta = 0.05, k = 1000 gives log(40000) / 0.02 = 529.83, so n = 530.
    """
    _check_prob(epsilon, "epsilon")
    _check_prob(delta, "delta")
    k = _check_k(n_hypotheses)
    n = max(1, math.ceil(math.log(2.0 * k / delta) / (2.0 * epsilon**2)))
    # guard the rounding of ceil at an exact integer in either direction: the returned n satisfies the
    # bound and n - 1 does not
    while 2.0 * k * math.exp(-2.0 * epsilon**2 * n) > delta:
        n += 1
    while n > 1 and 2.0 * k * math.exp(-2.0 * epsilon**2 * (n - 1)) <= delta:
        n -= 1
    return int(n)


def uniform_convergence_gap(n, delta, n_hypotheses=1) -> float:
    """gamma = sqrt(log(2k / delta) / (2n)): with prob. >= 1 - delta, |eps(h) - eps_hat(h)| <= gamma for all h
    (L3736)."""
    check_scalar(n, "n", numbers.Integral, low=1)
    _check_prob(delta, "delta")
    k = _check_k(n_hypotheses)
    return float(math.sqrt(math.log(2.0 * k / delta) / (2.0 * n)))


def erm_generalization_bound(n, delta, n_hypotheses, best_error=0.0) -> float:
    """eps(h_hat) <= min_h eps(h) + 2 sqrt(log(2k/delta) / (2n)) with probability >= 1 - delta (CS229 L3750)."""
    check_scalar(best_error, "best_error", numbers.Real, low=0.0, high=1.0)
    return float(best_error + 2.0 * uniform_convergence_gap(n, delta, n_hypotheses))


def occam_sample_size(epsilon, delta, n_hypotheses) -> int:
    """Smallest N >= (1/epsilon)(ln|H| + ln(1/delta)): a consistent learner over a finite H then has
    error <= epsilon with probability >= 1 - delta (Occam's razor, completing CIML Thm. 15)."""
    _check_prob(epsilon, "epsilon")
    _check_prob(delta, "delta")
    if isinstance(n_hypotheses, float) or not isinstance(n_hypotheses, (numbers.Integral, np.integer)):
        raise TypeError(f"n_hypotheses must be an integer (|H| may be huge: pass a Python int), got {n_hypotheses!r}")
    if n_hypotheses < 1:
        raise ValueError(f"n_hypotheses must be >= 1, got {n_hypotheses}")
    value = (math.log(n_hypotheses) + math.log(1.0 / delta)) / epsilon
    return max(1, math.ceil(value - 1e-12 * value))


def occam_error_bound(n, delta, n_hypotheses) -> float:
    """Error bound (ln|H| + ln(1/delta)) / n of a hypothesis consistent with n examples (prob. >= 1 - delta)."""
    check_scalar(n, "n", numbers.Integral, low=1)
    _check_prob(delta, "delta")
    if (
        not isinstance(n_hypotheses, (numbers.Integral, np.integer))
        or isinstance(n_hypotheses, bool)
        or n_hypotheses < 1
    ):
        raise ValueError(f"n_hypotheses must be an integer >= 1, got {n_hypotheses!r}")
    return float((math.log(n_hypotheses) + math.log(1.0 / delta)) / n)


def conjunction_class_size(n_features) -> int:
    """|H| = 4^D boolean conjunctions over D variables (each of the 2D literals in or out, CIML L4117)."""
    check_scalar(n_features, "n_features", numbers.Integral, low=1)
    return 4 ** int(n_features)


def complete_tree_class_size(depth) -> int:
    """|H| = D 2^(D-1) 2^(D+1) = D 4^D complete depth-D decision trees over D binary features (CIML L4121)."""
    check_scalar(depth, "depth", numbers.Integral, low=1)
    D = int(depth)
    return D * 2 ** (D - 1) * 2 ** (D + 1)


def test_set_bound(n_test, delta, n_models=1, loss_range=(0.0, 1.0)) -> float:
    """EPFL's deviation sqrt((b - a)^2 ln(2K / delta) / (2 n_test)) between test and true loss, for all
    K = n_models models at once with probability >= 1 - delta (loss in [a, b] = loss_range).

    Examples (delta = 0.05, [0, 1] loss): K = 1, n = 100 -> 0.1358; n = 1000 -> 0.0429;
    K = 100, n = 1000 -> 0.0644.
    """
    check_scalar(n_test, "n_test", numbers.Integral, low=1)
    _check_prob(delta, "delta")
    k = _check_k(n_models, "n_models")
    try:
        a, b = (float(v) for v in loss_range)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"loss_range must be a pair (a, b), got {loss_range!r}") from exc
    if not (np.isfinite(a) and np.isfinite(b) and b > a):
        raise ValueError(f"loss_range must satisfy a < b (finite), got {loss_range!r}")
    return float(math.sqrt((b - a) ** 2 * math.log(2.0 * k / delta) / (2.0 * n_test)))


test_set_bound.__test__ = False  # not a pytest test despite its name


@dataclass
class HoeffdingSimulation:
    """Monte-Carlo check of Hoeffding's inequality: coin flips against the bound, per sample size."""

    phi: float
    gamma: float
    n_trials: int
    n: np.ndarray = field(repr=False)  # sample sizes
    deviation_rate: np.ndarray = field(repr=False)  # fraction of trials with |phi_hat - phi| > gamma
    bound: np.ndarray = field(repr=False)  # min(1, 2 exp(-2 gamma^2 n))
    random_state: int | None = None

    @property
    def holds(self) -> bool:
        """Whether every empirical rate is at most its bound."""
        return bool(np.all(self.deviation_rate <= self.bound))


def deviates(k, n: int, phi: float, gamma: float) -> np.ndarray:
    """``|k/n - phi| > gamma`` for counts ``k`` of n tosses, decided on the counts: ``|k - n phi| > n gamma``
    beyond rounding. In floating point ``abs(k/n - phi) > gamma`` counts some exact ties as deviations (phi = 0.3,
    gamma = 0.1, n = 20: k = 8 gives 0.4 - 0.3 = 0.10000000000000003 > 0.1, while k = 4 is not counted), which
    turned P(>) = 0.2204 into 0.3365."""
    k = np.asarray(k, dtype=np.float64)
    return np.abs(k - n * phi) > n * gamma + 1e-9 * max(1.0, n)


def hoeffding_simulation(phi=0.5, n=(10, 20, 50, 100, 200, 500), gamma=0.1, n_trials=10_000, random_state=None):
    """Toss a Bernoulli(phi) coin n times, n_trials times per n, and compare P(|phi_hat - phi| > gamma)
    with the bound 2 exp(-2 gamma^2 n) (CS229 L3626-3632: "a biased coin ... toss it n times").

    ``n`` is an int or a sequence of sample sizes; the counts are drawn as Binomial(n, phi).
    """
    check_scalar(phi, "phi", numbers.Real, low=0.0, high=1.0)
    check_scalar(gamma, "gamma", numbers.Real, low=0.0, low_inclusive=False)
    check_scalar(n_trials, "n_trials", numbers.Integral, low=1)
    sizes = np.atleast_1d(np.asarray(n))
    if sizes.ndim != 1 or sizes.dtype.kind not in "iu" or np.any(sizes < 1):
        raise ValueError(f"n must be a positive integer or a 1-D sequence of them, got {n!r}")
    rng = check_random_state(random_state)
    rates = np.array(
        [np.mean(deviates(rng.binomial(int(m), phi, size=int(n_trials)), int(m), phi, gamma)) for m in sizes]
    )
    bound = np.minimum(1.0, 2.0 * np.exp(-2.0 * gamma**2 * sizes))
    seed = (
        int(random_state)
        if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool)
        else None
    )
    return HoeffdingSimulation(
        phi=float(phi),
        gamma=float(gamma),
        n_trials=int(n_trials),
        n=sizes.astype(np.int64),
        deviation_rate=rates,
        bound=bound,
        random_state=seed,
    )
