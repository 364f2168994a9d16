"""Tests of the deterministic report plots (replearn.pipeline.report.plots)."""

from __future__ import annotations

import struct

import pytest

from replearn.pipeline.report.plots import critical_difference_diagram, score_distribution_plot, train_test_plot

RANKS = {"gaussian_naive_bayes": 2.6667, "knn": 2.0, "logistic_regression": 1.3333}
CLIQUES = [["logistic_regression", "knn", "gaussian_naive_bayes"]]


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.fixture
def cv(crossval):
    return crossval["iris"]  # from conftest.py, fresh per test


def test_score_plot_is_deterministic_png_without_software_stamp(tmp_path, cv):
    a = score_distribution_plot("iris", cv, "accuracy", tmp_path / "a.png", 40)
    b = score_distribution_plot("iris", cv, "accuracy", tmp_path / "sub" / "b.png", 40)
    assert a == tmp_path / "a.png" and b.is_file()  # parent folders created
    data = a.read_bytes()
    assert data == b.read_bytes()
    assert b"Software" not in data and b"matplotlib" not in data.lower()


def test_score_plot_size_follows_dpi_and_model_count(tmp_path, cv):
    w40, h40 = _png_size(score_distribution_plot("iris", cv, "accuracy", tmp_path / "a.png", 40).read_bytes())
    w80, h80 = _png_size(score_distribution_plot("iris", cv, "accuracy", tmp_path / "b.png", 80).read_bytes())
    assert (w40, h40) == (256, round(40 * (1.2 + 0.45 * 3)))  # 6.4 in wide
    assert (w80, h80) == (2 * w40, 2 * h40)
    del cv["models"]["knn"]
    _, h2 = _png_size(score_distribution_plot("iris", cv, "accuracy", tmp_path / "c.png", 40).read_bytes())
    assert h2 < h40


def test_score_plot_depends_on_the_scores(tmp_path, cv):
    a = score_distribution_plot("iris", cv, "accuracy", tmp_path / "a.png", 40).read_bytes()
    cv["models"]["knn"]["scores"]["accuracy"][0] = 0.5
    b = score_distribution_plot("iris", cv, "accuracy", tmp_path / "b.png", 40).read_bytes()
    assert a != b


def test_score_plot_errors(tmp_path, cv):
    with pytest.raises(KeyError, match="model 'gaussian_naive_bayes' on dataset 'iris' has no scores for metric 'mse'"):
        score_distribution_plot("iris", cv, "mse", tmp_path / "a.png", 40)
    with pytest.raises(ValueError, match="dpi must be an integer >= 10"):
        score_distribution_plot("iris", cv, "accuracy", tmp_path / "a.png", 5)
    cv["models"] = {}
    with pytest.raises(ValueError, match="dataset 'iris' has no models to plot"):
        score_distribution_plot("iris", cv, "accuracy", tmp_path / "a.png", 40)


def test_cd_diagram_is_deterministic_and_order_independent(tmp_path):
    a = critical_difference_diagram(RANKS, 1.9137, CLIQUES, tmp_path / "a.png", 40).read_bytes()
    reordered = dict(reversed(list(RANKS.items())))
    b = critical_difference_diagram(reordered, 1.9137, [list(reversed(CLIQUES[0]))], tmp_path / "b.png", 40)
    assert a == b.read_bytes()
    assert b"Software" not in a


def test_cd_diagram_draws_cd_bar_and_cliques(tmp_path):
    base = critical_difference_diagram(RANKS, 1.9137, CLIQUES, tmp_path / "a.png", 40).read_bytes()
    other_cd = critical_difference_diagram(RANKS, 0.9, CLIQUES, tmp_path / "b.png", 40).read_bytes()
    no_cd = critical_difference_diagram(RANKS, None, CLIQUES, tmp_path / "c.png", 40).read_bytes()
    two = [["logistic_regression", "knn"], ["knn", "gaussian_naive_bayes"]]
    two_cliques = critical_difference_diagram(RANKS, 1.9137, two, tmp_path / "d.png", 40).read_bytes()
    singletons = critical_difference_diagram(RANKS, 1.9137, [[n] for n in RANKS], tmp_path / "e.png", 40)
    assert len({base, other_cd, no_cd, two_cliques, singletons.read_bytes()}) == 5
    # the figure grows by one bar row per clique of >= 2 learners, and shrinks without the CD bar
    assert _png_size(two_cliques)[1] > _png_size(base)[1] > _png_size(singletons.read_bytes())[1]
    assert _png_size(no_cd)[1] < _png_size(base)[1]


def test_cd_diagram_width_grows_with_learners(tmp_path):
    many = {f"m{i}": float(i) for i in range(1, 9)}
    w3, _ = _png_size(critical_difference_diagram(RANKS, 1.9, CLIQUES, tmp_path / "a.png", 40).read_bytes())
    w8, _ = _png_size(critical_difference_diagram(many, 3.0, [], tmp_path / "b.png", 40).read_bytes())
    assert w8 > w3 > 0


def test_cd_diagram_errors(tmp_path):
    with pytest.raises(ValueError, match="needs at least 2 learners, got 1"):
        critical_difference_diagram({"a": 1.0}, 1.0, [], tmp_path / "a.png", 40)
    with pytest.raises(ValueError, match=r"cliques name learners without an average rank: \['zzz'\]"):
        critical_difference_diagram(RANKS, 1.0, [["knn", "zzz"]], tmp_path / "a.png", 40)


def test_train_test_plot_deterministic_and_tolerates_missing_values(tmp_path):
    metrics = {
        "knn": {"train": {"accuracy": 0.99}, "test": {"accuracy": 0.95}},
        "logistic_regression": {"train": {"accuracy": 0.97}, "test": {}},
    }
    a = train_test_plot("iris", metrics, "accuracy", tmp_path / "a.png", 40).read_bytes()
    b = train_test_plot("iris", metrics, "accuracy", tmp_path / "b.png", 40).read_bytes()
    assert a == b and _png_size(a)[0] == 256
    with pytest.raises(ValueError, match="dataset 'iris' has no models to plot"):
        train_test_plot("iris", {}, "accuracy", tmp_path / "c.png", 40)
