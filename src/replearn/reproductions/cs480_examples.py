"""Waterloo CS480/680 (W2024) notes: the worked examples, rerun with replearn's models and layers.

==========================================  ================================================================
catalogue entry                             record(s)
==========================================  ================================================================
cs480.spam-naive-bayes (L84-92)             P(spam | x') = 9/11 with Laplace smoothing, 1 without; the
                                            smoothed word probabilities of both classes
cs480.or-perceptron (L96-100)               w = (2, 2), b = -1 after 9 mistakes in 6 passes
cs480.xor-perceptron (L241-255)             back to w = 0, b = 0 after every pass; never converges
cs480.ill-conditioned (L316-324)            the interpolant w = (-2/eps, 1) = (-2000, 1) for eps = 1e-3
cs480.quadratic-feature-map (L641-663)      (<x,z> + 1)^2 from phi = (vec(xx'), sqrt(2) x, 1); phi and psi
                                            both give <x,z>^2
cs480.xor-mlp (L908-916)                    hidden units and scores of the hand-set ReLU network
cs480.conv-example (Example 10.1)           the 3x3 output of the X-shaped kernel on the 5x5 image
cs480.cholesky-sampling (L1252-1260)        x = L n + mu has mean mu and covariance S
==========================================  ================================================================

Exact computations are held to 1e-12 (or 0 for counts); the Monte Carlo moments to four standard
errors. Under half a second.
"""

from __future__ import annotations

import numpy as np

from .. import linalg, models
from ..kernels import polynomial_feature_map, polynomial_kernel, tensor_power_features
from ..models.neural.activations import ReLU
from ..models.neural.conv import Conv2D
from ..models.neural.layers import Dense
from .record import ExperimentResult, Recorder, register

PRESET = "cs480_examples"
NOTES = "CS480/680 notes"


@register(PRESET)
def run(data_dir=None, *, seed: int, quick: bool = False) -> ExperimentResult:
    """The records of the module table; ``data_dir`` is unused (the inputs are printed in the notes)."""
    rng = np.random.default_rng(seed)
    rec = Recorder(PRESET)
    tables: dict = {}
    _spam(rec, tables)
    tables["or_perceptron"] = _perceptrons(rec)
    _ill_conditioned(rec)
    _quadratic_kernel(rec, rng)
    tables["xor_mlp"] = _xor_mlp(rec)
    tables["conv"] = _conv(rec)
    _cholesky(rec, rng, quick)
    curves = {
        "xor_mlp": {
            "x": ["(0,0)", "(1,0)", "(0,1)", "(1,1)"],
            "score": tables["xor_mlp"]["scores"],
            "label": [-1.0, 1.0, 1.0, -1.0],
        }
    }
    notes = (
        "Waterloo CS480/680 W2024 notes (seed 003): the spam table with naive Bayes, the perceptron on OR and XOR, "
        "an ill-conditioned interpolation, the quadratic kernel's feature maps, a ReLU network for XOR, "
        f"Example 10.1's convolution and Gaussian sampling by the Cholesky factor. Seed {seed}."
    )
    return rec.result(curves, tables, notes)


SPAM_X = np.array(  # words and, viagra, the, of, nigeria (rows) in e-mails x1..x6 (columns), L84-92
    [[1, 0, 0, 1, 1, 1], [1, 0, 1, 0, 0, 0], [0, 1, 1, 0, 1, 1], [1, 1, 0, 1, 0, 1], [1, 0, 0, 0, 1, 0]],
    dtype=float,
).T
SPAM_Y = np.array([1, 0, 1, 0, 1, 0])  # +, -, +, -, +, -
SPAM_NEW = np.array([[1, 1, 0, 0, 0]], dtype=float)  # x' = (and, viagra) present


def _spam(rec: Recorder, tables: dict) -> None:
    ex = "cs480.spam-naive-bayes"
    source = f"{NOTES} L84-92 (spam table; x' = and, viagra); Bernoulli naive Bayes"
    laplace = models.create("naive_bayes", alpha=1.0, binarize=None).fit(SPAM_X, SPAM_Y)
    mle = models.create("naive_bayes", alpha=0.0, binarize=None).fit(SPAM_X, SPAM_Y)
    spam = list(laplace.classes_).index(1)
    nb = dict(
        example=ex,
        provenance="derived",
        derived_from="Bernoulli naive Bayes on the printed spam table, exact fractions of the catalogue",
        measured_by="replearn.models:naive_bayes",
    )
    rec.add(
        source + ", Laplace (+1/+2): joints 54/3125 vs 12/3125 (catalogue, exact fractions)",
        "P(spam | x') with Laplace smoothing",
        9 / 11,
        float(laplace.predict_proba(SPAM_NEW)[0, spam]),
        1e-12,
        **nb,
    )
    rec.add(
        source + ", no smoothing: the ham class has phi_viagra = 0, so P(spam | x') = 1",
        "P(spam | x') without smoothing",
        1.0,
        float(mle.predict_proba(SPAM_NEW)[0, spam]),
        1e-12,
        **nb,
    )
    phi = np.exp(laplace.feature_log_prob_)
    rec.add(
        source + ": phi_spam = (3/5, 3/5, 3/5, 2/5, 3/5)",
        "max |smoothed word probability - printed| for the spam class",
        0.0,
        float(np.max(np.abs(phi[spam] - np.array([3, 3, 3, 2, 3]) / 5))),
        1e-12,
        **nb,
    )
    rec.add(
        source + ": phi_ham = (3/5, 1/5, 3/5, 4/5, 1/5)",
        "max |smoothed word probability - printed| for the ham class",
        0.0,
        float(np.max(np.abs(phi[1 - spam] - np.array([3, 1, 3, 4, 1]) / 5))),
        1e-12,
        **nb,
    )
    tables["spam_phi"] = {"spam": phi[spam].tolist(), "ham": phi[1 - spam].tolist()}


CORNERS = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=float)


def _perceptrons(rec: Recorder) -> dict:
    ex = "cs480.or-perceptron"
    source = (
        f"{NOTES} L96-100 (OR; derived in the catalogue): from w = 0, b = 0 with sgn(0) = -1, in the order (0,0), "
        "(1,0), (0,1), (1,1)"
    )
    m = models.create("perceptron", max_iter=100, shuffle=False).fit(CORNERS, np.array([0, 1, 1, 1]))
    how = dict(
        example=ex,
        provenance="derived",
        derived_from="the perceptron's trace on the notes' OR table, derived in the catalogue",
        measured_by="replearn.models:perceptron",
    )
    rec.add(source, "w1 of the perceptron on OR", 2.0, float(m.coef_[0, 0]), 0.0, **how)
    rec.add(source, "w2 of the perceptron on OR", 2.0, float(m.coef_[0, 1]), 0.0, **how)
    rec.add(source, "b of the perceptron on OR", -1.0, float(m.intercept_[0]), 0.0, **how)
    rec.add(source, "mistakes of the perceptron on OR", 9, int(np.sum(m.mistakes_)), 0, **how)
    rec.add(source, "passes of the perceptron on OR (the last one without a mistake)", 6, int(m.n_iter_), 0, **how)
    largest = 0.0
    converged = 0
    for passes in (1, 2, 5):
        x = models.create("perceptron", max_iter=passes, shuffle=False).fit(CORNERS, np.array([0, 1, 1, 0]))
        largest = max(largest, float(np.max(np.abs(x.coef_))), abs(float(x.intercept_[0])))
        converged += int(bool(x.converged_))
    src = f"{NOTES} L241-255 (XOR, Thm. 2.11): no separator; the same perceptron cycles back to w = 0, b = 0 every pass"
    how = dict(example="cs480.xor-perceptron", provenance="invariant", measured_by="replearn.models:perceptron")
    rec.add(src, "largest |w|, |b| after 1, 2 and 5 passes on XOR", 0.0, largest, 0.0, **how)
    rec.add(src, "runs on XOR that converged (of 3)", 0, converged, 0, **how)
    return {"w": m.coef_[0].tolist(), "b": float(m.intercept_[0]), "mistakes": int(np.sum(m.mistakes_))}


def _ill_conditioned(rec: Recorder) -> None:
    eps = 1e-3
    X = np.array([[0.0, eps], [1.0, 1.0]]).T  # the notes' columns are the examples: x1 = (0, 1), x2 = (eps, 1)
    y = np.array([1.0, -1.0])
    w = models.create("linear_regression", solver="lstsq", fit_intercept=False).fit(X, y).coef_
    source = f"{NOTES} L316-324: X = [[0, eps], [1, 1]], y = (1, -1): w = y X'(X X')^-1 = (-2/eps, 1), eps = 1e-3"
    how = dict(
        example="cs480.ill-conditioned",
        provenance="derived",
        derived_from="the notes' w = (-2/eps, 1) at eps = 1e-3",
        measured_by="replearn.models:linear_regression",
    )
    rec.add(source + "; tolerance 1e-9 relative", "w1 / 1000", -2.0, float(w[0]) / 1000, 1e-9, **how)
    rec.add(source + "; tolerance 1e-9", "w2", 1.0, float(w[1]), 1e-9, **how)


def _quadratic_kernel(rec: Recorder, rng: np.random.Generator) -> None:
    ex = "cs480.quadratic-feature-map"
    X, Z = rng.normal(size=(5, 3)), rng.normal(size=(4, 3))
    Phi_x, Phi_z = polynomial_feature_map(X, 2, coef0=1.0), polynomial_feature_map(Z, 2, coef0=1.0)
    K = polynomial_kernel(X, Z, degree=2, gamma=1.0, coef0=1.0)
    by = ("replearn.kernels.polynomial_feature_map", "replearn.kernels.polynomial_kernel")
    rec.add(
        f"{NOTES} L641-653: (<x,z> + 1)^2 = <phi(x), phi(z)> with phi = (vec(xx'), sqrt(2) x, 1) of dimension "
        f"d^2 + d + 1 = {Phi_x.shape[1]} (d = 3); tolerance 1e-9 relative",
        "max relative |phi(x)'phi(z) - (<x,z> + 1)^2|",
        0.0,
        float(np.max(np.abs(Phi_x @ Phi_z.T - K)) / np.max(np.abs(K))),
        1e-9,
        example=ex,
        provenance="invariant",
        measured_by=by,
    )
    X2, Z2 = rng.normal(size=(5, 2)), rng.normal(size=(4, 2))
    K2 = polynomial_kernel(X2, Z2, degree=2, gamma=1.0, coef0=0.0)
    maps = (  # phi = (x1^2, sqrt(2) x1 x2, x2^2): the distinct monomials; psi = vec(x x'), with repetitions
        lambda A: polynomial_feature_map(A, 2, repeated=False),
        lambda A: tensor_power_features(A, 2),
    )
    worst = max(float(np.max(np.abs(f(X2) @ f(Z2).T - K2))) for f in maps) / float(np.max(np.abs(K2)))
    rec.add(
        f"{NOTES} L661-663: phi = (x1^2, sqrt(2) x1 x2, x2^2) and psi = (x1^2, x1 x2, x1 x2, x2^2) both give <x,z>^2 "
        "(the feature map is not unique); tolerance 1e-9 relative",
        "max relative |phi(x)'phi(z) or psi(x)'psi(z) - <x,z>^2|",
        0.0,
        worst,
        1e-9,
        example=ex,
        provenance="invariant",
        measured_by=by + ("replearn.kernels.tensor_power_features",),
    )
    rec.add(
        f"{NOTES} L661-663: phi has 3 entries, psi 4 (for x in R^2)",
        "entries of phi plus entries of psi",
        7,
        sum(f(X2[:1]).shape[1] for f in maps),
        0,
        example=ex,
        measured_by=by[:1] + ("replearn.kernels.tensor_power_features",),
    )


def _hidden_activation():
    return ReLU()


def _xor_mlp(rec: Recorder) -> dict:
    ex = "cs480.xor-mlp"
    hidden = Dense(2)
    hidden.build((2,), np.random.default_rng(0))
    hidden.coef_[...] = np.array([[1.0, 1.0], [1.0, 1.0]]).T  # U = [[1, 1], [1, 1]] (rows = hidden units)
    hidden.intercept_[...] = [0.0, -1.0]  # c
    out = Dense(1)
    out.build((2,), np.random.default_rng(0))
    out.coef_[...] = np.array([[2.0], [-4.0]])  # w
    out.intercept_[...] = [-1.0]  # b
    h = _hidden_activation().forward(hidden.forward(CORNERS))
    scores = out.forward(h)[:, 0]
    source = f"{NOTES} L908-916: U = [[1, 1], [1, 1]], c = (0, -1), w = (2, -4), b = -1, ReLU"
    rec.add(
        source + ": hidden h = (0,0), (1,0), (1,0), (2,1) for (0,0), (1,0), (0,1), (1,1)",
        "max |hidden activations - printed|",
        0.0,
        float(np.max(np.abs(h - np.array([[0, 0], [1, 0], [1, 0], [2, 1]])))),
        1e-12,
        example=ex,
        measured_by=("replearn.models.neural.layers.Dense", "replearn.models.neural.activations.ReLU"),
    )
    rec.add(
        source + ": scores -1, +1, +1, -1 (XOR)",
        "max |network score - printed|",
        0.0,
        float(np.max(np.abs(scores - np.array([-1.0, 1.0, 1.0, -1.0])))),
        1e-12,
        example=ex,
        measured_by=("replearn.models.neural.layers.Dense", "replearn.models.neural.activations.ReLU"),
    )
    return {"hidden": h.tolist(), "scores": scores.tolist()}


CONV_IMAGE = np.array([[1, 1, 1, 0, 0], [0, 1, 1, 1, 0], [0, 0, 1, 1, 1], [0, 0, 1, 1, 0], [0, 1, 1, 0, 0]], float)
X_KERNEL = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 1]], float)
CONV_PRINTED = np.array([[4, 3, 4], [2, 4, 3], [2, 3, 4]], float)


def _conv_layer() -> Conv2D:
    return Conv2D(1, kernel_size=3)


def _conv(rec: Recorder) -> list:
    layer = _conv_layer()
    layer.build((1, 5, 5), np.random.default_rng(0))
    layer.coef_[...] = X_KERNEL
    layer.intercept_[:] = 0.0
    got = layer.forward(CONV_IMAGE[None, None])[0, 0]
    differing = CONV_PRINTED.size if got.shape != CONV_PRINTED.shape else int(np.sum(got != CONV_PRINTED))
    rec.add(
        f"{NOTES} Example 10.1 (L1059-1063): the 5x5 image cross-correlated (valid, stride 1) with the X-shaped kernel "
        "gives [[4,3,4],[2,4,3],[2,3,4]]",
        "entries of the 3x3 output differing from the printed one",
        0,
        differing,
        0,
        example="cs480.conv-example",
        measured_by="replearn.models.neural.conv.Conv2D",
    )
    return got.tolist()


def _cholesky(rec: Recorder, rng: np.random.Generator, quick: bool) -> None:
    ex = "cs480.cholesky-sampling"
    mu = np.array([1.0, -2.0, 0.5])
    S = np.array([[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]])
    n = 20000 if quick else 100000
    x = linalg.gaussian_sample(mu, S, n, random_state=rng)
    se_mean = np.sqrt(np.diag(S) / n)
    rec.add(
        f"{NOTES} L1252-1260: E[L n + mu] = mu; {n} draws, in standard errors (tolerance 4)",
        "largest |sample mean - mu| / standard error",
        0.0,
        float(np.max(np.abs(x.mean(axis=0) - mu) / se_mean)),
        4.0,
        example=ex,
        provenance="invariant",
        measured_by="replearn.linalg.gaussian_sample",
    )
    cov = np.cov(x.T)
    se_cov = np.sqrt((S**2 + np.outer(np.diag(S), np.diag(S))) / n)  # sd of a Gaussian sample covariance
    rec.add(
        f"{NOTES} L1252-1260: Cov[L n + mu] = L L' = S; {n} draws, in standard errors (tolerance 4)",
        "largest |sample covariance - S| / standard error",
        0.0,
        float(np.max(np.abs(cov - S) / se_cov)),
        4.0,
        example=ex,
        provenance="invariant",
        measured_by="replearn.linalg.gaussian_sample",
    )
