"""Issue 38, "one vocabulary for valid values": a hyperparameter's valid values are declared once, in its class's
``_constraints`` (:mod:`replearn._constraints`), read by ``fit`` (``_validate_params``, first thing), by the
configuration check and by the units of the experiment families -- counted from the code so it cannot regress.

* a ``check_scalar`` call whose checked value reads ``self.<attribute>`` (``check_scalar(self.alpha, ...)``, or
  ``check_scalar(int(self.alpha), ...)``) anywhere in ``src/replearn`` is a hyperparameter checked a second way, in
  the older vocabulary. ``check_scalar`` stays for what a table cannot say: a value against the data (``n_neighbors
  <= n_samples``), and the arguments of plain functions and of classes that are not estimators (optimizers,
  schedules, environments), which have no ``_constraints``;
* every estimator class of the package (the registry's models and the others: deep, embeddings, structured,
  variational, graphical, adaptation, features ...) declares constraints only on ``__init__`` parameters, its
  defaults satisfy them, and its ``fit`` checks them before it reads its arguments.

Run ``python tests/test_constraint_vocabulary.py`` to print the calls the counter finds.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

import pytest

import replearn
from replearn._constraints import Boolean, Interval, IntSequence, Options, satisfies, violations
from replearn.base import BaseEstimator

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "replearn"
#: ceiling: lower it when the count falls, never raise it. 63 when the counter landed (issue 38): 60 constant bounds
#: on constructor parameters in the fit of deep/ (transformer, gan, flow, contrastive, ngram), embeddings/ (glove,
#: skipgram), structured/ (ssvm, perceptron, imitation), variational/mean_field_gmm.py, graphical/bayesian_network.py
#: and adaptation/ (easyadapt, pu), 2 in structured/_base.py (max_iter, shuffle of both sequence labellers) and 1 in
#: base.py (TaskMixin._check_task, which nothing called: the task models declare TASK_CONSTRAINT). All 63 were
#: constant bounds and moved into the classes' ``_constraints``; none was data-dependent, so none is left. A check
#: that has to compare a hyperparameter with the data reads it as a local value or raises its own error (e.g.
#: ``X has 3 samples, fewer than n_components=5``); if one ever needs ``check_scalar(self.<hp>, ...)``, list it in
#: DATA_DEPENDENT below (``"path:function:attribute": why``) rather than raising the ceiling.
MAX_SELF_CHECK_SCALAR = 0
DATA_DEPENDENT: dict[str, str] = {}
#: modules that are not importable without optional extras, or that run code on import; their classes are not models
SKIPPED_MODULES = ("replearn.pipeline", "replearn.services", "replearn.__main__", "replearn.cli")


def _is_check_scalar(node: ast.Call) -> bool:
    f = node.func
    return (isinstance(f, ast.Name) and f.id == "check_scalar") or (
        isinstance(f, ast.Attribute) and f.attr == "check_scalar"
    )


def _self_attribute(expr: ast.AST) -> str | None:
    """The ``<name>`` of the first ``self.<name>`` read in ``expr``, else None."""
    for n in ast.walk(expr):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
            return n.attr
    return None


def self_checks(source: str, rel: str) -> list[str]:
    """``path:line:function:attribute`` of every ``check_scalar`` call on a ``self.<attribute>`` in ``source``."""
    out = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.Call) and _is_check_scalar(child) and child.args:
                attr = _self_attribute(child.args[0])
                if attr is not None:
                    out.append(f"{rel}:{child.lineno}:{function}:{attr}")
            visit(child, name)

    visit(ast.parse(source), "<module>")
    return out


def self_check_scalar_calls() -> list[str]:
    out = []
    for path in sorted(SRC.rglob("*.py")):
        out += self_checks(path.read_text(), path.relative_to(SRC).as_posix())
    return out


def _key(call: str) -> str:
    rel, _, function, attr = call.split(":")
    return f"{rel}:{function}:{attr}"


def test_hyperparameters_are_not_checked_by_check_scalar():
    calls = self_check_scalar_calls()
    unexplained = [c for c in calls if _key(c) not in DATA_DEPENDENT]
    assert unexplained == [], "declare these in the class's _constraints (or list a data-dependent one with why)"
    assert len(calls) <= MAX_SELF_CHECK_SCALAR, calls
    assert set(DATA_DEPENDENT) <= {_key(c) for c in calls}, "a listed exception is gone: remove it, lower the ceiling"


def test_the_counter_sees_a_planted_call():
    planted = (
        "class Model(BaseEstimator):\n"
        "    def __init__(self, alpha=1.0, n_iter=5):\n"
        "        self.alpha, self.n_iter = alpha, n_iter\n"
        "    def fit(self, X):\n"
        "        check_scalar(self.alpha, 'alpha', numbers.Real, low=0.0)\n"
        "        validation.check_scalar(int(self.n_iter), 'n_iter', numbers.Integral, low=1)\n"
        "        check_scalar(len(X), 'n_samples', numbers.Integral, low=2)\n"  # the data: not counted
        "        return self\n"
        "def helper(k):\n"
        "    check_scalar(k, 'k', numbers.Integral, low=1)\n"  # a function's argument: not counted
    )
    assert self_checks(planted, "planted.py") == ["planted.py:5:fit:alpha", "planted.py:6:fit:n_iter"]


# -- every estimator class of the package ---------------------------------------------------------------------
def _estimator_classes() -> list[type]:
    for module in pkgutil.walk_packages(replearn.__path__, "replearn."):
        if not module.name.startswith(SKIPPED_MODULES):
            importlib.import_module(module.name)
    seen: set[type] = set()
    todo = [BaseEstimator]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen and sub.__module__.startswith("replearn."):
                seen.add(sub)
                todo.append(sub)
    return sorted(seen, key=lambda c: (c.__module__, c.__qualname__))


CLASSES = _estimator_classes()
DECLARING = [c for c in CLASSES if c._constraints]


def _id(cls: type) -> str:
    return f"{cls.__module__.removeprefix('replearn.')}.{cls.__qualname__}"


def test_the_classes_outside_the_registry_are_seen():
    names = {c.__name__ for c in DECLARING}
    assert {"GAN", "RealNVP", "SimCLR", "TransformerLM", "GloVe", "StructuredSVM", "MeanFieldGaussianMixture"} <= names
    assert len(DECLARING) >= 80


@pytest.mark.parametrize("cls", DECLARING, ids=_id)
def test_constraints_name_init_parameters_and_accept_the_defaults(cls):
    """tests/contract/test_constraints.py holds the registry's models to this; here every estimator class."""
    defaults = cls._param_defaults()
    assert set(cls._constraints) <= set(defaults), "constraint on an unknown hyperparameter"
    given = {hp: v for hp, v in defaults.items() if v is not inspect.Parameter.empty}
    assert violations(cls._constraints, given) == []


def _bad_value(spec):
    """A value ``spec`` refuses: below (above) an interval's bound, a string for a flag, an unknown option."""
    for c in spec if isinstance(spec, tuple) else (spec,):
        if isinstance(c, Interval):
            value = c.kind(c.lo - 1) if c.lo is not None else c.kind(c.hi + 1) if c.hi is not None else "x"
        elif isinstance(c, Boolean):
            value = "yes"
        elif isinstance(c, IntSequence):
            value = [c.lo - 1]
        elif isinstance(c, Options):
            value = "not-an-option"
        else:
            continue
        if not satisfies(spec, value):
            return value
    return object()


CHECKED_BY_FIT = [
    (cls, hp)
    for cls in DECLARING
    if not cls.__name__.startswith("_")
    and callable(getattr(cls, "fit", None))
    and all(v is not inspect.Parameter.empty for v in cls._param_defaults().values())
    for hp in cls._constraints
]


@pytest.mark.parametrize("cls, hp", CHECKED_BY_FIT, ids=[f"{_id(c)}.{hp}" for c, hp in CHECKED_BY_FIT])
def test_fit_checks_the_declared_table_before_reading_its_arguments(cls, hp):
    """Placeholders for every argument of ``fit``: only a check of the hyperparameters before anything reads them
    gives the table's message."""
    value = _bad_value(cls._constraints[hp])
    model = cls(**{hp: value})
    positional = [
        p
        for p in list(inspect.signature(cls.fit).parameters.values())[1:]
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    with pytest.raises((TypeError, ValueError)) as info:
        model.fit(*[object() for _ in positional])
    assert str(info.value).startswith(f"{hp} must"), str(info.value)


# -- the units of the experiment families that fit an estimator class -----------------------------------------
def _unit_models() -> dict:
    from replearn.deep.flow import RealNVP
    from replearn.deep.gan import GAN
    from replearn.deep.ngram import NGramLM
    from replearn.deep.transformer import TransformerLM
    from replearn.deep.vae import VAE
    from replearn.models.decomposition.factor_analysis import FactorAnalysis
    from replearn.models.decomposition.pca import PCA
    from replearn.models.perceptron.perceptron import MulticlassPerceptron
    from replearn.structured import DAgger, StructuredPerceptron, StructuredSVM

    return {
        "vae": VAE,
        "gan": GAN,
        "flow": RealNVP,
        "fa_density": FactorAnalysis,
        "ppca": PCA,
        "transformer_lm": TransformerLM,
        "ngram_lm": NGramLM,
        "structured_perceptron": StructuredPerceptron,
        "structured_svm": StructuredSVM,
        "token_perceptron": MulticlassPerceptron,
        "dagger": DAgger,
    }


#: a hyperparameter a unit passes to its model under the same name but restricts further, and why
UNIT_OWN = {
    ("fa_density", "n_components"): "an integer latent dimension; FactorAnalysis also takes None (no reduction)",
    ("ppca", "n_components"): "an integer latent dimension; PCA also takes None or a fraction of the variance",
}


@pytest.mark.parametrize("unit_name", sorted(_unit_models()))
def test_a_unit_reads_its_models_own_table(unit_name):
    """A unit passing ``hp`` to an estimator uses that estimator's declared constraint (the same object: declared
    once); only what the unit alone has (its own hyperparameters, widths the model does not declare) is its own."""
    from replearn.pipeline import units

    unit, cls = units.units()[unit_name][1], _unit_models()[unit_name]
    shared = set(unit.constraints) & set(cls._constraints)
    assert shared, unit_name
    assert [hp for hp in sorted(shared) if unit.constraints[hp] is not cls._constraints[hp]] == [
        hp for (u, hp) in sorted(UNIT_OWN) if u == unit_name
    ]
    assert violations(dict(unit.constraints), unit.defaults) == []  # the unit's defaults still pass


def test_every_unit_that_fits_an_estimator_class_is_held_to_its_table():
    """The units whose run builds one of the package's estimator classes (``Name(`` of a class in CLASSES, or
    ``create("<registered name>"``) are those of _unit_models; the others compute with functions."""
    names = {c.__name__ for c in CLASSES}
    found = set()
    for path in sorted((SRC / "pipeline" / "families").glob("*/units.py")):
        tree = ast.parse(path.read_text())
        runs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        builds = {
            name
            for name, fn in runs.items()
            for n in ast.walk(fn)
            if isinstance(n, ast.Call)
            and (
                (isinstance(n.func, ast.Name) and n.func.id in names)
                or (isinstance(n.func, ast.Name) and n.func.id == "create")
            )
        }
        for call in ast.walk(tree):  # Unit("name", "summary", run, ...) or Unit(name=..., run=...)
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "Unit"):
                continue
            kw = {k.arg: k.value for k in call.keywords}
            name, run = (call.args[0] if call.args else kw["name"]), (call.args[2] if len(call.args) > 2 else kw["run"])
            if isinstance(run, ast.Name) and run.id in builds and isinstance(name, ast.Constant):
                found.add(name.value)
    assert found == set(_unit_models())


if __name__ == "__main__":
    found = self_check_scalar_calls()
    print(f"check_scalar on self.<attribute>: {len(found)} (ceiling {MAX_SELF_CHECK_SCALAR})")
    for call in found:
        print("  " + call + ("  -- " + DATA_DEPENDENT[_key(call)] if _key(call) in DATA_DEPENDENT else ""))
    sys.exit(0)
