"""Read a table of scores (CSV, Parquet, stdin, a pandas DataFrame or a mapping of columns) into a checked
:class:`ScoreTable`.

Two layouts (the roles of the columns are matched case-insensitively, and ``columns=`` renames them):

* **long**: a row per score, with the columns ``dataset``, ``model`` and ``score``, and optionally what identifies
  the replicate -- ``seed`` / ``replicate`` (independent runs), ``repeat`` and ``fold`` (cross-validation splits) --,
  ``metric`` (several metrics in one file: choose one with ``metric=``) and ``n_train`` / ``n_test`` (the sizes of a
  split, which the corrected resampled t-test needs). Any other column is an error.
* **wide**: a row per dataset (or per dataset and replicate) and a column per model; the dataset is the column
  ``dataset`` or else the first column, and the optional columns above keep their meaning.

An empty, ``NA`` or ``NaN`` score is a missing cell (a run that failed or was not made): it follows the failed-fit
convention of the significance stage (docs/statistics.md, "Failed fits") and is listed in the result. Everything
else that is wrong stops the reading with one line naming the line (or DataFrame row) and the column: a score
that is not a number or is infinite, a repeated (dataset, model, replicate), a model without any score, one dataset
without replicates, an unknown column, several metrics without ``metric=``.
"""

from __future__ import annotations

import csv
import io
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ...exceptions import TableError

__all__ = ["ROLES", "ScoreTable", "TableError", "read_table"]

#: column roles: the three a long table needs, then the optional ones
REQUIRED = ("dataset", "model", "score")
REPLICATE_ROLES = ("seed", "replicate", "repeat", "fold")
OPTIONAL = (*REPLICATE_ROLES, "metric", "n_train", "n_test")
ROLES = (*REQUIRED, *OPTIONAL)
_MISSING = {"", "na", "n/a", "nan", "null", "none"}


@dataclass(frozen=True)
class ScoreTable:
    """A checked table of scores: ``cells[dataset][model]`` lists the scores in the order of
    ``replicates[dataset]`` (None: a missing cell). ``kind`` says what the replicates are: ``"none"`` (one score
    per dataset and model), ``"seed"`` (independent runs: a ``seed``, ``replicate`` or, without folds, ``repeat``
    column) or ``"fold"`` (cross-validation splits: a ``fold`` column; ``repeat_of`` maps each replicate to its
    repeat). ``sizes[dataset]`` holds the (n_train, n_test) of each replicate (None where not given)."""

    source: str
    layout: str  # "long" | "wide"
    n_rows: int
    datasets: list[str]
    models: list[str]
    metric: str | None
    kind: str  # "none" | "seed" | "fold"
    replicate_columns: tuple[str, ...]
    replicates: dict[str, list[tuple]]
    cells: dict[str, dict[str, list[float | None]]]
    sizes: dict[str, list[tuple[int | None, int | None]]] = field(default_factory=dict)
    higher_is_better: bool | None = None

    def missing(self) -> list[tuple[str, str, int]]:
        """Every missing cell: (dataset, model, how many of the dataset's replicates are missing)."""
        out = []
        for d in self.datasets:
            for m in self.models:
                n = sum(v is None for v in self.cells[d][m])
                if n:
                    out.append((d, m, n))
        return out

    def repeat_of(self, dataset: str) -> list[tuple]:
        """The repeat of each replicate of ``dataset`` (fold tables: the replicate's id without its fold)."""
        fold = self.replicate_columns.index("fold") if "fold" in self.replicate_columns else None
        return [tuple(v for i, v in enumerate(rep) if i != fold) for rep in self.replicates[dataset]]


class _Columns:
    """A table as columns of raw values, with the place of each row for error messages."""

    def __init__(self, source: str, names: list[str], values: list[list], where: list[str]):
        self.source, self.names, self.values, self.where = source, names, values, where

    def col(self, name: str) -> list:
        return self.values[self.names.index(name)]


# ----------------------------------------------------------------------------------------------- sources
def _from_csv_text(text: str, source: str) -> _Columns:
    first = next((line for line in text[:65536].splitlines() if line.strip()), "")
    if not first:
        raise TableError(f"{source}: empty (no header line)")
    delimiter = ","
    if source.endswith(".tsv") or ("\t" in first and "," not in first):
        delimiter = "\t"
    elif ";" in first and "," not in first:
        delimiter = ";"
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    header_at = next((i for i, r in enumerate(rows) if any(c.strip() for c in r)), None)
    if header_at is None:
        raise TableError(f"{source}: empty (no header line)")
    names = [c.strip() for c in rows[header_at]]
    values: list[list] = [[] for _ in names]
    where: list[str] = []
    for i, row in enumerate(rows[header_at + 1 :], start=header_at + 2):
        if not any(c.strip() for c in row):
            continue  # a blank line
        if len(row) != len(names):
            raise TableError(
                f"{source}, line {i}: {len(row)} fields, but the header (line {header_at + 1}) has {len(names)}"
            )
        for j, c in enumerate(row):
            values[j].append(c.strip())
        where.append(f"line {i}")
    return _Columns(source, names, values, where)


def _from_frame(frame, source: str) -> _Columns:
    index = frame.index
    if getattr(index, "nlevels", 1) > 1 or index.name is not None or type(index).__name__ != "RangeIndex":
        # a pivot (index = dataset) or a frame indexed by (dataset, model): its index is data
        if index.name is not None or getattr(index, "nlevels", 1) > 1:
            frame = frame.reset_index()
    names = [str(c).strip() for c in frame.columns]
    values = [frame.iloc[:, j].tolist() for j in range(frame.shape[1])]
    labels = list(frame.index)
    where = [f"row {lab!r}" if not isinstance(lab, int) else f"row {lab}" for lab in labels]
    return _Columns(source, names, values, where)


def _from_mapping(data: Mapping, source: str) -> _Columns:
    names = [str(k).strip() for k in data]
    values = [list(v) for v in data.values()]
    lengths = {len(v) for v in values}
    if len(lengths) > 1:
        raise TableError(f"{source}: the columns have different lengths ({', '.join(map(str, sorted(lengths)))})")
    n = lengths.pop() if lengths else 0
    return _Columns(source, names, values, [f"row {i}" for i in range(n)])


def _load(data) -> _Columns:
    if isinstance(data, (str, Path)):
        text = str(data)
        if text == "-":
            return _from_csv_text(sys.stdin.read(), "stdin")
        path = Path(text)
        if not path.is_file():
            raise TableError(f"{path}: no such file")
        if path.suffix.lower() in (".parquet", ".pq"):
            try:
                import pandas as pd

                frame = pd.read_parquet(path)
            except (ImportError, ValueError, OSError) as exc:
                raise TableError(f"{path}: cannot be read as Parquet ({str(exc).splitlines()[0]})") from exc
            return _from_frame(frame, path.name)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError as exc:
            raise TableError(f"{path}: not a UTF-8 text file (CSV) at byte {exc.start}") from exc
        return _from_csv_text(text, path.name)
    if hasattr(data, "columns") and hasattr(data, "iloc"):
        return _from_frame(data, "DataFrame")
    if isinstance(data, Mapping):
        return _from_mapping(data, "table")
    raise TableError(
        f"cannot read a table from a {type(data).__name__}: give a CSV or Parquet path, '-' (stdin), a pandas "
        "DataFrame or a mapping of column name -> values"
    )


# ----------------------------------------------------------------------------------------------- values
def _text(value) -> str | None:
    """A label (dataset, model, replicate, metric); None when empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip()
    return text or None


def _number(value, t: _Columns, column: str, i: int) -> float | None:
    """A score: None for an empty / NA / NaN cell; an error for text or an infinite value."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise TableError(f"{t.source}, {t.where[i]}, column {column!r}: {value!r} is not a number")
    if isinstance(value, (int, float)) or type(value).__module__ == "numpy":
        x = float(value)
    else:
        text = str(value).strip()
        if text.lower() in _MISSING:
            return None
        try:
            x = float(text)
        except ValueError:
            raise TableError(f"{t.source}, {t.where[i]}, column {column!r}: {text!r} is not a number") from None
    if math.isnan(x):
        return None
    if math.isinf(x):
        raise TableError(
            f"{t.source}, {t.where[i]}, column {column!r}: the score is infinite ({x}); a score must "
            "be a finite number (leave the cell empty for a run that failed)"
        )
    return x


def _size(value, t: _Columns, column: str, i: int) -> int | None:
    x = _number(value, t, column, i)
    if x is None:
        return None
    if x != int(x) or x < 1:
        raise TableError(
            f"{t.source}, {t.where[i]}, column {column!r}: {value!r} is not a positive whole number of examples"
        )
    return int(x)


def _sort_key(label: str):
    """Replicate labels in numeric order when they are numbers (fold 2 before fold 10)."""
    try:
        return (0, float(label), "")
    except ValueError:
        return (1, 0.0, label)


# ----------------------------------------------------------------------------------------------- reading
def read_table(
    data,
    *,
    metric: str | None = None,
    columns: Mapping[str, str] | None = None,
) -> ScoreTable:
    """Read and check a table of scores (see the module docstring).

    Parameters
    ----------
    data : path, ``"-"``, pandas DataFrame or mapping
        A CSV (``.csv``, ``.tsv``; comma, semicolon or tab separated) or Parquet file, ``"-"`` for CSV on stdin,
        a DataFrame (a pivot's index is read as the dataset column) or a mapping of column name -> values.
    metric : str, optional
        Keep only the rows of this metric (a ``metric`` column); without such a column, the name of the score.
    columns : mapping, optional
        Role -> column name, for columns named otherwise (``{"score": "accuracy", "dataset": "task"}``).

    Raises
    ------
    TableError
        One line naming the line (or row) and the column that is wrong.
    """
    t = _load(data)
    if not t.names:
        raise TableError(f"{t.source}: no columns")
    seen: dict[str, int] = {}
    for j, name in enumerate(t.names):
        if not name:
            raise TableError(f"{t.source}: column {j + 1} of the header has no name")
        if name.lower() in seen:
            raise TableError(
                f"{t.source}: two columns are named {name!r} (columns {seen[name.lower()] + 1} and {j + 1})"
            )
        seen[name.lower()] = j
    role_of = _roles(t, columns or {})
    long = "model" in role_of.values() or "score" in role_of.values()
    if long:
        for need in ("dataset", "model", "score"):
            if need not in role_of.values():
                raise TableError(
                    f"{t.source}: no column {need!r} (a long table has the columns dataset, model and score; "
                    f"the header has {', '.join(repr(n) for n in t.names)})"
                )
        unknown = [n for n in t.names if n not in role_of]
        if unknown:
            raise TableError(
                f"{t.source}, line 1: unknown column {unknown[0]!r}; a long table has the columns dataset, model, "
                f"score and optionally {', '.join(OPTIONAL)} (rename it with --column ROLE={unknown[0]})"
            )
        rows = _long_rows(t, role_of)
    else:
        rows = _wide_rows(t, role_of)
    return _assemble(t, rows, role_of, metric, "long" if long else "wide")


def _roles(t: _Columns, columns: Mapping[str, str]) -> dict[str, str]:
    """Column name -> role, for the columns that have one."""
    by_lower = {n.lower(): n for n in t.names}
    out: dict[str, str] = {}
    for role, name in columns.items():
        if role not in ROLES:
            raise TableError(f"unknown column role {role!r} in columns=; the roles are {', '.join(ROLES)}")
        actual = by_lower.get(str(name).strip().lower())
        if actual is None:
            raise TableError(
                f"{t.source}: no column {name!r} (given for the role {role!r}); the header has "
                f"{', '.join(repr(n) for n in t.names)}"
            )
        out[actual] = role
    for n in t.names:
        if n not in out and n.lower() in ROLES and n.lower() not in out.values():
            out[n] = n.lower()
    return out


def _long_rows(t: _Columns, role_of: Mapping[str, str]) -> list[dict]:
    col = {role: t.col(name) for name, role in role_of.items()}
    return [{"i": i, **{role: values[i] for role, values in col.items()}} for i in range(len(t.where))]


def _wide_rows(t: _Columns, role_of: dict[str, str]) -> list[dict]:
    if "dataset" not in role_of.values():
        first = t.names[0]
        if first in role_of:
            raise TableError(
                f"{t.source}: no column 'dataset' (a wide table has a row per dataset: the column "
                "'dataset', or the dataset's name in the first column)"
            )
        role_of[first] = "dataset"
    model_cols = [n for n in t.names if n not in role_of]
    if not model_cols:
        raise TableError(
            f"{t.source}: no model column (a wide table has a column per model beside "
            f"{', '.join(repr(n) for n in role_of)})"
        )
    col = {role: t.col(name) for name, role in role_of.items()}
    rows = []
    for i in range(len(t.where)):
        base = {role: values[i] for role, values in col.items()}
        for name in model_cols:
            rows.append({"i": i, **base, "model": name, "score": t.col(name)[i], "_column": name})
    return rows


def _assemble(t: _Columns, rows: list[dict], role_of: Mapping[str, str], metric: str | None, layout: str):
    roles = set(role_of.values())
    score_col = next((n for n, r in role_of.items() if r == "score"), None)
    # the metric: filter, or refuse several without a choice
    if "metric" in roles:
        metrics: dict[str, int] = {}
        for r in rows:
            name = _text(r.get("metric"))
            if name is None:
                raise TableError(f"{t.source}, {t.where[r['i']]}, column 'metric': empty metric name")
            metrics.setdefault(name, r["i"])
        if metric is None and len(metrics) > 1:
            raise TableError(
                f"{t.source}: column 'metric' holds {len(metrics)} metrics ({', '.join(sorted(metrics))}); choose "
                "one with --metric (metric=)"
            )
        if metric is not None and metric not in metrics:
            raise TableError(
                f"{t.source}: no row of metric {metric!r}; column 'metric' holds {', '.join(sorted(metrics))}"
            )
        metric = metric if metric is not None else next(iter(metrics))
        rows = [r for r in rows if _text(r.get("metric")) == metric]
    rep_roles = tuple(r for r in REPLICATE_ROLES if r in roles)
    if "fold" in rep_roles:
        kind = "fold"
        rep_roles = (*[r for r in rep_roles if r != "fold"], "fold")  # the repeat's identifiers, then the fold
    else:
        kind = "seed" if rep_roles else "none"
    datasets: list[str] = []
    models: list[str] = []
    first_at: dict[tuple, int] = {}
    scores: dict[tuple, float | None] = {}
    reps: dict[str, set] = {}
    sizes: dict[tuple, tuple[int | None, int | None, int]] = {}
    for r in rows:
        i = r["i"]
        d = _text(r.get("dataset"))
        if d is None:
            raise TableError(f"{t.source}, {t.where[i]}, column {_name(role_of, 'dataset')!r}: empty dataset name")
        m = _text(r.get("model"))
        if m is None:
            raise TableError(f"{t.source}, {t.where[i]}, column {_name(role_of, 'model')!r}: empty model name")
        rep = []
        for role in rep_roles:
            v = _text(r.get(role))
            if v is None:
                raise TableError(f"{t.source}, {t.where[i]}, column {_name(role_of, role)!r}: empty {role}")
            rep.append(v)
        key = (d, m, tuple(rep))
        if key in first_at:
            what = f"dataset {d!r}, model {m!r}" + "".join(f", {role} {v!r}" for role, v in zip(rep_roles, rep))
            raise TableError(
                f"{t.source}, {t.where[i]}: a second score for {what} (the first is on {t.where[first_at[key]]})"
            )
        first_at[key] = i
        column = r.get("_column") or score_col or "score"
        scores[key] = _number(r.get("score"), t, column, i)
        if d not in reps:
            datasets.append(d)
            reps[d] = set()
        if m not in models:
            models.append(m)
        reps[d].add(tuple(rep))
        if "n_train" in roles or "n_test" in roles:
            n_tr = _size(r.get("n_train"), t, _name(role_of, "n_train"), i) if "n_train" in roles else None
            n_te = _size(r.get("n_test"), t, _name(role_of, "n_test"), i) if "n_test" in roles else None
            prev = sizes.get((d, tuple(rep)))
            if prev is not None and prev[:2] != (n_tr, n_te):
                raise TableError(
                    f"{t.source}, {t.where[i]}: n_train/n_test ({n_tr}, {n_te}) differ from those of the same split "
                    f"of dataset {d!r} on {t.where[prev[2]]} ({prev[0]}, {prev[1]})"
                )
            sizes.setdefault((d, tuple(rep)), (n_tr, n_te, i))
    if not rows:
        raise TableError(f"{t.source}: no scores (the table has a header and no rows)")
    cells: dict[str, dict[str, list[float | None]]] = {}
    order: dict[str, list[tuple]] = {}
    for d in datasets:
        order[d] = sorted(reps[d], key=lambda rep: tuple(_sort_key(v) for v in rep))
        cells[d] = {m: [scores.get((d, m, rep)) for rep in order[d]] for m in models}
        if all(v is None for m in models for v in cells[d][m]):
            raise TableError(f"{t.source}: dataset {d!r} has no score (every one of its cells is empty)")
    for m in models:
        if all(v is None for d in datasets for v in cells[d][m]):
            where = f"column {m!r}" if layout == "wide" else f"model {m!r}"
            raise TableError(f"{t.source}: {where} has no scores (every one is empty)")
    if len(models) < 2:
        raise TableError(f"{t.source}: only one model ({models[0]!r}); a comparison needs at least two")
    if len(datasets) < 2 and kind == "none":
        raise TableError(
            f"{t.source}: only one dataset ({datasets[0]!r}) and one score per model: nothing can be tested; "
            "give several datasets, or the replicates (seed, or repeat and fold columns) of this one"
        )
    size_table = {d: [sizes.get((d, rep), (None, None, 0))[:2] for rep in order[d]] for d in datasets}
    return ScoreTable(
        source=t.source,
        layout=layout,
        n_rows=len(t.where),
        datasets=datasets,
        models=models,
        metric=metric,
        kind=kind,
        replicate_columns=rep_roles,
        replicates=order,
        cells=cells,
        sizes=size_table if ("n_train" in roles or "n_test" in roles) else {},
    )


def _name(role_of: Mapping[str, str], role: str) -> str:
    return next((n for n, r in role_of.items() if r == role), role)


def resolve_direction(table: ScoreTable, higher_is_better: bool | None) -> bool:
    """Whether higher scores are better: as given, else from replearn's metric registry for a metric it knows."""
    if higher_is_better is not None:
        return bool(higher_is_better)
    if table.metric is not None:
        from ...evaluation.metrics import METRICS

        known = METRICS.get(table.metric)
        if known is not None:
            return bool(known.greater_is_better)
    named = f"the metric {table.metric!r} is not one replearn knows" if table.metric else "the table names no metric"
    raise TableError(
        f"{table.source}: say whether higher scores are better: --higher-is-better or --lower-is-better "
        f"(higher_is_better=True/False); {named}"
    )
