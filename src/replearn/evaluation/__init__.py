"""Evaluation: metrics (with the registry the pipeline scores by name) and resampling splits.

See :mod:`replearn.evaluation.metrics` and :mod:`replearn.evaluation.splits`; the statistics
used to compare the resulting scores live in :mod:`replearn.stats` (docs/statistics.md).
"""

from .metrics import (
    METRICS,
    Metric,
    accuracy,
    available_metrics,
    brier_score,
    confusion_matrix,
    error_rate,
    f1,
    fbeta,
    log_loss,
    mae,
    mse,
    precision,
    r2,
    recall,
    rmse,
    roc_auc,
    score_predictions,
)
from .splits import SCHEMES, Split, make_splits, repeat_seed, train_test_split_indices

__all__ = [
    "METRICS",
    "Metric",
    "SCHEMES",
    "Split",
    "accuracy",
    "available_metrics",
    "brier_score",
    "confusion_matrix",
    "error_rate",
    "f1",
    "fbeta",
    "log_loss",
    "mae",
    "make_splits",
    "mse",
    "precision",
    "r2",
    "recall",
    "repeat_seed",
    "rmse",
    "roc_auc",
    "score_predictions",
    "train_test_split_indices",
]
