"""RBF network (CIML §10.6): against kernel ridge and 1-NN, gradient check of back-propagation."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge as SkRidge
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.neighbors import KNeighborsClassifier

from replearn.models import create


def test_ridge_output_layer_is_ridge_regression_on_the_bumps():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(25, 2)), rng.normal(size=25)
    net = create("rbf_network", task="regression", gamma=2.0, alpha=1e-3).fit(X, y)
    H = rbf_kernel(X, X, gamma=2.0)  # one unit per training point: h_i(x) = exp(-gamma ||x_i - x||^2)
    ref = SkRidge(alpha=1e-3).fit(H, y)
    Xt = rng.normal(size=(10, 2))
    np.testing.assert_allclose(net.coef_[:, 0], ref.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(net.predict(Xt), ref.predict(rbf_kernel(Xt, X, gamma=2.0)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(net.gamma_, 2.0)


def test_vote_with_narrow_bumps_is_one_nearest_neighbour():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    Xt = rng.normal(size=(40, 2))
    net = create("rbf_network", solver="vote", gamma=1e4).fit(X, y)  # L3578: distance-weighted KNN
    ref = KNeighborsClassifier(n_neighbors=1).fit(X, y)
    np.testing.assert_array_equal(net.predict(Xt), ref.predict(Xt))


def test_backprop_gradients_match_finite_differences():
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(15, 3)), rng.normal(size=15)
    net = create("rbf_network", task="regression", n_centers=4, alpha=0.3, solver="gd", max_iter=0, random_state=0).fit(
        X, y
    )
    params = [net.centers_, np.log(net.gamma_) + 0.1 * rng.normal(size=4), net.coef_, net.intercept_]
    loss, *grads = net._loss_and_grads(X, y[:, None], *params)
    eps = 1e-6
    for p, g in zip(params, grads):
        for idx in list(np.ndindex(p.shape))[:3]:
            q = [a.copy() for a in params]
            q[[id(a) for a in params].index(id(p))][idx] += eps
            num = (net._loss_and_grads(X, y[:, None], *q)[0] - loss) / eps
            assert num == pytest.approx(g[idx], rel=1e-3, abs=1e-6)


def test_gradient_descent_lowers_the_loss_and_classifies():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 2))
    y = (np.sum(X**2, axis=1) < 1.2).astype(int)
    net = create(
        "rbf_network", n_centers=12, centers="kmeans", solver="gd", max_iter=100, gamma=1.0, random_state=0
    ).fit(X[:150], y[:150])
    assert np.all(np.diff(net.loss_history_) <= 0) and net.loss_history_[-1] < net.loss_history_[0]
    assert net.score(X[150:], y[150:]) > 0.85
    with pytest.raises(ValueError, match="use centers='data'"):
        create("rbf_network", solver="vote", centers="kmeans").fit(X, y)
