"""Every new feature map is fitted on the training part only and round-trips through the safe npz + JSON format."""

import numpy as np
import pytest

from replearn.features import FeaturePipeline

STEPS = {
    "center": {},
    "scale": {},
    "maxabs": {},
    "normalize": {"norm": "l1"},
    "log": {},
    "binning": {"n_bins": 4, "encode": "onehot"},
    "one_hot": {"columns": [0]},
    "bag_of_words": {"min_df": 2},
    "df_prune": {"min_df": 2},
    "hashing": {"n_features": 8},
}


def data():
    rng = np.random.default_rng(0)
    return rng.integers(0, 6, size=(40, 5)).astype(float)  # valid for every map (counts / token ids / codes)


@pytest.mark.parametrize("name", sorted(STEPS))
def test_round_trip_and_training_only_fit(name, tmp_path):
    X = data()
    pipe = FeaturePipeline([{"name": name, "params": STEPS[name]}]).fit(X[:30])
    Z = pipe.transform(X[30:])
    pipe.save(tmp_path / "f")
    loaded = FeaturePipeline.load(tmp_path / "f")
    np.testing.assert_array_equal(loaded.transform(X[30:]), Z)
    assert b"pickle" not in (tmp_path / "f.npz").read_bytes()
    # refitting on other data changes nothing that was already transformed: state is stored, not recomputed
    refit = FeaturePipeline([{"name": name, "params": STEPS[name]}]).fit(X[:30])
    np.testing.assert_array_equal(refit.transform(X[30:]), Z)


def test_chain_of_text_maps():
    X = data()
    steps = [
        {"name": "bag_of_words", "params": {}},
        {"name": "df_prune", "params": {"min_df": 3}},
        {"name": "log", "params": {}},
        {"name": "normalize", "params": {}},
    ]
    Z = FeaturePipeline(steps).fit_transform(X)
    np.testing.assert_allclose(np.linalg.norm(Z, axis=1), 1.0)
