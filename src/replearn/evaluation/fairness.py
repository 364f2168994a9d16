"""Group fairness measures (CIML §8.4, seed 001 L2830-2850): disparate impact and the 80 % rule,
plus the group measures the chapter points to as alternatives (its footnote 9: Friedler et al. 2016,
Hardt et al. 2016).

All take predictions ``y_pred``, a protected attribute ``group`` (one value per example) and the
``privileged`` group value (the text's G = male); the other groups are pooled, as in eq. 8.16.

* selection rate of a group: Pr(yhat = positive | G = g);
* **disparate impact** ratio (eq. 8.16): Pr(yhat = + | G != privileged) / Pr(yhat = + | G = privileged);
  the **80 % rule** holds when it is >= 0.8 ("your rate of hiring women must be at least 80 % of
  your rate of hiring men");
* statistical parity difference: Pr(yhat = + | G != p) - Pr(yhat = + | G = p);
* equal opportunity difference (Hardt et al.): TPR(G != p) - TPR(G = p) — needs true labels;
* equalized odds difference: max(|TPR difference|, |FPR difference|);
* accuracy difference: the chapter's opening example, a speech recognizer that works worse for
  non-male speakers (§8.1).

Undefined ratios: a privileged selection rate of 0 gives ``inf`` (or ``nan`` if both rates are 0);
a rate over an empty set (e.g. no true positives in a group) is ``nan``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: the 80 % rule's factor (eq. 8.16)
FOUR_FIFTHS = 0.8


def _vectors(y_pred, group, y_true=None):
    y_pred = np.asarray(y_pred)
    group = np.asarray(group)
    if y_pred.ndim != 1 or group.shape != y_pred.shape:
        raise ValueError(f"y_pred and group must be 1-D of the same length, got {y_pred.shape} and {group.shape}")
    if y_pred.size == 0:
        raise ValueError("y_pred is empty")
    if y_true is not None:
        y_true = np.asarray(y_true)
        if y_true.shape != y_pred.shape:
            raise ValueError(f"y_true has shape {y_true.shape}, y_pred {y_pred.shape}; they must match")
    return y_pred, group, y_true


def _privileged_mask(group, privileged):
    mask = group == privileged
    if not mask.any():
        raise ValueError(
            f"no example belongs to the privileged group {privileged!r}; groups are {np.unique(group).tolist()}"
        )
    if mask.all():
        raise ValueError(f"every example belongs to the privileged group {privileged!r}; nothing to compare with")
    return mask


def _rate(mask):
    return float(np.mean(mask)) if mask.size else float("nan")


def selection_rates(y_pred, group, positive_label=1) -> dict:
    """Pr(yhat = positive_label | G = g) for every group value g (sorted)."""
    y_pred, group, _ = _vectors(y_pred, group)
    return {
        g.item() if hasattr(g, "item") else g: _rate(y_pred[group == g] == positive_label) for g in np.unique(group)
    }


def disparate_impact(y_pred, group, privileged, positive_label=1) -> float:
    """Pr(yhat = + | G != privileged) / Pr(yhat = + | G = privileged) (CIML eq. 8.16's two sides)."""
    y_pred, group, _ = _vectors(y_pred, group)
    priv = _privileged_mask(group, privileged)
    a = _rate(y_pred[~priv] == positive_label)
    b = _rate(y_pred[priv] == positive_label)
    if b == 0.0:
        return float("nan") if a == 0.0 else float("inf")
    return a / b


def passes_80_percent_rule(y_pred, group, privileged, positive_label=1, threshold=FOUR_FIFTHS) -> bool:
    """Eq. 8.16: Pr(yhat = + | G != privileged) >= 0.8 x Pr(yhat = + | G = privileged)."""
    y_pred, group, _ = _vectors(y_pred, group)
    priv = _privileged_mask(group, privileged)
    a = _rate(y_pred[~priv] == positive_label)
    b = _rate(y_pred[priv] == positive_label)
    return bool(a >= threshold * b)


def statistical_parity_difference(y_pred, group, privileged, positive_label=1) -> float:
    """Pr(yhat = + | G != privileged) - Pr(yhat = + | G = privileged) (0 = demographic parity)."""
    y_pred, group, _ = _vectors(y_pred, group)
    priv = _privileged_mask(group, privileged)
    return _rate(y_pred[~priv] == positive_label) - _rate(y_pred[priv] == positive_label)


def _tpr_fpr(y_true, y_pred, positive_label):
    pos = y_true == positive_label
    return _rate(y_pred[pos] == positive_label), _rate(y_pred[~pos] == positive_label)


def equal_opportunity_difference(y_true, y_pred, group, privileged, positive_label=1) -> float:
    """TPR(G != privileged) - TPR(G = privileged) (Hardt et al. 2016's equal opportunity)."""
    y_pred, group, y_true = _vectors(y_pred, group, y_true)
    priv = _privileged_mask(group, privileged)
    return (
        _tpr_fpr(y_true[~priv], y_pred[~priv], positive_label)[0]
        - _tpr_fpr(y_true[priv], y_pred[priv], positive_label)[0]
    )


def equalized_odds_difference(y_true, y_pred, group, privileged, positive_label=1) -> float:
    """max(|TPR difference|, |FPR difference|) between the unprivileged and privileged groups (Hardt et al.)."""
    y_pred, group, y_true = _vectors(y_pred, group, y_true)
    priv = _privileged_mask(group, privileged)
    t1, f1 = _tpr_fpr(y_true[~priv], y_pred[~priv], positive_label)
    t0, f0 = _tpr_fpr(y_true[priv], y_pred[priv], positive_label)
    return float(max(abs(t1 - t0), abs(f1 - f0)))


@dataclass
class FairnessReport:
    """Every group measure for one set of predictions (see the module docstring)."""

    privileged: object
    positive_label: object
    selection_rate_privileged: float
    selection_rate_unprivileged: float
    disparate_impact: float
    passes_80_percent_rule: bool
    statistical_parity_difference: float
    selection_rates: dict = field(default_factory=dict)
    equal_opportunity_difference: float | None = None
    equalized_odds_difference: float | None = None
    accuracy_privileged: float | None = None
    accuracy_unprivileged: float | None = None


def fairness_report(y_pred, group, privileged, y_true=None, positive_label=1) -> FairnessReport:
    """All measures at once; the label-dependent ones only when ``y_true`` is given."""
    y_pred, group, y_true = _vectors(y_pred, group, y_true)
    priv = _privileged_mask(group, privileged)
    a = _rate(y_pred[~priv] == positive_label)
    b = _rate(y_pred[priv] == positive_label)
    report = FairnessReport(
        privileged=privileged,
        positive_label=positive_label,
        selection_rate_privileged=b,
        selection_rate_unprivileged=a,
        disparate_impact=disparate_impact(y_pred, group, privileged, positive_label),
        passes_80_percent_rule=bool(a >= FOUR_FIFTHS * b),
        statistical_parity_difference=a - b,
        selection_rates=selection_rates(y_pred, group, positive_label),
    )
    if y_true is not None:
        report.equal_opportunity_difference = equal_opportunity_difference(
            y_true, y_pred, group, privileged, positive_label
        )
        report.equalized_odds_difference = equalized_odds_difference(y_true, y_pred, group, privileged, positive_label)
        report.accuracy_privileged = _rate(y_pred[priv] == y_true[priv])
        report.accuracy_unprivileged = _rate(y_pred[~priv] == y_true[~priv])
    return report
