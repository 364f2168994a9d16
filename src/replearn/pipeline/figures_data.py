"""Data the report draws beyond scores: learning curves, decision regions, clusters and components.

The train stage computes these once (it holds the fitted models and feature maps) and stores them in
``results/train/<dataset>.json``; the report only draws them. Everything is a plain list, so the file
stays JSON and byte-identical across reruns.
"""

from __future__ import annotations

import numpy as np

CURVES = {
    "loss_curve_": "training loss",
    "validation_loss_curve_": "validation loss",
    "distortion_history_": "distortion",
    "log_likelihood_history_": "log-likelihood",
    "loss_history_": "objective",
}
MAX_POINTS = 600


def _floats(a) -> list:
    return [float(v) for v in np.asarray(a, dtype=float).ravel()]


def _subsample(n: int) -> np.ndarray:
    """A fixed, evenly spaced subset of at most MAX_POINTS indices (no randomness: reruns are identical)."""
    return np.arange(n) if n <= MAX_POINTS else np.linspace(0, n - 1, MAX_POINTS).round().astype(int)


def _plane(X: np.ndarray) -> np.ndarray:
    """The first two coordinates, or the projection on the two principal axes when there are more."""
    if X.shape[1] <= 2:
        return X[:, :2] if X.shape[1] == 2 else np.c_[X[:, 0], np.zeros(len(X))]
    Xc = X - X.mean(axis=0)
    _, _, vt = np.linalg.svd(Xc, full_matrices=False)
    P = Xc @ vt[:2].T
    return P * np.sign(vt[:2].sum(axis=1))  # fix the SVD's arbitrary signs


def figure_data(model, task: str, X: np.ndarray, y, meta: dict) -> dict:
    """Curves of iterative fits; clusters of clusterers; spectrum and components of decompositions."""
    out: dict = {}
    curves = {}
    for attr, label in CURVES.items():
        values = getattr(model, attr, None)
        if values is None or np.ndim(values) != 1 or np.size(values) < 2:
            continue  # absent, a single value, or one history per sub-problem (e.g. one-vs-rest)
        values = np.asarray(values, dtype=float)
        if np.all(np.isfinite(values)):
            curves[label] = _floats(values)
    if curves:
        out["curves"] = curves
    idx = _subsample(len(X))
    if task == "clustering":
        out["clusters"] = {
            "points": np.round(_plane(X)[idx], 6).tolist(),
            "cluster": [int(c) for c in np.asarray(model.predict(X))[idx]],
            "label": None if y is None else [int(v) for v in np.asarray(y)[idx]],
            "axes": meta["feature_names"][:2] if X.shape[1] == 2 else ["PC 1", "PC 2"],
        }
    elif task == "decomposition":
        ratio = getattr(model, "explained_variance_ratio_", None)
        comps = getattr(model, "components_", None)
        Z = np.asarray(model.transform(X[idx]), dtype=float)
        out["decomposition"] = {
            "explained_variance_ratio": None if ratio is None else _floats(ratio),
            "components": None if comps is None else np.round(np.asarray(comps)[:8], 6).tolist(),
            "projection": np.round(Z[:, :2], 6).tolist(),
            "label": None if y is None else [int(v) for v in np.asarray(y)[idx]],
            "image_shape": [8, 8] if X.shape[1] == 64 else None,
        }
    return out


def boundary_grid(X_raw: np.ndarray, resolution: int = 80) -> tuple[np.ndarray, list, list]:
    """A ``resolution`` x ``resolution`` grid over the range of two raw features (5% margin)."""
    lo, hi = X_raw.min(axis=0), X_raw.max(axis=0)
    pad = 0.05 * np.where(hi > lo, hi - lo, 1.0)
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], resolution)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], resolution)
    gx, gy = np.meshgrid(xs, ys)
    return np.c_[gx.ravel(), gy.ravel()], [float(xs[0]), float(xs[-1])], [float(ys[0]), float(ys[-1])]


def decision_regions(
    models: dict, fmap, X_raw: np.ndarray, y: np.ndarray, feature_names: list, resolution: int = 80
) -> dict:
    """Predicted class over a grid of the two raw features, for each fitted model (2-D datasets only)."""
    grid, xr, yr = boundary_grid(X_raw, resolution)
    G = fmap.transform(grid)
    idx = _subsample(len(X_raw))
    return {
        "x_range": xr,
        "y_range": yr,
        "resolution": resolution,
        "axes": list(feature_names),
        "points": np.round(X_raw[idx], 6).tolist(),
        "label": [int(v) for v in y[idx]],
        "models": {key: [int(c) for c in m.predict(G)] for key, m in models.items()},
    }
