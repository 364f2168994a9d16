"""The canonical digests that keep every preset's outputs unchanged through a refactor (tests/tools/digests.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("replearn_tests_digests", ROOT / "tests" / "tools" / "digests.py")
digests = importlib.util.module_from_spec(spec)
spec.loader.exec_module(digests)


def _tree(tmp_path: Path, value, extra=None) -> Path:
    (tmp_path / "metrics").mkdir(parents=True, exist_ok=True)
    (tmp_path / "results" / "crossval").mkdir(parents=True, exist_ok=True)
    (tmp_path / "metrics" / "m.json").write_text(json.dumps({"a": value, "b": [1, 2.5], **(extra or {})}))
    (tmp_path / "results" / "crossval" / "iris.json").write_text(json.dumps({"z": 3}))
    return tmp_path


def test_last_bit_noise_keeps_the_digest_and_a_change_does_not(tmp_path):
    base = digests.digests(_tree(tmp_path / "a", 0.1 + 0.2))
    assert set(base) == {"metrics/m.json", "results/crossval/iris.json"}
    assert digests.digests(_tree(tmp_path / "b", 0.3)) == base  # 0.30000000000000004 vs 0.3
    residue = digests.digests(_tree(tmp_path / "c", 0.3, {"r": 3.98e-15}))
    assert digests.digests(_tree(tmp_path / "d", 0.3, {"r": 3.48e-15})) == residue  # a rounding residue
    assert digests.digests(_tree(tmp_path / "e", 0.3001)) != base
    assert digests.digests(_tree(tmp_path / "f", 0.3, {"new": 1})) != base
