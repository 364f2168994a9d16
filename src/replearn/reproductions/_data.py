"""Readers for the course reference files vendored in ``data/reference/`` (numpy only).

Each reader takes the directory that holds the files (``data_dir``). When that directory has a
``SHA256SUMS`` file (``sha256sum`` format: ``<hex digest>  <file name>``) and it lists the file
being read, the digest is checked first, so an edited reference file cannot silently change a
reproduced number.
"""

from __future__ import annotations

import csv
import gzip
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._reference import reference_path
from ..exceptions import DataValidationError


def default_data_dir() -> Path:
    """``data/reference`` of the source checkout this package lives in."""
    return Path(__file__).resolve().parents[3] / "data" / "reference"


def read_csv(data_dir, name: str) -> dict[str, np.ndarray]:
    """A CSV with a header row as ``{column: array}``; numeric columns become float arrays.

    "True"/"False" columns become 0/1 floats; any other non-numeric column stays a string array.
    """
    path = reference_path(data_dir, name)
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    if len(rows) < 2:
        raise DataValidationError(f"{path}: expected a header row and data rows")
    header, body = rows[0], rows[1:]
    columns = {}
    for j, col in enumerate(header):
        raw = np.array([r[j].strip() for r in body])
        if set(raw.tolist()) <= {"True", "False"}:
            columns[col] = (raw == "True").astype(np.float64)
            continue
        try:
            columns[col] = raw.astype(np.float64)
        except ValueError:
            columns[col] = raw
    return columns


@dataclass
class TokenMatrix:
    """A CS229 document-word matrix: counts (n_docs, n_tokens), labels (1 = spam) and tokens."""

    counts: np.ndarray
    labels: np.ndarray
    tokens: list[str]


def read_spam_matrix(data_dir, name: str) -> TokenMatrix:
    """Read a CS229 spam matrix in its original sparse text format (gzipped).

    The format (the problem set's ``readMatrix``): a title line (``DOC_WORD_MATRIX_TRAIN``), a
    line ``n_docs n_tokens``, a line with the ``n_tokens`` (stemmed) tokens, then one line per
    document: the label (1 spam, 0 not spam), then pairs ``gap count`` where the token's 0-based
    index is the running sum of the gaps, and a final ``-1``.
    """
    path = reference_path(data_dir, name)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="ascii") as fh:
        lines = fh.read().splitlines()
    if len(lines) < 3:
        raise DataValidationError(f"{path}: expected a title, a size line and a token line")
    try:
        n_docs, n_tokens = (int(v) for v in lines[1].split())
    except ValueError:
        raise DataValidationError(f"{path}: line 2 should be 'n_docs n_tokens', got {lines[1]!r}") from None
    tokens = lines[2].split()
    if len(tokens) != n_tokens:
        raise DataValidationError(f"{path}: line 3 has {len(tokens)} tokens, line 2 says {n_tokens}")
    docs = lines[3 : 3 + n_docs]
    if len(docs) != n_docs:
        raise DataValidationError(f"{path}: {len(docs)} document lines, line 2 says {n_docs}")
    counts = np.zeros((n_docs, n_tokens))
    labels = np.zeros(n_docs, dtype=np.int64)
    for i, line in enumerate(docs):
        values = np.array(line.split(), dtype=np.int64)
        if values.size < 2 or values[-1] != -1 or values.size % 2 != 0:
            raise DataValidationError(f"{path}: line {i + 4} is not 'label (gap count)* -1'")
        labels[i] = values[0]
        index = np.cumsum(values[1:-1:2])
        if index.size and (index[-1] >= n_tokens or index.min() < 0):
            raise DataValidationError(f"{path}: line {i + 4} has a token index outside 0..{n_tokens - 1}")
        counts[i, index] = values[2:-1:2]
    return TokenMatrix(counts, labels, tokens)
