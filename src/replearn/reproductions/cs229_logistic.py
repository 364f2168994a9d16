"""CS229 PS1 Q1: logistic regression on the problem set's 99 points, Newton's method vs gradient ascent.

The problem set asks for the unregularized maximum-likelihood fit by Newton's method and a plot of
the decision boundary. Its published solution gives ``theta = (-2.6205, 0.7604, 1.1719)``
(intercept first). That value is *not* in the project catalogue (the CS229 texts print no
logistic fit); it is quoted from the problem set's solution as widely circulated and agrees
with R's ``glm(y ~ x, family = binomial)`` on the same data. Each printed component must be
matched to half a unit of its 4th decimal.

Invariants the texts state, checked with their own tolerances:

* ``l(theta)`` is concave (PS1 Q1a; CS229 summaries L2368-2409), so gradient ascent and Newton's
  method reach the same maximizer: ``max |theta_GD - theta_Newton| = 0`` to 1e-4 (GD is stopped
  at a gradient of 1e-9 of the mean objective; its distance to the optimum is then ~1e-6).
* Newton's method converges quadratically near the optimum (CS229 summaries L432-434: "0.01 ->
  1e-4 -> 1e-8"; notes §2.3 L649-663): the order estimated from the last three errors above
  1e-9, ``log(e_{k+1}/e_k) / log(e_k/e_{k-1})``, is 2 within 0.3.
* At Newton's solution the gradient of the mean log-likelihood is 0 (to 1e-8).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit

from .. import models
from ..exceptions import ConvergenceWarning
from ._data import read_csv
from .record import ExperimentResult, Recorder, half_unit, register

PRESET = "cs229_logistic"
PUBLISHED_THETA = ("-2.6205", "0.7604", "1.1719")
SOLUTION = "CS229 PS1 Q1(b) published solution (not in the project catalogue)"


@register(PRESET)
def run(data_dir, *, seed: int, quick: bool = False) -> ExperimentResult:
    """Newton vs batch gradient ascent; deterministic (both start at theta = 0). ``seed`` is unused."""
    data = read_csv(data_dir, "cs229_ps1_q1_logistic.csv")
    X = np.c_[data["x1"], data["x2"]]
    y = data["y"].astype(np.int64)
    rec = Recorder(PRESET, example="extra.cs229-ps1-logistic", measured_by="replearn.models:logistic_regression")

    newton = models.create("logistic_regression", penalty=None, solver="newton", tol=1e-12, max_iter=50).fit(X, y)
    theta_newton = _theta(newton)
    gd_cap = 5000 if quick else 100000
    gd = models.create(
        "logistic_regression",
        penalty=None,
        solver="gd",
        learning_rate=1.0,
        tol=1e-9,
        max_iter=gd_cap,
    ).fit(X, y)
    theta_gd = _theta(gd)

    for j, text in enumerate(PUBLISHED_THETA):
        rec.add(SOLUTION, f"theta{j}, Newton's method", float(text), theta_newton[j], half_unit(text))
    rec.add(
        "CS229 PS1 Q1(a): l(theta) is concave, so GD and Newton share the maximizer",
        "max |theta_GD - theta_Newton|",
        0.0,
        np.max(np.abs(theta_gd - theta_newton)),
        1e-4,
        provenance="invariant",
    )

    errors = _newton_errors(X, y, theta_newton, n_steps=int(newton.n_iter_[0]))
    order = _convergence_order(errors)
    rec.add(
        "CS229 summaries L432-434 (Newton: 0.01 -> 1e-4 -> 1e-8); notes §2.3 L649-663: quadratic convergence",
        "estimated order of convergence of Newton's method",
        2.0,
        order,
        0.3,
        example="cs229s.newton-quadratic",
        provenance="invariant",
    )
    grad = X.T @ (y - expit(X @ theta_newton[1:] + theta_newton[0])) / len(y)
    grad0 = np.mean(y - expit(X @ theta_newton[1:] + theta_newton[0]))
    rec.add(
        "CS229 notes §2.3: Newton's method finds a zero of the gradient of l(theta)",
        "max |gradient of the mean log-likelihood| at Newton's solution",
        0.0,
        max(np.max(np.abs(grad)), abs(grad0)),
        1e-8,
        provenance="invariant",
    )

    # decision boundary theta0 + theta1 x1 + theta2 x2 = 0 over the data's x1 range
    x1 = np.linspace(X[:, 0].min(), X[:, 0].max(), 50)
    curves = {
        "decision_boundary": {
            "x": x1.tolist(),
            "newton": (-(theta_newton[0] + theta_newton[1] * x1) / theta_newton[2]).tolist(),
            "gd": (-(theta_gd[0] + theta_gd[1] * x1) / theta_gd[2]).tolist(),
        },
        "data": {"x1": X[:, 0].tolist(), "x2": X[:, 1].tolist(), "y": y.tolist()},
        "newton_loss": {
            "x": list(range(len(errors))),
            "neg_mean_log_likelihood": _finite(newton.loss_history_[0]),
            "error_to_optimum": errors,
        },
        "gd_loss": {"x": list(range(int(gd.n_iter_[0]) + 1)), "neg_mean_log_likelihood": _finite(gd.loss_history_[0])},
    }
    tables = {
        "theta": {
            "published": [float(t) for t in PUBLISHED_THETA],
            "newton": theta_newton.tolist(),
            "gd": theta_gd.tolist(),
        },
        "iterations": {"newton": int(newton.n_iter_[0]), "gd": int(gd.n_iter_[0])},
        "training_accuracy": {"newton": float(np.mean(newton.predict(X) == y))},
    }
    notes = (
        "CS229 problem set 1, Q1 (logistic regression; summaries seed 002 L2368-2409 for the Hessian), "
        "Newton's method (notes §2.3, seed 000 L614-663) against batch gradient ascent (notes §2.1, "
        "L503-592, step 1.0 on the mean log-likelihood, stopped at max|grad| <= 1e-9). Unregularized "
        "(penalty=None), both from theta = 0, on cs229_ps1_q1_logistic.csv (99 x 2, labels 0/1)."
    )
    return rec.result(curves, tables, notes)


def _theta(model) -> np.ndarray:
    return np.r_[model.intercept_[0], np.ravel(model.coef_)]


def _finite(history) -> list[float]:
    h = np.asarray(history, dtype=float)
    return h[np.isfinite(h)].tolist()


def _newton_errors(X, y, theta_star: np.ndarray, n_steps: int) -> list[float]:
    """``||theta_k - theta*||`` for k = 0..n_steps, by refitting with ``max_iter = k`` from theta = 0."""
    errors = [float(np.linalg.norm(theta_star))]
    for k in range(1, n_steps + 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            m = models.create("logistic_regression", penalty=None, solver="newton", tol=0.0, max_iter=k).fit(X, y)
        errors.append(float(np.linalg.norm(_theta(m) - theta_star)))
    return errors


def _convergence_order(errors: list[float], floor: float = 1e-9) -> float:
    """``log(e3/e2) / log(e2/e1)`` for the last three errors above ``floor`` (NaN if fewer)."""
    e = [v for v in errors if v > floor]
    if len(e) < 3:
        return float("nan")
    e1, e2, e3 = e[-3:]
    return float(np.log(e3 / e2) / np.log(e2 / e1))
