"""The imbalance metrics (issue 41) against scikit-learn, their refusals, and the scores a model without
``predict_proba`` gives the ranking metrics."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm

from replearn.evaluation import metrics as M
from replearn.evaluation.crossval import ranking_inputs
from replearn.evaluation.metrics import score_predictions


def _imbalanced(seed, n=200, rate=0.08, labels=("negative", "positive")):
    rng = np.random.default_rng(seed)
    yt = np.where(rng.random(n) < rate, labels[1], labels[0])
    yt[:2] = labels[1]  # at least two minority examples
    score = rng.normal(size=n) + 1.2 * (yt == labels[1])
    yp = np.where(score > 0.9, labels[1], labels[0])
    return yt, yp, score


@pytest.mark.parametrize("seed", range(6))
def test_label_metrics_match_sklearn(seed):
    yt, yp, _ = _imbalanced(seed)
    assert M.balanced_accuracy(yt, yp) == pytest.approx(skm.balanced_accuracy_score(yt, yp), abs=1e-12)
    tpr = skm.recall_score(yt, yp, pos_label="positive")
    tnr = skm.recall_score(yt, yp, pos_label="negative")
    assert M.gmean(yt, yp) == pytest.approx(np.sqrt(tpr * tnr), abs=1e-12)
    ref = skm.f1_score(yt, yp, pos_label="positive", zero_division=0)
    assert M.f1_minority(yt, yp) == pytest.approx(ref, abs=1e-12)


def test_minority_is_the_rarer_class_whatever_its_label():
    # ecoli-0_vs_1: the class labelled "positive" is the majority; the minority class is "negative"
    yt, yp, _ = _imbalanced(3, labels=("positive", "negative"))
    assert M.minority_class(yt) == "negative"
    ref = skm.f1_score(yt, yp, pos_label="negative", zero_division=0)
    assert M.f1_minority(yt, yp, classes=np.array(["negative", "positive"])) == pytest.approx(ref, abs=1e-12)
    assert M.minority_class(np.array([0, 0, 1, 1])) == 0  # a tie: the first class


def test_multiclass_gmean_and_balanced_accuracy():
    rng = np.random.default_rng(1)
    yt = rng.choice(3, size=90, p=[0.6, 0.3, 0.1])
    yp = np.where(rng.random(90) < 0.7, yt, rng.choice(3, size=90))
    rec = skm.recall_score(yt, yp, average=None)
    assert M.gmean(yt, yp) == pytest.approx(float(np.prod(rec) ** (1 / 3)), abs=1e-12)
    assert M.balanced_accuracy(yt, yp) == pytest.approx(skm.balanced_accuracy_score(yt, yp), abs=1e-12)


def test_a_classifier_that_ignores_the_minority():
    yt = np.array([0] * 95 + [1] * 5)
    yp = np.zeros(100, dtype=int)
    assert M.accuracy(yt, yp) == 0.95  # what accuracy rewards
    assert M.balanced_accuracy(yt, yp) == 0.5 and M.gmean(yt, yp) == 0.0 and M.f1_minority(yt, yp) == 0.0


@pytest.mark.parametrize("seed", range(4))
def test_ranking_metrics_match_sklearn(seed):
    yt, yp, score = _imbalanced(seed)
    classes = np.array(["negative", "positive"])
    proba = np.column_stack([1 - 1 / (1 + np.exp(-score)), 1 / (1 + np.exp(-score))])
    names = ["roc_auc", "average_precision_minority", "balanced_accuracy", "gmean", "f1_minority"]
    out = score_predictions(names, yt, yp, proba=proba, classes=classes)
    assert out["roc_auc"] == pytest.approx(skm.roc_auc_score(yt == "positive", score), abs=1e-12)
    ap = skm.average_precision_score(yt == "positive", score)
    assert out["average_precision_minority"] == pytest.approx(ap, abs=1e-12)
    # decision scores (no predict_proba) rank the same way: the same AUC and AP
    out2 = score_predictions(["roc_auc", "average_precision_minority"], yt, yp, scores=score, classes=classes)
    assert out2["roc_auc"] == pytest.approx(out["roc_auc"], abs=1e-12)
    assert out2["average_precision_minority"] == pytest.approx(ap, abs=1e-12)


def test_ap_minority_ranks_the_first_class_by_the_negated_score():
    yt, yp, score = _imbalanced(5, labels=("positive", "negative"))  # minority "negative" = classes[0]
    classes = np.array(["negative", "positive"])
    got = score_predictions(["average_precision_minority"], yt, yp, scores=-score, classes=classes)
    # the 1-D decision score is the score of classes[1] ("positive"): its negation ranks "negative"
    assert got["average_precision_minority"] == pytest.approx(
        skm.average_precision_score(yt == "negative", score), abs=1e-12
    )
    proba = np.column_stack([-score, score])  # 2-D: the column of the minority class
    assert M.average_precision_minority(yt, proba, classes=classes) == pytest.approx(
        skm.average_precision_score(yt == "negative", -score), abs=1e-12
    )


def test_refusals():
    yt, yp, _ = _imbalanced(0)
    with pytest.raises(ValueError, match="model 'knnx' has neither predict_proba nor decision_function"):
        score_predictions(["roc_auc"], yt, yp, classes=np.array(["negative", "positive"]), model="knnx")
    with pytest.raises(ValueError, match="only decision_function scores, which are not probabilities"):
        score_predictions(["log_loss"], yt, yp, scores=np.zeros(yt.size), classes=np.array(["negative", "positive"]))
    with pytest.raises(ValueError, match=r"class\(es\) \['positive'\] .* do not occur in this test part"):
        M.f1_minority(np.array(["negative"] * 5), np.array(["negative"] * 5), classes=["negative", "positive"])
    with pytest.raises(ValueError, match="do not occur"):
        score_predictions(
            ["average_precision_minority"], np.zeros(4, int), np.zeros(4, int), scores=np.arange(4.0), classes=[0, 1]
        )


class _Margin:
    """A classifier with a decision function only (like the SVMs and perceptrons of the registry)."""

    classes_ = np.array([0, 1])

    def decision_function(self, X):
        return X[:, 0]


class _Nothing:
    classes_ = np.array([0, 1])


def test_ranking_inputs_uses_the_decision_function_only_for_ranking_metrics():
    X = np.arange(6.0).reshape(-1, 1)
    assert ranking_inputs(_Margin(), X, np.array([0, 1]), ["accuracy"]) == (None, None)
    proba, scores = ranking_inputs(_Margin(), X, np.array([0, 1]), ["accuracy", "roc_auc"])
    assert proba is None and np.array_equal(scores, X[:, 0])
    assert ranking_inputs(_Nothing(), X, np.array([0, 1]), ["roc_auc"]) == (None, None)
    with pytest.raises(ValueError, match="not all 3 classes"):
        ranking_inputs(_Margin(), X, np.array([0, 1, 2]), ["roc_auc"])
