"""Write the measured fit-time ratios of every benchmark into docs/performance.md.

``python -m benchmarks.summary`` reads ``benchmarks/results/<family>.json`` (written by the
``bench_*.py`` modules) and replaces the block between the ``bench:start`` and ``bench:end`` markers in
docs/performance.md with one table per family, so the document always shows the latest run and nothing
is copied by hand. ``make bench`` runs the benchmarks and then this.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
DOC = ROOT / "docs" / "performance.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"


def _fmt(x, digits=4):
    return "—" if x is None else f"{x:.{digits}g}"


def tables() -> str:
    out = []
    for path in sorted(RESULTS.glob("*.json")):
        data = json.loads(path.read_text())
        if "benchmark" not in data:  # calibration has its own table in docs/statistics.md
            continue
        rows = data["results"]
        m = data.get("machine", {})
        out.append(f"### {data['benchmark']}\n")
        note = f"median of {data.get('repeats', '?')} interleaved repeats; numpy {m.get('numpy')}, scikit-learn {m.get('sklearn')}"
        if "blas_threads" in data:
            note += f"; BLAS threads: {data['blas_threads']}"
        out.append(note + "\n")
        per_epoch = "ours_s_per_epoch" in rows[0]
        if per_epoch:
            out.append("| case | shape | reference | ours (s/epoch) | sklearn (s/epoch) | ratio | accuracy ours / sklearn (converged) |")
            out.append("|---|---|---|---:|---:|---:|---|")
            for r in rows:
                acc = f"{_fmt(r.get('ours_acc_converged'), 3)} / {_fmt(r.get('sklearn_acc_converged'), 3)}"
                out.append(f"| {r['case']} | {r['shape']} | {r['reference']} | {_fmt(r['ours_s_per_epoch'])} | "
                           f"{_fmt(r['sklearn_s_per_epoch'])} | **{r['ratio']:.2f}** | {acc} |")
        else:
            out.append("| case | shape | reference | ours (s) | sklearn (s) | ratio ours/sklearn |")
            out.append("|---|---|---|---:|---:|---:|")
            for r in rows:
                out.append(f"| {r['case']} | {r['shape']} | {r['reference']} | {_fmt(r['ours_s'])} | "
                           f"{_fmt(r['sklearn_s'])} | **{r['ratio']:.2f}** |")
        if "dual_objective" in data:
            out.append("")
            out.append(f"Dual objective: `{json.dumps(data['dual_objective'], sort_keys=True)}`")
        out.append("")
    return "\n".join(out)


def main() -> None:
    text = DOC.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{DOC} has no {START} ... {END} block")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{START}\n\n{tables()}\n{END}{tail}", encoding="utf-8")
    print(f"updated {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
