"""The mean and standard deviation of a score over cross-validation folds (CIML §5.7, seed 001 L1636-1650).

CIML eqs. 5.16-5.18: for fold scores a_1..a_N, ``mu = (1/N) sum a_n`` and
``sigma = sqrt( 1/(N - 1) sum (a_n - mu)^2 )`` (the unbiased variance's root, eq. 5.16 divides by N - 1).
The text's example: F-scores 92.4, 93.9, 96.1, 92.2, 94.4 give mu = 93.8 and sigma = 1.595, so "95% of the
mass lies above mu - 2 sigma = 90.6": a competitor at 90.6 is beaten. F is computed per fold (it does not
decompose over examples), then summarized.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["FoldSummary", "fold_summary"]


@dataclass(frozen=True)
class FoldSummary:
    """``mean``, ``std`` (ddof 1) and ``n`` of the fold scores; :meth:`band` is ``mean -+ k std``."""

    mean: float
    std: float
    n: int

    def band(self, k: float = 2.0) -> tuple[float, float]:
        """``(mean - k std, mean + k std)``; CIML's k = 2."""
        return self.mean - k * self.std, self.mean + k * self.std


def fold_summary(scores) -> FoldSummary:
    """The fold scores' mean and standard deviation with 1/(N - 1) (CIML eqs. 5.16-5.18); two folds at least."""
    a = np.asarray(scores, dtype=np.float64)
    if a.ndim != 1 or a.size < 2:
        raise ValueError(f"fold_summary needs the scores of at least two folds (a 1-D array), got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("the fold scores contain NaN or infinite values")
    return FoldSummary(float(a.mean()), float(a.std(ddof=1)), int(a.size))
