"""EPFL CS-433 project 1: the public grading tests' numbers, reproduced by ``replearn.courses.epfl``.

The course's public grading tests (``epfml/ML_course``, ``projects/project1/grading_tests/
test_project1_public.py``) call the six required functions on y = (0.1, 0.3, 0.5) (binarized at 0.2 for the
logistic ones), tx = [[2.3, 3.2], [1.0, 0.1], [1.4, 2.3]], initial_w = (0.5, 1.0), max_iters = 2, gamma = 0.1, and
compare w and the loss with ``numpy.testing.assert_allclose(rtol=1e-4, atol=1e-8)``; the records use the same
tolerance, ``1e-8 + 1e-4 |published|``. Each test's inputs and expected numbers are those of the test file (the
"0 step" tests start from the expected w and check the loss of the starting point). Milliseconds.
"""

from __future__ import annotations

import numpy as np

from ..courses import epfl
from .record import ExperimentResult, Recorder, register

PRESET = "epfl_project1"
SOURCE = (
    "EPFL CS-433 project 1 public grading tests (epfml/ML_course, projects/project1/grading_tests/"
    "test_project1_public.py: {test}); tolerance 1e-8 + 1e-4 |published| (the tests' assert_allclose)"
)
Y = np.array([[0.1], [0.3], [0.5]])
TX = np.array([[2.3, 3.2], [1.0, 0.1], [1.4, 2.3]])
W0 = np.array([[0.5], [1.0]])
MAX_ITERS, GAMMA = 2, 0.1

#: test -> (function, arguments, expected w, expected loss) -- the numbers the public tests publish
CASES = {
    "test_mean_squared_error_gd_0_step": (
        "mean_squared_error_gd",
        lambda: (Y, TX, np.array([[0.413044], [0.875757]]), 0, GAMMA),
        (0.413044, 0.875757),
        2.959836,
    ),
    "test_mean_squared_error_gd": (
        "mean_squared_error_gd",
        lambda: (Y, TX, W0, MAX_ITERS, GAMMA),
        (-0.050586, 0.203718),
        0.051534,
    ),
    "test_mean_squared_error_sgd": (
        "mean_squared_error_sgd",
        lambda: (Y[:1], TX[:1], W0, MAX_ITERS, GAMMA),
        (0.063058, 0.39208),
        0.844595,
    ),
    "test_least_squares": ("least_squares", lambda: (Y, TX), (0.218786, -0.053837), 0.026942),
    "test_ridge_regression_lambda0": ("ridge_regression", lambda: (Y, TX, 0.0), (0.218786, -0.053837), 0.026942),
    "test_ridge_regression_lambda1": ("ridge_regression", lambda: (Y, TX, 1.0), (0.054303, 0.042713), 0.03175),
    "test_logistic_regression_0_step": (
        "logistic_regression",
        lambda: ((Y > 0.2) * 1.0, TX, np.array([[0.463156], [0.939874]]), 0, GAMMA),
        (0.463156, 0.939874),
        1.533694,
    ),
    "test_logistic_regression": (
        "logistic_regression",
        lambda: ((Y > 0.2) * 1.0, TX, W0, MAX_ITERS, GAMMA),
        (0.378561, 0.801131),
        1.348358,
    ),
    "test_reg_logistic_regression": (
        "reg_logistic_regression",
        lambda: ((Y > 0.2) * 1.0, TX, 1.0, W0, MAX_ITERS, GAMMA),
        (0.216062, 0.467747),
        0.972165,
    ),
    "test_reg_logistic_regression_0_step": (
        "reg_logistic_regression",
        lambda: ((Y > 0.2) * 1.0, TX, 1.0, np.array([[0.409111], [0.843996]]), 0, GAMMA),
        (0.409111, 0.843996),
        1.407327,
    ),
}


def _tol(published: float) -> float:
    return 1e-8 + 1e-4 * abs(published)


@register(PRESET)
def run(data_dir=None, *, seed: int, quick: bool = False) -> ExperimentResult:
    """Every public grading test's w and loss; ``data_dir``, ``seed`` and ``quick`` change nothing."""
    rec = Recorder(PRESET, example="extra.epfl-project1")
    table = {}
    for test, (function, args, w_expected, loss_expected) in CASES.items():
        w, loss = getattr(epfl, function)(*args())
        by = (f"replearn.courses.epfl.{function}",)
        source = SOURCE.format(test=test)
        for j, value in enumerate(w_expected):
            rec.add(source, f"{test}: w[{j}]", value, float(np.ravel(w)[j]), _tol(value), measured_by=by)
        rec.add(source, f"{test}: loss", loss_expected, float(loss), _tol(loss_expected), measured_by=by)
        table[test] = {"w": np.ravel(w).tolist(), "loss": float(loss), "shape": list(np.shape(w))}
    notes = (
        "EPFL CS-433 project 1 (the EPFL notes' conventions, (seed 004)): the six functions of implementations.py "
        "(replearn.courses.epfl) against the public grading tests' published w and losses."
    )
    curves = {
        "grading_tests": {
            "x": list(CASES),
            "published loss": [c[3] for c in CASES.values()],
            "measured loss": [table[t]["loss"] for t in CASES],
            "x_label": "public grading test",
            "y_label": "loss",
        }
    }
    return rec.result(curves, {"grading_tests": table}, notes)
