"""compare.py dispatches every role through the stats registry: a test registered for a role runs under its own
name when the configuration names it (the config's choices are the registry's names), never replaced by another."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from replearn import stats
from replearn.pipeline import compare, records
from replearn.stats import registry

CFG = {"alpha": 0.05, "correction": "holm", "pairwise_test": "auto", "bayesian": False}


def _register(monkeypatch, name: str, role: str, func) -> list:
    calls: list = []

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return func(*args, **kwargs)

    monkeypatch.setattr(stats, f"_spy_{name}", spy, raising=False)
    proc = dataclasses.replace(registry.get(registry.names(role)[0]), name=name, function=f"_spy_{name}")
    monkeypatch.setitem(registry.REGISTRY, name, proc)
    return calls


def test_a_new_across_pairs_test_runs_under_its_name(monkeypatch):
    calls = _register(monkeypatch, "my_pairs", "across_pairs", stats.wilcoxon)
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(6, 2)) + np.array([0.0, 0.5])
    out = compare.across_pairs(
        scores,
        [f"d{i}" for i in range(6)],
        ["a", "b"],
        metric="accuracy",
        cfg={**CFG, "across_pairs_test": "my_pairs"},
    )
    assert calls, "the registered test was not called"
    assert out["ran"] and out["rows"][0]["pvalue"] == pytest.approx(stats.wilcoxon(scores[:, 0], scores[:, 1]).pvalue)


def test_a_new_test_set_metric_test_runs_under_its_name(monkeypatch):
    calls = _register(monkeypatch, "my_resampling", "test_set_metric", stats.permutation_test)
    y = [0, 1] * 20
    models = {
        "a": records.TrainedModel(converged=True, n_iter=1, pred=y),
        "b": records.TrainedModel(converged=True, n_iter=1, pred=[1 - v for v in y[:10]] + y[10:]),
    }
    train = records.TrainResult(dataset="d", task="classification", y_true=y, models=models)
    out = compare.compare_test_set_metric(
        train, "accuracy", {**CFG, "test_set_metric_test": "my_resampling", "resamples": 199}
    )
    assert calls and out["ran"] and out["test"] == "my_resampling"


def test_a_test_of_another_role_is_refused():
    with pytest.raises(ValueError, match="across_pairs procedure, not a test_set_metric"):
        compare.role_function("test_set_metric", "wilcoxon")
