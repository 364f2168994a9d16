"""Supervised FastText (EPFL notes L1563-1575): min_{W,Z} sum_n f(y_n W Z' x_n) -- a linear classifier of rank K.
Where K is large enough it reaches the optimum of the unconstrained linear model (logistic and softmax
regression); below that the rank constraint binds."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import log_softmax

from replearn import models


def _bags(seed=0, n=300, d=25, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.poisson(0.4, size=(n, d)).astype(float)
    V = rng.normal(size=(d, classes))
    s = X @ V + 1.5 * rng.normal(size=(n, classes))  # noisy: the classes overlap, the MLE exists
    y = (s[:, 0] > np.median(s[:, 0])).astype(int) if classes == 2 else np.argmax(s, axis=1)
    return X, y


def _mean_logistic(coef, intercept, X, y):
    m = np.where(y == 1, 1.0, -1.0) * (X @ coef.ravel() + intercept[0])
    return float(np.mean(np.logaddexp(0.0, -m)))


def test_binary_fasttext_reaches_the_logistic_regression_optimum():
    X, y = _bags()
    ft = models.create("fasttext", n_components=3, random_state=0).fit(X, y)
    lr = models.create("logistic_regression", penalty=None, tol=1e-12).fit(X, y)
    opt = _mean_logistic(lr.coef_, lr.intercept_, X, y)
    assert ft.loss_history_[-1] == pytest.approx(opt, abs=1e-7)
    np.testing.assert_allclose(ft.coef_.ravel(), lr.coef_.ravel(), atol=1e-3)
    np.testing.assert_allclose(ft.coef_, ft.class_vectors_ @ ft.components_.T)  # coef = W Z'
    np.testing.assert_array_equal(ft.predict(X), lr.predict(X))


def test_multiclass_fasttext_is_softmax_regression_when_k_is_large_and_rank_k_otherwise():
    X, y = _bags(seed=1, classes=4)
    sm = models.create("softmax_regression", penalty=None, tol=1e-10).fit(X, y)
    S = X @ sm.coef_.T + sm.intercept_
    opt = -float(np.mean(log_softmax(S, axis=1)[np.arange(len(y)), y]))
    full = models.create("fasttext", n_components=4, random_state=0).fit(X, y)
    assert full.loss_history_[-1] == pytest.approx(opt, abs=1e-6)
    low = models.create("fasttext", n_components=1, random_state=0).fit(X, y)
    assert np.linalg.matrix_rank(low.coef_) == 1 and low.loss_history_[-1] > opt + 1e-3
    np.testing.assert_allclose(low.transform(X), X @ low.components_)  # sentence vectors Z' x
    P = full.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_sgd_approaches_the_same_optimum_and_sparse_bags_give_the_same_model():
    X, y = _bags(seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sgd = models.create("fasttext", n_components=2, solver="sgd", learning_rate=0.3, random_state=0).fit(X, y)
    lr = models.create("logistic_regression", penalty=None, tol=1e-12).fit(X, y)
    start = float(np.log(2.0))  # W = 0: every score 0
    opt = _mean_logistic(lr.coef_, lr.intercept_, X, y)
    assert sgd.loss_history_[0] == pytest.approx(start) and opt < sgd.loss_history_[-1] < opt + 0.03
    dense = models.create("fasttext", n_components=2, random_state=3).fit(X, y)
    sparse = models.create("fasttext", n_components=2, random_state=3).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-8, atol=1e-10)


def test_the_hinge_loss_and_its_limits():
    X, y = _bags(seed=3, classes=3)
    ft = models.create("fasttext", n_components=3, loss="hinge", random_state=0).fit(X, y)  # "auto": SGD
    softmax = models.create("softmax_regression").fit(X, y)
    assert ft.score(X, y) > softmax.score(X, y) - 0.03
    with pytest.raises(AttributeError, match="logistic"):
        ft.predict_proba(X)
    with pytest.raises(ValueError):
        models.create("fasttext", n_components=0).fit(X, y)
    with pytest.raises(ValueError, match="differentiable"):
        models.create("fasttext", loss="hinge", solver="lbfgs").fit(X, y)
