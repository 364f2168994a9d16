"""Guard the class of records, not the instances: every record of every preset fails under a planted error.

A record that a wrong model also "reproduces" checks nothing. For each preset, :data:`PLANTS` lists
plausible wrong models -- one that ignores the data (shuffled labels), a wrong sign, a wrong step
size, a wrong bandwidth, a missing smoothing term -- planted by monkeypatching what the preset
calls (its ``models`` module, one of its helpers, or a helper inside a model); the production code
has no hooks for it. Each preset is run (``quick=True``, seed 0) once clean and once per plant.

The records are enumerated from the clean run's output, so a new record that no plant makes fail
fails :func:`test_every_record_fails_under_some_planted_error` -- there is no list of exceptions.
Every plant must also fail at least one record and leave the preset runnable (a crash is not a
failed record).
"""

from __future__ import annotations

import importlib
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType, SimpleNamespace

import numpy as np
import pytest
from scipy.optimize import linprog

from replearn import models as real_models
from replearn import rl as rl_package
from replearn.evaluation import precision, recall
from replearn.models.cluster import kmeans as kmeans_module
from replearn.models.neural.activations import Tanh
from replearn.models.neural.conv import Conv2D
from replearn.models.perceptron import perceptron as perceptron_module
from replearn.reproductions import EXPERIMENTS, run_experiment
from replearn.reproductions import bias_variance as bias_variance_module
from replearn.reproductions import ciml_examples as ciml_examples_module
from replearn.reproductions import ciml_figures as ciml_figures_module
from replearn.reproductions import cs229_control as cs229_control_module
from replearn.reproductions import cs229_examples as cs229_examples_module
from replearn.reproductions import cs229_figures as cs229_figures_module
from replearn.reproductions import cs480_examples as cs480_examples_module
from replearn.reproductions import epfl_examples as epfl_examples_module
from replearn.rl import FiniteMDP, SoftmaxPolicy
from replearn.theory import vc as vc_module

policy_gradient_module = importlib.import_module("replearn.rl.policy_gradient")

SEED = 0


def _preset_module(name: str) -> ModuleType:
    import importlib

    return importlib.import_module(f"replearn.reproductions.{name}")


# ---------------------------------------------------------------------------------------------
# planting helpers


def _shuffled(X, y):
    """Ignore the data: the labels / targets in a random order (fixed seed)."""
    return X, np.random.default_rng(12345).permutation(np.asarray(y))


def _negate_coef(model):
    model.coef_ = -np.asarray(model.coef_)
    model.intercept_ = -np.asarray(model.intercept_)


def _negate_predictions(model):
    predict = model.predict
    model.predict = lambda X: -np.asarray(predict(X))


def wrong_model(
    model: str,
    *,
    when: Callable[[dict], bool] = lambda params: True,
    params: Callable[[dict], dict] | None = None,
    replace_with: str | None = None,
    data: Callable | None = None,
    after: Callable | None = None,
) -> Callable[[pytest.MonkeyPatch, ModuleType], None]:
    """A plant: the preset's ``models.create(model, **p)`` (when ``when(p)``) builds a wrong model.

    ``params`` rewrites the hyperparameters, ``replace_with`` builds another model instead,
    ``data`` rewrites ``(X, y)`` before ``fit``, ``after`` corrupts the fitted model.
    """

    def apply(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
        class Shim:
            def __getattr__(self, attr):
                return getattr(real_models, attr)

            def create(self, name, **p):
                if name != model or not when(p):
                    return real_models.create(name, **p)
                p = params(dict(p)) if params else p
                m = real_models.create(replace_with or name, **p)
                fit = m.fit

                def planted_fit(X, y=None):
                    X2, y2 = data(X, y) if data else (X, y)
                    fit(X2) if y2 is None else fit(X2, y2)
                    if after:
                        after(m)
                    return m

                m.fit = planted_fit
                return m

        monkeypatch.setattr(module, "models", Shim())

    return apply


def patch(target: object, attr: str, make: Callable[[Callable], Callable]):
    """A plant that replaces ``target.attr`` by ``make(original)``."""

    def apply(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
        monkeypatch.setattr(target, attr, make(getattr(target, attr)))

    return apply


def patch_item(mapping: dict, key, value):
    """A plant that replaces ``mapping[key]`` by ``value``."""

    def apply(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
        monkeypatch.setitem(mapping, key, value)

    return apply


def _with(**changes) -> Callable[[dict], dict]:
    return lambda p: {**p, **changes}


def _scaled(key: str, factor: float) -> Callable[[dict], dict]:
    return lambda p: {**p, key: p[key] * factor}


def _solver(name: str) -> Callable[[dict], bool]:
    return lambda p: p.get("solver") == name


@dataclass(frozen=True)
class Plant:
    what: str
    apply: Callable[[pytest.MonkeyPatch, ModuleType], None]


def _poly_without_linear_term(original):
    return lambda x, degree: original(x, degree + 1)[:, 1:]  # x^2 .. x^(k+1): the powers start one too high


def _means_of_random_clusters(original):
    rng = np.random.default_rng(0)
    return lambda X, labels, k: original(X, rng.permutation(labels), k)


def _noisy_assignment(original):
    """The assignment step sends a random 5% of the points to a random centre."""
    rng = np.random.default_rng(0)

    def assign(X, centers, **kw):
        out = original(X, centers, **kw)
        labels = (out[0] if isinstance(out, tuple) else out).copy()
        moved = rng.random(len(labels)) < 0.05
        labels[moved] = rng.integers(0, len(centers), int(moved.sum()))
        return (labels, out[1]) if isinstance(out, tuple) else labels

    return assign


def _labels_ignored(original):
    rng = np.random.default_rng(0)

    def binary_pass(X, s, order, *rest):
        return original(X, np.ascontiguousarray(rng.choice([-1.0, 1.0], size=len(s))), order, *rest)

    return binary_pass


def _reverse_weights(model):
    model.weights_ = np.asarray(model.weights_)[::-1].copy()


# --- helpers of the plants of the catalogue presets ----------------------------------------------------------


def _homogeneous_halfplanes(x, y):
    """Half-planes through the origin only (theta_0 = 0): VC dimension 2, not 3."""
    if y.all() or not y.any():
        return True
    s = np.where(y, 1.0, -1.0)
    res = linprog(np.zeros(2), A_ub=-s[:, None] * x, b_ub=-np.ones(len(x)), bounds=[(None, None)] * 2, method="highs")
    return res.status == 0


HALFPLANES_THROUGH_ORIGIN = patch_item(vc_module.HYPOTHESIS_CLASSES, "halfplanes", (2, _homogeneous_halfplanes))
EVERY_LABELLING_REALIZABLE = patch_item(vc_module.HYPOTHESIS_CLASSES, "halfplanes", (2, lambda x, y: True))


def _transposed_input(original):
    return lambda f, A: original(f, np.asarray(A).T)


def _kernel_coef0(value=None, factor=None):
    def make(original):
        def kernel(X, Z=None, **kw):
            kw = dict(kw)
            kw["coef0"] = value if value is not None else kw.get("coef0", 1.0) * factor
            return original(X, Z, **kw)

        return kernel

    return make


def _policy_iteration_wrong_gamma(original):
    def solve(mdp, **kw):
        P = np.asarray(
            mdp.transitions_flat.toarray() if hasattr(mdp.transitions_flat, "toarray") else mdp.transitions_flat
        )
        return original(FiniteMDP(P.reshape(mdp.n_states, mdp.n_actions, mdp.n_states), mdp.rewards, 0.95), **kw)

    return solve


def _lqr_with(transform):
    def make(original):
        def solve(A, B, Q, R, horizon=None, **kw):
            A, B, Q, R, kw = transform(A, B, Q, R, dict(kw))
            return original(A, B, Q, R, horizon, **kw)

        return solve

    return make


def _squared_distances(model):
    kneighbors = model.kneighbors

    def squared(X):
        d, i = kneighbors(X)
        return d**2, i

    model.kneighbors = squared


def _arithmetic_mean_f(original):
    return lambda y_true, y_pred, **kw: 0.5 * (precision(y_true, y_pred, **kw) + recall(y_true, y_pred, **kw))


def _pooled_fold_scores(original):
    def pooled(folds):
        yt = np.concatenate([f[0] for f in folds])
        yp = np.concatenate([f[1] for f in folds])
        return np.repeat(original([(yt, yp)]), len(folds))

    return pooled


def _flipped_features_learner(original):
    class Flipped(original):
        def fit(self, X, y):
            return super().fit(1 - np.asarray(X), y)

    return Flipped


def _negated_viterbi(original):
    def argmin(unary, transition, **kw):
        out = original(-np.asarray(unary), -np.asarray(transition), **kw)
        if kw.get("return_tables"):
            labels, score, alpha, zeta = out
            return labels, -score, -alpha, zeta
        labels, score = out
        return labels, -score

    return argmin


def _reward_to_go_shifted(original):
    def estimate(tr, policy, theta, **kw):
        later = np.zeros_like(tr.rewards)
        later[:, :-1] = tr.rewards[:, 1:]
        return original(type(tr)(tr.observations, tr.actions, later, tr.mask), policy, theta, **kw)

    return estimate


def _mislabelled(count):
    def data(X, y):
        y = np.array(y, copy=True)
        y[np.flatnonzero(y < 0)[:count]] = 1  # the first `count` negatives labelled positive
        return X, y

    return data


def _half_samples(original):
    return lambda n, repeats, seed: [SimpleNamespace(test=np.arange(n // 2, n)) for _ in range(repeats)]


def _first_half_bootstrap(original):
    def splits(n, repeats, seed):
        return [SimpleNamespace(train=s.train[: n // 2], test=s.test) for s in original(n, repeats=repeats, seed=seed)]

    return splits


PLANTS: dict[str, list[Plant]] = {
    "cs229_housing": [
        Plant(
            "normal equations on shuffled prices",
            wrong_model("linear_regression", when=_solver("normal"), data=_shuffled),
        ),
        Plant(
            "batch GD with a 1000x smaller step",
            wrong_model("linear_regression", when=_solver("gd"), params=_scaled("learning_rate", 1e-3)),
        ),
        Plant(
            "SGD with a 100x smaller step",
            wrong_model("linear_regression", when=_solver("sgd"), params=_scaled("learning_rate", 1e-2)),
        ),
        Plant(
            "SGD with a constant step (no decay)",
            wrong_model("linear_regression", when=_solver("sgd"), params=_with(schedule="constant")),
        ),
    ],
    "cs229_logistic": [
        Plant(
            "Newton on an L2-penalized objective",
            wrong_model("logistic_regression", when=_solver("newton"), params=_with(penalty="l2")),
        ),
        Plant(
            "gradient ascent with a 100x smaller step",
            wrong_model("logistic_regression", when=_solver("gd"), params=_scaled("learning_rate", 1e-2)),
        ),
        Plant(
            "Newton's method replaced by first-order steps",
            wrong_model("logistic_regression", when=_solver("newton"), params=_with(solver="gd", learning_rate=1.0)),
        ),
        Plant("wrong sign of theta", wrong_model("logistic_regression", after=_negate_coef)),
    ],
    "cs229_lwr": [
        Plant(
            "bandwidth used as a precision (tau -> 1/tau)",
            wrong_model("lwr", params=lambda p: {**p, "tau": 1.0 / p["tau"]}),
        ),
        Plant("OLS on shuffled targets", wrong_model("linear_regression", data=_shuffled)),
    ],
    "cs229_spam": [
        Plant("naive Bayes on shuffled labels", wrong_model("naive_bayes", data=_shuffled)),
        Plant("no Laplace smoothing (alpha = 0)", wrong_model("naive_bayes", params=_with(alpha=0.0))),
    ],
    "ciml_course_ratings": [
        Plant("tree predictions of the wrong sign", wrong_model("decision_tree", after=_negate_predictions)),
        Plant("tree on shuffled labels", wrong_model("decision_tree", data=_shuffled)),
    ],
    "bias_variance": [
        Plant("least squares on shuffled targets", wrong_model("linear_regression", data=_shuffled)),
        Plant("polynomial features start at x^2", patch(bias_variance_module, "_poly", _poly_without_linear_term)),
        Plant("wrong sign of the fit", wrong_model("linear_regression", after=_negate_coef)),
    ],
    "double_descent": [
        Plant(
            "min-norm least squares replaced by ridge (alpha = 100)",
            wrong_model(
                "linear_regression", replace_with="ridge", params=lambda p: {"alpha": 100.0, "fit_intercept": False}
            ),
        ),
        Plant("ridge lambda grid 1e6x too small", wrong_model("ridge", params=_scaled("alpha", 1e-6))),
    ],
    "learning_curves": [
        Plant("trees predict with the wrong sign", wrong_model("decision_tree", after=_negate_predictions)),
        Plant("logistic regression on shuffled labels", wrong_model("logistic_regression", data=_shuffled)),
        Plant(
            "the high-bias learner is a full tree",
            wrong_model("logistic_regression", replace_with="decision_tree", params=lambda p: {}),
        ),
    ],
    "perceptron_epochs": [
        Plant("perceptron updates ignore the labels", patch(perceptron_module, "binary_pass", _labels_ignored)),
        Plant("averaged/voted perceptron on shuffled labels", wrong_model("averaged_perceptron", data=_shuffled)),
        Plant("voted perceptron on shuffled labels", wrong_model("voted_perceptron", data=_shuffled)),
    ],
    "cs229_examples": [
        Plant(
            "matrix given transposed to autodiff", patch(cs229_examples_module, "_autodiff_gradient", _transposed_input)
        ),
        Plant("GDA with equal class priors (phi ignored)", wrong_model("gda", params=_with(priors=[0.5, 0.5]))),
        Plant(
            "four bins instead of five",
            patch(cs229_examples_module, "Binning", lambda c: lambda n_bins=5, **kw: c(n_bins=n_bins - 1, **kw)),
        ),
        Plant(
            "polynomial kernel with coef0 left at 1",
            patch(cs229_examples_module, "polynomial_kernel", _kernel_coef0(1.0)),
        ),
        Plant(
            "interaction-only monomials",
            patch(
                cs229_examples_module,
                "PolynomialFeatures",
                lambda c: (
                    lambda degree=2, include_bias=False, **kw: c(
                        degree=degree, interaction_only=True, include_bias=include_bias
                    )
                ),
            ),
        ),
        Plant(
            "Hoeffding bound with gamma not squared",
            patch(
                cs229_examples_module,
                "hoeffding_bound",
                lambda f: lambda n, gamma, k=1: 2 * k * math.exp(-2 * gamma * n),
            ),
        ),
        Plant(
            "coin simulation with a quarter of the tosses",
            patch(
                cs229_examples_module,
                "hoeffding_simulation",
                lambda f: lambda **kw: f(**{**kw, "n": np.maximum(1, np.asarray(kw["n"]) // 4)}),
            ),
        ),
        Plant(
            "sample size without the union bound (k = 1)",
            patch(cs229_examples_module, "hoeffding_sample_size", lambda f: lambda e, d, k=1: f(e, d, 1)),
        ),
        Plant("half-planes through the origin", HALFPLANES_THROUGH_ORIGIN),
        Plant("every labelling declared realizable", EVERY_LABELLING_REALIZABLE),
        Plant(
            "ICA replaced by PCA (whitening only)",
            wrong_model("ica", replace_with="pca", params=lambda p: {"n_components": 2}),
        ),
        Plant(
            "signals mixed with W = A^-1 instead of A",
            patch(cs229_examples_module, "_mix", lambda f: lambda S, A: f(S, np.linalg.inv(np.atleast_2d(A)))),
        ),
        Plant(
            "density p_s(Wx) without |det W|",
            patch(
                cs229_examples_module,
                "_density_of_x",
                lambda f: lambda p_s, W, x: p_s(np.atleast_2d(x) @ np.atleast_2d(W).T),
            ),
        ),
        Plant(
            "add-one/2 (Jeffreys) smoothing for Laplace",
            wrong_model("naive_bayes", when=lambda p: p.get("alpha") == 1.0, params=_with(alpha=0.5)),
        ),
        Plant("smoothing always on (MLE = Laplace)", wrong_model("naive_bayes", params=_with(alpha=1.0))),
        Plant(
            "impurity in counts, not proportions",
            patch(
                cs229_examples_module,
                "impurity",
                lambda f: lambda counts, criterion: cs229_examples_module.cost(counts, counts.sum(axis=0), criterion),
            ),
        ),
        Plant("bootstrap samples of size n/2", patch(cs229_examples_module, "bootstrap_splits", _first_half_bootstrap)),
        Plant(
            "AdaBoost alpha twice CIML's",
            wrong_model("adaboost", after=lambda m: setattr(m, "estimator_weights_", 2 * m.estimator_weights_)),
        ),
    ],
    "cs229_control": [
        Plant(
            "4x3 world with living reward -0.1",
            patch(
                cs229_control_module, "russell_norvig_4x3", lambda f: lambda **kw: f(**{**kw, "living_reward": -0.1})
            ),
        ),
        Plant("V* from the MDP with gamma 0.95", patch(rl_package, "policy_iteration", _policy_iteration_wrong_gamma)),
        Plant(
            "control cost counted twice (2R)",
            patch(cs229_control_module, "lqr", _lqr_with(lambda A, B, Q, R, kw: (A, B, Q, 2 * R, kw))),
        ),
        Plant(
            "noise covariance added to the state cost",
            patch(
                cs229_control_module,
                "lqr",
                _lqr_with(
                    lambda A, B, Q, R, kw: (A, B, Q + kw["noise_cov"] if kw.get("noise_cov") is not None else Q, R, kw)
                ),
            ),
        ),
        Plant(
            "noise drawn with covariance Sigma^2",
            patch(
                cs229_control_module,
                "_noise",
                lambda f: lambda rng, cov, size: f(rng, np.asarray(cov) @ np.asarray(cov), size),
            ),
        ),
        Plant(
            "process noise counted twice in the filter",
            patch(
                cs229_control_module,
                "kalman_filter",
                lambda f: lambda Y, A, C, Q, R, m, P, **kw: f(Y, A, C, 2 * Q, R, m, P, **kw),
            ),
        ),
        Plant(
            "baseline ignored",
            patch(policy_gradient_module, "_baseline_values", lambda f: lambda baseline, *a: f(None, *a)),
        ),
        Plant(
            "score with the wrong sign",
            patch(SoftmaxPolicy, "grad_log_prob", lambda f: lambda self, *a: -f(self, *a)),
        ),
        Plant(
            "reward to go from t + 1 (r_t left out)",
            patch(cs229_control_module, "policy_gradient", _reward_to_go_shifted),
        ),
        Plant(
            "score of the uniform policy (theta ignored)",
            patch(SoftmaxPolicy, "grad_log_prob", lambda f: lambda self, theta, *a: f(self, np.zeros_like(theta), *a)),
        ),
    ],
    "cs229_figures": [
        Plant(
            "min-norm least squares replaced by ridge (alpha = 1)",
            wrong_model(
                "linear_regression",
                when=_solver("lstsq"),
                replace_with="ridge",
                params=lambda p: {"alpha": 1.0, "fit_intercept": False},
            ),
        ),
        Plant("linear features (no ReLU)", patch(cs229_figures_module, "_features", lambda f: lambda X, W: X @ W.T)),
        Plant(
            "gradient descent stopped after 20 steps",
            wrong_model("linear_regression", when=_solver("gd"), params=_with(max_iter=20)),
        ),
        Plant(
            "gradient descent ignores the initialization",
            patch(
                cs229_figures_module,
                "_gd_from",
                lambda f: lambda X, y, th0, lr, it: f(X, y, np.zeros_like(th0), lr, it),
            ),
        ),
        Plant(
            "gradient descent from theta_0 stopped after 50 steps",
            patch(cs229_figures_module, "_gd_from", lambda f: lambda X, y, th0, lr, it: f(X, y, th0, lr, 50)),
        ),
        Plant("soft margin (C = 0.05) for the hard-margin SVM", wrong_model("svm", params=_with(C=0.05))),
    ],
    "ciml_examples": [
        Plant("squared distances", wrong_model("knn", after=_squared_distances)),
        Plant("perceptron without the bias update", wrong_model("perceptron", params=_with(fit_intercept=False))),
        Plant(
            "conjunctions computed as disjunctions",
            patch(
                ciml_examples_module,
                "_review_features",
                lambda f: (
                    lambda rows, conj: (
                        np.c_[rows, np.maximum(rows[:, 0], rows[:, 2]), np.maximum(rows[:, 1], rows[:, 2])]
                        if conj
                        else rows
                    )
                ),
            ),
        ),
        Plant("perceptron updates ignore the labels", patch(perceptron_module, "binary_pass", _labels_ignored)),
        Plant(
            "the conjunctions also given to the base model",
            patch(ciml_examples_module, "_review_features", lambda f: lambda rows, conj: f(rows, True)),
        ),
        Plant(
            "a perfect match to the labels only (not their negation)",
            patch(ciml_examples_module, "_perfect_match", lambda f: lambda codes, labels, n: codes == labels),
        ),
        Plant("F as the arithmetic mean of P and R", patch(ciml_examples_module, "f1", _arithmetic_mean_f)),
        Plant("F pooled over the folds", patch(ciml_examples_module, "_fold_scores", _pooled_fold_scores)),
        Plant(
            "two-sided critical values",
            patch(ciml_examples_module, "_critical_value", lambda f: lambda level: f((1 + level) / 2)),
        ),
        Plant("subsampling negatives with alpha = 10", wrong_model("imbalanced", params=_with(alpha=10.0))),
        Plant("squared hinge", patch(ciml_examples_module, "margin_loss", lambda f: lambda loss, z: f(loss, z) ** 2)),
        Plant("Laplace-smoothed coin", wrong_model("naive_bayes", params=_with(alpha=1.0))),
        Plant("stump trained on negated labels", wrong_model("decision_tree", data=lambda X, y: (X, -np.asarray(y)))),
        Plant(
            "conjunction learner on negated features",
            patch(ciml_examples_module, "ConjunctionLearner", _flipped_features_learner),
        ),
        Plant("half-planes through the origin", HALFPLANES_THROUGH_ORIGIN),
        Plant("every labelling declared realizable", EVERY_LABELLING_REALIZABLE),
        Plant("half-samples without replacement", patch(ciml_examples_module, "_bootstrap_samples", _half_samples)),
        Plant("five negatives labelled positive", wrong_model("adaboost", data=_mislabelled(5))),
        Plant(
            "subgradient steps with eta = 0.5",
            patch(ciml_examples_module, "_subgradient_step", lambda f: lambda w, g, eta=1.0: f(w, g, 0.5)),
        ),
        Plant("no truncation", patch(ciml_examples_module, "soft_threshold", lambda f: lambda v, a: v - a)),
        Plant("Viterbi minimizes the score", patch(ciml_examples_module, "viterbi", _negated_viterbi)),
        Plant(
            "matches counted instead of mistakes",
            patch(ciml_examples_module, "hamming_best", lambda f: lambda y, prefix: len(y) - f(y, prefix)),
        ),
        Plant(
            "expert repeats the last predicted label",
            patch(ciml_examples_module, "sequence_expert", lambda f: lambda y, prefix, labels: prefix[-1]),
        ),
    ],
    "ciml_figures": [
        Plant(
            "Gaussian points instead of uniform",
            patch(ciml_figures_module, "_uniform_points", lambda f: lambda rng, n, d: rng.standard_normal((n, d))),
        ),
        Plant("the fixed-order perceptron permutes", wrong_model("perceptron", params=_with(shuffle=True))),
        Plant(
            "zero initialization ignored",
            patch(ciml_figures_module, "_init_weights", lambda f: lambda rng, shape, kind: f(rng, shape, "uniform")),
        ),
        Plant(
            "every network initialized at zero",
            patch(ciml_figures_module, "_init_weights", lambda f: lambda rng, shape, kind: f(rng, shape, "zeros")),
        ),
        Plant(
            "depth-3 trees boosted instead of stumps",
            wrong_model(
                "adaboost",
                when=lambda p: (p.get("estimator_params") or {}).get("max_depth") == 1,
                params=_with(estimator_params={"max_depth": 3}),
            ),
        ),
        Plant("one boosting round", wrong_model("adaboost", params=_with(n_estimators=1))),
    ],
    "cs480_examples": [
        Plant(
            "add-one/2 smoothing for Laplace",
            wrong_model("naive_bayes", when=lambda p: p.get("alpha") == 1.0, params=_with(alpha=0.5)),
        ),
        Plant("smoothing always on", wrong_model("naive_bayes", params=_with(alpha=1.0))),
        Plant("perceptron updates ignore the labels", patch(perceptron_module, "binary_pass", _labels_ignored)),
        Plant("examples visited in reverse order", wrong_model("perceptron", data=lambda X, y: (X[::-1], y[::-1]))),
        Plant("interpolation with an intercept", wrong_model("linear_regression", params=_with(fit_intercept=True))),
        Plant(
            "ridge (alpha = 1e-3) instead of the interpolant",
            wrong_model(
                "linear_regression", replace_with="ridge", params=lambda p: {"alpha": 1e-3, "fit_intercept": False}
            ),
        ),
        Plant(
            "polynomial kernel with coef0 left at 1",
            patch(cs480_examples_module, "polynomial_kernel", _kernel_coef0(1.0)),
        ),
        Plant(
            "polynomial kernel with coef0 doubled",
            patch(cs480_examples_module, "polynomial_kernel", _kernel_coef0(factor=2.0)),
        ),
        Plant(
            "tanh hidden units instead of ReLU",
            patch(cs480_examples_module, "_hidden_activation", lambda f: lambda: Tanh()),
        ),
        Plant(
            "'same' padding",
            patch(cs480_examples_module, "_conv_layer", lambda f: lambda: Conv2D(1, kernel_size=3, padding=1)),
        ),
        Plant(
            "S used as its own square root",
            patch(
                cs480_examples_module,
                "_cholesky_sample",
                lambda f: lambda rng, mu, S, n: rng.standard_normal((n, len(mu))) @ S.T + mu,
            ),
        ),
        Plant(
            "the mean left out",
            patch(
                cs480_examples_module,
                "_cholesky_sample",
                lambda f: lambda rng, mu, S, n: f(rng, np.zeros_like(mu), S, n),
            ),
        ),
    ],
    "epfl_examples": [
        Plant(
            "gradient summed, not averaged (x N)",
            patch(epfl_examples_module, "_mse", lambda f: lambda w: (lambda v, g: (v, 4 * g))(*f(w))),
        ),
        Plant(
            "step on the other coordinate",
            patch(epfl_examples_module, "_coordinate_step", lambda f: lambda X, y, a, w, n, C: f(X, y, a, w, 1 - n, C)),
        ),
        Plant(
            "one-sided bound (log(K/delta))",
            patch(epfl_examples_module, "test_set_bound", lambda f: lambda n, d, k=1, **kw: f(n, 2 * d, k, **kw)),
        ),
        Plant(
            "polynomial kernel with coef0 left at 1",
            patch(epfl_examples_module, "polynomial_kernel", _kernel_coef0(1.0)),
        ),
        Plant(
            "feature map of the squares only", patch(epfl_examples_module, "_quadratic_map", lambda f: lambda x: x**2)
        ),
    ],
    "kmeans_em": [
        Plant(
            "k-means update ignores the assignment", patch(kmeans_module, "cluster_means", _means_of_random_clusters)
        ),
        Plant("k-means assignment step 5% random", patch(kmeans_module, "assign", _noisy_assignment)),
        Plant("GMM weights in the wrong order", wrong_model("gmm", after=_reverse_weights)),
        Plant("EM stopped after 3 steps", wrong_model("gmm", params=_with(max_iter=3))),
    ],
}


# ---------------------------------------------------------------------------------------------


def _reproduced(result) -> dict[str, bool]:
    quantities = [r.quantity for r in result.records]
    assert len(set(quantities)) == len(quantities), f"{result.preset}: duplicate record quantities"
    return {r.quantity: r.reproduced for r in result.records}


_CACHE: dict[tuple[str, str], dict[str, bool]] = {}


def _planted(name: str, plant: Plant, data_dir) -> dict[str, bool]:
    key = (name, plant.what)
    if key not in _CACHE:
        with pytest.MonkeyPatch.context() as mp, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a wrong model may overflow or fail to converge
            plant.apply(mp, _preset_module(name))
            _CACHE[key] = _reproduced(run_experiment(name, data_dir, seed=SEED, quick=True))
    return _CACHE[key]


def test_every_preset_has_plants():
    assert set(PLANTS) == set(EXPERIMENTS)


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_record_fails_under_some_planted_error(name, data_dir, preset_run):
    clean = _reproduced(preset_run(name, seed=SEED, quick=True))
    assert clean and all(clean.values()), f"{name}: the clean quick run must reproduce every record: {clean}"
    caught: dict[str, list[str]] = {q: [] for q in clean}
    for plant in PLANTS.get(name, []):
        planted = _planted(name, plant, data_dir)
        assert set(planted) == set(clean), f"{name} / {plant.what}: the planted run has other records"
        for quantity, reproduced in planted.items():
            if not reproduced:
                caught[quantity].append(plant.what)
    uncaught = [q for q, plants in caught.items() if not plants]
    assert not uncaught, f"{name}: no planted error makes these records fail: {uncaught}"


@pytest.mark.parametrize(
    ("name", "plant"), [(n, p) for n in sorted(PLANTS) for p in PLANTS[n]], ids=lambda v: getattr(v, "what", v)
)
def test_each_plant_fails_some_record(name, plant, data_dir):
    planted = _planted(name, plant, data_dir)
    assert not all(planted.values()), f"{name}: the planted error {plant.what!r} fails no record"
