"""Evaluation metrics and the metric registry used by the pipeline.

Course basis: CIML ch. 5 §5.5 (seed 001, L1474-1538): precision ``P = I/S`` (5.8), recall
``R = I/T`` (5.9), ``F = 2PR/(P+R)`` (5.13) and ``F_beta = (1+b^2)PR/(b^2 P + R)`` (5.14);
ROC/AUC (L1536).  CS229 §9.3 (seed 000, L4011-4070) for held-out error.

Conventions (each one matches scikit-learn, which the tests use as the reference):

* **0/0 = 0.**  Precision of a class that is never predicted, recall of a class that never
  occurs, and F of a class with no true positive, false positive or false negative are 0
  (scikit-learn's ``zero_division=0``).  CIML L1490-1494 uses the opposite convention
  (0/0 = 1: "if the system finds nothing, P = 1"); pass ``zero_division=1.0`` to get it.
  We default to 0 because it never rewards a classifier for predicting nothing.
* ``F_beta`` is computed as ``(1+b^2) TP / ((1+b^2) TP + b^2 FN + FP)``, which equals (5.14)
  whenever P and R are defined.  With (5.14), ``beta = 0`` gives P and ``beta -> inf`` gives R;
  CIML's text (L1530) states the reverse: the book's text is wrong (catalogue erratum 5), the
  formula is implemented.
* Confusion matrix: rows are true labels, columns predicted labels, both in the order of
  ``labels`` (sorted union of the observed labels by default).
* ``roc_auc`` is the Mann-Whitney rank statistic: the probability that a random positive scores
  above a random negative, ties counting 1/2 (average ranks).  This is exactly the area under the
  trapezoidal ROC curve.  Multiclass: one-vs-rest, unweighted mean over classes.
* ``log_loss`` clips probabilities to ``[eps, 1-eps]`` with ``eps`` = float64 machine epsilon
  (scikit-learn's choice); rows are not renormalised.
* ``brier_score``: the mean over examples of ``sum_k (p_k - 1[y = k])^2``; for two classes this
  is halved, i.e. the usual binary ``mean (p_pos - 1[y = pos])^2`` in [0, 1] (scikit-learn's
  ``brier_score_loss``); with three or more classes the range is [0, 2].
* **Imbalance** (Kubat & Matwin 1997; He & Garcia 2009): ``balanced_accuracy`` is the mean over the classes
  present in ``y_true`` of their recall (scikit-learn's ``balanced_accuracy_score``); ``gmean`` the geometric mean
  of the same recalls (binary: ``sqrt(TPR * TNR)``, imbalanced-learn's ``geometric_mean_score``); ``f1_minority``
  the F1 of the **minority class** and ``average_precision_minority`` its average precision. The minority class is
  the least frequent class of ``y_true`` among ``classes`` (ties: the first in ``classes``' order) -- on stratified
  folds that is the dataset's minority class. A class of ``classes`` absent from ``y_true`` makes the ranking
  metrics undefined and is refused (stratified splits keep every class in every test fold, or refuse).
* **Scores**: the ranking metrics (``needs == "score"``: ``roc_auc``, ``average_precision``,
  ``average_precision_minority``) depend only on the order of the scores, so they take predicted probabilities or,
  for a model without ``predict_proba``, its ``decision_function``; a model with neither is refused with its
  name. ``log_loss`` and ``brier`` (``needs == "proba"``) need probabilities.
* ``r2``: when the targets are constant (total sum of squares 0), R^2 is 1.0 for a perfect
  prediction and 0.0 otherwise (scikit-learn's ``force_finite=True``).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .curves import average_precision

__all__ = [
    "METRICS",
    "Metric",
    "accuracy",
    "available_metrics",
    "balanced_accuracy",
    "gmean",
    "minority_class",
    "f1_minority",
    "average_precision_minority",
    "brier_score",
    "confusion_matrix",
    "error_rate",
    "fbeta",
    "f1",
    "log_loss",
    "mae",
    "mse",
    "precision",
    "r2",
    "recall",
    "rmse",
    "roc_auc",
    "score_predictions",
]

AVERAGES = ("binary", "macro", "micro", "weighted")


# ----------------------------------------------------------------------------- input checks
def _as_1d(y, name: str) -> np.ndarray:
    if y is None:
        raise ValueError(f"{name} is None; expected a 1-D array of labels or values")
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty; at least one example is needed")
    return arr


def _check_pair(y_true, y_pred, pred_name: str = "y_pred") -> tuple[np.ndarray, np.ndarray]:
    yt = _as_1d(y_true, "y_true")
    yp = _as_1d(y_pred, pred_name)
    if yt.shape[0] != yp.shape[0]:
        raise ValueError(f"y_true and {pred_name} have different lengths: {yt.shape[0]} and {yp.shape[0]}")
    return yt, yp


def _check_numeric_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    yt, yp = _check_pair(y_true, y_pred)
    out = []
    for arr, name in ((yt, "y_true"), (yp, "y_pred")):
        if arr.dtype.kind not in "biuf":
            raise ValueError(f"{name} must be numeric for a regression metric, got dtype {arr.dtype}")
        arr = arr.astype(np.float64)
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} contains NaN or infinite values")
        out.append(arr)
    return out[0], out[1]


def _union_labels(*arrays: np.ndarray) -> np.ndarray:
    return np.unique(np.concatenate([np.asarray(a) for a in arrays]))


def _check_labels(labels, *arrays: np.ndarray) -> np.ndarray:
    """``labels`` as an array (default: sorted union); every observed label must be in it."""
    if labels is None:
        return _union_labels(*arrays)
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError(f"labels must be a non-empty 1-D sequence, got shape {labels.shape}")
    if np.unique(labels).size != labels.size:
        raise ValueError(f"labels contain duplicates: {labels.tolist()}")
    observed = _union_labels(*arrays)
    unknown = observed[~np.isin(observed, labels)]
    if unknown.size:
        raise ValueError(f"labels {unknown.tolist()} occur in the data but not in labels={labels.tolist()}")
    return labels


def _safe_div(num: np.ndarray, den: np.ndarray, zero_division: float) -> np.ndarray:
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast(num, den).shape, float(zero_division))
    np.divide(num, den, out=out, where=den != 0)
    return out


# ----------------------------------------------------------------------------- label metrics
def accuracy(y_true, y_pred) -> float:
    """Fraction of examples whose predicted label equals the true label."""
    yt, yp = _check_pair(y_true, y_pred)
    return float(np.mean(yt == yp))


def error_rate(y_true, y_pred) -> float:
    """``1 - accuracy``: the zero/one loss averaged over examples (CIML's "error")."""
    return 1.0 - accuracy(y_true, y_pred)


def confusion_matrix(y_true, y_pred, labels=None) -> np.ndarray:
    """Counts ``C[i, j]`` of examples with true label ``labels[i]`` predicted as ``labels[j]``.

    ``labels`` defaults to the sorted union of the observed labels; a label that occurs in the
    data but is missing from ``labels`` raises ``ValueError`` (scikit-learn silently drops such
    examples).  Returns an int64 array of shape ``(len(labels), len(labels))``.
    """
    yt, yp = _check_pair(y_true, y_pred)
    labels = _check_labels(labels, yt, yp)
    k = labels.size
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    ti = order[np.searchsorted(sorted_labels, yt)]
    pi = order[np.searchsorted(sorted_labels, yp)]
    return np.bincount(ti * k + pi, minlength=k * k).reshape(k, k).astype(np.int64)


def _prf_counts(y_true, y_pred, average: str, pos_label, labels):
    """Per-label (tp, predicted, true) counts for the requested average."""
    if average not in AVERAGES:
        raise ValueError(f"average must be one of {list(AVERAGES)}, got {average!r}")
    yt, yp = _check_pair(y_true, y_pred)
    labels = _check_labels(labels, yt, yp)
    cm = confusion_matrix(yt, yp, labels)
    tp = np.diag(cm).astype(np.float64)
    pred = cm.sum(axis=0).astype(np.float64)
    true = cm.sum(axis=1).astype(np.float64)
    if average == "binary":
        if labels.size > 2:
            raise ValueError(
                f"average='binary' needs at most 2 labels, got {labels.size} ({labels.tolist()}); "
                "use average='macro', 'micro' or 'weighted'"
            )
        hit = np.flatnonzero(labels == pos_label)
        if hit.size == 0:
            if labels.size == 2:
                raise ValueError(f"pos_label={pos_label!r} is not one of the labels {labels.tolist()}")
            # a single observed label that is not the positive class: no positives anywhere
            return np.zeros(1), np.zeros(1), np.zeros(1), None
        i = hit[0]
        return tp[i : i + 1], pred[i : i + 1], true[i : i + 1], None
    if average == "micro":
        return np.array([tp.sum()]), np.array([pred.sum()]), np.array([true.sum()]), None
    weights = true if average == "weighted" else None
    return tp, pred, true, weights


def _average(values: np.ndarray, weights) -> float:
    if weights is None:
        return float(np.mean(values))
    return float(np.sum(values * weights) / np.sum(weights))


def precision(
    y_true, y_pred, *, average: str = "binary", pos_label=1, labels=None, zero_division: float = 0.0
) -> float:
    """Precision ``P = TP / (TP + FP)`` (CIML eq. 5.8: I/S).

    ``average``: "binary" (the class ``pos_label`` only; at most two labels), "macro"
    (unweighted mean over labels), "micro" (pooled counts; equals accuracy when every label is
    counted) or "weighted" (mean weighted by each label's true count).  0/0 -> ``zero_division``
    (default 0; CIML uses 1).  Equivalent to ``sklearn.metrics.precision_score(...,
    zero_division=0)``.
    """
    tp, pred, _, w = _prf_counts(y_true, y_pred, average, pos_label, labels)
    return _average(_safe_div(tp, pred, zero_division), w)


def recall(y_true, y_pred, *, average: str = "binary", pos_label=1, labels=None, zero_division: float = 0.0) -> float:
    """Recall ``R = TP / (TP + FN)`` (CIML eq. 5.9: I/T); arguments as in :func:`precision`."""
    tp, _, true, w = _prf_counts(y_true, y_pred, average, pos_label, labels)
    return _average(_safe_div(tp, true, zero_division), w)


def fbeta(
    y_true,
    y_pred,
    *,
    beta: float = 1.0,
    average: str = "binary",
    pos_label=1,
    labels=None,
    zero_division: float = 0.0,
) -> float:
    """F-beta score, CIML eq. 5.14: ``(1+b^2) P R / (b^2 P + R)``.

    Computed per label as ``(1+b^2) TP / ((1+b^2) TP + b^2 FN + FP)`` (the same value when P and
    R are defined, and 0 when TP = 0 but errors exist); 0/0 -> ``zero_division``.  ``beta = 1``
    is the harmonic mean F (5.13).  ``beta = 0`` gives precision, large ``beta`` tends to recall
    (CIML's text at L1530 says the reverse; that is an erratum).  Averages as in
    :func:`precision`; "macro" averages the per-label F values (scikit-learn's definition), not
    the F of the averaged P and R.
    """
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not np.isfinite(beta) or beta < 0:
        raise ValueError(f"beta must be a finite number >= 0, got {beta!r}")
    tp, pred, true, w = _prf_counts(y_true, y_pred, average, pos_label, labels)
    b2 = float(beta) ** 2
    fn = true - tp
    fp = pred - tp
    return _average(_safe_div((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp, zero_division), w)


def f1(y_true, y_pred, *, average: str = "binary", pos_label=1, labels=None, zero_division: float = 0.0) -> float:
    """F1 = :func:`fbeta` with ``beta = 1`` (CIML eq. 5.13)."""
    return fbeta(
        y_true, y_pred, beta=1.0, average=average, pos_label=pos_label, labels=labels, zero_division=zero_division
    )


# ----------------------------------------------------------------------------- score metrics
def _check_scores(y_true, scores, classes, name: str = "y_score"):
    """Validate a score/probability array against ``y_true``; return (y_true, scores, classes)."""
    yt = _as_1d(y_true, "y_true")
    if scores is None:
        raise ValueError(f"{name} is None; this metric needs scores or probabilities")
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim == 2 and s.shape[1] == 1:
        s = s.ravel()
    if s.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D (binary) or 2-D (n_samples, n_classes), got shape {s.shape}")
    if s.shape[0] != yt.shape[0]:
        raise ValueError(f"y_true and {name} have different lengths: {yt.shape[0]} and {s.shape[0]}")
    if not np.all(np.isfinite(s)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if classes is None:
        classes = np.unique(yt)
        if s.ndim == 2 and s.shape[1] != classes.size:
            raise ValueError(
                f"{name} has {s.shape[1]} columns but y_true has {classes.size} classes {classes.tolist()}; "
                "pass classes= to say which column is which"
            )
    else:
        classes = np.asarray(classes)
        if classes.ndim != 1 or np.unique(classes).size != classes.size:
            raise ValueError(f"classes must be a 1-D sequence of distinct labels, got {classes.tolist()}")
        if s.ndim == 2 and s.shape[1] != classes.size:
            raise ValueError(f"{name} has {s.shape[1]} columns but {classes.size} classes were given")
    unknown = np.setdiff1d(np.unique(yt), classes)
    if unknown.size:
        raise ValueError(f"y_true contains labels {unknown.tolist()} that are not in classes {classes.tolist()}")
    if s.ndim == 1 and classes.size > 2:
        raise ValueError(f"1-D {name} is only valid for binary problems, got {classes.size} classes")
    return yt, s, classes


def _binary_auc(is_pos: np.ndarray, score: np.ndarray) -> float:
    n_pos = int(is_pos.sum())
    n_neg = is_pos.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("ROC AUC is undefined when y_true contains only one class")
    from scipy.stats import rankdata  # here, not at the top: scipy.stats costs ~0.5 s to import

    ranks = rankdata(score)  # average ranks: ties count 1/2 (Mann-Whitney U)
    u = ranks[is_pos].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


def roc_auc(y_true, y_score, *, classes=None) -> float:
    """Area under the ROC curve via the Mann-Whitney rank statistic (CIML L1536; eq. 6.9).

    ``AUC = (sum of positive ranks - n_pos (n_pos+1)/2) / (n_pos n_neg)`` with average ranks for
    tied scores, i.e. P(score of a random positive > score of a random negative) + 1/2 P(tie).

    Binary: ``y_score`` is 1-D (the score of the positive class ``classes[1]``) or 2-D with two
    columns (column 1 is used).  Multiclass: ``y_score`` is ``(n, K)`` with columns in the order
    of ``classes`` (default: sorted labels of ``y_true``); the result is the unweighted mean of
    the K one-vs-rest AUCs (scikit-learn's ``multi_class="ovr", average="macro"``).  Each
    one-vs-rest problem needs both a positive and a negative example, else ``ValueError``.
    """
    yt, s, classes = _check_scores(y_true, y_score, classes)
    if classes.size < 2:
        raise ValueError("ROC AUC is undefined when y_true contains only one class")
    if classes.size == 2:
        col = s if s.ndim == 1 else s[:, 1]
        return _binary_auc(yt == classes[1], col)
    aucs = []
    for j, c in enumerate(classes.tolist()):
        pos = yt == c
        if pos.all() or not pos.any():
            raise ValueError(
                f"one-vs-rest ROC AUC is undefined for class {c!r}: it has no positive or no negative example"
            )
        aucs.append(_binary_auc(pos, s[:, j]))
    return float(np.mean(aucs))


def _one_hot_proba(y_true, proba, classes, name="proba"):
    yt, p, classes = _check_scores(y_true, proba, classes, name=name)
    if np.any(p < 0) or np.any(p > 1):
        raise ValueError(f"{name} must lie in [0, 1]; got values in [{p.min()}, {p.max()}]")
    if p.ndim == 1:
        if classes.size != 2:
            raise ValueError(f"1-D {name} needs exactly 2 classes, got {classes.tolist()}")
        p = np.column_stack([1.0 - p, p])
    onehot = (yt[:, None] == classes[None, :]).astype(np.float64)
    return onehot, p


def log_loss(y_true, proba, *, classes=None, eps: float | None = None) -> float:
    """Mean negative log-likelihood ``-(1/n) sum_i log p_i[y_i]`` (natural log).

    ``proba`` is ``(n, K)`` with columns in the order of ``classes`` (default: sorted labels of
    ``y_true``), or 1-D with the probability of ``classes[1]`` for a binary problem.
    Probabilities are clipped to ``[eps, 1 - eps]`` so that a confident mistake costs at most
    ``-log(eps)`` (about 36 for the default ``eps`` = float64 machine epsilon, 2.2e-16, which is
    scikit-learn's clipping); rows are not renormalised.
    """
    if eps is None:
        eps = float(np.finfo(np.float64).eps)
    if not (0 < eps < 0.5):
        raise ValueError(f"eps must lie in (0, 0.5), got {eps!r}")
    onehot, p = _one_hot_proba(y_true, proba, classes)
    p = np.clip(p, eps, 1.0 - eps)
    return float(-np.mean(np.sum(onehot * np.log(p), axis=1)))


def brier_score(y_true, proba, *, classes=None) -> float:
    """Brier score: mean squared distance between ``proba`` and the one-hot true label.

    ``mean_i sum_k (p_ik - 1[y_i = k])^2``, halved for two classes so that the binary score is
    ``mean_i (p_i,pos - 1[y_i = pos])^2`` in [0, 1] (scikit-learn's ``brier_score_loss``); with
    K >= 3 classes the range is [0, 2].  ``proba`` as in :func:`log_loss`.
    """
    onehot, p = _one_hot_proba(y_true, proba, classes)
    score = float(np.mean(np.sum((p - onehot) ** 2, axis=1)))
    return 0.5 * score if p.shape[1] == 2 else score


# ----------------------------------------------------------------------------- regression
def mse(y_true, y_pred) -> float:
    """Mean squared error ``(1/n) sum (y - yhat)^2``."""
    yt, yp = _check_numeric_pair(y_true, y_pred)
    return float(np.mean((yt - yp) ** 2))


def rmse(y_true, y_pred) -> float:
    """Root mean squared error ``sqrt(mse)`` (computed on the whole set, not averaged per fold)."""
    return float(np.sqrt(mse(y_true, y_pred)))


def mae(y_true, y_pred) -> float:
    """Mean absolute error ``(1/n) sum |y - yhat|``."""
    yt, yp = _check_numeric_pair(y_true, y_pred)
    return float(np.mean(np.abs(yt - yp)))


def r2(y_true, y_pred) -> float:
    """Coefficient of determination ``1 - SS_res / SS_tot``.

    Constant ``y_true`` (SS_tot = 0): 1.0 if the prediction is perfect, else 0.0
    (scikit-learn's ``force_finite=True`` convention).  Can be negative.
    """
    yt, yp = _check_numeric_pair(y_true, y_pred)
    ss_res = float(np.sum((yt - yp) ** 2))
    ss_tot = float(np.sum((yt - yt.mean()) ** 2))
    if ss_tot == 0.0:
        return 1.0 if ss_res == 0.0 else 0.0
    return 1.0 - ss_res / ss_tot


# ----------------------------------------------------------------------------- imbalance
def _recalls_present(y_true, y_pred, labels=None) -> np.ndarray:
    """Per-class recall over the classes that occur in ``y_true`` (in ``labels``' order when given)."""
    yt, yp = _check_pair(y_true, y_pred)
    labels = _check_labels(labels, yt, yp)
    cm = confusion_matrix(yt, yp, labels)
    true = cm.sum(axis=1)
    present = true > 0
    return np.diag(cm)[present] / true[present]


def balanced_accuracy(y_true, y_pred, *, labels=None) -> float:
    """Mean recall over the classes present in ``y_true``: ``(TPR + TNR) / 2`` for two classes.

    Chance level is ``1 / K`` whatever the class proportions (accuracy rewards predicting the majority). Equals
    ``sklearn.metrics.balanced_accuracy_score`` (a class only predicted, never true, is left out as there).
    """
    return float(np.mean(_recalls_present(y_true, y_pred, labels)))


def gmean(y_true, y_pred, *, labels=None) -> float:
    """Geometric mean of the recalls of the classes present in ``y_true`` (Kubat & Matwin 1997).

    Binary: ``sqrt(sensitivity * specificity)``; 0 as soon as one class is never recognised, which is the point:
    a classifier that ignores the minority class scores 0 however accurate it is. Multiclass: the K-th root of the
    product of the K recalls (imbalanced-learn's ``geometric_mean_score``, ``average="multiclass"``).
    """
    r = _recalls_present(y_true, y_pred, labels)
    if np.any(r == 0):
        return 0.0
    return float(np.exp(np.mean(np.log(r))))


def minority_class(y_true, classes=None):
    """The least frequent class of ``y_true`` among ``classes`` (default: its sorted labels); ties: the first.

    ``ValueError`` when a class of ``classes`` does not occur in ``y_true``: a test part without the minority
    class gives no minority-class score (stratified splits keep one in every test fold or refuse).
    """
    yt = _as_1d(y_true, "y_true")
    classes = np.unique(yt) if classes is None else np.asarray(classes)
    if classes.size < 2:
        raise ValueError(f"a minority class needs at least 2 classes, got {classes.tolist()}")
    counts = np.array([int(np.sum(yt == c)) for c in classes])
    if np.any(counts == 0):
        absent = classes[counts == 0].tolist()
        raise ValueError(
            f"class(es) {absent} of {classes.tolist()} do not occur in this test part ({yt.size} examples); "
            "the minority-class scores are undefined: use a stratified scheme with at most as many folds as the "
            "smallest class has examples"
        )
    return classes[int(np.argmin(counts))]


def f1_minority(y_true, y_pred, *, classes=None) -> float:
    """F1 of the minority class (:func:`minority_class`): ``2 TP / (2 TP + FP + FN)`` of that class, 0/0 = 0."""
    yt, yp = _check_pair(y_true, y_pred)
    if classes is None:
        classes = _union_labels(yt, yp)
    m = minority_class(yt, classes)
    tp = int(np.sum((yt == m) & (yp == m)))
    wrong = int(np.sum((yt == m) != (yp == m)))  # false positives + false negatives
    return 0.0 if tp + wrong == 0 else 2.0 * tp / (2.0 * tp + wrong)


def average_precision_minority(y_true, y_score, *, classes=None) -> float:
    """Average precision of the minority class (:func:`minority_class`), ranking by its score column.

    ``y_score``: ``(n, K)`` probabilities or scores with columns in the order of ``classes``; for two classes a
    1-D score of ``classes[1]`` (a decision function) is accepted, its negation ranking ``classes[0]``.
    """
    yt, s, classes = _check_scores(y_true, y_score, classes)
    m = minority_class(yt, classes)
    j = int(np.flatnonzero(classes == m)[0])
    if s.ndim == 1:
        if classes.size != 2:
            raise ValueError(f"1-D y_score needs exactly 2 classes, got {classes.tolist()}")
        col = s if j == 1 else -s
    else:
        col = s[:, j]
    return float(average_precision(yt == m, col, pos_label=True))


# ----------------------------------------------------------------------------- registry
@dataclass(frozen=True)
class Metric:
    """One registered metric.

    ``func(y_true, y, classes)`` returns a float, where ``y`` is the predicted labels (or values)
    when ``needs == "label"``, the ``(n, n_classes)`` probability matrix (columns in the
    order of ``classes``) when ``needs == "proba"``, and probabilities or decision scores (1-D: the
    score of ``classes[1]``) when ``needs == "score"``; ``classes`` may be ``None``.
    """

    name: str
    func: Callable[..., float]
    needs: str  # "label" | "proba" | "score" (probabilities, or decision scores: only their order counts)
    task: str  # "classification" | "regression"
    greater_is_better: bool
    description: str


def _binary_classes(y_true, y_pred, classes) -> np.ndarray:
    if classes is None:
        classes = _union_labels(np.asarray(y_true), np.asarray(y_pred))
        if classes.size < 2:
            raise ValueError(
                f"cannot tell the positive class from a single observed label {classes.tolist()}; pass classes="
            )
    classes = np.asarray(classes)
    if classes.size != 2:
        raise ValueError(
            f"this metric is binary-only (positive class = classes[1]) but there are {classes.size} "
            f"classes {classes.tolist()}; use the macro-averaged version"
        )
    return classes


def _f1_binary(y_true, y_pred, classes) -> float:
    classes = _binary_classes(y_true, y_pred, classes)
    return f1(y_true, y_pred, average="binary", pos_label=classes[1], labels=classes)


def _registry() -> dict[str, Metric]:
    c, r = "classification", "regression"
    entries = [
        Metric(
            "accuracy", lambda yt, yp, classes=None: accuracy(yt, yp), "label", c, True, "fraction of correct labels"
        ),
        Metric(
            "error",
            lambda yt, yp, classes=None: error_rate(yt, yp),
            "label",
            c,
            False,
            "fraction of wrong labels (zero/one loss)",
        ),
        Metric(
            "precision_macro",
            lambda yt, yp, classes=None: precision(yt, yp, average="macro"),
            "label",
            c,
            True,
            "unweighted mean over observed labels of TP/(TP+FP); 0/0 = 0",
        ),
        Metric(
            "recall_macro",
            lambda yt, yp, classes=None: recall(yt, yp, average="macro"),
            "label",
            c,
            True,
            "unweighted mean over observed labels of TP/(TP+FN); 0/0 = 0",
        ),
        Metric(
            "f1_macro",
            lambda yt, yp, classes=None: f1(yt, yp, average="macro"),
            "label",
            c,
            True,
            "unweighted mean over observed labels of per-label F1; 0/0 = 0",
        ),
        Metric(
            "f1",
            lambda yt, yp, classes=None: _f1_binary(yt, yp, classes),
            "label",
            c,
            True,
            "binary F1 of the positive class classes[1]; 0/0 = 0",
        ),
        Metric(
            "roc_auc",
            lambda yt, p, classes=None: roc_auc(yt, p, classes=classes),
            "score",
            c,
            True,
            "area under the ROC curve (Mann-Whitney); multiclass: one-vs-rest macro mean",
        ),
        Metric(
            "average_precision",
            lambda yt, p, classes=None: average_precision(yt, p, classes=classes),
            "score",
            c,
            True,
            "area under the precision-recall steps (sum of P_n (R_n - R_n-1)); multiclass: OvR macro",
        ),
        Metric(
            "balanced_accuracy",
            lambda yt, yp, classes=None: balanced_accuracy(yt, yp),
            "label",
            c,
            True,
            "mean recall over the classes present (chance: 1/K whatever the imbalance)",
        ),
        Metric(
            "gmean",
            lambda yt, yp, classes=None: gmean(yt, yp),
            "label",
            c,
            True,
            "geometric mean of the per-class recalls (binary: sqrt(TPR x TNR)); 0 when a class is never found",
        ),
        Metric(
            "f1_minority",
            lambda yt, yp, classes=None: f1_minority(yt, yp, classes=classes),
            "label",
            c,
            True,
            "F1 of the minority class (the least frequent in the test part); 0/0 = 0",
        ),
        Metric(
            "average_precision_minority",
            lambda yt, p, classes=None: average_precision_minority(yt, p, classes=classes),
            "score",
            c,
            True,
            "average precision of the minority class, ranked by its probability or score",
        ),
        Metric(
            "log_loss",
            lambda yt, p, classes=None: log_loss(yt, p, classes=classes),
            "proba",
            c,
            False,
            "mean negative log-likelihood, probabilities clipped at machine epsilon",
        ),
        Metric(
            "brier",
            lambda yt, p, classes=None: brier_score(yt, p, classes=classes),
            "proba",
            c,
            False,
            "mean squared distance of probabilities to the one-hot label (binary: halved)",
        ),
        Metric("mse", lambda yt, yp, classes=None: mse(yt, yp), "label", r, False, "mean squared error"),
        Metric("rmse", lambda yt, yp, classes=None: rmse(yt, yp), "label", r, False, "root mean squared error"),
        Metric("mae", lambda yt, yp, classes=None: mae(yt, yp), "label", r, False, "mean absolute error"),
        Metric("r2", lambda yt, yp, classes=None: r2(yt, yp), "label", r, True, "coefficient of determination"),
    ]
    return {m.name: m for m in entries}


METRICS: dict[str, Metric] = _registry()


def available_metrics(task: str | None = None) -> list[str]:
    """Sorted metric names; ``task`` ("classification" or "regression") filters them."""
    if task is None:
        return sorted(METRICS)
    if task not in ("classification", "regression"):
        raise ValueError(f"task must be 'classification' or 'regression', got {task!r}")
    return sorted(name for name, m in METRICS.items() if m.task == task)


def score_predictions(
    metric_names, y_true, y_pred, *, proba=None, classes=None, scores=None, model=None
) -> dict[str, float]:
    """Compute the named metrics on one set of predictions (typically one test fold).

    ``y_pred`` holds predicted labels (any dtype) or numbers for regression; ``proba`` is
    ``(n, n_classes)`` with columns in the order of ``classes``; ``scores`` the decision scores of a model without
    ``predict_proba`` (used by the ranking metrics only; ``model`` names it in the refusal).  Non-decomposable metrics
    (F, AUC) are computed on the whole set passed in, so per-fold values are obtained by calling
    this once per fold.  Macro averages run over the labels observed in ``y_true`` and
    ``y_pred`` (``classes`` is used for the probability columns and the positive class of
    ``f1``, ``classes[1]``).  Errors are ``ValueError`` whose message starts with the metric's
    name: unknown names, a proba metric without ``proba``, a binary-only metric on multiclass
    data, or invalid inputs.  Returns ``{name: float}`` in the order requested.
    """
    if isinstance(metric_names, str):
        metric_names = [metric_names]
    names = list(metric_names)
    unknown = [n for n in names if n not in METRICS]
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; available: {', '.join(available_metrics())}")
    out: dict[str, float] = {}
    for name in names:
        m = METRICS[name]
        who = f"model {model!r}" if model else "the model"
        if m.needs == "score":
            arg = proba if proba is not None else scores
            if arg is None:
                raise ValueError(
                    f"metric {name!r} ranks the examples by a score, but {who} has neither predict_proba nor "
                    "decision_function; drop the metric or the model"
                )
        elif m.needs == "proba":
            if proba is None:
                extra = (
                    " (it has only decision_function scores, which are not probabilities)" if scores is not None else ""
                )
                raise ValueError(f"metric {name!r} needs predicted probabilities, but {who} gives none{extra}")
            arg = proba
        else:
            if y_pred is None:
                raise ValueError(f"metric {name!r} needs predicted labels/values, but y_pred is None")
            arg = y_pred
        try:
            out[name] = float(m.func(y_true, arg, classes))
        except ValueError as exc:
            raise ValueError(f"metric {name!r}: {exc}") from exc
    return out
