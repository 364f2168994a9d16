"""The half-sampling t-test under its normal-theory model: size over the whole range of the between term.

:mod:`benchmarks.calibration_pipeline` measures the pipeline on learner classes; this script measures the test
itself where no learner class of the calibration sits: a data-sampling (between) term from zero up to many
times the inner noise, and within terms from a fifth to twice it (``within / (f S2)``; the pipeline's default
designs run at about 0.4 for cv and 1.4 for seeds on resampled hold-outs). Scores are drawn from the model the
estimator assumes and fed to :func:`replearn.stats.half_sampling_ttest` itself (model b is 0 everywhere):

* outer: ``J = 10`` repeat means ``d_r = delta + N(0, 10 w)`` with ``delta ~ N(0, f beta)`` common to them
  (the data set's true difference);
* inner: B = 20 subsets, each with its own mean ``N(0, beta)`` and R = 6 repeat estimates around it with noise
  ``N(0, R sigma2)`` (so ``S2`` estimates ``sigma2``); ``f = m / (n - m) = 1/2``.

For each noise rule (``k = 1``; ``k = 1.5``; the shipped adaptive ``k``) and cell it prints the rate at which a
two-sided test at 0.05 rejects the true null ``E[delta] = 0``. Run: ``python -m benchmarks.halfsampling_model``
(``--reps``, ``--seed``); about a minute; prints a Markdown table, writes nothing.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from replearn import stats

B, R, J, N, M = 20, 6, 10, 150, 50
F = M / (N - M)
SIGMA2 = 1.0  # the inner noise of a subset's estimate (everything else is relative to it)
BETWEEN = (0.0, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0, 2.0, 4.0, 10.0)  # beta / sigma2
WITHIN = (0.2, 0.4, 0.7, 1.4, 2.0)  # w / (f sigma2)
RULES = {"k = 1": 1.0, "k = 1.5": 1.5, "adaptive k (shipped)": None}


def size(beta: float, w: float, k: float | None, reps: int, rng: np.random.Generator) -> float:
    """Rejection rate of the true null with between term ``beta`` and within term ``w`` (variance of the mean)."""
    rejections = 0
    for _ in range(reps):
        delta = rng.normal(0.0, np.sqrt(F * beta))
        a = delta + rng.normal(0.0, np.sqrt(J * w), J)
        half = rng.normal(0.0, np.sqrt(beta), (B, 1)) + rng.normal(0.0, np.sqrt(R * SIGMA2), (B, R))
        res = stats.half_sampling_ttest(
            a, np.zeros(J), half_a=half, half_b=np.zeros((B, R)), n_examples=N, subsample_size=M, noise_factor=k
        )
        rejections += res.pvalue <= 0.05
    return rejections / reps


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20240622)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    print(f"Size of half_sampling_ttest at alpha 0.05, {args.reps} data sets per cell (B = {B}, R = {R}, J = {J}).")
    for name, k in RULES.items():
        print(f"\n**{name}** -- rows: within / (f S2); columns: between / S2\n")
        print("| within \\ between | " + " | ".join(f"{b:g}" for b in BETWEEN) + " | max |")
        print("|---" * (len(BETWEEN) + 2) + "|")
        for wr in WITHIN:
            rates = [size(b * SIGMA2, wr * F * SIGMA2, k, args.reps, rng) for b in BETWEEN]
            print(f"| {wr:g} | " + " | ".join(f"{100 * r:.1f}" for r in rates) + f" | {100 * max(rates):.1f} |")
    print(f"\n({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
