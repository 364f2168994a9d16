"""Tables of the measured fit-time ratios; publish a run into the committed results and docs/performance.md.

* ``python -m benchmarks.summary`` (``make bench``) prints one table per family from the latest local run
  (``benchmarks/results/local/``, untracked): nothing committed changes.
* ``python -m benchmarks.summary --publish`` (``make bench-docs``) copies the local JSON files into the
  committed ``benchmarks/results/`` and replaces the block between the ``bench:start`` and ``bench:end``
  markers in docs/performance.md with the tables, so the document shows the published run and nothing is
  copied by hand.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from .common import COMMITTED_DIR, RESULTS_DIR

ROOT = Path(__file__).resolve().parents[1]
RESULTS = COMMITTED_DIR
DOC = ROOT / "docs" / "performance.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"


def _fmt(x, digits=4):
    return "—" if x is None else f"{x:.{digits}g}"


def tables(results: Path = RESULTS) -> str:
    out = []
    for path in sorted(results.glob("*.json")):
        data = json.loads(path.read_text())
        if "benchmark" not in data:  # calibration has its own table in docs/statistics.md
            continue
        rows = data["results"]
        m = data.get("machine", {})
        out.append(f"### {data['benchmark']}\n")
        note = (
            f"median of {data.get('repeats', '?')} interleaved repeats; "
            f"numpy {m.get('numpy')}, scikit-learn {m.get('sklearn')}"
        )
        if "blas_threads" in data:
            note += f"; BLAS threads: {data['blas_threads']}"
        out.append(note + "\n")
        per_epoch = "ours_s_per_epoch" in rows[0]
        if per_epoch:
            out.append(
                "| case | shape | reference | ours (s/epoch) | sklearn (s/epoch) | ratio "
                "| accuracy ours / sklearn (converged) |"
            )
            out.append("|---|---|---|---:|---:|---:|---|")
            for r in rows:
                acc = f"{_fmt(r.get('ours_acc_converged'), 3)} / {_fmt(r.get('sklearn_acc_converged'), 3)}"
                out.append(
                    f"| {r['case']} | {r['shape']} | {r['reference']} | {_fmt(r['ours_s_per_epoch'])} | "
                    f"{_fmt(r['sklearn_s_per_epoch'])} | **{r['ratio']:.2f}** | {acc} |"
                )
        else:
            out.append("| case | shape | reference | ours (s) | sklearn (s) | ratio ours/sklearn |")
            out.append("|---|---|---|---:|---:|---:|")
            for r in rows:
                out.append(
                    f"| {r['case']} | {r['shape']} | {r['reference']} | {_fmt(r['ours_s'])} | "
                    f"{_fmt(r['sklearn_s'])} | **{r['ratio']:.2f}** |"
                )
        if "dual_objective" in data:
            out.append("")
            out.append(f"Dual objective: `{json.dumps(data['dual_objective'], sort_keys=True)}`")
        out.append("")
    return "\n".join(out)


def publish(only: list[str] | None = None) -> list[str]:
    """Copy the local run's JSON files (of the families ``only``, if given) over the committed ones; return their
    names."""
    names = sorted(p.name for p in RESULTS_DIR.glob("*.json") if p.name != "scaling.json")  # scaling: --publish there
    if only:
        names = [name for name in names if name.removesuffix(".json") in only]
    if not names:
        raise SystemExit(f"no local results in {RESULTS_DIR}; run `make bench` first")
    for name in names:
        shutil.copyfile(RESULTS_DIR / name, COMMITTED_DIR / name)
    return names


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--publish",
        action="store_true",
        help="copy the local results into benchmarks/results/ and rewrite docs/performance.md",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="FAMILY",
        help="with --publish: publish these families' local results only (the tables show every committed family)",
    )
    args = parser.parse_args(argv)
    if not args.publish:
        print(tables(RESULTS_DIR))
        return
    print(f"published {', '.join(publish(args.only))} into {COMMITTED_DIR.relative_to(ROOT)}/")
    text = DOC.read_text(encoding="utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{DOC} has no {START} ... {END} block")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{START}\n\n{tables()}\n{END}{tail}", encoding="utf-8")
    print(f"updated {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
