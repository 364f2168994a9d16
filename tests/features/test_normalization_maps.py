"""CIML §5.3-5.4 maps (center, scale, maxabs, normalize, log) against scikit-learn/numpy, fitted on training data."""

import numpy as np
import pytest
from sklearn.preprocessing import MaxAbsScaler, Normalizer, StandardScaler

from replearn import features
from replearn.exceptions import NotFittedError


@pytest.fixture
def X():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4)) * [1.0, 10.0, 0.1, 3.0] + [0.0, 5.0, -2.0, 1.0]
    X[:, 2] = 0.0  # an all-zero column
    return X


def test_center_is_eq_5_1(X):
    t = features.create("center").fit(X[:30])
    np.testing.assert_allclose(t.transform(X), X - X[:30].mean(axis=0), rtol=1e-15)
    np.testing.assert_allclose(t.transform(X), StandardScaler(with_std=False).fit(X[:30]).transform(X), rtol=1e-14)


def test_scale_is_eq_5_2_with_cimls_n_minus_1(X):
    t = features.create("scale").fit(X[:30])
    std = X[:30].std(axis=0, ddof=1)
    expected = X / np.where(std > 0, std, 1.0)
    np.testing.assert_allclose(t.transform(X), expected, rtol=1e-14)
    # ddof = 0 is scikit-learn's StandardScaler(with_mean=False)
    t0 = features.create("scale", ddof=0).fit(X[:30])
    np.testing.assert_allclose(t0.transform(X), StandardScaler(with_mean=False).fit(X[:30]).transform(X), rtol=1e-13)
    assert np.all(t.transform(X)[:, 2] == 0)  # constant column: scale 1, no division by zero


def test_maxabs_is_eq_5_3(X):
    t = features.create("maxabs").fit(X[:30])
    np.testing.assert_allclose(t.transform(X), MaxAbsScaler().fit(X[:30]).transform(X), rtol=1e-15)
    assert np.max(np.abs(t.transform(X[:30]))) == pytest.approx(1.0)


@pytest.mark.parametrize("norm", ["l2", "l1", "max"])
def test_normalize_is_eq_5_7(X, norm):
    t = features.create("normalize", norm=norm).fit(X)
    np.testing.assert_allclose(t.transform(X), Normalizer(norm=norm).fit(X).transform(X), rtol=1e-14)
    Z = np.zeros((2, 4))
    np.testing.assert_array_equal(t.transform(Z), Z)  # zero rows stay zero
    if norm == "l2":
        np.testing.assert_allclose(np.linalg.norm(t.transform(X), axis=1), 1.0)


def test_log_transform_is_cimls_signed_log2():
    X = np.array([[0.0, 1.0, 3.0, -7.0]])
    t = features.create("log").fit(X)
    np.testing.assert_allclose(t.transform(X), [[0.0, 1.0, 2.0, -3.0]])  # log2(|x| + 1) sign(x)
    np.testing.assert_allclose(features.create("log", base=np.e).fit(X).transform(X), np.sign(X) * np.log1p(np.abs(X)))


@pytest.mark.parametrize("name", ["center", "scale", "maxabs", "normalize", "log"])
def test_checks(name, X):
    with pytest.raises(NotFittedError):
        features.create(name).transform(X)
    t = features.create(name).fit(X)
    with pytest.raises(ValueError, match=f"X has 3 features, but {type(t).__name__} was fitted with 4"):
        t.transform(X[:, :3])
    with pytest.raises(ValueError, match="NaN"):
        t.transform(np.full((2, 4), np.nan))


def test_bad_params(X):
    with pytest.raises(ValueError, match="norm must be one of"):
        features.create("normalize", norm="l3").fit(X)
    with pytest.raises(ValueError, match="base must be > 1"):
        features.create("log", base=1.0).fit(X)
    with pytest.raises(ValueError, match="ddof must be <= 1"):
        features.create("scale", ddof=2).fit(X)
