"""The ``structured`` experiment family: HMM tagging problems, the units' runs, scores and errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from replearn.exceptions import ConfigError
from replearn.pipeline.families import Outcome, load
from replearn.pipeline.families.structured import problems as S
from replearn.pipeline.families.structured import units as SU

SPEC = {
    "source": "structured",
    "generator": "hmm",
    "n_labels": 3,
    "n_observations": 8,
    "min_length": 4,
    "max_length": 8,
    "n_train": 30,
    "n_test": 20,
}
FAST = {  # a few passes keep every run well under a second
    "structured_perceptron": {"max_iter": 3},
    "structured_svm": {"max_iter": 3, "schedule": "invsqrt"},
    "token_perceptron": {"max_iter": 3},
    "dagger": {"max_iter": 2, "n_per_iter": 5, "learner_epochs": 2},
}


@pytest.fixture(scope="module")
def problem():
    return S.build(SPEC, 7)


def test_module_meets_the_family_contract():
    assert load("structured") is S
    assert S.NAME == "structured" and S.TASK == "sequence_labelling"
    assert S.PRIMARY in S.METRICS and S.METRICS == {"hamming_loss": False, "sequence_error": False}
    assert set(SU.UNITS) == set(FAST)
    assert not {"source", "models"} & set(S.DATASET_KEYS)  # the config adds those two
    assert S.check_spec(SPEC) == [] and S.check_spec({**SPEC, "min_length": 9}) == [
        "min_length 9 is larger than max_length 8"
    ]
    for name, unit in SU.UNITS.items():
        assert unit.name == name and unit.section and set(unit.constraints) <= set(unit.defaults)


def test_build_is_deterministic_in_the_seed(problem):
    again, other = S.build(SPEC, 7), S.build(SPEC, 8)
    assert all(np.array_equal(a, b) for a, b in zip(problem.X_train + problem.X_test, again.X_train + again.X_test))
    assert all(np.array_equal(a, b) for a, b in zip(problem.y_train, again.y_train))
    assert np.array_equal(problem.transmat, again.transmat)
    assert not np.array_equal(problem.transmat, other.transmat)
    assert len(problem.X_train) == 30 and len(problem.X_test) == 20
    assert all(4 <= len(y) <= 8 and x.shape == (len(y), 8) for x, y in zip(problem.X_train, problem.y_train))
    assert all(np.all(x.sum(axis=1) == 1.0) for x in problem.X_train)  # one-hot words


def test_describe_is_json_and_holds_the_bayes_decoder(problem):
    d = S.describe(problem)
    assert json.loads(json.dumps(d)) == d
    assert d["n_labels"] == 3 and d["n_train"] == 30 and d["n_test"] == 20
    assert d["n_test_tokens"] == sum(len(y) for y in problem.y_test)
    assert 0.0 <= d["bayes_hamming_loss"] <= d["bayes_sequence_error"] <= 1.0


@pytest.mark.parametrize(
    "change, match",
    [
        ({"n_labels": 1}, r"dataset\.n_labels: expected an integer in \[2, 50\]"),
        ({"generator": "crf"}, r"dataset\.generator: unknown sequence generator 'crf'; valid choices: hmm"),
        ({"min_length": 9}, r"dataset: min_length 9 is larger than max_length 8"),
        ({"emission_concentration": 0.0}, r"dataset\.emission_concentration: expected a finite number in \(0\.0"),
        ({"n_tests": 3}, r"dataset\.n_tests: unknown key"),
        ({"n_train": 50_000, "max_length": 1000}, r"above the limit"),
    ],
)
def test_bad_dataset_specs_name_the_key_and_the_range(change, match):
    with pytest.raises(ConfigError, match=match):
        S.build({**SPEC, **change}, 0)


def test_missing_key_is_named():
    spec = dict(SPEC)
    del spec["n_test"]
    with pytest.raises(ConfigError, match=r"dataset\.n_test: missing"):
        S.build(spec, 0)


@pytest.mark.parametrize("unit", sorted(FAST))
def test_unit_runs_are_deterministic_and_depend_on_the_seed(problem, unit):
    run = SU.UNITS[unit].run
    a, b, c = run(FAST[unit], problem, 11), run(FAST[unit], problem, 11), run(FAST[unit], problem, 12)
    assert isinstance(a, Outcome) and a == b
    assert set(a.scores) == set(S.METRICS)
    assert all(0.0 <= v <= 1.0 for v in a.scores.values())
    assert a.curve and all(np.isfinite(a.curve)) and a.curve_label
    assert (a.scores, a.curve) != (c.scores, c.curve)  # every unit shuffles (or draws episodes) by its seed


def test_curve_has_one_point_per_epoch(problem):
    out = SU.UNITS["structured_svm"].run({"max_iter": 4}, problem, 0)
    assert out.n_iter == 4 and len(out.curve) == 4 and len(out.extra["train_hamming_loss"]) == 4
    out = SU.UNITS["structured_perceptron"].run({"max_iter": 4}, problem, 0)
    assert len(out.curve) == out.n_iter <= 4


def test_token_rates_by_hand():
    pred = [np.array([0, 1, 1]), np.array([2, 2])]
    gold = [np.array([0, 1, 0]), np.array([2, 2])]
    assert S._token_rates(pred, gold) == (pytest.approx(1 / 5), 0.5)


def _alternating_problem(n_train=20, n_test=10, length=6):
    """Labels alternate 0, 1, 0, 1, ...; the word is 'start' (0) at the first position and 'filler' (1) after:
    only the transitions (Markov features) can label the filler positions."""
    X, Y = [], []
    for _ in range(n_train + n_test):
        x = np.zeros((length, 2))
        x[0, 0] = 1.0
        x[1:, 1] = 1.0
        X.append(x)
        Y.append(np.arange(length) % 2)
    return S.SequenceProblem(
        X_train=X[:n_train],
        y_train=Y[:n_train],
        X_test=X[n_train:],
        y_test=Y[n_train:],
        n_labels=2,
        n_features=2,
        bayes_hamming_loss=0.0,
        bayes_sequence_error=0.0,
        start_prob=np.array([1.0, 0.0]),
        transmat=np.array([[0.0, 1.0], [1.0, 0.0]]),
        emissionprob=np.eye(2),
    )


def test_transitions_are_what_the_structured_models_add():
    problem = _alternating_problem()
    for unit in ("structured_perceptron", "structured_svm"):
        out = SU.UNITS[unit].run({"max_iter": 5}, problem, 0)
        assert out.scores == {"hamming_loss": 0.0, "sequence_error": 0.0}, unit
    # per position the filler word is labelled 0 or 1 half the time each: one label for all of them
    out = SU.UNITS["token_perceptron"].run({"max_iter": 5, "average": True}, problem, 0)
    assert out.scores["hamming_loss"] == pytest.approx(0.5, abs=1 / 6 + 1e-9)
    assert out.scores["sequence_error"] == 1.0


def test_learners_reach_the_bayes_decoder_when_words_identify_labels():
    # peaked emissions over 30 words: each label emits its own few words (for this seed no two labels share one)
    spec = {**SPEC, "n_labels": 3, "n_observations": 30, "emission_concentration": 1e-3, "n_train": 40}
    problem = S.build(spec, 1)
    assert problem.bayes_hamming_loss == 0.0
    for unit in ("structured_perceptron", "token_perceptron"):
        out = SU.UNITS[unit].run({"max_iter": 5, "average": True}, problem, 0)
        assert out.scores == {"hamming_loss": 0.0, "sequence_error": 0.0}, unit


@pytest.mark.parametrize(
    "unit, hp, match",
    [
        ("structured_perceptron", {"max_iter": 0}, r"structured_perceptron\.max_iter: 0 is out of range; expected an"),
        ("structured_perceptron", {"epochs": 3}, r"structured_perceptron\.epochs: unknown hyperparameter; valid:"),
        ("structured_svm", {"alpha": -1.0}, r"structured_svm\.alpha: -1\.0 is out of range"),
        ("structured_svm", {"schedule": "adam"}, r"structured_svm\.schedule: 'adam' is out of range; expected one of"),
        ("structured_svm", {"alpha": 30.0}, r"alpha x eta0 = 30\.0 must be smaller than the number of training"),
        ("token_perceptron", {"average": "yes"}, r"token_perceptron\.average: 'yes' is out of range"),
        ("dagger", {"n_per_iter": 0}, r"dagger\.n_per_iter: 0 is out of range"),
    ],
)
def test_bad_hyperparameters_are_clear_errors(problem, unit, hp, match):
    with pytest.raises(ConfigError, match=match):
        SU.UNITS[unit].run(hp, problem, 0)


CONF = Path(__file__).resolve().parents[2] / "conf"


def test_the_preset_files_are_valid_for_the_family():
    preset = yaml.safe_load((CONF / "experiment" / "structured.yaml").read_text())
    groups = {k: v for d in preset["defaults"] for k, v in d.items()}
    for name in groups["override /dataset"]:
        spec = yaml.safe_load((CONF / "dataset" / f"{name}.yaml").read_text())[name]
        assert S.describe(S.build(spec, 0))["n_train"] == spec["n_train"]
    units = set()
    for key in groups["override /models"]:
        entry = yaml.safe_load((CONF / "models" / f"{key}.yaml").read_text())[key]
        assert SU._resolve(entry["name"], entry["params"])  # known hyperparameters within their constraints
        units.add(entry["name"])
    assert {"structured_perceptron", "structured_svm", "token_perceptron"} <= units
    assert groups["override /design"] == "seeds" and preset["design"]["n_seeds"] >= 5
