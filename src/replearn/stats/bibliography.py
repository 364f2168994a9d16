"""The bibliography of the statistical procedures: one BibTeX entry per work, the one place they are written.

Every procedure of :mod:`replearn.stats.registry` names the works it rests on by key (``Procedure.references``);
its ``citation`` is the short form the report prints ("Friedman 1937; Demšar 2006 §3.2.2"), and a test checks that
the two name the same works. ``replearn compare`` writes the BibTeX file of exactly the procedures a comparison
used (:func:`bibtex` of :func:`references_of` those names), and its methods paragraph cites the same keys.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ENTRIES", "bibtex", "entry", "references_of", "short_citation"]

#: key -> (entry type, fields); field values are BibTeX-ready (braces protect capitals and accented letters)
ENTRIES: dict[str, tuple[str, dict[str, str]]] = {
    "alpaydin1999": (
        "article",
        {
            "author": "Alpayd{\\i}n, Ethem",
            "title": "Combined $5 \\times 2$ cv {F} Test for Comparing Supervised Classification Learning Algorithms",
            "journal": "Neural Computation",
            "year": "1999",
            "volume": "11",
            "number": "8",
            "pages": "1885--1892",
            "doi": "10.1162/089976699300016007",
        },
    ),
    "benavoli2014": (
        "inproceedings",
        {
            "author": "Benavoli, Alessio and Corani, Giorgio and Mangili, Francesca and Zaffalon, Marco and "
            "Ruggeri, Fabrizio",
            "title": "A {B}ayesian {W}ilcoxon Signed-Rank Test Based on the {D}irichlet Process",
            "booktitle": "Proceedings of the 31st International Conference on Machine Learning",
            "series": "Proceedings of Machine Learning Research",
            "volume": "32",
            "pages": "1026--1034",
            "year": "2014",
        },
    ),
    "benavoli2017": (
        "article",
        {
            "author": "Benavoli, Alessio and Corani, Giorgio and Dem{\\v{s}}ar, Janez and Zaffalon, Marco",
            "title": "Time for a Change: a Tutorial for Comparing Multiple Classifiers Through {B}ayesian Analysis",
            "journal": "Journal of Machine Learning Research",
            "year": "2017",
            "volume": "18",
            "number": "77",
            "pages": "1--36",
        },
    ),
    "benjamini1995": (
        "article",
        {
            "author": "Benjamini, Yoav and Hochberg, Yosef",
            "title": "Controlling the False Discovery Rate: a Practical and Powerful Approach to Multiple Testing",
            "journal": "Journal of the Royal Statistical Society: Series B (Methodological)",
            "year": "1995",
            "volume": "57",
            "number": "1",
            "pages": "289--300",
            "doi": "10.1111/j.2517-6161.1995.tb02031.x",
        },
    ),
    "bergkirkpatrick2012": (
        "inproceedings",
        {
            "author": "Berg-Kirkpatrick, Taylor and Burkett, David and Klein, Dan",
            "title": "An Empirical Investigation of Statistical Significance in {NLP}",
            "booktitle": "Proceedings of the 2012 Joint Conference on Empirical Methods in Natural Language "
            "Processing and Computational Natural Language Learning",
            "pages": "995--1005",
            "year": "2012",
        },
    ),
    "bergmann1988": (
        "incollection",
        {
            "author": "Bergmann, Beate and Hommel, Gerhard",
            "title": "Improvements of General Multiple Test Procedures for Redundant Systems of Hypotheses",
            "booktitle": 'Multiple Hypothesenpr{\\"u}fung / Multiple Hypotheses Testing',
            "editor": "Bauer, Peter and Hommel, Gerhard and Sonnemann, Eckart",
            "publisher": "Springer",
            "pages": "100--115",
            "year": "1988",
            "doi": "10.1007/978-3-642-52307-6_8",
        },
    ),
    "bouckaert2004": (
        "inproceedings",
        {
            "author": "Bouckaert, Remco R. and Frank, Eibe",
            "title": "Evaluating the Replicability of Significance Tests for Comparing Learning Algorithms",
            "booktitle": "Advances in Knowledge Discovery and Data Mining (PAKDD 2004)",
            "series": "Lecture Notes in Computer Science",
            "volume": "3056",
            "publisher": "Springer",
            "pages": "3--12",
            "year": "2004",
            "doi": "10.1007/978-3-540-24775-3_3",
        },
    ),
    "cliff1993": (
        "article",
        {
            "author": "Cliff, Norman",
            "title": "Dominance Statistics: Ordinal Analyses to Answer Ordinal Questions",
            "journal": "Psychological Bulletin",
            "year": "1993",
            "volume": "114",
            "number": "3",
            "pages": "494--509",
            "doi": "10.1037/0033-2909.114.3.494",
        },
    ),
    "corani2015": (
        "article",
        {
            "author": "Corani, Giorgio and Benavoli, Alessio",
            "title": "A {B}ayesian Approach for Comparing Cross-Validated Algorithms on Multiple Data Sets",
            "journal": "Machine Learning",
            "year": "2015",
            "volume": "100",
            "number": "2",
            "pages": "285--304",
            "doi": "10.1007/s10994-015-5486-z",
        },
    ),
    "demsar2006": (
        "article",
        {
            "author": "Dem{\\v{s}}ar, Janez",
            "title": "Statistical Comparisons of Classifiers over Multiple Data Sets",
            "journal": "Journal of Machine Learning Research",
            "year": "2006",
            "volume": "7",
            "pages": "1--30",
        },
    ),
    "dietterich1998": (
        "article",
        {
            "author": "Dietterich, Thomas G.",
            "title": "Approximate Statistical Tests for Comparing Supervised Classification Learning Algorithms",
            "journal": "Neural Computation",
            "year": "1998",
            "volume": "10",
            "number": "7",
            "pages": "1895--1923",
            "doi": "10.1162/089976698300017197",
        },
    ),
    "dixon1946": (
        "article",
        {
            "author": "Dixon, Wilfrid J. and Mood, Alexander M.",
            "title": "The Statistical Sign Test",
            "journal": "Journal of the American Statistical Association",
            "year": "1946",
            "volume": "41",
            "number": "236",
            "pages": "557--566",
            "doi": "10.1080/01621459.1946.10501898",
        },
    ),
    "dunn1961": (
        "article",
        {
            "author": "Dunn, Olive Jean",
            "title": "Multiple Comparisons Among Means",
            "journal": "Journal of the American Statistical Association",
            "year": "1961",
            "volume": "56",
            "number": "293",
            "pages": "52--64",
            "doi": "10.1080/01621459.1961.10482090",
        },
    ),
    "efron1993": (
        "book",
        {
            "author": "Efron, Bradley and Tibshirani, Robert J.",
            "title": "An Introduction to the Bootstrap",
            "publisher": "Chapman \\& Hall",
            "address": "New York",
            "year": "1993",
        },
    ),
    "fisher1935": (
        "book",
        {
            "author": "Fisher, Ronald A.",
            "title": "The Design of Experiments",
            "publisher": "Oliver and Boyd",
            "address": "Edinburgh",
            "year": "1935",
        },
    ),
    "friedman1937": (
        "article",
        {
            "author": "Friedman, Milton",
            "title": "The Use of Ranks to Avoid the Assumption of Normality Implicit in the Analysis of Variance",
            "journal": "Journal of the American Statistical Association",
            "year": "1937",
            "volume": "32",
            "number": "200",
            "pages": "675--701",
            "doi": "10.1080/01621459.1937.10503522",
        },
    ),
    "garcia2008": (
        "article",
        {
            "author": "Garc{\\'\\i}a, Salvador and Herrera, Francisco",
            "title": "An Extension on ``Statistical Comparisons of Classifiers over Multiple Data Sets'' for all "
            "Pairwise Comparisons",
            "journal": "Journal of Machine Learning Research",
            "year": "2008",
            "volume": "9",
            "pages": "2677--2694",
        },
    ),
    "good2005": (
        "book",
        {
            "author": "Good, Phillip I.",
            "title": "Permutation, Parametric, and Bootstrap Tests of Hypotheses",
            "edition": "Third",
            "publisher": "Springer",
            "address": "New York",
            "year": "2005",
            "doi": "10.1007/b138696",
        },
    ),
    "haybittle1971": (
        "article",
        {
            "author": "Haybittle, J. L.",
            "title": "Repeated Assessment of Results in Clinical Trials of Cancer Treatment",
            "journal": "British Journal of Radiology",
            "year": "1971",
            "volume": "44",
            "number": "526",
            "pages": "793--797",
            "doi": "10.1259/0007-1285-44-526-793",
        },
    ),
    "hochberg1988": (
        "article",
        {
            "author": "Hochberg, Yosef",
            "title": "A Sharper {B}onferroni Procedure for Multiple Tests of Significance",
            "journal": "Biometrika",
            "year": "1988",
            "volume": "75",
            "number": "4",
            "pages": "800--802",
            "doi": "10.1093/biomet/75.4.800",
        },
    ),
    "holm1979": (
        "article",
        {
            "author": "Holm, Sture",
            "title": "A Simple Sequentially Rejective Multiple Test Procedure",
            "journal": "Scandinavian Journal of Statistics",
            "year": "1979",
            "volume": "6",
            "number": "2",
            "pages": "65--70",
        },
    ),
    "hommel1988": (
        "article",
        {
            "author": "Hommel, Gerhard",
            "title": "A Stagewise Rejective Multiple Test Procedure Based on a Modified {B}onferroni Test",
            "journal": "Biometrika",
            "year": "1988",
            "volume": "75",
            "number": "2",
            "pages": "383--386",
            "doi": "10.1093/biomet/75.2.383",
        },
    ),
    "hothorn2008": (
        "article",
        {
            "author": "Hothorn, Torsten and Bretz, Frank and Westfall, Peter",
            "title": "Simultaneous Inference in General Parametric Models",
            "journal": "Biometrical Journal",
            "year": "2008",
            "volume": "50",
            "number": "3",
            "pages": "346--363",
            "doi": "10.1002/bimj.200810425",
        },
    ),
    "hsu1996": (
        "book",
        {
            "author": "Hsu, Jason C.",
            "title": "Multiple Comparisons: Theory and Methods",
            "publisher": "Chapman \\& Hall",
            "address": "London",
            "year": "1996",
        },
    ),
    "kerby2014": (
        "article",
        {
            "author": "Kerby, Dave S.",
            "title": "The Simple Difference Formula: An Approach to Teaching Nonparametric Correlation",
            "journal": "Comprehensive Psychology",
            "year": "2014",
            "volume": "3",
            "pages": "11.IT.3.1",
            "doi": "10.2466/11.IT.3.1",
        },
    ),
    "mcnemar1947": (
        "article",
        {
            "author": "McNemar, Quinn",
            "title": "Note on the Sampling Error of the Difference Between Correlated Proportions or Percentages",
            "journal": "Psychometrika",
            "year": "1947",
            "volume": "12",
            "number": "2",
            "pages": "153--157",
            "doi": "10.1007/BF02295996",
        },
    ),
    "nadeau2003": (
        "article",
        {
            "author": "Nadeau, Claude and Bengio, Yoshua",
            "title": "Inference for the Generalization Error",
            "journal": "Machine Learning",
            "year": "2003",
            "volume": "52",
            "number": "3",
            "pages": "239--281",
            "doi": "10.1023/A:1024068626366",
        },
    ),
    "nemenyi1963": (
        "phdthesis",
        {
            "author": "Nemenyi, Peter B.",
            "title": "Distribution-free Multiple Comparisons",
            "school": "Princeton University",
            "year": "1963",
        },
    ),
    "peto1976": (
        "article",
        {
            "author": "Peto, R. and Pike, M. C. and Armitage, P. and Breslow, N. E. and Cox, D. R. and Howard, S. V. "
            "and Mantel, N. and McPherson, K. and Peto, J. and Smith, P. G.",
            "title": "Design and Analysis of Randomized Clinical Trials Requiring Prolonged Observation of Each "
            "Patient. I. Introduction and Design",
            "journal": "British Journal of Cancer",
            "year": "1976",
            "volume": "34",
            "number": "6",
            "pages": "585--612",
            "doi": "10.1038/bjc.1976.220",
        },
    ),
    "phipson2010": (
        "article",
        {
            "author": "Phipson, Belinda and Smyth, Gordon K.",
            "title": "Permutation P-values Should Never Be Zero: Calculating Exact P-values When Permutations Are "
            "Randomly Drawn",
            "journal": "Statistical Applications in Genetics and Molecular Biology",
            "year": "2010",
            "volume": "9",
            "number": "1",
            "pages": "Article 39",
            "doi": "10.2202/1544-6115.1585",
        },
    ),
    "schuirmann1987": (
        "article",
        {
            "author": "Schuirmann, Donald J.",
            "title": "A Comparison of the Two One-Sided Tests Procedure and the Power Approach for Assessing the "
            "Equivalence of Average Bioavailability",
            "journal": "Journal of Pharmacokinetics and Biopharmaceutics",
            "year": "1987",
            "volume": "15",
            "number": "6",
            "pages": "657--680",
            "doi": "10.1007/BF01068419",
        },
    ),
    "shaffer1986": (
        "article",
        {
            "author": "Shaffer, Juliet Popper",
            "title": "Modified Sequentially Rejective Multiple Test Procedures",
            "journal": "Journal of the American Statistical Association",
            "year": "1986",
            "volume": "81",
            "number": "395",
            "pages": "826--831",
            "doi": "10.1080/01621459.1986.10478341",
        },
    ),
    "shao1989": (
        "article",
        {
            "author": "Shao, Jun and Wu, C. F. J.",
            "title": "A General Theory for Jackknife Variance Estimation",
            "journal": "The Annals of Statistics",
            "year": "1989",
            "volume": "17",
            "number": "3",
            "pages": "1176--1197",
            "doi": "10.1214/aos/1176347263",
        },
    ),
    "student1908": (
        "article",
        {
            "author": "{Student}",
            "title": "The Probable Error of a Mean",
            "journal": "Biometrika",
            "year": "1908",
            "volume": "6",
            "number": "1",
            "pages": "1--25",
            "doi": "10.1093/biomet/6.1.1",
        },
    ),
    "wellek2010": (
        "book",
        {
            "author": "Wellek, Stefan",
            "title": "Testing Statistical Hypotheses of Equivalence and Noninferiority",
            "edition": "Second",
            "publisher": "Chapman \\& Hall/CRC",
            "address": "Boca Raton",
            "year": "2010",
        },
    ),
    "westfall1993": (
        "book",
        {
            "author": "Westfall, Peter H. and Young, S. Stanley",
            "title": "Resampling-Based Multiple Testing: Examples and Methods for p-Value Adjustment",
            "publisher": "Wiley",
            "address": "New York",
            "year": "1993",
        },
    ),
    "wilcoxon1945": (
        "article",
        {
            "author": "Wilcoxon, Frank",
            "title": "Individual Comparisons by Ranking Methods",
            "journal": "Biometrics Bulletin",
            "year": "1945",
            "volume": "1",
            "number": "6",
            "pages": "80--83",
            "doi": "10.2307/3001968",
        },
    ),
}

_FIELD_ORDER: tuple[str, ...] = ("author", "title", "editor", "booktitle", "journal", "series", "edition", "school")
_FIELD_ORDER += ("publisher", "address", "year", "volume", "number", "pages", "doi")


def entry(key: str) -> str:
    """The BibTeX entry of ``key`` (fields in a fixed order, so the file is the same on every run)."""
    if key not in ENTRIES:
        raise KeyError(f"no bibliography entry {key!r}; known: {', '.join(sorted(ENTRIES))}")
    kind, fields = ENTRIES[key]
    order = [f for f in _FIELD_ORDER if f in fields] + sorted(set(fields) - set(_FIELD_ORDER))
    body = ",\n".join(f"  {name} = {{{fields[name]}}}" for name in order)
    return f"@{kind}{{{key},\n{body}\n}}\n"


def bibtex(keys: Iterable[str]) -> str:
    """A BibTeX file of ``keys`` (each once, sorted by key)."""
    return "\n".join(entry(k) for k in sorted(set(keys)))


def references_of(names: Iterable[str]) -> list[str]:
    """The bibliography keys of the registered procedures ``names`` (registry names, or the config's post-hoc
    names such as ``shaffer``), each once, in the order they are first named."""
    from .registry import POSTHOC_CONFIG, REGISTRY

    keys: list[str] = []
    for name in names:
        proc = REGISTRY.get(name) or REGISTRY.get(POSTHOC_CONFIG.get(name) or "")
        if proc is None:
            raise KeyError(f"unknown statistical procedure {name!r}")
        keys += [k for k in proc.references if k not in keys]
    return keys


def short_citation(key: str) -> str:
    """ "Demšar 2006", "García & Herrera 2008", "Benavoli et al. 2017": the author-year form of an entry."""
    _, fields = ENTRIES[key]
    names = [_surname(a) for a in fields["author"].split(" and ")]
    who = names[0] if len(names) == 1 else f"{names[0]} & {names[1]}" if len(names) == 2 else f"{names[0]} et al."
    return f"{who} {fields['year']}"


_ACCENTS = {
    "{\\v{s}}": "š",
    "{\\'\\i}": "í",
    "{\\i}": "ı",
    '{\\"u}': "ü",
    "{Student}": "Student",
}


def _surname(author: str) -> str:
    name = author.split(",")[0].strip()
    for tex, text in _ACCENTS.items():
        name = name.replace(tex, text)
    return name.strip("{}")
