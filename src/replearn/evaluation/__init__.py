"""Evaluation: metrics (with the registry the pipeline scores by name), curves, resampling splits
and model selection.

* :mod:`~replearn.evaluation.metrics` and :mod:`~replearn.evaluation.curves` (ROC, PR, AP);
* :mod:`~replearn.evaluation.splits` and :mod:`~replearn.evaluation.resampling` (hold-out,
  k-fold, stratified, grouped, leave-one-out, repeated, 5x2, bootstrap);
* :mod:`~replearn.evaluation.model_selection` (grid search on shared folds, nested CV, the number of
  k-means clusters by CIML's BIC/AIC),
  :mod:`~replearn.evaluation.learning_curve`, :mod:`~replearn.evaluation.bias_variance` and
  :mod:`~replearn.evaluation.bootstrap_error` (.632 / .632+).

The statistics used to compare the resulting scores live in :mod:`replearn.stats`
(docs/statistics.md).
"""

from .._lazy import lazy_exports
from .curves import auc, average_precision, precision_recall_curve, roc_curve
from .fold_summary import FoldSummary, fold_summary
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
from .resampling import bootstrap_splits, group_kfold_splits, leave_one_out_splits, train_dev_test_split_indices
from .splits import ALL_SCHEMES, SCHEMES, Split, make_splits, repeat_seed, train_test_split_indices

#: what fits models of the registry (by name): loaded when one of these names is first used (:mod:`replearn._lazy`),
#: so that code reading scores and splits does not import every model
LAZY_EXPORTS = {
    "bias_variance_decomposition": "bias_variance",
    "bootstrap_632": "bootstrap_error",
    "error_632": "bootstrap_error",
    "loo_bootstrap_error": "bootstrap_error",
    "no_information_error": "bootstrap_error",
    "learning_curve": "learning_curve",
    "ClusterCountSelection": "model_selection",
    "GridSearchResult": "model_selection",
    "cluster_count_penalty": "model_selection",
    "select_n_clusters": "model_selection",
    "expand_grid": "model_selection",
    "grid_search": "model_selection",
    "nested_cross_validate": "model_selection",
}
__getattr__, __dir__ = lazy_exports(__name__, LAZY_EXPORTS, globals())


__all__ = [
    "ALL_SCHEMES",
    "ClusterCountSelection",
    "FoldSummary",
    "GridSearchResult",
    "cluster_count_penalty",
    "select_n_clusters",
    "auc",
    "average_precision",
    "bias_variance_decomposition",
    "bootstrap_632",
    "bootstrap_splits",
    "error_632",
    "expand_grid",
    "fold_summary",
    "grid_search",
    "group_kfold_splits",
    "learning_curve",
    "leave_one_out_splits",
    "loo_bootstrap_error",
    "nested_cross_validate",
    "no_information_error",
    "precision_recall_curve",
    "roc_curve",
    "train_dev_test_split_indices",
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
