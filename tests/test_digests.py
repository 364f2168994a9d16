"""The canonical digests that keep every preset's outputs unchanged through a refactor (tests/tools/digests.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

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


def _pair_row(mean_a: float, mean_b: float, **extra) -> dict:
    row = {"model_a": "ols", "model_b": "gd", "mean_a": mean_a, "mean_b": mean_b, "mean_difference": mean_a - mean_b}
    return row | extra


def _sig(tmp_path: Path, rows: list[dict], bayes: list[dict] | None = None) -> dict:
    (tmp_path / "results").mkdir(parents=True, exist_ok=True)
    data = {"datasets": {"d": {"cv": rows, "bayesian": bayes or []}}}
    (tmp_path / "results" / "significance.json").write_text(json.dumps(data))
    return digests.digests(tmp_path)


# two MSEs of 3154.89 that differ by 1e-6 (conditioning 3e9): the p-value and the interval's upper end moved by 3e-6
# and 6e-6 relative between two CPU kernels (measured on the regression preset)
TIE = dict(pvalue=0.0813038363148, ci=[-2.15542240381e-06, 1.52830362598e-07], test="half_sampling_ttest")
NOISY = dict(pvalue=0.0813036178381, ci=[-2.15542238507e-06, 1.52829448012e-07], test="half_sampling_ttest")
FAR = {"model_a": "knn", "model_b": "ols", "mean_a": 3240.19, "mean_b": 2662.61, "mean_difference": 577.58}
BAYES = {"model_a": "ols", "model_b": "gd", "p_a_better": 1.9255468876797e-67, "decision": "equivalent"}


def _tie(tmp_path: Path, **row) -> dict:
    return _sig(tmp_path, [_pair_row(3154.8934074210706, 3154.893408422366, **row), FAR | {"pvalue": 0.0455}], [BAYES])


def test_a_near_tie_is_digested_to_the_digits_its_conditioning_leaves_and_all_else_to_twelve(tmp_path):
    base = _tie(tmp_path / "a", **TIE, significant=False)
    assert _tie(tmp_path / "b", **NOISY, significant=False) == base  # the measured noise of another CPU
    assert _tie(tmp_path / "c", **dict(TIE, pvalue=0.0913), significant=False) != base  # a real change
    assert _tie(tmp_path / "d", **TIE, significant=True) != base  # the verdict is digested whole
    assert _tie(tmp_path / "e", **dict(TIE, test="wilcoxon"), significant=False) != base
    far = _sig(
        tmp_path / "f",
        [_pair_row(3154.8934074210706, 3154.893408422366, **TIE, significant=False), FAR | {"pvalue": 0.04550001}],
        [BAYES],
    )
    assert far != base  # a well-separated pair keeps its 12 digits


def test_the_digits_fall_with_the_conditioning_past_the_limit():
    assert digests.conditioning({"r": _pair_row(0.95, 0.96)}) == {frozenset(("ols", "gd")): pytest.approx(96.0)}
    assert digests.conditioning({"r": _pair_row(0.95, 0.95)}) == {frozenset(("ols", "gd")): 1.0}  # an exact tie
    assert digests.digits(1e2) == 8 and digests.digits(1e3) == 7 and digests.digits(3e9) == 1
    assert digests.digits(1e11) == 0
    form = digests.digest_form({"r": _pair_row(0.95, 0.96, pvalue=0.123456789012345)})
    assert form["r"]["pvalue"] == 0.123456789012  # an ordinary pair: 12 digits
    form = digests.digest_form({"r": _pair_row(1.0, 1.0 + 1e-12, pvalue=0.123456789012345)})
    assert form["r"]["pvalue"] == digests.MARK and form["r"]["model_a"] == "ols"  # noise only: the field is kept
