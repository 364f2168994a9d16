"""The decision tree's growth as one compiled loop over nodes (numba, lazily: :mod:`replearn._jit`).

The same greedy algorithm as the vectorized level-by-level builder in :mod:`._builder` (which runs when
numba is unavailable, and which the tests compare this one with): the same candidate splits, costs,
tie rules, stopping rules, breadth-first node ids and random feature subsets (``max_features``: for
every node that may split, in breadth-first order, ``d`` uniforms from ``rng``: the numbers the
vectorized builder draws per level), so both grow the same tree for the same ``random_state``.

What is different is the data structure (the presorting of the "presort" CART variants): every numeric
feature is sorted once, and each node owns one contiguous range ``[start, end)`` of every feature's
sorted sample list ``S``. Splitting a node partitions each of these ranges stably into its two
children's, so the children's ranges stay sorted and nothing is sorted again; a feature is constant in
a node when the first and last value of its range agree (its range is then left as it is: any part of
it is constant too). The split search of a (node, feature) pair is one pass over the range that adds
each sample's class weight (or ``w`` and ``w y``) to the left child's statistics and evaluates the
cost only where the value changes (with at least ``min_samples_leaf`` rows on each side): O(C) per
distinct value instead of per row.
"""

from __future__ import annotations

import math

import numpy as np

from ..._jit import jit

GINI, ENTROPY, MISCLASSIFICATION, SQUARED_ERROR = 0, 1, 2, 3
CRITERIA = {"gini": GINI, "entropy": ENTROPY, "misclassification": MISCLASSIFICATION, "squared_error": SQUARED_ERROR}
_EPS = 2.220446049250313e-16  # np.finfo(np.float64).eps
_TIE_RTOL = 1e-12
_INV_LN2 = 1.0 / math.log(2.0)


@jit
def class_cost(counts, W, crit):
    """W * impurity of a node with class weights ``counts`` (C,) and total ``W`` (:func:`._criteria.cost`)."""
    C = counts.shape[0]
    if crit == GINI:
        sq = counts[0] * counts[0]
        for c in range(1, C):
            sq += counts[c] * counts[c]
        return W - sq / W
    if crit == ENTROPY:  # (W ln W - sum_c c ln c) / ln 2
        acc = 0.0
        for c in range(C):
            v = counts[c]
            if v > 0.0:
                acc += v * math.log(v)
        wl = W * math.log(W) if W > 0.0 else 0.0
        return (wl - acc) * _INV_LN2
    best = counts[0]
    for c in range(1, C):
        if counts[c] > best:
            best = counts[c]
    return W - best


@jit
def grow_tree(
    X,
    XT,
    S,
    samp0,
    num,
    cat,
    cat_codes,
    cat_ncat,
    cat_values,
    codes,
    yc,
    y_offset,
    w,
    n_classes,
    crit,
    max_depth,
    min_split,
    min_leaf,
    min_decrease,
    max_features,
    rng,
):
    """Grow a tree breadth first; returns its node arrays (feature, threshold, kind, left, right, value,
    impurity, n_node_samples, weighted_n_node_samples), trimmed to the nodes grown.

    ``X`` (n, d): the data; ``samp0``: the rows to grow on (their weights are positive); ``XT`` (len(num),
    n): the numeric columns ``num``, feature-major; ``S`` (len(num), len(samp0)): per numeric feature the
    rows ``samp0`` in value order (partitioned in place); ``cat_codes`` (len(cat), n): dense
    codes of the categorical features ``cat`` (``cat_ncat`` categories, values ``cat_values``);
    ``codes``: classes (classification) or ``yc``: targets minus ``y_offset`` (regression); ``w``:
    positive weights; ``crit``: :data:`CRITERIA`; ``rng``: a numpy Generator (drawn from only when
    ``max_features < d``).
    """
    n_all, d = X.shape
    n = samp0.shape[0]
    classify = crit != SQUARED_ERROR
    C = n_classes if classify else 1
    n_num = num.shape[0]
    n_cat = cat.shape[0]
    cap = 2 * n + 1
    feature = np.full(cap, -1, dtype=np.int64)
    threshold = np.full(cap, -2.0)
    kind = np.zeros(cap, dtype=np.int64)
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    value = np.zeros((cap, C))
    impurity = np.zeros(cap)
    n_node = np.zeros(cap, dtype=np.int64)
    w_node = np.zeros(cap)
    start = np.zeros(cap, dtype=np.int64)
    end = np.zeros(cap, dtype=np.int64)
    depth = np.zeros(cap, dtype=np.int64)
    end[0] = n

    samp = samp0.copy()  # the rows of each node, in node order (stats, categorical splits, partition)
    side = np.zeros(n_all, dtype=np.int64)  # during a split: 1 if row i goes right, else 0
    tmp_i = np.empty(n, dtype=S.dtype)
    tmp_s = np.empty(n, dtype=np.int64)
    cnt = np.zeros(C)
    lcnt = np.zeros(C)
    rcnt = np.zeros(C)
    best_cost = np.empty(d)
    best_thr = np.empty(d)
    const = np.zeros(d, dtype=np.bool_)
    selected = np.zeros(d, dtype=np.bool_)
    max_ncat = 1
    for k in range(n_cat):
        max_ncat = max(max_ncat, cat_ncat[k])
    score = np.empty(max(n, max_ncat))  # costs of a feature's candidate splits
    cat_nr = np.zeros((max(n_cat, 1), max_ncat), dtype=np.int64)
    cat_w = np.zeros((max(n_cat, 1), max_ncat, C))  # classification: class weights per category
    cat_s = np.zeros((max(n_cat, 1), max_ncat))  # regression: w y per category (w in cat_w[..., 0])

    total_w = 0.0
    for p in range(n):
        total_w += w[samp0[p]]

    node = 0
    next_id = 1
    while node < next_id:
        a = start[node]
        b = end[node]
        m = b - a
        # ---- statistics of the node ----------------------------------------------------------------
        S_node = 0.0
        if classify:
            for c in range(C):
                cnt[c] = 0.0
            for p in range(a, b):
                i = samp[p]
                cnt[codes[i]] += w[i]
            W = cnt[0]
            for c in range(1, C):
                W += cnt[c]
            imp = class_cost(cnt, W, crit) / W
            for c in range(C):
                value[node, c] = cnt[c] / W
            parent_cost = W * imp
        else:
            W = 0.0
            for p in range(a, b):
                i = samp[p]
                W += w[i]
                S_node += w[i] * yc[i]
            mean = S_node / W
            acc = 0.0
            for p in range(a, b):
                i = samp[p]
                dev = yc[i] - mean
                acc += w[i] * dev * dev
            imp = acc / W
            value[node, 0] = mean + y_offset
            parent_cost = -(S_node * S_node) / W
        impurity[node] = imp
        n_node[node] = m
        w_node[node] = W
        if depth[node] >= max_depth or m < min_split or m < 2 * min_leaf or not imp > _EPS:
            node += 1
            continue

        # ---- constant features, categorical statistics, the random feature subset ----------------------
        for f in range(d):
            const[f] = False
        if max_features < d:
            for j in range(n_num):
                const[num[j]] = XT[j, S[j, a]] == XT[j, S[j, b - 1]]
        for k in range(n_cat):
            for v in range(cat_ncat[k]):
                cat_nr[k, v] = 0
                cat_s[k, v] = 0.0
                for c in range(C):
                    cat_w[k, v, c] = 0.0
            for p in range(a, b):
                i = samp[p]
                v = cat_codes[k, i]
                cat_nr[k, v] += 1
                if classify:
                    cat_w[k, v, codes[i]] += w[i]
                else:
                    cat_w[k, v, 0] += w[i]
                    cat_s[k, v] += w[i] * yc[i]
            present = 0
            for v in range(cat_ncat[k]):
                if cat_nr[k, v] > 0:
                    present += 1
            const[cat[k]] = present <= 1
        if max_features < d:
            keys = rng.random(d)
            for f in range(d):
                selected[f] = False
            for _ in range(max_features):  # the max_features smallest keys among the non-constant features
                pick = -1
                for f in range(d):
                    if not const[f] and not selected[f] and (pick < 0 or keys[f] < keys[pick]):
                        pick = f
                if pick < 0:
                    break
                selected[pick] = True
        else:
            for f in range(d):
                selected[f] = not const[f]
        for f in range(d):
            best_cost[f] = np.inf
            best_thr[f] = np.nan

        # ---- numeric features: one pass over each sorted range ------------------------------------
        for j in range(n_num):
            f = num[j]
            if not selected[f]:
                continue
            pmin = np.inf
            WL = 0.0
            SL = 0.0
            for c in range(C):
                lcnt[c] = 0.0
            x_next = XT[j, S[j, a]]
            for p in range(a, b - 1):
                i = np.int64(S[j, p])
                if classify:
                    lcnt[codes[i]] += w[i]
                else:
                    WL += w[i]
                    SL += w[i] * yc[i]
                x_here = x_next
                x_next = XT[j, S[j, p + 1]]
                nl = p - a + 1
                if x_here == x_next or nl < min_leaf or m - nl < min_leaf:
                    score[p - a] = np.inf
                    continue
                if classify:
                    WL = lcnt[0]
                    for c in range(1, C):
                        WL += lcnt[c]
                    for c in range(C):
                        rcnt[c] = cnt[c] - lcnt[c]
                    sc = class_cost(lcnt, WL, crit) + class_cost(rcnt, W - WL, crit)
                else:
                    WR = W - WL
                    SR = S_node - SL
                    sc = -(SL * SL / WL + SR * SR / WR)
                score[p - a] = sc
                if sc < pmin:
                    pmin = sc
            if not pmin < np.inf:
                continue
            tol = _TIE_RTOL * max(abs(pmin), 1.0)
            r = a
            while score[r - a] > pmin + tol:  # the lowest threshold among ties
                r += 1
            lo = XT[j, S[j, r]]
            hi = XT[j, S[j, r + 1]]
            thr = 0.5 * (lo + hi)
            if thr >= hi or not np.isfinite(thr):  # rounding: keep lo <= thr < hi
                thr = lo
            best_cost[f] = pmin
            best_thr[f] = thr

        # ---- categorical features: "x == v" (right) vs the rest --------------------------------------
        for k in range(n_cat):
            f = cat[k]
            if not selected[f]:
                continue
            pmin = np.inf
            for v in range(cat_ncat[k]):
                nr = cat_nr[k, v]
                if nr < min_leaf or m - nr < min_leaf or nr == 0 or nr == m:
                    score[v] = np.inf
                    continue
                if classify:
                    WR = cat_w[k, v, 0]
                    for c in range(1, C):
                        WR += cat_w[k, v, c]
                    for c in range(C):
                        rcnt[c] = cat_w[k, v, c]
                        lcnt[c] = cnt[c] - rcnt[c]
                    sc = class_cost(rcnt, WR, crit) + class_cost(lcnt, W - WR, crit)
                else:
                    WR = cat_w[k, v, 0]
                    SR = cat_s[k, v]
                    WL = W - WR
                    SL = S_node - SR
                    sc = -(SL * SL / WL + SR * SR / WR)
                score[v] = sc
                if sc < pmin:
                    pmin = sc
            if not pmin < np.inf:
                continue
            tol = _TIE_RTOL * max(abs(pmin), 1.0)
            v = 0
            while score[v] > pmin + tol:  # the smallest category among ties
                v += 1
            best_cost[f] = pmin
            best_thr[f] = cat_values[k, v]

        # ---- the best feature (lowest index among ties) and the stopping rules -------------------------
        smin = np.inf
        for f in range(d):
            if best_cost[f] < smin:
                smin = best_cost[f]
        if not smin < np.inf:
            node += 1
            continue
        tol = _TIE_RTOL * max(abs(smin), 1.0)
        bf = 0
        while not best_cost[bf] <= smin + tol:
            bf += 1
        improvement = parent_cost - best_cost[bf]
        if not improvement / total_w + _EPS >= min_decrease:
            node += 1
            continue
        thr = best_thr[bf]
        is_cat = False
        for k in range(n_cat):
            if cat[k] == bf:
                is_cat = True
        feature[node] = bf
        threshold[node] = thr
        kind[node] = 1 if is_cat else 0
        left[node] = next_id
        right[node] = next_id + 1

        # ---- send the rows to the children: stable partitions of the node's ranges ----------------------
        nl = 0
        for p in range(a, b):
            i = samp[p]
            x = X[i, bf]
            go = (x == thr) if is_cat else (x > thr)
            side[i] = 1 if go else 0
            if not go:
                nl += 1
        mid = a + nl
        ql = a
        qr = 0
        for p in range(a, b):
            i = samp[p]
            go = side[i]
            tmp_s[qr] = i
            samp[ql] = i
            qr += go
            ql += 1 - go
        for q in range(qr):
            samp[mid + q] = tmp_s[q]
        nr = m - nl
        # the sorted ranges matter only for children that may split, and only for features that are not
        # constant in the node (any part of a constant range is constant: it stays unsplittable)
        if depth[node] + 1 < max_depth and (
            (nl >= min_split and nl >= 2 * min_leaf) or (nr >= min_split and nr >= 2 * min_leaf)
        ):
            for j in range(n_num):
                if XT[j, S[j, a]] == XT[j, S[j, b - 1]]:
                    continue
                ql = a
                qr = 0
                for p in range(a, b):  # branch-free: write both places, advance one (ql <= p: no overwrite)
                    i = S[j, p]
                    go = side[i]
                    tmp_i[qr] = i
                    S[j, ql] = i
                    qr += go
                    ql += 1 - go
                for q in range(qr):
                    S[j, mid + q] = tmp_i[q]
        start[next_id] = a
        end[next_id] = mid
        start[next_id + 1] = mid
        end[next_id + 1] = b
        depth[next_id] = depth[next_id + 1] = depth[node] + 1
        next_id += 2
        node += 1

    k = next_id
    return (
        feature[:k].copy(),
        threshold[:k].copy(),
        kind[:k].copy(),
        left[:k].copy(),
        right[:k].copy(),
        value[:k].copy(),
        impurity[:k].copy(),
        n_node[:k].copy(),
        w_node[:k].copy(),
    )


@jit
def keep_rows(order, keep, m):
    """Per row of ``order`` (rows of X in value order), the ``m`` rows with ``keep[row] == 1``, in order."""
    k, n = order.shape
    out = np.empty((k, m), dtype=order.dtype)
    row = np.empty(n + 1, dtype=order.dtype)
    for j in range(k):
        q = 0
        for p in range(n):  # branch-free: write, advance if kept
            r = order[j, p]
            row[q] = r
            q += keep[r]
        out[j] = row[:m]
    return out


@jit
def apply_tree(X, feature, threshold, kind, left, right):
    """The leaf each row of ``X`` ends in: numeric nodes send x <= threshold left, categorical ones
    x == threshold right (:meth:`.decision_tree.DecisionTree.apply`)."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        node = 0
        while feature[node] >= 0:
            x = X[i, feature[node]]
            t = threshold[node]
            go_right = (x == t) if kind[node] == 1 else (x > t)
            node = right[node] if go_right else left[node]
        out[i] = node
    return out
