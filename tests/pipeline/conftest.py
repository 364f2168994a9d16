"""Small synthetic report inputs, in exactly the schemas the pipeline stages write.

Three datasets: ``iris`` and ``wine`` (classification, accuracy + f1_macro, 3 models) and
``diabetes`` (regression, mse + r2, no ``classes``/``correct``, no McNemar rows). The numbers
are hand-picked, not produced by real models; only their formatting is under test.
"""

from __future__ import annotations

import pytest

MODELS = ("gaussian_naive_bayes", "knn", "logistic_regression")
N_SPLITS = 10
# Fixed per-split offsets (sum 0) added to each model's mean score.
OFFSETS = (0.01, -0.02, 0.0, 0.015, -0.005, 0.02, -0.01, 0.0, -0.015, 0.005)


def _splits(n_examples: int, n_test: int) -> list[dict]:
    return [
        {
            "index": i,
            "kind": "split",
            "repeat": i // 5,
            "fold": i % 5,
            "n_train": n_examples - n_test,
            "n_test": n_test,
            "seed": i // 5,
            "test_index": list(range((i % 5) * n_test, (i % 5) * n_test + n_test)),
        }
        for i in range(N_SPLITS)
    ]


def _scores(mean: float, scale: float = 1.0) -> list[float]:
    return [round(mean + scale * o, 6) for o in OFFSETS]


def evaluation_dict(models: dict, *, dataset: str = "d", metric: str | None = None, **fields) -> dict:
    """A complete crossval record (plain data) for a report function under test: ``models`` maps key -> the fields of
    its ``ModelEvaluation`` it sets (``scores`` at least; ``n_iter``/``converged`` default to one per replicate),
    ``fields`` the record's own (``splits`` default to one ``split`` per score, ``metric`` names the primary one)."""
    n = max((len(v) for m in models.values() for v in (m.get("scores") or {}).values()), default=0)
    metrics = sorted({k for m in models.values() for k in m.get("scores") or {}}) or ["accuracy"]
    primary = metric or metrics[0]
    record = {
        "dataset": dataset,
        "task": "classification",
        "n_examples": 10 * max(n, 1),
        "scheme": {"name": "repeated_kfold", "folds": max(n, 2), "repeats": 1, "seed": 0},
        "metrics": metrics,
        "primary_metric": primary,
        "greater_is_better": {k: True for k in metrics},
        "splits": [{"index": i, "kind": "split", "n_train": 9, "n_test": 1} for i in range(n)],
        "models": {
            key: {
                "registry_name": key,
                "params": {},
                "scores": {},
                "n_iter": [None] * n,
                "converged": [True] * n,
                **m,
            }
            for key, m in models.items()
        },
        "schema_version": 6,
    }
    record.update(fields)
    return record


@pytest.fixture
def evaluation():
    """:func:`evaluation_dict`: a complete crossval record for a test to shape."""
    return evaluation_dict


def classification_cv(name: str, means: dict[str, float], classes: list[str], n_examples: int = 112) -> dict:
    n_test = n_examples // 5
    models = {}
    for m, mean in means.items():
        models[m] = {
            "registry_name": m,
            "params": {"C": 1.0} if m == "logistic_regression" else {},
            "scores": {"accuracy": _scores(mean), "f1_macro": _scores(mean - 0.01)},
            "n_iter": [None] * N_SPLITS,
            "converged": [True] * N_SPLITS,
            "correct": [[1 if (j + i) % 10 else 0 for j in range(n_test)] for i in range(N_SPLITS)],
        }
    return {
        "dataset": name,
        "task": "classification",
        "classes": classes,
        "n_examples": n_examples,
        "scheme": {"name": "repeated_stratified_kfold", "folds": 5, "repeats": 2, "seed": 0},
        "metrics": ["accuracy", "f1_macro"],
        "primary_metric": "accuracy",
        "greater_is_better": {"accuracy": True, "f1_macro": True},
        "splits": _splits(n_examples, n_test),
        "models": models,
    }


def regression_cv(name: str, means: dict[str, float], n_examples: int = 331) -> dict:
    n_test = n_examples // 5
    return {
        "dataset": name,
        "task": "regression",
        "n_examples": n_examples,
        "scheme": {"name": "repeated_kfold", "folds": 5, "repeats": 2, "seed": 0},
        "metrics": ["mse", "r2"],
        "primary_metric": "mse",
        "greater_is_better": {"mse": False, "r2": True},
        "splits": _splits(n_examples, n_test),
        "models": {
            m: {
                "registry_name": m,
                "params": {},
                "scores": {"mse": _scores(mse, scale=100.0), "r2": _scores(1.0 - mse / 6000.0)},
                "n_iter": [None] * N_SPLITS,
                "converged": [True] * N_SPLITS,
            }
            for m, mse in means.items()
        },
    }


def _cv_row(a, b, mean_a, mean_b, p, p_adj, significant, winner, stat=-0.8, ci=(-0.04, 0.02)):
    return {
        "model_a": a,
        "model_b": b,
        "mean_a": mean_a,
        "mean_b": mean_b,
        "mean_difference": mean_a - mean_b,
        "test": "corrected_resampled_ttest",
        "statistic": stat,
        "df": 9,
        "pvalue": p,
        "pvalue_adjusted": p_adj,
        "effect_size": -0.25,
        "effect_size_name": "d_z",
        "ci": list(ci),
        "significant": significant,
        "winner": winner,
        "conventions": "A minus B",
    }


def _mcnemar_row(a, b, n01, n10, p, p_adj, acc_a, acc_b, significant, winner):
    return {
        "model_a": a,
        "model_b": b,
        "test": "mcnemar",
        "method": "exact",
        "n01": n01,
        "n10": n10,
        "statistic": float(min(n01, n10)),
        "pvalue": p,
        "pvalue_adjusted": p_adj,
        "accuracy_a": acc_a,
        "accuracy_b": acc_b,
        "significant": significant,
        "winner": winner,
    }


def make_crossval() -> dict:
    return {
        "iris": classification_cv(
            "iris",
            {"gaussian_naive_bayes": 0.93, "knn": 0.95, "logistic_regression": 0.96},
            ["setosa", "versicolor", "virginica"],
        ),
        "wine": classification_cv(
            "wine",
            {"gaussian_naive_bayes": 0.97, "knn": 0.70, "logistic_regression": 0.96},
            ["class_0", "class_1", "class_2"],
            n_examples=142,
        ),
        "diabetes": regression_cv(
            "diabetes", {"gaussian_naive_bayes": 3500.0, "knn": 3300.0, "logistic_regression": 2900.0}
        ),
    }


def make_significance() -> dict:
    iris_cv = [
        _cv_row("gaussian_naive_bayes", "knn", 0.93, 0.95, 0.21, 0.42, False, None, stat=-1.35),
        _cv_row(
            "gaussian_naive_bayes",
            "logistic_regression",
            0.93,
            0.96,
            0.0002,
            0.0006,
            True,
            "logistic_regression",
            stat=-6.2,
            ci=(-0.045, -0.015),
        ),
        _cv_row("knn", "logistic_regression", 0.95, 0.96, 0.44, 0.44, False, None),
    ]
    iris_test = [
        _mcnemar_row("gaussian_naive_bayes", "knn", 2, 1, 1.0, 1.0, 0.921, 0.947, False, None),
        _mcnemar_row("gaussian_naive_bayes", "logistic_regression", 6, 0, 0.03125, 0.09375, 0.921, 0.974, False, None),
        _mcnemar_row("knn", "logistic_regression", 3, 2, 1.0, 1.0, 0.947, 0.974, False, None),
    ]
    wine_cv = [
        _cv_row(
            "gaussian_naive_bayes",
            "knn",
            0.97,
            0.70,
            0.00001,
            0.00003,
            True,
            "gaussian_naive_bayes",
            stat=9.1,
            ci=(0.2, 0.34),
        ),
        _cv_row("gaussian_naive_bayes", "logistic_regression", 0.97, 0.96, 0.61, 0.61, False, None),
        _cv_row(
            "knn",
            "logistic_regression",
            0.70,
            0.96,
            0.00002,
            0.00004,
            True,
            "logistic_regression",
            stat=-8.7,
            ci=(-0.33, -0.19),
        ),
    ]
    wine_test = [
        _mcnemar_row(
            "gaussian_naive_bayes", "knn", 0, 9, 0.00390625, 0.0117, 0.972, 0.722, True, "gaussian_naive_bayes"
        ),
        _mcnemar_row("gaussian_naive_bayes", "logistic_regression", 1, 1, 1.0, 1.0, 0.972, 0.972, False, None),
        _mcnemar_row("knn", "logistic_regression", 9, 0, 0.00390625, 0.0117, 0.722, 0.972, True, "logistic_regression"),
    ]
    diabetes_cv = [
        _cv_row("gaussian_naive_bayes", "knn", 3500.0, 3300.0, 0.3, 0.6, False, None, stat=1.1, ci=(-150.0, 550.0)),
        _cv_row(
            "gaussian_naive_bayes",
            "logistic_regression",
            3500.0,
            2900.0,
            0.01,
            0.03,
            True,
            "logistic_regression",
            stat=3.4,
            ci=(180.0, 1020.0),
        ),
        _cv_row("knn", "logistic_regression", 3300.0, 2900.0, 0.08, 0.16, False, None, stat=2.0, ci=(-50.0, 850.0)),
    ]
    return {
        "metric": "accuracy",
        "alpha": 0.05,
        "higher_is_better": True,
        "pairwise_test": "corrected_resampled_ttest",
        "correction": "holm",
        "test_set_test": "mcnemar",
        "datasets": {
            "iris": {
                "cv": iris_cv,
                "test_set": iris_test,
                "bayesian": [
                    _bayes_row("gaussian_naive_bayes", "knn", 0.02, 0.30, 0.68, -0.02),
                    _bayes_row("gaussian_naive_bayes", "logistic_regression", 0.001, 0.01, 0.989, -0.03),
                    _bayes_row("knn", "logistic_regression", 0.01, 0.97, 0.02, -0.01),
                ],
                "test_set_metric": _metric_test(
                    [
                        _metric_row("gaussian_naive_bayes", "knn", 0.921, 0.947, 0.62, 1.0, False, None),
                        _metric_row(
                            "gaussian_naive_bayes", "logistic_regression", 0.921, 0.974, 0.031, 0.093, False, None
                        ),
                        _metric_row("knn", "logistic_regression", 0.947, 0.974, 0.62, 1.0, False, None),
                    ]
                ),
            },
            "wine": {"cv": wine_cv, "test_set": wine_test},
            "diabetes": {
                "cv": diabetes_cv,
                "test_set": [],
                "test_set_metric": {
                    "ran": False,
                    "reason": "switched off (stats.test_set_metric_test: none)",
                    "rows": [],
                },
            },
        },
        "across_datasets": {
            "ran": True,
            "reason": None,
            "metric": "accuracy",
            "datasets": ["iris", "wine", "breast_cancer"],
            "models": list(MODELS),
            "scores": [[0.93, 0.95, 0.96], [0.97, 0.70, 0.96], [0.94, 0.96, 0.975]],
            "friedman": {
                "statistic": 4.6667,
                "pvalue": 0.097,
                "df": 2,
                "f_statistic": 7.0,
                "f_pvalue": 0.0494,
                "df_f": [2, 4],
            },
            "average_ranks": {"gaussian_naive_bayes": 2.6667, "knn": 2.0, "logistic_regression": 1.3333},
            "nemenyi": {
                "alpha": 0.05,
                "cd": 1.9137,
                "q_alpha": 2.343,
                "cliques": [["logistic_regression", "knn", "gaussian_naive_bayes"]],
            },
            "significant": False,
            "posthoc": {
                "ran": True,
                "reason": None,
                "method": "bergmann_hommel",
                "method_used": "bergmann_hommel",
                "control": None,
                "alpha": 0.05,
                "average_ranks": {"gaussian_naive_bayes": 2.6667, "knn": 2.0, "logistic_regression": 1.3333},
                "comparisons": [
                    _posthoc_row("gaussian_naive_bayes", "knn", 2.6667, 2.0, 0.505, 0.505, -1.0, -0.333),
                    _posthoc_row(
                        "gaussian_naive_bayes", "logistic_regression", 2.6667, 1.3333, 0.0339, 0.1017, -1.0, -0.556
                    ),
                    _posthoc_row("knn", "logistic_regression", 2.0, 1.3333, 0.505, 0.505, -0.333, -0.333),
                ],
            },
        },
        "bayesian": {"enabled": True, "rope": 0.01},
        "across_pairs": {
            "ran": True,
            "reason": None,
            "test": "wilcoxon",
            "metric": "accuracy",
            "datasets": ["iris", "wine", "breast_cancer"],
            "models": list(MODELS),
            "smallest_possible_pvalue": 0.25,
            "rows": [
                _pairs_row("gaussian_naive_bayes", "knn", 0.0467, 2, 1, 0.75),
                _pairs_row("gaussian_naive_bayes", "logistic_regression", -0.0117, 1, 2, 1.0),
                _pairs_row("knn", "logistic_regression", -0.0883, 0, 3, 0.25),
            ],
        },
    }


def _posthoc_row(a, b, ra, rb, p, p_adj, rbc, cd):
    return {
        "a": a,
        "b": b,
        "rank_a": ra,
        "rank_b": rb,
        "rank_difference": rb - ra,
        "z": (rb - ra) / 0.8165,
        "pvalue": p,
        "pvalue_adjusted": p_adj,
        "significant": p_adj <= 0.05,
        "rank_biserial": rbc,
        "cliffs_delta": cd,
    }


def _pairs_row(a, b, diff, wins_a, wins_b, p):
    return {
        "model_a": a,
        "model_b": b,
        "mean_difference": diff,
        "test": "wilcoxon",
        "statistic": float(min(wins_a, wins_b)),
        "pvalue": p,
        "pvalue_adjusted": min(1.0, 3 * p),
        "exact": True,
        "wins_a": wins_a,
        "wins_b": wins_b,
        "ties": 0,
        "sign_test_pvalue": p,
        "rank_biserial": (wins_a - wins_b) / 3,
        "cliffs_delta": (wins_a - wins_b) / 9,
        "bayesian_signed_rank": {
            "rope": 0.01,
            "p_a_better": 0.2,
            "p_equivalent": 0.1,
            "p_b_better": 0.7,
            "n_samples": 20000,
            "seed": 1,
        },
        "significant": False,
        "winner": None,
    }


def _bayes_row(a, b, pa, pe, pb, mean):
    return {
        "model_a": a,
        "model_b": b,
        "test": "bayesian_correlated_ttest",
        "rope": 0.01,
        "p_a_better": pa,
        "p_equivalent": pe,
        "p_b_better": pb,
        "posterior_mean": mean,
        "credible_interval": [mean - 0.02, mean + 0.02],
        "rho": 0.2,
    }


def _metric_test(rows):
    return {"ran": True, "reason": None, "test": "permutation", "metric": "accuracy", "n_resamples": 1999, "rows": rows}


def _metric_row(a, b, sa, sb, p, p_adj, significant, winner):
    return {
        "model_a": a,
        "model_b": b,
        "test": "permutation_test",
        "score_a": sa,
        "score_b": sb,
        "mean_difference": sa - sb,
        "statistic": sa - sb,
        "pvalue": p,
        "pvalue_adjusted": p_adj,
        "significant": significant,
        "winner": winner,
        "method": "approximate randomization",
        "seed": 3,
    }


def make_significance_not_ran() -> dict:
    out = make_significance()
    out["across_datasets"] = {"ran": False, "reason": "needs at least 2 datasets and 3 models (got 1 and 2)"}
    return out


def make_train_metrics(crossval: dict | None = None) -> dict:
    crossval = make_crossval() if crossval is None else crossval
    out = {}
    for ds, cv in crossval.items():
        out[ds] = {}
        for k, m in enumerate(sorted(cv["models"])):
            if cv["task"] == "classification":
                test = {"accuracy": 0.9 + 0.02 * k, "f1_macro": 0.89 + 0.02 * k}
                train = {"accuracy": 0.99 - 0.01 * k, "f1_macro": 0.985 - 0.01 * k}
            else:
                test = {"mse": 3400.0 - 250.0 * k, "r2": 0.40 + 0.05 * k}
                train = {"mse": 2800.0 - 100.0 * k, "r2": 0.52 + 0.02 * k}
            out[ds][m] = {"train": train, "test": test}
    return out


def make_settings() -> dict:
    # Low dpi keeps the tests fast; the bytes are deterministic at any dpi.
    return {"title": "Replearn test report", "decimals": 3, "dpi": 40, "plots": True, "formats": ["html", "markdown"]}


def make_experiment() -> dict:
    return {
        "name": "unit-test",
        "params_hash": "0123456789abcdef",
        "datasets": ["iris", "wine", "diabetes"],
        "models": list(MODELS),
    }


def make_report_inputs() -> dict:
    """Fresh keyword arguments for ``build_report`` (without ``out_dir``)."""
    crossval = make_crossval()
    return {
        "crossval": crossval,
        "significance": make_significance(),
        "train_metrics": make_train_metrics(crossval),
        "settings": make_settings(),
        "experiment": make_experiment(),
    }


@pytest.fixture
def crossval() -> dict:
    return make_crossval()


@pytest.fixture
def significance_not_ran() -> dict:
    return make_significance_not_ran()


@pytest.fixture
def report_inputs() -> dict:
    """Fresh inputs per test: tests may mutate them."""
    return make_report_inputs()


@pytest.fixture(scope="session")
def built_report(tmp_path_factory):
    """One report built from the default inputs, shared by the read-only tests (plots are slow-ish)."""
    from replearn.pipeline.report import build_report

    out = tmp_path_factory.mktemp("report") / "out"
    art = build_report(out_dir=out, **make_report_inputs())
    return art, art.html.read_text(encoding="utf-8"), art.markdown.read_text(encoding="utf-8")
