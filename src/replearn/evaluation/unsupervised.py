"""Held-out scores for unsupervised models: clusterers and transformers (decompositions).

The supervised metrics in :mod:`replearn.evaluation.metrics` compare predictions with targets; these
score a fitted unsupervised model on held-out examples ``X`` (and the labels ``y`` when a dataset has
them, for the adjusted Rand index). A score a model cannot provide (the log-likelihood of k-means, the
ARI of an unlabelled dataset) is ``None``, never a made-up number.

* ``distortion``: mean squared distance of each example to the centre of its predicted cluster
  (CS229 notes §10, the k-means objective J(c, mu) divided by n); centres are ``cluster_centers_`` or
  ``means_``. Lower is better.
* ``log_likelihood``: mean per-example held-out log-likelihood, ``model.score(X)`` of a density model
  (CS229 notes §11). Higher is better.
* ``bic``: the Bayesian information criterion ``model.bic(X)`` on the held-out part. Lower is better.
* ``ari``: adjusted Rand index of the predicted clusters against the true labels. Higher is better.
* ``reconstruction_error``: mean over examples of ``||x - inverse_transform(transform(x))||^2``
  (the PCA objective; Eckart-Young). Lower is better.
* ``explained_variance``: ``1 - sum ||x - x_hat||^2 / sum ||x - mean||^2`` on the held-out part, with the
  mean of the training data. Higher is better.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class UnsupervisedMetric:
    name: str
    task: str  # "clustering" or "decomposition"
    greater_is_better: bool
    description: str


UNSUPERVISED_METRICS = {
    m.name: m
    for m in [
        UnsupervisedMetric("distortion", "clustering", False, "mean squared distance to the assigned centre"),
        UnsupervisedMetric("log_likelihood", "clustering", True, "mean held-out log-likelihood (density models)"),
        UnsupervisedMetric("bic", "clustering", False, "Bayesian information criterion on the held-out part"),
        UnsupervisedMetric("ari", "clustering", True, "adjusted Rand index against the true labels"),
        UnsupervisedMetric("reconstruction_error", "decomposition", False, "mean squared reconstruction error"),
        UnsupervisedMetric("explained_variance", "decomposition", True, "fraction of held-out variance explained"),
    ]
}

KIND_OF_ESTIMATOR = {
    "classifier": "classification",
    "regressor": "regression",
    "clusterer": "clustering",
    "transformer": "decomposition",
}


def _centres(model):
    for attr in ("cluster_centers_", "means_"):
        c = getattr(model, attr, None)
        if c is not None:
            return np.asarray(c, dtype=float)
    return None


def distortion(model, X) -> float | None:
    labels = np.asarray(model.predict(X), dtype=int)
    centres = _centres(model)
    if centres is None:
        return None
    return float(np.mean(np.sum((X - centres[labels]) ** 2, axis=1)))


def reconstruct(model, X) -> np.ndarray | None:
    if not hasattr(model, "inverse_transform"):
        return None
    try:
        return np.asarray(model.inverse_transform(model.transform(X)), dtype=float)
    except (NotImplementedError, AttributeError):
        return None


def score_unsupervised(model, metric_names, X, y=None, *, train_mean=None) -> dict[str, float | None]:
    """Score a fitted clusterer or transformer on held-out ``X``; ``y`` (labels) only for ``ari``."""
    out: dict[str, float | None] = {}
    recon = None
    for name in metric_names:
        if name == "distortion":
            out[name] = distortion(model, X)
        elif name == "log_likelihood":
            out[name] = float(model.score(X)) if hasattr(model, "score_samples") else None
        elif name == "bic":
            out[name] = float(model.bic(X)) if hasattr(model, "bic") else None
        elif name == "ari":
            if y is None:
                out[name] = None
            else:
                from .clustering import adjusted_rand_index

                out[name] = float(adjusted_rand_index(y, model.predict(X)))
        elif name in ("reconstruction_error", "explained_variance"):
            recon = reconstruct(model, X) if recon is None else recon
            if recon is None:
                out[name] = None
            elif name == "reconstruction_error":
                out[name] = float(np.mean(np.sum((X - recon) ** 2, axis=1)))
            else:
                mean = X.mean(axis=0) if train_mean is None else train_mean
                total = np.sum((X - mean) ** 2)
                out[name] = float(1.0 - np.sum((X - recon) ** 2) / total) if total > 0 else None
        else:
            raise ValueError(f"unknown unsupervised metric {name!r}; available: {', '.join(UNSUPERVISED_METRICS)}")
    return out
