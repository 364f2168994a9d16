"""Every preset runs, reproduces every published number with its default settings, and is deterministic.

The runs come from the session cache of conftest.py (:func:`preset_run`): the default run of each preset is
shared with test_catalogue and test_page, its quick run with test_planted_errors' reference run; the
determinism check adds one quick run per preset and the seed check one per synthetic preset.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replearn.reproductions import EXPERIMENTS, run_experiment

#: presets whose curves come from seeded random data (the others are the texts' fixed inputs)
SYNTHETIC = (
    "bias_variance",
    "ciml_figures",
    "ciml_plots",
    "cs229_control",
    "cs229_examples",
    "cs229_figures",
    "cs229_plots",
    "double_descent",
    "learning_curves",
    "perceptron_epochs",
)


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_record_reproduces_with_the_default_settings(name, preset_run):
    result = preset_run(name)
    assert result.preset == name and result.records
    failed = [r.to_dict() for r in result.records if not r.reproduced]
    assert not failed, failed
    for r in result.records:
        assert r.preset == name and r.source and r.quantity and r.example
        assert r.id.startswith(f"{name}.")
    assert len({r.id for r in result.records}) == len(result.records)


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_results_carry_curves_tables_and_notes_and_serialize(name, preset_run):
    result = preset_run(name)
    assert result.notes and ("§" in result.notes or "Table" in result.notes or "(seed 00" in result.notes)
    assert result.curves and all(isinstance(c, dict) and c for c in result.curves.values())
    for name_, curve in result.curves.items():
        if "x" in curve:  # a plotted series: some series has one value per x
            assert any(len(v) == len(curve["x"]) for k, v in curve.items() if k != "x"), name_
    json.dumps(result.to_dict(), allow_nan=False)


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_runs_are_deterministic_for_a_seed(name, data_dir, preset_run):
    first = preset_run(name, quick=True).to_dict()
    second = run_experiment(name, data_dir, seed=0, quick=True).to_dict()
    assert json.dumps(first) == json.dumps(second)


@pytest.mark.parametrize("name", SYNTHETIC)
def test_the_seed_drives_the_synthetic_data(name, data_dir, preset_run):
    a = preset_run(name, quick=True).curves
    b = run_experiment(name, data_dir, seed=1, quick=True).curves
    assert json.dumps(a) != json.dumps(b)


def test_double_descent_curves_have_the_text_shape(preset_run):
    """Fig. 8.11: the min-norm peak dwarfs its neighbours, and tuned ridge stays below min-norm at n = d."""
    curve = preset_run("double_descent").curves["test_error_vs_n"]
    at_d = curve["x"].index(500)
    assert curve["min_norm"][at_d] > 5 * max(curve["min_norm"][at_d - 1], curve["min_norm"][at_d + 1])
    assert curve["ridge"][at_d] < curve["min_norm"][at_d]
    assert all(r <= m + 1e-9 for r, m in zip(curve["ridge"], curve["min_norm"]))


def test_model_wise_double_descent_has_the_text_shape(preset_run):
    """Fig. 8.10: the peak at p = n dwarfs its neighbours and the overparameterized end is back below p = n/4's."""
    curve = preset_run("cs229_figures").curves["model_wise_double_descent"]
    at_n = curve["x"].index(200)
    assert curve["test_mse"][at_n] > 5 * max(curve["test_mse"][at_n - 1], curve["test_mse"][at_n + 1])
    assert curve["test_mse"][-1] < curve["test_mse"][curve["x"].index(50)]


def test_unknown_preset_is_rejected(data_dir):
    with pytest.raises(KeyError, match="available"):
        run_experiment("no_such_preset", data_dir, seed=0)


def test_the_package_never_reads_the_shared_folder():
    src = Path(__file__).resolve().parents[2] / "src" / "replearn" / "reproductions"
    for path in src.glob("*.py"):
        assert "../shared" not in path.read_text(encoding="utf-8") and "/work/" not in path.read_text(encoding="utf-8")


def test_presets_name_exactly_the_registered_modules_and_naming_them_imports_none():
    """``PRESETS`` is the one list of preset modules: each registers itself under its own name, every module of the
    package that registers a preset is listed, and the configuration check reads the names without importing any."""
    import subprocess
    import sys

    from replearn import reproductions

    package = Path(reproductions.__file__).parent
    registering = sorted(p.stem for p in package.glob("*.py") if "@register(PRESET)" in p.read_text(encoding="utf-8"))
    assert list(reproductions.PRESETS) == registering == sorted(EXPERIMENTS)
    code = (
        "import sys\nfrom replearn.pipeline.reproduce import experiments\nnames = experiments()\n"
        "assert not [m for m in sys.modules if m.startswith('replearn.reproductions.') and "
        "m.split('.')[-1] in names], 'a preset module was imported'\nprint(len(names))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert res.returncode == 0 and res.stdout.strip() == str(len(registering) + 1), res.stderr


def _resolve(name: str):
    """The object a ``measured_by`` name denotes: ``replearn.models:<registry name>`` or a dotted public path."""
    import importlib

    from replearn import models

    if name.startswith("replearn.models:"):
        model = name.split(":", 1)[1]
        assert model in models.available(), f"{name}: no such registry model"
        return models.create(model)
    parts = name.split(".")
    assert parts[0] == "replearn" and not any(p.startswith("_") for p in parts), f"{name}: not a public replearn name"
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise AssertionError(f"{name}: cannot be imported")


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_every_measured_value_names_the_public_replearn_api_that_measured_it(name, preset_run):
    """Issue 40: a record is measured through replearn's public API (each name resolves to a public function,
    class or registry model) or is labelled an arithmetic check of the text, which names none."""
    for r in preset_run(name).records:
        if r.provenance == "arithmetic":
            assert not r.measured_by and "arithmetic check of the text" in r.source, r.id
            continue
        assert r.measured_by, r.id
        for by in r.measured_by:
            assert _resolve(by) is not None, (r.id, by)
        if r.provenance == "derived":
            assert r.derived_from, r.id
        if r.provenance == "erratum":
            assert r.erratum is not None and r.rejects_erratum and "erratum" in r.source.lower(), r.id
