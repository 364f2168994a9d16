"""Digests of a run's outputs (metrics/ and results/), for the test that keeps every preset's outputs unchanged
through a refactor (tests/test_presets.py; issue 38: "every preset's metrics/ and results/ byte-identical before and
after").

Every JSON file is digested in a canonical form: parsed, every float written with 12 significant digits and any
|x| < 1e-12 as 0, keys sorted. On one machine the pipeline's outputs are byte-identical from run to run (serial or
parallel); across machines a BLAS kernel chosen by the CPU can move the last bits of a float (a residue of 3.5e-15
instead of 4.0e-15), which is not a change of what replearn computes. A real change -- another test, another
number, a field more or less -- changes the canonical form. ``python -m tests.tools.digests DIR`` prints a folder's.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from pathlib import Path

#: the folders digested; REPLEARN_DIGEST_FOLDERS=metrics,results,reports adds the report (text and PNGs, byte for
#: byte): a baseline stored on one machine before a refactor of the report guards what it prints
FOLDERS = tuple(os.environ.get("REPLEARN_DIGEST_FOLDERS", "metrics,results").split(","))
#: the reports that carry wall-clock seconds (the cost report, the leaderboard page with times), which change from
#: run to run by design: left out of a digest of reports/
WALL_CLOCK = ("cost", "leaderboard")
DIGITS = 12
ZERO = 1e-12


def canonical(value):
    if isinstance(value, float):
        if not math.isfinite(value):
            return repr(value)
        return 0.0 if abs(value) < ZERO else float(f"{value:.{DIGITS}g}")
    if isinstance(value, list):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    return value


def file_digest(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".json":
        text = json.dumps(canonical(json.loads(data)), sort_keys=True, separators=(",", ":"))
        data = text.encode()
    return hashlib.sha256(data).hexdigest()


def digests(root: Path) -> dict[str, str]:
    """Relative path -> canonical digest of every file under ``root``'s :data:`FOLDERS` (metrics/ and results/)."""
    out = {}
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and not (folder == "reports" and path.name.startswith(WALL_CLOCK)):
                out[path.relative_to(root).as_posix()] = file_digest(path)
    return out


if __name__ == "__main__":
    print(json.dumps(digests(Path(sys.argv[1] if len(sys.argv) > 1 else ".")), indent=2, sort_keys=True))
