"""CIML's redrawable figures (beyond Figs. 3.18, 4.4, 10.3 and 13.3 of ``ciml_figures``), redrawn with replearn.

==========================================  ================================================================
figure (catalogue entry)                    records
==========================================  ================================================================
Figs. 3.9/3.10 (ciml.fig-3.9, -3.10)        the 1-NN boundary separates every training point correctly; the
                                            3-NN prediction is the majority of the 3 nearest (brute force)
                                            and its boundary crosses fewer grid cells than 1-NN's
Fig. 3.12 (ciml.fig-3.12)                   a depth-2 tree's boundary is axis-aligned cuts: the prediction is
                                            constant on every cell of its thresholds
Figs. 3.13/3.14 (ciml.fig-3.13, -3.14)      three clusters (upper left, upper right, bottom centre): k-means
                                            finds them; its first iterations never raise the objective
Fig. 5.14 (ciml.fig-5.14)                   the precision/recall curve of a threshold sweep: recall never rises
                                            with the threshold; at the lowest, recall 1 and precision the base
                                            rate
Figs. 7.1, 7.2, 7.4 (ciml.fig-7.1, -7.2,    the surrogate losses of eqs. 7.4-7.7 all equal 1 at margin 0 and
-7.4)                                       upper-bound the zero/one loss; an S-shaped smooth version does not
                                            make the problem convex
Fig. 7.3 (ciml.fig-7.3)                     chords: every surrogate is convex, zero/one and the S-curve are not
Fig. 7.5 (ciml.fig-7.5)                     p-norm level sets: unit balls convex for p >= 1, not for p = 0.5
Fig. 7.7 (ciml.fig-7.7)                     gradient descent with good and bad step sizes: 1/L converges, a
                                            step above 2/L oscillates outwards as |1 - eta L|^k
Fig. 7.8 (ciml.fig-7.8)                     hinge subgradients: -1 below the kink at z = 1, 0 above (two errata:
                                            L2440 inverts the regions, L2468 puts the kink at z = 0)
Figs. 7.10-7.12 (ciml.fig-7.10, -7.11,      the max-margin hyperplane has the widest margin of three
-7.12)                                      separators; its support vectors sit on the margins; one bad point's
                                            slack is its hinge loss
Fig. 13.2 (ciml.fig-13.2)                   bagging full trees overfits less than one full tree
Figs. 15.1/15.2 (ciml.fig-15.1)             PCA of 2-D data: the first component is the generator's major axis,
                                            the projection keeps the largest variance
Fig. 16.1 (ciml.fig-16.1)                   the GMM's soft assignments (the pie charts) sum to 1 and are the
                                            posterior p(z | x) computed independently
==========================================  ================================================================

Synthetic data from ``seed``; well under a second.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.special import expit, logsumexp
from scipy.stats import multivariate_normal

from .. import linalg, models
from ..evaluation import precision_recall_curve
from ..exceptions import ConvergenceWarning, DivergenceError
from ..models.linear.linear_classifier import margin_loss, margin_loss_derivative
from ..optim import gradient_descent
from .record import ExperimentResult, Recorder, register

PRESET = "ciml_plots"
CIML = "CIML"
SURROGATES = ("hinge", "logistic", "exponential", "squared")
MARGINS = np.linspace(-2.0, 3.0, 101)


@register(PRESET)
def run(data_dir=None, *, seed: int, quick: bool = False) -> ExperimentResult:
    """The figures of the module table; ``data_dir`` is unused."""
    rng = np.random.default_rng(seed)
    rec = Recorder(PRESET, provenance="invariant")
    curves: dict = {}
    _boundaries(rec, rng, curves)
    _clusters(rec, rng, curves)
    _pr_curve(rec, rng, curves)
    _losses(rec, curves)
    _norms(rec, curves)
    _step_sizes(rec, curves)
    _hinge_subgradients(rec, curves)
    _margins(rec, rng, curves)
    _bagging(rec, rng, seed, quick, curves)
    _pca(rec, rng, curves)
    _soft_assignments(rec, rng, curves)
    notes = (
        "CIML (seed 001): the redrawable figures of chapters 3, 5, 7, 13, 15 and 16 -- decision boundaries of 1-NN, "
        "3-NN and a tree, k-means on three clusters, a precision/recall curve, the surrogate losses and their "
        "convexity, p-norm level sets, step sizes, hinge subgradients, max-margin and slack, bagging, PCA and a "
        f"GMM's soft assignments. Seed {seed}."
    )
    return rec.result(curves, {}, notes)


def _grid(lo=-3.0, hi=3.0, k=61):
    g = np.linspace(lo, hi, k)
    return g, np.array(np.meshgrid(g, g)).reshape(2, -1).T


def _boundary_points(pred: np.ndarray, g: np.ndarray) -> list[list[float]]:
    """Grid points where the prediction changes to the right or upwards: the decision boundary, drawn as dots."""
    P = pred.reshape(len(g), len(g))
    pts = []
    for i in range(len(g) - 1):
        for j in range(len(g) - 1):
            if P[i, j] != P[i, j + 1] or P[i, j] != P[i + 1, j]:
                pts.append([float(g[j]), float(g[i])])
    return pts


def _changes(pred: np.ndarray, k: int) -> int:
    P = pred.reshape(k, k)
    return int(np.sum(P[:, 1:] != P[:, :-1]) + np.sum(P[1:] != P[:-1]))


# ------------------------------------------------------------------------------------------- Figs. 3.9-3.12


def _boundaries(rec: Recorder, rng: np.random.Generator, curves: dict) -> None:
    X = rng.uniform(-3.0, 3.0, (60, 2))
    y = np.where(X[:, 1] > 0.8 * np.sin(1.5 * X[:, 0]), 1, -1)
    y = np.where(rng.random(60) < 0.1, -y, y)
    g, G = _grid()
    knn1 = models.create("knn", n_neighbors=1).fit(X, y)
    knn3 = models.create("knn", n_neighbors=3).fit(X, y)
    p1, p3 = knn1.predict(G), knn3.predict(G)
    src = f"{CIML} §3.3 L745-755 Figs. 3.9/3.10: 'a solid line separating the positive regions from the negative'"
    rec.add(
        src + "; the 1-NN boundary puts every training point on its own label's side",
        "training points on the wrong side of the 1-NN boundary",
        0,
        int(np.sum(knn1.predict(X) != y)),
        0,
        example="ciml.fig-3.9",
        measured_by=("replearn.models:knn",),
    )
    d2 = ((G[:, None, :] - X[None]) ** 2).sum(axis=2)
    nearest3 = np.argsort(d2, axis=1, kind="stable")[:, :3]
    majority = np.where(y[nearest3].sum(axis=1) > 0, 1, -1)
    rec.add(
        src + "; k = 3: the majority of the 3 nearest training points (brute force over a 61 x 61 grid)",
        "grid points where 3-NN differs from the brute-force majority of the 3 nearest",
        0,
        int(np.sum(p3 != majority)),
        0,
        example="ciml.fig-3.10",
        measured_by=("replearn.models:knn",),
    )
    rec.add(
        f"{CIML} §3.3 L747: a jagged boundary is complex; 3-NN smooths 1-NN's (label noise 10%): fewer changes of the "
        "prediction between neighbouring grid cells",
        "3-NN boundary crosses fewer grid edges than 1-NN's (1 yes, 0 no)",
        1,
        int(_changes(p3, len(g)) < _changes(p1, len(g))),
        0,
        example="ciml.fig-3.10",
        measured_by=("replearn.models:knn",),
    )
    tree = models.create("decision_tree", max_depth=2).fit(X, y)
    pt = tree.predict(G)
    inner = tree.feature_ >= 0
    cuts = {f: np.sort(tree.threshold_[inner & (tree.feature_ == f)]) for f in (0, 1)}
    cell = np.c_[np.searchsorted(cuts[0], G[:, 0], side="left"), np.searchsorted(cuts[1], G[:, 1], side="left")]
    mixed = 0
    for key in {tuple(c) for c in cell}:
        sel = np.all(cell == key, axis=1)
        mixed += int(len(set(pt[sel].tolist())) > 1)
    rec.add(
        f"{CIML} §3.3 L761 Fig. 3.12: 'their decision boundaries are axis-aligned cuts': the depth-2 tree's prediction "
        "is constant on every cell of the grid its thresholds cut",
        "cells of the tree's axis-aligned threshold grid with two predictions",
        0,
        mixed,
        0,
        example="ciml.fig-3.12",
        measured_by=("replearn.models:decision_tree",),
    )
    pts = {"y = +1": X[y == 1].round(4).tolist(), "y = -1": X[y == -1].round(4).tolist()}
    for ex, pred, name in (("fig_3_9", p1, "1-NN"), ("fig_3_10", p3, "3-NN"), ("fig_3_12", pt, "depth-2 tree")):
        curves[ex] = {
            "points": {**pts, f"{name} boundary": _boundary_points(pred, g)},
            "x_label": "x1",
            "y_label": "x2",
            "equal_axes": True,
        }


# ------------------------------------------------------------------------------------------- Figs. 3.13/3.14


def _clusters(rec: Recorder, rng: np.random.Generator, curves: dict) -> None:
    centres = np.array([[-2.0, 2.0], [2.0, 2.0], [0.0, -2.0]])  # upper left, upper right, bottom centre
    X = np.vstack([c + 0.6 * rng.standard_normal((50, 2)) for c in centres])
    init = np.array([[-0.5, 0.0], [0.0, 0.5], [0.5, 0.0]])
    by = ("replearn.models:kmeans",)
    km = models.create("kmeans", n_clusters=3, init=init, n_init=1).fit(X)
    found = np.asarray(km.cluster_centers_)
    match = max(np.min(np.linalg.norm(found - c, axis=1)) for c in centres)
    rec.add(
        f"{CIML} §3.4 L782-790 Fig. 3.13: 'the upper-left set of points A, the upper-right set of points B and the "
        "bottom set of points C'; k-means from three central starts finds them; tolerance 4 standard errors of a "
        "50-point mean (0.6 / sqrt 50)",
        "largest distance from a generating centre to the nearest k-means centre / standard error",
        0.0,
        float(match / (0.6 / math.sqrt(50))),
        4.0,
        example="ciml.fig-3.13",
        measured_by=by,
    )
    J = np.asarray(km.distortion_history_, dtype=float)
    path = {k: [init[k].tolist()] for k in range(3)}
    for it in (1, 2, 3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            step = models.create("kmeans", n_clusters=3, init=init, n_init=1, max_iter=it, tol=0.0).fit(X)
        for k in range(3):
            path[k].append(np.asarray(step.cluster_centers_)[k].round(4).tolist())
    rec.add(
        f"{CIML} §3.4 Fig. 3.14 'first few iterations of k-means' (Thm. 16: lines 6 and 9 never increase L)",
        "largest increase of the k-means objective between iterations",
        0.0,
        max(0.0, float(np.max(np.diff(J), initial=0.0))),
        1e-9 * float(J[0]),
        example="ciml.fig-3.14",
        measured_by=by,
    )
    curves["fig_3_13"] = {"points": {"data": X.round(4).tolist()}, "x_label": "x1", "y_label": "x2", "equal_axes": True}
    curves["fig_3_14"] = {
        "points": {"data": X.round(4).tolist(), "final centres": found.round(4).tolist()},
        "paths": {f"centre {k + 1}, first iterations": v for k, v in path.items()},
        "x_label": "x1",
        "y_label": "x2",
        "equal_axes": True,
    }


# ------------------------------------------------------------------------------------------- Fig. 5.14


def _pr_curve(rec: Recorder, rng: np.random.Generator, curves: dict) -> None:
    ex = "ciml.fig-5.14"
    n = 400
    y = (rng.random(n) < 0.3).astype(int)
    score = y + 0.8 * rng.standard_normal(n)
    precision, recall, thr = precision_recall_curve(y, score)
    by = ("replearn.evaluation.precision_recall_curve",)
    src = f"{CIML} §5.5 L1510-1516 Fig. 5.14: the precision/recall curve of a threshold sweep over the scores"
    rec.add(
        src + "; raising the threshold can only lose true positives",
        "largest increase of recall as the threshold rises",
        0.0,
        max(0.0, float(np.max(np.diff(recall)))),
        0.0,
        example=ex,
        measured_by=by,
    )
    rec.add(
        src + "; at the lowest threshold everything is called positive: recall 1",
        "recall at the lowest threshold",
        1.0,
        float(recall[0]),
        0.0,
        example=ex,
        measured_by=by,
    )
    rec.add(
        src + "; and precision is the share of positives (derived: the base rate of the sample)",
        "precision at the lowest threshold minus the share of positives",
        0.0,
        float(precision[0]) - float(y.mean()),
        1e-12,
        example=ex,
        provenance="derived",
        derived_from="the sample's share of positives",
        measured_by=by,
    )
    curves["fig_5_14"] = {
        "paths": {"precision against recall": np.c_[recall, precision][::4].round(5).tolist()},
        "x_label": "recall",
        "y_label": "precision",
    }


# ------------------------------------------------------------------------------------------- Figs. 7.1-7.4


def _s_loss(z: np.ndarray) -> np.ndarray:
    """A smooth 'S version' of the zero/one loss (Fig. 7.2): 2 sigmoid(-4 z), which equals 1 at z = 0."""
    return 2.0 * expit(-4.0 * np.asarray(z))


def _chord_violation(f, a: np.ndarray, b: np.ndarray) -> float:
    """max over chords of f(t a + (1 - t) b) - (t f(a) + (1 - t) f(b)): > 0 means not convex (Fig. 7.3)."""
    t = np.linspace(0.0, 1.0, 21)[:, None]
    mid = t * a[None] + (1 - t) * b[None]
    return float(np.max(f(mid) - (t * f(a)[None] + (1 - t) * f(b)[None])))


def _losses(rec: Recorder, curves: dict) -> None:
    zero_one = (MARGINS <= 0).astype(float)
    values = {loss: margin_loss(loss, MARGINS) for loss in SURROGATES}
    by = ("replearn.models.linear.linear_classifier.margin_loss",)
    rec.add(
        f"{CIML} §7.2 eq. 7.3 (L2265) Fig. 7.1: zero/one loss is 1[y y_hat <= 0]: a step at margin 0; the surrogates "
        "are compared with it below",
        "surrogate losses (hinge, logistic, exponential, squared) at margin 0, largest |value - 1|",
        0.0,
        float(max(abs(margin_loss(loss, np.array([0.0]))[0] - 1.0) for loss in SURROGATES)),
        1e-12,
        example="ciml.fig-7.1",
        provenance="printed",
        measured_by=by,
    )
    rec.add(
        f"{CIML} §7.2 L2275 Fig. 7.4: 'this ensures, like all the other surrogate loss functions, that logistic loss "
        "upper bounds the zero/one loss' (on a grid of margins -2..3)",
        "largest excess of the zero/one loss over a surrogate",
        0.0,
        max(0.0, float(max(np.max(zero_one - v) for v in values.values()))),
        0.0,
        example="ciml.fig-7.4",
        provenance="printed",
        measured_by=by,
    )
    a, b = np.linspace(-2.0, 1.0, 13), np.linspace(0.5, 3.0, 13)
    a, b = np.meshgrid(a, b)
    a, b = a.ravel(), b.ravel()
    worst_convex = max(_chord_violation(lambda z, kind=loss: margin_loss(kind, z), a, b) for loss in SURROGATES)
    rec.add(
        f"{CIML} §7.2 L2258-2262 Fig. 7.3 (chords): the four surrogates are convex -- every chord lies above the "
        "function (169 chords); tolerance 1e-12",
        "largest height of a surrogate above one of its chords",
        0.0,
        max(0.0, worst_convex),
        1e-12,
        example="ciml.fig-7.3",
        measured_by=by,
    )
    rec.add(
        f"{CIML} §7.2 L2255-2258 Figs. 7.2-7.3: the smooth S-shaped version of zero/one is not convex ('drop a ball on "
        "the very left end ... it will not go anywhere'): some chord lies below it (arithmetic check of the text: "
        "the S-curve 2 sigmoid(-4z) is the preset's)",
        "the S-shaped loss has a chord below it (1 yes, 0 no)",
        1,
        int(_chord_violation(_s_loss, a, b) > 1e-3),
        0,
        example="ciml.fig-7.2",
        provenance="arithmetic",
    )
    curves["fig_7_1"] = {
        "x": MARGINS.round(4).tolist(),
        "zero/one": zero_one.tolist(),
        "x_label": "margin y y_hat",
        "y_label": "loss",
    }
    curves["fig_7_2"] = {**curves["fig_7_1"], "S version": _s_loss(MARGINS).round(6).tolist()}
    curves["fig_7_4"] = {
        **curves["fig_7_1"],
        **{
            loss: [float(a) if a <= 6.0 else None for a in v.round(6)] for loss, v in values.items()
        },  # off the frame above 6
    }
    chord = np.linspace(-1.5, 2.0, 2)
    curves["fig_7_3"] = {
        "x": MARGINS.round(4).tolist(),
        "hinge (convex)": values["hinge"].round(6).tolist(),
        "S version (not convex)": _s_loss(MARGINS).round(6).tolist(),
        "paths": {
            "chord of the hinge": [[float(c), float(margin_loss("hinge", np.array([c]))[0])] for c in chord],
            "chord of the S version": [[float(c), float(_s_loss(np.array([c]))[0])] for c in (-1.0, 1.5)],
        },
        "x_label": "margin",
        "y_label": "loss",
    }


# ------------------------------------------------------------------------------------------- Fig. 7.5


def _unit_sphere(p: float, n: int = 181) -> np.ndarray:
    t = np.linspace(0.0, 2 * np.pi, n)
    d = np.c_[np.cos(t), np.sin(t)]
    return d / linalg.p_norm(d, p)[:, None]


def _norms(rec: Recorder, curves: dict) -> None:
    ex = "ciml.fig-7.5"
    by = ("replearn.linalg.p_norm",)
    rng = np.random.default_rng(0)
    worst_convex, nonconvex = 0.0, 0.0
    for p in (1.0, 2.0, 3.0, np.inf, 0.5):
        pts = _unit_sphere(p, 73)
        i, j = rng.integers(0, len(pts), (2, 400))
        mid = 0.5 * (pts[i] + pts[j])  # midpoints of chords between unit vectors
        excess = float(np.max(linalg.p_norm(mid, p) - 1.0))
        if p >= 1:
            worst_convex = max(worst_convex, excess)
        else:
            nonconvex = excess
    rec.add(
        f"{CIML} §7.3 L2307-2328 Fig. 7.5 (level sets of p-norms): for p >= 1 (1, 2, 3, max) the unit ball is convex: "
        "every midpoint of two unit vectors has norm <= 1; tolerance 1e-12",
        "largest p-norm of a midpoint of two unit vectors, minus 1, p in {1, 2, 3, inf}",
        0.0,
        max(0.0, worst_convex),
        1e-12,
        example=ex,
        measured_by=by,
    )
    rec.add(
        f"{CIML} §7.3 L2316-2319: for p < 1 the 'norm' is not convex -- its unit ball is star-shaped (p = 0.5)",
        "some midpoint of two unit vectors has 0.5-norm above 1 (1 yes, 0 no)",
        1,
        int(nonconvex > 1e-3),
        0,
        example=ex,
        provenance="printed",
        measured_by=by,
    )
    curves["fig_7_5"] = {
        "paths": {f"||w||_{p:g} = 1": _unit_sphere(p).round(5).tolist() for p in (0.5, 1.0, 2.0, np.inf)},
        "x_label": "w1",
        "y_label": "w2",
        "equal_axes": True,
    }


# ------------------------------------------------------------------------------------------- Fig. 7.7


def _step_sizes(rec: Recorder, curves: dict) -> None:
    ex = "ciml.fig-7.7"
    L, w_star = 2.0, 1.5
    fun = lambda w: (0.5 * L * float((w[0] - w_star) ** 2), np.array([L * (w[0] - w_star)]))  # noqa: E731
    by = ("replearn.optim.gradient_descent",)
    paths = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        good = gradient_descent(fun, np.array([-2.0]), learning_rate=1.0 / L, max_iter=50, tol=0.0)
        small = gradient_descent(fun, np.array([-2.0]), learning_rate=0.05 / L, max_iter=10, tol=0.0)
        big = gradient_descent(fun, np.array([-2.0]), learning_rate=2.2 / L, max_iter=10, tol=0.0)
    rec.add(
        f"{CIML} §7.4 L2405-2409 Fig. 7.7 and Thm. 8: the step 1/L (L the curvature) reaches the optimum; tolerance "
        "1e-12",
        "|w - w*| after gradient descent with step 1/L",
        0.0,
        float(abs(good.params[0] - w_star)),
        1e-12,
        example=ex,
        measured_by=by,
    )
    ratio = abs(big.params[0] - w_star) / abs(-2.0 - w_star)
    rec.add(
        f"{CIML} §7.4 L2407 Fig. 7.7: 'if the step size is too big, you can accidentally step over the optimum and "
        "end up oscillating' -- at eta = 2.2/L the error is multiplied by |1 - eta L| = 1.2 per step (derived); "
        "10 steps, tolerance 1e-9 relative",
        "|w_10 - w*| / |w_0 - w*| at step 2.2/L",
        1.2**10,
        ratio,
        1e-9 * 1.2**10,
        example=ex,
        provenance="derived",
        derived_from="w_k - w* = (1 - eta L)^k (w_0 - w*) on a quadratic of curvature L",
        measured_by=by,
    )
    rec.add(
        f"{CIML} §7.4 L2407: 'if the step size is too small, it will take way too long': after 10 steps at 0.05/L the "
        "error is still 0.95^10 = 0.599 of the start (derived)",
        "|w_10 - w*| / |w_0 - w*| at step 0.05/L",
        0.95**10,
        abs(small.params[0] - w_star) / 3.5,
        1e-12,
        example=ex,
        provenance="derived",
        derived_from="w_k - w* = (1 - eta L)^k (w_0 - w*)",
        measured_by=by,
    )
    try:  # a much larger step: replearn refuses the diverged run instead of returning it
        gradient_descent(fun, np.array([-2.0]), learning_rate=1e160, max_iter=5, tol=0.0)
        raised = 0
    except DivergenceError:
        raised = 1
    rec.add(
        f"{CIML} §7.4 (a step far too big diverges): gradient descent raises DivergenceError rather than return "
        "an overflowed w",
        "DivergenceError at step 1e160 (1 yes, 0 no)",
        1,
        raised,
        0,
        example=ex,
        measured_by=by,
    )
    curve = lambda w: 0.5 * L * (w - w_star) ** 2  # noqa: E731
    for name, eta in (("good step 1/L", 1.0 / L), ("too big 2.2/L", 2.2 / L)):
        w = [-2.0]
        for _ in range(6):
            w.append(w[-1] - eta * L * (w[-1] - w_star))
        paths[name] = [[float(v), float(curve(v))] for v in w]
    visited = [p[0] for path in paths.values() for p in path]
    ws = np.linspace(min(-3.0, min(visited)), max(6.0, max(visited)), 181)  # F under every iterate drawn
    curves["fig_7_7"] = {
        "x": ws.round(4).tolist(),
        "F(w)": curve(ws).round(6).tolist(),
        "paths": paths,
        "x_label": "w",
        "y_label": "objective",
        "y_scale": "linear",
    }


# ------------------------------------------------------------------------------------------- Fig. 7.8


def _hinge_subgradients(rec: Recorder, curves: dict) -> None:
    ex = "ciml.fig-7.8"
    by = ("replearn.models.linear.linear_classifier.margin_loss_derivative",)
    z = np.linspace(-1.0, 3.0, 401)
    d = margin_loss_derivative("hinge", z)
    rec.add(
        f"{CIML} §7.5 eq. 7.23 (L2436-2440) **erratum**: the text says 'the derivative is zero for z < 1 and -1 for "
        "z > 1'; eq. 7.23 (and Alg. 22) has it the other way round: -1 below the kink",
        "hinge subgradient at margin z = 0.5",
        -1.0,
        float(margin_loss_derivative("hinge", np.array([0.5]))[0]),
        0.0,
        example=ex,
        provenance="erratum",
        erratum=0.0,
        measured_by=by,
    )
    kink = float(z[np.flatnonzero(np.diff(d) != 0)[0]])  # the last margin with subgradient -1
    rec.add(
        f"{CIML} §7.5 L2468 **erratum**: 'any value between 0 and -1 is a valid subderivative at z = 0'; the hinge's "
        "kink -- where the subgradient jumps from -1 to 0 -- is at z = 1 (catalogue erratum 11); grid step 0.01",
        "margin where the hinge subgradient jumps",
        1.0,
        kink,
        0.01,
        example=ex,
        provenance="erratum",
        erratum=0.0,
        measured_by=by,
    )
    curves["fig_7_8"] = {
        "x": z[::4].round(4).tolist(),
        "hinge loss": margin_loss("hinge", z[::4]).round(6).tolist(),
        "subgradient": d[::4].tolist(),
        # lines through the kink (1, 0) with slopes in the subdifferential [-1, 0]: each stays below the loss
        "paths": {
            f"slope {label} at the kink (a subgradient)": [[0.0, -slope], [2.5, 1.5 * slope]]
            for label, slope in (("-1", -1.0), ("-1/2", -0.5), ("0", 0.0))
        },
        "x_label": "margin z",
        "y_label": "loss",
    }


# ------------------------------------------------------------------------------------------- Figs. 7.10-7.12


def _margin_of(w, b, X, y) -> float:
    return float(np.min(y * (X @ w + b)) / np.linalg.norm(w))


def _margins(rec: Recorder, rng: np.random.Generator, curves: dict) -> None:
    X = np.vstack([rng.normal([2.0, 2.0], 0.6, (20, 2)), rng.normal([-2.0, -2.0], 0.6, (20, 2))])
    y = np.r_[np.ones(20), -np.ones(20)]
    svm = models.create("svm", kernel="linear", C=1e6, tol=1e-6).fit(X, y)
    w = svm.dual_coef_[0] @ svm.support_vectors_
    b = float(svm.intercept_[0])
    sign = 1.0 if np.mean(np.sign(X @ w + b) == y) > 0.5 else -1.0
    w, b = sign * w, sign * b
    perceptron = models.create("perceptron", max_iter=100, random_state=0).fit(X, y)
    pw, pb = perceptron.coef_[0], float(perceptron.intercept_[0])
    other = np.array([1.0, 0.3]), 0.0  # another separator through the origin
    margins = {
        "SVM": _margin_of(w, b, X, y),
        "perceptron": _margin_of(pw, pb, X, y),
        "another separator": _margin_of(*other, X, y),
    }
    rec.add(
        f"{CIML} §7.7 L2546-2563 Fig. 7.10: 'three hyperplanes, G the best': of the separators (the max-margin SVM, "
        f"the perceptron's, another; margins {', '.join(f'{v:.2f}' for v in margins.values())}) the SVM's margin is "
        "the largest",
        "the SVM has the largest geometric margin of the three separators (1 yes, 0 no)",
        1,
        int(margins["SVM"] >= max(margins["perceptron"], margins["another separator"])),
        0,
        example="ciml.fig-7.10",
        measured_by=("replearn.models:svm", "replearn.models:perceptron"),
    )
    sv = svm.support_
    rec.add(
        f"{CIML} §7.7 L2558-2566 Fig. 7.11: 'the constant one' -- y(w.x + b) = 1 on the margins, where the support "
        "vectors lie; tolerance 1e-3 (the solver's)",
        "max |y(w.x + b) - 1| over the support vectors",
        0.0,
        float(np.max(np.abs(y[sv] * (X[sv] @ w + b) - 1.0))),
        1e-3,
        example="ciml.fig-7.11",
        measured_by=("replearn.models:svm",),
    )
    Xo, yo = np.vstack([X, [[1.5, 1.5]]]), np.r_[y, -1.0]  # one bad point deep inside the positives
    soft = models.create("svm", kernel="linear", C=1.0, tol=1e-6).fit(Xo, yo)
    f = soft.decision_function(Xo)
    f = f if np.mean(np.sign(f) == yo) > 0.5 else -f
    slack = np.maximum(0.0, 1.0 - yo * f)
    rec.add(
        f"{CIML} §7.7 L2576-2585 Fig. 7.12 'one bad point with slack': at the soft-margin optimum the slack of a "
        "point is its hinge loss xi = max(0, 1 - y f(x)) (eq. 7.45); the bad point needs xi > 1 (misclassified)",
        "slack of the bad point above 1 (1 yes, 0 no)",
        1,
        int(slack[-1] > 1.0),
        0,
        example="ciml.fig-7.12",
        measured_by=("replearn.models:svm",),
    )
    rec.add(
        f"{CIML} §7.7 L2576-2580 Fig. 7.12: the other points are 'perfectly classified': each has slack below 1 "
        "(on the right side of the boundary)",
        "other points with slack >= 1 (misclassified)",
        0,
        int(np.sum(slack[:-1] >= 1.0)),
        0,
        example="ciml.fig-7.12",
        measured_by=("replearn.models:svm",),
    )
    xs = np.array([-3.5, 3.5])

    def line(ww, bb, level=0.0):
        return [[float(x), float((level - bb - ww[0] * x) / ww[1])] for x in xs]

    pts = {"y = +1": X[y > 0].round(4).tolist(), "y = -1": X[y < 0].round(4).tolist()}
    curves["fig_7_10"] = {
        "points": pts,
        "paths": {"SVM (G)": line(w, b), "perceptron": line(pw, pb), "another separator": line(*other)},
        "x_label": "x1",
        "y_label": "x2",
        "equal_axes": True,
    }
    curves["fig_7_11"] = {
        "points": {**pts, "support vectors": X[sv].round(4).tolist()},
        "paths": {"w.x + b = 0": line(w, b), "w.x + b = +1": line(w, b, 1.0), "w.x + b = -1": line(w, b, -1.0)},
        "x_label": "x1",
        "y_label": "x2",
        "equal_axes": True,
    }
    curves["fig_7_12"] = {
        "points": {**pts, "the bad point": [[1.5, 1.5]]},
        "paths": {"soft-margin boundary": line(soft.dual_coef_[0] @ soft.support_vectors_, float(soft.intercept_[0]))},
        "x_label": "x1",
        "y_label": "x2",
        "equal_axes": True,
    }


# ------------------------------------------------------------------------------------------- Fig. 13.2


def _bagging(rec: Recorder, rng: np.random.Generator, seed: int, quick: bool, curves: dict) -> None:
    ex = "ciml.fig-13.2"

    def draw(n):
        X = rng.uniform(-2.0, 2.0, (n, 2))
        y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 < 1.7, 1, -1)
        return X, np.where(rng.random(n) < 0.15, -y, y)

    X, y = draw(300)
    Xt, yt = draw(2000)
    depths = (1, 2, 3, 4, 6, 8, None)
    tree_err = [float(np.mean(models.create("decision_tree", max_depth=d).fit(X, y).predict(Xt) != yt)) for d in depths]
    sizes = (1, 5, 15, 40) if quick else (1, 5, 15, 40, 80)
    bags = [models.create("bagging", n_estimators=m, random_state=seed).fit(X, y) for m in sizes]
    bag_err = [float(np.mean(b.predict(Xt) != yt)) for b in bags]
    members = float(np.mean([np.mean(t.predict(Xt) != yt) for t in bags[-1].estimators_]))
    rec.add(
        f"{CIML} §13.1 L4204-4208 Fig. 13.2: 'bagging tends to reduce variance ... even if each of the learned "
        "classifiers are individually overfit, they are likely to be overfit to different things. Through voting, "
        f"you are able to overcome a significant portion of this overfitting': the vote of {sizes[-1]} full trees "
        f"on bootstrap samples errs less than its trees do on average ({bag_err[-1]:.3f} vs {members:.3f}; one full "
        f"tree on all the data {tree_err[-1]:.3f}; label noise 15%)",
        "bagged vote's test error below its trees' mean error by more than 0.02 (1 yes, 0 no)",
        1,
        int(bag_err[-1] < members - 0.02),
        0,
        example=ex,
        provenance="printed",
        measured_by=("replearn.models:bagging", "replearn.models:decision_tree"),
    )
    curves["fig_13_2"] = {
        "x": list(range(len(depths))),
        "single tree, depth 1..8, full": tree_err,
        "paths": {
            f"bagged full trees (1..{sizes[-1]})": [
                [i * (len(depths) - 1) / (len(sizes) - 1), e] for i, e in enumerate(bag_err)
            ]
        },
        "x_label": "regularization: tree depth 1, 2, 3, 4, 6, 8, full / bags 1.. (right)",
        "y_label": "test error",
    }


# ------------------------------------------------------------------------------------------- Figs. 15.1/15.2


def _pca(rec: Recorder, rng: np.random.Generator, curves: dict) -> None:
    ex = "ciml.fig-15.1"
    angle = math.radians(30.0)
    major = np.array([math.cos(angle), math.sin(angle)])
    S = 4.0 * np.outer(major, major) + 0.25 * np.eye(2)
    X = linalg.gaussian_sample(np.zeros(2), S, 500, random_state=rng)
    pca = models.create("pca", n_components=1).fit(X)
    u = np.asarray(pca.components_)[0]
    by = ("replearn.models:pca",)
    n = len(X)
    rec.add(
        f"{CIML} §15.2 L4600-4615 Figs. 15.1/15.2: the first principal direction of 2-D data is the direction of "
        "largest variance, here the generator's 30-degree major axis; tolerance 3 degrees (500 points)",
        "angle between PCA's first component and the generator's major axis (degrees)",
        0.0,
        float(np.degrees(np.arccos(min(1.0, abs(u @ major))))),
        3.0,
        example=ex,
        measured_by=by,
    )
    proj = pca.transform(X)[:, 0]
    top = float(np.linalg.eigvalsh(np.cov(X.T))[-1])
    rec.add(
        f"{CIML} §15.2 eq. 15.9 (L4645): the projection keeps the largest variance, the top eigenvalue of the "
        "covariance; tolerance 1e-9 relative",
        "variance of the 1-D projection / top eigenvalue of the sample covariance - 1",
        0.0,
        float(proj.var(ddof=1) / top - 1.0),
        1e-9,
        example=ex,
        measured_by=by,
    )
    back = np.outer(proj, u) + np.asarray(pca.mean_)
    curves["fig_15_1"] = {
        "points": {"data (Fig. 15.1)": X[::2].round(4).tolist(), "projection (Fig. 15.2)": back[::2].round(4).tolist()},
        "paths": {"first principal direction": [(-4 * u).tolist(), (4 * u).tolist()]},
        "x_label": "x1",
        "y_label": "x2",
        "equal_axes": True,
    }
    _ = n


# ------------------------------------------------------------------------------------------- Fig. 16.1


def _soft_assignments(rec: Recorder, rng: np.random.Generator, curves: dict) -> None:
    ex = "ciml.fig-16.1"
    X = np.vstack([rng.normal([-1.0, 0.0], 0.7, (60, 2)), rng.normal([1.2, 0.5], 0.7, (60, 2))])
    gmm = models.create("gmm", n_components=2, random_state=0).fit(X)
    Z = gmm.predict_proba(X)
    by = ("replearn.models:gmm",)
    rec.add(
        f"{CIML} §16.2 L4838-4846 Fig. 16.1 (pie charts): z_nk is the probability that example n belongs to cluster "
        "k; each pie sums to 1; tolerance 1e-12",
        "max |sum_k z_nk - 1|",
        0.0,
        float(np.max(np.abs(Z.sum(axis=1) - 1.0))),
        1e-12,
        example=ex,
        measured_by=by,
    )
    log_joint = np.column_stack(
        [np.log(gmm.weights_[k]) + multivariate_normal(gmm.means_[k], gmm.covariances_[k]).logpdf(X) for k in range(2)]
    )
    posterior = np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
    rec.add(
        f"{CIML} §16.2 eq. 16.13: z_nk = pi_k N(x_n; mu_k, Sigma_k) / sum_j pi_j N(x_n; mu_j, Sigma_j), computed "
        "independently with scipy.stats from the fitted parameters; tolerance 1e-9",
        "max |GMM soft assignment - Bayes posterior|",
        0.0,
        float(np.max(np.abs(Z - posterior))),
        1e-9,
        example=ex,
        measured_by=by,
    )
    curves["fig_16_1"] = {
        "points": {
            "mostly cluster 1": X[Z[:, 0] >= 0.5].round(4).tolist(),
            "mostly cluster 2": X[Z[:, 0] < 0.5].round(4).tolist(),
            "uncertain (0.2 < z < 0.8)": X[(Z[:, 0] > 0.2) & (Z[:, 0] < 0.8)].round(4).tolist(),
        },
        "x_label": "x1",
        "y_label": "x2",
        "equal_axes": True,
    }
