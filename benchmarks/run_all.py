"""Run every ``benchmarks/bench_*.py`` module's ``main()``: ``python -m benchmarks.run_all``."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path


def main() -> None:
    here = Path(__file__).resolve().parent
    names = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    for name in names:
        importlib.import_module(f"benchmarks.{name}").main()


if __name__ == "__main__":
    main()
