"""Hydra plugins that turn "unknown option of a config group" into replearn's error form.

``dvc exp run -S 'models=[svm]'`` composes ``conf/`` inside DVC's own process, so replearn's code never
sees Hydra's bare "Could not load 'models/svm'". Hydra discovers plugins in the ``hydra_plugins``
namespace; here a search-path plugin appends, after ``conf/``, a config source that answers only for
options missing from a group of a replearn project (a ``conf/`` folder next to a ``dvc.yaml``, with a
``models`` group) and fails with the message ``replearn.pipeline.config`` gives for the same mistake:
``models: unknown option 'svm'; valid choices: ...``. Every option that exists is found in ``conf/``
first, so valid compositions never reach it, and other Hydra applications are left alone.

``dvc exp run -S unknown_key=1`` (a key the configuration does not have, without Hydra's ``+``) fails in
Hydra's override step with "Could not override 'unknown_key'"; while a replearn project is being composed
that error is worded the same way (``unknown_key: unknown key; valid keys here: ...``), by a wrapper of
that step (:func:`_word_unknown_keys`), installed when Hydra imports this plugin.
"""

from __future__ import annotations

import builtins
import os

from hydra.core.object_type import ObjectType
from hydra.plugins.config_source import ConfigLoadError, ConfigResult, ConfigSource
from hydra.plugins.search_path_plugin import SearchPathPlugin

SCHEME = "replearn-errors"
#: the conf/ folder of the replearn project being composed (set by the search-path plugin), else None
_composing: dict[str, str | None] = {"conf": None}


def _is_replearn_conf(path: str) -> bool:
    return (
        os.path.isdir(os.path.join(path, "models"))
        and os.path.isfile(os.path.join(path, "config.yaml"))
        and os.path.isfile(os.path.join(os.path.dirname(os.path.abspath(path)), "dvc.yaml"))
    )


class ReplearnErrorsSearchPath(SearchPathPlugin):
    def manipulate_search_path(self, search_path) -> None:
        _composing["conf"] = None
        for element in search_path.get_path():
            if element.provider == "main" and "://" not in element.path.replace("file://", "", 1):
                conf = element.path.replace("file://", "", 1)
                if _is_replearn_conf(conf):
                    search_path.append("replearn", f"{SCHEME}://{conf}")
                    _composing["conf"] = conf
                return


class ReplearnErrorsConfigSource(ConfigSource):
    """Claims the missing options of the project's config groups, and refuses to load them, naming the valid ones."""

    @staticmethod
    def scheme() -> str:
        return SCHEME

    def _split(self, config_path: str):
        path = self._normalize_file_name(config_path)
        group, _, name = path.rpartition("/")
        return group, name[: -len(".yaml")] if name.endswith(".yaml") else name

    def _options(self, group: str) -> list[str]:
        folder = os.path.join(self.path, group)
        if not group or group.startswith("hydra") or not os.path.isdir(folder):
            return []
        return sorted(f[:-5] for f in os.listdir(folder) if f.endswith(".yaml"))

    def is_config(self, config_path: str) -> bool:
        group, name = self._split(config_path)
        options = self._options(group)
        return bool(options) and name not in options

    def load_config(self, config_path: str) -> ConfigResult:
        group, name = self._split(config_path)
        raise ConfigLoadError(
            f"{group.replace('/', '.')}: unknown option {name!r}; valid choices: {', '.join(self._options(group))} "
            f"(the files of conf/{group}/)"
        )

    def available(self) -> bool:
        return os.path.isdir(self.path)

    def is_group(self, config_path: str) -> bool:
        return False

    def list(self, config_path: str, results_filter: ObjectType | None) -> builtins.list[str]:
        return []


def unknown_key_message(error: str, cfg, override: str | None = None) -> str | None:
    """Hydra's "Could not override 'a.b'" in replearn's form, naming the keys of ``a`` in the composed ``cfg``
    (None for any other error)."""
    import re

    from omegaconf import DictConfig, OmegaConf

    m = re.match(r"Could not override '([^']+)'", error)
    if m is None:
        return None
    key = m.group(1)
    parent, _, _ = key.rpartition(".")
    node = OmegaConf.select(cfg, parent, throw_on_missing=False) if parent else cfg
    keys = sorted(k for k in node.keys() if not (k == "hydra" and not parent)) if isinstance(node, DictConfig) else []
    line = override or f"{key}=..."
    return (
        f"{key}: unknown key; valid keys here: {', '.join(map(str, keys)) or '(none)'} (to add a key that conf/ "
        f"does not set, use -S '+{line}'; replearn then checks it against its schema)"
    )


def _word_unknown_keys() -> None:
    """Wrap Hydra's override step so that, in a replearn project, an unknown key gets :func:`unknown_key_message`.

    Hydra offers no plugin for its override errors, so its (private, stable within hydra-core 1.3) step is
    wrapped; should it move, nothing is wrapped and Hydra's own message stays.
    """
    try:
        from hydra._internal.config_loader_impl import ConfigLoaderImpl
        from hydra.errors import ConfigCompositionException
    except ImportError:  # pragma: no cover - another Hydra layout
        return
    original = ConfigLoaderImpl.__dict__.get("_apply_overrides_to_config")
    if not isinstance(original, staticmethod) or getattr(original.__func__, "_replearn", False):
        return
    apply = original.__func__

    def apply_overrides(overrides, cfg) -> None:
        try:
            apply(overrides, cfg)
        except ConfigCompositionException as exc:
            if _composing["conf"] is None:
                raise
            text = str(exc)
            line = next((o.input_line for o in overrides if f"'{o.key_or_group}'" in text), None)
            message = unknown_key_message(text, cfg, line)
            if message is None:
                raise
            raise ConfigCompositionException(message) from None

    apply_overrides._replearn = True  # type: ignore[attr-defined]
    ConfigLoaderImpl._apply_overrides_to_config = staticmethod(apply_overrides)  # type: ignore[method-assign]


_word_unknown_keys()
