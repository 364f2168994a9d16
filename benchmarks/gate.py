"""Regression gate: a fresh benchmark run against the committed results (``make bench-check``).

``python -m benchmarks.gate`` runs the ``bench_*.py`` modules (writing to the untracked
``benchmarks/results/local/``), then compares each case's ratio ``ours / sklearn`` with the ratio in the
committed ``benchmarks/results/<family>.json``. It fails (exit status 1) when a case is more than
``--tolerance`` (25%) slower *relative to scikit-learn* than committed: ``fresh > committed * 1.25``.
Ratios, not seconds, are compared, so a slower or busier machine slows both libraries alike.

Options: ``--no-run`` compares the latest local run without re-running; ``--only linear svm`` runs and
checks those families only. Cases that are new (not committed) are listed and do not fail the gate, nor does a
family that records nothing because its data are not installed (``bench_keel`` without ``make keel``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from .common import COMMITTED_DIR, RESULTS_DIR


def _rows(path: Path) -> dict[tuple, dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if "benchmark" not in data:  # calibration.json has no timing rows
        return {}
    return {(r["case"], r["shape"], r["reference"]): r for r in data["results"]}


def families(only: list[str] | None) -> list[str]:
    names = sorted(p.stem.removeprefix("bench_") for p in Path(__file__).parent.glob("bench_*.py"))
    if only:
        unknown = sorted(set(only) - set(names))
        if unknown:
            raise SystemExit(f"unknown benchmark families {unknown}; known: {names}")
        names = [n for n in names if n in only]
    return names


def compare(names: list[str], tolerance: float, *, ran: bool = True) -> tuple[list[str], list[str], list[str]]:
    """(failures, passes, new cases) as printable lines; a family without fresh results fails if it was run."""
    failures, passes, new = [], [], []
    for name in names:
        fresh_path, committed_path = RESULTS_DIR / f"{name}.json", COMMITTED_DIR / f"{name}.json"
        if not fresh_path.exists():
            (failures if ran else new).append(f"{name}: no fresh results in {fresh_path}")
            continue
        committed = _rows(committed_path) if committed_path.exists() else {}
        for key, row in _rows(fresh_path).items():
            ratio = row["ratio"]
            ref = committed.get(key)
            if ref is None:
                new.append(f"{name}: {key[0]} ({key[1]}): {ratio:.2f} (not committed)")
                continue
            limit = ref["ratio"] * (1.0 + tolerance)
            line = f"{name}: {key[0]} ({key[1]}): {ratio:.2f} vs committed {ref['ratio']:.2f} (limit {limit:.2f})"
            (failures if ratio > limit else passes).append(line)
    return failures, passes, new


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-run", action="store_true", help="compare the latest local results without re-running")
    parser.add_argument("--only", nargs="+", metavar="FAMILY", help="benchmark families to run and check")
    parser.add_argument("--tolerance", type=float, default=0.25, help="allowed relative slow-down (default 0.25)")
    args = parser.parse_args(argv)
    names = families(args.only)
    skipped = []
    if not args.no_run:
        for name in names:
            if importlib.import_module(f"benchmarks.bench_{name}").main() == []:  # its data are not installed
                skipped.append(name)
    ran = [n for n in names if n not in skipped]
    failures, passes, new = compare(ran, args.tolerance, ran=not args.no_run)
    new += [f"{name}: skipped (see its message above)" for name in skipped]
    for title, lines in (("ok", passes), ("new", new), ("SLOWER", failures)):
        for line in lines:
            print(f"[{title}] {line}")
    print(
        f"\n{len(passes)} within {args.tolerance:.0%} of the committed ratios, {len(failures)} slower, {len(new)} new"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
