"""The model registry: every model is created by its registry name.

``create(name, **hyperparameters)`` and ``available()`` are the only way the pipeline makes a
model; configs name models, never import paths, so a config file cannot import arbitrary code.
The registry is explicit: each model family (a sub-package) lists its models in a ``REGISTRY``
table of ``name -> (module, class)``, and the families are listed by name below. Modules are
imported on first use.

Plugins: an installed distribution may add models through the entry-point group ``replearn.models``
(``name = "module:Class"`` in its ``[project.entry-points."replearn.models"]`` table). Only names that an
installed distribution registered are accepted -- a config still never names an import path. Discovery reads
the entry points once (cached; :func:`reset_plugins` forgets it); a plugin's module is imported on first use of
its name, and its class is checked against the estimator protocol then (:func:`check_protocol`). A plugin
name that collides with a built-in (or with another plugin) is refused, and a plugin whose import or protocol
check fails raises one ``ConfigError`` naming the entry point; neither ever hides or breaks the built-ins.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import warnings
from dataclasses import dataclass

from ..base import BASE_LEARNER_REGISTRY, _init_parameters
from ..exceptions import ConfigError, NotFittedError, PluginModelError, ReplearnError
from ..plugin_lock import ENTRY_POINT_GROUP  # noqa: F401  (re-exported: the group, declared once)

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


_ESTIMATOR_TYPES = ("classifier", "regressor", "transformer", "clusterer", "ranker", "recommender")


@dataclass(frozen=True)
class Plugin:
    """One model registered by an installed distribution through the ``replearn.models`` entry points."""

    name: str
    value: str  # "module:Class"
    dist: str  # distribution name ("?" where the metadata does not say)
    version: str

    def describe(self) -> str:
        """``entry point 'name = module:Class' of replearn-sklearn 0.1.0``."""
        return f"entry point {self.name!r} = {self.value!r} (group {ENTRY_POINT_GROUP}) of {self.dist} {self.version}"


# name -> Plugin, and the refused entry points' messages; filled once by _discover()
_PLUGINS: dict[str, Plugin] | None = None
_REFUSED: list[str] = []
_PLUGIN_CLASSES: dict[str, type] = {}


def _discover() -> dict[str, Plugin]:
    """The registered plugins (cached): entry points of the group, minus refused ones (name collisions)."""
    global _PLUGINS
    if _PLUGINS is not None:
        return _PLUGINS
    found: dict[str, Plugin] = {}
    refused: list[str] = []
    try:
        import importlib.metadata  # here: ~15 ms (email, zipfile, csv) that a stage naming built-ins never needs

        eps = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception as exc:  # broken metadata of some installed distribution: built-ins still work
        eps = []
        refused.append(f"cannot read the {ENTRY_POINT_GROUP} entry points: {type(exc).__name__}: {exc}")
    for ep in sorted(eps, key=lambda e: (e.name, e.value)):
        dist = getattr(ep, "dist", None)
        plugin = Plugin(
            ep.name,
            ep.value,
            getattr(dist, "name", None) or "?",
            getattr(dist, "version", None) or "?",
        )
        if ep.name in _REGISTRY:
            module, cls = _REGISTRY[ep.name]
            refused.append(
                f"plugin model {ep.name!r} refused: {plugin.describe()} collides with the built-in model "
                f"{ep.name!r} (replearn.models.{module}:{cls}); rename the plugin's entry point"
            )
        elif ep.name in found:
            refused.append(
                f"plugin model {ep.name!r} refused: {plugin.describe()} collides with {found[ep.name].describe()}; "
                "the first one is kept"
            )
        else:
            found[ep.name] = plugin
    _PLUGINS = found
    _REFUSED[:] = refused
    for message in refused:
        warnings.warn(message, RuntimeWarning, stacklevel=3)
    return found


def reset_plugins() -> None:
    """Forget the cached plugin discovery (for tests, or after installing a plugin in a running process)."""
    global _PLUGINS
    _PLUGINS = None
    _REFUSED.clear()
    _PLUGIN_CLASSES.clear()


def plugins() -> dict[str, Plugin]:
    """The plugin models registered by installed distributions: name -> :class:`Plugin`."""
    return dict(_discover())


def refused_plugins() -> list[str]:
    """One message per refused plugin entry point (a name collision), as warned at discovery."""
    _discover()
    return list(_REFUSED)


def builtin_names() -> list[str]:
    """The built-in registry names, sorted (the models of this package, without plugins)."""
    return sorted(_REGISTRY)


def source(name: str) -> str:
    """Where model ``name`` comes from: ``"built-in"`` or ``"plugin <distribution> <version>"``."""
    if name in _REGISTRY:
        return "built-in"
    plugin = _discover().get(name)
    if plugin is None:
        raise ConfigError(f"unknown model {name!r}; available models: {', '.join(available())}")
    return f"plugin {plugin.dist} {plugin.version}"


def available(task: str | None = None) -> list[str]:
    """Registry names (built-ins and plugins), sorted; ``task`` ("classification" or "regression") filters by
    what a model can do (a plugin that cannot be loaded is then left out; :func:`get_class` says why)."""
    names = sorted({*_REGISTRY, *_discover()})
    if task is None:
        return names
    out = []
    for n in names:
        try:
            if supports(n, task):
                out.append(n)
        except ConfigError:
            if n in _REGISTRY:
                raise
    return out


def check_protocol(cls, what: str = "") -> list[str]:
    """Why class ``cls`` does not follow replearn's estimator protocol (``replearn.base``); empty if it does.

    A model class: ``__init__`` takes keyword hyperparameters with defaults (no ``*args``/``**kwargs``), stores
    them unchanged (``get_params()`` returns exactly them, ``set_params(**p)`` returns the model); ``fit``, and
    ``predict`` (or ``transform`` for a transformer/clusterer); ``_estimator_type`` one of classifier, regressor,
    transformer, clusterer, ranker, recommender; a class that declares ``_stochastic = True`` takes a ``random_state``.
    """
    name = what or getattr(cls, "__name__", repr(cls))
    if not inspect.isclass(cls):
        return [f"{name} is not a class"]
    problems = []
    kind = getattr(cls, "_estimator_type", None)
    if isinstance(kind, property):  # depends on a hyperparameter (task=...): read it on a default instance
        try:
            kind = cls()._estimator_type
        except Exception:
            kind = None
    if kind not in _ESTIMATOR_TYPES:
        problems.append(f"_estimator_type is {kind!r}; expected one of {', '.join(_ESTIMATOR_TYPES)}")
    for method in ("fit", "get_params", "set_params"):
        if not callable(getattr(cls, method, None)):
            problems.append(f"no method {method}()")
    if not callable(getattr(cls, "predict", None)) and not (
        kind in ("transformer", "clusterer") and callable(getattr(cls, "transform", None))
    ):
        problems.append("no method predict()" + (" or transform()" if kind in ("transformer", "clusterer") else ""))
    try:
        params = [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]
    except (TypeError, ValueError) as exc:
        return [*problems, f"cannot read the __init__ signature ({exc})"]
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            problems.append(f"__init__ takes *{p.name}/**{p.name}; hyperparameters must be named keyword arguments")
        elif p.default is p.empty:
            problems.append(f"__init__ argument {p.name!r} has no default")
    names = {p.name for p in params}
    if getattr(cls, "_stochastic", False) and "random_state" not in names:
        problems.append("declares _stochastic = True but takes no random_state")
    if problems:
        return problems
    try:
        model = cls()
        got = model.get_params(deep=False)
        if set(got) != names:
            problems.append(
                f"get_params() returns {sorted(got)}, not the __init__ arguments {sorted(names)} "
                "(hyperparameters must be stored unchanged under their own names)"
            )
        elif model.set_params(**got) is not model:
            problems.append("set_params() does not return the model")
    except Exception as exc:
        problems.append(f"cls()/get_params()/set_params() failed: {type(exc).__name__}: {exc}")
    return problems


def _load_plugin(plugin: Plugin) -> type:
    if plugin.name in _PLUGIN_CLASSES:
        return _PLUGIN_CLASSES[plugin.name]
    module_name, _, attr = plugin.value.partition(":")
    try:
        obj = importlib.import_module(module_name.strip())
        for part in attr.strip().split(".") if attr.strip() else []:
            obj = getattr(obj, part)
    except Exception as exc:
        raise ConfigError(
            f"plugin model {plugin.name!r} cannot be loaded: {plugin.describe()} failed to import: "
            f"{type(exc).__name__}: {exc}"
        ) from None
    problems = check_protocol(obj, plugin.value)
    if problems:
        raise ConfigError(
            f"plugin model {plugin.name!r} ({plugin.describe()}) does not follow replearn's estimator protocol: "
            + "; ".join(problems)
        )
    _PLUGIN_CLASSES[plugin.name] = _guarded(plugin, obj)
    return _PLUGIN_CLASSES[plugin.name]


#: the protocol's methods whose exceptions the registry names (:func:`_guarded`)
_GUARDED_METHODS = (
    "fit",
    "partial_fit",
    "predict",
    "predict_proba",
    "predict_log_proba",
    "decision_function",
    "transform",
    "fit_transform",
    "fit_predict",
    "inverse_transform",
    "score",
    "score_samples",
    "sample",
    "set_params",
)


def _plugin_error(plugin: Plugin, method: str, exc: BaseException) -> PluginModelError:
    """One line: which plugin model failed, where, and why (the plugin's first line; the whole exception is the
    cause), as an instance of PluginModelError and, where the two combine, of the original exception's class."""
    why = (str(exc).strip().splitlines() or [""])[0].strip()
    if len(why) > 300:
        why = why[:297] + "..."
    message = (
        f"plugin model {plugin.name!r} ({plugin.dist} {plugin.version}, {plugin.value}) failed in {method}: "
        f"{type(exc).__name__}" + (f": {why}" if why else "")
    )
    try:
        kind = type(f"PluginModelError[{type(exc).__name__}]", (PluginModelError, type(exc)), {})
        return kind(message)
    except TypeError:  # the classes do not combine (layout, a custom __init__): the registry's own class
        return PluginModelError(message)


def _guard(plugin: Plugin, method: str, function):
    @functools.wraps(function)
    def guarded(self, *args, **kwargs):
        try:
            return function(self, *args, **kwargs)
        except PluginModelError:  # a nested guarded call named it already
            raise
        except NotFittedError as exc:  # replearn's check, but only the plugin knows what it needs fitted first
            raise _plugin_error(plugin, method, exc) from exc
        except ReplearnError:  # replearn's own checks (inside the plugin) say it already
            raise
        except Exception as exc:
            raise _plugin_error(plugin, method, exc) from exc

    return guarded


def _guarded(plugin: Plugin, cls: type) -> type:
    """``cls`` with each protocol method guarded: an exception the plugin's library raises (scikit-learn's on a
    one-class target, say) surfaces as one :class:`PluginModelError` line naming the plugin model and why, not as
    the library's raw exception. A subclass of the same name, module and constructor, so hyperparameters, model
    files and ``isinstance`` see the plugin's class."""
    namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__}
    for method in _GUARDED_METHODS:
        function = getattr(cls, method, None)
        if callable(function):
            namespace[method] = _guard(plugin, method, function)
    return type(cls.__name__, (cls,), namespace)


def get_class(name: str) -> type:
    """The class registered under ``name``; unknown names raise ``ConfigError`` listing the choices."""
    if name in _REGISTRY:
        module, cls = _REGISTRY[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), cls)
    plugin = _discover().get(name) if isinstance(name, str) else None
    if plugin is None:
        raise ConfigError(f"unknown model {name!r}; available models: {', '.join(available())}")
    return _load_plugin(plugin)


def supports(name: str, task: str) -> bool:
    """Whether model ``name`` handles ``task`` ("classification" or "regression")."""
    kind = get_class(name)._estimator_type
    tasks = getattr(get_class(name), "_tasks", None)
    if tasks is not None:
        return task in tasks
    return {"classifier": "classification", "regressor": "regression"}.get(kind) == task


def hyperparameters(name: str) -> dict:
    """Hyperparameter names of model ``name`` with their defaults."""
    return dict(_init_parameters(get_class(name).__init__)[1])  # the signature read once per constructor


def create(name: str, **params):
    """Create model ``name`` with the given hyperparameters (unknown ones raise ``ConfigError``)."""
    cls = get_class(name)
    valid = hyperparameters(name)
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ConfigError(f"model {name!r} has no hyperparameter(s) {unknown}; valid hyperparameters: {sorted(valid)}")
    return cls(**params)


# how replearn.base looks up a base learner named by ``estimator`` (base never imports the registry itself)
BASE_LEARNER_REGISTRY.update(hyperparameters=hyperparameters, builtin_names=builtin_names, get_class=get_class)

__all__ = [
    "ENTRY_POINT_GROUP",
    "Plugin",
    "available",
    "builtin_names",
    "check_protocol",
    "create",
    "get_class",
    "hyperparameters",
    "plugins",
    "refused_plugins",
    "reset_plugins",
    "source",
    "supports",
]
