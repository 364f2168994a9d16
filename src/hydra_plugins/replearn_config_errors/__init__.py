"""Hydra plugins that turn "unknown option of a config group" into replearn's error form.

``dvc exp run -S 'models=[svm]'`` composes ``conf/`` inside DVC's own process, so replearn's code never
sees Hydra's bare "Could not load 'models/svm'". Hydra discovers plugins in the ``hydra_plugins``
namespace; here a search-path plugin appends, after ``conf/``, a config source that answers only for
options missing from a group of a replearn project (a ``conf/`` folder next to a ``dvc.yaml``, with a
``models`` group) and fails with the message ``replearn.pipeline.config`` gives for the same mistake:
``models: unknown option 'svm'; valid choices: ...``. Every option that exists is found in ``conf/``
first, so valid compositions never reach it, and other Hydra applications are left alone.
"""

from __future__ import annotations

import builtins
import os

from hydra.core.object_type import ObjectType
from hydra.plugins.config_source import ConfigLoadError, ConfigResult, ConfigSource
from hydra.plugins.search_path_plugin import SearchPathPlugin

SCHEME = "replearn-errors"


def _is_replearn_conf(path: str) -> bool:
    return (
        os.path.isdir(os.path.join(path, "models"))
        and os.path.isfile(os.path.join(path, "config.yaml"))
        and os.path.isfile(os.path.join(os.path.dirname(os.path.abspath(path)), "dvc.yaml"))
    )


class ReplearnErrorsSearchPath(SearchPathPlugin):
    def manipulate_search_path(self, search_path) -> None:
        for element in search_path.get_path():
            if element.provider == "main" and "://" not in element.path.replace("file://", "", 1):
                conf = element.path.replace("file://", "", 1)
                if _is_replearn_conf(conf):
                    search_path.append("replearn", f"{SCHEME}://{conf}")
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
