"""NaiveBayes event models: scikit-learn's BernoulliNB/MultinomialNB/CategoricalNB, course oracles, smoothing."""

import numpy as np
import pytest
from sklearn.naive_bayes import BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB

from replearn.models.naive_bayes.event_models import NaiveBayes
from replearn.models.naive_bayes.gaussian import GaussianNaiveBayes


def count_data(n=240, d=15, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    rates = rng.gamma(1.0, 1.0, size=(k, d))
    return rng.poisson(rates[y]).astype(float), y


REFERENCES = {"bernoulli": BernoulliNB, "multinomial": MultinomialNB, "categorical": CategoricalNB}


@pytest.mark.parametrize("event_model", ["bernoulli", "multinomial", "categorical"])
@pytest.mark.parametrize("alpha", [1.0, 0.3])
@pytest.mark.parametrize("fit_prior", [True, False])
def test_matches_sklearn(event_model, alpha, fit_prior):
    X, y = count_data()
    ours = NaiveBayes(event_model=event_model, alpha=alpha, fit_prior=fit_prior).fit(X[:200], y[:200])
    ref = REFERENCES[event_model](alpha=alpha, fit_prior=fit_prior).fit(X[:200], y[:200])
    Xt = np.minimum(X[200:], X[:200].max(axis=0))  # CategoricalNB cannot take unseen categories
    np.testing.assert_allclose(ours.predict_log_proba(Xt), ref.predict_log_proba(Xt), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ours.predict_proba(Xt), ref.predict_proba(Xt), atol=1e-12)
    np.testing.assert_array_equal(ours.predict(Xt), ref.predict(Xt))
    np.testing.assert_allclose(ours.class_log_prior_, ref.class_log_prior_, rtol=1e-12)
    if event_model != "categorical":
        np.testing.assert_allclose(ours.feature_log_prob_, ref.feature_log_prob_, rtol=1e-12)


def test_bernoulli_binarize_and_class_prior_match_sklearn():
    X, y = count_data(seed=1)
    ours = NaiveBayes(alpha=0.5, binarize=1.5, class_prior=[0.2, 0.3, 0.5]).fit(X, y)
    ref = BernoulliNB(alpha=0.5, binarize=1.5, class_prior=[0.2, 0.3, 0.5]).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-12)


def test_gaussian_event_model_is_gaussian_naive_bayes():
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(100, 4)), rng.integers(0, 2, size=100)
    ours = NaiveBayes(event_model="gaussian").fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), GaussianNaiveBayes().fit(X, y).predict_proba(X), rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), GaussianNB().fit(X, y).predict_proba(X), atol=1e-10)


def test_waterloo_spam_table_with_and_without_laplace_smoothing():
    """Seed 003 L84-92 (words and, viagra, the, of, nigeria; x' = (1, 1, 0, 0, 0)): Bernoulli NB with Laplace
    (+1/+2) gives P(spam | x') = 9/11; without smoothing the ham class has phi_viagra = 0, so P(spam | x') = 1."""
    X = np.array(
        [[1, 0, 0, 1, 1, 1], [1, 0, 1, 0, 0, 0], [0, 1, 1, 0, 1, 1], [1, 1, 0, 1, 0, 1], [1, 0, 0, 0, 1, 0]],
        dtype=float,
    ).T
    y = np.array([1, 0, 1, 0, 1, 0])
    x_new = np.array([[1, 1, 0, 0, 0]], dtype=float)
    laplace = NaiveBayes(alpha=1.0, binarize=None).fit(X, y)
    assert laplace.predict_proba(x_new)[0, 1] == pytest.approx(9 / 11, rel=1e-12)
    np.testing.assert_allclose(np.exp(laplace.feature_log_prob_[1]), [3 / 5, 3 / 5, 3 / 5, 2 / 5, 3 / 5])
    np.testing.assert_allclose(np.exp(laplace.feature_log_prob_[0]), [3 / 5, 1 / 5, 3 / 5, 4 / 5, 1 / 5])
    mle = NaiveBayes(alpha=0.0, binarize=None).fit(X, y)
    np.testing.assert_array_equal(mle.predict_proba(x_new), [[0.0, 1.0]])


def test_laplace_smoothing_of_an_unseen_outcome():
    """CS229 summaries (seed 002 L1044-1062): 0 wins in 4 games -> MLE 0, Laplace (0 + 1)/(4 + 2) = 1/6."""
    X = np.zeros((4, 1))  # the 'win' feature is 0 in all four games of class 1
    X = np.vstack([X, [[1.0]]])
    y = np.array([1, 1, 1, 1, 0])
    model = NaiveBayes(alpha=1.0).fit(X, y)
    assert np.exp(model.feature_log_prob_[1, 0]) == pytest.approx(1 / 6)
    assert np.exp(NaiveBayes(alpha=0.0).fit(X, y).feature_log_prob_[1, 0]) == 0.0


def test_unseen_word_gives_no_nan_with_smoothing():
    """CS229 L1427-1447: a word never seen in training makes the unsmoothed posterior 0/0."""
    X, y = count_data(seed=3)
    X[:, 0] = 0  # word 0 never occurs in training
    model = NaiveBayes(event_model="multinomial", alpha=1.0).fit(X, y)
    x = X[:3].copy()
    x[:, 0] = 5
    P = model.predict_proba(x)
    assert np.all(np.isfinite(P)) and np.allclose(P.sum(axis=1), 1.0)


def test_bernoulli_decision_rule_is_linear_as_in_ciml():
    """CIML eqs. 9.27-9.28: log-odds = sum_d w_d x_d + b with w_d = log[t1 (1 - t0) / (t0 (1 - t1))] and
    b = sum_d log[(1 - t1)/(1 - t0)] + log[theta0 / (1 - theta0)]."""
    X, y = count_data(k=2, seed=4)
    Xb = (X > 0).astype(float)
    model = NaiveBayes(alpha=1.0).fit(Xb, y)
    t0, t1 = np.exp(model.feature_log_prob_)
    prior1 = np.mean(y == 1)
    w = np.log(t1 * (1 - t0) / (t0 * (1 - t1)))
    b = np.sum(np.log((1 - t1) / (1 - t0))) + np.log(prior1 / (1 - prior1))
    lp = model.predict_log_proba(Xb)
    np.testing.assert_allclose(lp[:, 1] - lp[:, 0], Xb @ w + b, rtol=1e-10, atol=1e-10)


def test_categorical_unseen_category_counts_as_zero():
    X, y = count_data(seed=5)
    model = NaiveBayes(event_model="categorical", alpha=1.0).fit(X, y)
    x = X[:1].copy()
    x[0, 0] = 1000  # above every training code of feature 0
    jll = model._joint_log_likelihood(x)
    base = model._joint_log_likelihood(np.where(np.arange(X.shape[1]) == 0, 0, x))
    V0 = model.n_categories_[0]
    counts0 = np.array([np.sum((y == k) & (X[:, 0] == 0)) for k in range(3)])
    # replacing a seen code 0 by an unseen one changes each class's term from log((N0+1)/(n_k+V)) to log(1/(n_k+V))
    np.testing.assert_allclose((jll - base)[0], -np.log(counts0 + 1.0), rtol=1e-12)
    assert V0 == X[:, 0].max() + 1


def test_input_checks():
    X, y = count_data()
    with pytest.raises(ValueError, match="needs non-negative features"):
        NaiveBayes(event_model="multinomial").fit(X - 1, y)
    with pytest.raises(ValueError, match="integer category codes"):
        NaiveBayes(event_model="categorical").fit(X + 0.5, y)
    with pytest.raises(ValueError, match="binarize=None needs 0/1 features"):
        NaiveBayes(binarize=None).fit(X, y)
    with pytest.raises(ValueError, match="event_model must be one of"):
        NaiveBayes(event_model="poisson").fit(X, y)
    with pytest.raises(ValueError, match="class_prior has 2 entries but y has 3 classes"):
        NaiveBayes(class_prior=[0.5, 0.5]).fit(X, y)


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
def test_class_sums_compiled_and_one_hot_agree(event_model, monkeypatch):
    """The compiled per-class row sums give the one-hot product's estimates (dense and sparse input)."""
    import scipy.sparse as sp

    from replearn.models.naive_bayes import event_models

    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, size=300)
    X = rng.gamma(0.5, 2.0, size=(300, 12)) * (rng.random((300, 12)) < 0.4)  # non-integer counts, many zeros
    Y = np.eye(4)[y]
    expected = Y.T @ (X > 0) if event_model == "bernoulli" else Y.T @ X
    np.testing.assert_allclose(
        event_models._class_sums(X if event_model == "multinomial" else (X > 0) * 1.0, y, 4), expected, rtol=1e-12
    )
    models = [
        NaiveBayes(event_model=event_model).fit(X, y),
        NaiveBayes(event_model=event_model).fit(sp.csr_array(X), y),
    ]
    monkeypatch.setattr(event_models, "jit_available", lambda: False)
    models.append(NaiveBayes(event_model=event_model).fit(X, y))
    for m in models[1:]:
        np.testing.assert_allclose(m.feature_log_prob_, models[0].feature_log_prob_, rtol=1e-12)
        np.testing.assert_allclose(m.predict_proba(X), models[0].predict_proba(X), rtol=1e-10)
    ref = (MultinomialNB() if event_model == "multinomial" else BernoulliNB()).fit(X, y)
    np.testing.assert_allclose(models[0].feature_log_prob_, ref.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(models[0].predict_proba(X), ref.predict_proba(X), rtol=1e-9, atol=1e-12)
