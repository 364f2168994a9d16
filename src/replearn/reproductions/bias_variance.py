"""CS229 notes §8.1: bias, variance and test error of polynomial fits of increasing degree.

The notes' running example (seed 000 L3311-3410, Figs. 8.1-8.9): training inputs drawn at random,
``y = h*(x) + xi`` with a quadratic ``h*`` and ``xi ~ N(0, sigma^2)``; a linear fit underfits
(high bias), a 5th-degree fit overfits (high variance), the quadratic is best. §8.1.1 decomposes
the expected test error (eq. 8.2-8.7)::

    MSE = sigma^2 + bias^2 + variance,   bias^2 = E_x (h_avg(x) - h*(x))^2,   variance = E_x Var_S h_S(x)

Here ``h*(x) = 1 - x/2 - 2 x^2``, ``x ~ U[-1, 1]``, ``sigma = 0.3``, training sets of 20 points, and
the expectation over training sets is a Monte Carlo average over ``n_sets`` sets (400; 100 in
quick mode). Each degree is fitted by ``linear_regression`` (lstsq solver) on the features
``x, x^2, ..., x^k``; bias^2, variance and test error are averaged over 200 test inputs, the test
error with fresh noise per training set.

The notes print no numbers for this example, so the records check what they state:

* eq. 8.7 holds: ``(test error - (bias^2 + variance + sigma^2)) / test error`` is 0 within 0.03.
  The two sides share the fitted predictions; they differ only by the Monte Carlo error of the
  fresh test noise (the mean of ``xi^2 - sigma^2 - 2 xi (h_S - h*)`` over 200 x n_sets draws),
  measured below 0.5% of the test error at every degree with 400 sets.
* the quadratic is the best degree (Fig. 8.9, L3391-3396): argmin of test error = 2, exactly.
* the quadratic class contains ``h*``, so its bias^2 is 0 up to the Monte Carlo inflation
  ``variance / n_sets`` (~1e-4): tolerance 1e-3, a hundredth of the noise level sigma^2 = 0.09.
"""

from __future__ import annotations

import numpy as np

from .. import models
from .record import ExperimentResult, Recorder, register

PRESET = "bias_variance"
SIGMA = 0.3
N_TRAIN = 20
N_TEST = 200
DEGREES = (1, 2, 3, 4, 5, 6)
SOURCE = "CS229 notes §8.1.1 eq. 8.7 (MSE = sigma^2 + bias^2 + variance)"


def h_star(x: np.ndarray) -> np.ndarray:
    """The quadratic ground truth."""
    return 1.0 - 0.5 * x - 2.0 * x**2


@register(PRESET)
def run(data_dir=None, *, seed: int, quick: bool = False) -> ExperimentResult:
    """Monte Carlo over training sets drawn from ``seed``; ``data_dir`` is unused (synthetic data)."""
    n_sets = 100 if quick else 400
    rng = np.random.default_rng(seed)
    x_test = rng.uniform(-1.0, 1.0, N_TEST)
    h_test = h_star(x_test)
    x_train = rng.uniform(-1.0, 1.0, (n_sets, N_TRAIN))
    y_train = h_star(x_train) + SIGMA * rng.standard_normal((n_sets, N_TRAIN))
    test_noise = SIGMA * rng.standard_normal((n_sets, N_TEST))

    bias2, variance, test_error, train_error = [], [], [], []
    for degree in DEGREES:
        pred = np.empty((n_sets, N_TEST))
        fit_err = np.empty(n_sets)
        for s in range(n_sets):
            model = models.create("linear_regression", solver="lstsq").fit(_poly(x_train[s], degree), y_train[s])
            pred[s] = model.predict(_poly(x_test, degree))
            fit_err[s] = np.mean((model.predict(_poly(x_train[s], degree)) - y_train[s]) ** 2)
        bias2.append(float(np.mean((pred.mean(axis=0) - h_test) ** 2)))
        variance.append(float(np.mean(pred.var(axis=0))))
        test_error.append(float(np.mean((h_test + test_noise - pred) ** 2)))
        train_error.append(float(np.mean(fit_err)))

    rec = Recorder(PRESET)
    for k, degree in enumerate(DEGREES):
        decomposition = bias2[k] + variance[k] + SIGMA**2
        rec.add(
            SOURCE + "; tolerance 3% of the test error",
            f"degree {degree}: (test error - (bias^2 + variance + sigma^2)) / test error",
            0.0,
            (test_error[k] - decomposition) / test_error[k],
            0.03,
        )
    rec.add(
        "CS229 notes §8.1 Fig. 8.9 (L3391-3396): the quadratic fit is best",
        "argmin over degree of test error",
        2,
        DEGREES[int(np.argmin(test_error))],
        0.0,
    )
    rec.add(
        "CS229 notes §8.1: h* is quadratic, so a degree-2 model has no bias; tolerance sigma^2 / 90",
        "bias^2 of the degree-2 fit",
        0.0,
        bias2[DEGREES.index(2)],
        1e-3,
    )

    curves = {
        "bias_variance_vs_degree": {
            "x": list(DEGREES),
            "bias2": bias2,
            "variance": variance,
            "test_error": test_error,
            "bias2_plus_variance_plus_noise": [b + v + SIGMA**2 for b, v in zip(bias2, variance)],
            "train_error": train_error,
            "noise": [SIGMA**2] * len(DEGREES),
        }
    }
    tables = {
        "setting": {
            "h_star": "1 - x/2 - 2 x^2",
            "x": "U[-1, 1]",
            "sigma": SIGMA,
            "n_train": N_TRAIN,
            "n_test": N_TEST,
            "n_training_sets": n_sets,
        }
    }
    notes = (
        "CS229 lecture notes (seed 000) §8.1 bias-variance tradeoff (L3311-3511), Figs. 8.1-8.9 and the "
        f"decomposition eq. 8.7; synthetic quadratic h*, sigma = {SIGMA}, n = {N_TRAIN}, {n_sets} training "
        f"sets, polynomial least squares of degree {DEGREES[0]}..{DEGREES[-1]}, seed {seed}."
    )
    return rec.result(curves, tables, notes)


def _poly(x: np.ndarray, degree: int) -> np.ndarray:
    """Columns ``x, x^2, ..., x^degree`` (the intercept is the model's)."""
    return np.vander(x, degree + 1, increasing=True)[:, 1:]
