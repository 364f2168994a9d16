"""The ``structured`` experiment family: sequence labellers on generated tagging data (CIML ch. 17-18).

A dataset ``{source: structured, generator: hmm, ...}`` is a hidden Markov model with seeded parameters
(:func:`replearn.structured.make_hmm_params`: sticky Dirichlet transitions, Dirichlet emissions over a
vocabulary of ``n_observations`` one-hot "words") and ``n_train`` / ``n_test`` label sequences sampled from it,
all fixed by the dataset's seed. The units are trained on the training sequences with the replicate's seed
(the shuffling order of their passes) and scored on the held-out sequences:

* ``hamming_loss`` (primary, lower is better): mislabelled positions / all positions (CIML eq. 17.17 per
  token);
* ``sequence_error``: the fraction of held-out sequences with at least one wrong label.

Units: ``structured_perceptron`` (Alg. 40; ``average: true`` for the averaged variant), ``structured_svm``
(Alg. 41, stochastic subgradient with the loss-augmented Viterbi and the regularization strength
``alpha`` = lambda), ``token_perceptron`` (the multiclass perceptron of Alg. 39 on each position alone: the
same unary features, no label transitions — the baseline the Markov features must beat) and ``dagger``
(imitation learning, Alg. 45, with the multiclass perceptron as the learner and the gold label as the
expert, §18.5). The curve of an outcome is the unit's training objective per epoch (per DAgger iteration).

:func:`describe` gives the Hamming loss of the HMM's own Viterbi decoder on the held-out sequences (the
Bayes-optimal sequence decoder; :func:`replearn.structured.hmm_viterbi`): the floor no learner can beat in
expectation.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ....structured import (
    hmm_viterbi,
    make_hmm_params,
    sample_hmm,
)
from ...schema import Choice, Optional_, Range
from ...seeding import derive_seed
from .. import check_dataset, load

NAME = "structured"
TASK = "sequence_labelling"
METRICS = {"hamming_loss": False, "sequence_error": False}
PRIMARY = "hamming_loss"

#: the family's own keys of a dataset entry (the config adds ``source`` and ``models``)
DATASET_KEYS = {
    "generator": Choice(["hmm"], "sequence generator"),
    "n_labels": Range(int, 2, 50, why="hidden states = labels; Viterbi costs L K^2"),
    "n_observations": Range(int, 1, 10_000, why="vocabulary size: one-hot features per position"),
    "min_length": Range(int, 1, 1000),
    "max_length": Range(int, 1, 1000),
    "n_train": Range(int, 2, 100_000, why="training sequences"),
    "n_test": Range(int, 1, 100_000, why="held-out sequences"),
    "self_transition": Optional_(
        Range(float, 0.0, 1.0, open_hi=True, why="extra probability of keeping the label (sticky labels)")
    ),
    "emission_concentration": Optional_(
        Range(float, 0.0, None, open_lo=True, why="emission noise: Dirichlet concentration, larger = flatter words")
    ),
}
_DEFAULTS = {"self_transition": 0.5, "emission_concentration": 0.3}
_MAX_TOKENS = 2_000_000  # max_length x (n_train + n_test): bounds the work of one problem


@dataclasses.dataclass(frozen=True)
class SequenceProblem:
    """Training and held-out sequences of one HMM (inputs one-hot, (L_i, n_observations); labels 0..K-1)."""

    X_train: list = dataclasses.field(repr=False)
    y_train: list = dataclasses.field(repr=False)
    X_test: list = dataclasses.field(repr=False)
    y_test: list = dataclasses.field(repr=False)
    n_labels: int
    n_features: int
    bayes_hamming_loss: float  # the true HMM's Viterbi decoder on the held-out sequences
    bayes_sequence_error: float
    start_prob: np.ndarray = dataclasses.field(repr=False)
    transmat: np.ndarray = dataclasses.field(repr=False)
    emissionprob: np.ndarray = dataclasses.field(repr=False)


def check_spec(spec: dict) -> list[str]:
    """Conditions across keys of a dataset entry whose keys passed :data:`DATASET_KEYS` (config messages)."""
    out = []
    if spec["min_length"] > spec["max_length"]:
        out.append(f"min_length {spec['min_length']} is larger than max_length {spec['max_length']}")
    tokens = spec["max_length"] * (spec["n_train"] + spec["n_test"])
    if tokens > _MAX_TOKENS:
        out.append(
            f"max_length x (n_train + n_test) = {tokens:,} positions, above the limit of {_MAX_TOKENS:,}; "
            "generate fewer or shorter sequences"
        )
    return out


def _settings(spec: dict) -> dict:
    """The checked dataset config with its defaults."""
    check_dataset(load(NAME), spec)
    return {**_DEFAULTS, **{k: v for k, v in spec.items() if v is not None}}


def _token_rates(pred: list, gold: list) -> tuple[float, float]:
    """(Hamming loss per position, fraction of sequences with any error)."""
    wrong = [int(np.sum(np.asarray(p) != np.asarray(y))) for p, y in zip(pred, gold)]
    return sum(wrong) / sum(len(y) for y in gold), float(np.mean([w > 0 for w in wrong]))


def build(spec: dict, seed: int) -> SequenceProblem:
    """Sample the HMM and its training and held-out sequences (deterministic in ``spec`` and ``seed``)."""
    s = _settings(spec)
    K, V = int(s["n_labels"]), int(s["n_observations"])
    start, trans, emit = make_hmm_params(
        K,
        V,
        self_transition=float(s["self_transition"]),
        emission_concentration=float(s["emission_concentration"]),
        random_state=derive_seed(seed, "hmm"),
    )
    length = (int(s["min_length"]), int(s["max_length"]))
    train = sample_hmm(start, trans, emit, int(s["n_train"]), length, random_state=derive_seed(seed, "train"))
    test = sample_hmm(start, trans, emit, int(s["n_test"]), length, random_state=derive_seed(seed, "test"))
    bayes = [hmm_viterbi(sym, start, trans, emit) for sym in test.symbols]
    h, e = _token_rates(bayes, test.y)
    return SequenceProblem(
        X_train=train.X,
        y_train=train.y,
        X_test=test.X,
        y_test=test.y,
        n_labels=K,
        n_features=V,
        bayes_hamming_loss=h,
        bayes_sequence_error=e,
        start_prob=start,
        transmat=trans,
        emissionprob=emit,
    )


def describe(problem: SequenceProblem) -> dict:
    """Sizes of the problem and the Bayes decoder's held-out scores (JSON-able)."""
    lengths = [len(y) for y in problem.y_train + problem.y_test]
    return {
        "generator": "hmm",
        "n_labels": problem.n_labels,
        "n_observations": problem.n_features,
        "n_train": len(problem.y_train),
        "n_test": len(problem.y_test),
        "n_train_tokens": int(sum(len(y) for y in problem.y_train)),
        "n_test_tokens": int(sum(len(y) for y in problem.y_test)),
        "min_length": int(min(lengths)),
        "max_length": int(max(lengths)),
        "bayes_hamming_loss": float(problem.bayes_hamming_loss),
        "bayes_sequence_error": float(problem.bayes_sequence_error),
    }
