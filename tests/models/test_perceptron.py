"""Perceptrons: CIML Alg. 5/7/39 run by hand, eq. 4.17 votes, separable data, the OR/XOR oracles, scikit-learn."""

import numpy as np
import pytest
from sklearn.linear_model import Perceptron as SkPerceptron

from replearn.models.perceptron.perceptron import (
    AveragedPerceptron,
    MulticlassPerceptron,
    Perceptron,
    VotedPerceptron,
)


def separable(n=200, d=3, margin=0.3, seed=0):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    w /= np.linalg.norm(w)
    X = rng.uniform(-1, 1, size=(4 * n, d))
    a = X @ w + 0.1
    X, a = X[np.abs(a) > margin][:n], a[np.abs(a) > margin][:n]
    return X, (a > 0).astype(int)


def noisy(n=150, d=4, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X @ rng.normal(size=d) + rng.normal(size=n) > 0).astype(int)


def alg5_by_hand(X, s, orders):
    """CIML Algorithm 5, literally."""
    w, b = np.zeros(X.shape[1]), 0.0
    for order in orders:
        for i in order:
            a = sum(w[d] * X[i, d] for d in range(X.shape[1])) + b
            if s[i] * a <= 0:
                w = w + s[i] * X[i]
                b = b + s[i]
    return w, b


def test_or_oracle_from_the_waterloo_notes():
    """OR in the order (0,0),(1,0),(0,1),(1,1) from w = 0, b = 0: w = (2, 2), b = -1 after 9 mistakes in
    6 passes (derived in the catalogue from seed 003 L96-100, sgn(0) = -1)."""
    X = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=float)
    y = np.array([0, 1, 1, 1])
    m = Perceptron(shuffle=False, max_iter=100).fit(X, y)
    np.testing.assert_array_equal(m.coef_, [[2.0, 2.0]])
    np.testing.assert_array_equal(m.intercept_, [-1.0])
    assert m.mistakes_.sum() == 9 and m.n_iter_ == 6 and m.converged_
    np.testing.assert_array_equal(m.predict(X), y)


def test_xor_cycles_back_to_zero():
    """On XOR the perceptron returns to w = 0, b = 0 after every pass (Thm 2.11, seed 003 L241-255)."""
    X = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=float)
    y = np.array([0, 1, 1, 0])
    for passes in (1, 2, 5):
        m = Perceptron(shuffle=False, max_iter=passes).fit(X, y)
        np.testing.assert_array_equal(m.coef_, [[0.0, 0.0]])
        assert m.intercept_[0] == 0.0 and not m.converged_


@pytest.mark.parametrize("shuffle", [False, True])
def test_matches_a_hand_run_of_algorithm_5(shuffle):
    X, y = noisy()
    s = np.where(y == 1, 1.0, -1.0)
    m = Perceptron(max_iter=4, shuffle=shuffle, random_state=3).fit(X, y)
    rng = np.random.default_rng(3)
    orders = [rng.permutation(len(y)) if shuffle else np.arange(len(y)) for _ in range(4)]
    w, b = alg5_by_hand(X, s, orders)
    np.testing.assert_allclose(m.coef_[0], w, rtol=1e-12)
    assert m.intercept_[0] == b


def test_separable_data_reach_zero_training_error_within_the_mistake_bound():
    X, y = separable()
    m = Perceptron(max_iter=1000, random_state=0).fit(X, y)
    assert m.converged_ and m.score(X, y) == 1.0
    # Novikoff / CIML Thm. 2: mistakes <= (R / gamma)^2 for the augmented data [x, 1]
    Xa = np.column_stack([X, np.ones(len(X))])
    R = np.max(np.linalg.norm(Xa, axis=1))
    w = np.append(m.coef_[0], m.intercept_[0])
    gamma = np.min(np.where(y == 1, 1, -1) * (Xa @ w)) / np.linalg.norm(w)  # margin of the found separator
    assert gamma > 0 and m.mistakes_.sum() <= (R / gamma) ** 2


def test_matches_sklearn_perceptron_without_shuffling():
    X, y = noisy(seed=4)
    ours = Perceptron(max_iter=7, shuffle=False).fit(X, y)
    ref = SkPerceptron(max_iter=7, tol=None, shuffle=False, eta0=1.0).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-12)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-12)


def test_averaged_equals_the_average_of_the_weight_vectors():
    """Alg. 7's w - u/c is (1/(T+1)) sum_{t=0}^{T} w_t over the weights after each of the T examples."""
    X, y = noisy(seed=5)
    s = np.where(y == 1, 1.0, -1.0)
    m = AveragedPerceptron(max_iter=3, random_state=2).fit(X, y)
    rng = np.random.default_rng(2)
    w, b = np.zeros(X.shape[1]), 0.0
    sums_w, sums_b, count = w.copy(), b, 1  # includes w_0 = 0
    for _ in range(3):
        for i in rng.permutation(len(y)):
            if s[i] * (w @ X[i] + b) <= 0:
                w, b = w + s[i] * X[i], b + s[i]
            sums_w, sums_b, count = sums_w + w, sums_b + b, count + 1
    np.testing.assert_allclose(m.coef_[0], sums_w / count, rtol=1e-10, atol=1e-12)
    assert m.intercept_[0] == pytest.approx(sums_b / count, rel=1e-10, abs=1e-12)
    # trained like the vanilla perceptron: same mistakes
    np.testing.assert_array_equal(m.mistakes_, Perceptron(max_iter=3, random_state=2).fit(X, y).mistakes_)


def test_voted_prediction_is_equation_4_17():
    X, y = noisy(seed=6)
    s = np.where(y == 1, 1.0, -1.0)
    m = VotedPerceptron(max_iter=2, random_state=1).fit(X, y)
    rng = np.random.default_rng(1)
    w, b, c = np.zeros(X.shape[1]), 0.0, 0
    vectors = []
    for _ in range(2):
        for i in rng.permutation(len(y)):
            if s[i] * (w @ X[i] + b) <= 0:
                if c > 0:
                    vectors.append((w.copy(), b, c))
                w, b, c = w + s[i] * X[i], b + s[i], 1
            else:
                c += 1
    vectors.append((w.copy(), b, c))
    assert sum(v[2] for v in vectors) == 2 * len(y)  # every example counted once
    np.testing.assert_allclose(m.vote_counts_, [v[2] for v in vectors])
    Q = np.random.default_rng(9).normal(size=(25, X.shape[1]))
    vote = sum(ck * np.where(Q @ wk + bk > 0, 1.0, -1.0) for wk, bk, ck in vectors)
    np.testing.assert_array_equal(m.predict(Q), (vote > 0).astype(int))
    np.testing.assert_allclose(m.decision_function(Q), vote / (2 * len(y)))


def test_multiclass_perceptron_by_hand():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, size=60)
    X = rng.normal(size=(60, 2)) + 2 * np.array([[0, 0], [1, 0], [0, 1]])[y]
    m = MulticlassPerceptron(max_iter=3, shuffle=False).fit(X, y)
    W, b = np.zeros((3, 2)), np.zeros(3)
    for _ in range(3):
        for x, t in zip(X, y):
            scores = W @ x + b
            others = scores.copy()
            others[t] = -np.inf
            k = int(np.argmax(others))
            if scores[k] >= scores[t]:  # a tie with the true class counts as a mistake
                W[t] += x
                W[k] -= x
                b[t] += 1
                b[k] -= 1
    np.testing.assert_allclose(m.coef_, W)
    np.testing.assert_allclose(m.intercept_, b)
    # Perceptron uses the same update for more than two classes
    np.testing.assert_allclose(Perceptron(max_iter=3, shuffle=False).fit(X, y).coef_, W)


def test_multiclass_variants_learn_digits_like_data():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 4, size=400)
    X = rng.normal(size=(400, 6)) + 2.5 * rng.normal(size=(4, 6))[y]
    for cls in (Perceptron, AveragedPerceptron, VotedPerceptron):
        m = cls(max_iter=10, random_state=0).fit(X[:300], y[:300])
        assert m.score(X[300:], y[300:]) > 0.8
        assert m.predict(X).dtype == y.dtype
    avg = MulticlassPerceptron(average=True, random_state=0).fit(X, y)
    assert avg.score(X, y) >= 0.85


def test_reshuffling_changes_the_result_and_is_seeded():
    X, y = noisy(seed=8)
    a = Perceptron(max_iter=3, random_state=0).fit(X, y)
    b = Perceptron(max_iter=3, random_state=0).fit(X, y)
    c = Perceptron(max_iter=3, random_state=1).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)


def test_without_intercept_and_loss_history():
    X, y = noisy(seed=9)
    m = Perceptron(max_iter=5, fit_intercept=False, random_state=0).fit(X, y)
    assert m.intercept_[0] == 0.0
    np.testing.assert_allclose(m.loss_history_, m.mistakes_ / len(y))
    assert len(m.mistakes_) == m.n_iter_


@pytest.mark.parametrize(
    "params, error, match",
    [({"max_iter": 0}, ValueError, "max_iter must be >= 1"), ({"shuffle": "yes"}, TypeError, "shuffle must be a bool")],
)
def test_bad_hyperparameters(params, error, match):
    X, y = noisy()
    with pytest.raises(error, match=match):
        Perceptron(**params).fit(X, y)


def test_multiclass_perceptron_binary_decision_function_is_the_score_margin():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 3))
    y = np.where(X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=80) > 0, "b", "a")
    model = MulticlassPerceptron(random_state=0).fit(X, y)
    scores = X @ model.coef_.T + model.intercept_  # one weight vector per class, also for two classes
    dec = model.decision_function(X)
    assert dec.shape == (80,) and model.coef_.shape == (2, 3)
    np.testing.assert_allclose(dec, scores[:, 1] - scores[:, 0], rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(scores, axis=1)])
    assert model.decision_function(X[:1]).shape == (1,)
