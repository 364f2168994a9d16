"""Domain adaptation (CIML ch. 8: Alg. 23, Alg. 24, d_A) and PU learning (CS229 PS1 Q2)."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from replearn.adaptation import (
    EasyAdapt,
    PULearning,
    SelectionAdaptation,
    adaptation_bound,
    domain_discrepancy,
    easy_adapt,
    importance_weights,
    total_variation_distance,
)
from replearn.models import create


def shifted(seed=0, n=300):
    """Covariate shift: the same quadratic labelling, inputs centred at -1 (old) and +1.5 (new)."""
    rng = np.random.default_rng(seed)

    def draw(mu):
        X = rng.normal(mu, 1.0, size=(n, 2))
        return X, (X[:, 0] + 0.5 * X[:, 0] ** 2 - X[:, 1] > 0.5).astype(int)

    return draw([-1.0, 0.0]), draw([1.5, 0.5])


def test_easy_adapt_maps_old_and_new_as_eqs_8_14_and_8_15():
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(easy_adapt(X, "old"), [[1, 2, 1, 2, 0, 0], [3, 4, 3, 4, 0, 0]])
    np.testing.assert_array_equal(easy_adapt(X, "new"), [[1, 2, 0, 0, 1, 2], [3, 4, 0, 0, 3, 4]])
    np.testing.assert_array_equal(easy_adapt(X, [0, 1]), [[1, 2, 1, 2, 0, 0], [3, 4, 0, 0, 3, 4]])
    with pytest.raises(ValueError, match="domain must be"):
        easy_adapt(X, [0, 2])


def test_easy_adapt_learns_a_feature_that_flips_between_domains():
    rng = np.random.default_rng(1)
    Xo, Xn = rng.normal(size=(400, 2)), rng.normal(size=(60, 2))
    yo = (Xo[:, 0] + Xo[:, 1] > 0).astype(int)  # "small" is good for electronics...
    yn = (Xn[:, 0] - Xn[:, 1] > 0).astype(int)  # ...and bad for hotels (CIML L2788)
    Xt = rng.normal(size=(400, 2))
    yt = (Xt[:, 0] - Xt[:, 1] > 0).astype(int)
    acc = {
        m: EasyAdapt(mode=m, random_state=0).fit(Xo, yo, Xn, yn).score(Xt, yt)
        for m in ("easyadapt", "old_only", "new_only", "union")
    }
    assert acc["old_only"] < 0.75 and acc["union"] < 0.85
    assert acc["easyadapt"] > 0.9
    model = EasyAdapt().fit(Xo, yo, Xn, yn)
    assert model.estimator_.n_features_in_ == 6 and model.n_features_in_ == 2


def test_selection_weights_are_one_over_p_minus_one():
    (Xo, _), (Xn, _) = shifted()
    w, _ = importance_weights(Xo, Xn, selector_params={"C": 1.0, "tol": 1e-12})
    ref = SkLogisticRegression(C=1.0, tol=1e-12, solver="newton-cholesky").fit(
        np.vstack([Xo, Xn]), np.r_[np.ones(len(Xo)), np.zeros(len(Xn))]
    )
    p = ref.predict_proba(Xo)[:, 1]
    np.testing.assert_allclose(w, 1 / p - 1, rtol=1e-5)
    assert np.all(w > 0)


@pytest.mark.parametrize(
    "estimator, params, method",
    [("logistic_regression", None, "resample"), ("decision_tree", {"max_depth": 3}, "sample_weight")],
)
def test_selection_adaptation_helps_under_covariate_shift(estimator, params, method):
    (Xo, yo), (Xn, yn) = shifted()
    plain = create(estimator, **(params or {})).fit(Xo, yo).score(Xn, yn)
    model = SelectionAdaptation(estimator=estimator, estimator_params=params, random_state=0).fit(Xo, yo, Xn)
    assert model.weighting_ == method
    assert model.weights_.mean() == pytest.approx(1.0)
    assert model.score(Xn, yn) > plain + 0.03


def test_discrepancy_separates_far_and_identical_domains():
    (Xo, _), (Xn, _) = shifted()
    far = domain_discrepancy(Xo, Xn, random_state=0)
    same = domain_discrepancy(Xo[:150], Xo[150:], random_state=0)
    assert far.d_A == pytest.approx(2 * (far.accuracy - 0.5))
    assert far.d_A > 0.7 and abs(same.d_A) < 0.2
    assert far.n_test == 2 * round(0.3 * 300)
    assert adaptation_bound(0.1, 0.05, far.d_A) == pytest.approx(0.15 + far.d_A)  # Thm. 9
    assert total_variation_distance([0.5, 0.5, 0.0], [0.0, 0.5, 0.5]) == 0.5  # eq. 8.24


def pu_data(seed=0, n=3000, c=0.5):
    rng = np.random.default_rng(seed)
    t = rng.random(n) < 0.4
    X = rng.normal(size=(n, 2)) + np.where(t[:, None], 3.0, -3.0)
    labelled = t & (rng.random(n) < c)  # labelled uniformly at random among the positives
    return X, t.astype(int), labelled.astype(int)


def test_pu_learning_estimates_alpha_and_corrects_the_threshold():
    X, t, y = pu_data()
    model = PULearning(random_state=0).fit(X, y)
    assert model.alpha_ == pytest.approx(0.5, abs=0.05)  # alpha = p(y = 1 | t = 1) = c
    naive = (model.predict_labelled_proba(X) >= 0.5).astype(int)
    assert np.mean(naive == t) < 0.85
    assert np.mean(model.predict(X) == t) > 0.97
    # for logistic regression the correction is the intercept shift ln(2/alpha - 1) (seed 002 L2550-2562)
    h = model.predict_labelled_proba(X)
    np.testing.assert_allclose(
        model.decision_function(X),
        model.estimator_.decision_function(X) + np.log(2 / model.alpha_ - 1),
        rtol=1e-6,
        atol=1e-6,
    )
    np.testing.assert_array_equal(model.decision_function(X) > 0, h / model.alpha_ > 0.5)
    np.testing.assert_allclose(model.predict_proba(X)[:, 1], np.minimum(1, h / model.alpha_))


def test_errors():
    X, _, y = pu_data(n=100)
    with pytest.raises(ValueError, match="y must be 1 .labelled positive. or 0"):
        PULearning().fit(X, y + 1)
    with pytest.raises(ValueError, match="Z_new has 3 features, X_old has 2"):
        importance_weights(X, np.zeros((4, 3)))
    with pytest.raises(ValueError, match="mode must be one of"):
        EasyAdapt(mode="both").fit(X, y, X, y)
    with pytest.raises(ValueError, match="probability vector"):
        total_variation_distance([0.5, 0.6], [0.5, 0.5])
