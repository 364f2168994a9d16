"""The generated pages of the documentation site: one algorithm page per model family and one API page per family.

Run by the MkDocs hook (docs/hooks.py) at every build, so the pages follow the model registry: a model added to
``replearn.models`` appears on its family's page with its class, tasks and hyperparameters read from the code,
and with its math from ``docs/algorithms/math.yaml`` (LaTeX, keyed by registry name) -- a registry model without
an entry there fails the build (``MissingMath``) and ``tests/test_docs_math.py``. The same module also lists the
experiment-family units (planners, agents, structured and generative learners) with their text sections.

``python docs/gen_pages.py OUT`` writes the pages into OUT (to look at them without building the site).
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import yaml

DOCS = Path(__file__).resolve().parent
MATH_FILE = DOCS / "algorithms" / "math.yaml"

#: family sub-package of replearn.models -> (page title, one-line scope)
FAMILY_TITLES: dict[str, tuple[str, str]] = {
    "linear": ("Linear models", "least squares, ridge, lasso, logistic and softmax regression, GLMs, LWR"),
    "naive_bayes": ("Naive Bayes", "the event models of CS229 §4.2 and CIML §9"),
    "generative": ("Gaussian discriminant analysis", "CS229 §4.1"),
    "perceptron": ("Perceptrons", "CIML ch. 4 and §17.1"),
    "reductions": ("Reductions", "multiclass, imbalanced, ranking: CIML ch. 6"),
    "neighbors": ("Nearest neighbours", "CIML ch. 3"),
    "kernel": ("Kernel machines", "kernel ridge, kernel perceptron, kernel LMS, RBF networks"),
    "svm": ("Support vector machines", "SMO, dual coordinate descent, Pegasos"),
    "trees": ("Decision trees", "CIML ch. 1"),
    "ensemble": ("Ensembles", "bagging, random forests, AdaBoost, voting"),
    "cluster": ("Clustering", "k-means and kernel k-means"),
    "mixture": ("Mixture models", "Gaussian mixtures by EM"),
    "decomposition": ("Decompositions", "PCA, kernel PCA, factor analysis, ICA"),
    "factorization": ("Matrix factorization", "recommender systems"),
    "neural": ("Neural networks", "multilayer perceptrons and convolutional networks"),
}

#: keys of a math.yaml entry: required ones, then optional ones
REQUIRED_KEYS = ("title", "section", "objective", "update")
OPTIONAL_KEYS = ("objective_label", "update_label", "errata", "notes")


class MissingMath(RuntimeError):
    """A registry model has no (complete) entry in docs/algorithms/math.yaml."""


def load_math(path: Path = MATH_FILE) -> dict[str, dict]:
    with open(path, encoding="utf-8") as fh:
        return yaml.safe_load(fh) or {}


def registry() -> dict[str, dict]:
    """Every built-in registry model: name -> family, class, module, tasks, hyperparameter defaults."""
    from replearn import models
    from replearn.cli import TASKS

    out = {}
    for name in models.builtin_names():
        cls = models.get_class(name)
        family = cls.__module__.split(".")[2]
        out[name] = {
            "family": family,
            "cls": cls,
            "path": f"{cls.__module__}.{cls.__qualname__}",
            "tasks": [t for t in TASKS if models.supports(name, t)],
            "kind": _kind(cls),
            "hyperparameters": models.hyperparameters(name),
        }
    return out


def _kind(cls) -> str:
    kind = getattr(cls, "_estimator_type", None)
    if isinstance(kind, property):
        kind = cls()._estimator_type
    return str(kind)


def check_math(math: dict[str, dict], names) -> list[str]:
    """Why ``math`` does not cover ``names`` (missing entries or keys, unknown keys, entries of no model)."""
    problems = []
    for name in names:
        entry = math.get(name)
        if not isinstance(entry, dict):
            problems.append(f"{name}: no entry in {MATH_FILE.relative_to(DOCS.parent)}")
            continue
        for key in REQUIRED_KEYS:
            if not entry.get(key):
                problems.append(f"{name}: no {key!r}")
        unknown = set(entry) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS)
        if unknown:
            problems.append(f"{name}: unknown keys {sorted(unknown)}")
    problems += [f"{name}: an entry for a model the registry does not have" for name in set(math) - set(names)]
    return problems


def _summary(cls) -> str:
    doc = inspect.getdoc(cls) or ""
    first = doc.split("\n\n", 1)[0]
    return " ".join(line.strip() for line in first.splitlines())


def _display(tex) -> list[str]:
    """A formula (or a list of {label, tex}) as display math blocks."""
    items = tex if isinstance(tex, list) else [{"tex": tex}]
    lines = []
    for item in items:
        if item.get("label"):
            lines += [f"*{item['label']}*", ""]
        lines += ["$$", item["tex"].strip(), "$$", ""]
    return lines


def _format_value(value) -> str:
    return f"`{value!r}`"


def model_section(name: str, info: dict, entry: dict) -> str:
    lines = [f"## {entry['title']} (`{name}`) {{#{name}}}", ""]
    lines += [
        f"**Class** [`{info['cls'].__name__}`][{info['path']}] · **kind** {info['kind']}"
        + (f" · **tasks** {', '.join(info['tasks'])}" if info["tasks"] else ""),
        "",
        f"**From the texts:** {entry['section'].strip()}",
        "",
        f"> {_summary(info['cls'])}",
        "",
    ]
    lines += [f"**{entry.get('objective_label', 'Objective')}**", ""] + _display(entry["objective"])
    lines += [f"**{entry.get('update_label', 'Update rule')}**", ""] + _display(entry["update"])
    if entry.get("notes"):
        lines += [entry["notes"].strip(), ""]
    errata = entry.get("errata") or []
    if errata:
        lines += ["**Errata corrected**", ""] + [f"- {e.strip()}" for e in errata] + [""]
    hps = info["hyperparameters"]
    if hps:
        lines += [
            "**Hyperparameters** (registry defaults): "
            + ", ".join(f"`{k}`={_format_value(v)}" for k, v in hps.items()),
            "",
        ]
    return "\n".join(lines)


def algorithm_pages(math: dict[str, dict] | None = None) -> dict[str, str]:
    """docs path -> Markdown of the generated algorithm pages (algorithms/<family>.md and algorithms/index.md)."""
    math = load_math() if math is None else math
    reg = registry()
    problems = check_math(math, reg)
    if problems:
        raise MissingMath("docs/algorithms/math.yaml does not cover the registry:\n  " + "\n  ".join(problems))
    pages: dict[str, str] = {}
    by_family: dict[str, list[str]] = {}
    for name, info in reg.items():
        by_family.setdefault(info["family"], []).append(name)
    for family, (title, scope) in FAMILY_TITLES.items():
        names = by_family.pop(family, [])
        if not names:
            continue
        body = [
            f"# {title}",
            "",
            f"*{scope}.* Generated from the model registry (`replearn.models`) and `docs/algorithms/math.yaml`: "
            "each model's objective and update rule as the texts write them (with their errata corrected), the "
            "section of the text it comes from, and its hyperparameters' defaults read from the code. Tests, "
            "reference checks and conventions against scikit-learn: [the reference table](../algorithms.md).",
            "",
        ]
        order = list(math)  # the order of math.yaml: the family's models from the simplest on
        body += [model_section(name, reg[name], math[name]) for name in sorted(names, key=order.index)]
        pages[f"algorithms/{family}.md"] = "\n".join(body)
    if by_family:  # a family sub-package this page does not know yet
        raise MissingMath(f"no page title for model families {sorted(by_family)}: add them to FAMILY_TITLES")
    pages["algorithms/index.md"] = _index(reg, math)
    pages["algorithms/units.md"] = _units_page()
    return pages


def _index(reg: dict, math: dict) -> str:
    lines = [
        "# Algorithms",
        "",
        f"The {len(reg)} models of the registry (`replearn.models.create(name, **hyperparameters)`), each with its "
        "math rendered: the objective it minimizes (or the rule it predicts by), its update rule or closed form, "
        "the section of the course text it comes from and the errata of the text that the code does not copy. "
        "Planners, agents and the other units of the experiment families are on "
        "[their own page](units.md). `python -m replearn models --registry` lists the same models with every "
        "hyperparameter; the [reference table](../algorithms.md) gives each method's tests and its conventions "
        "against scikit-learn.",
        "",
        "| model | family | kind | from the texts |",
        "|---|---|---|---|",
    ]
    for name, info in sorted(reg.items()):
        section = " ".join(math[name]["section"].split()).split("\\(")[0].rstrip(" ,;(")
        if len(section) > 90:
            section = section[:87].rsplit(" ", 1)[0] + " …"
        title = FAMILY_TITLES[info["family"]][0]
        lines.append(f"| [`{name}`]({info['family']}.md#{name}) | {title} | {info['kind']} | {section} |")
    return "\n".join(lines) + "\n"


def _units_page() -> str:
    from replearn.pipeline.units import units

    lines = [
        "# Experiment-family units",
        "",
        "Units are what the experiment families compare instead of estimators: planners and agents on "
        "environments (`rl`), sequence labellers (`structured`), densities (`generative`), language models "
        "(`sequence`) and learning-theory simulations (`theory`). A dataset config with `source: <family>` names "
        "a problem; a models config whose `name` is a unit runs it (docs: [architecture](../architecture.md)).",
        "",
        "| unit | family | from the texts | hyperparameters (defaults) |",
        "|---|---|---|---|",
    ]
    for name, (family, unit) in sorted(units().items()):
        hps = ", ".join(f"`{k}={v!r}`" for k, v in dict(unit.defaults).items()) or "—"
        lines.append(f"| `{name}` | {family} | {unit.section} | {hps} |")
    return "\n".join(lines) + "\n"


def api_pages() -> dict[str, str]:
    """docs path -> Markdown of the generated API pages: api/models-<family>.md, one mkdocstrings block per class."""
    reg = registry()
    pages: dict[str, str] = {}
    for family, (title, scope) in FAMILY_TITLES.items():
        paths = sorted({info["path"] for info in reg.values() if info["family"] == family}, key=str.lower)
        if not paths:
            continue
        body = [
            f"# {title}: API",
            "",
            f"`replearn.models.{family}` — {scope}. The math of each model: [algorithms](../algorithms/{family}.md).",
            "",
        ]
        for path in paths:
            body += [f"::: {path}", "    options:", "      members: [fit, predict, predict_proba, transform]", ""]
        pages[f"api/models-{family}.md"] = "\n".join(body)
    return pages


def families() -> list[str]:
    return list(FAMILY_TITLES)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python docs/gen_pages.py OUT   (writes the generated pages into the folder OUT)", file=sys.stderr)
        return 2
    out = Path(argv[0])
    for rel, text in {**algorithm_pages(), **api_pages()}.items():
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(target)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
