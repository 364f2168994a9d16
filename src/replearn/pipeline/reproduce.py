"""The work of the reproduce stage: rerun a course text's worked example and record published vs measured.

The experiments live in :mod:`replearn.reproductions` (numpy/scipy, replearn's own models); this service
picks the one the configuration names (``reproduce``), runs it on the vendored reference data
(``data/reference/``) with a seed derived from the experiment's seed, and returns plain data:
``{"preset", "records": [{"preset", "source", "quantity", "published", "measured", "tolerance",
"reproduced"}], "curves", "tables", "notes"}``. Every ``measured`` value is computed in this run.
"""

from __future__ import annotations

from pathlib import Path

from .paths import REFERENCE
from .seeding import derive_seed


def experiments() -> list[str]:
    """The names ``reproduce`` accepts (the registry of :mod:`replearn.reproductions`)."""
    from ..reproductions import EXPERIMENTS

    return sorted(EXPERIMENTS)


def reproduce(params: dict, root: Path = Path(".")) -> dict:
    name = params.get("reproduce")
    if not name:
        return {"preset": None, "records": [], "curves": {}, "tables": {}, "notes": ""}
    from ..reproductions import EXPERIMENTS

    seed = derive_seed(params["seed"], "reproduce", name) % (2**31)
    result = EXPERIMENTS[name](Path(root) / REFERENCE, seed=seed).to_dict()
    result["seed"] = seed
    return result
