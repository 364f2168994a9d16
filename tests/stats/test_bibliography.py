"""The bibliography of the statistical procedures: one BibTeX entry per work, named by the registry."""

from __future__ import annotations

import re

import pytest

from replearn.stats import bibliography as bib
from replearn.stats.registry import POSTHOC_CONFIG, REGISTRY


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_cited_procedure_names_the_works_of_its_citation(name):
    proc = REGISTRY[name]
    if not proc.citation:
        assert proc.references == ()
        return
    assert proc.references, f"{name} prints a citation but names no bibliography entry"
    years = set(re.findall(r"\b(1[89]\d\d|20\d\d)\b", proc.citation))
    for key in proc.references:
        assert key in bib.ENTRIES, key
        who, year = bib.short_citation(key).rsplit(" ", 1)
        surname = who.split(" ")[0]
        assert surname in proc.citation and year in proc.citation, (name, key, proc.citation)
    assert years == {bib.ENTRIES[k][1]["year"] for k in proc.references}, (name, proc.citation)


def test_the_bibtex_file_is_well_formed_deterministic_and_holds_each_key_once():
    keys = ["holm1979", "demsar2006", "holm1979", "garcia2008"]
    text = bib.bibtex(keys)
    assert text == bib.bibtex(reversed(keys))
    assert re.findall(r"^@(\w+)\{(\w+),$", text, flags=re.M) == [
        ("article", "demsar2006"),
        ("article", "garcia2008"),
        ("article", "holm1979"),
    ]
    for entry in text.split("\n\n"):
        assert entry.count("{") == entry.count("}")
        assert re.search(r"^  year = \{\d{4}\},?$", entry, flags=re.M)
    with pytest.raises(KeyError, match="no bibliography entry"):
        bib.entry("nobody2099")


def test_references_of_reads_registry_and_post_hoc_config_names():
    assert bib.references_of(["friedman_nemenyi", "shaffer", "holm"]) == [
        "friedman1937",
        "demsar2006",
        "shaffer1986",
        "garcia2008",
        "holm1979",
    ]
    for config_name, registered in POSTHOC_CONFIG.items():  # every post-hoc the config can name has its works
        assert registered is None or bib.references_of([config_name]) == list(REGISTRY[registered].references)
    with pytest.raises(KeyError, match="unknown statistical procedure"):
        bib.references_of(["t_test_of_my_own"])
    assert bib.short_citation("benavoli2017") == "Benavoli et al. 2017"
    assert bib.short_citation("garcia2008") == "García & Herrera 2008"
