"""The featurize stage's work: fit the configured feature maps on each table's training part and map both parts
(a family's problem, which has no table, is passed through). A module of its own, apart from
:mod:`replearn.pipeline.experiment`, so that the featurize stage depends on the feature maps and not on the models
and units the later stages fit."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..atomic import atomic_write
from ..features import FeaturePipeline
from . import kinds, paths
from .data import load_part, write_json


def featurize(params: dict, name: str, root: Path = Path(".")) -> dict:
    """Fit the feature maps on the training part; map both parts; save the fitted maps.

    A dataset of an experiment family has no table to map: it is passed through (a note in
    ``data/features/<name>/`` says so) and ``{"family": <name>}`` is returned.
    """
    return _FEATURIZE[kinds.of_spec(params["dataset"].get(name) or {}).runner](params, name, root)


def featurized_line(name: str, info: dict, steps: list[str]) -> str:
    """The featurize stage's line for dataset ``name`` (``info``: what :func:`featurize` returned)."""
    if "n_features_in" not in info:  # passed through: a problem with no table
        return f"{name}: a {info['family']} problem, passed through (feature maps apply to tables)"
    return f"{name}: {' -> '.join(steps)}: {info['n_features_in']} -> {info['n_features_out']} features"


def _featurize_passthrough(params: dict, name: str, root: Path = Path(".")) -> dict:
    spec = params["dataset"][name]
    out = paths.inside(root, paths.FEATURES / name, what="feature folder")
    write_json(out / "passthrough.json", {"family": spec["source"], "feature_maps": "not applied"})
    return {"family": spec["source"]}


def _featurize_table(params: dict, name: str, root: Path = Path(".")) -> dict:
    X, y = load_part(root / paths.PREPARED / name / "train.npz")
    Xt, yt = load_part(root / paths.SEALED / name / "test.npz")
    fmap = FeaturePipeline(params["features"]["steps"], max_columns=params["features"].get("max_columns")).fit(X, y)
    out = paths.inside(root, paths.FEATURES / name, what="feature folder")
    out.mkdir(parents=True, exist_ok=True)
    for part, A, b in (("train", fmap.transform(X), y), ("test", fmap.transform(Xt), yt)):
        with atomic_write(out / f"{part}.npz", "wb", durable=False) as fh:  # whole or not at all
            np.savez(fh, X=A, y=b)
    fmap.save(out / "featurizer")
    return {"n_features_in": int(X.shape[1]), "n_features_out": int(fmap.n_features_out_)}


#: by :attr:`~replearn.pipeline.kinds.ProblemKind.runner`
_FEATURIZE = {"estimators": _featurize_table, "units": _featurize_passthrough}
