"""Monte-Carlo bias-variance decomposition of the squared error (regression).

Course basis: CS229 §8.1.1 (seed 000, L3405-3511) and the EPFL notes (seed 004, L663-713).  With
``y = h*(x) + xi``, ``E[xi] = 0``, ``Var[xi] = sigma^2`` and ``h_S`` the model trained on a random
training set S, at a fixed test input x:

    E_{S, xi}[(y - h_S(x))^2] = sigma^2 + (h*(x) - h_avg(x))^2 + E_S[(h_S(x) - h_avg(x))^2]
                              =  noise  +       bias^2        +        variance

with ``h_avg(x) = E_S[h_S(x)]`` (CS229 eq. 8.7).  The expectations over S are replaced by
averages over ``n_rounds`` training sets drawn from the known data distribution: round r draws
its inputs with ``sample_x(rng, n_train)`` and targets ``h*(x) + noise_std * rng.normal()`` from
``rng = default_rng(repeat_seed(seed, r))``.  On the sample of rounds the identity
``mean_r (h_r(x) - h*(x))^2 = bias^2(x) + variance(x)`` holds exactly (variance with ddof=0), so
only ``h_avg`` and the noise term are Monte-Carlo estimates.  The returned ``expected_mse`` is
``noise + bias^2 + variance`` averaged over the test inputs, and ``mse_monte_carlo`` the direct
estimate of the left-hand side with fresh test noise per round (they agree up to Monte-Carlo
error).
"""

from __future__ import annotations

import numbers

import numpy as np

from ._fitting import build
from .splits import repeat_seed

__all__ = ["bias_variance_decomposition"]


def bias_variance_decomposition(
    model,
    *,
    true_function,
    sample_x,
    noise_std: float,
    n_train: int,
    x_test,
    n_rounds: int = 200,
    seed: int = 0,
    params: dict | None = None,
) -> dict:
    """Estimate noise, bias^2 and variance of ``model`` (see the module docstring).

    ``true_function(X) -> (n,)`` is ``h*``; ``sample_x(rng, n) -> (n, d)`` draws training
    inputs; ``x_test`` is ``(n_test, d)``.  Returns ``{"noise", "bias2", "variance",
    "expected_mse", "mse_monte_carlo"}`` (averages over ``x_test``), the per-point arrays
    ``"bias2_per_point"``, ``"variance_per_point"``, ``"mean_prediction"``, and the settings.
    """
    for value, name in ((n_train, "n_train"), (n_rounds, "n_rounds")):
        if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)) or value < 2:
            raise ValueError(f"{name} must be an integer >= 2, got {value!r}")
    if isinstance(seed, bool) or not isinstance(seed, (numbers.Integral, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if isinstance(noise_std, bool) or not isinstance(noise_std, numbers.Real) or noise_std < 0:
        raise ValueError(f"noise_std must be a number >= 0, got {noise_std!r}")
    x_test = np.asarray(x_test, dtype=np.float64)
    if x_test.ndim != 2:
        raise ValueError(f"x_test must be 2-D (n_test, n_features), got shape {x_test.shape}")
    f_test = np.asarray(true_function(x_test), dtype=np.float64).reshape(-1)
    preds = np.empty((n_rounds, x_test.shape[0]))
    sq_err = np.empty(n_rounds)
    for r in range(n_rounds):
        rng = np.random.default_rng(repeat_seed(int(seed), r))
        X = np.asarray(sample_x(rng, int(n_train)), dtype=np.float64)
        y = np.asarray(true_function(X), dtype=np.float64).reshape(-1) + noise_std * rng.normal(size=X.shape[0])
        preds[r] = build(model, params).fit(X, y).predict(x_test)
        y_test = f_test + noise_std * rng.normal(size=f_test.size)
        sq_err[r] = np.mean((y_test - preds[r]) ** 2)
    h_avg = preds.mean(axis=0)
    bias2 = (h_avg - f_test) ** 2
    variance = preds.var(axis=0)
    noise = float(noise_std) ** 2
    return {
        "noise": noise,
        "bias2": float(bias2.mean()),
        "variance": float(variance.mean()),
        "expected_mse": float(noise + bias2.mean() + variance.mean()),
        "mse_monte_carlo": float(sq_err.mean()),
        "bias2_per_point": bias2.tolist(),
        "variance_per_point": variance.tolist(),
        "mean_prediction": h_avg.tolist(),
        "n_rounds": int(n_rounds),
        "n_train": int(n_train),
        "seed": int(seed),
    }
