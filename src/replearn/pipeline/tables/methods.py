"""The methods paragraph of a comparison: one sentence per analysis, each pointing to the JSON fields it states.

Every number a sentence prints is formatted from a field of the result (``fields``: dotted paths into the JSON,
``input.n_datasets``, ``across_datasets.friedman.pvalue``, ...), and the sentence cites exactly the works of the
procedure it describes (``cite``: keys of :mod:`replearn.stats.bibliography`); the BibTeX file of a comparison is
the union of those keys. ``tests/pipeline/test_compare_table.py`` resolves every field of every sentence and
checks that its value is what the sentence prints.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...stats.bibliography import references_of
from ...stats.registry import POSTHOC_CONFIG, label

__all__ = ["field", "fmt_p", "fmt_value", "methods", "procedures_used"]


def field(result: Mapping, path: str):
    """The value at a dotted ``path`` of ``result`` (list items by index)."""
    value = result
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def fmt_p(p) -> str:
    """A p-value as the paragraph prints it: 3 significant digits, "< 0.001" below."""
    p = float(p)
    return "< 0.001" if p < 0.001 else f"= {p:.3g}"


def fmt_value(x, digits: int = 3) -> str:
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, int):
        return str(x)
    return f"{float(x):.{digits}f}"


def _sentence(text: str, fields: list[str], cite: list[str] | None = None, latex: str | None = None) -> dict:
    return {"text": text, "latex": latex if latex is not None else _tex(text), "fields": fields, "cite": cite or []}


def _tex(text: str) -> str:
    """Plain sentence text as LaTeX (the symbols it uses, escaped)."""
    out = text
    for a, b in (
        ("\\", "\\textbackslash{}"),
        ("&", "\\&"),
        ("%", "\\%"),
        ("#", "\\#"),
        ("_", "\\_"),
        ("χ²_F", "$\\chi^2_F$"),
        ("α", "$\\alpha$"),
        ("±", "$\\pm$"),
        ("≤", "$\\le$"),
        ("≥", "$\\ge$"),
        ("< 0.001", "$<$ 0.001"),
        ("δ", "$\\delta$"),
        ("–", "--"),
        ("—", "---"),
        ("×", "$\\times$"),
    ):
        out = out.replace(a, b)
    return out


def _with_cites(s: dict) -> dict:
    if s["cite"]:
        s["latex"] = s["latex"].rstrip(".") + f"~\\cite{{{','.join(s['cite'])}}}."
    return s


def procedures_used(result: Mapping) -> list[str]:
    """The registry names of every procedure whose result the comparison reports."""
    names: list[str] = []
    across, pairs = result.get("across_datasets") or {}, result.get("across_pairs") or {}
    if across.get("ran"):
        names += ["friedman_nemenyi", "nemenyi"]
        ph = across.get("posthoc") or {}
        if ph.get("ran"):
            names.append(POSTHOC_CONFIG[ph["method_used"]] or "none")
    if pairs.get("ran"):
        names.append(pairs["test"])
        correction = (result.get("settings") or {}).get("correction")
        if correction and correction != "none":
            names.append(correction)
        if any(r.get("bayesian_signed_rank") for r in pairs.get("rows") or []):
            names.append("bayesian_signed_rank")
        names += ["rank_biserial", "cliffs_delta"]
    for entry in (result.get("per_dataset") or {}).values():
        for r in entry.get("cv") or []:
            if r.get("pvalue") is not None:
                names.append(r["test"])
        if entry.get("bayesian"):
            names.append("bayesian_correlated_ttest")
    out: list[str] = []
    for n in names:
        if n not in out:
            out.append(n)
    return out


def methods(result: Mapping) -> list[dict]:
    """The paragraph's sentences: ``{"text", "latex", "fields", "cite"}`` each (see the module docstring)."""
    inp, st, summ = result["input"], result["settings"], result["summary"]
    across, pairs = result["across_datasets"], result["across_pairs"]
    out = []
    direction = "higher" if inp["higher_is_better"] else "lower"
    reps = inp["replicates"]
    per = ""
    if reps != "none":
        counts = sorted(set(inp["n_replicates"].values()))
        n_rep = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
        per = f", each the mean of {n_rep} replicates"
    out.append(
        _sentence(
            f"We compared {inp['n_models']} models on {inp['n_datasets']} datasets by their {inp['metric']} "
            f"({direction} is better){per}.",
            ["input.n_models", "input.n_datasets", "input.metric", "input.higher_is_better"]
            + (["input.n_replicates"] if per else []),
        )
    )
    if summ["n_imputed"]:
        out.append(
            _sentence(
                f"{summ['n_imputed']} of the {inp['n_datasets'] * inp['n_models']} dataset–model means were missing: "
                "each took the worst rank on its dataset, and the pairwise tests over datasets left that dataset out "
                "for its pairs.",
                ["summary.n_imputed", "input.n_datasets", "input.n_models"],
            )
        )
    alpha = fmt_value(st["alpha"], 2) if st["alpha"] >= 0.01 else f"{st['alpha']:g}"
    if across.get("ran"):
        fr = across["friedman"]
        exact = ", exact" if fr["pvalue_method"] == "exact" else ""
        verb = "rejected" if across["significant"] else "did not reject"
        out.append(
            _with_cites(
                _sentence(
                    f"Friedman's test on the ranks {verb} the hypothesis that all models perform alike at α = {alpha} "
                    f"(χ²_F = {fr['statistic']:.2f}, {int(fr['df'])} degrees of freedom, "
                    f"p {fmt_p(fr['pvalue'])}{exact}).",
                    [
                        "across_datasets.significant",
                        "across_datasets.friedman.statistic",
                        "across_datasets.friedman.df",
                        "across_datasets.friedman.pvalue",
                        "settings.alpha",
                    ],
                    references_of(["friedman_nemenyi"]),
                )
            )
        )
        out.append(
            _with_cites(
                _sentence(
                    f"The Nemenyi critical difference of the average ranks is CD = {across['nemenyi']['cd']:.3f} at "
                    f"α = {alpha} (the critical-difference diagram).",
                    ["across_datasets.nemenyi.cd", "settings.alpha"],
                    references_of(["nemenyi"]),
                )
            )
        )
        ph = across.get("posthoc") or {}
        if ph.get("ran"):
            method = ph["method_used"]
            proc = label(method)
            why = (
                " (Bergmann–Hommel's enumeration is limited to 10 models)"
                if st["posthoc"] == "bergmann_hommel" and method == "shaffer"
                else ""
            )
            family = f"every model against {ph['control']}" if ph.get("control") is not None else "all pairs"
            out.append(
                _with_cites(
                    _sentence(
                        f"{family[0].upper() + family[1:]} were then compared on the average ranks with {proc}'s "
                        f"procedure{why}: {summ['posthoc_significant']} of {summ['posthoc_pairs']} comparisons are "
                        f"significant at α = {alpha}.",
                        ["summary.posthoc_significant", "summary.posthoc_pairs", "settings.alpha"],
                        references_of([POSTHOC_CONFIG[method] or "none"]),
                    )
                )
            )
        else:
            out.append(
                _sentence(
                    "As Friedman's test did not reject, no pair of models was compared on the ranks.",
                    ["across_datasets.posthoc.ran"],
                )
            )
    else:
        out.append(
            _sentence(
                f"No across-datasets test was run: {across.get('reason')}.",
                ["across_datasets.reason"],
            )
        )
    if pairs.get("ran"):
        correction = st["correction"]
        corr = " without a correction" if correction == "none" else f" with {label(correction)}'s correction"
        names = [pairs["test"]] + ([] if correction == "none" else [correction])
        out.append(
            _with_cites(
                _sentence(
                    f"Each pair was{' also' if across.get('ran') else ''} compared directly over the datasets by "
                    f"the {label(pairs['test'])}{corr}: "
                    f"{summ['across_pairs_significant']} of {summ['across_pairs_tested']} pairs differ significantly "
                    f"(with N = {len(pairs['datasets'])} datasets no p-value can fall below "
                    f"{pairs['smallest_possible_pvalue']:.3g}).",
                    [
                        "summary.across_pairs_significant",
                        "summary.across_pairs_tested",
                        "across_pairs.smallest_possible_pvalue",
                    ],
                    references_of(names),
                )
            )
        )
        if summ["bayesian_pairs"]:
            rope = (
                f"±{st['rope']:g}" if st["rope_scale"] == "absolute" else f"±{100 * st['rope']:g} % of the pair's mean"
            )
            out.append(
                _with_cites(
                    _sentence(
                        f"The Bayesian signed-rank test with a region of practical equivalence of {rope} finds "
                        f"{summ['bayesian_better']} of {summ['bayesian_pairs']} pairs practically different and "
                        f"{summ['bayesian_equivalent']} practically equivalent (a posterior probability of at least "
                        "1 − α, adjusted over the pairs like the p-values).",
                        [
                            "summary.bayesian_better",
                            "summary.bayesian_pairs",
                            "summary.bayesian_equivalent",
                            "settings.rope",
                        ],
                        references_of(["bayesian_signed_rank"]),
                    )
                )
            )
        elif pairs.get("bayesian_withheld"):
            out.append(
                _sentence(
                    f"The Bayesian signed-rank test was not run: {pairs['bayesian_withheld']}.",
                    ["across_pairs.bayesian_withheld"],
                )
            )
        out.append(
            _with_cites(
                _sentence(
                    "Effect sizes over the datasets are the matched-pairs rank-biserial correlation and Cliff's δ, "
                    "positive when the first model of a pair is better.",
                    ["across_pairs.effect_sizes"],
                    references_of(["rank_biserial", "cliffs_delta"]),
                )
            )
        )
    if summ["per_dataset_tests"]:
        tests = sorted(
            {
                r["test"]
                for e in result["per_dataset"].values()
                for r in e.get("cv") or []
                if r.get("pvalue") is not None
            }
        )
        what = {"seed": "independent runs", "repeat": "repeats of cross-validation", "fold": "cross-validation splits"}
        kind = next(iter(result["per_dataset"].values()))["replicates"]
        correction = st["correction"]
        corr = "" if correction == "none" else f" with {label(correction)}'s correction over the pairs"
        out.append(
            _with_cites(
                _sentence(
                    f"On each dataset, every pair of models was compared over its {what[kind]} by the "
                    f"{' and the '.join(label(t) for t in tests)}{corr}: {summ['per_dataset_significant']} of "
                    f"{summ['per_dataset_tests']} pair tests are significant, each a claim about that dataset only.",
                    ["summary.per_dataset_significant", "summary.per_dataset_tests"],
                    references_of(tests + ([] if correction == "none" else [correction])),
                )
            )
        )
        if summ["per_dataset_bayesian_pairs"]:
            rope = (
                f"±{st['rope']:g}" if st["rope_scale"] == "absolute" else f"±{100 * st['rope']:g} % of the pair's mean"
            )
            rho = "ρ = 0: independent replicates" if kind != "fold" else "the correlation of overlapping splits"
            out.append(
                _with_cites(
                    _sentence(
                        f"Beside each pair test, the Bayesian correlated t-test ({rho}) with a region of practical "
                        f"equivalence of {rope} finds {summ['per_dataset_bayesian_better']} of "
                        f"{summ['per_dataset_bayesian_pairs']} pairs practically different and "
                        f"{summ['per_dataset_bayesian_equivalent']} practically equivalent.",
                        [
                            "summary.per_dataset_bayesian_better",
                            "summary.per_dataset_bayesian_pairs",
                            "summary.per_dataset_bayesian_equivalent",
                            "settings.rope",
                        ],
                        references_of(["bayesian_correlated_ttest"]),
                    )
                )
            )
    return out
