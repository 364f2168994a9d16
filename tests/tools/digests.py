"""Digests of a run's outputs (metrics/ and results/), for the test that keeps every preset's outputs unchanged
through a refactor (tests/test_presets.py; issue 38: "every preset's metrics/ and results/ byte-identical before and
after").

Every JSON file is digested in a canonical form: parsed, every float written with 12 significant digits and any
|x| < 1e-12 as 0, keys sorted. On one machine the pipeline's outputs are byte-identical from run to run (serial or
parallel); across machines a BLAS kernel or a SIMD loop chosen by the CPU can move the last bits of a float (a
residue of 3.5e-15 instead of 4.0e-15), which is not a change of what replearn computes. A real change -- another
test, another number, a field more or less -- changes the canonical form.

**Near ties.** A comparison of two models whose scores agree to many digits (least squares by the normal equations
against the same objective by gradient descent: two MSEs of 3154.89 that differ by 1e-6) turns the last-bit noise
of the scores (2e-16 relative) into the 6th digit of everything computed from their difference: the t statistic,
the p-value, the interval, the effect size. Measured on one machine with OpenBLAS's Haswell kernels against its
SkylakeX ones (the regression preset): those fields moved by up to 6e-6 relative (at most ``2e-15 x`` the pair's
conditioning), every other field by < 2e-15. So the floats of a *pair row* (a dict naming ``model_a`` and
``model_b``) of a pair whose conditioning ``max(|mean_a|, |mean_b|) / |mean_difference|`` (or ``score_a``,
``score_b``) exceeds :data:`COND_LIMIT` anywhere in the file are digested to the digits that conditioning leaves
meaningful (:func:`digits`: a value's chance to round across a digit boundary from that noise stays below 1e-5;
none at all past 5e10, where only the field's presence is digested). The row's strings, integers and booleans --
the test, the verdict, the winner -- are digested whole. An exact tie (equal scores) is equal on every machine and
digested whole. ``python -m tests.tools.digests DIR`` prints a folder's.
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
#: a pair whose scores agree to more than this ratio of their size to their difference is a near tie
COND_LIMIT = 100.0
#: the relative noise of a value derived from a pair's difference, per unit of the pair's conditioning (measured)
NOISE = 2e-15
#: the chance, per value, that the noise rounds a near-tie value across a digit boundary
FLIP = 1e-5
MARK = "~near-tie~"


def canonical(value, digits: int = DIGITS):
    if isinstance(value, float):
        if not math.isfinite(value):
            return repr(value)
        return 0.0 if abs(value) < ZERO else float(f"{value:.{digits}g}")
    if isinstance(value, list):
        return [canonical(v, digits) for v in value]
    if isinstance(value, dict):
        return {k: canonical(v, digits) for k, v in value.items()}
    return value


def _pair(row: dict) -> frozenset | None:
    a, b = row.get("model_a"), row.get("model_b")
    return frozenset((a, b)) if isinstance(a, str) and isinstance(b, str) else None


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def conditioning(data) -> dict[frozenset, float]:
    """``{pair: the largest size/difference ratio of its rows}`` over every pair row of ``data`` that carries both
    scores and their difference (1 for an exact tie: two models with the same scores, on any machine)."""
    out: dict[frozenset, float] = {}

    def walk(v) -> None:
        if isinstance(v, dict):
            pair, diff = _pair(v), v.get("mean_difference")
            scores = [v.get(k) for k in ("mean_a", "mean_b", "score_a", "score_b") if _number(v.get(k))]
            if pair is not None and _number(diff) and scores:
                size = max(abs(s) for s in scores)
                cond = size / abs(diff) if diff else 1.0  # an exact tie: equal on every machine
                out[pair] = max(out.get(pair, 1.0), cond)
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(data)
    return out


def digits(cond: float) -> int:
    """The significant digits kept of a value with noise ``NOISE x cond`` (relative): a rounding boundary within
    reach of the noise with probability < :data:`FLIP`; 0 (drop the value) when no digit is that stable."""
    return min(DIGITS, max(0, math.floor(1 + math.log10(FLIP / (NOISE * cond)))))


def digest_form(data):
    """``data`` canonical: 12 significant digits, the floats of near-tie rows to :func:`digits` of their
    conditioning (a value small beside the row's difference counts its ratio to it in that conditioning)."""
    conds = conditioning(data)

    def walk(v, cond: float | None, diff: float):
        if isinstance(v, dict):
            pair = _pair(v)
            if cond is None and pair is not None and conds.get(pair, 1.0) > COND_LIMIT:
                cond = conds[pair]
                diff = abs(v["mean_difference"]) if _number(v.get("mean_difference")) else 0.0
            return {k: walk(x, cond, diff) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x, cond, diff) for x in v]
        if cond is not None and isinstance(v, float) and math.isfinite(v) and abs(v) >= ZERO:
            n = digits(cond * max(1.0, diff / abs(v)))
            return canonical(v, n) if n else MARK
        return canonical(v)

    return walk(data, None, 0.0)


def file_digest(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".json":
        text = json.dumps(digest_form(json.loads(data)), sort_keys=True, separators=(",", ":"))
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
