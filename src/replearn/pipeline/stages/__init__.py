"""The pipeline's stages, one module each with ``main(params)``: the single copy of each stage's work.

``python -m replearn stage <name>`` runs one inside :func:`replearn.pipeline.stage.run` (validate
``params.yaml`` first, one-line errors); that is the command of every stage of a study made by
``replearn init``. The scripts ``stages/<name>.py`` of the replearn repository are thin callers of the
same ``main``, and its ``dvc.yaml`` lists each stage's code from its script's imports (``replearn deps``).
This package imports nothing itself: a stage loads only its own module.
"""

from __future__ import annotations

from collections.abc import Callable

#: the stages in pipeline order (dvc.yaml)
STAGES = ("validate", "prepare", "featurize", "train", "crossval", "significance", "reproduce", "report")


def load(name: str) -> Callable[[dict], None]:
    """The ``main`` of stage ``name``; an unknown name raises ``ConfigError`` naming the stages."""
    import importlib

    from ...exceptions import ConfigError

    if name not in STAGES:
        raise ConfigError(f"unknown stage {name!r}; the stages: {', '.join(STAGES)}")
    return importlib.import_module(f"{__name__}.{name}").main
