"""VC dimension by brute-force shattering, and CIML's conjunction learner (Alg. 31)."""

import numpy as np
import pytest

from replearn.theory import (
    ConjunctionLearner,
    realizable,
    shatters,
    vc_dimension,
    vc_search,
)


@pytest.mark.parametrize("name, expected", [("thresholds", 1), ("intervals", 2), ("halfplanes", 3), ("rectangles", 4)])
def test_vc_dimension_found_by_search(name, expected):
    result = vc_search(name)
    assert result.dimension == expected == vc_dimension(name)
    assert shatters(name, result.witness)
    assert result.n_candidates[expected + 1] > 10  # every candidate of the next size was tried and failed


def test_cs229_and_ciml_pictures():
    triangle = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert shatters("halfplanes", triangle)  # all 8 labelings (CS229 L3813)
    collinear = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    assert not shatters("halfplanes", collinear)  # L3819: three points on a line
    assert not realizable("halfplanes", collinear, [1, 0, 1])
    square = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    assert not realizable("halfplanes", square, [1, 1, 0, 0])  # XOR labelling (CIML Fig. 12.2)
    diamond = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    assert shatters("rectangles", diamond) and not shatters("rectangles", square)


def test_realizability_rules_in_1d():
    x = [0.0, 1.0, 2.0]
    assert realizable("thresholds", x, [0, 1, 1]) and not realizable("thresholds", x, [1, 0, 0])
    assert realizable("intervals", x, [0, 1, 0]) and not realizable("intervals", x, [1, 0, 1])
    with pytest.raises(ValueError, match="act on 2-D points"):
        shatters("halfplanes", [[0.0], [1.0]])
    with pytest.raises(ValueError, match="unknown hypothesis class 'circles'"):
        vc_dimension("circles")


def test_conjunction_trace_of_table_12_1():
    X = np.array([[0, 0, 1, 1], [0, 1, 1, 1], [1, 1, 0, 1]])
    y = np.array([1, 1, -1])
    model = ConjunctionLearner().fit(X, y)
    assert model.formula(0) == "x1 ∧ ¬x1 ∧ x2 ∧ ¬x2 ∧ x3 ∧ ¬x3 ∧ x4 ∧ ¬x4"  # eq. 12.3
    assert model.formula(1) == "¬x1 ∧ ¬x2 ∧ x3 ∧ x4"  # eq. 12.4
    assert model.formula(2) == model.formula(3) == model.formula() == "¬x1 ∧ x3 ∧ x4"  # eqs. 12.5-12.6
    np.testing.assert_array_equal(model.predict(X), y)


def test_conjunction_never_errs_on_the_negative_side():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(400, 8)).astype(float)
    concept = (X[:, 0] == 1) & (X[:, 3] == 0)
    model = ConjunctionLearner().fit(X[:100], concept[:100].astype(int))
    pred = model.predict(X[100:]).astype(bool)
    assert not np.any(pred & ~concept[100:])  # only positives can be missed (L4049)
    assert np.mean(pred == concept[100:]) > 0.9
    with pytest.raises(ValueError, match="binary"):
        ConjunctionLearner().fit(X + 0.5, concept)
