"""EPFL CS-433 notes: the step-size example, one SVM dual coordinate step, the test-set bound, a kernel.

==========================================  ================================================================
catalogue entry                             record(s)
==========================================  ================================================================
epfl.step-size (L138-150)                   gradient descent on L(w) = 1/(2N) sum (y_n - w)^2, y = 1, 2, 3, 6:
                                            gamma = 0.5, 1, 1.5 reach y_bar = 3 (gamma = 1 in one step),
                                            gamma = 2 cycles between 0 and 6, gamma = 2.5 diverges as
                                            w_t - y_bar = (1 - gamma)^t (w_0 - y_bar)
epfl.svm-dual-step (lab doctest)            w = (-0.1, 0.1, 0.3), alpha = (0.5, 0.1) after one coordinate step
epfl.test-set-bound (L603-651)              sqrt(log(2K/delta)/(2N)): 0.1358, 0.0429, 0.0547, 0.2036, 0.0644
epfl.polynomial-kernel (L1161-1168)         (x'x')^2 = 20.25 = phi(x)'phi(x') for x = (1,2,3), x' = (.5,-1,2)
==========================================  ================================================================

The notes' formulas were stripped in extraction; the numbers are the catalogue's, derived from the
reconstructed formulas and checked there (the SVM step is an EPFL lab doctest). Exact computations are
held to 1e-9 relative; the bound's values to half a unit of the 4th decimal. Milliseconds.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..exceptions import ConvergenceWarning
from ..kernels import polynomial_kernel, tensor_power_features
from ..models.svm.linear_svm import dual_coordinate_step
from ..optim import gradient_descent
from ..theory import test_set_bound
from .record import ExperimentResult, Recorder, half_unit, register

PRESET = "epfl_examples"
NOTES = "EPFL notes"
Y = np.array([1.0, 2.0, 3.0, 6.0])


@register(PRESET)
def run(data_dir=None, *, seed: int, quick: bool = False) -> ExperimentResult:
    """The records of the module table; ``data_dir``, ``seed`` and ``quick`` change nothing (exact examples)."""
    rec = Recorder(PRESET)
    curves = {"step_size": _step_size(rec)}
    tables = {"svm_dual_step": _svm_dual_step(rec)}
    _test_set_bound(rec)
    _polynomial_kernel(rec)
    notes = (
        "EPFL CS-433 notes (seed 004): gradient descent's step size on a one-parameter MSE, one coordinate step of the "
        "SVM dual (the lab's doctest), Hoeffding's bound on a test set with a union bound over K models, and the "
        "polynomial kernel as an inner product of feature maps."
    )
    return rec.result(curves, tables, notes)


def _mse(w: np.ndarray) -> tuple[float, np.ndarray]:
    """L(w) = 1/(2N) sum (y_n - w)^2 and its gradient w - y_bar."""
    r = w[0] - Y
    return 0.5 * float(np.mean(r**2)), np.array([float(np.mean(r))])


def _gd(gamma: float, steps: int) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return float(gradient_descent(_mse, np.zeros(1), learning_rate=gamma, max_iter=steps, tol=0.0).params[0])


def _step_size(rec: Recorder) -> dict:
    ex = "epfl.step-size"
    how = dict(
        provenance="derived",
        derived_from="w_t - y_bar = (1 - gamma)^t (w_0 - y_bar), the notes' analysis, at y = 1, 2, 3, 6",
        measured_by="replearn.optim.gradient_descent",
    )
    y_bar = float(Y.mean())
    source = f"{NOTES} L138-150 (y = 1, 2, 3, 6, y_bar = 3, w_0 = 0; w_t - y_bar = (1 - gamma)^t (w_0 - y_bar))"
    rec.add(
        source + ": gamma = 1 reaches the optimum in one step",
        "w_1 at gamma = 1",
        y_bar,
        _gd(1.0, 1),
        1e-9,
        example=ex,
        **how,
    )
    rec.add(
        source + ": gamma < 1 converges monotonically",
        "w_50 at gamma = 0.5",
        y_bar,
        _gd(0.5, 50),
        1e-9,
        example=ex,
        **how,
    )
    rec.add(
        source + ": gamma = 1.5 overshoots y_bar (w_1 = 4.5) and still converges",
        "w_1 at gamma = 1.5",
        4.5,
        _gd(1.5, 1),
        1e-9,
        example=ex,
        **how,
    )
    rec.add(
        source + ": gamma = 1.5 still converges", "w_50 at gamma = 1.5", y_bar, _gd(1.5, 50), 1e-9, example=ex, **how
    )
    rec.add(
        source + ": gamma = 2 loops between two points, 0 and 6",
        "w_49 at gamma = 2",
        6.0,
        _gd(2.0, 49),
        1e-9,
        example=ex,
        **how,
    )
    rec.add(
        source + ": gamma = 2 loops between two points, 0 and 6",
        "w_50 at gamma = 2",
        0.0,
        _gd(2.0, 50),
        1e-9,
        example=ex,
        **how,
    )
    expected = y_bar + (1 - 2.5) ** 50 * (0 - y_bar)
    rec.add(
        source + ": gamma = 2.5 diverges (|w_50| = 1.9e9); tolerance 1e-9 relative",
        "w_50 / 1e9 at gamma = 2.5",
        expected / 1e9,
        _gd(2.5, 50) / 1e9,
        1e-9 * abs(expected) / 1e9,
        example=ex,
        **how,
    )
    t = list(range(0, 11))
    return {
        "x": t,
        **{f"gamma = {g}": [_gd(g, k) if k else 0.0 for k in t] for g in (0.5, 1.0, 1.5, 2.0)},
        "x_label": "iteration t",
        "y_label": "w_t (optimum y_bar = 3)",
    }


def _svm_dual_step(rec: Recorder) -> dict:
    """One EPFL coordinate step (mean hinge, alpha in [0, 1], w = 1/(lambda N) sum alpha_n y_n x_n) through
    LIBLINEAR's dual coordinate pass with C = 1/(lambda N) and alpha_lib = C alpha (the same w)."""
    X = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = np.array([1.0, -1.0])
    w = np.array([-0.3, -0.3, -0.3])
    alpha = np.array([0.1, 0.1])
    lam, n = 1.0, 0
    C = 1.0 / (lam * len(y))
    a_lib, w = dual_coordinate_step(X, y, alpha * C, w, n, C)
    alpha_new = a_lib / C
    source = (
        f"{NOTES} L1050-1095, the lab's doctest (y = (1, -1), X = [[1,2,3],[4,5,6]], w = (-.3,-.3,-.3), "
        "alpha = (.1,.1), lambda = 1, n = 0): w = (-0.1, 0.1, 0.3), alpha = (0.5, 0.1); tolerance 1e-12"
    )
    ex = "epfl.svm-dual-step"
    rec.add(
        source,
        "max |w after the step - (-0.1, 0.1, 0.3)|",
        0.0,
        float(np.max(np.abs(w - [-0.1, 0.1, 0.3]))),
        1e-12,
        example=ex,
        measured_by="replearn.models.svm.linear_svm.dual_coordinate_step",
    )
    rec.add(
        source,
        "max |alpha after the step - (0.5, 0.1)|",
        0.0,
        float(np.max(np.abs(alpha_new - [0.5, 0.1]))),
        1e-12,
        example=ex,
        measured_by="replearn.models.svm.linear_svm.dual_coordinate_step",
    )
    return {"w": w.tolist(), "alpha": alpha_new.tolist()}


def _test_set_bound(rec: Recorder) -> None:
    for (n, k), printed in {
        (100, 1): "0.1358",
        (1000, 1): "0.0429",
        (1000, 10): "0.0547",
        (100, 100): "0.2036",
        (1000, 100): "0.0644",
    }.items():
        rec.add(
            f"{NOTES} L603-651: with probability 1 - delta all K test errors are within sqrt(log(2K/delta)/(2N)) of "
            "the true errors ([0, 1] loss, delta = 0.05; values derived in the catalogue)",
            f"test-set deviation bound, N = {n}, K = {k}",
            float(printed),
            test_set_bound(n, 0.05, k),
            half_unit(printed),
            example="epfl.test-set-bound",
            provenance="derived",
            derived_from=f"the notes' sqrt(log(2K/delta)/(2N)) at N = {n}, K = {k}, delta = 0.05 (the catalogue)",
            measured_by="replearn.theory.test_set_bound",
        )


def _polynomial_kernel(rec: Recorder) -> None:
    x, z = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 2.0])
    ex = "epfl.polynomial-kernel"
    source = (
        f"{NOTES} L1161-1168 (x = (1, 2, 3), x' = (0.5, -1, 2), derived in the catalogue): (x'x')^2 = 4.5^2 = 20.25"
    )
    how = dict(
        provenance="derived", derived_from="the catalogue's x = (1, 2, 3), x' = (0.5, -1, 2) in the notes' kernel"
    )
    rec.add(
        source,
        "polynomial kernel (x'z)^2",
        20.25,
        float(polynomial_kernel(x[None], z[None], degree=2, gamma=1.0, coef0=0.0)[0, 0]),
        1e-12,
        example=ex,
        measured_by="replearn.kernels.polynomial_kernel",
        **how,
    )
    rec.add(
        source,
        "phi(x)'phi(x') with phi = vec(x x')",
        20.25,
        float((tensor_power_features(x[None], 2) @ tensor_power_features(z[None], 2).T)[0, 0]),
        1e-12,
        example=ex,
        measured_by="replearn.kernels.tensor_power_features",
        **how,
    )
