"""CIML §5.7's F-score example, the .632 / .632+ bootstrap, and the bias-variance decomposition."""

import numpy as np
import pytest

from replearn.evaluation import (
    bias_variance_decomposition,
    bootstrap_632,
    bootstrap_splits,
    error_632,
    f1,
    loo_bootstrap_error,
    no_information_error,
)
from replearn.evaluation.splits import repeat_seed
from replearn.models import create

# CIML §5.7 (seed 001, L1642-1650): F-scores of 5 folds, 92.4 93.9 96.1 92.2 94.4 -> mean 93.8, sigma 1.595
FOLD_F = [92.4, 93.9, 96.1, 92.2, 94.4]
# (TP, FP + FN) per fold such that F = 2 TP / (2 TP + FP + FN) is exactly the book's value
COUNTS = [(231, 38), (939, 122), (961, 78), (922, 156), (944, 112)]


def _fold(tp, errors):
    fp = errors // 2
    fn = errors - fp
    y_true = np.r_[np.ones(tp + fn, int), np.zeros(fp + 50, int)]
    y_pred = np.r_[np.ones(tp, int), np.zeros(fn, int), np.ones(fp, int), np.zeros(50, int)]
    return y_true, y_pred


def test_ciml_fold_fscores_mean_and_sigma():
    folds = [_fold(*c) for c in COUNTS]
    per_fold = [100 * f1(yt, yp) for yt, yp in folds]  # F is computed per fold, never per example
    np.testing.assert_allclose(per_fold, FOLD_F, rtol=1e-12)
    mean, sigma = np.mean(per_fold), np.std(per_fold, ddof=1)  # CIML eq. 5.16 divides by N - 1
    assert mean == pytest.approx(93.8)
    assert sigma == pytest.approx(1.595, abs=5e-4)  # eq. 5.18 (1.59531)
    assert mean - 2 * sigma == pytest.approx(90.61, abs=0.005)  # "95% certain" to beat a competitor at 90.6
    # F is not decomposable: the F of the pooled predictions is not the mean of the fold F-scores
    pooled = 100 * f1(np.concatenate([f[0] for f in folds]), np.concatenate([f[1] for f in folds]))
    assert abs(pooled - mean) > 0.05


def test_632_formulas_by_hand():
    out = error_632(0.1, 0.3, no_information=0.5, plus=True)
    assert out["err632"] == pytest.approx(0.368 * 0.1 + 0.632 * 0.3)
    r = (0.3 - 0.1) / (0.5 - 0.1)
    w = 0.632 / (1 - 0.368 * r)
    assert out["relative_overfitting"] == pytest.approx(r) and out["err632plus"] == pytest.approx(
        (1 - w) * 0.1 + w * 0.3
    )
    # no overfitting (Err1 <= err): R = 0 and .632+ = .632
    same = error_632(0.2, 0.15, no_information=0.5, plus=True)
    assert same["relative_overfitting"] == 0.0 and same["err632plus"] == pytest.approx(same["err632"])
    # Err1 above the no-information rate is capped at it: R = 1, .632+ = gamma
    capped = error_632(0.0, 0.7, no_information=0.5, plus=True)
    assert capped["relative_overfitting"] == 1.0 and capped["err632plus"] == pytest.approx(0.5)


def test_no_information_error_is_the_average_over_all_pairs():
    rng = np.random.default_rng(0)
    y, pred = rng.integers(0, 3, 40), rng.integers(0, 3, 40)
    brute = np.mean(y[:, None] != pred[None, :])
    assert no_information_error(y, pred) == pytest.approx(brute)
    yr, pr = rng.normal(size=30), rng.normal(size=30)
    assert no_information_error(yr, pr, "squared") == pytest.approx(np.mean((yr[:, None] - pr[None, :]) ** 2))


def test_bootstrap_632_by_hand():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + rng.normal(scale=0.7, size=60) > 0).astype(int)
    res = bootstrap_632("knn", X, y, n_bootstrap=15, seed=3, params={"n_neighbors": 1})
    losses = np.full((15, 60), np.nan)
    for b, s in enumerate(bootstrap_splits(60, repeats=15, seed=3)):
        m = create("knn", n_neighbors=1).fit(X[s.train], y[s.train])
        losses[b, s.test] = m.predict(X[s.test]) != y[s.test]
    seen = ~np.isnan(losses)
    err1 = np.mean([np.nanmean(losses[:, i]) for i in range(60) if seen[:, i].any()])
    assert res["loo_bootstrap_error"] == pytest.approx(err1) == pytest.approx(loo_bootstrap_error(losses))
    assert res["apparent_error"] == 0.0  # 1-NN on its training data
    assert 0 < res["err632"] < res["err632plus"] <= res["loo_bootstrap_error"]


def test_bias_variance_identity_and_known_cases():
    truth = lambda X: np.sin(2 * X[:, 0])  # noqa: E731
    sample = lambda rng, n: rng.uniform(-1, 1, (n, 1))  # noqa: E731
    x_test = np.linspace(-1, 1, 15)[:, None]
    res = bias_variance_decomposition(
        "linear_regression",
        true_function=truth,
        sample_x=sample,
        noise_std=0.3,
        n_train=25,
        x_test=x_test,
        n_rounds=60,
        seed=2,
    )
    preds = []
    for r in range(60):  # refit by hand with the documented seeds
        rng = np.random.default_rng(repeat_seed(2, r))
        X = sample(rng, 25)
        y = truth(X) + 0.3 * rng.normal(size=25)
        preds.append(create("linear_regression").fit(X, y).predict(x_test))
    preds = np.array(preds)
    f = truth(x_test)
    # exact on the sample of rounds: mean_r (h_r - h*)^2 = bias^2 + variance
    assert np.mean((preds - f) ** 2) == pytest.approx(res["bias2"] + res["variance"], rel=1e-12)
    assert res["noise"] == pytest.approx(0.09)
    assert res["expected_mse"] == pytest.approx(res["mse_monte_carlo"], rel=0.15)
    # a linear model of sin(2x) is biased; a flexible 1-NN is much less biased but has more variance
    knn = bias_variance_decomposition(
        "knn",
        true_function=truth,
        sample_x=sample,
        noise_std=0.3,
        n_train=25,
        x_test=x_test,
        n_rounds=60,
        seed=2,
        params={"n_neighbors": 1, "task": "regression"},
    )
    assert knn["bias2"] < res["bias2"] and knn["variance"] > res["variance"]
    assert knn["variance"] == pytest.approx(0.09, rel=0.35)  # 1-NN copies one noisy label: variance ~ sigma^2
