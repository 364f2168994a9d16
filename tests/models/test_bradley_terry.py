"""Bradley–Terry preference model: the logistic loss on differences, checked against scikit-learn."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from replearn.models import create


def test_matches_logistic_regression_on_difference_vectors():
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(200, 3)), rng.normal(size=(200, 3))
    w_true = np.array([1.5, -1.0, 0.5])
    win = rng.random(200) < 1 / (1 + np.exp(-(A - B) @ w_true))  # BT model: P(a beats b) = sigma(r_a - r_b)
    Xw, Xl = np.where(win[:, None], A, B), np.where(win[:, None], B, A)
    model = create("bradley_terry", alpha=2.0, tol=1e-14).fit_comparisons(Xw, Xl)
    # same objective: sum log(1 + exp(-w.d)) + (alpha/2)||w||^2 = sklearn's C sum logloss + ||w||^2/2 with C = 1/alpha;
    # flipping half of the pairs to (x_l - x_w, label 0) leaves the objective unchanged
    flip = np.arange(200) % 2 == 1
    D = np.where(flip[:, None], Xl - Xw, Xw - Xl)
    ref = SkLogisticRegression(C=0.5, fit_intercept=False, tol=1e-12, solver="newton-cholesky").fit(
        D, (~flip).astype(int)
    )
    np.testing.assert_allclose(model.coef_, ref.coef_[0], rtol=1e-6)
    assert np.all(np.diff(model.loss_history_) <= 1e-12)
    np.testing.assert_allclose(model.predict_preference(A[:5], B[:5]), 1 / (1 + np.exp(-(A[:5] - B[:5]) @ model.coef_)))


def test_graded_items_within_prompts_recover_the_reward():
    rng = np.random.default_rng(1)
    prompt = np.repeat(np.arange(6.0), 8)
    F = rng.normal(size=(48, 2))
    y = F @ np.array([2.0, -1.0]) + 10 * prompt  # grades are comparable only within a prompt
    X = np.column_stack([prompt, F])
    model = create("bradley_terry", group_column=0, alpha=0.01).fit(X, y)
    assert model.n_pairs_ == 6 * 8 * 7 // 2
    assert model.score(X, y) > 0.98
    cos = model.coef_ @ np.array([2.0, -1.0]) / np.linalg.norm(model.coef_) / np.sqrt(5)
    assert cos > 0.99
    with pytest.raises(ValueError, match="no pair of items with different relevance"):
        create("bradley_terry").fit(F, np.ones(48))
    with pytest.raises(ValueError, match="alpha must be > 0"):
        create("bradley_terry", alpha=0.0).fit(F, y)
