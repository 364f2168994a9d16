"""The shared EM loop and its second user, CIML §16.1's exam grading without an answer key."""

import itertools

import numpy as np
import pytest

from replearn.exceptions import ConvergenceWarning, DivergenceError
from replearn.models.mixture.em import EMMonotonicityError, expectation_maximization
from replearn.models.mixture.grading import ExamGrader


# -- the driver ---------------------------------------------------------------------------------------
def contraction(target=3.0, rate=0.5):
    """A fake EM: theta -> target geometrically, log-likelihood -(theta - target)^2."""
    return (lambda th: (th, -((th - target) ** 2))), (lambda stats: target + rate * (stats - target))


def test_driver_records_history_and_stops_on_tol():
    e, m = contraction()
    res = expectation_maximization(0.0, e, m, tol=1e-6, max_iter=100)
    h = res.log_likelihood_history
    assert h[0] == -9.0 and h.size == res.n_iter + 1
    assert np.all(np.diff(h) > 0) and res.converged
    assert h[-1] - h[-2] < 1e-6 <= h[-2] - h[-3]
    assert res.params == pytest.approx(3.0, abs=1e-2) and res.stats == res.params


def test_driver_max_iter_warns_and_zero_iterations_only_evaluates():
    e, m = contraction()
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        res = expectation_maximization(0.0, e, m, tol=1e-12, max_iter=3, name="toy")
    assert res.n_iter == 3 and not res.converged
    res0 = expectation_maximization(0.0, e, m, max_iter=0)
    assert res0.n_iter == 0 and res0.log_likelihood_history.tolist() == [-9.0]


def test_driver_raises_on_nan_and_on_a_decrease():
    with pytest.raises(DivergenceError, match="iteration 1"):
        expectation_maximization(0.0, lambda th: (th, -1.0 if th == 0 else np.nan), lambda s: s + 1, max_iter=5)
    with pytest.raises(EMMonotonicityError, match="decreased the log-likelihood"):
        expectation_maximization(0.0, lambda th: (th, -th), lambda s: s + 1, max_iter=5)
    # a decrease within monotone_tol is tolerated and stops the loop as converged
    res = expectation_maximization(0.0, lambda th: (th, -1e-12 * th), lambda s: s + 1, max_iter=5)
    assert res.converged and res.n_iter == 1


def test_driver_validates_arguments():
    e, m = contraction()
    with pytest.raises(ValueError, match="tol must be >= 0"):
        expectation_maximization(0.0, e, m, tol=-1.0)
    with pytest.raises(ValueError, match="max_iter must be an integer"):
        expectation_maximization(0.0, e, m, max_iter=1.5)


# -- exam grading (CIML §16.1) ------------------------------------------------------------------------
def simulate(n_students=100, n_questions=50, low=0.3, high=1.0, seed=0):
    """CIML's generative story (L4742-4744), with abilities drawn from [low, high]."""
    rng = np.random.default_rng(seed)
    s = rng.uniform(low, high, n_students)
    t = rng.integers(0, 2, n_questions)
    correct = rng.uniform(size=(n_students, n_questions)) < s[:, None]
    return np.where(correct, t[None, :], 1 - t[None, :]), s, t


def test_grader_recovers_abilities_and_key_on_the_texts_sizes():
    A, s, t = simulate()  # N = 100 students, M = 50 questions as in the text
    g = ExamGrader().fit(A)
    assert g.converged_
    assert np.mean(g.answer_key_ == t) >= 0.98
    assert np.corrcoef(g.scores_, s)[0, 1] > 0.95
    assert np.mean(np.abs(g.scores_ - s)) < 0.06  # binomial noise of 50 questions is ~0.05
    assert np.all(np.diff(g.log_likelihood_history_) >= -1e-12)


def test_grader_beats_the_majority_vote_when_many_students_guess():
    hits_em, hits_majority = [], []
    for seed in range(5):
        A, s, t = simulate(n_students=15, n_questions=200, low=0.35, high=0.95, seed=seed)
        g = ExamGrader().fit(A)
        hits_em.append(np.mean(g.answer_key_ == t))
        hits_majority.append(np.mean((A.mean(axis=0) > 0.5) == t))
        assert np.all(np.diff(g.log_likelihood_history_) >= -1e-12)
    assert np.mean(hits_em) > np.mean(hits_majority)


def test_e_step_equals_the_texts_products():
    rng = np.random.default_rng(1)
    A = rng.integers(0, 2, size=(6, 4)).astype(float)
    s = rng.uniform(0.1, 0.9, 6)
    t, ll = ExamGrader._e_step(A, s)
    for m in range(4):
        C = 0.5 * np.prod(np.where(A[:, m] == 1, s, 1 - s))  # eq. 16.10
        D = 0.5 * np.prod(np.where(A[:, m] == 1, 1 - s, s))  # eq. 16.11
        assert t[m] == pytest.approx(C / (C + D), rel=1e-12)
    # the log-likelihood sums over all 2^M keys, as brute force does
    total = 0.0
    for key in itertools.product([0, 1], repeat=4):
        key = np.array(key)
        p = np.where(A == key[None, :], s[:, None], 1 - s[:, None]).prod()
        total += 0.5**4 * p
    assert ll * 4 == pytest.approx(np.log(total), rel=1e-12)


def test_m_step_with_a_known_key_is_the_fraction_correct():
    A, s, t = simulate(seed=2)
    got = ExamGrader()._m_step(A, t.astype(float))  # eq. 16.9
    np.testing.assert_allclose(got, np.clip((A == t[None, :]).mean(axis=1), 1e-9, 1 - 1e-9))


def test_mirror_symmetry_of_the_likelihood():
    A, _, _ = simulate(seed=3)
    s = np.random.default_rng(0).uniform(0.2, 0.8, A.shape[0])
    assert ExamGrader._e_step(A, s)[1] == pytest.approx(ExamGrader._e_step(A, 1 - s)[1], rel=1e-12)


def test_grader_score_and_validation():
    A, _, _ = simulate(seed=4)
    g = ExamGrader().fit(A)
    assert g.score(A) == pytest.approx(g.log_likelihood_history_[-1], rel=1e-12)
    with pytest.raises(ValueError, match="only 0"):
        ExamGrader().fit(A * 2)
    with pytest.raises(ValueError, match="students"):
        g.score(A[:10])
    with pytest.raises(ValueError, match="max_iter must be >= 1"):
        ExamGrader(max_iter=0).fit(A)
