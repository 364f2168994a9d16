"""Stage start-up: importing what a stage script imports must not pull in the heavy optional modules.

scipy.stats (~0.5 s), matplotlib, mlflow and numba are imported inside the functions that use them
(replearn.evaluation.*, replearn.stats.*, the compiled kernels of replearn._jit), so a stage that never
tests, plots, tracks or compiles anything does not pay for them. Checked by module presence in a fresh
interpreter, never by timing.
"""

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
STAGES = sorted((ROOT / "stages").glob("*.py"))
HEAVY = ("scipy.stats", "matplotlib", "mlflow", "numba")
#: a stage may import what its own work needs: the report stage draws its figures with matplotlib
ALLOWED = {"report": {"matplotlib"}}


def replearn_imports(script: Path) -> list[str]:
    """The replearn modules a stage script imports (``from a.b import c`` gives ``a.b`` and ``a.b.c``)."""
    mods = []
    for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "replearn":
            mods.append(node.module)
            mods += [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            mods += [alias.name for alias in node.names if alias.name.split(".")[0] == "replearn"]
    return mods


def loaded_after_importing(modules: list[str]) -> list[str]:
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ModuleNotFoundError as exc:\n"
        "        if exc.name != name:  # `from pkg import function` names a function, not a module\n"
        "            raise\n"
        f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return out.stdout.split()


def test_every_stage_is_checked():
    assert len(STAGES) >= 5


@pytest.mark.parametrize("script", STAGES, ids=lambda p: p.stem)
def test_stage_imports_do_not_load_heavy_modules(script):
    modules = replearn_imports(script)
    assert modules, f"{script.name} imports nothing from replearn"
    loaded = set(loaded_after_importing(modules)) - ALLOWED.get(script.stem, set())
    assert not loaded, f"importing what stages/{script.name} imports loads {sorted(loaded)}"


def test_importing_the_algorithms_loads_none_of_them():
    modules = [
        "replearn",
        "replearn.models",
        "replearn.evaluation",
        "replearn.stats",
        "replearn.optim",
        "replearn.models.perceptron.perceptron",
        "replearn.models.svm.linear_svm",
        "replearn.models.linear.linear_classifier",
        "replearn.models.decomposition.ica",
    ]
    assert loaded_after_importing(modules) == []


#: work that the small stages do, and the modules it must not import (each costs every stage process its import
#: time: joblib ~70 ms with asyncio and psutil, scipy.sparse ~30 ms, scipy.optimize ~0.1 s)
#: (scipy itself imports importlib.metadata, through numpy.testing, so that one is not checked here)
LIGHT_PATHS = """
import sys
import numpy as np
from replearn.validation import check_array
from replearn.evaluation.crossval import ModelSpec, cross_validate
from replearn.evaluation.splits import make_splits
import replearn.theory, replearn.models
rng = np.random.default_rng(0)
X = check_array(rng.normal(size=(40, 3)))
y = (X[:, 0] > 0).astype(int)
splits = make_splits("kfold", y, folds=2, repeats=1, seed=0)
res = cross_validate(X, y, splits, [ModelSpec("lr", "logistic_regression", {})], task="classification",
                     metrics=["accuracy"], progress=False)
assert len(res["models"]["lr"]["scores"]["accuracy"]) == 2
replearn.models.get_class("logistic_regression")
print(" ".join(m for m in ("joblib", "tqdm", "scipy.sparse", "scipy.optimize")
               if m in sys.modules))
"""


def test_serial_cross_validation_and_dense_checks_import_no_pool_sparse_or_optimizer():
    out = subprocess.run([sys.executable, "-c", LIGHT_PATHS], capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == []


def test_sparse_input_is_still_recognised_once_scipy_sparse_is_imported():
    import scipy.sparse as sp

    from replearn.exceptions import SparseInputError
    from replearn.validation import check_array, issparse

    X = sp.csr_array(np.eye(3))
    assert issparse(X) and not issparse(np.eye(3))
    with pytest.raises(SparseInputError, match="toarray"):
        check_array(X)
    assert issparse(check_array(X, accept_sparse=True))
