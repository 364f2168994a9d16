"""replearn.exercises and `replearn check-exercise`: every exercise's solution (computed by replearn) passes its
grader, wrong answers -- the texts' errata among them -- fail, open answers are graded by running them, and the
command's exit codes say which."""

from __future__ import annotations

import numpy as np
import pytest

from replearn import exercises
from replearn.cli import main


@pytest.mark.parametrize("ex", exercises.EXERCISES, ids=lambda e: e.id)
def test_the_solution_passes_and_a_wrong_answer_fails(ex):
    right = ex.solution()
    assert exercises.check(ex.id, right).correct
    if isinstance(right, str):
        assert not exercises.check(ex.id, "something else").correct
        return
    if ex.accept is not None:  # open answers: test_open_answers_are_graded_by_running_them
        return
    value = np.atleast_1d(np.asarray(right, dtype=float))
    off = value + 10 * max(ex.tolerance, 1e-3) + 0.5
    assert not exercises.check(ex.id, list(off) if off.size > 1 else float(off[0])).correct
    for printed, why in ex.errata.items():  # the text's own (wrong) number is refused, with the reason
        verdict = exercises.check(ex.id, printed)
        assert not verdict.correct and "erratum" in verdict.message and why in verdict.message
    assert exercises.render(ex.id).count(ex.id) >= 2


def test_open_answers_are_graded_by_running_them():
    assert exercises.check("ciml-4.7-xor-weights", [2, 2, -5, -1]).correct  # another solution
    assert not exercises.check("ciml-4.7-xor-weights", [1, 1, 1, -0.5]).correct
    assert not exercises.check("ciml-4.7-xor-weights", [1, 1]).correct
    assert (
        exercises.check("ciml-10.1-and-unit", -1.7).correct and not exercises.check("ciml-10.1-and-unit", 0.5).correct
    )


def test_answers_are_parsed_from_strings_lists_and_words():
    assert exercises.parse_answer("4.47") == 4.47
    assert exercises.parse_answer("-11, -25") == exercises.parse_answer("[-11, -25]") == (-11.0, -25.0)
    assert exercises.parse_answer("-11 -25") == (-11.0, -25.0)
    assert exercises.parse_answer(" XOR ") == "xor"
    with pytest.raises(KeyError, match="unknown exercise"):
        exercises.check("nope", 1)


def test_the_command_exits_0_when_right_1_when_wrong_2_otherwise(capsys):
    assert main(["check-exercise", "ciml-3.2-distance", "4.47"]) == 0
    assert main(["check-exercise", "ciml-3.2-distance", "4.24"]) == 1
    assert "erratum" in capsys.readouterr().out
    assert main(["check-exercise", "cs229-1.1-verify-gradient", "-11", "-25"]) == 0
    assert main(["check-exercise", "no-such-exercise", "1"]) == 2
    assert main(["check-exercise", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(e.id in out for e in exercises.EXERCISES)
    assert main(["check-exercise", "--show", "ciml-10.1-verify-xor"]) == 0
    assert "Verify that these output weights" in capsys.readouterr().out
