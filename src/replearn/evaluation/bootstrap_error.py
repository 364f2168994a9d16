"""The .632 and .632+ bootstrap estimators of the prediction error (Efron 1983; Efron & Tibshirani 1997).

Notation (Efron & Tibshirani 1997, "Improvements on cross-validation: the .632+ bootstrap
method", JASA 92:548-560), for a loss ``Q`` (0/1 for classification, squared for regression):

* ``err``: the apparent (resubstitution) error of the model fitted on all n examples;
* ``Err1``: the leave-one-out bootstrap error ``(1/n') sum_i mean_{b: i out of bag b} Q(y_i,
  f_b(x_i))`` -- each example is predicted only by the bootstrap models that did not see it,
  averaged over the n' examples that were out of bag at least once.  It is pessimistic: the
  models see only about 63.2% of the distinct examples;
* ``Err.632 = 0.368 err + 0.632 Err1``;
* the no-information error ``gamma``: the error if inputs and labels were independent,
  ``sum_k p_k (1 - q_k)`` for 0/1 loss (``p_k``: share of class k among the labels, ``q_k``:
  among the full model's predictions) and ``(1/n^2) sum_i sum_j (y_i - yhat_j)^2`` for squared loss;
* the relative overfitting rate ``R = (Err1' - err) / (gamma - err)`` with ``Err1' = min(Err1,
  gamma)``, set to 0 unless ``Err1' > err`` and ``gamma > err`` (so R is in [0, 1]);
* ``Err.632+ = (1 - w) err + w Err1'`` with ``w = 0.632 / (1 - 0.368 R)``: between Err.632
  (R = 0) and Err1' (R = 1, heavy overfitting, where Err.632 is too optimistic).

The bootstrap samples are those of :func:`~replearn.evaluation.resampling.bootstrap_splits`.
"""

from __future__ import annotations

import numpy as np

from ._fitting import build
from .resampling import bootstrap_splits

__all__ = ["bootstrap_632", "error_632", "loo_bootstrap_error", "no_information_error"]

LOSSES = ("zero_one", "squared")


def _loss(kind: str, y, pred) -> np.ndarray:
    if kind == "zero_one":
        return (np.asarray(y) != np.asarray(pred)).astype(np.float64)
    return (np.asarray(y, dtype=np.float64) - np.asarray(pred, dtype=np.float64)) ** 2


def loo_bootstrap_error(losses) -> float:
    """``Err1`` from a ``(B, n)`` array of out-of-bag losses, NaN where example i was in bag b."""
    q = np.asarray(losses, dtype=np.float64)
    if q.ndim != 2:
        raise ValueError(f"losses must be a (n_bootstrap, n) array with NaN for in-bag entries, got shape {q.shape}")
    seen = ~np.isnan(q)
    counts = seen.sum(axis=0)
    if not np.any(counts):
        raise ValueError("no example was ever out of bag")
    per_example = np.where(seen, q, 0.0).sum(axis=0)[counts > 0] / counts[counts > 0]
    return float(per_example.mean())


def no_information_error(y, pred, loss: str = "zero_one") -> float:
    """``gamma``: the expected loss when inputs and targets are independent (module docstring)."""
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {list(LOSSES)}, got {loss!r}")
    y = np.asarray(y)
    pred = np.asarray(pred)
    if loss == "zero_one":
        labels = np.unique(np.concatenate([y, pred]))
        p = np.array([np.mean(y == k) for k in labels])
        q = np.array([np.mean(pred == k) for k in labels])
        return float(np.sum(p * (1.0 - q)))
    y = y.astype(np.float64)
    pred = pred.astype(np.float64)
    return float(np.mean((y[:, None] - pred[None, :]) ** 2))


def error_632(
    apparent_error: float, loo_error: float, *, no_information: float | None = None, plus: bool = False
) -> dict:
    """``{"err632", "err632plus" (if plus), "relative_overfitting", "weight"}`` from the three errors."""
    err, err1 = float(apparent_error), float(loo_error)
    out = {"err632": 0.368 * err + 0.632 * err1}
    if plus:
        if no_information is None:
            raise ValueError("the .632+ estimator needs the no-information error (no_information=)")
        gamma = float(no_information)
        err1p = min(err1, gamma)
        r = (err1p - err) / (gamma - err) if (err1p > err and gamma > err) else 0.0
        w = 0.632 / (1.0 - 0.368 * r)
        out.update({"err632plus": (1.0 - w) * err + w * err1p, "relative_overfitting": r, "weight": w})
    return out


def bootstrap_632(
    model, X, y, *, n_bootstrap: int = 100, seed: int = 0, loss: str = "zero_one", params: dict | None = None
) -> dict:
    """Fit ``model`` on ``n_bootstrap`` bootstrap samples and return the .632 and .632+ estimates.

    ``model``: registry name, unfitted estimator or factory (see :mod:`replearn.evaluation.model_selection`).
    Returns ``{"apparent_error", "loo_bootstrap_error", "no_information_error", "err632",
    "err632plus", "relative_overfitting", "weight", "n_bootstrap", "seed", "loss"}``.
    """
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {list(LOSSES)}, got {loss!r}")
    X = np.asarray(X)
    y = np.asarray(y)
    n = y.shape[0]
    full = build(model, params).fit(X, y)
    pred_full = full.predict(X)
    err = float(_loss(loss, y, pred_full).mean())
    losses = np.full((n_bootstrap, n), np.nan)
    for b, s in enumerate(bootstrap_splits(n, repeats=n_bootstrap, seed=seed)):
        est = build(model, params).fit(X[s.train], y[s.train])
        losses[b, s.test] = _loss(loss, y[s.test], est.predict(X[s.test]))
    err1 = loo_bootstrap_error(losses)
    gamma = no_information_error(y, pred_full, loss)
    return {
        "apparent_error": err,
        "loo_bootstrap_error": err1,
        "no_information_error": gamma,
        **error_632(err, err1, no_information=gamma, plus=True),
        "n_bootstrap": int(n_bootstrap),
        "seed": int(seed),
        "loss": loss,
    }
