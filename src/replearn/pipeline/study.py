"""``replearn init DIR``: a new study -- the replearn pipeline in a folder of its own, run by the installed package.

A study holds what it owns and nothing of replearn's code::

    dvc.yaml           the stages of this repository's dvc.yaml, each running `python -m replearn stage <name>`
    conf/              the config groups (datasets, models, cv, design, features, stats, report, tracking, compute)
                       and the preset experiment=smoke; config.yaml starts with the datasets and models chosen
    params.yaml        conf/ composed (`dvc exp run -S ...` recomposes it, as in this repository)
    data/              registry.yaml and the shipped UCI CSVs (sha256-checked by prepare); the user's own CSVs
    requirements.txt   replearn==<the installed version>: every stage depends on it, so changing the pin (after
                       upgrading replearn) reruns the study, and a stage refuses to run under another version
    plugins.json       the installed version of each plugin model params.yaml names (replearn.plugin_lock): a dep
                       of the stages that load models, so upgrading a plugin reruns them
    README.md, .gitignore, .dvcignore, vendor/vega/templates/ (the `dvc plots` template)

Everything but the README, requirements.txt, plugins.json and .gitignore comes from one place, this repository's files
(:data:`TEMPLATE_SOURCES`): an installed wheel carries them as package data (``replearn/templates/``, copied
there by setup.py when the wheel is built), an editable install reads them from the checkout. dvc.yaml and
conf/config.yaml are rewritten for the study (:func:`study_dvc_yaml`, :func:`study_config`); every other file
is copied as it is, and a test checks that.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from ..atomic import write_bytes, write_text
from ..exceptions import ConfigError, ReplearnError
from .paths import inside

#: the files of this repository a study is made from (setup.py ships the same list in the wheel; a test checks)
TEMPLATE_SOURCES = (
    "dvc.yaml",
    ".dvcignore",
    "conf",
    "data/registry.yaml",
    "data/uci",
    "vendor/vega/templates/scores_by_model.json",
)
#: config groups copied whole; conf/dataset keeps the datasets a study can read (:func:`dataset_options`)
WHOLE_GROUPS = ("compute", "cv", "design", "features", "models", "report", "stats", "tracking")
PRESETS = ("smoke",)  # conf/experiment/: a run of seconds, `dvc exp run -S +experiment=smoke`
DEFAULT_DATASETS = ("iris", "wine")
DEFAULT_MODELS = ("logistic_regression", "knn", "gaussian_naive_bayes")
REQUIREMENTS = "requirements.txt"
_PIN = re.compile(r"^\s*replearn\s*==\s*([^\s;#]+)", re.M)


def installed_version() -> str:
    """The version of the installed replearn distribution (its metadata, else the package's ``__version__``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("replearn")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree without installing
        from .. import __version__

        return __version__


def template_root() -> Path:
    """Where the study's source files are: the wheel's ``replearn/templates/``, else this checkout."""
    here = Path(__file__).resolve()
    packaged = here.parents[1] / "templates"
    if (packaged / "dvc.yaml").is_file():
        return packaged
    checkout = here.parents[3]  # src/replearn/pipeline/study.py -> the repository
    if (checkout / "pyproject.toml").is_file() and (checkout / "conf" / "config.yaml").is_file():
        return checkout
    raise ReplearnError(
        f"this replearn installation has no study templates ({packaged} is missing); reinstall it from a wheel "
        "built with `python -m build`"
    )


def _yaml(path: Path) -> dict:
    import yaml

    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def dataset_options(root: Path) -> list[str]:
    """The options of conf/dataset a study can run: the shipped UCI datasets (whose CSVs it gets), the synthetic
    ones, and my_csv, the template for the user's own file."""
    registry = _yaml(root / "data" / "registry.yaml")

    def readable(key: str, spec) -> bool:
        if not isinstance(spec, dict):
            return False
        if spec.get("source") == "shipped":  # its file must be among the template's (data/uci), not data/reference
            rel = f"data/{(registry.get(key) or {}).get('file')}"
            return any(rel.startswith(f"{src}/") for src in TEMPLATE_SOURCES) and (root / rel).is_file()
        return spec.get("source") == "synthetic" or (spec.get("source") == "file" and key == "my_csv")

    return [
        path.stem
        for path in sorted((root / "conf" / "dataset").glob("*.yaml"))
        if (entries := _yaml(path)) and all(readable(k, v) for k, v in entries.items())
    ]


def model_options(root: Path) -> list[str]:
    return sorted(p.stem for p in (root / "conf" / "models").glob("*.yaml"))


def _choose(kind: str, names: Iterable[str], valid: list[str]) -> list[str]:
    chosen = [n.strip() for n in names if n.strip()]
    bad = [n for n in chosen if n not in valid]
    if bad or not chosen:
        what = f"unknown {kind} {', '.join(map(repr, bad))}" if bad else f"no {kind} given"
        raise ConfigError(f"{what}; valid choices: {', '.join(valid)}")
    if len(set(chosen)) != len(chosen):
        raise ConfigError(f"{kind}: each name once, got {', '.join(chosen)}")
    return chosen


def study_config(text: str, *, datasets: list[str], models: list[str], name: str) -> str:
    """This repository's conf/config.yaml for a study: its header, the chosen datasets and models as the
    defaults, ``reproduce: null`` (the course texts' reference data stay in the repository) and its name."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("defaults:"))
    header = (
        f"# The configuration of the study {name}, composed by Hydra into params.yaml (written by `replearn init`).\n"
        "#   python -m replearn compose [overrides...]   rewrites params.yaml from conf/\n"
        "#   dvc exp run -S 'models=[knn,ridge]' -S cv.folds=5   an experiment with overrides\n"
        "# Each group below is a folder of options (`python -m replearn models` lists the models).\n"
    )
    body = "".join(lines[start:])
    subs = (
        (r"^  - dataset: \[[^\]\n]*\]$", f"  - dataset: [{', '.join(datasets)}]"),
        (r"^  - models: \[[^\]\n]*\]$", f"  - models: [{', '.join(models)}]"),
        (r"^experiment_name: .*$", f"experiment_name: {json.dumps(name)}"),
        (
            r"^(?:#.*\n)*reproduce: .*$",
            "# The worked examples of the course texts (reproduce: <preset> or all) need their reference data, which "
            "ship\n# with the replearn repository only; a study compares models.\nreproduce: null",
        ),
    )
    for pattern, line in subs:
        body, n = re.subn(pattern, line.replace("\\", "\\\\"), body, count=1, flags=re.M)  # the line as it is
        if n != 1:
            raise ReplearnError(f"conf/config.yaml of the template has no line matching {pattern!r}")
    return header + body


def study_dvc_yaml(text: str, owned: set[str]) -> str:
    """This repository's dvc.yaml for a study: each stage runs ``python -m replearn stage <name>`` and depends on
    requirements.txt (the pinned replearn) instead of its script and src/; deps the study does not own (the
    course reference data, benchmark suites) are left out. ``owned``: the study's files (relative paths)."""
    import yaml

    spec = yaml.safe_load(text)

    def paths(entries) -> list[str]:
        return [next(iter(e)) if isinstance(e, dict) else e for e in entries or []]

    produced = {p for st in spec["stages"].values() for key in ("outs", "metrics", "plots") for p in paths(st.get(key))}

    def present(dep: str) -> bool:
        return dep in produced or dep in owned or any(f.startswith(dep.rstrip("/") + "/") for f in owned)

    for name, stage in spec["stages"].items():
        m = re.fullmatch(r"python stages/([\w-]+)\.py", stage["cmd"])
        if m is None or m.group(1) != name:
            raise ReplearnError(f"dvc.yaml of the template: stage {name} runs {stage['cmd']!r}, not its script")
        stage["cmd"] = f"python -m replearn stage {name}"
        deps = [d for d in stage.get("deps", []) if not d.startswith(("stages/", "src/")) and present(d)]
        stage["deps"] = [REQUIREMENTS, *deps]
    header = (
        "# The replearn pipeline of this study (written by `replearn init`; the stages of the replearn repository):\n"
        "# validate -> prepare -> featurize -> train -> crossval -> significance -> reproduce -> report.\n"
        "# Each stage runs the installed replearn and depends on requirements.txt, which pins its version: change\n"
        "# the pin (after upgrading replearn) and the whole study reruns. Each stage lists the params it reads, so\n"
        "# `dvc exp run -S cv.folds=5` reruns only the stages that read cv.\n"
    )
    return header + yaml.safe_dump(spec, sort_keys=False, width=120, default_flow_style=False)


#: .dvc/config of a study: stage what DVC changes in git, compose conf/ with Hydra in `dvc exp run -S` (as here)
DVC_CONFIG = """\
[core]
    autostage = true
[hydra]
    enabled = true
    config_dir = conf
    config_name = config
"""

GITIGNORE = """\
# the pipeline's outputs (tracked by DVC, not git); results/config.json (validate) and metrics/ stay in git
/data/prepared
/data/sealed
/data/features
/models
/results/*
!/results/config.json
/reports
/timing/
# the MLflow store (tracking=mlflow): runs and artifacts of every `dvc repro` / `dvc exp run`
/mlflow.db
/mlflow.db.lock
/mlflow.db-wal
/mlflow.db-shm
/mlartifacts/
params.rejected.yaml
# the validate stage's stamp of the params.yaml it accepted (replearn.pipeline.params)
/.replearn/
/dvc_plots/
.venv/
__pycache__/
# a write a killed run left unfinished (replearn.atomic; the next write removes it, `replearn check` lists it)
*.replearn-partial*
"""


def requirements_text(version: str) -> str:
    return (
        "# The replearn this study runs with. Every stage depends on this file: after upgrading replearn, pin the new\n"
        "# version here and `dvc repro` reruns the whole study (a stage refuses to run under another version).\n"
        f"replearn=={version}\n"
    )


def readme_text(name: str, version: str, datasets: list[str], models: list[str]) -> str:
    return f"""# {name}

A replearn study: {", ".join(models)} compared on {", ".join(datasets)} (written by `replearn init`, replearn
{version}). Install replearn (the version pinned in requirements.txt) and run the pipeline:

    pip install -r requirements.txt      # or the replearn wheel this study was made with
    dvc repro

`dvc repro` writes reports/report.html (and report.md), metrics/ and one MLflow run with a child per dataset and
model in mlflow.db; `replearn ui` serves the MLflow UI, `dvc metrics show` and `dvc plots show` the rest.

## Experiments

    dvc exp run -S cv.folds=5 -S 'models=[knn,ridge]'   # overrides of conf/ (Hydra); only affected stages rerun
    dvc exp run -S +experiment=smoke                     # the preset of conf/experiment/ (a run of seconds)
    dvc exp show

## Comparing two runs

    dvc exp run -n before -S +experiment=smoke
    dvc exp run -n after -S +experiment=smoke -S models.knn.params.n_neighbors=15
    replearn diff before after --fail-on regression      # which cells changed on these splits; exit 1 if worse

`replearn diff` pairs every dataset x model x metric replicate by replicate and tests each cell (exact sign-flip
test, Holm over the cells, the margin of stats.rope); `--format markdown` is ready for a pull request, `--format
json` for scripts. The CI jobs .github/workflows/replearn-diff.yml and ci/replearn-diff.gitlab-ci.yml run it on
every pull (merge) request against the base branch and post the Markdown.

`replearn models` lists the model options (conf/models/), `replearn datasets` the shipped datasets; a misspelt
key or name stops the run before any work, naming the valid choices. After editing conf/ itself, `dvc exp run`
recomposes params.yaml (or `replearn compose`, then `dvc repro`).

## Your own data

Put the file in data/ (CSV or Parquet, a header row), copy conf/dataset/my_csv.yaml to conf/dataset/<name>.yaml
and set its key, `path` and `target` (and `task`: classification or regression), then

    dvc exp run -S 'dataset=[<name>]'

Add the file to the deps of `prepare` in dvc.yaml (or track it with `dvc add`) so that editing it reruns the
study.

## Upgrading replearn

Every stage depends on requirements.txt: install the new version, pin it there, and `dvc repro` reruns the study
with it.
"""


def study_files(datasets: list[str], models: list[str], name: str, root: Path | None = None) -> dict[str, bytes]:
    """Every file of a new study but params.yaml (composed afterwards), as relative path -> content."""
    root = root or template_root()
    version = installed_version()
    files: dict[str, bytes] = {}
    for group in WHOLE_GROUPS:
        for path in sorted((root / "conf" / group).glob("*.yaml")):
            files[f"conf/{group}/{path.name}"] = path.read_bytes()
    for option in dataset_options(root):
        files[f"conf/dataset/{option}.yaml"] = (root / "conf" / "dataset" / f"{option}.yaml").read_bytes()
    for preset in PRESETS:
        files[f"conf/experiment/{preset}.yaml"] = (root / "conf" / "experiment" / f"{preset}.yaml").read_bytes()
    config = study_config(
        (root / "conf" / "config.yaml").read_text(encoding="utf-8"), datasets=datasets, models=models, name=name
    )
    files["conf/config.yaml"] = config.encode()
    files["data/registry.yaml"] = (root / "data" / "registry.yaml").read_bytes()
    for path in sorted((root / "data" / "uci").glob("*.csv")):
        files[f"data/uci/{path.name}"] = path.read_bytes()
    files[".dvcignore"] = (root / ".dvcignore").read_bytes()
    plot_template = "vendor/vega/templates/scores_by_model.json"
    files[plot_template] = (root / plot_template).read_bytes()
    files[REQUIREMENTS] = requirements_text(version).encode()
    from ..plugin_lock import FILE, record, render

    files[FILE] = render(record({})).encode()  # the plugin models the study names: filled in by compose (init)
    files[".gitignore"] = GITIGNORE.encode()
    files["README.md"] = readme_text(name, version, datasets, models).encode()
    from .ci_jobs import STUDY
    from .ci_jobs import files as ci_files

    files.update({path: text.encode() for path, text in ci_files(STUDY).items()})  # replearn diff on pull requests
    files["dvc.yaml"] = study_dvc_yaml((root / "dvc.yaml").read_text(encoding="utf-8"), set(files)).encode()
    return files


def _run(cmd: list[str], cwd: Path, what: str) -> subprocess.CompletedProcess:
    try:
        res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120, check=False)
    except FileNotFoundError as exc:
        raise ReplearnError(f"{what}: {cmd[0]} not found ({exc.strerror}); install it, or use --no-git") from exc
    except subprocess.TimeoutExpired as exc:
        raise ReplearnError(f"{what}: `{' '.join(cmd)}` did not finish in 120 s") from exc
    if res.returncode != 0 and what:
        detail = (res.stderr or res.stdout).strip().splitlines()
        raise ReplearnError(f"{what}: `{' '.join(cmd)}` failed: {detail[-1] if detail else res.returncode}")
    return res


def init(
    target: str | Path,
    *,
    datasets: Iterable[str] = DEFAULT_DATASETS,
    models: Iterable[str] = DEFAULT_MODELS,
    git: bool = True,
    say: Callable[[str], None] = lambda _: None,
) -> Path:
    """Write a new study into ``target`` (new or empty), compose its params.yaml and, with ``git``, run
    ``git init`` and ``dvc init`` there, set DVC's Hydra composition on and commit the study when git has an
    identity. Names are checked before anything is written; a non-empty ``target`` is refused."""
    from .config import compose

    target = Path(target).expanduser().absolute()
    if target.exists() and not target.is_dir():
        raise ConfigError(f"{target} is a file; `replearn init` writes a study into a new or empty folder")
    if target.is_dir() and any(target.iterdir()):
        shown = ", ".join(sorted(p.name for p in target.iterdir())[:5])
        raise ConfigError(
            f"{target} is not empty (it holds {shown}); `replearn init` writes into a new or empty folder"
        )
    root = template_root()
    chosen_datasets = _choose("dataset", datasets, dataset_options(root))
    chosen_models = _choose("model", models, model_options(root))
    files = study_files(chosen_datasets, chosen_models, target.name, root)
    target.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        write_bytes(inside(target, rel, what="study file"), content, durable=False)
    compose(root=target)
    say(
        f"wrote the study {target}: dvc.yaml, conf/ (datasets {', '.join(chosen_datasets)}; models "
        f"{', '.join(chosen_models)}), params.yaml, data/, README.md, {REQUIREMENTS} (replearn=={installed_version()})"
    )
    if not git:
        say("not initialised (--no-git): run `git init && dvc init` there before `dvc repro`")
        return target
    _run(["git", "init", "-q"], target, "git init")
    dvc = [sys.executable, "-m", "dvc"]
    _run([*dvc, "init", "-q"], target, "dvc init")
    write_bytes(inside(target, ".dvcignore"), files[".dvcignore"], durable=False)  # dvc init wrote its own
    config = inside(target, ".dvc/config")
    if config.is_file() and not config.read_text(encoding="utf-8").strip():  # what `dvc init` writes: no settings
        write_text(config, DVC_CONFIG)
    else:  # pragma: no cover - another DVC's init: let it write its own file
        for key, value in (("core.autostage", "true"), ("hydra.enabled", "true")):
            _run([*dvc, "config", key, value], target, "dvc config")
    _run(["git", "add", "."], target, "git add")
    res = _run(
        ["git", "commit", "-q", "-m", f"New replearn study (replearn init, replearn {installed_version()})"], target, ""
    )
    if res.returncode == 0:
        say("initialised git and DVC and committed the study")
    else:
        say("initialised git and DVC; commit the study yourself (git has no identity here): git commit -m init")
    return target


def check_pin(root: Path) -> None:
    """Refuse to run a study's stage under another replearn than the one its requirements.txt pins (no pin, no
    requirements.txt: nothing to check)."""
    path = Path(root) / REQUIREMENTS
    if not path.is_file():
        return
    m = _PIN.search(path.read_text(encoding="utf-8"))
    if m is None:
        return
    have = installed_version()
    if m.group(1) != have:
        raise ConfigError(
            f"this study pins replearn=={m.group(1)} in {REQUIREMENTS} but replearn {have} is installed; install the "
            f"pinned version (pip install -r {REQUIREMENTS}), or pin {have} there to rerun the study with it"
        )
