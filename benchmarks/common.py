"""Timing harness shared by the ``bench_*.py`` modules.

Each case times a callable (usually ``fit``, or ``fit`` + ``predict``) for replearn and for the
scikit-learn reference on the same data: one warm-up call each, then ``repeats`` rounds in which
the two are timed back to back (``time.perf_counter``), so slow phases of a shared machine hit
both alike; the median of each is reported. ``ratio = ours / sklearn``: below 1 means replearn
is faster.
Results go to ``benchmarks/results/local/<name>.json`` (untracked, git-ignored) and are printed as a
markdown table. The committed results under ``benchmarks/results/`` (which docs/performance.md shows)
change only through ``make bench-docs`` (:mod:`benchmarks.summary` ``--publish``), and
``make bench-check`` (:mod:`benchmarks.gate`) compares a fresh local run with them.
Set ``REPLEARN_BENCH_OUT`` to write somewhere else.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy
import sklearn

#: committed results (what docs/performance.md shows); written only by ``benchmarks.summary --publish``
COMMITTED_DIR = Path(__file__).resolve().parent / "results"
#: where a run writes: an untracked folder, so ``make bench`` never rewrites committed files
RESULTS_DIR = Path(os.environ.get("REPLEARN_BENCH_OUT", str(COMMITTED_DIR / "local"))).resolve()


@dataclass
class Case:
    """One comparison: what is timed, on which data shape, ours vs the reference."""

    name: str
    shape: str
    ours: Callable[[], object]
    reference: Callable[[], object]
    reference_name: str


def median_time(fn: Callable[[], object], repeats: int = 5, warmup: int = 1) -> float:
    """Median wall-clock seconds of ``fn()`` over ``repeats`` runs, after ``warmup`` untimed runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def machine() -> dict:
    """What the numbers were measured on."""
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "sklearn": sklearn.__version__,
    }


def paired_median_times(ours: Callable[[], object], ref: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median seconds of ``ours()`` and ``ref()``, timed alternately after one warm-up each."""
    ours()
    ref()
    t_ours, t_ref = [], []
    for _ in range(repeats):
        for fn, times in ((ours, t_ours), (ref, t_ref)):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return statistics.median(t_ours), statistics.median(t_ref)


def run_cases(bench: str, cases: list[Case], repeats: int = 9, blas_threads: int | None = None) -> list[dict]:
    """Time every case, write ``results/<bench>.json``, print a markdown table; return the rows. ``blas_threads``:
    the BLAS thread limit the caller set (recorded, and shown by :mod:`benchmarks.summary`)."""
    rows = []
    for case in cases:
        ours, ref = paired_median_times(case.ours, case.reference, repeats)
        rows.append(
            {
                "case": case.name,
                "shape": case.shape,
                "reference": case.reference_name,
                "ours_s": round(ours, 6),
                "sklearn_s": round(ref, 6),
                "ratio": round(ours / ref, 3),
            }
        )
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    payload = {"benchmark": bench, "repeats": repeats, "machine": machine(), "results": rows}
    if blas_threads is not None:
        payload["blas_threads"] = blas_threads
    tmp = RESULTS_DIR / f"{bench}.json.tmp"
    tmp.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    tmp.replace(RESULTS_DIR / f"{bench}.json")
    print(markdown_table(bench, rows))
    return rows


def markdown_table(bench: str, rows: list[dict]) -> str:
    lines = [
        f"### {bench}",
        "",
        "| case | shape | reference | ours (s) | sklearn (s) | ratio ours/sklearn |",
        "|---|---|---|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['case']} | {r['shape']} | {r['reference']} "
            f"| {r['ours_s']:.4f} | {r['sklearn_s']:.4f} | {r['ratio']:.2f} |"
        )
    return "\n".join(lines) + "\n"
