"""The worked numeric examples, tables and figures of the five course texts, and what reproduces each.

The project's method catalogue (one inventory per text, kept outside the repository) lists, beside
the algorithms, the numbers and figures each text works out. :data:`CATALOGUE` is that list, in text
order -- every worked example with a number, every table and every figure a run
can redraw, leaving out trivia (vocabulary sizes, model sizes of GPT-3, ...), statements with no
number and pure arithmetic that exercises no algorithm. Each entry names the text, section and
source lines (the line numbers of the catalogue's copy of the text), describes what the text shows,
and is either reproduced by the records of one or more presets (``records`` of
:mod:`replearn.reproductions`, whose ``example`` field is the entry's ``id``) or carries the
``reason`` it is not. :data:`EXTRAS` are the examples the presets reproduce that come from outside
the catalogue (a course's published solutions, AIMA's 4x3 world values are *in* it).

Nothing here is computed: the published values are in the presets' records, beside the measured
ones. ``docs/reproductions.md`` renders this table; ``tests/reproductions/test_catalogue.py`` checks
that every entry without a reason has records, that every record names an entry, and the count.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CATALOGUE", "EXTRAS", "TEXTS", "Example", "lookup", "reproduced_entries"]

#: text key -> (display name, the catalogue's source file)
TEXTS: dict[str, tuple[str, str]] = {
    "cs229": ("CS229 lecture notes (Ng, revised by Ma)", "seed 000"),
    "cs229s": ("CS229 lecture summaries", "seed 002"),
    "ciml": ("A Course in Machine Learning (Daumé III)", "seed 001"),
    "cs480": ("Waterloo CS480/680 notes (W2024)", "seed 003"),
    "epfl": ("EPFL CS-433 Machine Learning notes", "seed 004"),
    "extra": ("Published solutions and data sets outside the catalogue", "-"),
}


@dataclass(frozen=True)
class Example:
    """One worked example, table or figure of a text.

    id : ``<text>.<slug>``; text : a key of :data:`TEXTS`; section : e.g. "§8.3.2"; lines : the
    source lines (catalogue copy); kind : "example", "table" or "figure"; title : short name;
    description : what the text shows or claims; reason : why it is not reproduced (None when it is);
    figure : ``(preset, curve)`` the reproduction page draws beside it, if any.
    """

    id: str
    text: str
    section: str
    lines: str
    kind: str
    title: str
    description: str
    reason: str | None = None
    figure: tuple[str, str] | None = None

    @property
    def text_name(self) -> str:
        return TEXTS[self.text][0]

    @property
    def reproduced(self) -> bool:
        return self.reason is None


def _e(id_, section, lines, kind, title, description, reason=None, figure=None) -> Example:
    return Example(id_, id_.split(".", 1)[0], section, lines, kind, title, description, reason, figure)


CATALOGUE: tuple[Example, ...] = (
    # ---------------------------------------------------------------- CS229 lecture notes (seed 000)
    _e(
        "cs229.fig-gd-path",
        "§1.1",
        "L236-244",
        "figure",
        "Gradient descent's path on the contours of J",
        "Caption (prose): 'The ellipses shown above are the contours of a quadratic function. Also shown is the "
        "trajectory taken by gradient descent, which was initialized at (48,30).' Redrawn on the Portland J(theta) "
        "(theta1 per 1000 sq ft).",
        figure=("cs229_plots", "gd_path"),
    ),
    _e(
        "cs229.portland-area",
        "§1.1",
        "L246",
        "example",
        "Portland housing, living area only",
        "Batch gradient descent on the 47 Portland houses (price in $1000) reaches theta0 = 71.27, theta1 = 0.1345.",
        figure=("cs229_housing", "gd_loss_living_area"),
    ),
    _e(
        "cs229.portland-area-bedrooms",
        "§1.1",
        "L250",
        "example",
        "Portland housing, living area and bedrooms",
        "With the number of bedrooms as a second feature: theta0 = 89.60, theta1 = 0.1392, theta2 = -8.738.",
        figure=("cs229_housing", "gd_loss_living_area+bedrooms"),
    ),
    _e(
        "cs229.matrix-gradient",
        "§1.2.1",
        "L296-302",
        "example",
        "Gradient of a function of a matrix",
        "f(A) = 3/2 A11 + 5 A12^2 + A21 A22 has gradient [[3/2, 10 A12], [A22, A21]] (same shape as A).",
    ),
    _e(
        "cs229.newton-figure",
        "§2.3",
        "L633-635",
        "figure",
        "Newton's method, three panels",
        "Tangent steps from theta = 4.5 to about 2.8, then about 1.8, towards a root near 1.3.",
        reason="the function is not printed (only the iterates are), so there is nothing to rerun: any f with a "
        "root near 1.3 would be fitted to the figure, not reproduced. Newton's quadratic convergence is "
        "reproduced instead (cs229s.newton-quadratic).",
    ),
    _e(
        "cs229.fig-gaussian-scale",
        "§4.1.1",
        "L1063-1076",
        "figure",
        "Gaussian densities: Sigma = I, 0.6 I, 2 I",
        "'Here are some examples of what the density of a Gaussian distribution looks like': mean 0 and Sigma = I "
        "(the standard normal), 0.6 I (taller, narrower), 2 I (wider, flatter). Drawn as contours.",
        figure=("cs229_plots", "fig-gaussian-scale"),
    ),
    _e(
        "cs229.fig-gaussian-correlation",
        "§4.1.1",
        "L1078-1098",
        "figure",
        "Gaussian densities: correlated covariances",
        "Mean 0 and Sigma with off-diagonal 0.5, 0.8 (the density 'compressed towards the 45° line'), -0.5, -0.8 "
        "(the other diagonal) and [[3, 0.8], [0.8, 1]]: 'more generally the contours will form ellipses'.",
        figure=("cs229_plots", "fig-gaussian-correlation"),
    ),
    _e(
        "cs229.fig-gaussian-mean",
        "§4.1.1",
        "L1100-1106",
        "figure",
        "Gaussian densities: moving the mean",
        "'Fixing Sigma = I, by varying mu, we can also move the mean of the density around': mu = (1, 0), (-0.5, "
        "0), (-1, -1.5).",
        figure=("cs229_plots", "fig-gaussian-mean"),
    ),
    _e(
        "cs229.fig-gda",
        "§4.1.2",
        "L1181-1190",
        "figure",
        "GDA: two Gaussians with a shared covariance",
        "'Shown in the figure are the training set, as well as the contours of the two Gaussian distributions that "
        "have been fit to the data in each of the two classes. Note that the two Gaussians have contours that are "
        "the same shape and orientation, since they share a covariance matrix Sigma ... Also shown ... is the "
        "straight line giving the decision boundary at which p(y = 1|x) = 0.5.'",
        figure=("cs229_plots", "gda"),
    ),
    _e(
        "cs229.gda-logistic",
        "§4.1.3",
        "L1283-1349",
        "example",
        "GDA implies a logistic posterior",
        "With a shared covariance, p(y=1|x) of GDA is exactly a sigmoid of a linear function, "
        "theta = Sigma^-1 (mu1 - mu0), theta0 = -1/2 (mu1' S^-1 mu1 - mu0' S^-1 mu0) + log(phi/(1-phi)).",
    ),
    _e(
        "cs229.area-bins",
        "§4.2",
        "L1416-1419",
        "example",
        "Discretizing the living area",
        "Bins <400, 400-800, 800-1200, 1200-1600, >1600 square feet map to 1..5; a house of 890 sq ft is in bin 3.",
    ),
    _e(
        "cs229.laplace-unseen-word",
        "§4.2.1",
        "L1427-1447",
        "example",
        "An unseen word breaks naive Bayes without smoothing",
        "A word never seen in training gives phi = 0 for both classes, so the posterior is 0/0; Laplace "
        "smoothing keeps every posterior finite.",
    ),
    _e(
        "cs229.cubic-feature-map",
        "§5.3",
        "L1741-1778",
        "example",
        "The cubic feature map's inner product",
        "For phi(x) with all monomials of degree <= 3 (with repetitions, 1 + d + d^2 + d^3 entries), "
        "<phi(x), phi(z)> = 1 + <x,z> + <x,z>^2 + <x,z>^3, computable in O(d).",
    ),
    _e(
        "cs229.poly-kernel-feature-map",
        "§5.4",
        "L1843-1860",
        "example",
        "The feature map of (x'z + c)^2",
        "For d = 3, (x'z + c)^2 = <phi(x), phi(z)> with phi = (x_i x_j (9 entries), sqrt(2c) x_i (3), c): 13 entries.",
    ),
    _e(
        "cs229.poly-kernel-dimension",
        "§5.4",
        "L1866",
        "example",
        "Dimension of the polynomial kernel's feature space",
        "(x'z + c)^k corresponds to all C(d+k, k) monomials of degree up to k.",
    ),
    _e(
        "cs229.max-margin-figure",
        "§6.6",
        "L2257-2261",
        "figure",
        "The maximum-margin separator and its support vectors",
        "The optimal margin classifier; only the points on the margin (the support vectors) have alpha_i > 0, "
        "and the margin band is 2/||w|| wide.",
        figure=("cs229_figures", "max_margin"),
    ),
    _e(
        "cs229.fig-coordinate-ascent",
        "§6.8.1",
        "L2405-2411",
        "figure",
        "Coordinate ascent's path",
        "'The ellipses in the figure are the contours of a quadratic function that we want to optimize. Coordinate "
        "ascent was initialized at (2, -2) ... Notice that on each step, coordinate ascent takes a step that's "
        "parallel to one of the axes.'",
        figure=("cs229_plots", "coordinate_ascent"),
    ),
    _e(
        "cs229.fig-8.1",
        "§8.1",
        "L3316",
        "figure",
        "Training and test data of the running example",
        "Fig. 8.1: 'A running example of training and test dataset for this section.'",
        figure=("cs229_plots", "fig_8_1"),
    ),
    _e(
        "cs229.fig-8.2",
        "§8.1",
        "L3318-3332",
        "figure",
        "The best line underfits",
        "Fig. 8.2: 'The best fit linear model has large training and test errors.'",
        figure=("cs229_plots", "fig_8_2"),
    ),
    _e(
        "cs229.fig-8.3",
        "§8.1",
        "L3334-3346",
        "figure",
        "The best line on a much larger dataset",
        "Fig. 8.3: 'The best fit linear model on a much larger dataset still has a large training error.'",
        figure=("cs229_plots", "fig_8_3"),
    ),
    _e(
        "cs229.fig-8.4",
        "§8.1",
        "L3348-3350",
        "figure",
        "The best line on noiseless data",
        "Fig. 8.4: 'The best fit linear model on a noiseless dataset also has a large training/test error.'",
        figure=("cs229_plots", "fig_8_4"),
    ),
    _e(
        "cs229.fig-8.5",
        "§8.1",
        "L3352-3357",
        "figure",
        "The degree-5 fit overfits",
        "Fig. 8.5: 'Best fit 5-th degree polynomial has zero training error, but still has a large test error and "
        "does not recover the ground truth. This is a classic situation of overfitting.'",
        figure=("cs229_plots", "fig_8_5"),
    ),
    _e(
        "cs229.fig-8.6",
        "§8.1",
        "L3359-3373",
        "figure",
        "The degree-5 fit on a huge dataset",
        "Fig. 8.6: 'The best fit 5-th degree polynomial on a huge dataset nearly recovers the ground-truth -- "
        "suggesting that the culprit in Figure 8.5 is the variance (or lack of data) but not bias.'",
        figure=("cs229_plots", "fig_8_6"),
    ),
    _e(
        "cs229.fig-8.7",
        "§8.1",
        "L3375-3380",
        "figure",
        "Degree-5 fits on three datasets",
        "Fig. 8.7: 'The best fit 5-th degree models on three different datasets generated from the same "
        "distribution behave quite differently, suggesting the existence of a large variance.'",
        figure=("cs229_plots", "fig_8_7"),
    ),
    _e(
        "cs229.bias-variance",
        "§8.1",
        "Figs. 8.8-8.9, L3311-3511",
        "figure",
        "Bias and variance against the polynomial degree",
        "Quadratic h* plus noise: the line underfits (high bias), the degree-5 fit overfits (high variance), "
        "the quadratic is best; bias^2 falls and variance rises with the degree (Fig. 8.8).",
        figure=("bias_variance", "bias_variance_vs_degree"),
    ),
    _e(
        "cs229.model-wise-double-descent",
        "§8.2",
        "Fig. 8.10, L3513-3524",
        "figure",
        "Model-wise double descent",
        "Test error against the number of parameters first falls, peaks when the model can just fit the n "
        "training points, and falls again in the overparameterized regime.",
        figure=("cs229_figures", "model_wise_double_descent"),
    ),
    _e(
        "cs229.sample-wise-double-descent",
        "§8.2",
        "Fig. 8.11, L3577",
        "figure",
        "Sample-wise double descent and tuned ridge",
        "x ~ N(0, I_500), y = x'beta + N(0, 0.25), ||beta|| = 1: the min-norm test error peaks at n = d; "
        "optimally tuned ridge has no peak.",
        figure=("double_descent", "test_error_vs_n"),
    ),
    _e(
        "cs229.norm-complexity",
        "§8.2",
        "Fig. 8.12, L3588",
        "figure",
        "Parameter norm as the complexity measure",
        "For a fixed training set (n = 500 in the text), the norm of the learned model peaks with the test error "
        "at #parameters = n; test error against the norm shows no double descent.",
        figure=("cs229_figures", "norm_vs_parameters"),
    ),
    _e(
        "cs229.hoeffding-inequality",
        "§8.3.1",
        "L3612-3636",
        "example",
        "Hoeffding's inequality",
        "For n Bernoulli(phi) coins, P(|phi_hat - phi| > gamma) <= 2 exp(-2 gamma^2 n).",
        figure=("cs229_examples", "hoeffding"),
    ),
    _e(
        "cs229.hoeffding-sample-size",
        "§8.3.2",
        "L3724-3768",
        "example",
        "Sample complexity of a finite class",
        "n >= 1/(2 gamma^2) log(2k/delta); gamma = 0.1, delta = 0.05, k = 1000 gives n >= 529.83, so n = 530.",
    ),
    _e(
        "cs229.vc-halfplanes",
        "§8.3.3",
        "L3810-3821",
        "example",
        "VC dimension of linear classifiers in the plane",
        "Some 3 points are shattered (all 8 labelings); 3 collinear points are not; no 4 points are: VC = 3.",
    ),
    _e(
        "cs229.implicit-regularization",
        "§9.2",
        "Fig. 9.2, L3919-3988",
        "figure",
        "Implicit regularization of gradient descent",
        "On an underdetermined least-squares problem gradient descent from zero converges to the minimum-norm "
        "solution; other initializations reach other global minima with the same training loss and a worse "
        "test loss (Fig. 9.2 right; the CIFAR-10 left panel is not rerun).",
        figure=("cs229_figures", "implicit_regularization"),
    ),
    _e(
        "cs229.kmeans",
        "§10",
        "Fig. 10.1, L4136-4204",
        "figure",
        "k-means iterations",
        "Assignment and update steps; the distortion J(c, mu) never increases (coordinate descent).",
        figure=("kmeans_em", "kmeans_distortion: ex7 (init [3 3; 6 2; 8 5])"),
    ),
    _e(
        "cs229.fig-10.1",
        "§10",
        "L4170",
        "figure",
        "k-means: data, random initial centroids, two iterations",
        "Fig. 10.1: 'K-means algorithm. Training examples are shown as dots, and cluster centroids are shown as "
        "crosses. (a) Original dataset. (b) Random initial cluster centroids (in this instance, not chosen to be "
        "equal to two training examples). (c-f) Illustration of running two iterations of k-means.'",
        figure=("cs229_plots", "kmeans_fig_10_1"),
    ),
    _e(
        "cs229.em-gmm",
        "§11.1-11.4",
        "L4580-4596, L4706",
        "example",
        "EM for a mixture of Gaussians",
        "Each EM step is the closed-form E and M step (the mixing weights sum to 1, -beta = n) and the "
        "log-likelihood never decreases.",
        figure=("kmeans_em", "gmm_log_likelihood: old_faithful"),
    ),
    _e(
        "cs229.ica",
        "§13",
        "L5048-5074",
        "example",
        "ICA: ambiguities and the density of x = As",
        "Sources are recoverable only up to permutation and scale (A -> 2A, s -> 0.5 s gives the same x); for "
        "s ~ Uniform[0, 1] and A = 2, p_x(x) = p_s(Wx)|W| = 0.5 on [0, 2] (not p_s(Wx) = 1).",
    ),
    _e(
        "cs229.value-iteration-contraction",
        "§16.1",
        "L5696-5702",
        "example",
        "Value iteration contracts by gamma",
        "||B(V) - V*||_inf <= gamma ||V - V*||_inf: the error shrinks at least by the factor gamma per sweep.",
        figure=("cs229_control", "value_iteration_error"),
    ),
    _e(
        "cs229.lqr-riccati",
        "§16.2",
        "L5704-5782",
        "example",
        "LQR by the Riccati recursion",
        "V_t(s) = s'Phi_t s + Psi_t with the (corrected) backward recursion for Phi_t and the gain L_t; the "
        "optimal policy does not depend on the noise.",
    ),
    _e(
        "cs229.lqr-noise-trace",
        "§16.2",
        "L5768",
        "example",
        "The noise term of LQR",
        "E[w' Phi w] = tr(Sigma Phi) for w ~ N(0, Sigma), so Psi_t = Psi_{t+1} + tr(Sigma Phi_{t+1}).",
    ),
    _e(
        "cs229.kalman",
        "§16.4",
        "L5858-5944",
        "example",
        "The Kalman filter",
        "The predict/update recursion gives the same belief N(s_t|t, Sigma_t|t) as conditioning the joint "
        "Gaussian of all states and observations (the naive O(t^3) computation), in constant time per step.",
    ),
    _e(
        "cs229.pg-baseline",
        "§17",
        "L6008-6030",
        "example",
        "Policy gradient: zero-mean score and the baseline",
        "Returns 1000 + 1 and 1000 - 2 with scores z and -z give estimates 1001 z and -998 z; with baseline 1000 "
        "they are z and 2 z (same mean 1.5 z, far smaller variance); E[grad log pi] = 0.",
    ),
    # ---------------------------------------------------------------- CS229 lecture summaries (seed 002)
    _e(
        "cs229s.matrix-gradient",
        "PS0 / matrix calculus",
        "L122-129",
        "example",
        "f(A) = A11 + A12^2 at A = [[5, 6], [7, 8]]",
        "f(A) = 41 and grad f = [[1, 2 A12], [0, 0]] = [[1, 12], [0, 0]].",
    ),
    _e(
        "cs229s.newton-quadratic",
        "Newton's method",
        "L432-434",
        "example",
        "Newton's method converges quadratically",
        "The error squares at every step: 0.01 -> 1e-4 -> 1e-8.",
        figure=("cs229_logistic", "newton_loss"),
    ),
    _e(
        "cs229s.laplace-one-sixth",
        "Laplace smoothing",
        "L1044-1062",
        "example",
        "0 wins in 4 games",
        "The MLE of P(win) is 0/4 = 0; Laplace smoothing gives (0 + 1)/(4 + 2) = 1/6.",
    ),
    _e(
        "cs229s.split-example",
        "Decision trees",
        "L1384-1398",
        "example",
        "Misclassification loss cannot tell two splits apart",
        "Parent 500 (100 minority): split A = 250 (100 minority) + 250 pure, split B = 400 (100) + 100 pure. "
        "Misclassification: 0.2 before and after both; cross-entropy 0.72193 -> gains 0.23645 (A) and 0.07291 "
        "(B); Gini 0.32 -> gains 0.08 and 0.02.",
    ),
    _e(
        "cs229s.bootstrap-632",
        "Ensembles / bagging",
        "L1590",
        "example",
        "A bootstrap sample holds 63.2% of the examples",
        "The expected fraction of distinct examples in a bootstrap sample is 1 - (1 - 1/n)^n -> 1 - 1/e = 0.632 "
        "(the summaries say 2/3; the limit is 0.632).",
    ),
    _e(
        "cs229s.adaboost-log3",
        "Boosting",
        "L1614",
        "example",
        "AdaBoost weight of a learner with error 0.25",
        "alpha = log((1 - err)/err) = log 3 = 1.0986 (replearn's alpha is half of it: the same vote).",
    ),
    # ---------------------------------------------------------------- CIML (seed 001)
    _e(
        "ciml.course-ratings-tree",
        "§1.3-1.5, Appendix Table 1",
        "L185, L453-469, L5695-5719",
        "table",
        "The decision tree on the course-ratings table",
        "Root split on Systems (18/20 correct); the empty tree errs on 40%; the book's 0% for the full tree is "
        "an erratum (rows 5 and 18 conflict), 5% is the minimum.",
        figure=("ciml_course_ratings", "training_error_vs_depth"),
    ),
    _e(
        "ciml.distances",
        "§3.2",
        "L641-654",
        "example",
        "Euclidean distances",
        "d(<2,3>, <6,1>) is printed sqrt(18) = 4.24 (an arithmetic slip: 16 + 4 = 20, so sqrt(20) = 4.47); "
        "Fig. 3.2: sqrt(0.6^2 + 0.6^2 + 0.3^2) = 0.9.",
    ),
    _e(
        "ciml.fig-3.9",
        "§3.3",
        "L745-753",
        "figure",
        "Decision boundary of 1-NN",
        "Fig. 3.9: 'decision boundary for 1nn' -- 'a solid line separating the positive regions from the negative "
        "regions'.",
        figure=("ciml_plots", "fig_3_9"),
    ),
    _e(
        "ciml.fig-3.10",
        "§3.3",
        "L747-755",
        "figure",
        "Decision boundary of 3-NN",
        "Fig. 3.10: 'decision boundary for knn with k=3' (a smoother, less complex boundary).",
        figure=("ciml_plots", "fig_3_10"),
    ),
    _e(
        "ciml.fig-3.12",
        "§3.3",
        "L757-777",
        "figure",
        "Decision boundary of a decision tree",
        "Fig. 3.12: 'decision boundary for dt in previous figure': 'Their decision boundaries are axis-aligned cuts.'",
        figure=("ciml_plots", "fig_3_12"),
    ),
    _e(
        "ciml.fig-3.13",
        "§3.4",
        "L765-782",
        "figure",
        "Three clusters",
        "Fig. 3.13: 'simple clustering data... clusters in UL, UR and BC' (upper left, upper right, bottom centre).",
        figure=("ciml_plots", "fig_3_13"),
    ),
    _e(
        "ciml.fig-3.14",
        "§3.4",
        "L784-795",
        "figure",
        "The first iterations of k-means",
        "Fig. 3.14: 'first few iterations of k-means running on previous data set'.",
        figure=("ciml_plots", "fig_3_14"),
    ),
    _e(
        "ciml.spheres-in-a-cube",
        "§3.5",
        "L847-867",
        "example",
        "Spheres in a cube",
        "2^D unit spheres in the corners of the cube [-2, 2]^D leave room for a central sphere of radius "
        "sqrt(D) - 1: 0.41 (2D), 0.73 (3D), 1 (4D), 2 (9D), 2.16 (10D) -- outside the cube for D > 9.",
    ),
    _e(
        "ciml.fig-3.18",
        "§3.5",
        "Fig. 3.18, L871-886",
        "figure",
        "Distances between uniform random points concentrate",
        "100 uniform points: average distance 0.346 (1D), 0.518 (2D), 0.615 (3D); the distances concentrate "
        "around 0.4 sqrt(D). (The book's closed form sqrt(D)/3 is exact only for D = 1.)",
        figure=("ciml_figures", "distance_histograms"),
    ),
    _e(
        "ciml.perceptron-update",
        "§4.2",
        "L1012-1024",
        "example",
        "What one perceptron update does",
        "After a mistake on a positive example the activation becomes a' = a + sum_d x_d^2 + 1 > a.",
    ),
    _e(
        "ciml.perceptron-passes",
        "§4.2-4.6",
        "Fig. 4.3, Thm. 2 (L1149), L1251",
        "figure",
        "Perceptron error against passes, the mistake bound, averaging",
        "Training and test error against the number of passes (Fig. 4.3); at most (R/gamma)^2 mistakes on "
        "separable data (Thm. 2); the averaged perceptron generalizes better.",
        figure=("perceptron_epochs", "error_vs_passes"),
    ),
    _e(
        "ciml.fig-4.4",
        "§4.2",
        "Fig. 4.4, L1026-1042",
        "figure",
        "Permuting the examples every pass",
        "500 positives followed by 500 negatives in a fixed order: the perceptron learns from a handful of "
        "examples per pass; permuting (once, or better every pass) converges in fewer passes "
        '("about 20% savings", 20-50%).',
        figure=("ciml_figures", "permutation"),
    ),
    _e(
        "ciml.xor-feature-combinations",
        "§4.7",
        "L1258-1265",
        "example",
        "Feature combinations fix an XOR-like problem",
        "With EXCELLENT, TERRIBLE, NOT and the conjunctions EXCELLENT-AND-NOT, TERRIBLE-AND-NOT, the weights "
        "+1, -1, 0, -2, +2 classify every review; without the conjunctions no linear classifier can.",
    ),
    _e(
        "ciml.irrelevant-feature",
        "§5.1",
        "L1352-1356",
        "example",
        "An irrelevant feature that looks perfect",
        "With N balanced labels, a random binary feature matches the labels (or their negation) exactly with "
        "probability 0.5^(N-1); 0.5^20 = 9.54e-7, about 1e-6 after 21 examples.",
    ),
    _e(
        "ciml.f-measure",
        "§5.5",
        "L1504, Table 5.2 (L1518-1526)",
        "table",
        "F-measure and its table",
        "P = 0.1, R = 0.9 gives F = 0.18; Table 5.2 lists F on the grid P, R in {0, 0.2, ..., 1} (truncated).",
    ),
    _e(
        "ciml.fig-5.14",
        "§5.5",
        "L1510-1516",
        "figure",
        "A precision/recall curve",
        "Fig. 5.14: 'precision recall curve' of a threshold sweep over a classifier's scores.",
        figure=("ciml_plots", "fig_5_14"),
    ),
    _e(
        "ciml.fold-sigma",
        "§5.7",
        "L1642-1650",
        "example",
        "Standard deviation over five folds",
        "F-scores 92.4, 93.9, 96.1, 92.2, 94.4: mean 93.8, sigma = 1.595 (N - 1 denominator), mean - 2 sigma = 90.61.",
    ),
    _e(
        "ciml.t-table",
        "§5.7",
        "Table 5.3, L1626-1632",
        "table",
        "Critical values of the t-test",
        "t >= 1.28, 1.64, 1.96, 2.58 for 90%, 95%, 97.5%, 99.5% confidence (large N).",
    ),
    _e(
        "ciml.debugging",
        "§5.8-5.9",
        "L455, L1693-1727",
        "example",
        "Debugging: learning curves and the majority-vote example",
        "A majority learner on 41 examples (60% positive) says + about 90% of the time (P = 0.9035); a full tree "
        "has zero training error; a cheating feature gives near-0 training error; a high-bias learner's held-out "
        "error is its training error.",
        figure=("learning_curves", "error_vs_n"),
    ),
    _e(
        "ciml.importance-weight",
        "§6.1",
        "L1760-1768",
        "example",
        "Importance weight for 0.1% positives",
        "To balance 0.1% positives against 99.9% negatives, each negative gets weight 0.00101 (exactly "
        "0.001/0.999 = 0.001001; the text puts it on the 'positives' where the negatives are meant).",
    ),
    _e(
        "ciml.fig-7.1",
        "§7.2",
        "L2246-2252",
        "figure",
        "Zero/one loss against the margin",
        "Fig. 7.1: 'plot of zero/one versus margin'.",
        figure=("ciml_plots", "fig_7_1"),
    ),
    _e(
        "ciml.fig-7.2",
        "§7.2",
        "L2254-2258",
        "figure",
        "An S-shaped smooth zero/one loss",
        "Fig. 7.2: 'plot of zero/one versus margin and an S version of it' -- smooth but not convex.",
        figure=("ciml_plots", "fig_7_2"),
    ),
    _e(
        "ciml.fig-7.3",
        "§7.2",
        "L2258-2280",
        "figure",
        "Convex and non-convex functions with chords",
        "Fig. 7.3: 'plot of convex and non-convex functions with two chords each'.",
        figure=("ciml_plots", "fig_7_3"),
    ),
    _e(
        "ciml.fig-7.4",
        "§7.2",
        "L2262-2283",
        "figure",
        "The surrogate losses",
        "Fig. 7.4: 'surrogate loss fns' -- hinge, logistic, exponential and squared (eqs. 7.4-7.7) with the "
        "zero/one loss.",
        figure=("ciml_plots", "fig_7_4"),
    ),
    _e(
        "ciml.fig-7.5",
        "§7.3",
        "L2307-2328",
        "figure",
        "Level sets of p-norms",
        "Fig. 7.5: 'level sets of the same p-norms' (max, 2, 1 and p < 1).",
        figure=("ciml_plots", "fig_7_5"),
    ),
    _e(
        "ciml.fig-7.7",
        "§7.4",
        "L2405-2416",
        "figure",
        "Good and bad step sizes",
        "Fig. 7.7: 'good and bad step sizes' -- 'if the step size is too big, you can accidentally step over the "
        "optimum and end up oscillating. If the step size is too small, it will take way too long'.",
        figure=("ciml_plots", "fig_7_7"),
    ),
    _e(
        "ciml.fig-7.8",
        "§7.5",
        "L2436-2470",
        "figure",
        "Hinge loss with subgradients",
        "Fig. 7.8: 'hinge loss with sub' -- 'example subderivatives are shown for the hinge loss function'. "
        "**Errata**: L2440 inverts the regions of the derivative and L2468 puts the kink at z = 0; it is at z = 1.",
        figure=("ciml_plots", "fig_7_8"),
    ),
    _e(
        "ciml.fig-7.10",
        "§7.7",
        "L2546-2563",
        "figure",
        "Three separating hyperplanes",
        "Fig. 7.10: 'picture of data points with three hyperplanes, RGB with G the best' (the largest margin).",
        figure=("ciml_plots", "fig_7_10"),
    ),
    _e(
        "ciml.fig-7.11",
        "§7.7",
        "L2558-2566",
        "figure",
        "A hyperplane with its margins",
        "Fig. 7.11: 'hyperplane with margins on sides' -- y(w.x + b) = 1 on both margins.",
        figure=("ciml_plots", "fig_7_11"),
    ),
    _e(
        "ciml.fig-7.12",
        "§7.7",
        "L2576-2585",
        "figure",
        "One bad point with slack",
        "Fig. 7.12: 'one bad point with slack' -- the soft-margin SVM moves it with a slack variable.",
        figure=("ciml_plots", "fig_7_12"),
    ),
    _e(
        "ciml.svm-slack",
        "§7.7",
        "L2620-2624",
        "example",
        "A slack variable",
        "A positive example with w.x + b = 0.2 needs slack xi = 0.8 (hinge loss max(0, 1 - y(w.x + b))).",
    ),
    _e(
        "ciml.mle-coin",
        "§9.2, §9.7",
        "L2974-2994, L3210",
        "example",
        "Maximum likelihood for a coin",
        "HHTH: p = beta^3 (1 - beta), maximized at beta = 3/4; after HH the MLE is 1.0.",
    ),
    _e(
        "ciml.xor-network",
        "§10.1",
        "Table 10.1, L3308-3331",
        "table",
        "A two-layer network for XOR",
        "Hidden OR unit (bias -0.5, weights 1, 1; tanh version bias -500,000, weights 1,000,000), AND unit, "
        "output weights -2 and +1 on the +-1 features of Table 10.1 (y = +1 iff x1 = x2). **Erratum**: with +-1 "
        "features the printed 'OR' unit computes AND (its bias is the one for 0/1 features) and the output needs a "
        "bias: the printed network misclassifies 3 of the 4 points; with the OR bias +0.5 and an output bias of +2 "
        "it classifies all 4.",
    ),
    _e(
        "ciml.fig-10.3",
        "§10.3",
        "Fig. 10.3, L3433-3456",
        "figure",
        "Random versus zero initialization",
        "Ten networks from small random weights (uniform in [-0.1, 0.1]) and one from all-zero weights: the "
        "zero-initialized network's hidden units stay identical, and it does worse.",
        figure=("ciml_figures", "initialization"),
    ),
    _e(
        "ciml.noise-floor",
        "§12.2",
        "L3962-3976",
        "example",
        "Label noise sets a floor on the error",
        "D(+1, +1) = D(-1, -1) = 0.4, D(+1, -1) = D(-1, +1) = 0.1: no classifier beats 20% error.",
    ),
    _e(
        "ciml.conjunctions",
        "§12.4",
        "Table 12.1, L4026-4047",
        "table",
        "Learning a conjunction (Alg. 31)",
        "On (+1; 0 0 1 1), (+1; 0 1 1 1), (-1; 1 1 0 1): f^1 = not x1 and not x2 and x3 and x4, "
        "f^2 = f^3 = not x1 and x3 and x4.",
    ),
    _e(
        "ciml.vc-fig-12.2",
        "§12.6",
        "Fig. 12.2, L4126-4143",
        "figure",
        "Three points shattered, four not",
        "Lines in the plane shatter 3 points in general position but not the 4 points of the XOR labelling.",
    ),
    _e(
        "ciml.bagging-oob",
        "§13.1",
        "L4199-4203",
        "example",
        "Bootstrap: the examples left out",
        "Each example is left out of a bootstrap sample with probability (1 - 1/N)^N -> 1/e = 0.3679 "
        "(0.36770 for N = 1000), so about 63% appear.",
    ),
    _e(
        "ciml.fig-13.2",
        "§13.1",
        "L4204-4208",
        "figure",
        "Overfitting: regularization versus bagging",
        "Fig. 13.2: 'graph depicting overfitting using regularization versus bagging' -- 'bagging tends to reduce "
        "variance, it provides an alternative approach to regularization'.",
        figure=("ciml_plots", "fig_13_2"),
    ),
    _e(
        "ciml.adaboost-example",
        "§13.2",
        "L4244-4252",
        "example",
        "AdaBoost's first round",
        "80 positives, 20 negatives, a majority-class learner: error 0.2, alpha = 1/2 log 4 = 0.6931; weights 1/160 "
        "per positive and 1/40 per negative after normalization, so each class weighs 1/2.",
    ),
    _e(
        "ciml.fig-13.3",
        "§13.2",
        "Fig. 13.3, L4255-4271",
        "figure",
        "Boosting: depth of the weak learner against the number of rounds",
        "Boosted decision stumps are a linear classifier sign(w.x + b) on binary features (eqs. 13.1-13.4); test "
        "error against boosting rounds, one curve per tree depth.",
        figure=("ciml_figures", "boosting"),
    ),
    _e(
        "ciml.truncated-gradient",
        "§14.3",
        "L4408-4424",
        "example",
        "Truncated gradient for sparsity",
        "w = 0.6 and a gradient step of 0.8 overshoot to -0.2; the truncated step stops at 0 instead.",
    ),
    _e(
        "ciml.fig-15.1",
        "§15.2",
        "L4598-4615",
        "figure",
        "2-D data and its PCA projection",
        "Figs. 15.1/15.2: 'Data in two dimensions' and its 'Projection ... down to one dimension by PCA'.",
        figure=("ciml_plots", "fig_15_1"),
    ),
    _e(
        "ciml.fig-16.1",
        "§16.2",
        "L4836-4846",
        "figure",
        "Soft assignments of a mixture of Gaussians",
        "Fig. 16.1: 'pie charts' of each example's soft assignment z_nk, 'the probability that example n is "
        "assigned to cluster k'.",
        figure=("ciml_plots", "fig_16_1"),
    ),
    _e(
        "ciml.viterbi-step",
        "§17.7",
        "L5342-5359",
        "example",
        "One Viterbi step",
        "alpha_2 = (2, 9, -1) for (noun, verb, adj); with w[tasty/adj] = 1.2, w[noun:adj] = -5, w[verb:adj] = 2.5, "
        "w[adj:adj] = 2.2: alpha_3,adj = max{-1.8, 12.7, 2.4} = 12.7, back-pointer verb.",
    ),
    _e(
        "ciml.imitation-expert",
        "§18.5",
        "L5675-5681",
        "example",
        "The expert for sequence labelling",
        "Gold y = noun verb adj noun; after the prefix 'noun noun' the best achievable Hamming loss is 1 and the "
        "expert's next label is adj.",
    ),
    # ---------------------------------------------------------------- Waterloo CS480/680 (seed 003)
    _e(
        "cs480.spam-naive-bayes",
        "Naive Bayes",
        "L84-92",
        "table",
        "The spam table",
        "Words and, viagra, the, of, nigeria in 6 e-mails; x' = (1, 1, 0, 0, 0): Laplace-smoothed Bernoulli naive "
        "Bayes gives P(spam | x') = 9/11 = 0.818; without smoothing P = 1.",
    ),
    _e(
        "cs480.or-perceptron",
        "Perceptron",
        "L96-100",
        "example",
        "The perceptron on OR",
        "From w = 0, b = 0 (sgn(0) = -1), order (0,0), (1,0), (0,1), (1,1): w = (2, 2), b = -1 after 9 mistakes "
        "in 6 passes.",
    ),
    _e(
        "cs480.xor-perceptron",
        "Perceptron",
        "L241-255",
        "example",
        "The perceptron cycles on XOR",
        "No separator exists; the perceptron returns to w = 0, b = 0 after every pass.",
    ),
    _e(
        "cs480.ill-conditioned",
        "Linear regression",
        "L316-324",
        "example",
        "An ill-conditioned interpolation",
        "X = [[0, eps], [1, 1]] (columns are examples), y = (1, -1): w = y X'(X X')^-1 = (-2/eps, 1), i.e. -2000 for "
        "eps = 1e-3; ridge keeps it bounded.",
    ),
    _e(
        "cs480.quadratic-feature-map",
        "Kernels",
        "L641-663",
        "example",
        "Feature maps of the quadratic kernel",
        "(<x,z> + 1)^2 = <phi(x), phi(z)> with phi = (vec(xx'), sqrt(2) x, 1) of dimension d^2 + d + 1; "
        "phi = (x1^2, sqrt(2) x1 x2, x2^2) and psi = (x1^2, x1 x2, x1 x2, x2^2) both give <x,z>^2.",
    ),
    _e(
        "cs480.xor-mlp",
        "Neural networks",
        "L908-916",
        "example",
        "A ReLU network for XOR",
        "U = [[1, 1], [1, 1]], c = (0, -1), w = (2, -4), b = -1: hidden h = (0,0), (1,0), (1,0), (2,1) and "
        "scores -1, +1, +1, -1 on (0,0), (1,0), (0,1), (1,1).",
    ),
    _e(
        "cs480.conv-example",
        "Convolutional networks",
        "Example 10.1, L1059-1063",
        "example",
        "A 3x3 convolution of a 5x5 image",
        "The binary image convolved (valid cross-correlation, stride 1) with the X-shaped kernel "
        "[[1,0,1],[0,1,0],[1,0,1]] gives [[4,3,4],[2,4,3],[2,3,4]].",
    ),
    _e(
        "cs480.cholesky-sampling",
        "GANs: sampling",
        "L1252-1260",
        "example",
        "Gaussian sampling by the Cholesky factor",
        "x = L n + mu with L L' = S and n ~ N(0, I) has mean mu and covariance S.",
    ),
    # ---------------------------------------------------------------- EPFL CS-433 (seed 004)
    _e(
        "epfl.step-size",
        "Optimization: gradient descent",
        "L138-150",
        "example",
        "Step size of gradient descent on a 1-parameter MSE",
        "For L(w) = 1/(2N) sum (y_n - w)^2: gamma = 1 reaches the optimum in one step, gamma < 1 converges "
        "monotonically, 1 < gamma < 2 oscillates and converges, gamma = 2 cycles, gamma > 2 diverges "
        "(w_t - y_bar = (1 - gamma)^t (w_0 - y_bar); y = 1, 2, 3, 6).",
        figure=("epfl_examples", "step_size"),
    ),
    _e(
        "epfl.svm-dual-step",
        "SVM: dual coordinate ascent",
        "L1050-1095 (lab doctest)",
        "example",
        "One coordinate step of the SVM dual",
        "y = (1, -1), X = [[1,2,3],[4,5,6]], w = (-.3, -.3, -.3), alpha = (.1, .1), lambda = 1, n = 0: "
        "w = (-0.1, 0.1, 0.3), alpha = (0.5, 0.1).",
    ),
    _e(
        "epfl.test-set-bound",
        "Generalization: test-set bound",
        "L603-651",
        "table",
        "Hoeffding's bound on a test set with K models",
        "epsilon = sqrt(log(2K/delta)/(2N)) for a [0, 1] loss, delta = 0.05: 0.1358 (N = 100, K = 1), 0.0429 "
        "(1000, 1), 0.0547 (1000, 10), 0.2036 (100, 100), 0.0644 (1000, 100).",
    ),
    _e(
        "epfl.polynomial-kernel",
        "Kernels",
        "L1161-1168 (numbers derived in the catalogue)",
        "example",
        "The polynomial kernel as an inner product",
        "x = (1, 2, 3), x' = (0.5, -1, 2): (x'x')^2 = 20.25 = phi(x)'phi(x').",
    ),
)

#: examples reproduced by the presets that are not in the catalogue (published solutions, data sets)
EXTRAS: tuple[Example, ...] = (
    _e(
        "extra.aima-4x3",
        "AIMA 3rd ed. Fig. 17.3",
        "Russell & Norvig (the 4x3 world of the CS229 lectures)",
        "table",
        "V* of the 4x3 world",
        "Value iteration (CS229 notes §15.2) on Russell & Norvig's 4x3 world (gamma = 1, living reward -0.04, noise "
        "0.2) gives the utilities AIMA prints: 0.812 0.868 0.918 / 0.762 0.660 / 0.705 0.655 0.611 0.388. The world "
        "and its values are in none of the five texts.",
    ),
    _e(
        "extra.cs229-ps1-logistic",
        "CS229 PS1 Q1",
        "published solution",
        "example",
        "Newton's method for logistic regression (PS1 Q1)",
        "theta = (-2.6205, 0.7604, 1.1719) on the PS1 data; gradient ascent reaches the same maximum.",
        figure=("cs229_logistic", "decision_boundary"),
    ),
    _e(
        "extra.cs229-lwr",
        "CS229 notes §1.4, PS1 Q2",
        "L438-472",
        "figure",
        "Locally weighted regression over the bandwidth",
        "LWR tends to OLS as tau grows; small tau fits the training data closely.",
        figure=("cs229_lwr", "error_vs_tau"),
    ),
    _e(
        "extra.cs229-ps2-spam",
        "CS229 PS2 spam",
        "published solution",
        "example",
        "Naive Bayes on the CS229 spam data (PS2)",
        "Test error of multinomial naive Bayes for 100-2144 training e-mails and the most spam-indicative tokens.",
        figure=("cs229_spam", "test_error_vs_n"),
    ),
    _e(
        "extra.epfl-project1",
        "EPFL CS-433 project 1",
        "public grading tests (epfml/ML_course)",
        "table",
        "The project-1 grading tests",
        "The six functions of implementations.py (GD, SGD, least squares, ridge with 2N lambda, logistic and "
        "regularized logistic regression) on the tests' 3 x 2 problem: the published w and losses, to rtol 1e-4.",
        figure=("epfl_project1", "grading_tests"),
    ),
    _e(
        "extra.coursera-ex7",
        "Coursera ML ex7",
        "ex7.m",
        "example",
        "One k-means step on ex7data2",
        "Centroids after one update from [3 3; 6 2; 8 5].",
    ),
)

_INDEX = {e.id: e for e in CATALOGUE + EXTRAS}
if len(_INDEX) != len(CATALOGUE) + len(EXTRAS):  # pragma: no cover - a typo in the table above
    raise RuntimeError("duplicate catalogue ids")


def lookup(example_id: str) -> Example | None:
    """The entry with id ``example_id`` (catalogue or extras), or None."""
    return _INDEX.get(example_id)


def reproduced_entries() -> list[Example]:
    """The catalogue entries that some preset reproduces (no ``reason``)."""
    return [e for e in CATALOGUE if e.reason is None]
