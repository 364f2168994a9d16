"""CS229 notes §8.1: bias, variance and test error of polynomial fits of increasing degree.

The notes' running example (seed 000 L3311-3410, Figs. 8.1-8.9): training inputs drawn at random,
``y = h*(x) + xi`` with a quadratic ``h*`` and ``xi ~ N(0, sigma^2)``; a linear fit underfits
(high bias), a 5th-degree fit overfits (high variance), the quadratic is best. §8.1.1 decomposes
the expected test error (eq. 8.2-8.7)::

    MSE = sigma^2 + bias^2 + variance,   bias^2 = E_x (h_avg(x) - h*(x))^2,   variance = E_x Var_S h_S(x)

Here ``h*(x) = 1 - x/2 - 2 x^2``, ``x ~ U[-1, 1]``, ``sigma = 0.3``, training sets of 20 points, and
the expectation over training sets is a Monte Carlo average over ``n_sets`` sets (400; 100 in
quick mode). Each degree is fitted by ``linear_regression`` (lstsq solver) on the features
``x, x^2, ..., x^k``. bias^2 and variance are expectations over ``x ~ U[-1, 1]`` computed exactly
by 20-point Gauss-Legendre quadrature (the fits are polynomials of degree <= 6, so the integrands
have degree <= 12 < 40); the test error is measured on 200 random test inputs with fresh noise.

The notes print no numbers for this example. Eq. 8.7 itself holds by construction for any
predictor (bias^2 + variance is the mean squared deviation from h*), so it is plotted, not
recorded. The records compare the fits against quantities known independently of them:

* the noise level: for a degree ``k >= 2`` the model class contains ``h*``, so the residual sum of
  squares of each fit is ``sigma^2 chi^2_{n-k-1}`` and ``RSS / (n - k - 1)`` averages to
  ``sigma^2 = 0.09`` over the training sets. Tolerance: 4 standard errors of that average,
  ``4 sigma^2 sqrt(2 / (n - k - 1)) / sqrt(n_sets)`` (exact for Gaussian noise).
* the analytic bias of the linear fit: the least-squares line through ``h*`` under ``U[-1, 1]`` is
  ``1/3 - x/2`` (``x^2`` projects onto its mean 1/3, being uncorrelated with ``x``), so
  ``bias^2 -> E (2 (x^2 - 1/3))^2 = 4 Var(x^2) = 16/45`` as ``n -> inf``. At n = 20 the average fit
  is within 1e-3 of that line's bias and the Monte Carlo spread over seeds is < 0.011 with 100
  sets: tolerance 0.02 (a data-ignoring constant predictor has bias^2 >= Var h* = 0.44).
* the quadratic class contains ``h*``, so its bias^2 is 0 up to the Monte Carlo inflation
  ``variance / n_sets`` (~1e-4): tolerance 1e-3, a ninetieth of the noise level sigma^2 = 0.09.
* the quadratic is the best degree (Fig. 8.9, L3391-3396): argmin of test error = 2, exactly.
"""

from __future__ import annotations

import numpy as np

from .. import models
from ..features.polynomial import PolynomialFeatures
from .record import ExperimentResult, Recorder, register

PRESET = "bias_variance"
SIGMA = 0.3
N_TRAIN = 20
N_TEST = 200
N_QUAD = 20
DEGREES = (1, 2, 3, 4, 5, 6)


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

    x_quad, w_quad = np.polynomial.legendre.leggauss(N_QUAD)
    w_quad = w_quad / 2.0  # the density of U[-1, 1]
    h_quad = h_star(x_quad)

    bias2, variance, test_error, train_error, noise_estimate = [], [], [], [], []
    for degree in DEGREES:
        pred = np.empty((n_sets, N_QUAD))
        pred_test = np.empty((n_sets, N_TEST))
        rss = np.empty(n_sets)
        for s in range(n_sets):
            model = models.create("linear_regression", solver="lstsq").fit(_poly(x_train[s], degree), y_train[s])
            pred[s] = model.predict(_poly(x_quad, degree))
            pred_test[s] = model.predict(_poly(x_test, degree))
            rss[s] = np.sum((model.predict(_poly(x_train[s], degree)) - y_train[s]) ** 2)
        bias2.append(float(w_quad @ (pred.mean(axis=0) - h_quad) ** 2))
        variance.append(float(w_quad @ pred.var(axis=0)))
        test_error.append(float(np.mean((h_test + test_noise - pred_test) ** 2)))
        train_error.append(float(np.mean(rss) / N_TRAIN))
        noise_estimate.append(float(np.mean(rss) / (N_TRAIN - degree - 1)))

    rec = Recorder(
        PRESET,
        example="cs229.bias-variance",
        provenance="invariant",
        measured_by=("replearn.models:linear_regression", "replearn.features.polynomial.PolynomialFeatures"),
    )
    for k, degree in enumerate(DEGREES):
        if degree < 2:  # the line cannot fit h*: its residuals hold bias, not just noise
            continue
        dof = N_TRAIN - degree - 1
        se = SIGMA**2 * np.sqrt(2.0 / dof) / np.sqrt(n_sets)
        rec.add(
            "CS229 notes §8.1 (h* quadratic, noise sigma^2 = 0.09): a class containing h* leaves residuals "
            f"RSS ~ sigma^2 chi^2_(n-k-1); tolerance 4 standard errors ({4 * se:.4f})",
            f"degree {degree}: mean RSS / (n - {degree} - 1) over training sets (noise variance)",
            SIGMA**2,
            noise_estimate[k],
            4 * se,
            provenance="derived",
            derived_from="the generator's noise variance sigma^2 = 0.09 (the notes' y = h*(x) + noise)",
        )
    rec.add(
        "CS229 notes §8.1 Fig. 8.2 (a line underfits): the least-squares line through h* under U[-1, 1] is "
        "1/3 - x/2, bias^2 = 4 Var(x^2) = 16/45; tolerance 0.02 (Monte Carlo and n = 20)",
        "bias^2 of the degree-1 fit",
        16.0 / 45.0,
        bias2[DEGREES.index(1)],
        0.02,
        provenance="derived",
        derived_from="the least-squares line through h* = 1 - x/2 - 2x^2 under x ~ U[-1, 1]: bias^2 = 16/45",
    )
    rec.add(
        "CS229 notes §8.1: h* is quadratic, so a degree-2 model has no bias; tolerance sigma^2 / 90",
        "bias^2 of the degree-2 fit",
        0.0,
        bias2[DEGREES.index(2)],
        1e-3,
    )
    rec.add(
        "CS229 notes §8.1 Fig. 8.9 (L3391-3396): the quadratic fit is best",
        "argmin over degree of test error",
        2,
        DEGREES[int(np.argmin(test_error))],
        0.0,
    )

    curves = {
        "bias_variance_vs_degree": {
            "x": list(DEGREES),
            "bias2": bias2,
            "variance": variance,
            "test_error": test_error,
            "bias2_plus_variance_plus_noise": [b + v + SIGMA**2 for b, v in zip(bias2, variance)],
            "train_error": train_error,
            "noise_estimate": noise_estimate,
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
            "quadrature_nodes": N_QUAD,
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
    """Columns ``x, x^2, ..., x^degree`` (the intercept is the model's): replearn's polynomial feature map."""
    return PolynomialFeatures(degree=degree, include_bias=False).fit(x[:, None]).transform(x[:, None])
