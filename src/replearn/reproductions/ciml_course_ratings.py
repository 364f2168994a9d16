"""CIML §1.3-1.5: the decision tree on the course-ratings table (Appendix Table 1).

Labels follow CIML L165: ratings 0, +1, +2 are "like" (+1), -1 and -2 "hate" (-1). The tree is
``decision_tree`` with ``criterion="misclassification"`` -- CIML Alg. 1's score is the number of
training examples the majority answer of each branch gets right -- and its deterministic tie rule
(lowest feature index first, i.e. the table's column order).

Published numbers (CIML, seed 001), each compared exactly (tolerance 0: they are counts or ratios
of counts on 20 examples, so any difference is a different tree):

* L453: the empty tree (depth 0) predicts "like" and has training error 8/20 = 40%;
* L185: the root question is "Is this a Systems course?" (column 2) with score 18/20.

Erratum (catalogue §3.3 item 1): L455 says every row is unique, so a full tree reaches 0/20. In
fact rows 5 and 18 have the same features and opposite labels, so the best possible training
error is 1/20 = 5%; the record uses the corrected value 0.05, not the printed 0. The catalogue
also worked out the depth-2 (10%) and depth-3 (5%) errors under the first-feature tie rule; they
are recorded with that source (the book leaves the tie rule unspecified).
"""

from __future__ import annotations

import numpy as np

from .. import models
from ._data import read_csv
from .record import ExperimentResult, Recorder, register

PRESET = "ciml_course_ratings"
FEATURES = ("easy", "ai", "systems", "theory", "morning")
DEPTHS = (0, 1, 2, 3, 4, 5)


@register(PRESET)
def run(data_dir, *, seed: int, quick: bool = False) -> ExperimentResult:
    """Trees of depth 0..5 and unlimited; deterministic (``seed`` and ``quick`` change nothing)."""
    data = read_csv(data_dir, "ciml_course_ratings.csv")
    X = np.c_[tuple(data[f] for f in FEATURES)]
    y = np.where(data["rating"] >= 0, 1, -1)
    n = len(y)
    errors = {}
    for depth in (*DEPTHS, None):
        tree = _tree(depth).fit(X, y)
        errors[depth] = float(np.mean(tree.predict(X) != y))
    root = _tree(1).fit(X, y)
    root_feature = int(root.feature_[0])
    # each feature's CIML score: training examples a one-question tree on that feature gets right
    scores = {f: int(np.sum(_tree(1).fit(X[:, [j]], y).predict(X[:, [j]]) == y)) for j, f in enumerate(FEATURES)}

    rec = Recorder(PRESET, example="ciml.course-ratings-tree", measured_by="replearn.models:decision_tree")
    rec.add("CIML §1.5 L453 (empty tree: 8/20 = 40%)", "training error, depth 0", 0.40, errors[0], 0.0)
    rec.add(
        "CIML §1.3 L185 (root: 'Is this a Systems course?')",
        "root feature (column: 0 easy, 1 ai, 2 systems, 3 theory, 4 morning)",
        2,
        root_feature,
        0.0,
    )
    rec.add(
        "CIML §1.3 L185 (score of the Systems question: 18/20)",
        "root split score (examples right)",
        18,
        n * (1.0 - errors[1]),
        0.0,
    )
    rec.add(
        "CIML L455 erratum (catalogue §3.3.1): rows 5 and 18 conflict, so 1/20, not the printed 0/20",
        "training error, full tree",
        0.05,
        errors[None],
        0.0,
        provenance="erratum",
        erratum=0.0,
    )
    rec.add(
        "catalogue §3.1 (computed from Table 1, first-feature tie rule)",
        "training error, depth 2",
        0.10,
        errors[2],
        0.0,
        provenance="derived",
        derived_from="Alg. 1 on Appendix Table 1 (the catalogue, first-feature tie rule)",
    )
    rec.add(
        "catalogue §3.1 (computed from Table 1, first-feature tie rule)",
        "training error, depth 3",
        0.05,
        errors[3],
        0.0,
        provenance="derived",
        derived_from="Alg. 1 on Appendix Table 1 (the catalogue, first-feature tie rule)",
    )

    curves = {
        "training_error_vs_depth": {
            "x": list(DEPTHS) + ["full"],
            "training_error": [errors[d] for d in (*DEPTHS, None)],
        }
    }
    tables = {"root_scores": scores, "labels": {"like": int(np.sum(y == 1)), "hate": int(np.sum(y == -1))}}
    notes = (
        "CIML (seed 001) §1.3 Alg. 1 DecisionTreeTrain and §1.5 (underfitting/overfitting), course-ratings "
        "Appendix Table 1 (L5695-5719); misclassification criterion (CIML's score), ties to the lowest "
        "column index. The book's 0% full-tree claim (L455) is an erratum: the minimum is 1/20."
    )
    return rec.result(curves, tables, notes)


def _tree(depth):
    return models.create("decision_tree", criterion="misclassification", max_depth=depth)
