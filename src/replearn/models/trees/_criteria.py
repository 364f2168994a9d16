"""Split criteria of decision trees, evaluated on arrays of (weighted) class counts.

For a node with class weights c_1..c_C (total W), p_c = c_c / W:

* ``misclassification``: 1 - max_c p_c  (CIML Alg. 1's score counts the majority answers, seed 001
  L197-224; CS229 summaries L1384-1398, seed 002)
* ``entropy``:           -sum_c p_c log2 p_c (information gain = decrease in entropy; seed 002
  L1384-1398, ID3 named in CIML L368)
* ``gini``:              sum_c p_c (1 - p_c) = 1 - sum_c p_c^2 (seed 002; CART)

A split is scored by the weighted impurity of its children, W_L I(L) + W_R I(R) ("cost", lower is
better); the impurity decrease of the split is W I(parent) minus that. Regression trees use the
variance (squared error) of the targets; its cost is computed from prefix sums in
:mod:`._builder`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

CLASSIFICATION = ("gini", "entropy", "misclassification")
REGRESSION = ("squared_error",)

_LN2 = np.log(2.0)


def impurity(counts: np.ndarray, criterion: str) -> np.ndarray:
    """Impurity of each node from its class weights ``counts`` (C, ...) (total weight > 0)."""
    W = counts.sum(axis=0)
    return cost(counts, W, criterion) / W


def cost(counts: np.ndarray, W: np.ndarray, criterion: str) -> np.ndarray:
    """W * impurity from class weights ``counts`` with the class axis FIRST, shape (C, ...), and their
    totals ``W`` (...). Where W = 0 the gini cost is NaN (callers mask such empty children)."""
    if criterion == "gini":
        sq = counts[0] * counts[0]
        for c in range(1, counts.shape[0]):
            sq += counts[c] * counts[c]
        with np.errstate(divide="ignore", invalid="ignore"):
            return W - sq / W
    if criterion == "entropy":
        # W H = -sum_c c log2(c / W) = (W ln W - sum_c c ln c) / ln 2; a class weight that is 0 up to the
        # rounding of prefix-sum differences (-1e-13) counts as 0 (xlogy of a negative number is NaN)
        c = np.maximum(counts, 0.0)
        return (xlogy(W, W) - xlogy(c, c).sum(axis=0)) / _LN2
    if criterion == "misclassification":
        return W - counts.max(axis=0)
    raise ValueError(f"unknown classification criterion {criterion!r}; choose one of {list(CLASSIFICATION)}")
