"""CIML figures 3.18, 4.4, 10.3 and 13.3, redrawn with replearn's own algorithms (synthetic data, seeded).

* **Fig. 3.18** (§3.5, L871-886): distances between uniform random points on the unit hypercube for
  D = 1, 2, 3, 10, 20, 100 (the histograms: every pair of 1000-2000 points, ``replearn.linalg.pairwise_distances``).
  The mean distance is measured on independent pairs (``paired_distances``, 10^5-2x10^5 of them) against its
  exact value: 1/3 at D = 1 (the text's sqrt(D)/3, exact there), (2 + sqrt 2 + 5 log(1 + sqrt 2))/15 = 0.52140 at
  D = 2 and Robbins' constant 0.66171 at D = 3 -- where the text's sqrt(D)/3 (0.471, 0.577) is an erratum the
  records reject -- tolerance four standard errors. The text's averages over 100 points (0.346, 0.518, 0.615)
  are one random draw each (1.1, 0.2 and 2.7 standard deviations of a 100-point average from the exact means).
  The concentration "around 0.4 sqrt(D)" is checked at D = 100, and the spread: the text's "variance 1/sqrt(18),
  independent of D" (L879) is the *standard deviation* at D = 1 (the variance is 1/18, a record), and as D grows
  the standard deviation tends to sqrt(7/120) = 0.2415 (delta method: ||x - y||^2 has mean D/6 and variance
  7D/180), 0.2419 at D = 100, not 1/sqrt(18) = 0.2357.
* **Fig. 4.4** (§4.2, L1026-1042): 500 positives followed by 500 negatives (10 features uniform in
  [0, 1], labels by a random linear rule through the median, 10% flipped). In this fixed order the
  perceptron "would really only have learned from a handful of examples (fifteen in this case)" and
  then predicts one class: at most 15 updates in the first pass, test error 0.5 after 10 passes;
  re-permuting every pass does better. (The text's "about 20% savings" of re-permuting over permuting
  once is not reproduced here: on these data the two need the same number of passes, within noise.)
* **Fig. 10.3** (§10.3, L3433-3456): ten two-layer tanh networks (8 hidden units, squared loss, full
  batch Adam steps by replearn's autodiff, see ``_train_two_layer``) from weights uniform in [-0.1, 0.1],
  and one from all zeros, on the XOR quadrants of the plane. From zero the hidden units never differ
  ("the weights feeding in to any of the hidden units will be exactly the same"), and the
  zero-initialized network is worse than the best random one.
* **Fig. 13.3** (§13.2, L4255-4271): AdaBoost with trees of depth 1, 2 and 3 (test error against the
  number of rounds, the figure's curves), on binary features labelled by the majority of the first three with
  10% of the labels flipped. Boosted decision stumps on binary features are a linear classifier (eqs.
  13.1-13.4): their vote is an affine function of x, exactly; the first weight is alpha = 1/2 log((1 - e)/e) of
  the stump's weighted error (Alg. 32); and because the majority of three *is* linear, boosted stumps reach
  it: their test error against the noise-free rule is 0 and against the noisy labels the noise rate 0.1 (a
  random alpha gives 0.24).

Runs in about two seconds (under a second in quick mode).
"""

from __future__ import annotations

import math

import numpy as np

from .. import linalg, models
from ..autodiff import Adam, Tensor
from ..models.neural.init import initialize
from .record import ExperimentResult, Recorder, register

PRESET = "ciml_figures"
DIMS = (1, 2, 3, 10, 20, 100)
PRINTED_AVERAGES = {1: "0.346", 2: "0.518", 3: "0.615"}
#: E ||x - y|| for x, y uniform on [0, 1]^D: 1/3; (2 + sqrt 2 + 5 log(1 + sqrt 2)) / 15; Robbins' constant
EXACT_MEAN = {
    1: 1.0 / 3.0,
    2: (2 + math.sqrt(2) + 5 * math.log(1 + math.sqrt(2))) / 15,
    3: (4 + 17 * math.sqrt(2) - 6 * math.sqrt(3) - 7 * math.pi) / 105
    + (math.log(1 + math.sqrt(2)) + 2 * math.log(2 + math.sqrt(3))) / 5,
}
SPREAD_LIMIT = math.sqrt(7 / 120)  # the standard deviation of ||x - y|| as D -> infinity


@register(PRESET)
def run(data_dir=None, *, seed: int, quick: bool = False) -> ExperimentResult:
    """The four figures; ``data_dir`` is unused."""
    rng = np.random.default_rng(seed)
    rec = Recorder(PRESET)
    curves, tables = {}, {}
    _distances(rec, rng, quick, curves, tables)
    _permutation(rec, rng, seed, curves, tables)
    _initialization(rec, rng, quick, curves, tables)
    _boosting(rec, rng, seed, quick, curves, tables)
    notes = (
        "CIML (seed 001) figures on synthetic data: Fig. 3.18 (distances in high dimension, §3.5), Fig. 4.4 "
        "(permuting the examples, §4.2), Fig. 10.3 (random versus zero initialization, §10.3) and Fig. 13.3 "
        f"(boosted trees of depth 1-3, §13.2). Seed {seed}."
    )
    return rec.result(curves, tables, notes)


# ---------------------------------------------------------------------------------------------- Fig. 3.18


def _uniform_points(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    return rng.random((n, d))


def _pair_distances(rng: np.random.Generator, m: int, d: int) -> np.ndarray:
    """The distances of ``m`` independent pairs of uniform points (``replearn.linalg.paired_distances``)."""
    return linalg.paired_distances(_uniform_points(rng, m, d), _uniform_points(rng, m, d))


def _distances(rec: Recorder, rng: np.random.Generator, quick: bool, curves: dict, tables: dict) -> None:
    ex = "ciml.fig-3.18"
    by = ("replearn.linalg.paired_distances",)
    n = 1000 if quick else 2000
    m = 100_000 if quick else 200_000
    bins = np.linspace(0.0, 1.0, 41)
    hist = {"x": ((bins[:-1] + bins[1:]) / 2).tolist(), "x_label": "distance / sqrt(D)", "y_label": "density"}
    stats = {}
    for D in DIMS:
        d = linalg.pairwise_distances(_uniform_points(rng, n, D))
        stats[D] = {"mean": float(d.mean()), "sd": float(d.std()), "mean/sqrt(D)": float(d.mean() / math.sqrt(D))}
        hist[f"D = {D}"] = np.histogram(d / math.sqrt(D), bins=bins, density=True)[0].tolist()
    for D in (1, 2, 3):
        pairs = _pair_distances(rng, m, D)
        se = float(pairs.std(ddof=1) / math.sqrt(m))
        printed = PRINTED_AVERAGES[D]
        common = dict(example=ex, measured_by=by)
        text = (
            f"CIML §3.5 L871-877: 'the average distance between points in {D} dimension(s) is about {printed}' (one "
            f"draw of 100 points) and avgDist(D) = sqrt(D)/3; the exact mean E||x - y|| = {EXACT_MEAN[D]:.5f}; "
            f"{m} independent pairs, tolerance 4 standard errors"
        )
        if D == 1:
            rec.add(
                text + " (sqrt(D)/3 is exact at D = 1)",
                "average distance of uniform points, D = 1",
                EXACT_MEAN[1],
                float(pairs.mean()),
                4 * se,
                provenance="derived",
                derived_from="the text's avgDist(D) = sqrt(D)/3 at D = 1 (= 1/3, exact)",
                **common,
            )
        else:
            rec.add(
                text + f" -- **erratum**: sqrt(D)/3 = {math.sqrt(D) / 3:.3f} is not the mean for D > 1",
                f"average distance of uniform points, D = {D}",
                EXACT_MEAN[D],
                float(pairs.mean()),
                4 * se,
                provenance="erratum",
                erratum=math.sqrt(D) / 3,
                **common,
            )
        stats[D]["pairs_mean"] = float(pairs.mean())
        if D == 1:
            v = float(pairs.var(ddof=1))
            se_v = float(np.std((pairs - pairs.mean()) ** 2, ddof=1) / math.sqrt(m))
            rec.add(
                "CIML §3.5 L879 **erratum**: 'the variance is 1/sqrt(18)'; 1/sqrt(18) = 0.2357 is the standard "
                f"deviation of the distance at D = 1, its variance is 1/18 = 0.05556; {m} pairs, tolerance 4 "
                "standard errors",
                "variance of the distance of uniform points, D = 1",
                1 / 18,
                v,
                4 * se_v,
                provenance="erratum",
                erratum=1 / math.sqrt(18),
                **common,
            )
    rec.add(
        "CIML §3.5 L881: the distances 'concentrate around 0.4 sqrt(D)' (the limit is 1/sqrt(6) = 0.408); printed to "
        "one digit (all pairs of the histogram's points)",
        "average pairwise distance / sqrt(D), D = 100",
        0.4,
        stats[100]["mean/sqrt(D)"],
        0.05,
        example=ex,
        measured_by=("replearn.linalg.pairwise_distances",),
    )
    pairs = _pair_distances(rng, m, 100)
    se = float(
        pairs.std(ddof=1) * math.sqrt(np.mean(((pairs - pairs.mean()) / pairs.std()) ** 4) - 1) / 2 / math.sqrt(m)
    )
    rec.add(
        "CIML §3.5 L879 **erratum**: the spread is not 'constant 1/sqrt(18) (= 0.2357), independent of D': the "
        f"standard deviation tends to sqrt(7/120) = {SPREAD_LIMIT:.4f} as D grows (0.2419 at D = 100, 2x10^8 pairs); "
        f"{m} pairs, tolerance 4 standard errors + 5e-4 (the distance from the limit at D = 100)",
        "standard deviation of the distance of uniform points, D = 100",
        SPREAD_LIMIT,
        float(pairs.std(ddof=1)),
        4 * se + 5e-4,
        example=ex,
        provenance="erratum",
        erratum=1 / math.sqrt(18),
        measured_by=by,
    )
    curves["distance_histograms"] = hist
    tables["distances"] = {str(D): s for D, s in stats.items()}


# ---------------------------------------------------------------------------------------------- Fig. 4.4


def _sorted_problem(rng: np.random.Generator, n: int = 1000, d: int = 10, noise: float = 0.1):
    w = rng.standard_normal(d)
    X = rng.random((n, d))
    cut = float(np.median(X @ w))
    y = np.where(X @ w > cut, 1, -1)
    y = np.where(rng.random(n) < noise, -y, y)
    Xt = rng.random((4000, d))
    yt = np.where(Xt @ w > cut, 1, -1)
    yt = np.where(rng.random(4000) < noise, -yt, yt)
    order = np.argsort(-y, kind="stable")  # all positives first, then all negatives
    return X[order], y[order], Xt, yt


def _permutation(rec: Recorder, rng: np.random.Generator, seed: int, curves: dict, tables: dict) -> None:
    ex = "ciml.fig-4.4"
    X, y, Xt, yt = _sorted_problem(rng)
    passes = tuple(range(1, 11))
    err = {"fixed order": [], "permuted every pass": []}
    first_pass = {}
    for name, shuffle in (("fixed order", False), ("permuted every pass", True)):
        for k in passes:
            model = models.create("perceptron", max_iter=k, shuffle=shuffle, random_state=seed).fit(X, y)
            err[name].append(float(np.mean(model.predict(Xt) != yt)))
            if k == 1:
                first_pass[name] = int(model.mistakes_[0])
    rec.add(
        "CIML §4.2 L1028-1034: 500 positives then 500 negatives in a fixed order -- 'by the end of one pass ... it "
        "would really only have learned from a handful of examples (fifteen in this case)'",
        "perceptron updates beyond 15 in the first pass over the sorted data",
        0,
        max(0, first_pass["fixed order"] - 15),
        0,
        example=ex,
        measured_by="replearn.models:perceptron",
    )
    rec.add(
        "CIML §4.2 L1028-1034: in the fixed order it ends each pass predicting the last class ('stop learning "
        "anything'): chance error on balanced data; tolerance 0.05",
        "test error after 10 passes in the fixed order",
        0.5,
        err["fixed order"][-1],
        0.05,
        example=ex,
        measured_by="replearn.models:perceptron",
    )
    rec.add(
        "CIML §4.2 L1036-1042, Fig. 4.4: permuting the examples every pass does better than the fixed order",
        "test error with re-permuting below the fixed order's after 10 passes (1 yes, 0 no)",
        1,
        int(err["permuted every pass"][-1] < err["fixed order"][-1]),
        0,
        example=ex,
        provenance="invariant",
        measured_by="replearn.models:perceptron",
    )
    curves["permutation"] = {
        "x": list(passes),
        **{f"test error, {k}": v for k, v in err.items()},
        "x_label": "passes",
        "y_label": "test error",
    }
    tables["permutation"] = {"first_pass_updates": first_pass}


# ---------------------------------------------------------------------------------------------- Fig. 10.3


def _quadrants(rng: np.random.Generator, n: int):
    """XOR in the plane: y = +1 in the first and third quadrants."""
    X = rng.standard_normal((n, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)


def _init_weights(rng: np.random.Generator, shape: tuple[int, ...], kind: str) -> np.ndarray:
    """CIML §10.3: small uniform weights in [-0.1, 0.1] or all zeros, by replearn's initializers."""
    rule = "zeros" if kind == "zeros" else "ciml_uniform"
    return initialize(shape, shape[0], shape[-1], rule, rng)


def _train_two_layer(X, y, W, v, steps: int, lr: float = 0.05):
    """A two-layer network y_hat = v . tanh(W x + b) + c, squared loss, full-batch Adam steps (replearn's
    autodiff; CIML's Alg. 10.2 takes plain gradient steps -- Adam only makes the ten random runs converge in
    200 steps; a zero gradient stays a zero step either way)."""
    W, v = Tensor(W, requires_grad=True), Tensor(np.reshape(v, (-1, 1)), requires_grad=True)
    b, c = Tensor(np.zeros(W.data.shape[1]), requires_grad=True), Tensor(np.zeros(1), requires_grad=True)
    opt = Adam([W, b, v, c], lr=lr)
    Xt, yt = Tensor(X), Tensor(np.reshape(y, (-1, 1)))
    for _ in range(steps):
        for p in (W, b, v, c):
            p.grad = None
        out = (Xt @ W + b).tanh() @ v + c
        loss = ((out - yt) ** 2).mean() * 0.5
        loss.backward()
        opt.step()
    return W.data, b.data, v.data[:, 0], c.data


def _predict_two_layer(X, params) -> np.ndarray:
    W, b, v, c = params
    return np.sign(np.tanh(X @ W + b) @ v + c)


def _initialization(rec: Recorder, rng: np.random.Generator, quick: bool, curves: dict, tables: dict) -> None:
    ex = "ciml.fig-10.3"
    X, y = _quadrants(rng, 300)
    Xt, yt = _quadrants(rng, 2000)
    hidden, steps = 8, (100 if quick else 200)
    errors, zero_params = [], None
    for kind in ["uniform"] * 10 + ["zeros"]:
        params = _train_two_layer(
            X, y, _init_weights(rng, (2, hidden), kind), _init_weights(rng, (hidden,), kind), steps
        )
        errors.append(float(np.mean(_predict_two_layer(Xt, params) != yt)))
        if kind == "zeros":
            zero_params = params
    W0 = zero_params[0]
    rec.add(
        "CIML §10.3 L3435-3440: from W = 0 and v = 0 the weights feeding every hidden unit stay exactly the same "
        "(the symmetric, trivial local optimum)",
        "largest difference between two hidden units' input weights, zero initialization",
        0.0,
        float(np.max(W0.max(axis=1) - W0.min(axis=1))),
        1e-12,
        example=ex,
        provenance="invariant",
        measured_by=("replearn.autodiff.Tensor", "replearn.autodiff.Adam", "replearn.models.neural.init.initialize"),
    )
    rec.add(
        "CIML §10.3 Fig. 10.3 (L3452-3456): ten random initializations and the zero-initialized network; picking the "
        "best random network beats the trivial symmetric one",
        "zero-initialized test error above the best random network's (1 yes, 0 no)",
        1,
        int(errors[-1] > min(errors[:-1])),
        0,
        example=ex,
        provenance="invariant",
        measured_by=("replearn.autodiff.Tensor", "replearn.autodiff.Adam", "replearn.models.neural.init.initialize"),
    )
    curves["initialization"] = {
        "x": [f"random {i + 1}" for i in range(10)] + ["zeros"],
        "test error": errors,
        "x_label": "initialization",
        "y_label": "test error",
    }
    tables["initialization"] = {"hidden_units": hidden, "steps": steps, "test_errors": errors}


# ---------------------------------------------------------------------------------------------- Fig. 13.3


def _boosting(rec: Recorder, rng: np.random.Generator, seed: int, quick: bool, curves: dict, tables: dict) -> None:
    ex = "ciml.fig-13.3"
    D = 6
    X = rng.integers(0, 2, size=(400, D)).astype(float)
    rule = lambda Z: np.where(Z[:, 0] + Z[:, 1] + Z[:, 2] >= 2, 1, -1)  # noqa: E731  (majority of three)
    y = rule(X)
    y = np.where(rng.random(len(y)) < 0.1, -y, y)
    Xt = rng.integers(0, 2, size=(2000, D)).astype(float)
    yt = rule(Xt)
    yt = np.where(rng.random(len(yt)) < 0.1, -yt, yt)
    rounds = 20 if quick else 50
    stumps = models.create("adaboost", n_estimators=rounds, estimator_params={"max_depth": 1}, random_state=seed).fit(
        X, y
    )
    cube = np.array(np.meshgrid(*[[0.0, 1.0]] * D)).reshape(D, -1).T  # all 2^D binary inputs
    vote = stumps.decision_function(cube)
    A = np.c_[np.ones(len(cube)), cube]
    affine = A @ np.linalg.lstsq(A, vote, rcond=None)[0]
    by = ("replearn.models:adaboost",)
    rec.add(
        "CIML §13.2 eqs. 13.1-13.4 (L4256-4266): boosted decision stumps on binary features compute "
        "sgn(w.x + b) with w_d = sum_k 2 alpha_k s_k [f_k = d]: their vote is affine in x; tolerance 1e-9",
        f"max |AdaBoost vote - best affine function| over all 2^{D} binary inputs",
        0.0,
        float(np.max(np.abs(vote - affine))),
        1e-9,
        example=ex,
        provenance="invariant",
        measured_by=by,
    )
    first = stumps.estimators_[0]
    eps = float(np.sum(np.where(first.predict(X) != y, 1.0, 0.0)) / len(y))  # uniform weights in round 1
    rec.add(
        "CIML §13.2 Alg. 32 (L4218-4232): the first stump's weight is alpha = 1/2 log((1 - e)/e) of its weighted "
        "training error e (uniform weights in round 1); tolerance 1e-12",
        "first boosting weight alpha_1 minus 1/2 log((1 - e)/e)",
        0.0,
        float(stumps.estimator_weights_[0]) - 0.5 * math.log((1 - eps) / eps),
        1e-12,
        example=ex,
        provenance="invariant",
        measured_by=by,
    )
    single = models.create("decision_tree", max_depth=1).fit(X, y)
    err_single = float(np.mean(single.predict(Xt) != yt))
    err_boost = float(np.mean(stumps.predict(Xt) != yt))
    rec.add(
        "CIML §13.2 L4255-4258: a decision stump is a silly model on its own, but 'when combined with boosting, it "
        "becomes very effective': the majority of three binary features is linear, so boosted stumps can equal it "
        f"(derived); {rounds} rounds, error against the noise-free rule on {len(Xt)} test points, tolerance 0.01",
        f"test error of {rounds} boosted stumps against the noise-free majority rule",
        0.0,
        float(np.mean(stumps.predict(Xt) != rule(Xt))),
        0.01,
        example=ex,
        provenance="derived",
        derived_from="eqs. 13.1-13.4: the target (majority of x1, x2, x3) is itself a boosted-stump vote",
        measured_by=by,
    )
    rec.add(
        "CIML §13.2: on labels with 10% flipped, the best classifier errs on the flipped 10% (the Bayes error, "
        f"derived from the generator); single stump {err_single:.3f}; tolerance 4 standard errors of "
        f"{len(Xt)} test points",
        f"test error of {rounds} boosted stumps on the noisy test labels",
        0.1,
        err_boost,
        4 * math.sqrt(0.09 / len(Xt)),
        example=ex,
        provenance="derived",
        derived_from="the label-noise rate 0.1 of the generator (the target is linear)",
        measured_by=by,
    )
    curve = {"x": list(range(1, rounds + 1)), "x_label": "boosting rounds", "y_label": "test error"}
    for depth in (1, 2, 3):
        model = (
            stumps
            if depth == 1
            else models.create(
                "adaboost", n_estimators=rounds, estimator_params={"max_depth": depth}, random_state=seed
            ).fit(X, y)
        )
        score = np.zeros(len(Xt))
        errs = []
        for member, a in zip(model.estimators_, model.estimator_weights_):
            score += a * np.where(member.predict(Xt) == model.classes_[1], 1.0, -1.0)
            errs.append(float(np.mean(np.where(score > 0, model.classes_[1], model.classes_[0]) != yt)))
        curve[f"depth {depth}"] = errs + [errs[-1]] * (rounds - len(errs))  # boosting may stop early
    curves["boosting"] = curve
    tables["boosting"] = {"single_stump_test_error": err_single, "boosted_stumps_test_error": err_boost}
