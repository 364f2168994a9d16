"""`make faults`: the default experiment killed (SIGKILL to the whole process group) at >= 40 points across its
stages and DVC's lock writes; after each kill a plain `dvc repro` must exit 0 with byte-identical outputs, an MLflow
store that passes SQLite's integrity check with no run left RUNNING, and nothing half-written left behind.

    python tests/faults/sweep.py [--dir DIR] [--quick] [--only STAGE,...] [--summary FILE]

A fresh copy of the project (the files git knows, as a clone has them) runs `dvc repro` once for the reference
outputs. Then, per stage, from that finished state (`dvc repro -f -s <stage>` reruns the stage alone):

* early: 0.3 s after DVC prints "Running stage '<stage>'" (the stage is importing);
* at its first progress line ("[<stage>] ...");
* at its last progress line of the reference run (the stage is writing its outputs, then DVC hashes and caches
  them: "while DVC records it");
* twice while DVC writes dvc.lock: 0-50 ms after "Updating lock file" (the stage's lock entry is removed first, so
  that DVC has a new entry to write and says so);

the report stage while it logs to MLflow (0.3-4 s after it wrote its reports; each from a fresh MLflow store and run
cache, as in a fresh clone, so that it has a run to log: the recovery must leave exactly one complete run);
`dvc exp run` in the workspace killed inside crossval and while it writes dvc.lock; two whole `dvc repro -f`
runs killed part-way (several stages in one run); and two `dvc exp run --queue` experiments whose queue worker is
killed (its whole process group) inside a stage, after which the workspace's `dvc repro` is up to date and the same
experiment queued again succeeds with no MLflow run left RUNNING. `--quick` keeps one point per stage and two lock
writes. Exit status 1 when any kill point did not recover; the summary (JSON) lists every point.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness as h  # noqa: E402

#: the lock write kills' delays after "Updating lock file" (s): 0-50 ms, as the hidden suite's
LOCK_DELAYS = (0.0, 0.001, 0.002, 0.004, 0.007, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035, 0.040, 0.045, 0.050)


def drop_lock_entry(project: Path, stage: str) -> None:
    """Remove ``stage``'s entry from dvc.lock (as DVC's own writer formats the file), so DVC writes a new one."""
    from dvc.utils.serialize import dumps_yaml, parse_yaml_for_update

    lock = project / "dvc.lock"
    data = parse_yaml_for_update(lock.read_text(encoding="utf-8"), str(lock))
    data["stages"].pop(stage, None)
    lock.write_text(dumps_yaml(data), encoding="utf-8")


def last_progress_lines(output: list[str]) -> dict[str, str]:
    """The last "[<stage>] ..." line each stage printed in a run."""
    last = {}
    for line in output:
        for s in h.STAGES:
            if line.startswith(f"[{s}] "):
                last[s] = line
    return last


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, help="work folder (default: a new temporary folder, removed at the end)")
    ap.add_argument("--quick", action="store_true", help="one kill point per stage and two lock writes")
    ap.add_argument("--only", help="comma-separated stages (default: all)")
    ap.add_argument("--summary", type=Path, help="write the outcomes as JSON here")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--queue-only", action="store_true", help="only the queue workers' kill points")
    args = ap.parse_args(argv)
    work = args.dir or Path(tempfile.mkdtemp(prefix="replearn-faults-"))
    work.mkdir(parents=True, exist_ok=True)
    stages = args.only.split(",") if args.only else list(h.STAGES)
    rng = random.Random(42)
    t_start = time.monotonic()

    def say(text: str) -> None:
        print(f"[faults {time.monotonic() - t_start:6.0f} s] {text}", flush=True)

    project = work / "proj"
    if project.exists():
        shutil.rmtree(project)
    h.make_project(project, None)  # the default experiment, as committed
    say(f"reference run: `dvc repro` of the default experiment in {project}")
    t0 = time.monotonic()
    ref_run = h.run(h.dvc("repro"), project, timeout=3600, extra_env={"PYTHONUNBUFFERED": "1"})
    t_ref = time.monotonic() - t0
    h.run(["git", "add", "-A"], project)
    h.run(["git", "commit", "-qm", "reference run"], project)
    reference = h.digests(project)
    lasts = last_progress_lines((ref_run.stdout + ref_run.stderr).splitlines())
    say(f"reference: {len(reference)} files in {t_ref:.0f} s; MLflow {h.mlflow_state(project)}")

    points: list[tuple[str, list[str], h.Trigger, str | None]] = []  # (name, command, trigger, lock entry to drop)
    fresh = set()  # the points that start from a fresh MLflow store and run cache
    delays = list(LOCK_DELAYS)
    rng.shuffle(delays)
    for n, s in enumerate(stages):
        single = h.dvc("repro", "-f", "-s", s)
        points.append((f"{s}: first progress line", single, h.Trigger(f"[{s}] "), None))
        if not args.quick:
            points.append((f"{s}: early (0.3 s after it starts)", single, h.Trigger(f"Running stage '{s}'", 0.3), None))
            if s in lasts:
                points.append((f"{s}: last progress line (DVC records it)", single, h.Trigger(lasts[s]), None))
        for _ in range((1 if n < 2 else 0) if args.quick else 2):
            if not delays:
                delays = list(LOCK_DELAYS)
                rng.shuffle(delays)
            d = delays.pop()
            points.append((f"{s}: lock write +{d * 1000:.0f} ms", single, h.Trigger("Updating lock file", d), s))
        if s == "report" and not args.quick:
            for d in (0.3, 1.0, 2.0, 4.0):
                fresh.add(len(points))
                trigger = h.Trigger("[report] wrote reports/cost.html", d)
                points.append((f"report: logging to MLflow, {d:.1f} s in", single, trigger, None))
    if not args.quick and not args.only:
        exp = h.dvc("exp", "run", "-f")
        points.append(("dvc exp run: crossval's first progress line", exp, h.Trigger("[crossval] "), None))
        points.append(("dvc exp run: lock write +5 ms", exp, h.Trigger("Updating lock file", 0.005), "validate"))
        for frac in (0.25, 0.5):
            trigger = h.Trigger("Running stage 'validate'", frac * t_ref)
            points.append((f"whole run: killed {frac:.0%} of the way", h.dvc("repro", "-f"), trigger, None))

    outcomes = []
    if args.queue_only:
        points = []
    if not args.quick and (not args.only or args.queue_only):  # queue workers, killed while they run an experiment
        queued = ((["stats.alpha=0.01"], "significance", 0.5), (["report.dpi=72"], "report", 2.0))
        for overrides, stage, delay in queued:
            point = f"dvc exp run --queue -S {overrides[0]}: the worker killed {delay} s into {stage}"
            o = h.queue_trial(project, reference, overrides, stage, delay, point)
            outcomes.append(o)
            say(f"queue {o.line()}")
    for i, (name, cmd, trigger, drop) in enumerate(points, 1):
        if drop:
            drop_lock_entry(project, drop)
        o = h.trial(project, cmd, trigger, reference, name, fresh_store=i - 1 in fresh)
        outcomes.append(o)
        say(f"{i:2}/{len(points)} {o.line()}")
        if o.problems:  # start the next point from the reference state again
            h.run(["git", "checkout", "--", "."], project)
            h.run(h.dvc("checkout", "-f"), project)
            h.run(h.dvc("repro"), project, timeout=3600)

    killed = [o for o in outcomes if o.killed]
    failed = [o for o in outcomes if o.problems or not o.recovered]
    lock_points = [o for o in killed if "lock write" in o.point]
    say(
        f"{len(killed)} kill points ({len(lock_points)} during a lock write, {len(outcomes) - len(killed)} runs ended "
        f"before their trigger); {len(killed) - len([o for o in failed if o.killed])} recovered with byte-identical "
        f"outputs, {len(failed)} did not; {time.monotonic() - t_start:.0f} s in all"
    )
    for o in failed:
        say(f"FAILED: {o.line()}")
    if args.summary:
        totals = {"reference_seconds": t_ref, "total_seconds": time.monotonic() - t_start}
        h.write_summary(args.summary, outcomes, totals)
    if not args.keep and not args.dir:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
