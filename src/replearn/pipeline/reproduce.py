"""The work of the reproduce stage: rerun the course texts' worked examples and record published vs measured.

The experiments live in :mod:`replearn.reproductions` (numpy/scipy, replearn's own models); this service
runs the one the configuration names (``reproduce: <name>``), or every one of them (``reproduce: all``,
the default experiment: every worked example of the five texts), on the vendored reference data
(``data/reference/``), each with a seed derived from the experiment's seed and its own name (so a preset
gives the same numbers alone and within ``all``). It returns plain data::

    {"preset", "records": [{"id", "example", "text", "section", "preset", "source", "quantity",
     "published", "measured", "tolerance", "reproduced"}], "curves", "tables", "notes", "seed"}

For ``all`` the result is ``{"preset": "all", "presets": [...], "records": [every record], "curves": {},
"tables": {}, "notes", "seed": {preset: seed}, "runs": {preset: that preset's full result}}``: the report
shows the records (its figures would be one per curve of every preset; the reproduction page,
``replearn reproductions``, draws them beside the texts instead). Every ``measured`` value is computed in
this run.
"""

from __future__ import annotations

from pathlib import Path

from .paths import REFERENCE
from .seeding import derive_seed

ALL = "all"


def experiments() -> list[str]:
    """The names ``reproduce`` accepts: the registry of :mod:`replearn.reproductions`, and ``"all"``."""
    from ..reproductions import PRESETS  # the names only: no preset module is imported

    return sorted(PRESETS) + [ALL]


def preset_seed(seed: int, name: str) -> int:
    """The seed preset ``name`` runs with under the experiment seed ``seed``."""
    return derive_seed(seed, "reproduce", name) % (2**31)


def run_one(name: str, seed: int, root: Path = Path(".")) -> dict:
    """Preset ``name`` as plain data, with the seed it ran with."""
    from ..reproductions import preset

    s = preset_seed(seed, name)
    result = preset(name)(Path(root) / REFERENCE, seed=s).to_dict()
    result["seed"] = s
    return result


#: presets that take most of ``all``'s time (double descent: ~60 %), handed out first so that the others fill the
#: remaining processes meanwhile (an order only: results never depend on it)
LONGEST_FIRST = ("double_descent", "cs229_figures")
JOBS_ENV = "REPLEARN_REPRODUCE_JOBS"  # processes for ``reproduce: all``: a number, or unset for one per core


def reproduce_jobs(n_presets: int) -> int:
    """Processes that run the presets of ``all``: ``$REPLEARN_REPRODUCE_JOBS`` when set (1: in this process),
    else one per core, at most one per preset. Each preset runs alone with its own seed, so the results are
    the same for any number (a test compares them): like the tracking workers, this is no parameter of the
    experiment."""
    from .workers import cores, processes

    return processes(JOBS_ENV, n_presets, cores())


def _run_presets(names: list[str], seed: int, root: Path) -> dict[str, dict]:
    """``{name: run_one(name, ...)}`` for ``names``, computed by this process and :func:`reproduce_jobs` ``- 1``
    worker processes together (:func:`~.workers.map_shared`; BLAS on one thread in each, as in the stage's own
    process: they share the cores), the longest presets handed out first."""
    from .workers import map_shared

    order = [names.index(n) for n in LONGEST_FIRST if n in names]
    order += [i for i, n in enumerate(names) if n not in LONGEST_FIRST]
    results = map_shared(run_one, [(name, seed, root) for name in names], reproduce_jobs(len(names)), order=order)
    return dict(zip(names, results))


def run_all(seed: int, root: Path = Path(".")) -> dict:
    """Every preset, combined (module docstring), run by :func:`reproduce_jobs` processes, this one among them
    (``PRESETS`` names the modules that ``EXPERIMENTS`` registers without importing them: a test)."""
    from ..reproductions import PRESETS

    names = sorted(PRESETS)
    runs = _run_presets(names, seed, Path(root))
    return {
        "preset": ALL,
        "presets": names,
        "records": [r for name in names for r in runs[name]["records"]],
        "curves": {},
        "tables": {},
        "notes": (
            f"Every worked example of the five course texts that replearn reproduces: {len(names)} presets. The "
            "reproduction page (`make reproductions`, reports/reproductions.html) shows each beside the text's "
            "description, with its figure."
        ),
        "seed": {name: runs[name]["seed"] for name in names},
        "runs": runs,
    }


def reproduce(params: dict, root: Path = Path(".")) -> dict:
    name = params.get("reproduce")
    if not name:
        return {"preset": None, "records": [], "curves": {}, "tables": {}, "notes": ""}
    try:
        return run_all(params["seed"], root) if name == ALL else run_one(name, params["seed"], root)
    except FileNotFoundError as exc:
        if (Path(root) / REFERENCE).is_dir():
            raise
        from ..exceptions import ConfigError  # a study made by `replearn init` has no course reference data

        raise ConfigError(
            f"reproduce: {name}: {exc}; this project has no {REFERENCE}/ folder (the course texts' reference data "
            "ship with the replearn repository only): set reproduce: null"
        ) from exc


def default_seed(root: Path = Path(".")) -> int:
    """The experiment seed of ``params.yaml`` in ``root`` (the seed the pipeline's reproduce stage uses), or the
    configuration's default when there is no params.yaml."""
    import yaml

    path = Path(root) / "params.yaml"
    if path.is_file():
        seed = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("seed")
        if isinstance(seed, int):
            return seed
    return 20240601
