"""Binning vs KBinsDiscretizer and one-hot vs OneHotEncoder."""

import numpy as np
import pytest
from sklearn.preprocessing import KBinsDiscretizer, OneHotEncoder

from replearn import features


@pytest.fixture
def X():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=120), rng.exponential(size=120), rng.integers(0, 3, size=120)])
    return X


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [3, 5])
def test_binning_matches_kbins_discretizer(X, strategy, n_bins):
    ours = features.create("binning", n_bins=n_bins, strategy=strategy).fit(X[:80])
    ref = KBinsDiscretizer(n_bins=n_bins, strategy=strategy, encode="ordinal", quantile_method="averaged_inverted_cdf")
    with pytest.warns(UserWarning) if strategy == "quantile" else _nullcontext():
        ref.fit(X[:80])  # the 3-valued column gives duplicate quantiles: scikit-learn warns and merges them
    np.testing.assert_array_equal(ours.transform(X), ref.transform(X))
    np.testing.assert_array_equal(ours.n_bins_, ref.n_bins_)
    for j in range(X.shape[1]):
        np.testing.assert_allclose(ours.bin_edges_[j, : ours.n_bins_[j] + 1], ref.bin_edges_[j])
    onehot = features.create("binning", n_bins=n_bins, strategy=strategy, encode="onehot").fit(X[:80])
    ref_oh = KBinsDiscretizer(
        n_bins=n_bins, strategy=strategy, encode="onehot-dense", quantile_method="averaged_inverted_cdf"
    )
    with pytest.warns(UserWarning) if strategy == "quantile" else _nullcontext():
        ref_oh.fit(X[:80])
    np.testing.assert_array_equal(onehot.transform(X), ref_oh.transform(X))


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_binning_constant_column_and_out_of_range_values():
    X = np.column_stack([np.arange(10.0), np.full(10, 4.0)])
    t = features.create("binning", n_bins=2, strategy="uniform").fit(X)
    np.testing.assert_array_equal(t.n_bins_, [2, 1])
    np.testing.assert_array_equal(t.transform(np.array([[-100.0, 9.0], [100.0, -9.0]])), [[0, 0], [1, 0]])


def test_one_hot_matches_sklearn_with_unknown_values(X):
    ours = features.create("one_hot").fit(X[:80, 2:])
    ref = OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(X[:80, 2:])
    Xt = X[80:, 2:].copy()
    Xt[0, 0] = 7.0  # unseen category: an all-zero block
    np.testing.assert_array_equal(ours.transform(Xt), ref.transform(Xt))
    assert ours.transform(Xt)[0].sum() == 0


def test_one_hot_selected_columns_keep_their_place(X):
    t = features.create("one_hot", columns=[2]).fit(X)
    Z = t.transform(X)
    assert Z.shape == (len(X), 2 + 3)
    np.testing.assert_array_equal(Z[:, :2], X[:, :2])
    np.testing.assert_array_equal(Z[:, 2:].argmax(axis=1), X[:, 2])
    with pytest.raises(ValueError, match="not seen in training"):
        features.create("one_hot", columns=[2], handle_unknown="error").fit(X).transform(X + 10)
    with pytest.raises(ValueError, match="out of range"):
        features.create("one_hot", columns=[5]).fit(X)
