"""The linear SVM's dual coordinate descent (one compiled loop: epochs, shrinking, stopping rule) against LIBLINEAR
on the same objective, and its per-epoch objective history (computed a block of epochs at a time)."""

import warnings

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from replearn.exceptions import ConvergenceWarning
from replearn.models.svm import _kernels as svm_kernels
from replearn.models.svm import linear_svm
from replearn.models.svm.linear_svm import LinearSVM, primal_objective


def issue_data(n=4000, d=20, seed=1):
    """The benchmark's linear data (benchmarks/bench_svm.py): overlapping classes, not separable."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(5000, d))
    y = (X @ rng.normal(size=d) / np.sqrt(d) + 0.5 * rng.normal(size=5000) > 0).astype(int)
    return X[:n], y[:n]


def objective(model_coef, model_intercept, X, y, C):
    Xa = np.hstack([X, np.ones((len(X), 1))])
    W = np.r_[model_coef[0], model_intercept][:, None]
    return primal_objective(Xa, np.where(y == 1, 1.0, -1.0)[:, None], W, C)


@pytest.mark.parametrize("C, tol", [(1.0, 1e-4), (0.01, 1e-4)])
def test_same_objective_as_liblinear_at_the_benchmark_setting(C, tol):
    """n = 4000, d = 20, hinge loss: at C = 1 both stop at 1000 epochs (not separable); at C = 0.01 both converge."""
    X, y = issue_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = LinearSVM(C=C, tol=tol, random_state=0).fit(X, y)
        ref = LinearSVC(C=C, loss="hinge", dual=True, tol=tol, random_state=0).fit(X, y)
    P_ours = objective(ours.coef_, ours.intercept_, X, y, C)
    P_ref = objective(ref.coef_, ref.intercept_, X, y, C)
    assert ours.loss_history_[-1] == pytest.approx(P_ours, rel=1e-10)
    assert P_ours == pytest.approx(P_ref, rel=1e-3 if C == 1.0 else 1e-6)
    assert np.mean(ours.predict(X) == ref.predict(X)) >= 0.995
    if C == 0.01:
        assert ours.n_iter_ < 1000


def test_history_is_the_primal_objective_after_every_epoch(monkeypatch):
    """The epochs of a longer run are those of shorter ones (same random_state), so entry k of the history is the
    primal objective of the k-epoch fit; blocks of 3 epochs exercise the hand-over between the loop and Python."""
    monkeypatch.setattr(linear_svm, "_HIST_ROWS", 3)
    X, y = issue_data(n=500, d=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        full = LinearSVM(C=1.0, tol=1e-12, max_iter=8, random_state=3).fit(X, y)
        assert full.loss_history_.size == full.n_iter_ == 8
        for k in range(1, 9):
            part = LinearSVM(C=1.0, tol=1e-12, max_iter=k, random_state=3).fit(X, y)
            expected = objective(part.coef_, part.intercept_, X, y, 1.0)
            assert full.loss_history_[k - 1] == pytest.approx(expected, rel=1e-12)


def test_one_vs_rest_history_sums_the_problems():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = np.digitize(X[:, 0] + 0.3 * rng.normal(size=300), [-0.5, 0.5])
    model = LinearSVM(C=0.5, tol=1e-3, random_state=0).fit(X, y)
    Xa = np.hstack([X, np.ones((300, 1))])
    Y = np.where(y[:, None] == np.arange(3), 1.0, -1.0)
    W = np.vstack([model.coef_.T, model.intercept_])
    assert model.loss_history_[-1] == pytest.approx(primal_objective(Xa, Y, W, 0.5), rel=1e-10)


def test_block_objectives_leave_out_only_zero_hinges():
    """block_objectives skips rows whose margin stays above 1 over the block; the sums equal the full ones."""
    rng = np.random.default_rng(2)
    X, y = issue_data(n=2000, d=8)
    Xa = np.hstack([X, np.ones((2000, 1))])
    ypm = np.where(y == 1, 1.0, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        w = LinearSVM(C=1.0, tol=1e-3, random_state=0).fit(X, y)
    w_end = np.r_[w.coef_[0], w.intercept_]
    for scale in (1e-4, 1e-2, 1.0):  # small moves: most rows left out; large: none
        block = w_end + scale * rng.normal(size=(16, 9))
        full = [primal_objective(Xa, ypm[:, None], b[:, None], 1.0) for b in block]
        fast = svm_kernels.block_objectives(Xa, ypm, np.sqrt(np.einsum("ij,ij->i", Xa, Xa)), block, 1.0)
        np.testing.assert_allclose(fast, full, rtol=1e-12)
