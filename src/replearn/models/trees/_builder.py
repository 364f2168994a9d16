"""Greedy top-down tree growth, breadth first.

Two implementations of one algorithm, which grow the same tree: with numba, the compiled node loop
of :mod:`._kernels` on presorted, partitioned feature ranges (:func:`build_tree`'s default); without
it, :func:`build_tree_vectorized` below, which splits all nodes of one depth together so that its
Python loop runs over depth levels (and small groups of features), never over nodes, samples or
thresholds. The rest of this docstring describes the vectorized builder; the rules (candidate
splits, thresholds, ties, ``max_features``) are those of both.

Numeric features. Every feature is sorted once, at the start. At each level, each feature's
sorted sample list is regrouped by node with a stable radix sort of the (small integer) node
labels, which keeps every node's samples in value order. The (node, feature) pairs to examine
become contiguous blocks of flat arrays; within each block, prefix sums of the class weights (or
of w and w*y for regression) give the statistics of every left child "x <= t" at once, the right
child is the node total minus the left. A split position is valid between two distinct values,
with at least ``min_samples_leaf`` samples on each side. The threshold is the midpoint of the two
values (scikit-learn's rule).

Categorical features. A split asks "x == v?" (right: yes, left: no), CIML's binary questions
(seed 001 L163) and one-vs-rest categorical splits; per-(node, category) statistics come from one
``bincount``. (Seed 002 L1472-1478 counts 2^S subset questions for S categories; the one-vs-rest
questions are the S of them that single out one category.)

Ties are broken deterministically: among splits whose cost is within a relative 1e-12 of the best,
the lowest feature index wins, then (within a feature) the lowest threshold, then the smallest
category.

``max_features`` draws, per node, a random subset of the features that are not constant in the
node (random forests; constant features do not count, as in scikit-learn).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..._jit import jit_available
from . import _kernels
from ._criteria import cost as class_cost
from ._criteria import impurity as class_impurity
from ._kernels import CRITERIA, grow_tree

EPS = np.finfo(np.float64).eps
_TIE_RTOL = 1e-12
_CHUNK_ELEMENTS = 2_000_000  # bound on (samples x features x classes) of one block of prefix sums


@dataclass
class TreeArrays:
    """A tree as flat arrays indexed by node id (breadth-first: a parent's id is below its children's)."""

    feature: np.ndarray  # split feature, -1 at leaves
    threshold: np.ndarray  # numeric: go left if x <= threshold; categorical: go right if x == threshold
    split_kind: np.ndarray  # 0 numeric, 1 categorical (meaningless at leaves)
    children_left: np.ndarray  # -1 at leaves
    children_right: np.ndarray
    value: np.ndarray  # (n_nodes, n_classes) class fractions, or (n_nodes, 1) mean target
    impurity: np.ndarray
    n_node_samples: np.ndarray
    weighted_n_node_samples: np.ndarray


class Presorted(NamedTuple):
    """What the compiled builder needs of ``X`` besides ``X``: computed once per ``X`` (:func:`presort`)."""

    XT: np.ndarray  # (d_num, n) the numeric columns, feature-major
    order: np.ndarray  # (d_num, n) int32: per numeric feature, the rows in value order (stable)


def presort(X: np.ndarray, categorical: np.ndarray) -> Presorted:
    """The numeric columns of ``X`` feature-major, and each one's rows in value order (stable argsort)."""
    XT = np.ascontiguousarray(X[:, ~categorical].T, dtype=np.float64)
    return Presorted(XT, np.argsort(XT, axis=1, kind="stable").astype(np.int32))


def build_tree(
    X: np.ndarray,
    *,
    rows: np.ndarray,
    codes: np.ndarray | None,
    n_classes: int,
    y: np.ndarray | None,
    sample_weight: np.ndarray,
    criterion: str,
    categorical: np.ndarray,
    max_depth: int,
    min_samples_split: int,
    min_samples_leaf: int,
    min_impurity_decrease: float,
    max_features: int,
    rng: np.random.Generator | None,
    presorted: Presorted | None = None,
    compiled: bool | None = None,
) -> TreeArrays:
    """Grow a tree on the rows ``rows`` (a boolean mask; their weights must be positive) of ``X``, for class
    ``codes`` or targets ``y`` (all of ``X``'s rows).

    With numba (``compiled`` None: whenever it is available) the compiled node loop
    :func:`._kernels.grow_tree` grows it on presorted, partitioned feature ranges (``presorted``:
    :func:`presort` of ``X``, if the caller has it: ensembles sort once for all their trees); otherwise
    the vectorized level-by-level :func:`build_tree_vectorized` on ``X[rows]``. Both grow the same tree
    (tested).
    """
    args = dict(
        n_classes=n_classes,
        criterion=criterion,
        categorical=categorical,
        max_depth=max_depth,
        min_samples_split=min_samples_split,
        min_samples_leaf=min_samples_leaf,
        min_impurity_decrease=min_impurity_decrease,
        max_features=max_features,
        rng=rng,
    )
    if compiled is None:
        compiled = jit_available()
    if compiled:
        return _build_tree_compiled(X, rows, codes, y, sample_weight, presorted, **args)
    return build_tree_vectorized(
        X[rows],
        codes=None if codes is None else codes[rows],
        y=None if y is None else y[rows],
        sample_weight=sample_weight[rows],
        **args,
    )


def _build_tree_compiled(
    X,
    rows,
    codes,
    y,
    sample_weight,
    presorted,
    *,
    n_classes,
    criterion,
    categorical,
    max_depth,
    min_samples_split,
    min_samples_leaf,
    min_impurity_decrease,
    max_features,
    rng,
) -> TreeArrays:
    n, d = X.shape
    X = np.ascontiguousarray(X, dtype=np.float64)
    w = np.ascontiguousarray(sample_weight, dtype=np.float64)
    num = np.flatnonzero(~categorical).astype(np.int64)
    cat = np.flatnonzero(categorical).astype(np.int64)
    if presorted is None:
        presorted = presort(X, categorical)
    samp = np.flatnonzero(rows).astype(np.int64)
    if samp.size == n:
        S = presorted.order.copy()  # partitioned in place
    else:  # the rows of the tree, in each feature's order: O(n d), no sorting
        S = _kernels.keep_rows(presorted.order, rows.astype(np.int8), samp.size)
    cat_codes = np.zeros((cat.size, n), dtype=np.int64)
    cat_ncat = np.zeros(cat.size, dtype=np.int64)
    uniques = [np.unique(X[:, f], return_inverse=True) for f in cat]
    cat_values = np.zeros((cat.size, max([u.size for u, _ in uniques], default=1)))
    for k, (vals, inv) in enumerate(uniques):
        cat_codes[k] = inv.ravel()
        cat_ncat[k] = vals.size
        cat_values[k, : vals.size] = vals
    if codes is not None:
        codes_ = np.ascontiguousarray(codes, dtype=np.int64)
        yc, y_offset = np.zeros(1), 0.0
    else:
        codes_ = np.zeros(1, dtype=np.int64)
        y_offset = float(np.average(y[rows], weights=w[rows]))
        yc = np.ascontiguousarray(y - y_offset, dtype=np.float64)
    if rng is None:
        rng = np.random.default_rng(0)  # never drawn from: max_features = d
    out = grow_tree(
        X,
        presorted.XT,
        S,
        samp,
        num,
        cat,
        cat_codes,
        cat_ncat,
        cat_values,
        codes_,
        yc,
        y_offset,
        w,
        int(n_classes),
        CRITERIA[criterion],
        int(max_depth),
        int(min_samples_split),
        int(min_samples_leaf),
        float(min_impurity_decrease),
        int(max_features),
        rng,
    )
    return TreeArrays(*out)


def build_tree_vectorized(
    X: np.ndarray,
    *,
    codes: np.ndarray | None,
    n_classes: int,
    y: np.ndarray | None,
    sample_weight: np.ndarray,
    criterion: str,
    categorical: np.ndarray,
    max_depth: int,
    min_samples_split: int,
    min_samples_leaf: int,
    min_impurity_decrease: float,
    max_features: int,
    rng: np.random.Generator | None,
) -> TreeArrays:
    """Grow a tree on ``X`` (rows with positive weight only) for class ``codes`` or targets ``y``."""
    n, d = X.shape
    classify = codes is not None
    w = sample_weight
    num = np.flatnonzero(~categorical)
    cat = np.flatnonzero(categorical)
    # sort once: per numeric feature, the samples in value order (G) and their dense ranks (RG)
    # (stored feature-major: row j of GT / RGT is feature num[j])
    XnT = np.ascontiguousarray(X[:, num].T)
    GT = np.argsort(XnT, axis=1, kind="stable")
    XG = np.take_along_axis(XnT, GT, axis=1)
    RGT = np.zeros(GT.shape, dtype=np.int64)
    RGT[:, 1:] = XG[:, 1:] != XG[:, :-1]
    np.cumsum(RGT, axis=1, out=RGT)
    del XG
    cat_codes, cat_values = [], []
    for f in cat:
        vals, inv = np.unique(X[:, f], return_inverse=True)
        cat_values.append(vals)
        cat_codes.append(inv.astype(np.int64))
    if classify:
        C = n_classes
        wyT = np.zeros((C, n))  # class weights, class axis first
        wyT[codes, np.arange(n)] = w
        y_offset = 0.0
    else:
        C = 1
        y_offset = float(np.average(y, weights=w))
        yc = y - y_offset
        wyc = w * yc
    total_w = float(w.sum())
    chunk_cols = max(1, _CHUNK_ELEMENTS // max(n * (C if classify else 2), 1))

    levels = []  # per level: dict of arrays for the nodes of that level
    samp = np.arange(n)  # samples of the current level, grouped by node
    sid = np.zeros(n, dtype=np.int64)  # their node (level-local index)
    K = 1
    depth = 0
    next_id = 1
    while K > 0:
        # ---- statistics of the nodes of this level ---------------------------------------------
        n_node = np.bincount(sid, minlength=K)
        ws = w[samp]
        if classify:
            cnt = np.bincount(sid * C + codes[samp], weights=ws, minlength=K * C).reshape(K, C)
            W = cnt.sum(axis=1)
            imp = class_impurity(cnt.T, criterion)
            value = cnt / W[:, None]
            parent_cost = W * imp
        else:
            W = np.bincount(sid, weights=ws, minlength=K)
            S = np.bincount(sid, weights=wyc[samp], minlength=K)
            mean = S / W
            dev = yc[samp] - mean[sid]
            imp = np.bincount(sid, weights=ws * dev * dev, minlength=K) / W
            value = (mean + y_offset)[:, None]
            parent_cost = -(S * S) / W  # proxy: the constant sum w y^2 is left out of every cost
        level = {
            "value": value,
            "impurity": imp,
            "n": n_node,
            "w": W,
            "feature": np.full(K, -1, dtype=np.int64),
            "threshold": np.full(K, -2.0),
            "kind": np.zeros(K, dtype=np.int64),
            "left": np.full(K, -1, dtype=np.int64),
            "right": np.full(K, -1, dtype=np.int64),
        }
        levels.append(level)

        can = (n_node >= min_samples_split) & (n_node >= 2 * min_samples_leaf) & (imp > EPS)
        if depth >= max_depth or not can.any():
            break
        # ---- restrict to the nodes that may split; compact their ids to 0..K2-1 -------------------
        nodes = np.flatnonzero(can)
        K2 = nodes.size
        remap = np.full(K, -1, dtype=np.int64)
        remap[nodes] = np.arange(K2)
        keep = can[sid]
        samp2, sid2 = samp[keep], remap[sid[keep]]
        counts = np.bincount(sid2, minlength=K2)
        starts = np.cumsum(counts) - counts

        # constant features per node, and the random feature subsets
        const = np.zeros((K2, d), dtype=bool)
        if num.size and max_features < d:  # without subsampling a constant feature simply has no valid split
            Xs = X[samp2][:, num]
            const[:, num] = np.minimum.reduceat(Xs, starts, axis=0) == np.maximum.reduceat(Xs, starts, axis=0)
        cat_stats = []
        for c_i, f in enumerate(cat):
            ncat = cat_values[c_i].size
            ccode = cat_codes[c_i][samp2]
            present = np.bincount(sid2 * ncat + ccode, minlength=K2 * ncat).reshape(K2, ncat)
            const[:, f] = (present > 0).sum(axis=1) <= 1
            cat_stats.append((ccode, ncat, present))
        if max_features < d:
            keys = rng.random((K2, d)) + 2.0 * const
            rank = np.argsort(np.argsort(keys, axis=1, kind="stable"), axis=1, kind="stable")
            selected = (rank < max_features) & ~const
        else:
            selected = ~const  # (numeric features: all True; constant ones find no valid split)

        best_cost = np.full((K2, d), np.inf)
        best_thr = np.full((K2, d), np.nan)
        # ---- numeric features ----------------------------------------------------------------
        if classify:
            stats = (wyT, cnt[nodes].T.copy(), W[nodes])
        else:
            stats = (w, wyc, W[nodes], S[nodes])
        need = np.flatnonzero(selected[:, num].any(axis=0))  # numeric columns some node examines
        if need.size:
            label = np.full(n, K2, dtype=_small_int(K2 + 1))
            label[samp2] = sid2
            for c0 in range(0, need.size, chunk_cols):
                cols = need[c0 : c0 + chunk_cols]
                _numeric_block(
                    X,
                    GT[cols],
                    RGT[cols],
                    label,
                    samp2.size,
                    counts,
                    selected[:, num[cols]],
                    num[cols],
                    min_samples_leaf,
                    criterion,
                    best_cost,
                    best_thr,
                    stats,
                )

        # ---- categorical features: "x == v" vs the rest ------------------------------------------
        for c_i, f in enumerate(cat):
            ccode, ncat, present = cat_stats[c_i]
            if classify:
                right = np.bincount(
                    (sid2 * ncat + ccode) * C + codes[samp2], weights=ws[keep], minlength=K2 * ncat * C
                ).reshape(K2, ncat, C)
                right = np.moveaxis(right, 2, 0)  # (C, K2, ncat)
                left = cnt[nodes].T[:, :, None] - right
                WR = right.sum(axis=0)
                score = class_cost(right, WR, criterion) + class_cost(left, W[nodes][:, None] - WR, criterion)
            else:
                WR = np.bincount(sid2 * ncat + ccode, weights=ws[keep], minlength=K2 * ncat).reshape(K2, ncat)
                SR = np.bincount(sid2 * ncat + ccode, weights=wyc[samp2], minlength=K2 * ncat).reshape(K2, ncat)
                WL, SL = W[nodes][:, None] - WR, S[nodes][:, None] - SR
                with np.errstate(divide="ignore", invalid="ignore"):
                    score = -(SL * SL / WL + SR * SR / WR)
            nr = present
            ok = (
                (nr >= min_samples_leaf)
                & (counts[:, None] - nr >= min_samples_leaf)
                & (nr > 0)
                & (nr < counts[:, None])
            )
            ok &= selected[:, f][:, None]
            score = np.where(ok, score, np.inf)
            cmin = score.min(axis=1)
            tol = _TIE_RTOL * np.maximum(np.abs(cmin), 1.0)
            pick = np.argmax(score <= (cmin + tol)[:, None], axis=1)  # smallest category among ties
            found = np.isfinite(cmin)
            best_cost[found, f] = cmin[found]
            best_thr[found, f] = cat_values[c_i][pick[found]]

        # ---- the best feature of each node (lowest index among ties) -------------------------------
        smin = best_cost.min(axis=1)
        tol = _TIE_RTOL * np.maximum(np.abs(smin), 1.0)
        bf = np.argmax(best_cost <= (smin + tol)[:, None], axis=1)
        bthr = best_thr[np.arange(K2), bf]
        improvement = parent_cost[nodes] - best_cost[np.arange(K2), bf]
        split = np.isfinite(smin) & (improvement / total_w + EPS >= min_impurity_decrease)
        if not split.any():
            break
        snodes = nodes[split]  # level-local indices of the nodes that split
        ns = snodes.size
        left_ids = next_id + 2 * np.arange(ns)
        level["feature"][snodes] = bf[split]
        level["threshold"][snodes] = bthr[split]
        level["kind"][snodes] = categorical[bf[split]].astype(np.int64)
        level["left"][snodes] = left_ids
        level["right"][snodes] = left_ids + 1

        # ---- send the samples of the split nodes to the children ----------------------------------
        child_of = np.full(K, -1, dtype=np.int64)
        child_of[snodes] = 2 * np.arange(ns)  # level-local index of the left child in the next level
        moving = child_of[sid] >= 0
        samp, sid = samp[moving], sid[moving]
        f_s = level["feature"][sid]
        t_s = level["threshold"][sid]
        x = np.take(X, samp * d + f_s)  # X[samp, f_s] (X is C-contiguous)
        go_right = np.where(level["kind"][sid] == 1, x == t_s, x > t_s)
        sid = child_of[sid] + go_right
        regroup = np.argsort(sid.astype(_small_int(2 * ns)), kind="stable")  # keep the samples grouped by node
        samp, sid = samp[regroup], sid[regroup]
        K = 2 * ns
        next_id += K
        depth += 1

    def cat_(key, dtype):
        return np.concatenate([lv[key] for lv in levels]).astype(dtype)

    return TreeArrays(
        feature=cat_("feature", np.int64),
        threshold=cat_("threshold", np.float64),
        split_kind=cat_("kind", np.int64),
        children_left=cat_("left", np.int64),
        children_right=cat_("right", np.int64),
        value=np.vstack([lv["value"] for lv in levels]),
        impurity=cat_("impurity", np.float64),
        n_node_samples=cat_("n", np.int64),
        weighted_n_node_samples=cat_("w", np.float64),
    )


def _small_int(upper: int):
    """The narrowest unsigned dtype holding 0..upper - 1 (numpy sorts 8/16-bit keys by radix sort)."""
    return np.uint8 if upper <= 2**8 else np.uint16 if upper <= 2**16 else np.int64


def _numeric_block(X, GT, RGT, label, m, counts, sel, feats, min_samples_leaf, criterion, best_cost, best_thr, stats):
    """Best threshold of every selected (node, feature) pair for the numeric features ``feats``.

    ``GT``/``RGT``: (k, n) per feature, the samples in value order and their ranks; ``label``: node of
    each sample (K2 for samples not being split); ``sel``: (K2, k) which pairs to examine. Writes the
    best cost and threshold of each pair into ``best_cost``/``best_thr`` (K2, d).
    """
    k = GT.shape[0]
    # regroup each feature's value-ordered samples by node (stable radix sort of small labels):
    # the first m entries are the samples being split, grouped by node, in value order within a node
    perm = np.argsort(label[GT], axis=1, kind="stable")[:, :m]
    flat = (perm + (np.arange(k) * GT.shape[1])[:, None]).ravel()
    samp_T = np.take(GT, flat).reshape(k, m)  # np.take: much faster than mixed slice/array indexing
    rank_T = np.take(RGT, flat).reshape(k, m)
    # blocks of the selected (feature, node) pairs, feature-major, as flat arrays
    mask = np.repeat(sel, counts, axis=0).T  # (k, m): row r of feature j belongs to a selected pair
    pf, pk = np.nonzero(sel.T)
    if pf.size == 0:
        return
    fs = samp_T[mask]
    rk = rank_T[mask]
    plen = counts[pk]
    pstart = np.cumsum(plen) - plen
    total = fs.size
    valid = np.empty(total, dtype=bool)
    np.not_equal(rk[1:], rk[:-1], out=valid[:-1])  # only between two distinct values
    valid[pstart[1:] - 1] = False  # not after the last row of a block
    valid[-1] = False
    if min_samples_leaf > 1:
        within = np.arange(total) - np.repeat(pstart, plen)
        valid &= (within + 1 >= min_samples_leaf) & (np.repeat(plen, plen) - within - 1 >= min_samples_leaf)
    if len(stats) == 3:  # classification: class weights (C, n), node totals (C, K2), node weights (K2,)
        wyT, node_tot, node_w = stats
        left = np.cumsum(np.take(wyT, fs, axis=1), axis=1)  # (C, total)
        base = np.concatenate([np.zeros((left.shape[0], 1)), np.take(left, pstart[1:] - 1, axis=1)], axis=1)
        left -= np.repeat(base, plen, axis=1)
        tot = np.repeat(np.take(node_tot, pk, axis=1), plen, axis=1)
        WL = left.sum(axis=0)
        tot -= left  # the right children
        score = class_cost(left, WL, criterion) + class_cost(tot, np.repeat(node_w[pk], plen) - WL, criterion)
    else:  # regression: -(S_L^2 / W_L + S_R^2 / W_R), the variance cost up to a per-node constant
        w, wyc, node_W, node_S = stats
        WL = np.cumsum(np.take(w, fs))
        SL = np.cumsum(np.take(wyc, fs))
        WL -= np.repeat(np.append(0.0, WL[pstart[1:] - 1]), plen)
        SL -= np.repeat(np.append(0.0, SL[pstart[1:] - 1]), plen)
        WR = np.repeat(node_W[pk], plen) - WL
        SR = np.repeat(node_S[pk], plen) - SL
        with np.errstate(divide="ignore", invalid="ignore"):
            score = -(SL * SL / WL + SR * SR / WR)
    score[~valid] = np.inf
    pmin = np.minimum.reduceat(score, pstart)
    tol = _TIE_RTOL * np.maximum(np.abs(pmin), 1.0)
    first = np.minimum.reduceat(np.where(score <= np.repeat(pmin + tol, plen), np.arange(total), total), pstart)
    found = np.flatnonzero(np.isfinite(pmin))
    r = first[found]
    feat = feats[pf[found]]
    lo = X[fs[r], feat]
    hi = X[fs[r + 1], feat]
    thr = 0.5 * (lo + hi)
    thr = np.where((thr >= hi) | ~np.isfinite(thr), lo, thr)  # rounding: keep lo <= thr < hi
    best_cost[pk[found], feat] = pmin[found]
    best_thr[pk[found], feat] = thr
