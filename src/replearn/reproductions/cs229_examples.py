"""CS229 lecture notes and lecture summaries: the worked examples that are a computation, not a figure.

Each record reruns one of the texts' small worked examples with replearn's own code (autodiff, the
binning transformer, the kernels, the polynomial feature map, GDA, ICA, naive Bayes, the tree
criteria, the bootstrap, AdaBoost, the learning-theory bounds and the VC search) and compares it
with the number the text prints, or the number its printed formula gives for the text's inputs.
Everything runs in well under a second; ``quick`` only shrinks the Monte Carlo sizes.

==========================================  ================================================================
catalogue entry                             record(s)
==========================================  ================================================================
cs229.matrix-gradient (§1.2.1 L302)         autodiff gradient of f(A) = 3/2 A11 + 5 A12^2 + A21 A22
cs229s.matrix-gradient (L122-129)           f(A) = A11 + A12^2 = 41 and its gradient [[1, 12], [0, 0]]
cs229.gda-logistic (§4.1.3)                 GDA's posterior = sigmoid of the notes' theta, theta0
cs229.area-bins (§4.2 L1416-1419)           890 sq ft falls in bin 3 of 5 (edges every 400 sq ft)
cs229.cubic-feature-map (§5.3 L1778)        <phi(x), phi(z)> = 1 + <x,z> + <x,z>^2 + <x,z>^3 (d = 3, 40 entries)
cs229.poly-kernel-feature-map (§5.4)        (x'z + c)^2 from a 13-entry phi (d = 3)
cs229.poly-kernel-dimension (§5.4 L1866)    C(d + k, k) monomials of degree <= k
cs229.hoeffding-inequality (§8.3.1)         coin flips: deviation rate <= 2 exp(-2 gamma^2 n)
cs229.hoeffding-sample-size (§8.3.2)        n = 530 for gamma = 0.1, delta = 0.05, k = 1000
cs229.vc-halfplanes (§8.3.3)                triangle shattered, collinear triple not, VC = 3 by search
cs229.ica (§13 L5048-5074)                  ICA recovers sources up to permutation/scale; p_x = 0.5
cs229s.laplace-one-sixth (L1044-1062)       0 wins in 4 games: MLE 0, Laplace 1/6
cs229s.split-example (L1384-1398)           misclassification / entropy / Gini of two splits
cs229s.bootstrap-632 (L1590)                distinct fraction of a bootstrap sample -> 0.632
cs229s.adaboost-log3 (L1614)                err = 0.25 gives alpha = log 3 (twice replearn's 1/2 log 3)
==========================================  ================================================================

Tolerances: exact identities are held to floating-point round-off (1e-9 relative to the size of the
quantity, or 0 for integers); a number printed to k digits is held to half a unit of its last digit;
Monte Carlo quantities to four standard errors (named in the record's source).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats
from scipy.special import expit

from .. import models
from ..autodiff import Tensor
from ..evaluation import bootstrap_splits
from ..features.discretize import Binning
from ..features.polynomial import PolynomialFeatures
from ..kernels import Kernel, feature_product_kernel, polynomial_feature_map, polynomial_kernel, tensor_power_features
from ..models.decomposition.ica import mixture_density
from ..models.trees.criteria import node_impurity, split_gain
from ..theory import hoeffding_bound, hoeffding_sample_size, hoeffding_simulation, realizable, shatters, vc_search
from .record import ExperimentResult, Recorder, half_unit, register

PRESET = "cs229_examples"
NOTES = "CS229 notes"
SUMMARIES = "CS229 summaries"


@register(PRESET)
def run(data_dir=None, *, seed: int, quick: bool = False) -> ExperimentResult:
    """All the examples of the module table; ``data_dir`` is unused (the inputs are printed in the texts)."""
    rng = np.random.default_rng(seed)
    rec = Recorder(PRESET)
    curves: dict = {}
    tables: dict = {}
    _matrix_gradients(rec, tables)
    _gda_logistic(rec, rng)
    _area_bins(rec)
    _kernels(rec, rng, tables)
    curves["hoeffding"] = _hoeffding(rec, seed, quick)
    _vc(rec, tables)
    _ica(rec, rng, quick)
    _laplace(rec)
    _split_example(rec, tables)
    _bootstrap(rec, seed, quick)
    _adaboost(rec)
    notes = (
        "CS229 lecture notes (seed 000) and CS229 lecture summaries (seed 002): the worked examples that are a "
        "computation -- matrix gradients (§1.2.1), GDA's logistic posterior (§4.1.3), discretization (§4.2), the "
        "kernel feature maps (§5.3-5.4), Hoeffding's inequality and the sample complexity n = 530 (§8.3), the VC "
        "dimension of half-planes (§8.3.3), ICA's ambiguities and density (§13), Laplace smoothing, the split "
        f"example, the bootstrap's 0.632 and AdaBoost's log 3 (summaries). Seed {seed}."
    )
    return rec.result(curves, tables, notes)


# --------------------------------------------------------------------------------------------------


def _autodiff_gradient(f, A: np.ndarray) -> tuple[float, np.ndarray]:
    """``f(A)`` and its gradient by replearn's reverse-mode autodiff."""
    T = Tensor(np.array(A, dtype=float), requires_grad=True)
    out = f(T)
    out.backward()
    return float(out.data), np.asarray(T.grad)


def _matrix_gradients(rec: Recorder, tables: dict) -> None:
    A = np.array([[5.0, 6.0], [7.0, 8.0]])
    # notes L302 (L296 is OCR-garbled): grad of 3/2 A11 + 5 A12^2 + A21 A22 is [[3/2, 10 A12], [A22, A21]]
    _, g = _autodiff_gradient(lambda T: 1.5 * T[0, 0] + 5 * T[0, 1] ** 2 + T[1, 0] * T[1, 1], A)
    printed = np.array([[1.5, 10 * A[0, 1]], [A[1, 1], A[1, 0]]])
    rec.add(
        f"{NOTES} §1.2.1 L302: grad f = [[3/2, 10 A12], [A22, A21]], evaluated at A = [[5, 6], [7, 8]]; "
        "tolerance 1e-12 (exact arithmetic)",
        "max |autodiff gradient - printed gradient| of f(A) = 3/2 A11 + 5 A12^2 + A21 A22",
        0.0,
        float(np.max(np.abs(g - printed))),
        1e-12,
        example="cs229.matrix-gradient",
        measured_by="replearn.autodiff.Tensor",
    )
    value, g2 = _autodiff_gradient(lambda T: T[0, 0] + T[0, 1] ** 2, A)
    rec.add(
        f"{SUMMARIES} L122-129: A = [[5, 6], [7, 8]], f(A) = A11 + A12^2 = 41",
        "f(A) = A11 + A12^2 at A = [[5, 6], [7, 8]]",
        41.0,
        value,
        0.0,
        example="cs229s.matrix-gradient",
        measured_by="replearn.autodiff.Tensor",
    )
    rec.add(
        f"{SUMMARIES} L122-129: grad f = [[1, 2 A12], [0, 0]] = [[1, 12], [0, 0]]; tolerance 1e-12",
        "max |autodiff gradient - [[1, 12], [0, 0]]| of f(A) = A11 + A12^2",
        0.0,
        float(np.max(np.abs(g2 - np.array([[1.0, 12.0], [0.0, 0.0]])))),
        1e-12,
        example="cs229s.matrix-gradient",
        measured_by="replearn.autodiff.Tensor",
    )
    tables["matrix_gradients"] = {"A": A.tolist(), "notes_f_gradient": g.tolist(), "summaries_f_gradient": g2.tolist()}


def _gda_logistic(rec: Recorder, rng: np.random.Generator) -> None:
    """GDA's p(y=1|x) against the sigmoid of the notes' theta, computed from the MLE statistics directly."""
    n0, n1 = 120, 80
    cov = np.array([[1.0, 0.6], [0.6, 2.0]])
    X = np.vstack([rng.multivariate_normal([0.0, 0.0], cov, n0), rng.multivariate_normal([1.5, -1.0], cov, n1)])
    y = np.r_[np.zeros(n0, int), np.ones(n1, int)]
    gda = models.create("gda", covariance="shared", reg_covar=0.0).fit(X, y)
    # the MLE of §4.1.2 by hand: phi, mu0, mu1 and the pooled covariance with 1/n
    phi = y.mean()
    mu0, mu1 = X[y == 0].mean(axis=0), X[y == 1].mean(axis=0)
    centred = X - np.where(y[:, None] == 1, mu1, mu0)
    sigma = centred.T @ centred / len(y)
    inv = np.linalg.inv(sigma)
    theta = inv @ (mu1 - mu0)
    theta0 = -0.5 * (mu1 @ inv @ mu1 - mu0 @ inv @ mu0) + np.log(phi / (1 - phi))
    grid = rng.uniform(-4, 4, size=(400, 2))
    rec.add(
        f"{NOTES} §4.1.3 L1283-1349: p(y=1|x) = 1/(1 + exp(-(theta'x + theta0))) with theta = Sigma^-1 (mu1 - mu0), "
        "theta0 = -1/2 (mu1' Sigma^-1 mu1 - mu0' Sigma^-1 mu0) + log(phi/(1 - phi)) from the MLE of §4.1.2; "
        "tolerance 1e-9",
        "max |GDA posterior - sigmoid(theta'x + theta0)| over 400 points",
        0.0,
        float(np.max(np.abs(gda.predict_proba(grid)[:, 1] - expit(grid @ theta + theta0)))),
        1e-9,
        example="cs229.gda-logistic",
        provenance="invariant",
        measured_by="replearn.models:gda",
    )


def _area_bins(rec: Recorder) -> None:
    # the notes' bins: < 400, 400-800, 800-1200, 1200-1600, > 1600 = equal width 400 on [0, 2000]
    binning = Binning(n_bins=5, strategy="uniform").fit(np.array([[0.0], [2000.0]]))
    areas = np.array([[250.0], [650.0], [890.0], [1450.0], [2500.0]])
    bins = binning.transform(areas)[:, 0].astype(int) + 1  # the notes number the bins 1..5
    rec.add(
        f"{NOTES} §4.2 L1416-1419: living area 890 sq ft falls in bin 3 (of <400, 400-800, 800-1200, 1200-1600, >1600)",
        "bin (1..5) of a living area of 890 sq ft",
        3,
        int(bins[2]),
        0,
        example="cs229.area-bins",
        measured_by="replearn.features.discretize.Binning",
    )
    rec.add(
        f"{NOTES} §4.2 L1416-1419: 250, 650, 1450 and 2500 sq ft fall in bins 1, 2, 4, 5",
        "areas 250, 650, 1450, 2500 sq ft put outside their printed bin",
        0,
        int(np.sum(bins[[0, 1, 3, 4]] != np.array([1, 2, 4, 5]))),
        0,
        example="cs229.area-bins",
        measured_by="replearn.features.discretize.Binning",
    )


def _cubic_phi(X: np.ndarray) -> np.ndarray:
    """The notes' cubic feature map with repetitions: 1, x_i, x_i x_j, x_i x_j x_k (1 + d + d^2 + d^3 entries),
    the tensor powers 0-3 of replearn's feature maps side by side."""
    return np.hstack([tensor_power_features(X, k) for k in range(4)])


def _kernels(rec: Recorder, rng: np.random.Generator, tables: dict) -> None:
    X = rng.normal(size=(6, 3))
    Z = rng.normal(size=(5, 3))
    explicit = _cubic_phi(X) @ _cubic_phi(Z).T
    ones = feature_product_kernel(lambda A: np.ones(len(A)))
    cubic = ones + Kernel("linear") + sum(Kernel("polynomial", degree=k, gamma=1.0, coef0=0.0) for k in (2, 3))
    K = cubic(X, Z)
    rec.add(
        f"{NOTES} §5.3 L1741-1778: <phi(x), phi(z)> = 1 + <x,z> + <x,z>^2 + <x,z>^3 for the cubic map "
        f"({_cubic_phi(X[:1]).shape[1]} entries at d = 3); tolerance 1e-9 relative",
        "max relative |phi(x)'phi(z) - (1 + <x,z> + <x,z>^2 + <x,z>^3)| (kernels of replearn)",
        0.0,
        float(np.max(np.abs(explicit - K)) / np.max(np.abs(explicit))),
        1e-9,
        example="cs229.cubic-feature-map",
        provenance="invariant",
        measured_by=("replearn.kernels.tensor_power_features", "replearn.kernels.Kernel"),
    )
    c = 0.7
    Phi_x, Phi_z = polynomial_feature_map(X, 2, coef0=c), polynomial_feature_map(Z, 2, coef0=c)
    K = polynomial_kernel(X, Z, degree=2, gamma=1.0, coef0=c)
    rec.add(
        f"{NOTES} §5.4 L1843-1860: (x'z + c)^2 = <phi(x), phi(z)> with phi = (x_i x_j, sqrt(2c) x_i, c), "
        f"{Phi_x.shape[1]} entries at d = 3, c = {c}; tolerance 1e-9 relative",
        "max relative |phi(x)'phi(z) - polynomial kernel (x'z + c)^2|",
        0.0,
        float(np.max(np.abs(Phi_x @ Phi_z.T - K)) / np.max(np.abs(K))),
        1e-9,
        example="cs229.poly-kernel-feature-map",
        provenance="invariant",
        measured_by=("replearn.kernels.polynomial_feature_map", "replearn.kernels.polynomial_kernel"),
    )
    rec.add(
        f"{NOTES} §5.4 L1860: the map of (x'z + c)^2 has d^2 + d + 1 = 13 entries at d = 3",
        "entries of the feature map of (x'z + c)^2, d = 3",
        13,
        Phi_x.shape[1],
        0,
        example="cs229.poly-kernel-feature-map",
        measured_by="replearn.kernels.polynomial_feature_map",
    )
    widths = {}
    for d, k in ((3, 2), (5, 3), (10, 4)):
        width = PolynomialFeatures(degree=k, include_bias=True).fit(np.zeros((1, d))).transform(np.ones((1, d)))
        widths[f"d={d}, k={k}"] = int(width.shape[1])
        rec.add(
            f"{NOTES} §5.4 L1866: (x'z + c)^k corresponds to all C(d + k, k) monomials of degree <= k",
            f"monomials of degree <= {k} in d = {d} variables (PolynomialFeatures with the constant)",
            math.comb(d + k, k),
            width.shape[1],
            0,
            example="cs229.poly-kernel-dimension",
            provenance="derived",
            derived_from=f"the notes' C(d + k, k) at d = {d}, k = {k}",
            measured_by="replearn.features.polynomial.PolynomialFeatures",
        )
    tables["polynomial_feature_counts"] = widths


def _hoeffding(rec: Recorder, seed: int, quick: bool) -> dict:
    ns = np.array([10, 25, 50, 100, 200, 400])
    phi, gamma = 0.3, 0.1
    trials = 4000 if quick else 20000
    sim = hoeffding_simulation(phi=phi, n=ns, gamma=gamma, n_trials=trials, random_state=seed)
    bound = np.array([min(1.0, hoeffding_bound(int(n), gamma)) for n in ns])
    rec.add(
        f"{NOTES} §8.3.1 L3612-3636: P(|phi_hat - phi| > gamma) <= 2 exp(-2 gamma^2 n); phi = {phi}, "
        f"gamma = {gamma}, {trials} trials per n; exact (the bound is not approached: the rates are far below it)",
        "largest excess of the simulated deviation rate over the Hoeffding bound (n = 10..400)",
        0.0,
        max(0.0, float(np.max(sim.deviation_rate - bound))),
        0.0,
        example="cs229.hoeffding-inequality",
        provenance="invariant",
        measured_by=("replearn.theory.hoeffding_simulation", "replearn.theory.hoeffding_bound"),
    )
    # the exact binomial deviation probability at n = 100 (integer boundaries), against the simulated rate
    n = 100
    k = np.arange(n + 1)
    exact = float(stats.binom.pmf(k[np.abs(k - phi * n) > gamma * n + 1e-9], n, phi).sum())
    se = math.sqrt(exact * (1 - exact) / trials)
    rec.add(
        f"{NOTES} §8.3.1: phi_hat is the mean of n = {n} Bernoulli({phi}) coins, so P(|phi_hat - phi| > {gamma}) is a "
        f"binomial tail ({exact:.4f}); tolerance 4 standard errors of the simulated rate",
        f"simulated P(|phi_hat - phi| > {gamma}) at n = {n}",
        exact,
        float(sim.deviation_rate[list(ns).index(n)]),
        4 * se,
        example="cs229.hoeffding-inequality",
        provenance="derived",
        derived_from=f"the binomial tail of n = {n} Bernoulli({phi}) coins (the notes' setting)",
        measured_by="replearn.theory.hoeffding_simulation",
    )
    rec.add(
        f"{NOTES} §8.3.2 L3724-3768: n >= 1/(2 gamma^2) log(2k/delta) = 529.83 for gamma = 0.1, delta = 0.05, "
        "k = 1000, so n = 530",
        "smallest n with 2k exp(-2 gamma^2 n) <= delta (gamma 0.1, delta 0.05, k 1000)",
        530,
        hoeffding_sample_size(0.1, 0.05, 1000),
        0,
        example="cs229.hoeffding-sample-size",
        provenance="derived",
        derived_from="the notes' n >= 1/(2 gamma^2) log(2k/delta) at gamma = 0.1, delta = 0.05, k = 1000",
        measured_by="replearn.theory.hoeffding_sample_size",
    )
    return {
        "x": ns.tolist(),
        "deviation_rate": sim.deviation_rate.tolist(),
        "hoeffding_bound": bound.tolist(),
        "x_label": "coins n",
        "y_label": "P(|phi_hat - phi| > 0.1)",
    }


def _vc(rec: Recorder, tables: dict) -> None:
    triangle = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    collinear = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    labelings = [np.array(lab) for lab in np.ndindex(2, 2, 2)]
    rec.add(
        f"{NOTES} §8.3.3 L3813-3817: linear classifiers realize all 8 labelings of 3 points in general position",
        "labelings of a triangle realized by a half-plane",
        8,
        sum(realizable("halfplanes", triangle, lab) for lab in labelings),
        0,
        example="cs229.vc-halfplanes",
        measured_by="replearn.theory.realizable",
    )
    rec.add(
        f"{NOTES} §8.3.3 L3819: 3 collinear points are not shattered (+ - + is not separable)",
        "collinear triple shattered (1) or not (0)",
        0,
        int(shatters("halfplanes", collinear)),
        0,
        example="cs229.vc-halfplanes",
        measured_by="replearn.theory.shatters",
    )
    search = vc_search("halfplanes")
    rec.add(
        f"{NOTES} §8.3.3 L3813-3821: VC(H) = 3 for linear classifiers in 2-D (no 4-point set is shattered: "
        f"{search.n_candidates.get(4, 0)} candidate sets of 4 tried)",
        "VC dimension of half-planes found by brute-force shattering",
        3,
        search.dimension,
        0,
        example="cs229.vc-halfplanes",
        measured_by="replearn.theory.vc_search",
    )
    tables["vc_search"] = {"dimension": int(search.dimension), "candidates_tried": dict(search.n_candidates)}


def _mix(S: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Observed signals x = A s (one source per column of S)."""
    return S @ np.asarray(A).T


def _ica(rec: Recorder, rng: np.random.Generator, quick: bool) -> None:
    n = 2000 if quick else 5000
    S = np.c_[rng.uniform(-1, 1, n), rng.laplace(0, 1, n)]
    A = np.array([[1.0, 0.6], [0.4, 1.0]])
    ica = models.create("ica", n_components=2, random_state=0).fit(_mix(S, A))
    est = ica.transform(_mix(S, A))
    corr = np.abs(np.corrcoef(S.T, est.T)[:2, 2:])  # |corr(true source i, estimate j)|
    rec.add(
        f"{NOTES} §13 L5048-5052: the sources are recovered only up to permutation and scale (A -> 2A, s -> 0.5 s "
        f"give the same x); tolerance 0.02 ({n} samples)",
        "min over sources of the best |correlation| with an estimated source",
        1.0,
        float(np.min(np.max(corr, axis=1))),
        0.02,
        example="cs229.ica",
        provenance="invariant",
        measured_by="replearn.models:ica",
    )
    s = rng.uniform(0, 1, n)
    x = _mix(s[:, None], np.array([[2.0]]))[:, 0]
    inside = (x >= 0.5) & (x < 1.5)  # a histogram bin of width 1 inside [0, 2]
    p_hat = float(np.mean(inside))
    rec.add(
        f"{NOTES} §13 L5074: s ~ Uniform[0, 1], A = 2 gives p_x(x) = 0.5 on [0, 2]; tolerance 4 standard errors "
        f"of a histogram bin of width 1 ({n} samples; arithmetic check of the text: numpy's draws times 2)",
        "histogram density of x = 2 s on [0.5, 1.5)",
        0.5,
        p_hat,
        4 * math.sqrt(0.25 / n),
        example="cs229.ica",
        provenance="arithmetic",
    )

    def uniform_pdf(u):
        return ((u >= 0) & (u <= 1)).all(axis=1).astype(float)

    rec.add(
        f"{NOTES} §13 L5074: p_x(x) = p_s(W x) |W| with W = A^-1 = 0.5 (p_s(W x) alone would give 1)",
        "p_s(W x) |W| at x = 1",
        0.5,
        float(mixture_density(uniform_pdf, np.array([[0.5]]), np.array([1.0]))[0]),
        0.0,
        example="cs229.ica",
        measured_by="replearn.models.decomposition.ica.mixture_density",
    )


def _laplace(rec: Recorder) -> None:
    X = np.array([[0.0], [0.0], [0.0], [0.0], [1.0]])  # the "win" feature: 0 in all 4 games of class 1
    y = np.array([1, 1, 1, 1, 0])
    smoothed = models.create("naive_bayes", alpha=1.0).fit(X, y)
    mle = models.create("naive_bayes", alpha=0.0).fit(X, y)
    row = list(smoothed.classes_).index(1)
    rec.add(
        f"{SUMMARIES} L1044-1062: 0 wins in 4 games, Laplace estimate (0 + 1)/(4 + 2) = 1/6; tolerance 1e-12",
        "P(win) with Laplace smoothing (Bernoulli naive Bayes, alpha = 1)",
        1 / 6,
        float(np.exp(smoothed.feature_log_prob_[row, 0])),
        1e-12,
        example="cs229s.laplace-one-sixth",
        measured_by="replearn.models:naive_bayes",
    )
    rec.add(
        f"{SUMMARIES} L1044-1062: the maximum-likelihood estimate is 0/4 = 0",
        "P(win) without smoothing (alpha = 0)",
        0.0,
        float(np.exp(mle.feature_log_prob_[row, 0])),
        0.0,
        example="cs229s.laplace-one-sixth",
        measured_by="replearn.models:naive_bayes",
    )


def _split_example(rec: Recorder, tables: dict) -> None:
    parent = np.array([400.0, 100.0])
    splits = {
        "A": (np.array([150.0, 100.0]), np.array([250.0, 0.0])),
        "B": (np.array([300.0, 100.0]), np.array([100.0, 0.0])),
    }
    source = (
        f"{SUMMARIES} L1384-1398 (parent 500 with 100 minority; A = 250 (100) + 250 pure, B = 400 (100) + 100 pure)"
    )
    printed = {  # criterion -> (parent impurity, gain A, gain B); entropy in bits, derived in the catalogue
        "misclassification": ("0.2", "0", "0"),
        "entropy": ("0.72193", "0.23645", "0.07291"),
        "gini": ("0.32", "0.08", "0.02"),
    }
    out = {}
    by = ("replearn.models.trees.criteria.node_impurity", "replearn.models.trees.criteria.split_gain")
    for criterion, (p_text, a_text, b_text) in printed.items():
        before = node_impurity(parent, criterion)
        gains = {name: split_gain(parent, children, criterion) for name, children in splits.items()}
        out[criterion] = {"parent": before, **gains}
        # misclassification and Gini values are exact fractions (0.2 = 100/500); entropy is printed to 5 digits
        tol = {t: (half_unit(t) if criterion == "entropy" else 1e-12) for t in (p_text, a_text, b_text)}
        how = (
            {}
            if criterion == "misclassification"
            else {"provenance": "derived", "derived_from": f"the {criterion} of the summaries' split (the catalogue)"}
        )
        for quantity, text, value in (
            (f"{criterion} impurity of the parent", p_text, before),
            (f"{criterion} gain of split A", a_text, gains["A"]),
            (f"{criterion} gain of split B", b_text, gains["B"]),
        ):
            rec.add(
                source, quantity, float(text), value, tol[text], example="cs229s.split-example", measured_by=by, **how
            )
    tables["split_example"] = out


def _bootstrap(rec: Recorder, seed: int, quick: bool) -> None:
    n, repeats = 1000, (200 if quick else 600)
    distinct = np.array([np.unique(s.train).size / n for s in bootstrap_splits(n, repeats=repeats, seed=seed)])
    se = float(distinct.std(ddof=1) / math.sqrt(repeats))
    rec.add(
        f"{SUMMARIES} L1590: a bootstrap sample holds 1 - (1 - 1/n)^n -> 0.632 of the examples (the summaries' "
        f"'2/3' is the rough value); n = {n}, {repeats} samples; tolerance half the last printed digit + 4 SE",
        "mean fraction of distinct examples in a bootstrap sample (n = 1000)",
        0.632,
        float(distinct.mean()),
        half_unit("0.632") + 4 * se,
        example="cs229s.bootstrap-632",
        measured_by="replearn.evaluation.bootstrap_splits",
    )


def _adaboost(rec: Recorder) -> None:
    X = np.zeros((100, 1))  # nothing to split on: the weak learner predicts the majority, error 0.25
    y = np.r_[np.ones(75), -np.ones(25)]
    model = models.create("adaboost", n_estimators=1).fit(X, y)
    rec.add(
        f"{SUMMARIES} L1614: alpha = log((1 - err)/err) = log 3 = 1.0986 for err = 0.25 (replearn's alpha is "
        "1/2 log((1 - err)/err), CIML's convention: the summaries' alpha is twice it, the same vote)",
        "twice AdaBoost's first alpha for a learner with weighted error 0.25",
        1.0986,
        2 * float(model.estimator_weights_[0]),
        half_unit("1.0986"),
        example="cs229s.adaboost-log3",
        measured_by="replearn.models:adaboost",
    )
