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

A plant is *library-level* when it corrupts replearn's algorithms -- a model built wrong, or a public
replearn function or class the preset calls -- and *preset-level* when it patches one of the preset's own
private helpers (how it draws the data, say). Every record measured by replearn (all but the arithmetic
checks of the text) must fail under a library-level plant: a record that only a broken preset can fail says
nothing about replearn. And the plant must be in the part of replearn the record names in ``measured_by`` (the
model's family, the function's subpackage, or a name patched inside the named module): a record that names
``replearn.linalg`` but computes its value with numpy fails even when some other plant happens to break it.
An erratum record's tolerance excludes the printed value (the record type refuses
one that does not); :func:`test_every_erratum_record_rejects_the_printed_value` plants the printed value as
the measured one.
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

from replearn import linalg as linalg_module
from replearn import models as real_models
from replearn import rl as rl_package
from replearn.autodiff import Tensor
from replearn.courses import epfl as epfl_courses_module
from replearn.evaluation import precision, recall
from replearn.models.cluster import kmeans as kmeans_module
from replearn.models.neural.activations import ReLU, Tanh
from replearn.models.neural.conv import Conv2D
from replearn.models.perceptron import perceptron as perceptron_module
from replearn.reproductions import EXPERIMENTS, run_experiment
from replearn.reproductions import bias_variance as bias_variance_module
from replearn.reproductions import ciml_examples as ciml_examples_module
from replearn.reproductions import ciml_figures as ciml_figures_module
from replearn.reproductions import ciml_plots as ciml_plots_module
from replearn.reproductions import cs229_control as cs229_control_module
from replearn.reproductions import cs229_examples as cs229_examples_module
from replearn.reproductions import cs229_figures as cs229_figures_module
from replearn.reproductions import cs229_plots as cs229_plots_module
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

    def apply(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:  # noqa: D401
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

    apply.level = "library"
    apply.targets = lambda: (f"replearn.models:{replace_with or model}", f"replearn.models:{model}")
    return apply


def _level(target: object, attr: str) -> str:
    """ "preset" for a private helper of a reproduction preset, "library" for anything of replearn's own."""
    name = getattr(target, "__name__", "") if isinstance(target, ModuleType) else ""
    return "preset" if name.startswith("replearn.reproductions") and attr.startswith("_") else "library"


def _home(obj: object, owner: object) -> str:
    """The module an object patched in ``owner`` is defined in (a name imported into a preset module is the
    library's): its ``__module__``, or the owner's name for plain values."""
    home = getattr(obj, "__module__", None) if not isinstance(obj, ModuleType) else obj.__name__
    if not isinstance(home, str) or not home.startswith("replearn"):
        home = getattr(owner, "__name__", "") if isinstance(owner, ModuleType) else getattr(owner, "__module__", "")
    return home


def _area(name: str) -> str:
    """The part of replearn a module or ``measured_by`` name belongs to: ``replearn.models.<family>`` for models
    (``replearn.models:<registry name>`` resolved to its class's module), ``replearn.<subpackage>`` otherwise."""
    if name.startswith("replearn.models:"):
        name = type(real_models.create(name.split(":", 1)[1])).__module__
    parts = name.split(".")
    return ".".join(parts[:3] if len(parts) > 2 and parts[1] == "models" else parts[:2])


def _measured_by_area(name: str) -> str:
    """:func:`_area` of a ``measured_by`` name: a dotted public path names a module or an object in one."""
    if name.startswith("replearn.models:"):
        return _area(name)
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return _area(_home(obj, importlib.import_module(".".join(parts[:i]))))
    return _area(name)


def patch(target: object, attr: str, make: Callable[[Callable], Callable]):
    """A plant that replaces ``target.attr`` by ``make(original)``."""

    def apply(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
        monkeypatch.setattr(target, attr, make(getattr(target, attr)))

    apply.level = _level(target, attr)
    # where the patched object lives, and the library module it is patched in (what that module's API calls)
    apply.targets = lambda: (_home(getattr(target, attr), target), getattr(target, "__name__", ""))
    return apply


def patch_item(mapping: dict, key, value, *, owner: ModuleType):
    """A plant that replaces ``mapping[key]`` (a table of the library module ``owner``) by ``value``."""

    def apply(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
        monkeypatch.setitem(mapping, key, value)

    apply.level = "library"
    apply.targets = lambda: (owner.__name__,)
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

    @property
    def level(self) -> str:
        return self.apply.level


def _powers_from_two(original):
    """Polynomial features x^2 .. x^(k+1): the powers start one too high."""

    class Shifted:
        def __init__(self, degree=2, include_bias=False, **kw):
            self.inner = original(degree=degree + 1, include_bias=include_bias, **kw)

        def fit(self, X, y=None):
            self.inner.fit(X)
            return self

        def transform(self, X):
            return self.inner.transform(X)[:, 1:]

    return Shifted


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


HALFPLANES_THROUGH_ORIGIN = patch_item(
    vc_module.HYPOTHESIS_CLASSES, "halfplanes", (2, _homogeneous_halfplanes), owner=vc_module
)
EVERY_LABELLING_REALIZABLE = patch_item(
    vc_module.HYPOTHESIS_CLASSES, "halfplanes", (2, lambda x, y: True), owner=vc_module
)


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
    """Half-samples without replacement instead of bootstrap samples."""
    return lambda n, repeats, seed: [
        SimpleNamespace(train=np.arange(n // 2), test=np.arange(n // 2, n)) for _ in range(repeats)
    ]


def _transposed_index(original):
    """Tensor indexing that swaps the row and column of a 2-D index (T[0, 1] reads T[1, 0])."""
    return lambda self, idx: original(self, idx[::-1] if isinstance(idx, tuple) and len(idx) == 2 else idx)


def _monomials_without_repetition(original):
    """The k-th tensor power with each monomial once and no multinomial weight (the inner product is not (x.z)^k)."""
    import itertools

    def powers(X, k):
        X = np.asarray(X, dtype=float)
        combos = list(itertools.combinations_with_replacement(range(X.shape[1]), k))
        return np.column_stack([np.prod(X[:, list(c)], axis=1) for c in combos]) if k else np.ones((len(X), 1))

    return powers


def _chebyshev_pairs(original):
    return lambda A, B: np.max(np.abs(np.asarray(A) - np.asarray(B)), axis=1)


def _squared(original):
    return lambda *a, **kw: original(*a, **kw) ** 2


def _weights_not_divided(original):
    """split_gain with the children's impurities weighted by their counts, not their shares."""
    from replearn.models.trees.criteria import node_impurity

    return lambda parent, children, criterion: (
        node_impurity(parent, criterion) - sum(node_impurity(c, criterion) * float(np.sum(c)) for c in children)
    )


def _first_half_bootstrap(original):
    def splits(n, repeats, seed):
        return [SimpleNamespace(train=s.train[: n // 2], test=s.test) for s in original(n, repeats=repeats, seed=seed)]

    return splits


def _one_degree_too_many(original):
    return lambda degree=2, include_bias=False, **kw: original(degree=degree + 1, include_bias=include_bias, **kw)


def _capped_at_two(original):
    return lambda degree=2, include_bias=False, **kw: original(degree=min(degree, 2), include_bias=include_bias, **kw)


def _transposed_factor(original):
    """x = L' n + mu: the Cholesky factor used transposed (covariance L'L, not S)."""

    def sample(mean, cov, size, random_state=None):
        L = np.linalg.cholesky(np.asarray(cov, dtype=float))
        rng = np.random.default_rng(random_state) if not isinstance(random_state, np.random.Generator) else random_state
        return rng.standard_normal((size, len(mean))) @ L + np.asarray(mean, dtype=float)

    return sample


def _jacobi_sweeps(original):
    """'Coordinate ascent' that updates both coordinates from the old point at once (Jacobi, not Gauss-Seidel)."""
    from replearn.optim import OptimizeResult

    def ascent(A, b, x0, **kw):
        A, b = np.asarray(A, float), np.asarray(b, float)
        a = np.asarray(x0, float)
        path = [a.copy()]
        for _ in range(300):
            a = (b - A @ a + np.diag(A) * a) / np.diag(A)
            path.append(a.copy())
        W = [float(b @ p - 0.5 * p @ A @ p) for p in path]
        return OptimizeResult(a, np.asarray(W), 300, True, float("nan"), "", {"path": np.asarray(path)})

    return ascent


def _over_relaxed(original):
    """Coordinate steps that overshoot the coordinate's argmax: a_i += 2.2 (argmax - a_i) (SOR beyond 2)."""
    from replearn.optim import OptimizeResult

    def ascent(A, b, x0, **kw):
        A, b = np.asarray(A, float), np.asarray(b, float)
        a = np.asarray(x0, float).copy()
        path, W = [a.copy()], [float(b @ a - 0.5 * a @ A @ a)]
        for _ in range(20):
            for i in range(a.size):
                target = (b[i] - A[i] @ a + A[i, i] * a[i]) / A[i, i]
                a[i] += 2.2 * (target - a[i])
                path.append(a.copy())
                W.append(float(b @ a - 0.5 * a @ A @ a))
        return OptimizeResult(a, np.asarray(W), 20, False, float("nan"), "", {"path": np.asarray(path)})

    return ascent


def _swapped_features(model):
    predict = model.predict
    model.predict = lambda X: predict(np.asarray(X)[:, ::-1])


def _unnormalized_responsibilities(model):
    proba = model.predict_proba
    model.predict_proba = lambda X: proba(X) * np.exp(model.score_samples(X))[:, None] ** 0.1


def _gd_no_divergence_check(original):
    def solve(fun, x0, **kw):
        try:
            return original(fun, x0, **kw)
        except Exception:
            return SimpleNamespace(params=np.full_like(np.asarray(x0, float), np.inf), loss_history=np.array([np.inf]))

    return solve


def _pr_swapped(original):
    def curve(y, s, **kw):
        p, r, t = original(y, s, **kw)
        return r, p, t

    return curve


def _ramp_hinge(original):
    return lambda loss, z: np.minimum(original(loss, z), 1.0) if loss == "hinge" else original(loss, z)


def _logistic_in_nats(original):
    return lambda loss, z: original(loss, z) * np.log(2.0) if loss == "logistic" else original(loss, z)


def wrong_model_in(target: ModuleType, model: str, **kw):
    """:func:`wrong_model`, planted in ``target`` (a library module that creates models) instead of the preset."""
    inner = wrong_model(model, **kw)

    def apply(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
        inner(monkeypatch, target)

    apply.level = "library"
    apply.targets = lambda: (*inner.targets(), target.__name__)
    return apply


def _scaled_result(factor: float):
    return lambda f: lambda *a, **kw: f(*a, **kw) * factor


PLANTS: dict[str, list[Plant]] = {
    "epfl_project1": [
        Plant("MSE without the 1/2", patch(epfl_courses_module, "compute_mse", _scaled_result(2.0))),
        Plant(
            "logistic loss summed, not averaged",
            patch(epfl_courses_module, "compute_logistic_loss", _scaled_result(3.0)),
        ),
        Plant(
            "gradient steps on the summed gradient (x N)",
            patch(
                epfl_courses_module,
                "gradient_descent",
                lambda f: lambda fun, x0, learning_rate, **kw: f(fun, x0, learning_rate=3 * learning_rate, **kw),
            ),
        ),
        Plant(
            "one step even for max_iters = 0",
            patch(epfl_courses_module, "_run_gd", lambda f: lambda fun, w0, it, g: f(fun, w0, max(int(it), 1), g)),
        ),
        Plant(
            "SGD with half the step",
            patch(
                epfl_courses_module,
                "mean_squared_error_sgd",
                lambda f: lambda y, tx, w, it, g, **kw: f(y, tx, w, it, g / 2, **kw),
            ),
        ),
        Plant(
            "regularized logistic regression ignoring lambda",
            patch(
                epfl_courses_module,
                "reg_logistic_regression",
                lambda f: lambda y, tx, lam, w, it, g: f(y, tx, 0.0, w, it, g),
            ),
        ),
        Plant(
            "ridge with alpha = lambda (not 2 N lambda)",
            wrong_model_in(epfl_courses_module, "ridge", params=lambda p: {**p, "alpha": p["alpha"] / 6.0}),
        ),
        Plant(
            "least squares with an extra intercept",
            wrong_model_in(epfl_courses_module, "linear_regression", params=_with(fit_intercept=True)),
        ),
        Plant(
            "ridge with an extra intercept",
            wrong_model_in(epfl_courses_module, "ridge", params=_with(fit_intercept=True)),
        ),
    ],
    "cs229_plots": [
        Plant(
            "gradient descent with half the step",
            patch(
                cs229_plots_module,
                "gradient_descent",
                lambda f: lambda fun, x0, learning_rate, **kw: f(fun, x0, learning_rate=0.5 * learning_rate, **kw),
            ),
        ),
        Plant(
            "gradient descent overshooting (step 2.05/L)",
            patch(
                cs229_plots_module,
                "gradient_descent",
                lambda f: lambda fun, x0, learning_rate, **kw: f(fun, x0, learning_rate=2.05 * learning_rate, **kw),
            ),
        ),
        Plant("GMM fitted on 2% of the draws", wrong_model("gmm", data=lambda X, y: (X[: len(X) // 50], y))),
        Plant(
            "the mean left out of the samples",
            patch(
                linalg_module,
                "gaussian_sample",
                lambda f: (
                    lambda mu, S, n, random_state=None: f(np.zeros_like(np.asarray(mu, float)), S, n, random_state)
                ),
            ),
        ),
        Plant("the Cholesky factor used transposed", patch(linalg_module, "gaussian_sample", _transposed_factor)),
        Plant("GDA with one covariance per class", wrong_model("gda", params=_with(covariance="per_class"))),
        Plant("GDA with priors 0.3 / 0.7", wrong_model("gda", params=_with(priors=[0.3, 0.7]))),
        Plant(
            "Jacobi sweeps for coordinate ascent",
            patch(cs229_plots_module, "quadratic_coordinate_ascent", _jacobi_sweeps),
        ),
        Plant(
            "over-relaxed coordinate steps (omega = 2.2)",
            patch(cs229_plots_module, "quadratic_coordinate_ascent", _over_relaxed),
        ),
        Plant(
            "coordinate ascent stopped after one sweep",
            patch(
                cs229_plots_module,
                "quadratic_coordinate_ascent",
                lambda f: lambda A, b, x0, **kw: f(A, b, x0, max_sweeps=1, warn=False),
            ),
        ),
        Plant(
            "polynomial features one degree too many",
            patch(cs229_plots_module, "PolynomialFeatures", _one_degree_too_many),
        ),
        Plant(
            "polynomial features capped at degree 2", patch(cs229_plots_module, "PolynomialFeatures", _capped_at_two)
        ),
        Plant(
            "polynomial features three degrees too many",
            patch(
                cs229_plots_module,
                "PolynomialFeatures",
                lambda c: (
                    lambda degree=2, include_bias=False, **kw: c(degree=degree + 3, include_bias=include_bias, **kw)
                ),
            ),
        ),
        Plant("least squares on shuffled targets", wrong_model("linear_regression", data=_shuffled)),
        Plant(
            "ridge (alpha = 1) instead of least squares",
            wrong_model("linear_regression", replace_with="ridge", params=lambda p: {"alpha": 1.0}),
        ),
        Plant(
            "k-means update ignores the assignment", patch(kmeans_module, "cluster_means", _means_of_random_clusters)
        ),
        Plant("k-means assignment step 5% random", patch(kmeans_module, "assign", _noisy_assignment)),
    ],
    "ciml_plots": [
        Plant(
            "k-NN with two more neighbours",
            wrong_model("knn", params=lambda p: {**p, "n_neighbors": p.get("n_neighbors", 5) + 2}),
        ),
        Plant(
            "3-NN replaced by 1-NN",
            wrong_model("knn", when=lambda p: p.get("n_neighbors") == 3, params=_with(n_neighbors=1)),
        ),
        Plant("tree queries the features swapped", wrong_model("decision_tree", after=_swapped_features)),
        Plant("bagging with a single tree", wrong_model("bagging", params=_with(n_estimators=1))),
        Plant(
            "k-means update ignores the assignment", patch(kmeans_module, "cluster_means", _means_of_random_clusters)
        ),
        Plant("k-means assignment step 5% random", patch(kmeans_module, "assign", _noisy_assignment)),
        Plant("precision and recall swapped", patch(ciml_plots_module, "precision_recall_curve", _pr_swapped)),
        Plant("logistic loss in nats (no 1/log 2)", patch(ciml_plots_module, "margin_loss", _logistic_in_nats)),
        Plant("the ramp loss min(1, hinge) for the hinge", patch(ciml_plots_module, "margin_loss", _ramp_hinge)),
        Plant(
            "p-norm without the 1/p root",
            patch(
                linalg_module,
                "p_norm",
                lambda f: lambda w, p: np.sum(np.abs(np.atleast_2d(w)) ** p, axis=1) if np.isfinite(p) else f(w, p),
            ),
        ),
        Plant(
            "p-norm with p below 1 taken as 1", patch(linalg_module, "p_norm", lambda f: lambda w, p: f(w, max(p, 1.0)))
        ),
        Plant(
            "gradient descent with twice the step",
            patch(
                ciml_plots_module,
                "gradient_descent",
                lambda f: lambda fun, x0, learning_rate, **kw: f(fun, x0, learning_rate=2 * learning_rate, **kw),
            ),
        ),
        Plant(
            "gradient descent without a divergence check",
            patch(ciml_plots_module, "gradient_descent", _gd_no_divergence_check),
        ),
        Plant(
            "hinge subgradient with its regions inverted (L2440)",
            patch(
                ciml_plots_module,
                "margin_loss_derivative",
                lambda f: lambda loss, z: np.where(np.asarray(z) < 1.0, 0.0, -1.0) if loss == "hinge" else f(loss, z),
            ),
        ),
        Plant(
            "hinge kink at z = 0 (L2468)",
            patch(
                ciml_plots_module,
                "margin_loss_derivative",
                lambda f: lambda loss, z: np.where(np.asarray(z) <= 0.0, -1.0, 0.0) if loss == "hinge" else f(loss, z),
            ),
        ),
        Plant(
            "soft margin (C = 0.05) for the hard-margin SVM",
            wrong_model("svm", when=lambda p: p.get("C") == 1e6, params=_with(C=0.05)),
        ),
        Plant(
            "a tiny C (1e-3) for the soft-margin SVM",
            wrong_model("svm", when=lambda p: p.get("C") == 1.0, params=_with(C=1e-3)),
        ),
        Plant("SVM on shuffled labels", wrong_model("svm", data=_shuffled)),
        Plant(
            "a narrow RBF kernel for the linear SVM",
            wrong_model("svm", params=lambda p: {**p, "kernel": "rbf", "gamma": 50.0}),
        ),
        Plant(
            "PCA keeps the second component",
            wrong_model(
                "pca",
                params=_with(n_components=2),
                after=lambda m: setattr(m, "components_", np.asarray(m.components_)[::-1]),
            ),
        ),
        Plant("GMM responsibilities not normalized", wrong_model("gmm", after=_unnormalized_responsibilities)),
        Plant(
            "an S-curve that is a softplus (convex)",
            patch(ciml_plots_module, "_s_loss", lambda f: lambda z: np.logaddexp(0.0, -np.asarray(z)) / np.log(2.0)),
        ),
    ],
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
        Plant("polynomial features start at x^2", patch(bias_variance_module, "PolynomialFeatures", _powers_from_two)),
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
        Plant("autodiff indexing reads the transposed entry", patch(Tensor, "__getitem__", _transposed_index)),
        Plant(
            "tensor powers without repeated monomials",
            patch(cs229_examples_module, "tensor_power_features", _monomials_without_repetition),
        ),
        Plant(
            "the (x'z + c)^2 map without repetitions",
            patch(
                cs229_examples_module,
                "polynomial_feature_map",
                lambda f: lambda X, degree=2, **kw: f(X, degree, **{**kw, "repeated": False}),
            ),
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
                "mixture_density",
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
                "node_impurity",
                lambda f: lambda counts, criterion: f(counts, criterion) * float(np.sum(counts)),
            ),
        ),
        Plant(
            "children weighted by their counts, not their shares",
            patch(cs229_examples_module, "split_gain", _weights_not_divided),
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
            "LQR's noise term with Sigma^2 for Sigma",
            patch(
                cs229_control_module,
                "lqr",
                _lqr_with(
                    lambda A, B, Q, R, kw: (
                        A,
                        B,
                        Q,
                        R,
                        {**kw, "noise_cov": kw["noise_cov"] @ kw["noise_cov"]}
                        if kw.get("noise_cov") is not None
                        else kw,
                    )
                ),
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
            "min-norm least squares replaced by ridge (alpha = 100)",
            wrong_model(
                "linear_regression",
                when=_solver("lstsq"),
                replace_with="ridge",
                params=lambda p: {"alpha": 100.0, "fit_intercept": False},
            ),
        ),
        Plant(
            "gradient descent stopped after 20 steps",
            wrong_model("linear_regression", when=_solver("gd"), params=_with(max_iter=20)),
        ),
        Plant(
            "gradient descent ignores the initialization",
            patch(
                cs229_figures_module,
                "gradient_descent",
                lambda f: lambda fun, x0, **kw: f(fun, np.zeros_like(x0), **kw),
            ),
        ),
        Plant(
            "gradient descent from theta_0 stopped after 50 steps",
            patch(
                cs229_figures_module,
                "gradient_descent",
                lambda f: lambda fun, x0, **kw: f(fun, x0, **{**kw, "max_iter": 50}),
            ),
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
            "fold mean with the N - 1 of the variance",
            patch(
                ciml_examples_module,
                "fold_summary",
                lambda f: lambda a: type(f(a))(float(np.sum(a)) / (len(a) - 1), f(a).std, len(a)),
            ),
        ),
        Plant(
            "fold standard deviation with 1/N",
            patch(
                ciml_examples_module,
                "fold_summary",
                lambda f: lambda a: type(f(a))(f(a).mean, float(np.std(a)), len(a)),
            ),
        ),
        Plant(
            "two-sided critical values",
            patch(
                ciml_examples_module,
                "t_critical_value",
                lambda f: lambda level, df=None, **kw: f(level, df, two_sided=True),
            ),
        ),
        Plant(
            "tanh hidden units replaced by ReLU",
            patch(ciml_examples_module, "Tanh", lambda c: ReLU),
        ),
        Plant(
            "layers that ignore their bias",
            patch(ciml_examples_module, "_dense", lambda f: lambda W, b: f(W, np.zeros_like(np.asarray(b)))),
        ),
        Plant(
            "(1 - 1/N)^(N - 1) for the left-out probability",
            patch(ciml_examples_module, "_left_out_probability", lambda f: lambda n: (1 - 1 / n) ** (n - 1)),
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
        Plant("half-samples without replacement", patch(ciml_examples_module, "bootstrap_splits", _half_samples)),
        Plant("five negatives labelled positive", wrong_model("adaboost", data=_mislabelled(5))),
        Plant(
            "subgradient steps with eta = 0.5",
            patch(
                ciml_examples_module,
                "truncated_gradient_step",
                lambda f: lambda w, g, eta=1.0, **kw: f(w, g, 0.5, **kw),
            ),
        ),
        Plant(
            "no truncation",
            patch(
                ciml_examples_module,
                "truncated_gradient_step",
                lambda f: lambda w, g, eta=1.0, **kw: f(w, g, eta, truncate=False),
            ),
        ),
        Plant(
            "soft thresholding by the step instead of truncation",
            patch(
                ciml_examples_module,
                "truncated_gradient_step",
                lambda f: (
                    lambda w, g, eta=1.0, truncate=True: (
                        np.sign(w) * np.maximum(np.abs(w) - eta * np.asarray(g), 0.0)
                        if truncate
                        else f(w, g, eta, truncate=False)
                    )
                ),
            ),
        ),
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
        Plant("Chebyshev distances between pairs", patch(linalg_module, "paired_distances", _chebyshev_pairs)),
        Plant("squared distances between pairs", patch(linalg_module, "paired_distances", _squared)),
        Plant("squared pairwise distances", patch(linalg_module, "pairwise_distances", _squared)),
        Plant("the fixed-order perceptron permutes", wrong_model("perceptron", params=_with(shuffle=True))),
        Plant(
            "the zeros initializer draws small uniform weights",
            patch(
                ciml_figures_module,
                "initialize",
                lambda f: lambda shape, fi, fo, rule, rng: f(shape, fi, fo, "ciml_uniform", rng),
            ),
        ),
        Plant(
            "every initializer returns zeros",
            patch(
                ciml_figures_module,
                "initialize",
                lambda f: lambda shape, fi, fo, rule, rng: f(shape, fi, fo, "zeros", rng),
            ),
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
        Plant(
            "AdaBoost alpha without the 1/2",
            wrong_model("adaboost", after=lambda m: setattr(m, "estimator_weights_", 2 * m.estimator_weights_)),
        ),
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
        Plant("tanh hidden units instead of ReLU", patch(cs480_examples_module, "ReLU", lambda c: Tanh)),
        Plant(
            "'same' padding",
            patch(
                cs480_examples_module,
                "Conv2D",
                lambda c: lambda filters, kernel_size=3, **kw: Conv2D(filters, kernel_size, padding=1),
            ),
        ),
        Plant(
            "S used as its own square root",
            patch(
                linalg_module,
                "gaussian_sample",
                lambda f: (
                    lambda mu, S, n, random_state=None: (
                        np.random.default_rng(random_state).standard_normal((n, len(mu))) @ np.asarray(S).T + mu
                    )
                ),
            ),
        ),
        Plant(
            "the mean left out",
            patch(linalg_module, "gaussian_sample", lambda f: lambda mu, S, n, **kw: f(np.zeros_like(mu), S, n, **kw)),
        ),
        Plant(
            "the quadratic feature map always with repetitions",
            patch(
                cs480_examples_module,
                "polynomial_feature_map",
                lambda f: lambda X, degree=2, **kw: f(X, degree, **{**kw, "repeated": True}),
            ),
        ),
    ],
    "epfl_examples": [
        Plant(
            "gradient summed, not averaged (x N)",
            patch(epfl_examples_module, "_mse", lambda f: lambda w: (lambda v, g: (v, 4 * g))(*f(w))),
        ),
        Plant(
            "gradient descent takes twice the step",
            patch(
                epfl_examples_module,
                "gradient_descent",
                lambda f: lambda fun, x0, learning_rate, **kw: f(fun, x0, learning_rate=2 * learning_rate, **kw),
            ),
        ),
        Plant(
            "gradient ascent instead of descent",
            patch(
                epfl_examples_module,
                "gradient_descent",
                lambda f: lambda fun, x0, **kw: f(fun, x0, **{**kw, "maximize": True}),
            ),
        ),
        Plant(
            "step on the other coordinate",
            patch(
                epfl_examples_module, "dual_coordinate_step", lambda f: lambda X, y, a, w, n, C: f(X, y, a, w, 1 - n, C)
            ),
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
            "feature map of the squares only",
            patch(epfl_examples_module, "tensor_power_features", lambda f: lambda X, k: np.asarray(X) ** k),
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
    result = preset_run(name, seed=SEED, quick=True)
    clean = _reproduced(result)
    assert clean and all(clean.values()), f"{name}: the clean quick run must reproduce every record: {clean}"
    caught: dict[str, list[Plant]] = {q: [] for q in clean}
    for plant in PLANTS.get(name, []):
        planted = _planted(name, plant, data_dir)
        assert set(planted) == set(clean), f"{name} / {plant.what}: the planted run has other records"
        for quantity, reproduced in planted.items():
            if not reproduced:
                caught[quantity].append(plant)
    uncaught = [q for q, plants in caught.items() if not plants]
    assert not uncaught, f"{name}: no planted error makes these records fail: {uncaught}"
    measured = {r.quantity for r in result.records if r.provenance != "arithmetic"}
    only_preset = [q for q in measured if not any(p.level == "library" for p in caught[q])]
    assert not only_preset, (
        f"{name}: these records measured by replearn fail only when the preset's own helpers are broken, never "
        f"under a wrong replearn method: {only_preset}"
    )
    # the API a record names (measured_by) is the one that measures it: a wrong method in that part of replearn
    # (the model's family, the function's subpackage) makes the record fail -- a record that names
    # replearn.linalg but computes its value with numpy, or names a model it does not use, fails here
    not_by_named = []
    for r in result.records:
        if r.provenance == "arithmetic":
            continue
        named = {_measured_by_area(by) for by in r.measured_by}
        assert "replearn.reproductions" not in named, f"{r.id}: a preset is not replearn's API: {r.measured_by}"
        planted = {_area(t) for p in caught[r.quantity] if p.level == "library" for t in p.apply.targets()}
        if not named & planted:
            not_by_named.append((r.id, sorted(named), sorted(planted)))
    assert not not_by_named, (
        f"{name}: no planted error in the replearn API these records name (measured_by) makes them fail -- they "
        f"are measured elsewhere, or the API's plants are missing (id, named, areas of the plants that fail it): "
        f"{not_by_named}"
    )


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_erratum_record_rejects_the_printed_value(name, preset_run):
    """Plant the text's printed (wrong) number as the measured value: every erratum record must fail."""
    from replearn.reproductions import Reproduction

    for r in preset_run(name, seed=SEED, quick=True).records:
        if r.erratum is None:
            continue
        fields = {k: getattr(r, k) for k in ("preset", "source", "quantity", "published", "tolerance")}
        kw = {k: getattr(r, k) for k in ("example", "id", "provenance", "measured_by", "erratum", "derived_from")}
        planted = Reproduction(**{**fields, "measured": r.erratum}, **kw)
        assert not planted.reproduced, f"{r.id}: the printed erratum {r.erratum} reproduces {r.published}"


@pytest.mark.parametrize(
    ("name", "plant"), [(n, p) for n in sorted(PLANTS) for p in PLANTS[n]], ids=lambda v: getattr(v, "what", v)
)
def test_each_plant_fails_some_record(name, plant, data_dir):
    planted = _planted(name, plant, data_dir)
    assert not all(planted.values()), f"{name}: the planted error {plant.what!r} fails no record"
