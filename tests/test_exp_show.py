"""`dvc exp show` people can read: the README's commands ("Comparing runs") narrow the table to the summary
(`metrics/summary.json`: the primary metric's CV mean and test score per dataset x model), run exactly as
written on a small project with a baseline and one `dvc exp run --temp` experiment."""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
import shlex
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
MAX_COLUMNS = 40  # what "screen-sized" means in README


def readme_exp_show_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Comparing runs") :]
    section = section[: section.index("\n## ", 3)]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.DOTALL)  # the one with the dvc exp show commands
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip().startswith("dvc exp show")]


def _header(csv_text: str) -> list[str]:
    return next(csv.reader(io.StringIO(csv_text)))


def _flatten(obj, prefix=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _flatten(v, f"{prefix}{k}.")
    else:
        yield prefix[:-1]


def _show(columns: list[str], argv: list[str], unchanged: set[str] = frozenset()) -> list[str]:
    """DVC's column selection (dvc/commands/experiments/show.py): --keep protects, --only-changed and
    --drop remove unprotected columns, both patterns applied with re.match."""
    keep = [a for flag, a in itertools.pairwise(argv) if flag == "--keep"]
    drop = [a for flag, a in itertools.pairwise(argv) if flag == "--drop"]
    protected = {c for c in columns if keep and re.match("|".join(keep), c)}
    out = [c for c in columns if c in protected or not ("--only-changed" in argv and c in unchanged)]
    return [c for c in out if c in protected or not (drop and re.match("|".join(drop), c))]


def test_readme_has_the_commands_and_they_select_the_summary_of_the_committed_metrics():
    """Fast check on the committed metrics files and params: the patterns keep exactly the summary columns."""
    commands = readme_exp_show_commands()
    assert len(commands) >= 2, commands
    crossval = json.loads((ROOT / "metrics" / "crossval.json").read_text())
    train = json.loads((ROOT / "metrics" / "train.json").read_text())
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    summary = [f"{d}.{m}.{k}" for d, ms in crossval.items() for m in ms for k in ("cv", "test")]
    detail = list(_flatten(crossval)) + list(_flatten(train))
    deps = ["data/prepared", "results/crossval", "src/replearn/models", "stages/train.py"]
    columns = ["Experiment", "Created", *detail, *summary, *_flatten(params), *deps]
    assert not set(summary) & set(detail) and len(columns) > 2 * MAX_COLUMNS
    shown = _show(columns, shlex.split(commands[0]))
    assert shown == ["Experiment", "Created", *summary]
    # --only-changed: say cv.folds changed, and so did every metric and a dependency
    changed = {"cv.folds", "results/crossval", *detail, *summary}
    shown = _show(columns, shlex.split(commands[1]), unchanged=set(columns) - changed - {"Experiment", "Created"})
    assert shown == ["Experiment", "Created", *summary, "cv.folds"]


@pytest.mark.slow
def test_readme_exp_show_commands_narrow_the_table(tmp_path_factory, smoke):
    proj = smoke.project(tmp_path_factory)
    smoke.run(
        smoke.dvc("exp", "run", "--temp", "-n", "two-repeats", *[f"-S{o}" for o in smoke.PRESET], "-Scv.repeats=2"),
        proj,
        timeout=600,
    )

    summary = json.loads((proj / "metrics" / "summary.json").read_text())
    crossval = json.loads((proj / "metrics" / "crossval.json").read_text())
    train = json.loads((proj / "metrics" / "train.json").read_text())
    assert sorted(summary) == ["iris", "wine"]
    for d, models in crossval.items():
        assert sorted(summary[d]) == sorted(models) == ["gaussian_naive_bayes", "knn", "logistic_regression"]
        for m, cv in models.items():  # accuracy is the smoke preset's primary metric
            assert summary[d][m] == {"cv": cv["accuracy_mean"], "test": train[d][m]["test"]["accuracy"]}
    expected = {f"{d}.{m}.{k}" for d in summary for m in summary[d] for k in ("cv", "test")}

    everything = _header(smoke.run(smoke.dvc("exp", "show", "--csv"), proj).stdout)
    assert len(everything) > 2 * MAX_COLUMNS and expected <= set(everything)

    commands = readme_exp_show_commands()
    assert len(commands) >= 2
    for command in commands:
        argv = shlex.split(command)
        assert argv[:3] == ["dvc", "exp", "show"]
        table = smoke.run(smoke.dvc(*argv[1:], "--no-pager"), proj).stdout  # the command as printed in README
        assert "two-repeats" in table and "Experiment" in table, command
        shown = smoke.run(smoke.dvc(*argv[1:], "--csv"), proj).stdout
        header = _header(shown)
        assert len(header) < MAX_COLUMNS, f"{command}: {len(header)} columns: {header}"
        assert "two-repeats" in shown
        assert not [c for c in header if "/" in c or c.endswith(("_mean", "_std"))], f"{command}: {header}"
        if "--only-changed" in argv:  # what differs: the changed parameter and the CV means it moved
            assert "cv.repeats" in header and "stats.resamples" not in header, header
            assert {c for c in header if c.endswith(".cv")} and {c for c in header if c.endswith(".cv")} <= expected
            assert not [c for c in header if c.endswith(".test")], "cv.repeats cannot change a test score"
        else:
            assert expected <= set(header), header
            assert set(header) - expected <= {"Experiment", "rev", "typ", "Created", "parent"}, header
