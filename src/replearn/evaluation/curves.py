"""ROC and precision-recall curves, the area under a curve, and average precision.

Course basis: CIML §5.5 (seed 001, L1496-1498 and L1536): rank the test examples by the
classifier's confidence and sweep a threshold over every position; each threshold gives one
(precision, recall) or (false-positive rate, true-positive rate) point.

Conventions (those of scikit-learn, the reference in the tests):

* **Positive class**: ``pos_label``; by default the larger of the two labels in sorted order
  (``classes[1]``, as the binary metrics of :mod:`replearn.evaluation.metrics`).  A higher
  ``y_score`` means "more positive".
* **Thresholds** are the distinct scores.  An example is predicted positive when its score is
  ``>= threshold``; tied scores therefore enter together (one point per distinct score).
* :func:`roc_curve` returns increasing ``fpr, tpr`` starting at (0, 0) with threshold ``+inf``;
  with ``drop_intermediate=True`` (default) points on a straight segment between their
  neighbours are dropped (it does not change the area).
* :func:`precision_recall_curve` returns ``precision, recall`` for increasing thresholds, with a
  final point (precision 1, recall 0) that has no threshold.  Precision with no predicted
  positive is 0 (the 0/0 = 0 convention of the metrics module).
* :func:`average_precision` is ``AP = sum_n (R_n - R_{n-1}) P_n`` over the thresholds (a step
  function, no interpolation): the precision at each threshold weighted by the recall it
  adds.  It is not the trapezoidal area under the PR curve, which is optimistic.
* A curve needs both classes in ``y_true``; otherwise ``ValueError``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["auc", "average_precision", "precision_recall_curve", "roc_curve"]


def _binary_inputs(y_true, y_score, pos_label):
    yt = np.asarray(y_true)
    s = np.asarray(y_score, dtype=np.float64)
    if yt.ndim != 1 or yt.size == 0:
        raise ValueError(f"y_true must be a non-empty 1-D array, got shape {yt.shape}")
    if s.ndim == 2 and s.shape[1] == 1:
        s = s.ravel()
    if s.ndim != 1:
        raise ValueError(f"y_score must be 1-D (the score of the positive class), got shape {s.shape}")
    if s.size != yt.size:
        raise ValueError(f"y_true and y_score have different lengths: {yt.size} and {s.size}")
    if not np.all(np.isfinite(s)):
        raise ValueError("y_score contains NaN or infinite values")
    classes = np.unique(yt)
    if classes.size > 2:
        raise ValueError(f"a curve is binary: y_true has {classes.size} classes {classes.tolist()}")
    if pos_label is None:
        if classes.size < 2:
            raise ValueError(
                f"y_true contains only the label {classes.tolist()}; a curve needs positives and negatives"
            )
        pos_label = classes[1]
    return yt == pos_label, s


def _counts(is_pos: np.ndarray, s: np.ndarray):
    """Cumulative (fps, tps) at each distinct score, scores decreasing."""
    order = np.argsort(-s, kind="mergesort")
    s_sorted = s[order]
    pos_sorted = is_pos[order].astype(np.float64)
    last = np.r_[np.flatnonzero(np.diff(s_sorted)), s_sorted.size - 1]  # last index of each distinct score
    tps = np.cumsum(pos_sorted)[last]
    fps = (last + 1) - tps
    return fps, tps, s_sorted[last]


def roc_curve(y_true, y_score, *, pos_label=None, drop_intermediate: bool = True):
    """``(fpr, tpr, thresholds)`` of the ROC curve (see the module docstring).

    ``fpr = FP / N_neg`` and ``tpr = TP / N_pos`` when predicting positive for ``score >=
    threshold``; ``thresholds[0] = inf``.  Equals ``sklearn.metrics.roc_curve``.
    """
    is_pos, s = _binary_inputs(y_true, y_score, pos_label)
    n_pos = int(is_pos.sum())
    n_neg = is_pos.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError("the ROC curve needs both positive and negative examples in y_true")
    fps, tps, thr = _counts(is_pos, s)
    if drop_intermediate and fps.size > 2:
        keep = np.flatnonzero(np.r_[True, np.logical_or(np.diff(fps, 2), np.diff(tps, 2)), True])
        fps, tps, thr = fps[keep], tps[keep], thr[keep]
    fps = np.r_[0.0, fps]
    tps = np.r_[0.0, tps]
    return fps / n_neg, tps / n_pos, np.r_[np.inf, thr]


def precision_recall_curve(y_true, y_score, *, pos_label=None, drop_intermediate: bool = False):
    """``(precision, recall, thresholds)`` with increasing thresholds (see the module docstring).

    ``precision`` and ``recall`` have one more entry than ``thresholds``: the final point
    (1, 0).  ``drop_intermediate`` drops thresholds that leave the true positives unchanged on
    both sides (flat stretches of the recall).  Equals ``sklearn.metrics.precision_recall_curve``.
    """
    is_pos, s = _binary_inputs(y_true, y_score, pos_label)
    if not is_pos.any():
        raise ValueError("the precision-recall curve needs at least one positive example in y_true")
    fps, tps, thr = _counts(is_pos, s)
    if drop_intermediate and tps.size > 2:
        keep = np.flatnonzero(np.r_[True, np.logical_or(np.diff(tps[:-1]), np.diff(tps[1:])), True])
        fps, tps, thr = fps[keep], tps[keep], thr[keep]
    predicted = tps + fps
    precision = np.divide(tps, predicted, out=np.zeros_like(tps), where=predicted != 0)
    recall = tps / tps[-1]
    return np.r_[precision[::-1], 1.0], np.r_[recall[::-1], 0.0], thr[::-1]


def auc(x, y) -> float:
    """Area under the curve through the points ``(x, y)`` by the trapezoidal rule.

    ``x`` must be monotone (increasing or decreasing; a decreasing ``x`` gives the same positive
    area).  Use it for ROC curves; for precision-recall prefer :func:`average_precision`.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape or x.size < 2:
        raise ValueError(f"x and y must be 1-D with the same length >= 2, got shapes {x.shape} and {y.shape}")
    dx = np.diff(x)
    if np.all(dx >= 0):
        direction = 1.0
    elif np.all(dx <= 0):
        direction = -1.0
    else:
        raise ValueError("x is neither increasing nor decreasing; sort the points first")
    return float(direction * np.trapezoid(y, x))


def average_precision(y_true, y_score, *, pos_label=None, classes=None) -> float:
    """Average precision ``sum_n (R_n - R_{n-1}) P_n`` (see the module docstring).

    Binary: ``y_score`` 1-D (score of ``pos_label``) or 2-D with two columns (column 1, the
    positive class ``classes[1]``).  Multiclass: ``y_score`` is ``(n, K)`` with columns in the
    order of ``classes`` (default: sorted labels of ``y_true``) and the result is the unweighted
    mean of the K one-vs-rest APs (scikit-learn's ``average="macro"``).  Equals
    ``sklearn.metrics.average_precision_score``.
    """
    s = np.asarray(y_score, dtype=np.float64)
    yt = np.asarray(y_true)
    if s.ndim == 2 and s.shape[1] > 1:
        classes = np.unique(yt) if classes is None else np.asarray(classes)
        if s.shape[1] != classes.size:
            raise ValueError(f"y_score has {s.shape[1]} columns but there are {classes.size} classes")
        if s.shape[1] == 2:
            return _binary_ap(yt == classes[1], s[:, 1])
        return float(np.mean([_binary_ap(yt == c, s[:, j]) for j, c in enumerate(classes)]))
    is_pos, s1 = _binary_inputs(yt, s, pos_label)
    return _binary_ap(is_pos, s1)


def _binary_ap(is_pos, score) -> float:
    is_pos = np.asarray(is_pos, dtype=bool)
    if not is_pos.any():
        raise ValueError("average precision needs at least one positive example in y_true")
    precision, recall, _ = precision_recall_curve(is_pos.astype(int), score, pos_label=1)
    return float(-np.sum(np.diff(recall) * precision[:-1]))
