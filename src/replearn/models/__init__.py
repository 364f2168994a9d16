"""The model registry: every model is created by its registry name.

``create(name, **hyperparameters)`` and ``available()`` are the only way the pipeline makes a
model; configs name models, never import paths, so a config file cannot import arbitrary code.
The registry is explicit: each model family (a sub-package) lists its models in a ``REGISTRY``
table of ``name -> (module, class)``, and the families are listed by name below. Modules are
imported on first use.
"""

from __future__ import annotations

import importlib
import inspect

from ..exceptions import ConfigError

FAMILIES = (
    "linear",
    "naive_bayes",
    "generative",
    "perceptron",
    "reductions",  # supervised learning I
    "neighbors",
    "kernel",
    "svm",
    "trees",
    "ensemble",  # supervised learning II
    "cluster",
    "mixture",
    "decomposition",
    "factorization",  # unsupervised learning
    "neural",  # neural networks
)


def _collect() -> dict[str, tuple[str, str]]:
    table: dict[str, tuple[str, str]] = {}
    for family in FAMILIES:
        for name, (module, cls) in importlib.import_module(f"{__name__}.{family}").REGISTRY.items():
            if name in table:
                raise RuntimeError(f"model name {name!r} is registered twice")
            table[name] = (f"{family}.{module}", cls)
    return table


# registry name -> (module under replearn.models, class name)
_REGISTRY: dict[str, tuple[str, str]] = _collect()


def available(task: str | None = None) -> list[str]:
    """Registry names, sorted; ``task`` ("classification" or "regression") filters by what a model can do."""
    names = sorted(_REGISTRY)
    if task is None:
        return names
    return [n for n in names if supports(n, task)]


def get_class(name: str) -> type:
    """The class registered under ``name``; unknown names raise ``ConfigError`` listing the choices."""
    if name not in _REGISTRY:
        raise ConfigError(f"unknown model {name!r}; available models: {', '.join(available())}")
    module, cls = _REGISTRY[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)


def supports(name: str, task: str) -> bool:
    """Whether model ``name`` handles ``task`` ("classification" or "regression")."""
    kind = get_class(name)._estimator_type
    tasks = getattr(get_class(name), "_tasks", None)
    if tasks is not None:
        return task in tasks
    return {"classifier": "classification", "regressor": "regression"}.get(kind) == task


def hyperparameters(name: str) -> dict:
    """Hyperparameter names of model ``name`` with their defaults."""
    cls = get_class(name)
    sig = inspect.signature(cls.__init__)
    return {p.name: p.default for p in sig.parameters.values() if p.name != "self"}


def create(name: str, **params):
    """Create model ``name`` with the given hyperparameters (unknown ones raise ``ConfigError``)."""
    cls = get_class(name)
    valid = hyperparameters(name)
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ConfigError(f"model {name!r} has no hyperparameter(s) {unknown}; valid hyperparameters: {sorted(valid)}")
    return cls(**params)


__all__ = ["available", "create", "get_class", "hyperparameters", "supports"]
