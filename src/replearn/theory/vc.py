"""VC dimension by brute-force shattering, for small hypothesis classes in 1-D and 2-D.

Definitions (CS229 notes §8.3.3, seed 000 L3806-3823; CIML §12.6 Definition 2, seed 001 L4136-4151):
H *shatters* a point set S if every one of the 2^|S| labelings of S is realized by some h in H;
VC(H) is the size of the largest set H shatters. To show VC(H) >= D one set of size D suffices; to
show VC(H) < D + 1 no set of size D + 1 may be shattered.

:func:`vc_dimension` searches: for D = 1, 2, ... it tries candidate point sets of size D — structured
configurations (evenly spaced, regular polygons in two orientations, polygon plus centre, collinear,
grid) and ``n_random`` seeded random sets in general position — and every labeling of each, until no
candidate of some size D + 1 is shattered; it returns D. The answer is not looked up. The upper side
is evidence, not a proof (only finitely many sets are tried), which is why the structured candidates
include the configurations that are hardest to beat (e.g. the "diamond" that rectangles shatter).

Classes (``name``: hypotheses, realizability test of a labeling):

* ``"thresholds"`` (1-D): h_t(x) = 1[x >= t] — positives all to the right of all negatives. VC 1.
* ``"intervals"`` (1-D): h_{a,b}(x) = 1[a <= x <= b] — no negative between the outermost positives. VC 2.
* ``"halfplanes"`` (2-D): h(x) = 1[theta_0 + theta_1 x_1 + theta_2 x_2 >= 0] (CS229 L3813) — the two
  classes are strictly linearly separable, checked by a linear program (``scipy.optimize.linprog``). VC 3.
* ``"rectangles"`` (2-D): axis-aligned boxes, 1 inside — the positives' bounding box holds no negative. VC 4.
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass, field

import numpy as np

from ..validation import check_array, check_random_state, check_scalar


def _thresholds(x, y):
    pos, neg = x[y, 0], x[~y, 0]
    return pos.size == 0 or neg.size == 0 or neg.max() < pos.min()


def _intervals(x, y):
    pos, neg = x[y, 0], x[~y, 0]
    if pos.size == 0:
        return True
    return not np.any((neg >= pos.min()) & (neg <= pos.max()))


def _halfplanes(x, y):
    if y.all() or not y.any():
        return True
    s = np.where(y, 1.0, -1.0)
    from scipy.optimize import linprog  # here: importing scipy.optimize costs ~0.1 s that the schema check skips

    A = -s[:, None] * np.hstack([np.ones((x.shape[0], 1)), x])  # s_i (theta_0 + theta . x_i) >= 1
    res = linprog(np.zeros(3), A_ub=A, b_ub=-np.ones(x.shape[0]), bounds=[(None, None)] * 3, method="highs")
    return res.status == 0


def _rectangles(x, y):
    if not y.any():
        return True
    lo, hi = x[y].min(axis=0), x[y].max(axis=0)
    inside = np.all((x[~y] >= lo) & (x[~y] <= hi), axis=1)
    return not inside.any()


#: name -> (input dimension, realizability test)
HYPOTHESIS_CLASSES = {
    "thresholds": (1, _thresholds),
    "intervals": (1, _intervals),
    "halfplanes": (2, _halfplanes),
    "rectangles": (2, _rectangles),
}


def _get(name):
    if name not in HYPOTHESIS_CLASSES:
        raise ValueError(f"unknown hypothesis class {name!r}; choose one of {sorted(HYPOTHESIS_CLASSES)}")
    return HYPOTHESIS_CLASSES[name]


def _check_points(name, points):
    dim, test = _get(name)
    pts = np.asarray(points, dtype=np.float64)
    if dim == 1 and pts.ndim == 1:
        pts = pts[:, None]
    pts = check_array(pts, name="points")
    if pts.shape[1] != dim:
        raise ValueError(f"{name} act on {dim}-D points; got points of shape {pts.shape}")
    return pts, test


def realizable(name, points, labels) -> bool:
    """Whether some hypothesis of class ``name`` labels ``points`` exactly as ``labels`` (bool / 0-1)."""
    pts, test = _check_points(name, points)
    y = np.asarray(labels)
    if y.shape != (pts.shape[0],):
        raise ValueError(f"labels must have one entry per point ({pts.shape[0]}), got shape {y.shape}")
    if not np.all(np.isin(y, (0, 1))):
        raise ValueError("labels must be boolean or 0/1")
    return bool(test(pts, y.astype(bool)))


def shatters(name, points) -> bool:
    """Whether class ``name`` realizes all 2^m labelings of the m ``points``."""
    pts, test = _check_points(name, points)
    return all(test(pts, np.array(lab, dtype=bool)) for lab in itertools.product((False, True), repeat=pts.shape[0]))


def candidate_point_sets(name, size, n_random=20, random_state=None) -> list[np.ndarray]:
    """Point sets of ``size`` points tried by :func:`vc_dimension`: structured ones, then seeded random ones."""
    dim, _ = _get(name)
    check_scalar(size, "size", numbers.Integral, low=1)
    check_scalar(n_random, "n_random", numbers.Integral, low=0)
    rng = check_random_state(random_state)
    m = int(size)
    out = []
    if dim == 1:
        out.append(np.arange(m, dtype=np.float64)[:, None])
        out.append(np.cumsum(1.0 + np.arange(m, dtype=np.float64))[:, None])  # uneven gaps
    else:
        for offset in (0.0, np.pi / m):  # regular m-gon: the "diamond" and the axis-aligned orientation
            t = 2.0 * np.pi * np.arange(m) / m + offset
            out.append(np.column_stack([np.cos(t), np.sin(t)]))
        if m >= 4:  # (m-1)-gon plus its centre
            t = 2.0 * np.pi * np.arange(m - 1) / (m - 1)
            out.append(np.vstack([np.column_stack([np.cos(t), np.sin(t)]), [[0.0, 0.0]]]))
        out.append(np.column_stack([np.arange(m, dtype=np.float64), 2.0 * np.arange(m)]))  # collinear
        side = int(np.ceil(np.sqrt(m)))
        out.append(np.array([(i % side, i // side) for i in range(m)], dtype=np.float64))  # grid
    out.extend(rng.normal(size=(m, dim)) for _ in range(int(n_random)))
    return out


@dataclass
class VCSearchResult:
    """What :func:`vc_search` found: the dimension, a shattered witness set, and how much was tried."""

    name: str
    dimension: int
    witness: np.ndarray | None = field(repr=False)  # a shattered set of ``dimension`` points
    n_candidates: dict = field(default_factory=dict)  # size -> point sets tried
    reached_max: bool = False  # a set of max_points points was shattered


def vc_search(name, max_points=8, n_random=20, random_state=0) -> VCSearchResult:
    """Largest D <= max_points such that a candidate set of D points is shattered (see module doc)."""
    _get(name)
    check_scalar(max_points, "max_points", numbers.Integral, low=1)
    rng = check_random_state(random_state)
    dimension, witness, tried = 0, None, {}
    for size in range(1, int(max_points) + 1):
        found = None
        cands = candidate_point_sets(name, size, n_random=n_random, random_state=rng)
        k = 0  # point sets tried at this size
        for pts in cands:
            k += 1
            if shatters(name, pts):
                found = pts
                break
        tried[size] = k
        if found is None:
            return VCSearchResult(name, dimension, witness, tried, reached_max=False)
        dimension, witness = size, found
    return VCSearchResult(name, dimension, witness, tried, reached_max=True)


def vc_dimension(name, max_points=8, n_random=20, random_state=0) -> int:
    """VC dimension of ``name`` ("thresholds", "intervals", "halfplanes", "rectangles") by brute-force
    shattering (see :func:`vc_search`). Raises if even ``max_points`` points were shattered."""
    res = vc_search(name, max_points=max_points, n_random=n_random, random_state=random_state)
    if res.reached_max:
        raise ValueError(f"{name} shattered a set of max_points={max_points} points; raise max_points")
    return res.dimension
