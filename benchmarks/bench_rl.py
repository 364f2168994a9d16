"""Value iteration and policy iteration: time and iterations against the number of states.

Random grid worlds (``replearn.rl.envs.random_grid_world``: 10% walls, largest connected region kept,
one +1 and one -1 terminal, living reward -0.04, noise 0.2) from 4x4 to 100x100 cells, solved with gamma = 0.99:

* value iteration, synchronous sweeps (one sparse matrix-vector product each), stopping when the
  bound ``gamma r / (1 - gamma)`` on ``||V - V*||_inf`` is below 1e-6;
* value iteration, Gauss-Seidel sweeps (a Python loop over states; only up to ~1,000 states);
* policy iteration with exact evaluation (sparse LU, SuperLU via ``scipy.sparse.linalg.spsolve``).

There is no reference library here: the numbers are iterations and seconds of replearn alone,
the median of ``repeats`` runs (1 for the largest worlds), one BLAS thread (``REPLEARN_BENCH_THREADS``).
``max |V - V_PI|`` and the share of states where the greedy action equals policy iteration's check that
the methods agree (value iteration stops within 1e-6 of V*, so near-ties may pick another, equally good
action). Results go to ``rl.json`` in :data:`benchmarks.common.RESULTS_DIR` (``benchmarks/results/local/``
unless ``REPLEARN_BENCH_OUT`` says otherwise) and are printed as a markdown table:
``python -m benchmarks.bench_rl``. The file has no ``"benchmark"`` key (its key is ``"suite"``): like
calibration.json it has no scikit-learn ratio, so ``benchmarks.summary`` skips it and the table lives in
docs/performance.md's RL section instead.
"""

from __future__ import annotations

import json
import os
import statistics
import time

import numpy as np
from threadpoolctl import threadpool_limits

from replearn.rl import policy_iteration, value_iteration
from replearn.rl.envs import random_grid_world

from .common import RESULTS_DIR, machine

THREADS = int(os.environ.get("REPLEARN_BENCH_THREADS", "1"))
SIDES = [4, 8, 16, 32, 64, 100]
GAMMA, TOL = 0.99, 1e-6
GAUSS_SEIDEL_MAX_STATES = 4000


def _timed(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times)


def main() -> list[dict]:
    rows = []
    with threadpool_limits(limits=THREADS):
        for side in SIDES:
            world = random_grid_world(side, side, wall_fraction=0.1, random_state=side)
            mdp = world.to_mdp(GAMMA, sparse=True)
            repeats = 3 if mdp.n_states <= 1100 else 1
            pi, t_pi = _timed(lambda m=mdp: policy_iteration(m), repeats)
            cases = [("policy iteration (exact, sparse LU)", pi, t_pi)]
            vi, t_vi = _timed(lambda m=mdp: value_iteration(m, tol=TOL), repeats)
            cases.append(("value iteration (synchronous)", vi, t_vi))
            if mdp.n_states <= GAUSS_SEIDEL_MAX_STATES:
                gs, t_gs = _timed(lambda m=mdp: value_iteration(m, tol=TOL, update="gauss-seidel"), repeats)
                cases.append(("value iteration (Gauss-Seidel)", gs, t_gs))
            for name, sol, t in cases:
                rows.append(
                    {
                        "grid": f"{side}x{side}",
                        "n_states": mdp.n_states,
                        "nnz_P": int(mdp.transitions_flat.nnz),
                        "method": name,
                        "n_iter": int(sol.n_iter),
                        "seconds": round(t, 5),
                        "ms_per_iter": round(1000 * t / sol.n_iter, 4),
                        "max_abs_diff_vs_pi": float(np.max(np.abs(sol.values - pi.values))),
                        "policy_agreement_with_pi": float(np.mean(sol.policy == pi.policy)),
                    }
                )
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    payload = {"suite": "rl", "gamma": GAMMA, "tol": TOL, "threads": THREADS, "machine": machine(), "results": rows}
    tmp = RESULTS_DIR / "rl.json.tmp"
    tmp.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    tmp.replace(RESULTS_DIR / "rl.json")
    print(markdown_table(rows))
    return rows


def markdown_table(rows: list[dict]) -> str:
    lines = [
        "### rl (random grid worlds, gamma = 0.99, VI stops at bound <= 1e-6)",
        "",
        "| grid | states | method | iterations | time (s) | ms / iteration | max abs diff vs PI | same action as PI |",
        "|---|---:|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['grid']} | {r['n_states']} | {r['method']} | {r['n_iter']} | {r['seconds']:.4f} "
            f"| {r['ms_per_iter']:.3f} | {r['max_abs_diff_vs_pi']:.1e} | {100 * r['policy_agreement_with_pi']:.2f}% |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
