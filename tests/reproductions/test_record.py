"""The record type, the registry and the tolerance helpers."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from replearn.reproductions import EXPERIMENTS, ExperimentResult, Reproduction
from replearn.reproductions.record import half_unit, register

PRESETS = {
    "cs229_control",
    "cs229_examples",
    "cs229_figures",
    "ciml_examples",
    "ciml_figures",
    "cs480_examples",
    "epfl_examples",
    "cs229_housing",
    "cs229_plots",
    "ciml_plots",
    "epfl_project1",
    "cs229_logistic",
    "cs229_lwr",
    "cs229_spam",
    "ciml_course_ratings",
    "bias_variance",
    "double_descent",
    "learning_curves",
    "perceptron_epochs",
    "kmeans_em",
}


def test_registry_lists_every_preset():
    assert set(EXPERIMENTS) == PRESETS


def test_registering_a_name_twice_fails():
    with pytest.raises(RuntimeError, match="registered twice"):
        register("cs229_housing")(lambda data_dir, *, seed, quick=False: None)


def _rec(*args, **kw):
    return Reproduction(*args, **{"measured_by": "replearn.linalg.sq_euclidean", **kw})


@pytest.mark.parametrize(
    ("published", "measured", "tolerance", "expected"),
    [
        (71.27, 71.2705, 0.005, True),
        (71.27, 71.2751, 0.005, False),
        (0.0, -0.02, 0.03, True),
        (2.0, 2.0, 0.0, True),
        (2.0, 2.0 + 1e-12, 0.0, False),
        (0.0, math.nan, 1.0, False),
        (0.0, math.inf, 1.0, False),
    ],
)
def test_reproduced_is_the_absolute_tolerance_rule(published, measured, tolerance, expected):
    rec = _rec("p", "src", "q", published, measured, tolerance)
    assert rec.reproduced is expected


def test_reproduced_cannot_be_passed_in_and_records_are_frozen():
    with pytest.raises(TypeError):
        _rec("p", "src", "q", 1.0, 5.0, 0.1, True)
    rec = _rec("p", "src", "q", 1.0, 1.05, 0.1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.measured = 9.0


def test_invalid_tolerance_or_published_value_raises():
    with pytest.raises(ValueError, match="tolerance"):
        _rec("p", "src", "q", 1.0, 1.0, -0.1)
    with pytest.raises(ValueError, match="published"):
        _rec("p", "src", "q", math.nan, 1.0, 0.1)


def test_provenance_rules():
    """A record names the public API that measured it unless it is an arithmetic check of the text; a derived
    value says what it is derived from; an erratum record gives the printed value and its tolerance excludes it."""
    with pytest.raises(ValueError, match="measured_by"):
        Reproduction("p", "src", "q", 1.0, 1.0, 0.1)
    assert Reproduction("p", "src", "q", 1.0, 1.0, 0.1, provenance="arithmetic").measured_by == ()
    with pytest.raises(ValueError, match="arithmetic check"):
        _rec("p", "src", "q", 1.0, 1.0, 0.1, provenance="arithmetic")
    with pytest.raises(ValueError, match="derived from"):
        _rec("p", "src", "q", 1.0, 1.0, 0.1, provenance="derived")
    with pytest.raises(ValueError, match="printed"):
        _rec("p", "src", "q", 4.47, 4.47, 0.005, provenance="erratum")
    assert not _rec("p", "src", "q", 0.36770, 0.3677, 0.0025, provenance="erratum", erratum=0.3679).rejects_erratum
    with pytest.raises(ValueError, match="only an erratum"):
        _rec("p", "src", "q", 1.0, 1.0, 0.1, erratum=2.0)
    with pytest.raises(ValueError, match="provenance must be one of"):
        _rec("p", "src", "q", 1.0, 1.0, 0.1, provenance="guessed")
    ok = _rec("p", "src", "q", 4.47, 4.472, 0.005, provenance="erratum", erratum=4.24)
    assert (
        ok.reproduced
        and ok.rejects_erratum
        and ok.to_dict()["erratum"] == 4.24
        and ok.to_dict()["provenance"] == "erratum"
    )


def test_to_dict_is_json_ready():
    rec = _rec("p", "src", "q", 1, math.nan, 0)
    d = rec.to_dict()
    assert d == {
        "id": "",
        "example": "",
        "text": "",
        "section": "",
        "preset": "p",
        "source": "src",
        "quantity": "q",
        "published": 1.0,
        "measured": None,
        "tolerance": 0.0,
        "reproduced": False,
        "provenance": "printed",
        "measured_by": ["replearn.linalg.sq_euclidean"],
        "erratum": None,
        "derived_from": "",
    }
    result = ExperimentResult("p", [rec], {"c": {"x": [1, 2]}}, {"t": {"a": 1}}, "notes")
    assert json.loads(json.dumps(result.to_dict()))["records"][0] == d
    assert not result.all_reproduced
    assert not ExperimentResult("p").all_reproduced  # no records is not a reproduction


def test_records_name_their_example_and_get_ids_in_order():
    from replearn.reproductions.record import Recorder

    rec = Recorder("p", example="cs229.hoeffding-sample-size", measured_by="replearn.theory.hoeffding_sample_size")
    a = rec.add("s", "q1", 530, 530, 0)
    b = rec.add("s", "q2", 1.0, 1.0, 0, example="epfl.step-size")
    assert (a.id, a.example, b.id, b.example) == ("p.01", "cs229.hoeffding-sample-size", "p.02", "epfl.step-size")
    d = a.to_dict()
    assert d["text"] == "CS229 lecture notes (Ng, revised by Ma)" and d["section"] == "§8.3.2"


@pytest.mark.parametrize(("printed", "half"), [("71.27", 0.005), ("0.1345", 5e-5), ("-8.738", 5e-4), ("18", 0.5)])
def test_half_unit_of_the_last_printed_digit(printed, half):
    assert half_unit(printed) == pytest.approx(half)
