"""The pipeline's overhead, measured side by side: `dvc repro` against the same work done in one process.

A copy of this repository's pipeline (``dvc.yaml``, ``params.yaml``, ``conf/``, ``stages/``, ``src/``, ``data/``;
``git init`` and ``dvc init`` in it) is made under a temporary directory, so nothing here touches the checkout. The
stages run the installed ``replearn`` (the editable install of this checkout), as ``dvc repro`` in the checkout
does. Every case is timed ``--rounds`` times (default 3), the rounds interleaved, and the median is reported:

* ``dvc repro -f`` -- the forced default experiment, a process per stage, tracking on (the experiment's database
  warm: a forced rerun with unchanged results logs nothing new, as in the checkout);
* ``in one process`` -- the same stages' work (``replearn.pipeline.stages.<name>.main`` under the same
  ``stage.run`` frame, validation included) called one after the other in one Python process: the same fits,
  tests, reproductions and report, without DVC and without a process per stage;
* ``dvc repro, nothing changed`` -- the no-op;
* per stage, ``python stages/<name>.py`` on its own (a process: interpreter, imports, validation gate, work);
* ``reproduce with nothing to do`` -- ``python stages/reproduce.py`` with ``reproduce: null`` (the smoke preset's
  setting): the cost of a stage that has no work for the experiment;
* floors: ``python -c pass``, ``python -c 'import numpy'``, and DVC's own no-op on a one-stage project.

``--source DIR`` measures another checkout instead (e.g. ``git worktree add /tmp/before <commit>``): its pipeline
files are copied and its ``src/`` comes first on ``PYTHONPATH``, so the stages run its code (before/after on the
same machine state). ``--tracking`` also times the report stage with ``tracking=off``, with a fresh database and
with a warm one that logs (a new experiment name per round, so that its runs are new). Results go to
``pipeline_overhead.json`` (``--output``) in
:data:`benchmarks.common.RESULTS_DIR` and are printed as markdown; docs/performance.md ("Pipeline overhead: the
whole experiment") shows them. Run: ``python -m benchmarks.bench_pipeline_overhead [--rounds 3] [--tracking]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STAGES = ["validate", "prepare", "featurize", "train", "crossval", "significance", "reproduce", "report"]
COPY = ["dvc.yaml", "params.yaml", "conf", "stages", "src", "data/registry.yaml", "data/keel.yaml", "data/uci"]
COPY += ["data/reference", ".dvcignore"]

#: the stages' work in one process: each stage module's main under the same frame as `python stages/<x>.py`
IN_PROCESS = """
import importlib, sys
from replearn.pipeline.stage import run
for name in sys.argv[1:]:
    run(name, importlib.import_module(f"replearn.pipeline.stages.{name}").main)
"""


SOURCE = REPO  # the checkout measured (--source)


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "DVC_"))}
    if SOURCE != REPO:
        env["PYTHONPATH"] = str(SOURCE / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["CI"] = "1"  # no progress bars
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env


def _timed(cmd: list[str], cwd: Path) -> float:
    t0 = time.perf_counter()
    res = subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if res.returncode != 0:
        raise RuntimeError(f"`{' '.join(cmd)}` failed in {cwd}:\n{res.stderr[-3000:]}")
    return seconds


def make_project(root: Path) -> Path:
    """A copy of the pipeline with its own git and DVC repositories; returns its path."""
    proj = root / "proj"
    proj.mkdir()
    for part in COPY:
        src = SOURCE / part
        if src.is_dir():
            shutil.copytree(src, proj / part, ignore=shutil.ignore_patterns("__pycache__", "*.nbc", "*.nbi"))
        elif src.is_file():
            (proj / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, proj / part)
    for cmd in (["git", "init", "-q"], ["dvc", "init", "-q"], ["dvc", "config", "core.autostage", "false"]):
        subprocess.run(cmd, cwd=proj, env=_env(), check=True, capture_output=True)
    _timed(["dvc", "repro", "-q"], proj)  # outputs, lock file and a warm MLflow database
    return proj


def _set_params(proj: Path, **changes) -> None:
    import yaml

    params = yaml.safe_load((proj / "params.yaml").read_text())
    for dotted, value in changes.items():
        *head, last = dotted.split(".")
        node = params
        for key in head:
            node = node[key]
        node[last] = value
    (proj / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    # as `dvc repro` would: the validate stage accepts the edited params.yaml first, so the timed stage trusts its
    # stamp (pipeline/params.py) instead of validating in full
    subprocess.run([sys.executable, "stages/validate.py"], cwd=proj, env=_env(), check=True, capture_output=True)


def measure(rounds: int, tracking: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="replearn-overhead-") as tmp:
        root = Path(tmp)
        proj = make_project(root)
        tiny = root / "tiny"
        tiny.mkdir()
        for cmd in (["git", "init", "-q"], ["dvc", "init", "-q"]):
            subprocess.run(cmd, cwd=tiny, env=_env(), check=True, capture_output=True)
        (tiny / "dvc.yaml").write_text("stages:\n  a:\n    cmd: echo hi > out.txt\n    outs:\n      - out.txt\n")
        _timed(["dvc", "repro", "-q"], tiny)

        py = sys.executable
        cases: dict[str, list[float]] = {}

        def add(name: str, seconds: float) -> None:
            cases.setdefault(name, []).append(seconds)

        for _ in range(rounds):
            add("dvc repro -f (forced default experiment)", _timed(["dvc", "repro", "-f", "-q"], proj))
            add("the same stages in one process", _timed([py, "-c", IN_PROCESS, *STAGES], proj))
            add("dvc repro, nothing changed", _timed(["dvc", "repro", "-q"], proj))
            for stage in STAGES:
                add(f"stage {stage} (python stages/{stage}.py)", _timed([py, f"stages/{stage}.py"], proj))
            add("DVC's floor: dvc repro, one-stage project, nothing changed", _timed(["dvc", "repro", "-q"], tiny))
            add("python -c pass", _timed([py, "-c", "pass"], proj))
            add("python -c 'import numpy'", _timed([py, "-c", "import numpy"], proj))

        text = (proj / "params.yaml").read_text()
        _set_params(proj, reproduce=None)
        for _ in range(rounds):
            add("stage reproduce with nothing to do (reproduce: null)", _timed([py, "stages/reproduce.py"], proj))
        if tracking:
            for r in range(rounds):
                _set_params(proj, **{"tracking.enabled": False})
                add("report stage, tracking=off", _timed([py, "stages/report.py"], proj))
                _set_params(proj, **{"tracking.enabled": True, "tracking.experiment": f"overhead-warm-{r}"})
                warm = _timed([py, "stages/report.py"], proj)
                add("report stage, tracking on, warm database (a run that logs)", warm)
                for name in ("mlflow.db", "mlflow.db-wal", "mlflow.db-shm", "mlflow.db.lock"):
                    (proj / name).unlink(missing_ok=True)
                shutil.rmtree(proj / "mlartifacts", ignore_errors=True)
                add("report stage, tracking on, fresh database", _timed([py, "stages/report.py"], proj))
        (proj / "params.yaml").write_text(text)
    return {name: {"median": statistics.median(v), "all": v} for name, v in cases.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tracking", action="store_true", help="also time the report stage's tracking cases")
    parser.add_argument("--source", type=Path, default=REPO, help="the checkout to measure (default: this one)")
    parser.add_argument("--output", default="pipeline_overhead.json", help="file name in the results folder")
    args = parser.parse_args(argv)
    global SOURCE
    SOURCE = args.source.resolve()
    from benchmarks.common import RESULTS_DIR, machine

    results = measure(args.rounds, args.tracking)
    forced = results["dvc repro -f (forced default experiment)"]["median"]
    inproc = results["the same stages in one process"]["median"]
    out = {
        "machine": machine(),
        "source": str(SOURCE),
        "rounds": args.rounds,
        "cases": results,
        "forced_over_in_process": forced / inproc,
    }
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    tmp = RESULTS_DIR / f"{args.output}.tmp"
    tmp.write_text(json.dumps(out, indent=2) + "\n")
    tmp.replace(RESULTS_DIR / args.output)
    print("| case | median s | rounds |")
    print("|---|---:|---|")
    for name, r in results.items():
        print(f"| {name} | {r['median']:.2f} | {', '.join(f'{s:.2f}' for s in r['all'])} |")
    print(f"\nforced `dvc repro -f` / in one process: {forced / inproc:.2f}")


if __name__ == "__main__":
    main()
