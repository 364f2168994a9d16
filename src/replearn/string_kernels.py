"""Kernels on strings (CS229 notes §5.4, seed 000 L1940): the k-substring (spectrum) kernel and the
gap-weighted subsequence kernel.

* Substring kernel: phi(x) counts every length-k substring of x — 26^k dimensions for English
  letters (26^4 ~ 460000, L1940) — and K(x, z) = phi(x)^T phi(z). It is computed without forming
  phi: :func:`substring_kernel` by dynamic programming over the two strings (the length of the
  common run ending at x_i, z_j; every run of length >= k is one matching k-substring pair),
  :func:`substring_kernel_counts` by counting substrings in a hash map (the explicit sparse phi).
* Subsequence kernel (Lodhi et al. 2002, the classic "string subsequence kernel"): phi_u(x) =
  sum over index tuples i with x[i] = u of lambda^(i_k - i_1 + 1), for all length-k strings u, so
  gapped matches count with a decay lambda in (0, 1]. :func:`subsequence_kernel` is the O(k |x| |z|)
  recursion; :func:`subsequence_kernel_bruteforce` enumerates index tuples (the test reference).

Both are inner products of explicit feature maps, hence valid (Mercer) kernels; :func:`string_kernel_matrix`
builds Gram matrices (optionally normalized, K(x, z) / sqrt(K(x, x) K(z, z))) for kernel methods.
"""

from __future__ import annotations

import itertools
import numbers
from collections import Counter

import numpy as np

from .validation import check_scalar


def _check_str(s, name):
    if not isinstance(s, str):
        raise TypeError(f"{name} must be a str, got {type(s).__name__}")
    return s


def _check_k(k):
    check_scalar(k, "k", numbers.Integral, low=1)
    return int(k)


def substring_features(s, k) -> Counter:
    """phi(s) as a sparse map: length-k substring -> number of occurrences."""
    s, k = _check_str(s, "s"), _check_k(k)
    return Counter(s[i : i + k] for i in range(len(s) - k + 1))


def substring_kernel_counts(s, t, k) -> float:
    """K(s, t) = phi(s)^T phi(t) from the two substring-count maps."""
    a, b = substring_features(s, k), substring_features(t, k)
    if len(a) > len(b):
        a, b = b, a
    return float(sum(c * b[u] for u, c in a.items()))


def substring_kernel(s, t, k) -> float:
    """K(s, t) = phi(s)^T phi(t) by dynamic programming, without phi.

    run[i, j] = length of the longest common suffix of s[:i + 1] and t[:j + 1] (run[i, j] =
    run[i - 1, j - 1] + 1 if s_i = t_j, else 0); a pair (i, j) with run >= k is a pair of equal
    k-substrings ending at i and j, so K = #{(i, j): run[i, j] >= k}. O(|s| |t|).
    """
    s, t, k = _check_str(s, "s"), _check_str(t, "t"), _check_k(k)
    if len(s) < k or len(t) < k:
        return 0.0
    a = np.frombuffer(s.encode("utf-32-le"), dtype=np.uint32)
    b = np.frombuffer(t.encode("utf-32-le"), dtype=np.uint32)
    eq = a[:, None] == b[None, :]
    run = np.zeros(b.size, dtype=np.int64)
    total = 0
    for i in range(a.size):  # one row of the table at a time, vectorized over j
        run = np.where(eq[i], np.concatenate([[0], run[:-1]]) + 1, 0)
        total += int(np.sum(run >= k))
    return float(total)


def subsequence_kernel(s, t, k, lam=0.5) -> float:
    """Gap-weighted subsequence kernel K_k(s, t) (Lodhi et al. 2002), O(k |s| |t|).

    Recursion with K'_0 = 1 and, for i = 1..k-1,
    K'_i(sx, t) = lam K'_i(s, t) + sum_{j: t_j = x} K'_{i-1}(s, t[:j]) lam^(|t| - j + 2);
    K_k(sx, t) = K_k(s, t) + sum_{j: t_j = x} K'_{k-1}(s, t[:j]) lam^2 (1-based j).
    """
    s, t, k = _check_str(s, "s"), _check_str(t, "t"), _check_k(k)
    check_scalar(lam, "lam", numbers.Real, low=0.0, high=1.0, low_inclusive=False)
    n, m = len(s), len(t)
    if n < k or m < k:
        return 0.0
    # Kp[i][a][b] = K'_i(s[:a], t[:b])
    Kp = np.zeros((k, n + 1, m + 1))
    Kp[0] = 1.0
    for i in range(1, k):
        Kpp = np.zeros((n + 1, m + 1))  # K''_i(s[:a], t[:b])
        for a in range(i, n + 1):
            x = s[a - 1]
            for b in range(i, m + 1):
                Kpp[a, b] = lam * Kpp[a, b - 1] + (lam * lam * Kp[i - 1, a - 1, b - 1] if t[b - 1] == x else 0.0)
                Kp[i, a, b] = lam * Kp[i, a - 1, b] + Kpp[a, b]
    total = 0.0
    for a in range(k, n + 1):
        x = s[a - 1]
        for b in range(1, m + 1):
            if t[b - 1] == x:
                total += lam * lam * Kp[k - 1, a - 1, b - 1]
    return float(total)


def subsequence_kernel_bruteforce(s, t, k, lam=0.5) -> float:
    """The same kernel from its definition: phi_u(x) = sum_{i: x[i] = u} lam^(i_k - i_1 + 1)."""
    s, t, k = _check_str(s, "s"), _check_str(t, "t"), _check_k(k)

    def phi(x):
        out: dict = {}
        for idx in itertools.combinations(range(len(x)), k):
            u = "".join(x[i] for i in idx)
            out[u] = out.get(u, 0.0) + lam ** (idx[-1] - idx[0] + 1)
        return out

    a, b = phi(s), phi(t)
    return float(sum(v * b.get(u, 0.0) for u, v in a.items()))


KERNELS = {"substring": substring_kernel, "subsequence": subsequence_kernel}


def string_kernel_matrix(A, B=None, *, kernel="substring", k=3, lam=0.5, normalize=False) -> np.ndarray:
    """Gram matrix K[i, j] = kernel(A[i], B[j]) for lists of strings; ``normalize`` divides by
    sqrt(K(a, a) K(b, b)) (0 where a string has no length-k substring)."""
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {sorted(KERNELS)}, got {kernel!r}")
    A = list(A)
    same = B is None
    B = A if same else list(B)
    for name, L in (("A", A), ("B", B)):
        if not L:
            raise ValueError(f"{name} is empty; at least one string is needed")
        for i, s in enumerate(L):
            _check_str(s, f"{name}[{i}]")
    f = KERNELS[kernel]
    extra = {} if kernel == "substring" else {"lam": lam}
    K = np.empty((len(A), len(B)))
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            if same and j < i:
                K[i, j] = K[j, i]
            else:
                K[i, j] = f(a, b, k, **extra)
    if normalize:
        da = np.array([f(a, a, k, **extra) for a in A])
        db = da if same else np.array([f(b, b, k, **extra) for b in B])
        scale = np.sqrt(np.outer(da, db))
        K = np.divide(K, scale, out=np.zeros_like(K), where=scale > 0)
    return K
