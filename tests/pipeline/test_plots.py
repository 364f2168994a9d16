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


def test_value_axis_is_cut_for_scores_near_one_and_starts_at_zero_otherwise():
    from replearn.pipeline.report.plots import value_axis_range

    low, high, cut = value_axis_range([0.93, 1.0, 0.9667, float("nan"), None])
    assert cut and low == pytest.approx(0.8) and 1.0 < high < 1.1
    assert value_axis_range([0.2, 0.9])[:1] == (0.0,) and not value_axis_range([0.2, 0.9])[2]
    low, _, cut = value_axis_range([-0.3, 0.8])  # negative values (an R^2): the axis holds 0 and them
    assert not cut and low < -0.3
    assert value_axis_range([0.0, 0.0]) == (0.0, 0.18, False)
    assert value_axis_range([]) == (0.0, 1.0, False)
    low, _, cut = value_axis_range([1.0, 1.0])  # equal perfect scores are not blown up to fill the axis
    assert cut and 0.9 <= low < 1.0


def _bar_lengths(png: bytes, color: str) -> list[int]:
    """Pixel length of each horizontal bar of ``color``, top to bottom (the short legend patch left out)."""
    import io

    import matplotlib.image
    import numpy as np

    img = matplotlib.image.imread(io.BytesIO(png), format="png")[..., :3]
    rgb = np.array([int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    rows = (np.abs(img - rgb).max(axis=2) < 0.02).sum(axis=1)
    lengths, current = [], 0
    for n in rows:  # consecutive rows with pixels of the colour form one bar
        if n:
            current = max(current, int(n))
        elif current:
            lengths.append(current)
            current = 0
    return [n for n in lengths if n >= 40]


def test_train_test_bars_near_one_show_their_differences(tmp_path):
    from replearn.pipeline.report.plots import _TEST_COLOR

    metrics = {"a": {"test": {"accuracy": 0.9}}, "b": {"test": {"accuracy": 1.0}}}
    png = train_test_plot("iris", metrics, "accuracy", tmp_path / "a.png", 100).read_bytes()
    a, b = _bar_lengths(png, _TEST_COLOR)[:2]
    # on an axis from 0 the bars would be 0.9 : 1.0; cut at 0.8 (and labelled so) they are 0.1 : 0.2
    assert a / b == pytest.approx(0.5, abs=0.05)
    spread = {"a": {"test": {"accuracy": 0.2}}, "b": {"test": {"accuracy": 1.0}}}
    png = train_test_plot("iris", spread, "accuracy", tmp_path / "b.png", 100).read_bytes()
    a, b = _bar_lengths(png, _TEST_COLOR)[:2]
    assert a / b == pytest.approx(0.2, abs=0.03)  # far from 1: from 0, lengths in proportion to the values


def test_plots_default_to_a_legible_resolution(tmp_path, cv):
    from replearn.pipeline.report.plots import DEFAULT_DPI

    assert DEFAULT_DPI >= 100
    w, _ = _png_size(score_distribution_plot("iris", cv, "accuracy", tmp_path / "a.png").read_bytes())
    assert w == round(6.4 * DEFAULT_DPI)
