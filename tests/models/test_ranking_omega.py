"""omega-ranking (CIML Alg. 19, eqs. 6.7-6.9) and the quicksort RankTest (Alg. 20)."""

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from replearn.models import create
from replearn.models.reductions.ranking import (
    omega_auc,
    omega_kemeny,
    omega_loss,
    omega_top_k,
    rank_test_quicksort,
    ranking_positions,
)


@pytest.mark.parametrize("omega", [omega_kemeny, lambda i, j: omega_top_k(i, j, 3), lambda i, j: omega_auc(i, j, 8, 3)])
def test_omegas_are_valid_cost_functions(omega):
    pos = np.arange(1, 9)
    W = omega(pos[:, None], pos[None, :])
    np.testing.assert_array_equal(W, W.T)  # (1) symmetric
    for i in range(8):
        for j in range(8):
            for k in range(8):
                if i < j < k or i > j > k:
                    assert W[i, j] <= W[i, k] + 1e-12  # (2) monotone
                assert W[i, j] + W[j, k] >= W[i, k] - 1e-12  # (3) triangle inequality


def test_top_k_and_auc_values():
    assert omega_top_k(55, 56, 10) == 0 and omega_top_k(3, 56, 10) == 1  # eq. 6.8: swapping 55 and 56 is free
    assert omega_auc(1, 5, 8, 3) == pytest.approx(math.comb(8, 2) / (3 * 5))  # eq. 6.9
    assert omega_auc(1, 2, 8, 3) == 0.0
    np.testing.assert_array_equal(ranking_positions([3.0, 1.0, 3.0, 2.0]), [1, 4, 1, 3])


def test_auc_omega_loss_is_c_m_2_times_one_minus_auc():
    rng = np.random.default_rng(0)
    good = np.array([1] * 4 + [0] * 6)
    scores = rng.normal(size=10) + good
    sigma = ranking_positions(good.astype(float))
    sigma_hat = ranking_positions(scores)
    loss = omega_loss(sigma, sigma_hat, lambda i, j: omega_auc(i, j, 10, 4))
    assert loss == pytest.approx(math.comb(10, 2) * (1 - roc_auc_score(good, scores)))
    assert omega_loss(sigma, sigma_hat, omega_kemeny) == np.sum(
        (good[:, None] > good[None, :]) & (scores[:, None] < scores[None, :])
    )


def test_quicksort_with_an_exact_comparator_sorts_in_m_log_m_calls():
    rng = np.random.default_rng(1)
    values = rng.normal(size=300)
    order, calls = rank_test_quicksort(lambda us, p: (values[us] > values[p]).astype(float), np.arange(300), rng)
    np.testing.assert_array_equal(order, np.argsort(-values))
    assert calls < 4 * 300 * np.log2(300) < 300 * 299  # O(M log M) instead of Alg. 18's M(M - 1)


def test_weighted_rank_train_and_quicksort_rank_test():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 3))
    y = X @ np.array([1.0, -2.0, 0.5])
    top = create("pairwise_ranking", omega="top_k", top_k=5, random_state=0).fit(X, y)
    assert top.n_pairs_ == 2 * sum(59 - i for i in range(5))  # eq. 6.8: only pairs touching the top 5 count
    assert top.pair_weighting_ == "none"  # 0/1 weights: the zero-weight pairs are dropped, the rest weigh 1
    # eq. 6.9's constant C(M,2)/(M+ (M - M+)) differs between queries with different M+: real weights
    q = np.repeat([0.0, 1.0], 30)
    grades = np.r_[(y[:30] > np.quantile(y[:30], 0.8)), (y[30:] > np.quantile(y[30:], 0.4))].astype(float)
    Xq = np.column_stack([q, X])
    tree = create(
        "pairwise_ranking",
        omega="auc",
        group_column=0,
        estimator="decision_tree",
        estimator_params={"max_depth": 4},
        random_state=0,
    ).fit(Xq, grades)
    assert tree.pair_weighting_ == "sample_weight"
    logistic = create("pairwise_ranking", omega="auc", group_column=0, random_state=0).fit(Xq, grades)
    assert logistic.pair_weighting_ == "resample"  # logistic regression takes no weights
    assert logistic.score(Xq, grades) > 0.9
    quick = create("pairwise_ranking", estimator_params={"C": 100.0}, rank_method="quicksort", random_state=0).fit(X, y)
    scores = create("pairwise_ranking", estimator_params={"C": 100.0}).fit(X, y)
    assert quick.score(X, y) > 0.97 and scores.score(X, y) > 0.97
    np.testing.assert_array_equal(quick.predict(X), quick.predict(X))  # seeded: repeated calls agree
    assert sorted(quick.predict(X)) == list(range(1, 61))
    with pytest.raises(ValueError, match="omega='auc' needs bipartite relevance"):
        create("pairwise_ranking", omega="auc").fit(X, y)
    auc = create("pairwise_ranking", omega="auc").fit(X, (y > 0).astype(float))
    assert auc.pair_weighting_ == "none"  # one bipartite query: every good-bad pair weighs the same (Alg. 17)
