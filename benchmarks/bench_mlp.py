"""MLP on the 8x8 digits against scikit-learn's MLPClassifier: time per epoch and test accuracy.

Both libraries get the same data (data/uci/digits.csv, a fixed 75/25 split standardized with the
training statistics), the same architecture (one hidden layer of 100 ReLU units, or two of 64), the
same batch size (200), optimizer and learning rate, and the same L2 ``alpha`` (the two objectives are
identical: tests/models/test_mlp.py checks that both take the same steps from the same weights).

* Time per epoch: ``fit`` with exactly ``EPOCHS`` epochs (tol=0, no early stop), timed with the
  shared harness (medians of interleaved runs), divided by ``EPOCHS``.
* Accuracy: test accuracy after those epochs (seed 0), and the mean over seeds 0-2 of the test
  accuracy after training with each library's default stopping rule (tol=1e-4,
  n_iter_no_change=10, max_iter=200), with the mean number of epochs that took.
  Initial weights differ (different random initializations), so accuracies agree only within noise.

scikit-learn's ``solver="sgd"`` is run with ``momentum=0`` to be plain SGD (our ``"sgd"``); with its
default Nesterov momentum it is our ``"nesterov"``.

BLAS runs single-threaded for both (``threadpoolctl``): at these sizes (200x64 by 64x100 products) a
second thread gains nothing, and on a shared 2-core machine two-thread OpenBLAS timings swing by 20x
whenever another process holds a core (measured: 2.4 ms/epoch with one thread, 50-160 ms with two
under load, for both libraries). Set ``REPLEARN_BENCH_THREADS`` to change it.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning
from sklearn.neural_network import MLPClassifier
from threadpoolctl import threadpool_limits

from replearn.exceptions import ConvergenceWarning
from replearn.models.neural.mlp import MLP

from .common import RESULTS_DIR, machine, paired_median_times

ROOT = Path(__file__).resolve().parents[1]
EPOCHS = 30
REPEATS = 5
SEEDS = (0, 1, 2)

SETTINGS = [
    # name, hidden sizes, solver (ours), sklearn solver settings, learning rate
    ("adam, 1x100", [100], "adam", dict(solver="adam"), 1e-3),
    ("sgd, 1x100", [100], "sgd", dict(solver="sgd", momentum=0.0), 0.1),
    ("nesterov, 1x100", [100], "nesterov", dict(solver="sgd", momentum=0.9, nesterovs_momentum=True), 0.01),
    ("adam, 2x64", [64, 64], "adam", dict(solver="adam"), 1e-3),
]


def load_digits():
    data = np.loadtxt(ROOT / "data" / "uci" / "digits.csv", delimiter=",", skiprows=1)
    X, y = data[:, :-1], data[:, -1].astype(int)
    perm = np.random.default_rng(0).permutation(len(y))
    tr, te = perm[:1347], perm[1347:]
    mu, sd = X[tr].mean(axis=0), X[tr].std(axis=0)
    sd[sd == 0] = 1.0
    return (X[tr] - mu) / sd, (X[te] - mu) / sd, y[tr], y[te]


def _pair(hidden, solver, sk, lr, seed=0, **fit):
    common = dict(batch_size=200, alpha=1e-4, learning_rate_init=lr, random_state=seed, **fit)
    ours = MLP(hidden_layer_sizes=list(hidden), activation="relu", solver=solver, **common)
    ref = MLPClassifier(hidden_layer_sizes=tuple(hidden), activation="relu", **sk, **common)
    return ours, ref


def _fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", SkConvergenceWarning)
        return model.fit(X, y)


def main() -> list[dict]:
    with threadpool_limits(limits=int(os.environ.get("REPLEARN_BENCH_THREADS", "1")), user_api="blas"):
        return _main()


def _main() -> list[dict]:
    Xtr, Xte, ytr, yte = load_digits()
    rows = []
    for name, hidden, solver, sk, lr in SETTINGS:
        fixed = dict(max_iter=EPOCHS, tol=0.0, n_iter_no_change=EPOCHS + 1)
        ours, ref = _pair(hidden, solver, sk, lr, **fixed)
        t_ours, t_ref = paired_median_times(
            lambda ours=ours: _fit(ours, Xtr, ytr), lambda ref=ref: _fit(ref, Xtr, ytr), REPEATS
        )
        assert ours.n_iter_ == ref.n_iter_ == EPOCHS
        converged = [
            [_fit(m, Xtr, ytr) for m in _pair(hidden, solver, sk, lr, seed=seed, max_iter=200)] for seed in SEEDS
        ]
        acc = np.array([[m.score(Xte, yte) for m in pair] for pair in converged])
        epochs = np.array([[m.n_iter_ for m in pair] for pair in converged])
        rows.append(
            {
                "case": name,
                "shape": f"digits {Xtr.shape[0]}x{Xtr.shape[1]}, batch 200",
                "reference": f"MLPClassifier({', '.join(f'{k}={v!r}' for k, v in sk.items())})",
                "ours_s_per_epoch": round(t_ours / EPOCHS, 6),
                "sklearn_s_per_epoch": round(t_ref / EPOCHS, 6),
                "ratio": round(t_ours / t_ref, 3),
                f"ours_acc_{EPOCHS}_epochs": round(ours.score(Xte, yte), 4),
                f"sklearn_acc_{EPOCHS}_epochs": round(ref.score(Xte, yte), 4),
                "ours_acc_converged": round(float(acc[:, 0].mean()), 4),
                "sklearn_acc_converged": round(float(acc[:, 1].mean()), 4),
                "ours_epochs_converged": round(float(epochs[:, 0].mean()), 1),
                "sklearn_epochs_converged": round(float(epochs[:, 1].mean()), 1),
            }
        )
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    payload = {
        "benchmark": "mlp",
        "repeats": REPEATS,
        "epochs": EPOCHS,
        "blas_threads": int(os.environ.get("REPLEARN_BENCH_THREADS", "1")),
        "machine": machine(),
        "results": rows,
    }
    tmp = RESULTS_DIR / "mlp.json.tmp"
    tmp.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    tmp.replace(RESULTS_DIR / "mlp.json")
    print(markdown_table(rows))
    return rows


def markdown_table(rows: list[dict]) -> str:
    lines = [
        "### mlp",
        "",
        f"| case | shape | reference | ours (ms/epoch) | sklearn (ms/epoch) | ratio ours/sklearn "
        f"| accuracy after {EPOCHS} epochs (ours / sklearn) | accuracy at default stop, mean of {len(SEEDS)} seeds "
        "(ours / sklearn) | epochs to stop, mean (ours / sklearn) |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['case']} | {r['shape']} | {r['reference']} | {1000 * r['ours_s_per_epoch']:.2f} "
            f"| {1000 * r['sklearn_s_per_epoch']:.2f} | {r['ratio']:.2f} "
            f"| {r[f'ours_acc_{EPOCHS}_epochs']:.4f} / {r[f'sklearn_acc_{EPOCHS}_epochs']:.4f} "
            f"| {r['ours_acc_converged']:.4f} / {r['sklearn_acc_converged']:.4f} "
            f"| {r['ours_epochs_converged']} / {r['sklearn_epochs_converged']} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
