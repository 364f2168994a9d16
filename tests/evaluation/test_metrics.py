"""Metrics against scikit-learn (reference only), CIML §5.5 numbers and the 0/0 convention."""

import numpy as np
import pytest
from sklearn import metrics as skm

from replearn.evaluation import metrics as M
from replearn.evaluation.metrics import METRICS, Metric, available_metrics, score_predictions

TOL = dict(rtol=1e-12, atol=1e-12)


@pytest.fixture
def multiclass():
    rng = np.random.default_rng(0)
    y_true = rng.choice(np.array(["ant", "bee", "cat"]), size=60, p=[0.5, 0.3, 0.2])
    y_pred = y_true.copy()
    flip = rng.random(60) < 0.35
    y_pred[flip] = rng.choice(np.array(["ant", "bee", "cat"]), size=flip.sum())
    return y_true, y_pred


@pytest.fixture
def binary():
    rng = np.random.default_rng(1)
    y_true = rng.integers(0, 2, size=50)
    y_pred = np.where(rng.random(50) < 0.3, 1 - y_true, y_true)
    return y_true, y_pred


# ----------------------------------------------------------------------------- label metrics
def test_accuracy_and_error(multiclass):
    yt, yp = multiclass
    assert M.accuracy(yt, yp) == pytest.approx(skm.accuracy_score(yt, yp), abs=1e-12)
    assert M.error_rate(yt, yp) == pytest.approx(1 - skm.accuracy_score(yt, yp), abs=1e-12)


def test_confusion_matrix_matches_sklearn(multiclass):
    yt, yp = multiclass
    np.testing.assert_array_equal(M.confusion_matrix(yt, yp), skm.confusion_matrix(yt, yp))
    labels = ["cat", "ant", "bee"]
    np.testing.assert_array_equal(M.confusion_matrix(yt, yp, labels), skm.confusion_matrix(yt, yp, labels=labels))


def test_confusion_matrix_extra_label_gives_zero_row():
    cm = M.confusion_matrix([0, 1, 1], [0, 1, 0], labels=[0, 1, 2])
    np.testing.assert_array_equal(cm, [[1, 0, 0], [1, 1, 0], [0, 0, 0]])


def test_confusion_matrix_rejects_unlisted_label():
    with pytest.raises(ValueError, match=r"labels \[2\] occur in the data"):
        M.confusion_matrix([0, 1, 2], [0, 1, 1], labels=[0, 1])


@pytest.mark.parametrize("average", ["macro", "micro", "weighted"])
@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_prf_multiclass_matches_sklearn(multiclass, average, beta):
    yt, yp = multiclass
    p, r, f, _ = skm.precision_recall_fscore_support(yt, yp, beta=beta, average=average, zero_division=0)
    np.testing.assert_allclose(M.precision(yt, yp, average=average), p, **TOL)
    np.testing.assert_allclose(M.recall(yt, yp, average=average), r, **TOL)
    np.testing.assert_allclose(M.fbeta(yt, yp, beta=beta, average=average), f, **TOL)


@pytest.mark.parametrize("pos_label", [0, 1])
def test_prf_binary_matches_sklearn(binary, pos_label):
    yt, yp = binary
    p, r, f, _ = skm.precision_recall_fscore_support(yt, yp, average="binary", pos_label=pos_label, zero_division=0)
    np.testing.assert_allclose(M.precision(yt, yp, pos_label=pos_label), p, **TOL)
    np.testing.assert_allclose(M.recall(yt, yp, pos_label=pos_label), r, **TOL)
    np.testing.assert_allclose(M.f1(yt, yp, pos_label=pos_label), f, **TOL)


def test_prf_with_a_class_never_predicted_matches_sklearn():
    yt = np.array([0, 0, 1, 1, 2, 2, 2])
    yp = np.array([0, 0, 0, 1, 1, 1, 0])  # class 2 never predicted: precision 0/0
    for average in ("macro", "weighted", "micro"):
        p, r, f, _ = skm.precision_recall_fscore_support(yt, yp, average=average, zero_division=0)
        np.testing.assert_allclose(
            [M.precision(yt, yp, average=average), M.recall(yt, yp, average=average), M.f1(yt, yp, average=average)],
            [p, r, f],
            **TOL,
        )


def test_micro_average_equals_accuracy(multiclass):
    yt, yp = multiclass
    assert M.f1(yt, yp, average="micro") == pytest.approx(M.accuracy(yt, yp), abs=1e-12)


def test_zero_over_zero_is_zero_by_default_and_one_on_request():
    # nothing predicted positive, one positive exists: P = 0/0, R = 0/1
    yt, yp = [0, 1, 0], [0, 0, 0]
    assert M.precision(yt, yp) == 0.0
    assert M.recall(yt, yp) == 0.0
    assert M.f1(yt, yp) == 0.0
    # CIML L1490-1494: "if the system finds nothing, P = 1"
    assert M.precision(yt, yp, zero_division=1.0) == 1.0
    assert M.recall(yt, yp, zero_division=1.0) == 0.0
    # nothing to find and nothing found: every quantity is 0/0
    assert M.f1([0, 0], [0, 0]) == 0.0
    assert M.f1([0, 0], [0, 0], zero_division=1.0) == 1.0
    assert M.recall([0, 0], [0, 0], zero_division=1.0) == 1.0


def _counts_for(p_target, r_target, tp=36):
    """Labels whose positive class has precision p_target and recall r_target (exactly, tp = 36)."""
    n_pred = int(round(tp / p_target))
    n_true = int(round(tp / r_target))
    assert tp / n_pred == pytest.approx(p_target) and tp / n_true == pytest.approx(r_target)
    fp, fn = n_pred - tp, n_true - tp
    yt = np.array([1] * tp + [0] * fp + [1] * fn + [0] * 5)
    yp = np.array([1] * tp + [1] * fp + [0] * fn + [0] * 5)
    return yt, yp


def test_ciml_f_score_example():
    # CIML L1504: P = 0.1, R = 0.9 gives F = 0.18
    yt, yp = _counts_for(0.1, 0.9)
    assert M.precision(yt, yp) == pytest.approx(0.1)
    assert M.recall(yt, yp) == pytest.approx(0.9)
    assert M.f1(yt, yp) == pytest.approx(0.18, abs=1e-12)


@pytest.mark.parametrize(
    "p, r, table",
    [(0.2, 0.4, 0.26), (0.4, 0.6, 0.48), (0.6, 0.8, 0.68), (0.8, 1.0, 0.88), (0.2, 1.0, 0.33), (0.6, 0.6, 0.60)],
)
def test_ciml_table_5_2_entries_truncated(p, r, table):
    # CIML Table 5.2 (L1518-1526) truncates F to two decimals (catalogue: floor(100 F)/100)
    yt, yp = _counts_for(p, r)
    f = M.f1(yt, yp)
    assert f == pytest.approx(2 * p * r / (p + r), abs=1e-12)
    assert np.floor(100 * f + 1e-9) / 100 == pytest.approx(table)


def test_fbeta_limits_follow_the_formula_not_the_book_text():
    # CIML (5.14): beta = 0 gives precision; large beta tends to recall (the text L1530 says the reverse)
    yt, yp = _counts_for(0.4, 0.8)
    assert M.fbeta(yt, yp, beta=0.0) == pytest.approx(M.precision(yt, yp), abs=1e-12)
    assert M.fbeta(yt, yp, beta=1e4) == pytest.approx(M.recall(yt, yp), abs=1e-6)


def test_binary_average_rejects_multiclass(multiclass):
    yt, yp = multiclass
    with pytest.raises(ValueError, match="average='binary' needs at most 2 labels"):
        M.f1(yt, yp, pos_label="ant")


def test_bad_average_and_pos_label():
    with pytest.raises(ValueError, match="average must be one of"):
        M.precision([0, 1], [0, 1], average="samples")
    with pytest.raises(ValueError, match="pos_label='yes' is not one of the labels"):
        M.precision([0, 1], [0, 1], pos_label="yes")
    with pytest.raises(ValueError, match="beta must be a finite number"):
        M.fbeta([0, 1], [0, 1], beta=-1)


def test_length_mismatch_and_empty():
    with pytest.raises(ValueError, match="different lengths"):
        M.accuracy([0, 1], [0])
    with pytest.raises(ValueError, match="empty"):
        M.accuracy([], [])


# ----------------------------------------------------------------------------- ROC AUC
def test_roc_auc_binary_with_ties_matches_sklearn():
    rng = np.random.default_rng(3)
    yt = rng.integers(0, 2, size=80)
    score = np.round(rng.random(80) + 0.3 * yt, 1)  # rounding makes many ties
    assert len(np.unique(score)) < 20
    assert M.roc_auc(yt, score) == pytest.approx(skm.roc_auc_score(yt, score), abs=1e-12)
    proba = np.column_stack([1 - score, score])
    assert M.roc_auc(yt, proba) == pytest.approx(skm.roc_auc_score(yt, score), abs=1e-12)


def test_roc_auc_string_labels_uses_second_class_as_positive():
    yt = np.array(["no", "yes", "yes", "no", "yes"])
    s = np.array([0.1, 0.8, 0.4, 0.4, 0.9])
    assert M.roc_auc(yt, s) == pytest.approx(skm.roc_auc_score(yt == "yes", s), abs=1e-12)


def test_roc_auc_hand_example():
    # positives {0.8, 0.4}, negatives {0.4, 0.1}: pairs (0.8>0.4, 0.8>0.1, 0.4=0.4, 0.4>0.1) -> 3.5/4
    assert M.roc_auc([1, 1, 0, 0], [0.8, 0.4, 0.4, 0.1]) == pytest.approx(0.875)


def test_roc_auc_multiclass_ovr_macro_matches_sklearn():
    rng = np.random.default_rng(4)
    yt = rng.integers(0, 4, size=100)
    logits = rng.normal(size=(100, 4)) + 1.5 * np.eye(4)[yt]
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    ref = skm.roc_auc_score(yt, proba, multi_class="ovr", average="macro")
    assert M.roc_auc(yt, proba) == pytest.approx(ref, abs=1e-12)
    # columns follow `classes`: permuting both leaves the value unchanged
    perm = [2, 0, 3, 1]
    assert M.roc_auc(yt, proba[:, perm], classes=np.arange(4)[perm]) == pytest.approx(ref, abs=1e-12)


def test_roc_auc_errors():
    with pytest.raises(ValueError, match="only one class"):
        M.roc_auc([1, 1, 1], [0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="3 columns but y_true has 2 classes"):
        M.roc_auc([0, 1], np.ones((2, 3)) / 3)
    with pytest.raises(ValueError, match="undefined for class 2"):
        M.roc_auc([0, 1, 0, 1], np.ones((4, 3)) / 3, classes=[0, 1, 2])


# ----------------------------------------------------------------------------- probabilistic
def test_log_loss_matches_sklearn_binary_and_multiclass():
    rng = np.random.default_rng(5)
    yt = rng.integers(0, 3, size=40)
    proba = rng.dirichlet(np.ones(3), size=40)
    assert M.log_loss(yt, proba) == pytest.approx(skm.log_loss(yt, proba), abs=1e-12)
    yb = rng.integers(0, 2, size=40)
    p1 = rng.random(40)
    assert M.log_loss(yb, p1) == pytest.approx(skm.log_loss(yb, p1), abs=1e-12)


def test_log_loss_clips_at_eps():
    # a confident mistake costs -log(eps), not infinity
    eps = np.finfo(np.float64).eps
    assert M.log_loss([1], [[1.0, 0.0]], classes=[0, 1]) == pytest.approx(-np.log(eps))
    assert M.log_loss([1], [[1.0, 0.0]], classes=[0, 1], eps=1e-3) == pytest.approx(-np.log(1e-3))
    assert M.log_loss(["a", "b"], [[1.0, 0.0], [0.0, 1.0]]) == pytest.approx(-np.log1p(-eps))


def test_log_loss_rejects_bad_probabilities():
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        M.log_loss([0, 1], [[1.2, -0.2], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"labels \[5\] that are not in classes"):
        M.log_loss([0, 5], [[0.5, 0.5], [0.5, 0.5]], classes=[0, 1])


def test_brier_matches_sklearn():
    rng = np.random.default_rng(6)
    yb = rng.integers(0, 2, size=30)
    p1 = rng.random(30)
    ref = skm.brier_score_loss(yb, p1)
    assert M.brier_score(yb, p1) == pytest.approx(ref, abs=1e-12)
    assert M.brier_score(yb, np.column_stack([1 - p1, p1])) == pytest.approx(ref, abs=1e-12)
    ym = rng.integers(0, 3, size=30)
    pm = rng.dirichlet(np.ones(3), size=30)
    assert M.brier_score(ym, pm) == pytest.approx(skm.brier_score_loss(ym, pm), abs=1e-12)
    # hand value: one-hot distance, 3 classes, range [0, 2]
    assert M.brier_score([0], [[0.0, 1.0, 0.0]], classes=[0, 1, 2]) == pytest.approx(2.0)


# ----------------------------------------------------------------------------- regression
def test_regression_metrics_match_sklearn():
    rng = np.random.default_rng(7)
    y = rng.normal(size=50)
    yhat = y + rng.normal(scale=0.5, size=50)
    assert M.mse(y, yhat) == pytest.approx(skm.mean_squared_error(y, yhat), abs=1e-12)
    assert M.rmse(y, yhat) == pytest.approx(np.sqrt(skm.mean_squared_error(y, yhat)), abs=1e-12)
    assert M.mae(y, yhat) == pytest.approx(skm.mean_absolute_error(y, yhat), abs=1e-12)
    assert M.r2(y, yhat) == pytest.approx(skm.r2_score(y, yhat), abs=1e-12)


def test_r2_constant_target_convention():
    assert M.r2([2.0, 2.0], [2.0, 2.0]) == 1.0 == skm.r2_score([2.0, 2.0], [2.0, 2.0])
    assert M.r2([2.0, 2.0], [1.0, 2.0]) == 0.0 == skm.r2_score([2.0, 2.0], [1.0, 2.0])


def test_regression_metric_rejects_labels():
    with pytest.raises(ValueError, match="must be numeric"):
        M.mse(["a", "b"], [1.0, 2.0])


# ----------------------------------------------------------------------------- registry
def test_registry_contents():
    required = {
        "accuracy",
        "error",
        "precision_macro",
        "recall_macro",
        "f1_macro",
        "f1",
        "roc_auc",
        "average_precision",
        "average_precision_minority",
        "balanced_accuracy",
        "gmean",
        "f1_minority",
        "log_loss",
        "brier",
        "mse",
        "rmse",
        "mae",
        "r2",
    }
    assert required <= set(METRICS)
    for name, m in METRICS.items():
        assert isinstance(m, Metric) and m.name == name
        assert m.needs in ("label", "proba", "score") and m.task in ("classification", "regression")
        assert isinstance(m.greater_is_better, bool) and m.description
    assert available_metrics("regression") == ["mae", "mse", "r2", "rmse"]
    assert available_metrics("classification") == sorted(required - {"mae", "mse", "r2", "rmse"})
    with pytest.raises(ValueError, match="task must be"):
        available_metrics("ranking")


def test_registry_directions():
    assert METRICS["accuracy"].greater_is_better and not METRICS["error"].greater_is_better
    assert not METRICS["log_loss"].greater_is_better and not METRICS["brier"].greater_is_better
    assert METRICS["r2"].greater_is_better and not METRICS["rmse"].greater_is_better
    assert {n for n, m in METRICS.items() if m.needs == "proba"} == {"log_loss", "brier"}
    assert {n for n, m in METRICS.items() if m.needs == "score"} == {
        "roc_auc",
        "average_precision",
        "average_precision_minority",
    }


def test_score_predictions_multiclass_matches_sklearn():
    rng = np.random.default_rng(8)
    classes = np.array(["x", "y", "z"])
    yt = rng.choice(classes, size=45)
    proba = rng.dirichlet(np.ones(3), size=45)
    yp = classes[proba.argmax(axis=1)]
    names = ["accuracy", "f1_macro", "roc_auc", "log_loss", "brier"]
    out = score_predictions(names, yt, yp, proba=proba, classes=classes)
    assert list(out) == ["accuracy", "f1_macro", "roc_auc", "log_loss", "brier"]
    assert all(type(v) is float for v in out.values())
    assert out["accuracy"] == pytest.approx(skm.accuracy_score(yt, yp), abs=1e-12)
    assert out["f1_macro"] == pytest.approx(skm.f1_score(yt, yp, average="macro", zero_division=0), abs=1e-12)
    assert out["roc_auc"] == pytest.approx(skm.roc_auc_score(yt, proba, multi_class="ovr", labels=classes), abs=1e-12)
    assert out["log_loss"] == pytest.approx(skm.log_loss(yt, proba, labels=classes), abs=1e-12)
    assert out["brier"] == pytest.approx(skm.brier_score_loss(yt, proba, labels=classes), abs=1e-12)


def test_score_predictions_binary_f1_uses_second_class():
    classes = np.array([-1, 1])
    yt = np.array([-1, 1, 1, -1, 1, 1])
    yp = np.array([-1, 1, -1, 1, 1, 1])
    out = score_predictions(["f1", "precision_macro", "recall_macro"], yt, yp, classes=classes)
    assert out["f1"] == pytest.approx(skm.f1_score(yt, yp, pos_label=1), abs=1e-12)
    assert out["precision_macro"] == pytest.approx(skm.precision_score(yt, yp, average="macro"), abs=1e-12)
    # with classes reversed, the positive class is -1
    out = score_predictions(["f1"], yt, yp, classes=[1, -1])
    assert out["f1"] == pytest.approx(skm.f1_score(yt, yp, pos_label=-1), abs=1e-12)


def test_score_predictions_regression():
    out = score_predictions(["mse", "rmse", "mae", "r2"], [1.0, 2.0, 3.0], [1.5, 2.0, 2.0])
    assert out == pytest.approx({"mse": 1.25 / 3, "rmse": np.sqrt(1.25 / 3), "mae": 0.5, "r2": 1 - 1.25 / 2})


def test_score_predictions_errors_name_the_metric():
    yt, yp = [0, 1, 2, 1], [0, 1, 1, 1]
    with pytest.raises(ValueError, match="metric 'roc_auc' ranks the examples by a score, but the model has neither"):
        score_predictions(["accuracy", "roc_auc"], yt, yp)
    with pytest.raises(ValueError, match="metric 'f1'.*binary-only"):
        score_predictions(["f1"], yt, yp)
    with pytest.raises(ValueError, match="metric 'f1'.*binary-only"):
        score_predictions(["f1"], [0, 1], [0, 1], classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"unknown metric\(s\) \['f2'\]"):
        score_predictions(["f2"], yt, yp)
    with pytest.raises(ValueError, match="metric 'roc_auc'.*only one class"):
        score_predictions(["roc_auc"], [1, 1], None, proba=[[0.2, 0.8], [0.4, 0.6]], classes=[0, 1])
