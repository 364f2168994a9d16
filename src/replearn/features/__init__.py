"""Feature maps, fitted on training data only, with their state stored in the safe npz + JSON format.

``create(name, **params)`` and ``available()`` mirror the model registry; :class:`FeaturePipeline`
chains maps in order.
"""

from __future__ import annotations

import importlib

from ..exceptions import ConfigError

_REGISTRY: dict[str, tuple[str, str]] = {
    "standardize": ("scaling", "Standardize"),
    "polynomial": ("polynomial", "PolynomialFeatures"),
    # CIML §5.3-5.4 normalization and transforms
    "center": ("normalization", "Center"),
    "scale": ("normalization", "VarianceScale"),
    "maxabs": ("normalization", "MaxAbsScale"),
    "normalize": ("normalization", "Normalize"),
    "log": ("normalization", "LogTransform"),
    # discretization and categorical / text features
    "binning": ("discretize", "Binning"),
    "one_hot": ("categorical", "OneHot"),
    "bag_of_words": ("text", "BagOfWords"),
    "df_prune": ("text", "DocumentFrequencyPrune"),
    "hashing": ("hashing", "FeatureHasher"),
    "tree_leaves": ("tree_leaves", "TreeLeaves"),  # CIML §5.4 decision-tree meta-features
}


def available() -> list[str]:
    return sorted(_REGISTRY)


def get_class(name: str) -> type:
    if name not in _REGISTRY:
        raise ConfigError(f"unknown feature map {name!r}; available feature maps: {', '.join(available())}")
    module, cls = _REGISTRY[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)


def hyperparameters(name: str) -> dict:
    from ..base import _init_parameters  # the signature read once per constructor

    return dict(_init_parameters(get_class(name).__init__)[1])


def create(name: str, **params):
    valid = hyperparameters(name)
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ConfigError(f"feature map {name!r} has no parameter(s) {unknown}; valid: {sorted(valid)}")
    return get_class(name)(**params)


from .pipeline import FeaturePipeline  # noqa: E402

__all__ = ["FeaturePipeline", "available", "create", "get_class", "hyperparameters"]
