"""Settings of the experiment designs read from the configuration alone, shared by the validation and the stages.

A small module on purpose: :mod:`.config` (imported by every stage) and :mod:`.experiment` both read these rules,
and a rule kept in one place cannot drift; importing :mod:`.experiment` from the config would make every stage
depend on the whole experiment code.
"""

from __future__ import annotations

HALF_SAMPLING_DEFAULTS = {"subsamples": 20, "repeats": 6, "folds": None, "fraction": 1 / 3}
#: ``cv.half_sampling.folds: null``: the inner folds by the kind of the main replicates, as calibrated by
#: ``make calibration`` (docs/statistics.md): 5 inside the subsets for k-fold splits, 3 for seeds on resampled
#: hold-outs (a larger held-out part, whose data-sampling variance 5 inner folds overstate by a fifth for 1-NN).
AUTO_INNER_FOLDS = {"split": 5, "seed": 3}


def inner_replicates(design: dict) -> str:
    """The replicates of a design: its name ("cv", "seeds"), or for a sweep those at every point."""
    return (design.get("replicates") or "cv") if design.get("name") == "sweep" else design.get("name") or "cv"


def half_sampling_settings(params: dict) -> dict:
    """``cv.half_sampling`` with defaults; ``subsamples: 0`` switches the population variance off."""
    return {**HALF_SAMPLING_DEFAULTS, **(params["cv"].get("half_sampling") or {})}


def half_sampling_folds(hs: dict, kind: str) -> int:
    """The inner folds of half-sampling for main replicates of ``kind`` ("split" or "seed")."""
    return int(hs["folds"]) if hs.get("folds") else AUTO_INNER_FOLDS[kind]


def half_sampling_applies(params: dict, inner: str) -> bool:
    """Whether the design answers the population question with half-samples: cv replicates (design=cv, or a
    sweep over cv replicates) and seeds with ``resample_split: true``; never seeds on one fixed held-out part
    (a conditional question) nor an experiment family (problems, not data sets, are its population)."""
    if half_sampling_settings(params)["subsamples"] == 0:
        return False
    design = params.get("design") or {"name": "cv"}
    return inner == "cv" or bool(inner == "seeds" and design.get("resample_split"))
