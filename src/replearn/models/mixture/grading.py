"""Grading an exam without an answer key, by EM (CIML §16.1): the second user of the EM loop."""

from __future__ import annotations

import numpy as np

from ..._constraints import Interval
from ...base import BaseEstimator
from ...validation import check_array, check_is_fitted
from .em import expectation_maximization


class ExamGrader(BaseEstimator):
    """Estimate each student's ability and the answer key from true/false answers alone.

    Generative story (CIML §16.1, seed 001 L4722-4800): for each question ``m`` the true answer
    ``t_m ~ Ber(0.5)``; each student ``n`` has a score ``s_n`` in [0, 1]; student ``n`` answers
    question ``m`` correctly with probability ``s_n``:
    ``a_nm ~ Ber(s_n)^{t_m} Ber(1 - s_n)^{1 - t_m}`` (L4742-4744). The key ``t`` is latent; the
    scores are the parameters, fitted by maximum likelihood (the uniform prior on ``s_n`` is
    constant) with the marginal log-likelihood::

        l(s) = sum_m log( 0.5 prod_n s_n^{a_nm} (1 - s_n)^{1 - a_nm}
                        + 0.5 prod_n (1 - s_n)^{a_nm} s_n^{1 - a_nm} )  =  sum_m log(C_m + D_m)

    EM (via :func:`~replearn.models.mixture.em.expectation_maximization`):

    * E-step (eqs. 16.10-16.11): ``t~_m = p(t_m = 1 | a, s) = C_m / (C_m + D_m)``, computed in log
      space (``log C_m - logaddexp(log C_m, log D_m)``): with 100 students the products underflow;
    * M-step (eq. 16.9 with ``t~`` for ``t``): ``s_n = (1/M) sum_m [a_nm t~_m + (1 - a_nm)(1 - t~_m)]``,
      the expected fraction of correct answers.

    Start: the majority-vote key (ties give ``t~ = 0.5``), then its M-step -- the text's
    initialization (L4796). Scores are kept in ``[eps, 1 - eps]`` (``eps = 1e-9``): a student who
    agrees with the expected key everywhere would otherwise get ``s = 1`` and ``log 0``; the text
    notes such a student "carries the vote completely", which the clip preserves up to ``eps``.
    The clip is the exact maximizer over the box, so EM stays monotone (checked on every fit).

    The model has a mirror symmetry -- ``(s, t) -> (1 - s, 1 - t)`` gives the same likelihood -- and
    the majority start selects the solution where the class does better than chance on average.

    Not a registry model: ``fit(A)`` takes the students x questions 0/1 answer matrix, not ``X, y``.

    Parameters
    ----------
    tol : float >= 0, default 1e-8
        On the mean log-likelihood per question.
    max_iter : int >= 1, default 200

    Attributes
    ----------
    scores_ : array (n_students,) -- the abilities ``s_n``
    answer_key_proba_ : array (n_questions,) -- ``t~_m = p(t_m = 1 | answers)``
    answer_key_ : int array (n_questions,) -- ``t~_m > 0.5``
    log_likelihood_history_ : array, non-decreasing -- ``l(s) / M`` after each M-step
    n_iter_ : int
    converged_ : bool
    """

    _estimator_type = "latent-variable model"

    #: valid hyperparameter values, checked by fit (replearn._constraints)
    _constraints = {"tol": Interval(float, 0.0, None), "max_iter": Interval(int, 1, None)}

    def __init__(self, tol=1e-8, max_iter=200):
        self.tol = tol
        self.max_iter = max_iter

    _EPS = 1e-9

    @staticmethod
    def _e_step(A: np.ndarray, s: np.ndarray):
        log_s, log_1s = np.log(s), np.log1p(-s)
        # log C_m and log D_m (eqs. 16.10-16.11), dropping the common log 0.5
        log_c = A.T @ log_s + (1.0 - A).T @ log_1s
        log_d = A.T @ log_1s + (1.0 - A).T @ log_s
        log_norm = np.logaddexp(log_c, log_d)
        t = np.exp(log_c - log_norm)
        return t, float(np.mean(np.log(0.5) + log_norm))

    def _m_step(self, A: np.ndarray, t: np.ndarray) -> np.ndarray:
        s = (A @ t + (1.0 - A) @ (1.0 - t)) / A.shape[1]
        return np.clip(s, self._EPS, 1.0 - self._EPS)

    def fit(self, A, y=None):
        """Fit on the (n_students, n_questions) 0/1 answer matrix ``A``; returns ``self``."""
        self._validate_params()
        A = check_array(A, name="A")
        if not np.all((A == 0) | (A == 1)):
            raise ValueError("A must contain only 0 (false) and 1 (true) answers")
        votes = A.mean(axis=0)
        majority = np.where(votes > 0.5, 1.0, np.where(votes < 0.5, 0.0, 0.5))
        result = expectation_maximization(
            self._m_step(A, majority),
            lambda s: self._e_step(A, s),
            lambda t: self._m_step(A, t),
            tol=float(self.tol),
            max_iter=int(self.max_iter),
            name="ExamGrader EM",
        )
        self.scores_ = result.params
        self.answer_key_proba_ = result.stats
        self.answer_key_ = (result.stats > 0.5).astype(np.int64)
        self.log_likelihood_history_ = result.log_likelihood_history
        self.n_iter_ = result.n_iter
        self.converged_ = result.converged
        return self

    def score(self, A, y=None) -> float:
        """Mean log-likelihood per question of answers ``A`` from the same students (rows)."""
        check_is_fitted(self, "scores_")
        A = check_array(A, name="A")
        if A.shape[0] != self.scores_.shape[0]:
            raise ValueError(f"A has {A.shape[0]} students (rows), the model was fitted with {self.scores_.shape[0]}")
        return self._e_step(A, self.scores_)[1]
