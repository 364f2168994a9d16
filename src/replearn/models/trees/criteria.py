"""The split criteria of the decision trees, public: impurity of a node and the gain of a split.

For class counts c_1..c_C of a node (total W, p_c = c_c / W): misclassification 1 - max_c p_c, entropy
-sum_c p_c log2 p_c, Gini sum_c p_c (1 - p_c) (CS229 summaries L1384-1398, seed 002; CIML Alg. 1 counts the
majority answers). The gain of a split is ``I(parent) - sum_children (W_child / W) I(child)`` -- the
quantity the tree builder maximizes (it minimizes the children's weighted cost, :mod:`._criteria`, which
computes every value here).
"""

from __future__ import annotations

import numpy as np

from ._criteria import CLASSIFICATION
from ._criteria import cost as _cost
from ._criteria import impurity as _impurity

__all__ = ["CLASSIFICATION", "node_impurity", "split_gain"]


def _counts(counts, name: str) -> np.ndarray:
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 1 or c.size < 2 or np.any(c < 0) or not np.all(np.isfinite(c)) or c.sum() <= 0:
        raise ValueError(f"{name} must be non-negative class counts (at least two classes, total > 0), got {counts!r}")
    return c


def node_impurity(counts, criterion: str) -> float:
    """The impurity of a node with class counts ``counts`` under ``criterion`` (one of :data:`CLASSIFICATION`)."""
    if criterion not in CLASSIFICATION:
        raise ValueError(f"criterion must be one of {list(CLASSIFICATION)}, got {criterion!r}")
    return float(_impurity(_counts(counts, "counts")[:, None], criterion)[0])


def split_gain(parent, children, criterion: str) -> float:
    """``I(parent) - sum_k (W_k / W) I(child_k)`` for class counts of the parent and of each child (the
    children's counts must add up to the parent's)."""
    p = _counts(parent, "parent")
    kids = [_counts(c, "child") for c in children]
    if not kids or any(k.size != p.size for k in kids) or not np.allclose(np.sum(kids, axis=0), p):
        raise ValueError("the children's class counts must have the parent's classes and add up to its counts")
    before = node_impurity(p, criterion)
    after = sum(float(_cost(k[:, None], np.array([k.sum()]), criterion)[0]) for k in kids) / p.sum()
    return before - after
