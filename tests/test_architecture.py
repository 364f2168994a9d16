"""The seams of issue 38, counted from the code so they cannot regress.

* a **branch on a design name** (``"cv"``, ``"seeds"``, ``"sweep"``) is a comparison (``==``, ``!=``, ``in``)
  with one of those strings outside the designs module: the design object answers instead;
* a **branch on a family** is, in the pipeline outside ``pipeline/families/``, the registries of its units and
  report views (``pipeline/units/``, ``pipeline/family_views/``) and ``pipeline/kinds.py`` (the problem kinds: the
  one lookup of a table or a family), a
  comparison with a family's name (``"rl"``, ``"structured"``, ``"generative"``, ``"sequence"``, ``"theory"``) or
  a condition (``if``, ``x if c else y``, a comprehension's ``if``) that asks whether something is a family
  (``family``, ``is_family_source``, ``family_of_unit`` ...): the generic code running a second pipeline beside
  the plugin protocol;
* a **branch on a replicate kind or a question** is, in the pipeline outside the designs module and the problem
  kinds (``pipeline/kinds.py``, whose families answer the ``"problem"`` question), a comparison of something
  named a kind, a question or replicates (``cv.replicate_kind``, ``entry.question``, ``table.kind`` ...) with a
  replicate kind (``"seed"``, ``"split"``) or a question (``"problem"``, ``"population"``, ``"split"``,
  ``"resampling"``): the design and its :class:`~replearn.pipeline.designs.Question` answer instead (whether
  the replicates are independent, their repeats, where the means come from and what a verdict claims);
* ``.get(`` calls in ``src/replearn/pipeline/report/``: what the report reads from the stage records.

Each count has a ceiling that only goes down (the number measured when the test was last tightened); the design
count's ceiling is 0. Run ``python tests/test_architecture.py`` to print the counts and where they are.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "replearn"
DESIGNS = {"cv", "seeds", "sweep"}
FAMILIES = {"rl", "structured", "generative", "sequence", "theory"}
DESIGN_HOME = {"pipeline/designs.py"}
REPLICATE_WORDS = {"seed", "split", "problem", "population", "resampling"}
REPLICATE_HOME = {"pipeline/designs.py", "pipeline/kinds.py"}
#: ceilings: lower them when a count falls, never raise them
MAX_DESIGN_BRANCHES = 0
# 15 when the counter landed (compare, sequential, the report's summary, sections and few-runs section, the
# significance stage's log, replearn compare's tables, the config, the diff engine; three more in the report's
# wording compared a variable named q); designs.independent_replicates / repeat_groups / log_label / question
# (the Question registry with the wording) and ProblemKind.one_problem took them to 0
MAX_REPLICATE_BRANCHES = 0
MAX_FAMILY_BRANCHES = 0
# 594 when the counter landed; the leaderboard (report/leaderboard.py, issue 41), written beside it on another branch
# before typed across-datasets records exist, brought 36 more: the next step types them (issue 38, step 3); the
# problem kinds (pipeline/kinds.py) took it to 606; the typed views of the across-datasets records
# (pipeline/views.py, read by matrix, leaderboard, summary, sections and the report's diagram) to 469; the views of
# every dataset's comparisons to 202; the crossval and train records read as records (records.as_evaluation), the
# views of a family's problem, of metrics/train.json, of results/reproduction.json and of the report's header to 53:
# what is left looks up the config (settings), the crossval stage's wall-clock times (timing/, no record), the
# registries of the report (FIGURES, multiclass schemes) and the free-form payloads a family or a model view
# carries (extras, problem descriptions, figure data, V* cells); the families' report views in their own folders
# (families/<f>/report.py, read through the views they declare of their payloads) to 31; a decomposition's view data
# (views.Decomposition) and the units' curves read from their ModelEvaluation to 25: the config (settings), the
# crossval stage's wall-clock times (timing/, no record), the report's own registries and local tallies, the
# mappings of records by dataset, a model's hyperparameters (free-form by nature) and a reproduction's named series;
# the crossval stage's wall-clock times a record (records.Timing, read by the cost report, the leaderboard and
# MLflow) and the records looked up by dataset with ``in`` to 12: the config (settings), the report's own registries
# and local tallies (best counts, ranks by model, the cost plot's points), a model's hyperparameters (free-form by
# nature) and a reproduction's named series (free-form by nature); none on a stage record's declared field; a
# reproduction's curves read through views.Curve (ReproductionRecord.drawable_curves) to 11: the config, the
# report's own registries and tallies, and a model's hyperparameters (ModelEvaluation.params, free-form by nature);
# the hyperparameters read through records.hyperparameter to 9: the config (settings.get, 2), the report's own
# registries (_OWN_SCHEME, a literal, 2) and local tallies and lookups by model name (best counts, the cost plot's
# points, the clique members' average ranks, 5)
MAX_REPORT_GETS = 9


def _strings(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def _compares(node: ast.AST, names: set[str], side_test=None) -> bool:
    """Whether ``node`` compares with a string of ``names`` (and, with ``side_test``, one of its sides passes it)."""
    if not isinstance(node, ast.Compare):
        return False
    sides = [node.left, *node.comparators]
    return any(_strings(s) & names for s in sides) and (side_test is None or any(side_test(s) for s in sides))


def branches(names: set[str], home, side_test=None) -> list[str]:
    """``path:line: source`` of every comparison with a string of ``names`` outside ``home(relpath)`` (with
    ``side_test``: only those one of whose sides passes it)."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if home(rel):
            continue
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if _compares(node, names, side_test):
                out.append(f"{rel}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return out


def _names_a_kind(node: ast.AST) -> bool:
    """Whether an expression reads something named a kind, a question or replicates."""
    for n in ast.walk(node):
        name = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else ""
        if any(word in name for word in ("kind", "question", "replicate")):
            return True
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in ("replicates", "question"):
            return True  # r.get("replicates"), entry["question"]
    return False


def replicate_branches() -> list[str]:
    """Comparisons of a replicate kind or a question with one of their names, in the pipeline outside
    :data:`REPLICATE_HOME`."""
    return branches(
        REPLICATE_WORDS, lambda rel: rel in REPLICATE_HOME or not rel.startswith("pipeline/"), _names_a_kind
    )


def design_branches() -> list[str]:
    return branches(DESIGNS, lambda rel: rel in DESIGN_HOME)


def _family_home(rel: str) -> bool:
    """The families' folders, the registries that load their units and report views by name, and the one module
    that tells a table from a family (``pipeline/kinds.py``)."""
    return (
        rel.startswith(("pipeline/families/", "pipeline/units/", "pipeline/family_views/"))
        or rel == "pipeline/kinds.py"
    )


def _asks_family(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and "famil" in n.id:
            return True
        if isinstance(n, ast.Attribute) and "famil" in n.attr:
            return True
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and "famil" in n.value:
            return True
    return False


def family_branches() -> list[str]:
    """Comparisons with a family name and conditions on being a family, in the pipeline outside the families'
    folders (``rl`` and ``structured`` are also algorithm subpackages, whose own code names them freely)."""
    out = [b for b in branches(FAMILIES, _family_home) if b.startswith("pipeline/")]
    for path in sorted((SRC / "pipeline").rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if _family_home(rel):
            continue
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            tests: list[ast.expr] = []
            if isinstance(node, (ast.If, ast.IfExp, ast.While)):
                tests = [node.test]
            elif isinstance(node, ast.comprehension):
                tests = list(node.ifs)
            out += [f"{rel}:{t.lineno}: {lines[t.lineno - 1].strip()}" for t in tests if _asks_family(t)]
    return out


def report_gets() -> list[str]:
    out = []
    for path in sorted((SRC / "pipeline" / "report").rglob("*.py")):
        for i, line in enumerate(path.read_text().splitlines(), 1):
            out += [f"{path.relative_to(SRC).as_posix()}:{i}"] * len(re.findall(r"\.get\(", line))
    return out


def test_no_branch_on_a_design_name_outside_its_module():
    found = design_branches()
    assert len(found) <= MAX_DESIGN_BRANCHES, "\n".join(found)


def test_no_branch_on_a_replicate_kind_or_question_outside_the_designs():
    found = replicate_branches()
    assert len(found) <= MAX_REPLICATE_BRANCHES, "\n".join(found)


def test_family_branches_do_not_grow():
    found = family_branches()
    assert len(found) <= MAX_FAMILY_BRANCHES, "\n".join(found)


def test_report_gets_do_not_grow():
    assert len(report_gets()) <= MAX_REPORT_GETS


def test_the_counter_sees_a_planted_branch():
    """The counter itself can fail: a planted ``== "sweep"`` is found."""
    tree = ast.parse('if design == "sweep":\n    pass\nif kind in ("seeds", "x"):\n    pass\n')
    hits = [n for n in ast.walk(tree) if _compares(n, DESIGNS)]
    assert len(hits) == 2
    assert _asks_family(ast.parse('meta.get("family")').body[0]) and not _asks_family(ast.parse("x.y").body[0])
    planted = (
        'if cv.replicate_kind == "seed": pass\nif r.get("replicates") != "split": pass\nif ties == "split": pass\n'
    )
    kinds = [n for n in ast.walk(ast.parse(planted)) if _compares(n, REPLICATE_WORDS, _names_a_kind)]
    assert len(kinds) == 2  # a test's own option named "split" is no replicate kind


if __name__ == "__main__":
    for title, found in (
        ("design", design_branches()),
        ("family", family_branches()),
        ("replicate kind or question", replicate_branches()),
    ):
        print(f"branches on a {title} name: {len(found)}")
        for f in found:
            print("  " + f)
    print(f".get( in the report: {len(report_gets())}")
    sys.exit(0)
