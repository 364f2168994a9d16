"""SVMs: SMO (second-order working-set selection) vs scikit-learn's SVC (LIBSVM) at n = 5000 and, for
RBF and polynomial kernels, at n = 300 and 1000 (where per-iteration overhead dominates), and the
linear SVM's dual coordinate descent vs LinearSVC (LIBLINEAR) at C = 0.01 and, the setting of issue 23,
C = 1, tol = 1e-4 at n = 4000 (both run their 1000-epoch limit there: the data are not separable).
Besides the fit times, the SVC case reports how close the two dual objectives are (target: within 1e-3 relative)."""

from __future__ import annotations

import json
import os

import numpy as np
from sklearn.svm import SVC, LinearSVC
from threadpoolctl import threadpool_limits

from replearn.kernels import kernel_matrix
from replearn.models.svm.linear_svm import LinearSVM
from replearn.models.svm.svm import SVM

from .common import RESULTS_DIR, Case, run_cases

#: BLAS threads for both libraries (1: small products swing with a busy core); REPLEARN_BENCH_THREADS changes it
THREADS = int(os.environ.get("REPLEARN_BENCH_THREADS", "1"))


def svm_data(n, d=10, seed=0):
    """Two overlapping classes with a curved boundary, standardized (so gamma = 1/d is "scale")."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    score = X[:, 0] + 0.5 * X[:, 1] ** 2 - np.sin(2 * X[:, 2]) + 0.5 * rng.normal(size=n)
    return (X - X.mean(0)) / X.std(0), (score > np.median(score)).astype(int)


def sklearn_dual_objective(ref: SVC, X: np.ndarray, **kernel) -> float:
    """W(a) = sum a - 1/2 (a y)^T K (a y) of scikit-learn's solution, on its support vectors."""
    ay = ref.dual_coef_[0]
    Xs = X[ref.support_]
    return float(np.abs(ay).sum() - 0.5 * ay @ kernel_matrix(Xs, Xs, **kernel) @ ay)


def main() -> list[dict]:
    X, y = svm_data(5000)
    rng = np.random.default_rng(1)
    Xl = rng.normal(size=(5000, 20))
    yl = (Xl @ rng.normal(size=20) / np.sqrt(20) + 0.5 * rng.normal(size=5000) > 0).astype(int)
    gamma, C, tol = 0.1, 1.0, 1e-3
    cases = [
        Case(
            f"SVM(C={C}, kernel='rbf', gamma={gamma}, tol={tol}).fit (SMO)",
            "5000x10, binary",
            lambda: SVM(C=C, kernel="rbf", gamma=gamma, tol=tol).fit(X, y),
            lambda: SVC(C=C, kernel="rbf", gamma=gamma, tol=tol).fit(X, y),
            "SVC(kernel='rbf')",
        ),
        Case(
            "LinearSVM(C=0.01, solver='dual_cd', tol=1e-3).fit",
            "5000x20, binary",
            lambda: LinearSVM(C=0.01, tol=1e-3, random_state=0).fit(Xl, yl),
            lambda: LinearSVC(C=0.01, loss="hinge", tol=1e-3, random_state=0).fit(Xl, yl),
            "LinearSVC(loss='hinge', tol=1e-3)",
        ),
        Case(  # issue 23: the setting where dual CD took 4.8x LIBLINEAR's time before its loop was compiled whole
            "LinearSVM(C=1, solver='dual_cd', tol=1e-4).fit",
            "4000x20, binary",
            lambda: LinearSVM(C=1.0, tol=1e-4, random_state=0).fit(Xl[:4000], yl[:4000]),
            lambda: LinearSVC(C=1.0, loss="hinge", dual=True, tol=1e-4, random_state=0).fit(Xl[:4000], yl[:4000]),
            "LinearSVC(loss='hinge', dual=True, tol=1e-4)",
        ),
        Case(
            "LinearSVM(C=0.01, solver='pegasos', max_iter=20).fit",
            "5000x20, binary",
            lambda: LinearSVM(C=0.01, solver="pegasos", max_iter=20, random_state=0).fit(Xl, yl),
            lambda: LinearSVC(C=0.01, loss="hinge", tol=1e-3, random_state=0).fit(Xl, yl),
            "LinearSVC(loss='hinge', tol=1e-3)",
        ),
    ]
    for n_small in (300, 1000):  # small data: per-iteration overhead, not kernel rows, dominates here
        Xs, ys = svm_data(n_small)
        for kernel, sk_kernel in (("rbf", "rbf"), ("polynomial", "poly")):
            kw = {"gamma": gamma, "degree": 3, "coef0": 1.0} if kernel == "polynomial" else {"gamma": gamma}
            cases.append(
                Case(
                    f"SVM(C={C}, kernel='{kernel}', gamma={gamma}{', degree=3, coef0=1' if kw.get('degree') else ''}"
                    f", tol={tol}).fit (SMO)",
                    f"{n_small}x10, binary",
                    lambda Xs=Xs, ys=ys, kw=kw, kernel=kernel: SVM(C=C, kernel=kernel, tol=tol, **kw).fit(Xs, ys),
                    lambda Xs=Xs, ys=ys, kw=kw, k=sk_kernel: SVC(C=C, kernel=k, tol=tol, **kw).fit(Xs, ys),
                    f"SVC(kernel='{sk_kernel}')",
                )
            )
    # issue 41's case: polynomial kernel, degree 3, n = 2000, d = 10, C = 1, with scikit-learn's coef0 = 0 (where
    # every kernel row mixes signs: np.power's per-element pow() cost 3.7x LIBSVM before rows were cubed by products)
    # and with CIML's coef0 = 1
    Xp, yp = svm_data(2000)
    for coef0 in (0.0, 1.0):
        cases.append(
            Case(
                f"SVM(C=1.0, kernel='polynomial', gamma={gamma}, degree=3, coef0={coef0:g}, tol={tol}).fit (SMO)",
                "2000x10, binary",
                lambda c0=coef0: SVM(C=1.0, kernel="polynomial", gamma=gamma, degree=3, coef0=c0, tol=tol).fit(Xp, yp),
                lambda c0=coef0: SVC(C=1.0, kernel="poly", gamma=gamma, degree=3, coef0=c0, tol=tol).fit(Xp, yp),
                f"SVC(kernel='poly', coef0={coef0:g})",
            )
        )
    with threadpool_limits(limits=THREADS):
        rows = run_cases("svm", cases, repeats=5, blas_threads=THREADS)

    ours = SVM(C=C, kernel="rbf", gamma=gamma, tol=tol).fit(X, y)
    ref = SVC(C=C, kernel="rbf", gamma=gamma, tol=tol).fit(X, y)
    W_ours = float(ours.dual_objective_[0])
    W_ref = sklearn_dual_objective(ref, X, kernel="rbf", gamma=gamma)
    objective = {
        "case": "SVM vs SVC, 5000x10, rbf, C=1, gamma=0.1, tol=1e-3",
        "dual_objective_ours": W_ours,
        "dual_objective_sklearn": W_ref,
        "relative_difference": abs(W_ours - W_ref) / abs(W_ref),
        "n_iter_ours": int(ours.n_iter_[0]),
        "n_iter_sklearn": int(ref.n_iter_[0]),
        "n_support_ours": int(ours.support_.size),
        "n_support_sklearn": int(ref.support_.size),
        "prediction_agreement": float(np.mean(ours.predict(X) == ref.predict(X))),
    }
    path = RESULTS_DIR / "svm.json"
    payload = json.loads(path.read_text(encoding="utf-8"))
    payload["dual_objective"] = objective
    path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(
        f"dual objective: ours {W_ours:.6f}, SVC {W_ref:.6f}, relative difference "
        f"{objective['relative_difference']:.2e}; SMO iterations {objective['n_iter_ours']} vs "
        f"{objective['n_iter_sklearn']}\n"
    )
    return rows


if __name__ == "__main__":
    main()
