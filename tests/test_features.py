"""Feature maps against scikit-learn, and their safe persistence."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.preprocessing import PolynomialFeatures as SkPoly
from sklearn.preprocessing import StandardScaler

from replearn import features
from replearn.exceptions import ConfigError, NotFittedError
from replearn.features import FeaturePipeline


@pytest.fixture
def X():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) * [1.0, 10.0, 0.1] + [0.0, 5.0, -2.0]
    X[:, 2] = 7.0  # a constant column
    return X


def test_standardize_matches_sklearn_and_keeps_constant_columns_finite(X):
    ours = features.create("standardize").fit(X)
    ref = StandardScaler().fit(X)
    np.testing.assert_allclose(ours.transform(X), ref.transform(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.inverse_transform(ours.transform(X)), X, rtol=1e-12)


@pytest.mark.parametrize("degree, interaction_only, bias", [(2, False, False), (3, False, True), (3, True, False)])
def test_polynomial_matches_sklearn_column_for_column(X, degree, interaction_only, bias):
    ours = features.create("polynomial", degree=degree, interaction_only=interaction_only, include_bias=bias)
    ref = SkPoly(degree=degree, interaction_only=interaction_only, include_bias=bias)
    np.testing.assert_allclose(ours.fit_transform(X), ref.fit_transform(X), rtol=1e-12)


def test_pipeline_is_fitted_on_training_data_only_and_round_trips(tmp_path, X):
    steps = [{"name": "polynomial", "params": {"degree": 2}}, {"name": "standardize", "params": {}}]
    pipe = FeaturePipeline(steps).fit(X[:30])
    Z = pipe.transform(X[30:])
    # statistics come from the first 30 rows only: the training part is standardized exactly
    assert np.allclose(pipe.transform(X[:30])[:, :2].mean(axis=0), 0, atol=1e-12)
    assert not np.allclose(Z[:, :2].mean(axis=0), 0, atol=1e-3)
    pipe.save(tmp_path / "f")
    loaded = FeaturePipeline.load(tmp_path / "f")
    np.testing.assert_array_equal(loaded.transform(X[30:]), Z)
    assert b"pickle" not in (tmp_path / "f.npz").read_bytes()


def test_errors():
    with pytest.raises(
        ConfigError, match="unknown feature map 'whiten'; available feature maps: .*polynomial, .*standardize"
    ):
        features.create("whiten")
    with pytest.raises(NotFittedError):
        features.create("standardize").transform(np.ones((2, 2)))
    with pytest.raises(ValueError, match="X has 3 features, but Standardize was fitted with 2"):
        features.create("standardize").fit(np.ones((3, 2))).transform(np.ones((2, 3)))
    with pytest.raises(ValueError, match="degree must be >= 1"):
        features.create("polynomial", degree=0).fit(np.ones((3, 2)))
