"""The reference-data readers: the CS229 sparse matrix format, CSV columns and the sha256 check."""

from __future__ import annotations

import gzip
import hashlib
import shutil

import numpy as np
import pytest

from replearn.exceptions import DataValidationError
from replearn.reproductions._data import read_csv, read_spam_matrix, reference_path

TINY = "DOC_WORD_MATRIX_TRAIN\n2 4\naa bb cc dd\n1 0 2 3 1 -1\n0 1 5 2 7 -1\n"


def _write_gz(path, text):
    with gzip.open(path, "wt", encoding="ascii") as fh:
        fh.write(text)


def test_sparse_matrix_format_is_decoded_with_running_indices(tmp_path):
    _write_gz(tmp_path / "m.gz", TINY)
    m = read_spam_matrix(tmp_path, "m.gz")
    # doc 0: gaps 0, 3 -> tokens 0 and 3 with counts 2 and 1; doc 1: gaps 1, 2 -> tokens 1 and 3
    np.testing.assert_array_equal(m.counts, [[2, 0, 0, 1], [0, 5, 0, 7]])
    np.testing.assert_array_equal(m.labels, [1, 0])
    assert m.tokens == ["aa", "bb", "cc", "dd"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (TINY.replace("2 4\n", "2 5\n"), "tokens"),
        (TINY.replace(" -1\n0", "\n0"), "not 'label"),
        (TINY.replace("0 1 5 2 7 -1", "0 1 5 9 7 -1"), "outside"),
        (TINY.replace("2 4\n", "3 4\n"), "document lines"),
    ],
)
def test_malformed_matrices_are_rejected(tmp_path, text, message):
    _write_gz(tmp_path / "m.gz", text)
    with pytest.raises(DataValidationError, match=message):
        read_spam_matrix(tmp_path, "m.gz")


def test_vendored_spam_matrices_have_the_documented_shapes(data_dir):
    test = read_spam_matrix(data_dir, "cs229_spam_matrix_test.gz")
    train = read_spam_matrix(data_dir, "cs229_spam_matrix_train.gz")
    assert test.counts.shape == (800, 1448) and train.counts.shape == (2144, 1448)
    assert test.tokens == train.tokens and set(np.unique(test.labels)) == {0, 1}


def test_csv_columns_are_numeric_or_boolean(data_dir):
    ratings = read_csv(data_dir, "ciml_course_ratings.csv")
    assert ratings["rating"].dtype == np.float64 and set(np.unique(ratings["easy"])) == {0.0, 1.0}
    assert len(read_csv(data_dir, "portland_housing.csv")["price"]) == 47


def test_every_vendored_file_matches_its_checksum(data_dir):
    listed = [line.split()[1] for line in (data_dir / "SHA256SUMS").read_text().splitlines()]
    assert "portland_housing.csv" in listed and len(listed) >= 12
    for name in listed:
        reference_path(data_dir, name)  # raises on a mismatch


def test_an_edited_reference_file_is_detected(tmp_path, data_dir):
    shutil.copy(data_dir / "portland_housing.csv", tmp_path / "portland_housing.csv")
    digest = hashlib.sha256((data_dir / "portland_housing.csv").read_bytes()).hexdigest()
    (tmp_path / "SHA256SUMS").write_text(f"{digest}  portland_housing.csv\n")
    reference_path(tmp_path, "portland_housing.csv")
    with open(tmp_path / "portland_housing.csv", "a") as fh:
        fh.write("1000,2,100000\n")
    with pytest.raises(DataValidationError, match="sha256"):
        read_csv(tmp_path, "portland_housing.csv")


def test_a_missing_file_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="portland_housing.csv"):
        reference_path(tmp_path, "portland_housing.csv")
