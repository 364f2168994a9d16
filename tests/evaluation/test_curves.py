"""ROC / precision-recall curves and average precision against scikit-learn."""

import numpy as np
import pytest
from sklearn import metrics as skm

from replearn.evaluation import METRICS, auc, average_precision, precision_recall_curve, roc_auc, roc_curve


def _data(seed, n=60):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    return y, np.round(rng.normal(size=n) + y, 1)  # rounded: tied scores


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("drop", [True, False])
def test_roc_curve_matches_sklearn(seed, drop):
    y, s = _data(seed)
    for ours, ref in zip(roc_curve(y, s, drop_intermediate=drop), skm.roc_curve(y, s, drop_intermediate=drop)):
        np.testing.assert_allclose(ours, ref)
    fpr, tpr, _ = roc_curve(y, s)
    assert auc(fpr, tpr) == pytest.approx(skm.roc_auc_score(y, s)) == pytest.approx(roc_auc(y, s))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("drop", [True, False])
def test_precision_recall_curve_and_ap_match_sklearn(seed, drop):
    y, s = _data(seed)
    ours = precision_recall_curve(y, s, drop_intermediate=drop)
    ref = skm.precision_recall_curve(y, s, drop_intermediate=drop)
    for o, r in zip(ours, ref):
        np.testing.assert_allclose(o, r)
    assert average_precision(y, s) == pytest.approx(skm.average_precision_score(y, s), rel=1e-12)


def test_string_labels_positive_class_and_multiclass():
    y, s = _data(7)
    labels = np.where(y == 1, "spam", "ham")  # sorted: ham, spam -> spam is positive by default
    np.testing.assert_allclose(roc_curve(labels, s)[1], skm.roc_curve(labels, s, pos_label="spam")[1])
    flipped = roc_curve(labels, -s, pos_label="ham")
    np.testing.assert_allclose(flipped[0], skm.roc_curve(labels, -s, pos_label="ham")[0])
    rng = np.random.default_rng(1)
    ym = rng.integers(0, 3, 90)
    proba = rng.dirichlet(np.ones(3), 90)
    assert average_precision(ym, proba) == pytest.approx(skm.average_precision_score(ym, proba), rel=1e-12)
    proba2 = np.column_stack([1 - s / 10, s / 10])
    assert average_precision(y, proba2) == pytest.approx(skm.average_precision_score(y, s))


def test_registry_entry_and_perfect_ranking():
    y = np.array([0, 0, 1, 1])
    assert METRICS["average_precision"].func(y, np.array([[0.9, 0.1], [0.8, 0.2], [0.3, 0.7], [0.1, 0.9]])) == 1.0
    p, r, t = precision_recall_curve(y, [0.1, 0.2, 0.7, 0.9])
    assert p[-1] == 1.0 and r[-1] == 0.0 and t.tolist() == [0.1, 0.2, 0.7, 0.9]


def test_auc_direction_and_errors():
    assert auc([0, 0.5, 1], [0, 1, 1]) == pytest.approx(0.75)
    assert auc([1, 0.5, 0], [1, 1, 0]) == pytest.approx(0.75)
    with pytest.raises(ValueError, match="neither increasing nor decreasing"):
        auc([0, 1, 0.5], [0, 1, 1])
    with pytest.raises(ValueError, match="both positive and negative"):
        roc_curve([1, 1, 1], [0.2, 0.3, 0.4], pos_label=1)
    with pytest.raises(ValueError, match="only the label"):
        precision_recall_curve([1, 1], [0.2, 0.3])
    with pytest.raises(ValueError, match="binary"):
        roc_curve([0, 1, 2], [0.1, 0.2, 0.3])
