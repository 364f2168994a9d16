"""CS229 lecture notes: the redrawable figures, redrawn with replearn's algorithms beside what can be compared.

The notes' images are missing from the text (only captions and prose are left, catalogue §4); each figure is
redrawn from its recipe and checked where the caption or the prose makes a claim a run can test:

==========================================  ================================================================
figure (catalogue entry)                    records
==========================================  ================================================================
GD contour path, §1.1 L236-244              gradient descent on the Portland J(theta) from (48, 30): the path
(cs229.fig-gd-path)                         ends at the printed theta (71.27, 0.1345 per sq ft = 134.5 per
                                            1000 sq ft), J never increases, and the step count stays within
                                            the linear-rate bound of the condition number
Gaussian densities, §4.1.1 L1063-1106       contours of N(mu, Sigma) for the printed Sigma's and mu's: each
(cs229.fig-gaussian-scale,                  contour's centre and axes (the sample MLE of 20,000 draws by
-correlation, -mean)                        linalg.gaussian_sample and the 1-component ``gmm``) against
                                            mu and the eigenvalues/-vectors of Sigma
GDA, §4.1.2 L1181-1190 (cs229.fig-gda)      the two fitted Gaussians share their contours' shape and
                                            orientation, and the boundary p(y=1|x) = 0.5 is a line
coordinate ascent, §6.8.1 L2405-2411        from (2, -2) on a concave quadratic: axis-parallel steps to A^-1 b
(cs229.fig-coordinate-ascent)
Figs. 8.1-8.7, §8.1 L3316-3380              the running example h*(x) = 1 - x/2 - 2x^2 + N(0, 0.3^2): the line
(cs229.fig-8.1 ... fig-8.7)                 underfits on 20 points, on 20,000 and on noiseless data (errors
                                            sigma^2 + 16/45 and 16/45); the degree-5 fit interpolates 6 points,
                                            recovers h* from 20,000 and varies across three datasets
Fig. 10.1, §10 L4170 (cs229.fig-10.1)       two iterations of k-means from centroids that are not training
                                            examples: each step lowers J, and the centroids move to the means
==========================================  ================================================================

Synthetic data from ``seed``; the Portland data from ``data_dir``. Well under a second (``quick`` shrinks the
Monte Carlo sizes).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import linalg, models
from ..exceptions import ConvergenceWarning
from ..features.polynomial import PolynomialFeatures
from ..optim import gradient_descent, quadratic_coordinate_ascent
from ._data import read_csv
from .record import ExperimentResult, Recorder, half_unit, register

PRESET = "cs229_plots"
NOTES = "CS229 notes"
SIGMA = 0.3
BIAS2_LINE = 16.0 / 45.0  # E[(h* - best line)^2] under x ~ U[-1, 1]: the line through h* is 1/3 - x/2


@register(PRESET)
def run(data_dir, *, seed: int, quick: bool = False) -> ExperimentResult:
    """The figures of the module table."""
    rng = np.random.default_rng(seed)
    rec = Recorder(PRESET, provenance="invariant")
    curves: dict = {}
    _gd_path(rec, data_dir, curves)
    _gaussians(rec, rng, quick, curves)
    _gda(rec, rng, curves)
    _coordinate_ascent(rec, curves)
    _bias_variance_figures(rec, rng, quick, curves)
    _kmeans_iterations(rec, rng, curves)
    notes = (
        "CS229 lecture notes (seed 000): the figures whose images are missing from the text, redrawn -- gradient "
        "descent's path on the Portland J (§1.1), Gaussian densities (§4.1.1), GDA (§4.1.2), coordinate ascent "
        "(§6.8.1), the bias-variance running example of Figs. 8.1-8.7 (§8.1) and k-means' iterations (Fig. 10.1). "
        f"Seed {seed}."
    )
    return rec.result(curves, {}, notes)


def _ellipse(mean, cov, level: float = 1.0, n: int = 64) -> list[list[float]]:
    """The contour {x : (x - mean)' cov^-1 (x - mean) = level^2} as a closed polyline."""
    vals, vecs = np.linalg.eigh(np.asarray(cov, dtype=float))
    t = np.linspace(0.0, 2 * np.pi, n)
    pts = np.asarray(mean, dtype=float)[:, None] + vecs @ (
        level * np.sqrt(vals)[:, None] * np.vstack([np.cos(t), np.sin(t)])
    )
    return pts.T.round(6).tolist()


# ------------------------------------------------------------------------------------------- §1.1 GD path


def _gd_path(rec: Recorder, data_dir, curves: dict) -> None:
    ex = "cs229.fig-gd-path"
    data = read_csv(data_dir, "portland_housing.csv")
    x = data["living_area"] / 1000.0  # thousands of square feet: theta1 = 134.5 $1000 per 1000 sq ft
    y = data["price"] / 1000.0
    X = np.c_[np.ones_like(x), x]
    n = len(y)

    def J(theta):
        r = X @ theta - y
        return 0.5 * float(r @ r) / n, X.T @ r / n

    H = X.T @ X / n
    eig = np.linalg.eigvalsh(H)
    L, mu = float(eig[-1]), float(eig[0])
    start = np.array([48.0, 30.0])
    g0 = float(np.linalg.norm(J(start)[1]))
    gtol = 1e-9
    # with step 1/L the gradient contracts by (1 - mu/L) per step in every eigendirection:
    # ||g_k|| <= (1 - mu/L)^k ||g_0||
    bound = math.ceil(math.log(gtol / g0) / math.log(1.0 - mu / L))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = gradient_descent(J, start, learning_rate=1.0 / L, max_iter=bound + 50, tol=0.0, gtol=gtol)
    path = [start]
    theta = start.copy()
    for _ in range(min(res.n_iter, 400)):  # the first steps, for the figure (the same iterates)
        theta = theta - J(theta)[1] / L
        path.append(theta)
    by = ("replearn.optim.gradient_descent",)
    src = f"{NOTES} §1.1 L236-246: gradient descent on the Portland J(theta), 'initialized at (48,30)', ends at"
    rec.add(
        src + " theta0 = 71.27 (L246); half a unit of the last digit",
        "theta0 at the end of gradient descent's path from (48, 30)",
        71.27,
        float(res.params[0]),
        half_unit("71.27"),
        example=ex,
        provenance="printed",
        measured_by=by,
    )
    rec.add(
        src + " theta1 = 0.1345 per sq ft (L246), 134.5 per 1000 sq ft; half a unit of the last digit",
        "theta1 (per 1000 sq ft) at the end of gradient descent's path",
        134.5,
        float(res.params[1]),
        1000 * half_unit("0.1345"),
        example=ex,
        provenance="printed",
        measured_by=by,
    )
    rec.add(
        f"{NOTES} §1.1: J is a convex quadratic ('ellipses ... the contours of a quadratic function'); with step 1/L "
        "every step lowers J; tolerance 1e-12 (round-off)",
        "largest increase of J along the path (relative to J at the start)",
        0.0,
        max(0.0, float(np.max(np.diff(res.loss_history)))) / float(res.loss_history[0]),
        1e-12,
        example=ex,
        measured_by=by,
    )
    rec.add(
        f"{NOTES} §1.1 and the EPFL notes' rate: with step 1/L the gradient shrinks at least by (1 - mu/L) per step, "
        f"so max |gradient| <= {gtol:g} takes at most {bound} steps (kappa = L/mu = {L / mu:.1f})",
        "steps gradient descent needs beyond the linear-rate bound",
        0,
        max(0, int(res.n_iter) - bound) + (0 if res.converged else 50),
        0,
        example=ex,
        provenance="derived",
        derived_from="the condition number of the Portland J (its Hessian X'X/n)",
        measured_by=by,
    )
    Hinv = np.linalg.inv(H)
    curves["gd_path"] = {
        "paths": {
            **{f"_J level {k}": _ellipse(res.params, Hinv * (2 * c), 1.0) for k, c in enumerate((50.0, 200.0, 600.0))},
            "gradient descent from (48, 30)": [list(map(float, p)) for p in path[:: max(1, len(path) // 60)]],
        },
        "points": {"minimum (normal equations)": [[float(res.params[0]), float(res.params[1])]]},
        "x_label": "theta0",
        "y_label": "theta1 (per 1000 sq ft)",
    }


# ------------------------------------------------------------------------------------------- §4.1.1 Gaussians

GAUSSIAN_FIGURES = {
    "cs229.fig-gaussian-scale": ("L1063-1076", [(np.zeros(2), np.eye(2) * s) for s in (1.0, 0.6, 2.0)]),
    "cs229.fig-gaussian-correlation": (
        "L1078-1098",
        [(np.zeros(2), np.array([[1.0, r], [r, 1.0]])) for r in (0.5, 0.8, -0.5, -0.8)]
        + [(np.zeros(2), np.array([[3.0, 0.8], [0.8, 1.0]]))],
    ),
    "cs229.fig-gaussian-mean": (
        "L1100-1106",
        [(np.array(m), np.eye(2)) for m in ((1.0, 0.0), (-0.5, 0.0), (-1.0, -1.5))],
    ),
}


def _fit_gaussian(X: np.ndarray):
    g = models.create("gmm", n_components=1, reg_covar=0.0, random_state=0).fit(X)
    return np.asarray(g.means_)[0], np.asarray(g.covariances_)[0]


def _gaussians(rec: Recorder, rng: np.random.Generator, quick: bool, curves: dict) -> None:
    n = 8000 if quick else 20000
    by = ("replearn.linalg.gaussian_sample", "replearn.models:gmm")
    for ex, (lines, params) in GAUSSIAN_FIGURES.items():
        centre_z, axis_z, angle = 0.0, 0.0, 0.0
        paths = {}
        for mean, cov in params:
            m_hat, S_hat = _fit_gaussian(linalg.gaussian_sample(mean, cov, n, random_state=rng))
            centre_z = max(centre_z, float(np.max(np.abs(m_hat - mean) / np.sqrt(np.diag(cov) / n))))
            lam, vec = np.linalg.eigh(cov)
            lam_hat, vec_hat = np.linalg.eigh(S_hat)
            # the contour's semi-axes sqrt(lambda): standard error sqrt(lambda) / sqrt(2n) each
            axis_z = max(axis_z, float(np.max(np.abs(np.sqrt(lam_hat) - np.sqrt(lam)) / np.sqrt(lam / (2 * n)))))
            if lam[1] > 1.05 * lam[0]:  # a distinct major axis: its direction
                cos = min(1.0, abs(float(vec_hat[:, 1] @ vec[:, 1])))
                angle = max(angle, float(np.degrees(np.arccos(cos))))
            label = (
                f"mu = ({mean[0]:g}, {mean[1]:g}), "
                f"Sigma = [[{cov[0, 0]:g}, {cov[0, 1]:g}], [{cov[1, 0]:g}, {cov[1, 1]:g}]]"
            )
            paths[label] = _ellipse(m_hat, S_hat)
        src = (
            f"{NOTES} §4.1.1 {lines}: the contours of N(mu, Sigma) are ellipses centred at mu with semi-axes "
            "sqrt(eig Sigma)"
        )
        rec.add(
            src + f" ({n} draws per density, the MLE of a 1-component GMM); in standard errors, tolerance 4",
            f"{ex.split('-', 1)[1]}: largest |contour centre - mu| / standard error",
            0.0,
            centre_z,
            4.0,
            example=ex,
            provenance="printed",
            measured_by=by,
        )
        rec.add(
            src + "; in standard errors, tolerance 4",
            f"{ex.split('-', 1)[1]}: largest |contour semi-axis - sqrt(eigenvalue of Sigma)| / standard error",
            0.0,
            axis_z,
            4.0,
            example=ex,
            provenance="printed",
            measured_by=by,
        )
        if ex == "cs229.fig-gaussian-correlation":
            rec.add(
                src + "; 'compressed towards the 45° line' (and the -45° one for negative correlation): the major "
                "axis' direction, tolerance 2 degrees",
                "largest angle between the contour's major axis and Sigma's top eigenvector (degrees)",
                0.0,
                angle,
                2.0,
                example=ex,
                provenance="printed",
                measured_by=by,
            )
        curves[ex.split(".", 1)[1]] = {"paths": paths, "x_label": "x1", "y_label": "x2", "equal_axes": True}


# ------------------------------------------------------------------------------------------- §4.1.2 GDA


def _gda(rec: Recorder, rng: np.random.Generator, curves: dict) -> None:
    ex = "cs229.fig-gda"
    cov = np.array([[1.0, 0.5], [0.5, 1.5]])
    X = np.vstack(
        [linalg.gaussian_sample([0.0, 0.0], cov, 150, rng), linalg.gaussian_sample([2.5, 1.5], cov, 150, rng)]
    )
    y = np.r_[np.zeros(150, int), np.ones(150, int)]
    gda = models.create("gda", covariance="shared", reg_covar=0.0).fit(X, y)
    grid = np.array(np.meshgrid(np.linspace(-3, 5, 41), np.linspace(-3, 5, 41))).reshape(2, -1).T
    p = np.clip(gda.predict_proba(grid)[:, 1], 1e-300, 1 - 1e-16)
    logit = np.log(p) - np.log1p(-p)
    A = np.c_[np.ones(len(grid)), grid]
    resid = logit - A @ np.linalg.lstsq(A, logit, rcond=None)[0]
    by = ("replearn.models:gda",)
    src = (
        f"{NOTES} §4.1.2 L1181-1190: 'the two Gaussians have contours that are the same shape and orientation, since "
        "they share a covariance matrix'"
    )
    covs = np.asarray(gda.covariance_)
    shared = covs if covs.ndim == 2 else covs.mean(axis=0)
    rec.add(
        src + "; the log-odds of the fitted model on a 41 x 41 grid minus the best affine function, tolerance 1e-9",
        "largest deviation of GDA's log-odds from an affine function (the boundary p = 0.5 is a line)",
        0.0,
        float(np.max(np.abs(resid)) / max(1.0, float(np.max(np.abs(logit))))),
        1e-9,
        example=ex,
        measured_by=by,
    )
    means = np.asarray(gda.means_)
    w = np.linalg.solve(shared, means[1] - means[0])
    mid = 0.5 * (means[0] + means[1])
    prior = float(np.mean(y))
    rec.add(
        src + "; with equal class priors the boundary passes through the midpoint of the two means (derived from "
        "theta0 of §4.1.3); tolerance 1e-9",
        "GDA's p(y = 1 | midpoint of the means) - 1/2",
        0.0,
        float(gda.predict_proba(mid[None])[0, 1]) - 0.5,
        1e-9,
        example=ex,
        provenance="derived",
        derived_from=f"theta0 = -1/2 (mu1' S^-1 mu1 - mu0' S^-1 mu0) + log(phi/(1-phi)) with phi = {prior}",
        measured_by=by,
    )
    direction = np.array([-w[1], w[0]]) / np.linalg.norm(w)
    line = [list(mid + t * direction) for t in (-4.0, 4.0)]
    curves["gda"] = {
        "points": {"y = 0": X[:150:3].round(4).tolist(), "y = 1": X[150::3].round(4).tolist()},
        "paths": {
            "class 0 contour": _ellipse(means[0], shared, 1.5),
            "class 1 contour": _ellipse(means[1], shared, 1.5),
            "boundary p(y=1|x) = 0.5": line,
        },
        "x_label": "x1",
        "y_label": "x2",
        "equal_axes": True,
    }


# ------------------------------------------------------------------------------------------- §6.8.1 coordinate ascent


def _coordinate_ascent(rec: Recorder, curves: dict) -> None:
    ex = "cs229.fig-coordinate-ascent"
    A = np.array([[2.0, 1.2], [1.2, 1.0]])
    b = np.array([1.0, 0.5])
    res = quadratic_coordinate_ascent(A, b, [2.0, -2.0])
    path = res.extra["path"]
    opt = np.linalg.solve(A, b)
    by = ("replearn.optim.quadratic_coordinate_ascent",)
    src = f"{NOTES} §6.8.1 L2405-2411: coordinate ascent 'initialized at (2, -2)' on a concave quadratic"
    rec.add(
        src + " reaches its global maximum A^-1 b; tolerance 1e-9",
        "max |end of the coordinate-ascent path - argmax W|",
        0.0,
        float(np.max(np.abs(res.params - opt))),
        1e-9,
        example=ex,
        measured_by=by,
    )
    steps = np.diff(path, axis=0)
    rec.add(
        src + ": 'on each step, coordinate ascent takes a step that's parallel to one of the axes'",
        "steps that move both coordinates",
        0,
        int(np.sum(np.all(np.abs(steps) > 0, axis=1))),
        0,
        example=ex,
        provenance="printed",
        measured_by=by,
    )
    rec.add(
        src + ": each step maximizes W along one coordinate, so W never decreases",
        "largest decrease of W along the path",
        0.0,
        max(0.0, float(-np.min(np.diff(res.loss_history)))),
        1e-12,
        example=ex,
        measured_by=by,
    )
    curves["coordinate_ascent"] = {
        "paths": {
            **{f"_W level {k}": _ellipse(opt, np.linalg.inv(A) * c) for k, c in enumerate((0.5, 2.0, 6.0, 12.0))},
            "coordinate ascent from (2, -2)": path[:20].round(6).tolist(),
        },
        "points": {"maximum": [opt.tolist()]},
        "x_label": "alpha_1",
        "y_label": "alpha_2",
        "equal_axes": True,
    }


# ------------------------------------------------------------------------------------------- §8.1 Figs. 8.1-8.7


def h_star(x: np.ndarray) -> np.ndarray:
    return 1.0 - 0.5 * x - 2.0 * x**2


def _in_frame(values: np.ndarray, lo: float, hi: float) -> list:
    """A curve for the page, None where it leaves [lo, hi]: the line leaves the frame there (a clipped value would
    draw a flat stretch the fit does not have)."""
    v = np.asarray(values, dtype=float).round(6)
    return [float(a) if lo <= a <= hi else None for a in v]


def _fit(x, y, degree):
    feats = PolynomialFeatures(degree=degree, include_bias=False).fit(x[:, None])
    model = models.create("linear_regression", solver="lstsq").fit(feats.transform(x[:, None]), y)
    return lambda z: model.predict(feats.transform(np.asarray(z)[:, None])), model


def _prediction_se(x: np.ndarray, grid: np.ndarray, degree: int) -> np.ndarray:
    """The standard error sigma sqrt(g' (V'V)^-1 g) of a degree-``degree`` least-squares curve at each grid point
    (V the design of ``x``): the published side's uncertainty, from the design alone."""
    V = np.vander(x, degree + 1, increasing=True)
    G = np.vander(grid, degree + 1, increasing=True)
    return SIGMA * np.sqrt(np.einsum("ij,jk,ik->i", G, np.linalg.inv(V.T @ V), G))


def _draw(rng, n, sigma=SIGMA):
    x = rng.uniform(-1.0, 1.0, n)
    return x, h_star(x) + sigma * rng.standard_normal(n)


def _bias_variance_figures(rec: Recorder, rng: np.random.Generator, quick: bool, curves: dict) -> None:
    by = ("replearn.models:linear_regression", "replearn.features.polynomial.PolynomialFeatures")
    big = 10_000 if quick else 20_000
    grid = np.linspace(-1.0, 1.0, 81)
    x_tr, y_tr = _draw(rng, 20)
    x_te, y_te = _draw(rng, 200)

    # Fig. 8.1: the running example; a quadratic least squares on many draws recovers h*
    xb, yb = _draw(rng, big)
    quad_b, _ = _fit(xb, yb, 2)
    se2 = _prediction_se(xb, grid, 2)
    rec.add(
        f"{NOTES} §8.1 Fig. 8.1 (L3316): training and test sets from y = h*(x) + noise, h* quadratic (here "
        f"1 - x/2 - 2x^2, sigma = {SIGMA}); least squares of degree 2 on {big} draws recovers h* on [-1, 1]; in "
        "standard errors of the fitted curve, tolerance 4",
        "largest |degree-2 fit - h*| / standard error over [-1, 1]",
        0.0,
        float(np.max(np.abs(quad_b(grid) - h_star(grid)) / se2)),
        4.0,
        example="cs229.fig-8.1",
        measured_by=by,
    )
    curves["fig_8_1"] = {
        "x": grid.round(4).tolist(),
        "h*": h_star(grid).round(6).tolist(),
        "points": {
            "training set": np.c_[x_tr, y_tr].round(4).tolist(),
            "test set": np.c_[x_te, y_te][:80].round(4).tolist(),
        },
        "x_label": "x",
        "y_label": "y",
    }

    # Fig. 8.2: the best line on the 20 training points has large training and test errors
    line, _ = _fit(x_tr, y_tr, 1)
    train_mse = float(np.mean((line(x_tr) - y_tr) ** 2))
    test_mse = float(np.mean((line(x_te) - y_te) ** 2))
    rec.add(
        f"{NOTES} §8.1 Fig. 8.2 (L3332): 'the best fit linear model has large training and test errors' -- the "
        "training error above the noise variance sigma^2 (L3296: underfitting is a training error above the noise "
        "level) and the test error above twice it",
        "the line's training MSE above sigma^2 and test MSE above 2 sigma^2 (1 yes, 0 no)",
        1,
        int(train_mse > SIGMA**2 and test_mse > 2 * SIGMA**2),
        0,
        example="cs229.fig-8.2",
        provenance="printed",
        measured_by=by,
    )
    curves["fig_8_2"] = {
        "x": grid.round(4).tolist(),
        "h*": h_star(grid).round(6).tolist(),
        "best line": line(grid).round(6).tolist(),
        "points": {"training set": np.c_[x_tr, y_tr].round(4).tolist()},
        "x_label": "x",
        "y_label": "y",
    }

    # Figs. 8.3-8.4: on a much larger (and on a noiseless) dataset the line's error stays sigma^2 + 16/45 (16/45)
    for fig, sigma, target in (("8.3", SIGMA, BIAS2_LINE + SIGMA**2), ("8.4", 0.0, BIAS2_LINE)):
        xb, yb = _draw(rng, big, sigma)
        line_b, _ = _fit(xb, yb, 1)
        r2 = (line_b(xb) - yb) ** 2
        se = float(r2.std(ddof=1) / math.sqrt(big))
        what = "a much larger dataset" if fig == "8.3" else "a noiseless dataset"
        rec.add(
            f"{NOTES} §8.1 Fig. {fig} (L{3346 if fig == '8.3' else 3350}): the best line on {what} still has a large "
            f"training error: bias^2 + sigma^2 = 16/45 + {sigma**2:g} (derived: the least-squares line through h* is "
            f"1/3 - x/2); {big} points, tolerance 4 standard errors + 2/n",
            f"training MSE of the best line, {what}",
            target,
            float(r2.mean()),
            4 * se + 2.0 / big,
            example=f"cs229.fig-{fig}",
            provenance="derived",
            derived_from="h* = 1 - x/2 - 2x^2, x ~ U[-1, 1]: E[(h* - (1/3 - x/2))^2] = 16/45",
            measured_by=by,
        )
        curves[f"fig_{fig.replace('.', '_')}"] = {
            "x": grid.round(4).tolist(),
            "h*": h_star(grid).round(6).tolist(),
            "best line": line_b(grid).round(6).tolist(),
            "points": {"data (every 100th)": np.c_[xb, yb][::100].round(4).tolist()},
            "x_label": "x",
            "y_label": "y",
        }

    # Fig. 8.5: the degree-5 polynomial through 6 points: zero training error, large test error
    x6, y6 = _draw(rng, 6)
    quintic, q_model = _fit(x6, y6, 5)
    rec.add(
        f"{NOTES} §8.1 Fig. 8.5 (L3357): 'the best fit 5-th degree polynomial has zero training error' on 6 points "
        "(it interpolates them); tolerance 1e-12 (round-off)",
        "training MSE of the degree-5 fit on 6 points",
        0.0,
        float(np.mean((quintic(x6) - y6) ** 2)),
        1e-12,
        example="cs229.fig-8.5",
        provenance="printed",
        measured_by=by,
    )
    test5 = float(np.mean((quintic(x_te) - y_te) ** 2))
    test2 = float(np.mean((_fit(x6, y6, 2)[0](x_te) - y_te) ** 2))
    rec.add(
        f"{NOTES} §8.1 Fig. 8.5: '... but still has a large test error and does not recover the ground truth' -- "
        f"above the quadratic fit's on the same 6 points (Fig. 8.9: the quadratic is the better tradeoff); test "
        f"MSE {test5:.3f} against {test2:.3f}",
        "test MSE of the degree-5 fit on 6 points above the quadratic fit's (1 yes, 0 no)",
        1,
        int(test5 > test2),
        0,
        example="cs229.fig-8.5",
        provenance="printed",
        measured_by=by,
    )
    curves["fig_8_5"] = {
        "x": grid.round(4).tolist(),
        "h*": h_star(grid).round(6).tolist(),
        "degree-5 fit": _in_frame(quintic(grid), -6.0, 4.0),
        "points": {"6 training points": np.c_[x6, y6].round(4).tolist()},
        "x_label": "x",
        "y_label": "y",
    }

    # Fig. 8.6: on a huge dataset the degree-5 fit nearly recovers h*
    xb, yb = _draw(rng, big)
    quintic_b, _ = _fit(xb, yb, 5)
    se5 = _prediction_se(xb, grid, 5)
    rec.add(
        f"{NOTES} §8.1 Fig. 8.6 (L3373): 'the best fit 5-th degree polynomial on a huge dataset nearly recovers the "
        f"ground-truth' ({big} points); the fitted curve against h* over [-1, 1], in standard errors of the fit "
        "(sigma sqrt(g' (V'V)^-1 g)), tolerance 4",
        "largest |degree-5 fit - h*| / standard error over [-1, 1]",
        0.0,
        float(np.max(np.abs(quintic_b(grid) - h_star(grid)) / se5)),
        4.0,
        example="cs229.fig-8.6",
        provenance="printed",
        measured_by=by,
    )
    curves["fig_8_6"] = {
        "x": grid.round(4).tolist(),
        "h*": h_star(grid).round(6).tolist(),
        "degree-5 fit": quintic_b(grid).round(6).tolist(),
        "x_label": "x",
        "y_label": "y",
    }

    # Fig. 8.7: three datasets, three different degree-5 fits (variance); degree 2 much less
    fits5, fits2 = [], []
    for _ in range(3):
        xs, ys = _draw(rng, 6)
        fits5.append(_fit(xs, ys, 5)[0](grid))
        fits2.append(_fit(xs, ys, 2)[0](grid))
    spread5 = float(np.max(np.std(fits5, axis=0)))
    spread2 = float(np.max(np.std(fits2, axis=0)))
    rec.add(
        f"{NOTES} §8.1 Fig. 8.7 (L3380): 'the best fit 5-th degree models on three different datasets ... behave "
        f"quite differently': the largest spread of the three fits over [-1, 1] ({spread5:.2f}) is more than twice "
        f"the degree-2 fits' ({spread2:.2f}) on the same data",
        "degree-5 fits spread more than twice the degree-2 fits (1 yes, 0 no)",
        1,
        int(spread5 > 2 * spread2),
        0,
        example="cs229.fig-8.7",
        provenance="printed",
        measured_by=by,
    )
    curves["fig_8_7"] = {
        "x": grid.round(4).tolist(),
        "h*": h_star(grid).round(6).tolist(),
        **{f"degree 5, dataset {k + 1}": _in_frame(f, -6.0, 4.0) for k, f in enumerate(fits5)},
        "x_label": "x",
        "y_label": "y",
    }


# ------------------------------------------------------------------------------------------- Fig. 10.1 k-means


def _kmeans_iterations(rec: Recorder, rng: np.random.Generator, curves: dict) -> None:
    ex = "cs229.fig-10.1"
    centres = np.array([[-1.5, 0.5], [1.5, -0.5]])
    X = np.vstack([c + 0.5 * rng.standard_normal((60, 2)) for c in centres])
    init = np.array([[0.3, 2.2], [0.8, 1.9]])  # (b): random initial centroids, not training examples
    by = ("replearn.models:kmeans",)
    states, J = [init], []
    for it in (1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            km = models.create("kmeans", n_clusters=2, init=init, n_init=1, max_iter=it, tol=0.0).fit(X)
        states.append(np.asarray(km.cluster_centers_))
        J.append(float(km.inertia_))
    J0 = float(np.min(((X[:, None, :] - init[None]) ** 2).sum(axis=2), axis=1).sum())
    src = (
        f"{NOTES} §10 Fig. 10.1 (L4170): two iterations of k-means from random centroids; each iteration assigns and "
        "moves each centroid to the mean of its points"
    )
    rec.add(
        src + "; the distortion J never increases (coordinate descent, L4185)",
        "largest increase of J over the two iterations",
        0.0,
        max(0.0, J[0] - J0, J[1] - J[0]),
        1e-9 * J0,
        example=ex,
        measured_by=by,
    )
    labels = np.argmin(((X[:, None, :] - states[1][None]) ** 2).sum(axis=2), axis=1)
    means = np.array([X[labels == k].mean(axis=0) for k in range(2)])
    rec.add(
        src + "; after the second iteration each centroid is the mean of the points the first one assigned it "
        "(exact, 1e-12)",
        "max |centroid after iteration 2 - mean of its assigned points|",
        0.0,
        float(np.max(np.abs(states[2] - means))),
        1e-12,
        example=ex,
        measured_by=by,
    )
    final = models.create("kmeans", n_clusters=2, init=init, n_init=1).fit(X)
    order = np.argsort(np.asarray(final.cluster_centers_)[:, 0])
    rec.add(
        src + "; run to convergence the centroids find the two generating centres (-1.5, 0.5), (1.5, -0.5); "
        "tolerance 4 standard errors of a 60-point mean (0.5 / sqrt 60)",
        "max |converged centroid - generating centre| / standard error",
        0.0,
        float(np.max(np.abs(np.asarray(final.cluster_centers_)[order] - centres)) / (0.5 / math.sqrt(60))),
        4.0,
        example=ex,
        measured_by=by,
    )
    curves["kmeans_fig_10_1"] = {
        "points": {
            "training examples": X.round(4).tolist(),
            "initial centroids (b)": init.tolist(),
            "after iteration 1": states[1].round(4).tolist(),
            "after iteration 2": states[2].round(4).tolist(),
        },
        "paths": {f"_centroid {k + 1}": [s[k].round(4).tolist() for s in states] for k in range(2)},
        "x_label": "x1",
        "y_label": "x2",
        "equal_axes": True,
    }
