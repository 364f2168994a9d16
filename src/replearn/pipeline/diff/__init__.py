"""``replearn diff [A] [B]``: a tested diff between two runs of an experiment -- the regression gate of a CI runner.

``dvc metrics diff`` prints two means and their difference; this says whether the difference is one: each
dataset x model x metric cell present on both sides is paired replicate by replicate (the same data and splits),
tested by the exact sign-flip test of the paired differences, corrected over all cells, and given a verdict that
states its question -- *on this dataset with these splits* -- with the change, its interval, the adjusted p and
the practical margin (:mod:`.engine`). Identical records are reported as identical without a test; cells that
cannot be paired (another seed, other data or splits) are refused with the reason.

* :mod:`.sources` -- the sides: git revisions, DVC experiments, the workspace or folders, read through DVC;
* :mod:`.engine` -- pairing, tests, multiplicity, verdicts;
* :mod:`.render` -- the terminal table, Markdown for a pull request, JSON.

With tracking on, the MLflow run of B (found by its run key, as the report stage logged it) is tagged with the
outcome and gets the diff as artifacts (:func:`replearn.pipeline.tracking.log_diff`).
"""

from __future__ import annotations

from pathlib import Path

from . import engine, render, sources
from .engine import CORRECTIONS, FAIL_ON, DiffResult, Settings
from .sources import DiffInputError, Side

__all__ = ["CORRECTIONS", "FAIL_ON", "DiffInputError", "DiffResult", "Settings", "Side", "run", "settings_for"]


def settings_for(params: dict | None, **overrides) -> Settings:
    """The diff's settings: alpha and the margin from ``params``' ``stats`` group (``alpha``, ``rope``,
    ``rope_scale``), the step-down maxT over the cells, then ``overrides`` (None: keep)."""
    st = (params or {}).get("stats") or {}
    base = Settings(
        alpha=float(st.get("alpha", 0.05)),
        correction="maxt",  # stats.correction is for pairs of models; a diff's cells have a joint distribution
        margin=float(st.get("rope", 0.01)),
        margin_scale="relative" if st.get("rope_scale") == "relative" else "absolute",
        seed=int((params or {}).get("seed") or 0),
    )
    for k, v in overrides.items():
        if v is not None:
            setattr(base, k, v)
    return base


def run(a: str | None, b: str | None, root: Path, *, track: bool = True, **overrides) -> DiffResult:
    """Resolve and read both sides (``a`` defaults to ``HEAD``, ``b`` to the workspace), diff them with the
    settings of B's params (then ``overrides``), and tag B's MLflow run when ``track`` and tracking is on."""
    root = Path(root)
    side_a = sources.load(sources.resolve(a, root, default="HEAD"), root)
    side_b = sources.load(sources.resolve(b, root, default=sources.WORKSPACE), root)
    _check_settings(overrides)
    result = engine.diff(side_a, side_b, settings_for(side_b.params or side_a.params, **overrides))
    if track:
        from .. import tracking

        result.mlflow = tracking.log_diff(result, root, render.to_dict(result), render.markdown(result))
    return result


def _check_settings(o: dict) -> None:
    alpha = o.get("alpha")
    if alpha is not None and not 0 < alpha < 1:
        raise DiffInputError(f"--alpha must lie in (0, 1), got {alpha}")
    margin = o.get("margin")
    if margin is not None and margin < 0:
        raise DiffInputError(f"--margin must be >= 0, got {margin}")
    if o.get("correction") is not None and o["correction"] not in CORRECTIONS:
        raise DiffInputError(f"--correction must be one of {', '.join(CORRECTIONS)}, got {o['correction']!r}")
