"""CS229 notes: the figures of §6.6, §8.2 and §9.2 that the double_descent preset does not redraw.

* **Fig. 8.10 / 8.12, model-wise double descent.** A fixed training set of n = 200 examples (the text's
  Fig. 8.12 uses n = 500 random ReLU features of Fashion-MNIST; here x ~ N(0, I_10), a non-linear target
  ``sin(2 x1) + x2 x3 + x4 / 2`` plus N(0, 0.25) noise, so the run takes a second), random ReLU features
  ``phi_j(x) = max(w_j'x, 0)`` with ``w_j ~ N(0, I/10)``, and the minimum-norm least-squares fit
  (``linear_regression``, ``solver="lstsq"``, no intercept) for p = 20 .. 2000 features; test error on 2000
  fresh examples, the median over 3 draws of the features (1 in quick mode). Records: the test error
  peaks at p = n (Fig. 8.10: "a peak around when the model size is large enough to fit all the training
  data"), the parameter norm ||theta|| peaks at p = n too (Fig. 8.12 middle), and test error against the
  norm is monotone (Fig. 8.12 right: "closer to the conventional wisdom"): Spearman's rank correlation
  over the grid is 1, tolerance 0.15 (the two branches p < n and p > n are not exactly on one curve).
* **Fig. 9.2 right, implicit regularization.** Underdetermined least squares (n = 40, d = 100,
  y = x'beta + N(0, 0.25), ||beta|| = 1): gradient descent from 0 (``linear_regression``, ``solver="gd"``)
  reaches the minimum-norm solution X^+ y (the notes' annotation L3960-3988); gradient descent from
  theta_0 (:func:`replearn.optim.gradient_descent`) reaches another global minimum, X^+ y + (I - X^+ X)
  theta_0 (GD never leaves theta_0 + row space), with the same zero training loss; and the test error
  grows with the scale of the initialization (L3984: "smaller initialization ... appears to help"),
  Spearman correlation 1 over scales 0, 1, 2, 4, 8 (exact ranks, tolerance 1e-9).
* **§6.6 figure (L2257-2261), the maximum-margin separator.** A hard-margin SVM (``svm``, linear kernel,
  C = 1e6) on 40 separable points: every support vector lies on the margin (y(w'x + b) = 1), and ||w||
  equals the minimum of ||w|| subject to y(w'x + b) >= 1 solved directly (scipy's SLSQP), so the margin
  band 2/||w|| is the widest.

Tolerances are stated per record; the double-descent grid records use the grid spacing next to n (20).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import minimize
from scipy.stats import spearmanr

from .. import models
from ..exceptions import ConvergenceWarning
from ..optim import gradient_descent
from .record import ExperimentResult, Recorder, register

PRESET = "cs229_figures"
N_TRAIN = 200
D_INPUT = 10
P_GRID = (20, 50, 100, 150, 180, 200, 220, 250, 300, 400, 600, 1000, 2000)
QUICK_P_GRID = (50, 100, 180, 200, 220, 400, 1000)
NOISE = 0.5


@register(PRESET)
def run(data_dir=None, *, seed: int, quick: bool = False) -> ExperimentResult:
    """Model-wise double descent, implicit regularization and the max-margin figure; ``data_dir`` is unused."""
    rng = np.random.default_rng(seed)
    rec = Recorder(PRESET, provenance="invariant")
    curves, tables = {}, {}
    _double_descent(rec, rng, quick, curves, tables)
    _implicit_regularization(rec, rng, curves, tables)
    _max_margin(rec, rng, curves, tables)
    notes = (
        "CS229 lecture notes (seed 000): §8.2 Figs. 8.10 and 8.12, model-wise double descent of min-norm least "
        f"squares on random ReLU features (n = {N_TRAIN} synthetic examples instead of Fashion-MNIST); §9.2 Fig. 9.2 "
        "right, gradient descent from zero reaches the minimum-norm solution and other initializations other "
        f"global minima; §6.6, the maximum-margin separator and its support vectors. Seed {seed}."
    )
    return rec.result(curves, tables, notes)


def _target(X: np.ndarray) -> np.ndarray:
    return np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * X[:, 3]


def _features(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Random ReLU features max(W x, 0)."""
    return np.maximum(X @ W.T, 0.0)


def _double_descent(rec: Recorder, rng: np.random.Generator, quick: bool, curves: dict, tables: dict) -> None:
    grid = QUICK_P_GRID if quick else P_GRID
    draws = 1 if quick else 3
    X = rng.standard_normal((N_TRAIN, D_INPUT))
    y = _target(X) + NOISE * rng.standard_normal(N_TRAIN)
    Xt = rng.standard_normal((2000, D_INPUT))
    yt = _target(Xt) + NOISE * rng.standard_normal(2000)
    err = np.empty((draws, len(grid)))
    norm = np.empty_like(err)
    for r in range(draws):
        W = rng.standard_normal((max(grid), D_INPUT)) / np.sqrt(D_INPUT)
        F, Ft = _features(X, W), _features(Xt, W)
        for j, p in enumerate(grid):
            fit = models.create("linear_regression", solver="lstsq", fit_intercept=False).fit(F[:, :p], y)
            err[r, j] = float(np.mean((Ft[:, :p] @ fit.coef_ - yt) ** 2))
            norm[r, j] = float(np.linalg.norm(fit.coef_))
    e, nm = np.median(err, axis=0), np.median(norm, axis=0)
    spacing = "tolerance 20 = the grid spacing next to n"
    rec.add(
        f"CS229 notes §8.2 Fig. 8.10 (L3513-3524): the test error peaks where the model can just fit the n = {N_TRAIN} "
        f"training examples (#parameters = n); {spacing}",
        "number of random features maximizing the min-norm test error",
        N_TRAIN,
        grid[int(np.argmax(e))],
        20,
        example="cs229.model-wise-double-descent",
        measured_by=("replearn.models:linear_regression",),
    )
    rec.add(
        f"CS229 notes §8.2 Fig. 8.12 middle (L3588): the norm of the learned model peaks at #parameters = n; {spacing}",
        "number of random features maximizing ||theta|| of the min-norm fit",
        N_TRAIN,
        grid[int(np.argmax(nm))],
        20,
        example="cs229.norm-complexity",
        measured_by=("replearn.models:linear_regression",),
    )
    rho = spearmanr(nm, e).correlation
    rec.add(
        "CS229 notes §8.2 Fig. 8.12 right (L3588): test error against the norm shows no double descent, closer to the "
        "conventional wisdom (monotone); Spearman rank correlation over the grid, tolerance 0.15 (two branches)",
        "Spearman correlation of test error with ||theta|| over the model sizes",
        1.0,
        float(rho),
        0.15,
        example="cs229.norm-complexity",
        measured_by=("replearn.models:linear_regression",),
    )
    curves["model_wise_double_descent"] = {
        "x": list(grid),
        "test_mse": e.tolist(),
        "noise_floor": [NOISE**2] * len(grid),
        "x_label": f"random features p (n = {N_TRAIN})",
        "y_label": "test MSE (median of draws)",
    }
    curves["norm_vs_parameters"] = {
        "x": list(grid),
        "norm": nm.tolist(),
        "x_label": f"random features p (n = {N_TRAIN})",
        "y_label": "||theta|| of the min-norm fit",
    }
    tables["model_wise_setting"] = {"n": N_TRAIN, "d": D_INPUT, "noise_sd": NOISE, "feature_draws": draws}


def _gd_from(X: np.ndarray, y: np.ndarray, theta0: np.ndarray, lr: float, iters: int) -> np.ndarray:
    """Batch gradient descent on J = 1/(2n) ||X theta - y||^2 from theta0."""
    n = len(y)

    def fun(theta):
        r = X @ theta - y
        return 0.5 * float(r @ r) / n, X.T @ r / n

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return gradient_descent(fun, theta0, learning_rate=lr, max_iter=iters, tol=0.0, gtol=1e-13).params


def _implicit_regularization(rec: Recorder, rng: np.random.Generator, curves: dict, tables: dict) -> None:
    n, d, sigma = 40, 100, 0.5
    beta = rng.standard_normal(d)
    beta /= np.linalg.norm(beta)
    X = rng.standard_normal((n, d))
    y = X @ beta + sigma * rng.standard_normal(n)
    pinv = np.linalg.pinv(X)
    min_norm = pinv @ y
    lr = 1.0 / np.linalg.eigvalsh(X.T @ X / n).max()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gd = models.create(
            "linear_regression", solver="gd", fit_intercept=False, learning_rate=lr, max_iter=20000, tol=0.0
        ).fit(X, y)
    rec.add(
        "CS229 notes §9.2 (annotation L3960-3988; §8.2 L3560): gradient descent with init theta = 0 converges to the "
        f"minimum-norm solution of the underdetermined least squares (n = {n} < d = {d}); tolerance 1e-6 relative",
        "||theta_GD(init 0) - X^+ y|| / ||X^+ y||",
        0.0,
        float(np.linalg.norm(gd.coef_ - min_norm) / np.linalg.norm(min_norm)),
        1e-6,
        example="cs229.implicit-regularization",
        measured_by=("replearn.models:linear_regression", "replearn.optim.gradient_descent"),
    )
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    scales = (0.0, 1.0, 2.0, 4.0, 8.0)
    solutions = [_gd_from(X, y, s * u, lr, 4000) for s in scales]
    predicted = [min_norm + s * (u - pinv @ (X @ u)) for s in scales]
    train = [float(np.mean((X @ th - y) ** 2)) for th in solutions]
    test = [float(np.sum((th - beta) ** 2) + sigma**2) for th in solutions]  # exact for x ~ N(0, I)
    rec.add(
        "CS229 notes §9.2 Fig. 9.2 right: the initializations reach global minima with the same (zero) training loss; "
        "tolerance 1e-12",
        "largest training MSE over the initialization scales 0, 1, 2, 4, 8",
        0.0,
        max(train),
        1e-12,
        example="cs229.implicit-regularization",
        measured_by=("replearn.models:linear_regression", "replearn.optim.gradient_descent"),
    )
    rec.add(
        "CS229 notes §9.2 (L3960-3988: the solutions lie in theta_0 + span{x^(i)}): GD from theta_0 converges to "
        "X^+ y + (I - X^+ X) theta_0, a different global minimum for every theta_0; tolerance 1e-6 relative",
        "largest ||theta_GD(theta_0) - (X^+ y + (I - X^+ X) theta_0)|| / ||X^+ y||",
        0.0,
        max(float(np.linalg.norm(a - b) / np.linalg.norm(min_norm)) for a, b in zip(solutions, predicted)),
        1e-6,
        example="cs229.implicit-regularization",
        measured_by=("replearn.models:linear_regression", "replearn.optim.gradient_descent"),
    )
    rec.add(
        "CS229 notes §9.2 Fig. 9.2 right and L3984 (smaller initialization generalizes better): test error "
        "||theta - beta||^2 + sigma^2 rises with the initialization scale; Spearman correlation, exact ranks "
        "(tolerance 1e-9: round-off)",
        "Spearman correlation of the test error with the initialization scale (0, 1, 2, 4, 8)",
        1.0,
        float(spearmanr(scales, test).correlation),
        1e-9,
        example="cs229.implicit-regularization",
        measured_by=("replearn.models:linear_regression", "replearn.optim.gradient_descent"),
    )
    curves["implicit_regularization"] = {
        "x": list(scales),
        "test_mse": test,
        "train_mse": train,
        "x_label": "scale of the initialization theta_0",
        "y_label": "MSE of the GD solution",
    }
    tables["implicit_regularization"] = {"n": n, "d": d, "sigma": sigma, "min_norm_test_mse": test[0]}


def _max_margin(rec: Recorder, rng: np.random.Generator, curves: dict, tables: dict) -> None:
    X = np.vstack([rng.normal([2.0, 2.0], 0.7, (20, 2)), rng.normal([-2.0, -2.0], 0.7, (20, 2))])
    y = np.r_[np.ones(20), -np.ones(20)]
    sep = X @ np.array([1.0, 1.0])
    X[:20] += np.maximum(0.0, 0.5 - sep[:20, None] / 2)  # keep the classes apart (separable data)
    X[20:] -= np.maximum(0.0, 0.5 + sep[20:, None] / 2)
    svm = models.create("svm", kernel="linear", C=1e6, tol=1e-6).fit(X, y)
    sv = svm.support_
    w = svm.dual_coef_[0] @ svm.support_vectors_
    b = float(svm.intercept_[0])
    f = X @ w + b
    sign = 1.0 if np.mean(np.sign(f) == y) > 0.5 else -1.0  # the pairwise problem's orientation
    margins = sign * y * f
    rec.add(
        "CS229 notes §6.6 (L2245-2311, figure L2257-2261): only the support vectors have alpha_i > 0 and they lie on "
        "the margin, y(w'x + b) = 1; tolerance 1e-3 (the SMO tolerance)",
        "max |y(w'x + b) - 1| over the support vectors",
        0.0,
        float(np.max(np.abs(margins[sv] - 1.0))),
        1e-3,
        example="cs229.max-margin-figure",
        measured_by=("replearn.models:svm",),
    )
    cons = {"type": "ineq", "fun": lambda v: y * (X @ v[:2] + v[2]) - 1.0}
    qp = minimize(lambda v: 0.5 * v[:2] @ v[:2], np.r_[1.0, 1.0, 0.0], constraints=[cons], method="SLSQP")
    w_qp = np.linalg.norm(qp.x[:2])
    rec.add(
        "CS229 notes §6.4 (min 1/2 ||w||^2 s.t. y(w'x + b) >= 1) and EPFL L1036 (margin 2/||w||): the SVM's margin "
        "band 2/||w|| is the widest; ||w|| against the primal QP solved by SLSQP, tolerance 1e-3 relative",
        "| ||w|| (SVM dual) - ||w|| (primal QP) | / ||w|| (primal QP)",
        0.0,
        float(abs(np.linalg.norm(w) - w_qp) / w_qp),
        1e-3,
        example="cs229.max-margin-figure",
        measured_by=("replearn.models:svm",),
    )
    x1 = np.linspace(X[:, 0].min(), X[:, 0].max(), 50)

    def line(level):
        return ((sign * level - b - w[0] * x1) / w[1]).tolist()

    curves["max_margin"] = {
        "x": x1.tolist(),
        "separator": line(0.0),
        "margin +1": line(1.0),
        "margin -1": line(-1.0),
        "x_label": "x1",
        "y_label": "x2",
        "points": {
            "positive": X[y > 0].tolist(),
            "negative": X[y < 0].tolist(),
            "support vectors": X[sv].tolist(),
        },
    }
    tables["max_margin"] = {"w": (sign * w).tolist(), "b": sign * b, "support_vectors": int(sv.size)}
