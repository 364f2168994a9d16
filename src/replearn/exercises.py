"""Exercises of the texts that a student can run, and a grader for their answers.

The texts leave steps to the reader -- CIML's margin questions ("? Verify that these output weights will actually
give you XOR"), the CS229 notes' "convince yourself" and "you can easily verify" steps, and derivations whose claim a
run can check (the gradient-descent rate, Jensen's inequality, the calibration of the logistic loss, EPFL's 1-NN
bound, Barron's rate, the imitation-learning bounds). Each :class:`Exercise` here has the text, section and lines,
the question, and a solution computed by replearn's own algorithms (never typed in); :func:`check` grades an
answer against it:

    >>> from replearn import exercises
    >>> exercises.check("ciml-3.2-distance", 4.47).correct
    True
    >>> exercises.check("ciml-3.2-distance", 4.24).message  # doctest: +ELLIPSIS
    'not right: ... the text prints 4.24 ...'

On the command line: ``replearn check-exercise ciml-3.2-distance 4.47`` (exit 0 when right, 1 when wrong, 2 for an
unknown exercise or an answer that cannot be read), ``replearn check-exercise --list``, and ``--show ID`` for the
question. The documentation's exercise pages (docs/exercises/) are executed when the site builds: every exercise's
solution must pass its grader and a wrong answer must fail it, or the build fails.

Answers: a number (``4.47``), several numbers (``"-11, -25"`` or ``[-11, -25]``) or a word (``xor``). Numeric
answers are compared with an absolute tolerance stated in the exercise (a rounding of the printed precision); some
exercises accept any answer with a property (``ciml-4.7-xor-weights``: any weights that classify XOR) and grade it
by running it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Exercise", "Verdict", "EXERCISES", "exercise", "check", "parse_answer", "main"]

Answer = float | tuple[float, ...] | str


@dataclass(frozen=True)
class Verdict:
    """The grader's answer: ``correct``, a ``message`` for the student, and the ``expected`` answer (shown only when
    the student asks to see the solution)."""

    exercise: str
    correct: bool
    message: str
    expected: Answer | None = None


@dataclass(frozen=True)
class Exercise:
    """One runnable exercise.

    id : ``<text>-<section>-<slug>``; text, section, lines : where it is; question : what to compute (with the
    expected form of the answer); solve : computes the answer with replearn; tolerance : absolute, for numbers;
    accept : optional grader of an open answer (``answer -> (correct, message)``) used instead of comparing with
    ``solve()``; errata : printed (wrong) answers of the text -> the explanation the grader gives; how : the
    replearn call a student can use (shown on the exercise page).
    """

    id: str
    text: str
    section: str
    lines: str
    question: str
    solve: Callable[[], Answer]
    tolerance: float = 1e-6
    accept: Callable[[Answer], tuple[bool, str]] | None = None
    errata: dict = field(default_factory=dict)
    how: str = ""

    def solution(self) -> Answer:
        value = self.solve()
        if isinstance(value, str):
            return value.strip().lower()
        arr = np.atleast_1d(np.asarray(value, dtype=np.float64))
        return float(arr[0]) if arr.size == 1 else tuple(float(v) for v in arr)


def parse_answer(text) -> Answer:
    """A number, a tuple of numbers or a lower-cased word from a command-line string (or a Python value)."""
    if isinstance(text, (int, float, np.integer, np.floating)) and not isinstance(text, bool):
        return float(text)
    if isinstance(text, (list, tuple, np.ndarray)):
        values = [float(v) for v in np.ravel(text)]
        return values[0] if len(values) == 1 else tuple(values)
    s = str(text).strip()
    if s.startswith("["):
        return parse_answer(json.loads(s))
    parts = [p for p in s.replace(";", ",").split(",") if p.strip()] if "," in s or ";" in s else s.split()
    try:
        values = [float(p) for p in parts]
    except ValueError:
        return s.lower()
    if not values:
        raise ValueError("empty answer")
    return values[0] if len(values) == 1 else tuple(values)


def _numbers(answer: Answer) -> np.ndarray | None:
    if isinstance(answer, str):
        return None
    return np.atleast_1d(np.asarray(answer, dtype=np.float64))


def check(exercise_id: str, answer) -> Verdict:
    """Grade ``answer`` for the exercise ``exercise_id`` (a :class:`Verdict`); unknown ids raise ``KeyError``."""
    ex = exercise(exercise_id)
    given = parse_answer(answer)
    expected = ex.solution()
    if ex.accept is not None:
        ok, why = ex.accept(given)
        return Verdict(ex.id, bool(ok), ("right: " if ok else "not right: ") + why, expected)
    num, want = _numbers(given), _numbers(expected)
    if want is None:
        ok = isinstance(given, str) and given == expected
        return Verdict(ex.id, ok, "right" if ok else "not right: expected a word; try again", expected)
    if num is None or num.shape != want.shape:
        return Verdict(ex.id, False, f"not right: expected {want.size} number(s), got {given!r}", expected)
    ok = bool(np.all(np.abs(num - want) <= ex.tolerance))
    if ok:
        return Verdict(ex.id, True, f"right (within {ex.tolerance:g})", expected)
    for printed, why in ex.errata.items():
        if np.allclose(num, np.atleast_1d(printed), atol=ex.tolerance):
            return Verdict(ex.id, False, f"not right: the text prints {printed} here, an erratum -- {why}", expected)
    return Verdict(ex.id, False, f"not right (tolerance {ex.tolerance:g}); try again", expected)


# ----------------------------------------------------------------------------------------------- solutions


def _distance() -> float:
    from .linalg import euclidean_distances

    return float(euclidean_distances([[2.0, 3.0]], [[6.0, 1.0]])[0, 0])


def _random_guess_error() -> float:
    """CIML L465: a 50/50 random guesser on 80% positive data -- its expected error, by simulation with replearn's
    metrics (10^5 draws; exactly 0.5)."""
    from .evaluation import error_rate

    rng = np.random.default_rng(0)
    y = np.where(rng.random(100_000) < 0.8, 1, -1)
    guess = np.where(rng.random(100_000) < 0.5, 1, -1)
    return round(error_rate(y, guess), 2)


def _perceptron_strict_updates() -> float:
    """CIML L1010: with 'ya < 0' instead of 'ya <= 0', a perceptron started at w = 0 never updates (a = 0 for
    every example): the number of updates it makes on the OR data (replearn's perceptron with ya <= 0 makes 9)."""
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([-1.0, 1.0, 1.0, 1.0])
    w, b, updates = np.zeros(2), 0.0, 0
    for _ in range(10):
        for x, t in zip(X, y):
            if t * (w @ x + b) < 0:  # the strict test the exercise asks about
                w, b, updates = w + t * x, b + t, updates + 1
    return float(updates)


def _negative_update() -> float:
    """CIML L1032: after a mistake on a *negative* x = (1, 2) the activation changes by -(||x||^2 + 1) = -6 --
    measured with replearn's perceptron (one update from w = 0 on the negative example)."""
    from . import models

    x = np.array([[1.0, 2.0]])
    before = 0.0  # w = 0, b = 0
    m = models.create("perceptron", max_iter=1, shuffle=False).fit(np.r_[x, -x], np.array([-1, 1]))
    return float(m.decision_function(x)[0]) - before


def _unit_vector() -> tuple[float, float]:
    from .linalg import p_norm

    w = np.array([3.0, 4.0])
    return tuple(w / p_norm(w, 2)[0])


def _xor_weights_accept(answer) -> tuple[bool, str]:
    """Any weights (w1, w2, w3, b) on x1, x2, x3 = x1 AND x2 (0/1 features) that classify XOR: sign(w.x + b) = +1
    exactly for (1, 0) and (0, 1)."""
    w = _numbers(answer)
    if w is None or w.size != 4:
        return False, "give four numbers: the weights of x1, x2, x3 = x1 AND x2, and the bias"
    X = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 1]], dtype=float)
    y = np.array([-1, 1, 1, -1])
    scores = X @ w[:3] + w[3]
    wrong = int(np.sum(np.sign(scores) != y))
    return wrong == 0, f"these weights misclassify {wrong} of the 4 XOR points" if wrong else "they classify XOR"


def _cnt_limit() -> float:
    """CIML L2325: sum_d |w_d|^p tends to the count of non-zero weights, R^cnt = ||w||_0, as p -> 0 (checked with
    replearn's p-norms on w = (0, 3, -0.5, 0, 2): 3 non-zeros); the answer is p = 0."""
    from .linalg import p_norm

    w = np.array([0.0, 3.0, -0.5, 0.0, 2.0])
    counts = [float(np.sum(np.abs(w[w != 0]) ** p)) for p in (1e-3, 1e-6)]
    if not (abs(counts[-1] - p_norm(w, 0)[0]) < 1e-4 < abs(counts[0] - counts[-1]) + 1):  # pragma: no cover
        raise AssertionError("sum |w|^p does not tend to the count of non-zeros")
    return 0.0


def _max_norm() -> float:
    from .linalg import p_norm

    return float(p_norm(np.array([3.0, -7.0, 2.0]), np.inf)[0])


def _largest_step() -> float:
    """CIML L2420 (what is missing from a naive reading of Thm. 8): on F(w) = 2 w^2 (curvature L = 4) gradient
    descent converges only for step sizes below 2/L -- the supremum, found by replearn's gradient descent on a grid."""
    import warnings

    from .exceptions import ConvergenceWarning
    from .optim import gradient_descent

    fun = lambda w: (2.0 * float(w[0] ** 2), np.array([4.0 * w[0]]))  # noqa: E731
    converging = []
    for eta in np.arange(0.01, 0.8, 0.01):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            try:
                r = gradient_descent(fun, np.array([1.0]), learning_rate=float(eta), max_iter=200, tol=0.0)
            except Exception:
                continue
        if abs(r.params[0]) < 1e-3:
            converging.append(float(eta))
    return round(max(converging) + 0.01, 2)  # the grid's first step that fails is the bound 2/L = 0.5


def _feasible_svm() -> float:
    """CIML L2589: without looking at the data, w = 0, b = 0, xi_n = 1 is feasible for the soft-margin SVM; its
    objective 1/2 ||w||^2 + C sum xi_n for N = 50 examples and C = 2 is C N (replearn's margin loss gives the
    slacks)."""
    from .models.linear.linear_classifier import margin_loss

    slacks = margin_loss("hinge", np.zeros(50))  # y (w.x + b) = 0 for every example
    return float(2.0 * slacks.sum())


def _printed_xor_right() -> float:
    from .reproductions.ciml_examples import TABLE_10_1, _two_layer_predict

    X, y = TABLE_10_1
    big = 1e6
    pred, _ = _two_layer_predict(
        X, np.array([[big, big], [big, big]]), np.array([-0.5 * big, -big]), np.array([[-2.0], [1.0]]), np.zeros(1)
    )
    return float(np.sum(pred == y))


def _and_bias_accept(answer) -> tuple[bool, str]:
    """Any bias b with weights (1, 1) on +-1 features that computes AND: sign(x1 + x2 + b) = +1 only at (+1, +1)."""
    b = _numbers(answer)
    if b is None or b.size != 1:
        return False, "give one number, the bias"
    X = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], dtype=float)
    got = np.sign(X.sum(axis=1) + b[0])
    wrong = int(np.sum(got != np.array([1, -1, -1, -1])))
    return wrong == 0, (f"with this bias the unit errs on {wrong} of the 4 points" if wrong else "it computes AND")


def _sigmoid_slope() -> float:
    """CIML L3178: the logistic function's derivative at 0 (the text prints sigma'(z) = z sigma^2(z), which is 0
    there: an erratum; sigma' = sigma (1 - sigma) = 1/4) -- by replearn's autodiff."""
    from .autodiff import Tensor

    z = Tensor(np.array([0.0]), requires_grad=True)
    out = z.sigmoid().sum()
    out.backward()
    return float(np.asarray(z.grad)[0])


def _jensen_gap_log() -> float:
    """CIML L4958 / CS229 §11 (Jensen, concave log): log E[X] - E[log X] for X uniform on {1, 4}."""
    x = np.array([1.0, 4.0])
    return float(np.log(x.mean()) - np.mean(np.log(x)))


def _fold_lower() -> float:
    from .evaluation import fold_summary

    return round(fold_summary([92.4, 93.9, 96.1, 92.2, 94.4]).band(2.0)[0], 1)


def _cs229_gradient() -> tuple[float, float]:
    """CS229 L236: the summation in the update is dJ/dtheta_j for J = 1/2 sum (h - y)^2 -- by replearn's autodiff
    on x = (1, 2, 3), y = (2, 4, 5) at theta = 0."""
    from .autodiff import Tensor

    X = Tensor(np.c_[np.ones(3), [1.0, 2.0, 3.0]])
    y = Tensor(np.array([[2.0], [4.0], [5.0]]))
    theta = Tensor(np.zeros((2, 1)), requires_grad=True)
    r = X @ theta - y
    J = (r * r).sum() * 0.5
    J.backward()
    return tuple(np.asarray(theta.grad).ravel())


def _newton_minimize() -> float:
    """CS229 L643 ('how would this change if we wanted to minimize?'): the update is the same; it finds the
    minimum of l(theta) = (theta - 1.3)^2 + 0.1 theta^4 from theta = 4.5 (replearn's newton_optimize)."""
    from .optim import newton_optimize

    r = newton_optimize(lambda t: 2 * (t - 1.3) + 0.4 * t**3, lambda t: 2 + 1.2 * t**2, 4.5, maximize=False)
    return round(r.root, 4)


def _max_min_min_max() -> tuple[float, float]:
    """CS229 §6.5 L2217: 'max min <= min max' for the payoff matrix [[1, 3], [4, 2]] (rows: the max player)."""
    M = np.array([[1.0, 3.0], [4.0, 2.0]])
    return float(M.min(axis=1).max()), float(M.max(axis=0).min())


def _gamma_from_n() -> float:
    """CS229 §8.3.2 L3734 ('convince yourself'): solving for gamma, |e - e_hat| <= sqrt(log(2k/delta)/(2n)); for
    n = 1000, k = 10, delta = 0.05 (replearn.theory.test_set_bound)."""
    from .theory import test_set_bound

    return round(test_set_bound(1000, 0.05, 10), 4)


def _kernel_value() -> float:
    from .kernels import polynomial_kernel

    return float(
        polynomial_kernel(np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]]), degree=2, gamma=1.0, coef0=1.0)[0, 0]
    )


def _gd_rate() -> float:
    """CIML Thm. 8 / EPFL (strongly convex, step 1/L): F(x_k) - F* after k = 10 steps on F = 1/2 (x1^2 + 10 x2^2)
    from (1, 1) -- by replearn's gradient descent (each coordinate shrinks by 1 - lambda/L)."""
    import warnings

    from .exceptions import ConvergenceWarning
    from .optim import gradient_descent

    H = np.array([1.0, 10.0])
    fun = lambda x: (0.5 * float(H @ x**2), H * x)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        r = gradient_descent(fun, np.array([1.0, 1.0]), learning_rate=0.1, max_iter=10, tol=0.0)
    return round(float(r.loss_history[-1]), 4)


def _jensen_square() -> float:
    """CS229 §11.1 (Jensen, L4387-4408): E[f(X)] - f(E X) for convex f(x) = x^2 and X uniform on {1, 5}: Var X."""
    x = np.array([1.0, 5.0])
    return float(np.mean(x**2) - x.mean() ** 2)


def _calibration() -> float:
    """Classification calibration (EPFL notes, logistic loss): the minimizer t of the conditional risk
    eta log(1 + e^-t) + (1 - eta) log(1 + e^t) is log(eta / (1 - eta)); for eta = 0.8, by replearn's Newton."""
    from scipy.special import expit

    from .optim import newton_optimize

    eta = 0.8
    r = newton_optimize(
        lambda t: -eta * expit(-t) + (1 - eta) * expit(t), lambda t: expit(t) * expit(-t), 0.0, maximize=False
    )
    return round(r.root, 4)


def _one_nn_bound() -> float:
    """EPFL notes L984-996: L(1-NN) <= 2 L(f*) + 4 c sqrt(d) N^(-1/(d+1)); for a Bayes risk 0.05, c = 1, d = 2,
    N = 10^4 the bound is 0.1 + 8 (10^4)^(-1/3)."""
    return round(2 * 0.05 + 4 * 1.0 * math.sqrt(2) * 1e4 ** (-1 / 3), 4)


def _barron() -> float:
    from .theory import barron_bound

    return round(barron_bound(math.sqrt(2 / math.pi), 3.0, 16), 4)


def _imitation_bound() -> float:
    """CIML Thm. 18 (L5529): supervised imitation loses at most expert + l_max T^2 eps; for T = 20, eps = 0.01,
    l_max = 1 the excess bound is 4 (DAgger's, Thm. 20, is l_max T eps = 0.2)."""
    return 1.0 * 20**2 * 0.01


EXERCISES: tuple[Exercise, ...] = (
    Exercise(
        "ciml-3.2-distance",
        "ciml",
        "§3.2",
        "L641, L656",
        "Verify that d from Eq. (3.1) gives the same result for the distance between <2, 3> and <6, 1> as the text's "
        "computation. What is the distance (2 decimals)?",
        _distance,
        0.005,
        errata={4.24: "(2-6)^2 + (3-1)^2 = 20, not 18"},
        how="replearn.linalg.euclidean_distances([[2, 3]], [[6, 1]])",
    ),
    Exercise(
        "ciml-1.5-random-guess",
        "ciml",
        "§1.5",
        "L465",
        "Convince yourself by simulation that on data that is 80% positive a predictor guessing 50/50 at random errs "
        "about half the time. Its error rate (2 decimals)?",
        _random_guess_error,
        0.01,
        how="replearn.evaluation.error_rate(y, guesses) on simulated labels",
    ),
    Exercise(
        "ciml-4.2-strict-test",
        "ciml",
        "§4.2",
        "L1010",
        "It is very important to check ya <= 0 rather than ya < 0. How many updates does a perceptron that tests "
        "ya < 0 make on the OR data (0,0)-, (1,0)+, (0,1)+, (1,1)+, starting from w = 0, b = 0, in 10 passes?",
        _perceptron_strict_updates,
        0.0,
        how="run Alg. 5 with the strict test (replearn's perceptron uses <= 0)",
    ),
    Exercise(
        "ciml-4.2-negative-update",
        "ciml",
        "§4.2",
        "L1032",
        "Work out the update for a negative example: after a mistake on x = (1, 2) with y = -1 from w = 0, b = 0, "
        "by how much does the activation on x change?",
        _negative_update,
        1e-9,
        how="replearn.models.create('perceptron', ...) and decision_function",
    ),
    Exercise(
        "ciml-4.4-unit-vector",
        "ciml",
        "§4.4",
        "L1071",
        "Given w = (3, 4), compute the weight vector w' that points in the same direction with norm one (two numbers).",
        _unit_vector,
        1e-9,
        how="w / replearn.linalg.p_norm(w, 2)",
    ),
    Exercise(
        "ciml-4.7-xor-weights",
        "ciml",
        "§4.7",
        "L1274",
        "Add the feature x3 = x1 AND x2 to the XOR problem (0/1 features). Write out weights for x1, x2, x3 and a bias "
        "that solve it (four numbers: w1, w2, w3, b).",
        lambda: (1.0, 1.0, -2.0, -0.5),
        accept=_xor_weights_accept,
        how="any w with sign(w.x + b) = +1 exactly on (1, 0) and (0, 1)",
    ),
    Exercise(
        "ciml-5.7-two-sigma",
        "ciml",
        "§5.7",
        "L1642-1650",
        "For the fold F-scores 92.4, 93.9, 96.1, 92.2, 94.4, what is mean - 2 sigma (sigma with N - 1; 1 decimal)?",
        _fold_lower,
        0.05,
        how="replearn.evaluation.fold_summary(scores).band(2)",
    ),
    Exercise(
        "ciml-7.3-count-norm",
        "ciml",
        "§7.3",
        "L2325",
        "You can identify the R^cnt regularizer (the number of non-zero weights) with a p-norm in a limit. Which value "
        "of p gives it?",
        _cnt_limit,
        1e-9,
        errata={1.0: "p = 1 is the closest convex norm, the lasso's; R^cnt is the limit p -> 0"},
        how="replearn.linalg.p_norm(w, 0) against sum |w_d|^p for small p",
    ),
    Exercise(
        "ciml-7.3-max-norm",
        "ciml",
        "§7.3",
        "L2330",
        "The max norm is the limit p -> infinity. What is ||(3, -7, 2)||_inf?",
        _max_norm,
        1e-9,
        how="replearn.linalg.p_norm(w, numpy.inf)",
    ),
    Exercise(
        "ciml-7.4-step-size",
        "ciml",
        "§7.4",
        "L2420",
        "A naive reading of Thm. 8 says to choose a huge step. What is missing: on F(w) = 2 w^2, what is the largest "
        "step size for which gradient descent still converges (the supremum, 2 decimals)?",
        _largest_step,
        0.005,
        how="replearn.optim.gradient_descent over a grid of learning rates (2/L)",
    ),
    Exercise(
        "ciml-7.7-feasible-svm",
        "ciml",
        "§7.7",
        "L2589",
        "Without looking at the data, construct a feasible solution of the soft-margin SVM (eq. 7.38 with "
        "1/2 ||w||^2). What is its objective for N = 50 examples and C = 2?",
        _feasible_svm,
        1e-9,
        how="w = 0, b = 0: every slack is the hinge loss at margin 0",
    ),
    Exercise(
        "ciml-10.1-verify-xor",
        "ciml",
        "§10.1",
        "L3333",
        "Verify that these output weights will actually give you XOR: with the printed 'OR' unit (bias -0.5, weights "
        "1, 1 on the +-1 features of Table 10.1), an AND unit (bias -1) and output weights -2, +1, how many of the 4 "
        "points does the network get right?",
        _printed_xor_right,
        0.0,
        errata={4.0: "the 'OR' unit with bias -0.5 computes AND on +-1 features"},
        how="the network of the reproduction ciml_examples (Dense + Tanh layers)",
    ),
    Exercise(
        "ciml-10.1-and-unit",
        "ciml",
        "§10.1",
        "L3335",
        "How can you create an 'and' function? Give a bias for a unit with weights 1, 1 on +-1 features that fires "
        "only for (+1, +1).",
        lambda: -1.0,
        accept=_and_bias_accept,
        how="any b with -2 < b < 0",
    ),
    Exercise(
        "ciml-9.6-sigmoid-slope",
        "ciml",
        "§9.6",
        "L3178",
        "Verify the logistic function's properties: what is sigma'(0)?",
        _sigmoid_slope,
        1e-9,
        errata={0.0: "sigma'(z) is sigma(z)(1 - sigma(z)), not z sigma^2(z)"},
        how="replearn.autodiff.Tensor(...).sigmoid() and backward()",
    ),
    Exercise(
        "ciml-12.6-xor-name",
        "ciml",
        "§12.6",
        "L4147",
        "Four points in the plane labelled so that no line separates them: what is that labelling's name?",
        lambda: "xor",
        how="replearn.theory.realizable('halfplanes', square, labels)",
    ),
    Exercise(
        "ciml-16.3-jensen",
        "ciml",
        "§16.3",
        "L4958",
        "Check Jensen's inequality for the concave log: for X uniform on {1, 4}, compute log E[X] - E[log X] "
        "(4 decimals; it is >= 0).",
        _jensen_gap_log,
        5e-5,
    ),
    Exercise(
        "cs229-1.1-verify-gradient",
        "cs229",
        "§1.1",
        "L236",
        "The reader can easily verify that the summation in the update rule is dJ/dtheta_j. For x = (1, 2, 3), "
        "y = (2, 4, 5) with an intercept and J = 1/2 sum (h - y)^2, give (dJ/dtheta_0, dJ/dtheta_1) at theta = 0.",
        _cs229_gradient,
        1e-9,
        how="replearn.autodiff.Tensor and backward()",
    ),
    Exercise(
        "cs229-2.3-newton-minimize",
        "cs229",
        "§2.3",
        "L643",
        "How would Newton's method change to minimize instead of maximize? Run it: the minimizer of "
        "l(theta) = (theta - 1.3)^2 + 0.1 theta^4 from theta = 4.5 (4 decimals).",
        _newton_minimize,
        5e-5,
        how="replearn.optim.newton_optimize(dl, d2l, 4.5, maximize=False)",
    ),
    Exercise(
        "cs229-6.5-max-min",
        "cs229",
        "§6.5",
        "L2217",
        "Convince yourself that max min <= min max: for the payoffs [[1, 3], [4, 2]] (the max player picks the row), "
        "give (max_i min_j, min_j max_i).",
        _max_min_min_max,
        1e-9,
    ),
    Exercise(
        "cs229-8.3-gamma",
        "cs229",
        "§8.3.2",
        "L3734",
        "Solving for gamma (convince yourself that this is right): with probability 1 - delta all k hypotheses are "
        "within gamma = sqrt(log(2k/delta)/(2n)). For n = 1000, k = 10, delta = 0.05 (4 decimals)?",
        _gamma_from_n,
        5e-5,
        how="replearn.theory.test_set_bound(1000, 0.05, 10)",
    ),
    Exercise(
        "cs229-5.4-kernel",
        "cs229",
        "§5.4",
        "L1843-1860",
        "Check the kernel (x'z + c)^2 with c = 1 for x = (1, 2), z = (3, -1).",
        _kernel_value,
        1e-9,
        how="replearn.kernels.polynomial_kernel(..., degree=2, coef0=1)",
    ),
    Exercise(
        "derivation-gd-rate",
        "ciml",
        "§7.4 Thm. 8 (and EPFL's rates)",
        "L2409",
        "Gradient descent with step 1/L on F = 1/2 (x1^2 + 10 x2^2) from (1, 1): F(x_10) - F* after 10 steps "
        "(4 decimals). Compare with the bound (1 - mu/L)^(2k) (F(x_0) - F*).",
        _gd_rate,
        5e-5,
        how="replearn.optim.gradient_descent(fun, [1, 1], learning_rate=0.1, max_iter=10)",
    ),
    Exercise(
        "derivation-jensen",
        "cs229",
        "§11.1",
        "L4387-4408",
        "Jensen: E[f(X)] >= f(E X) for convex f. For f(x) = x^2 and X uniform on {1, 5}, the gap E[f(X)] - f(E X)?",
        _jensen_square,
        1e-9,
    ),
    Exercise(
        "derivation-calibration",
        "epfl",
        "classification: logistic loss",
        "calibration",
        "The logistic loss is calibrated: where P(y = 1 | x) = 0.8 the risk-minimizing score t satisfies "
        "sigmoid(t) = 0.8. Give t (4 decimals).",
        _calibration,
        5e-5,
        how="replearn.optim.newton_optimize on the conditional risk",
    ),
    Exercise(
        "derivation-1nn-bound",
        "epfl",
        "k-NN: the 1-NN bound",
        "L984-996",
        "The 1-NN risk is at most 2 L(f*) + 4 c sqrt(d) N^(-1/(d+1)). Evaluate it for L(f*) = 0.05, c = 1, d = 2, "
        "N = 10^4 (4 decimals).",
        _one_nn_bound,
        5e-5,
    ),
    Exercise(
        "derivation-barron",
        "epfl",
        "neural networks: expressiveness",
        "L1725-1742",
        "Barron's rate (2 C r)^2 / n for f(x) = exp(-x^2/2) (C = sqrt(2/pi)), r = 3, n = 16 (4 decimals).",
        _barron,
        5e-5,
        how="replearn.theory.barron_bound(C, r, n)",
    ),
    Exercise(
        "derivation-imitation",
        "ciml",
        "§18.2 Thm. 18",
        "L5529",
        "Supervised imitation learning loses at most l_max T^2 eps more than the expert. For T = 20, eps = 0.01, "
        "l_max = 1, what is that excess bound?",
        _imitation_bound,
        1e-9,
    ),
)

_INDEX = {e.id: e for e in EXERCISES}
if len(_INDEX) != len(EXERCISES):  # pragma: no cover
    raise RuntimeError("duplicate exercise ids")


def exercise(exercise_id: str) -> Exercise:
    """The exercise with this id; ``KeyError`` listing the ids otherwise."""
    if exercise_id not in _INDEX:
        raise KeyError(f"unknown exercise {exercise_id!r}; available: {', '.join(sorted(_INDEX))}")
    return _INDEX[exercise_id]


def render(exercise_id: str, wrong: Answer | None = None) -> str:
    """Markdown for an exercise page: the question, how to check an answer, and the grader's verdicts on the
    solution and on a wrong answer (run while the page builds; raises if the grader accepts the wrong one)."""
    ex = exercise(exercise_id)
    right = ex.solution()
    if wrong is None:
        wrong = next(iter(ex.errata), None)
        if wrong is None:
            wrong = "no" if isinstance(right, str) else tuple(np.atleast_1d(np.asarray(right, float)) + 1.0)
    good, bad = check(ex.id, right), check(ex.id, wrong)
    if not good.correct or bad.correct:
        raise AssertionError(f"{ex.id}: the grader accepts {wrong!r} or rejects its own solution {right!r}")

    def show(v):
        return v if isinstance(v, str) else ", ".join(f"{x:g}" for x in np.atleast_1d(v))

    lines = [
        f"### `{ex.id}` — {ex.text.upper()} {ex.section} ({ex.lines})",
        "",
        ex.question,
        "",
        f"Check an answer: `replearn check-exercise {ex.id} <answer>`"
        + (f" (compute it with `{ex.how}`)." if ex.how else "."),
        "",
        '??? note "The grader, run while this page was built"',
        f"    - a wrong answer, `{show(wrong)}`: **{bad.message}**",
        f"    - the solution replearn computes, `{show(right)}`: **{good.message}**",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``replearn check-exercise``: grade an answer (exit 0 right, 1 wrong, 2 unknown id or unreadable answer)."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="replearn check-exercise", description="grade an answer to an exercise")
    parser.add_argument("exercise", nargs="?", help="the exercise id (see --list)")
    parser.add_argument("answer", nargs="*", help="a number, several numbers, or a word")
    parser.add_argument("--list", action="store_true", help="list the exercises")
    parser.add_argument("--show", action="store_true", help="print the question")
    parser.add_argument("--solution", action="store_true", help="print replearn's solution after grading")
    args = parser.parse_args(argv)
    if args.list:
        for e in EXERCISES:
            print(f"{e.id:<28} {e.text.upper():<6} {e.section:<10} {e.question[:70]}")
        return 0
    if not args.exercise:
        parser.error("name an exercise (or --list)")
    try:
        ex = exercise(args.exercise)
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.show or not args.answer:
        print(f"{ex.id} ({ex.text.upper()} {ex.section}, {ex.lines}): {ex.question}")
        if not args.answer:
            return 0
    try:
        verdict = check(ex.id, " ".join(args.answer))
    except ValueError as exc:
        print(f"error: cannot read the answer: {exc}", file=sys.stderr)
        return 2
    print(f"{ex.id}: {verdict.message}")
    if args.solution:
        print(f"replearn's solution: {verdict.expected}")
    return 0 if verdict.correct else 1
