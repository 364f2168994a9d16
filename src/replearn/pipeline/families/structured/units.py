"""The units of the ``structured`` experiment family (its ``problems`` module builds the problems):
``UNITS`` and the run of each. Kept apart from the problems so that building them (the ``prepare`` stage) does not
depend on the models the units fit (:mod:`replearn.pipeline.deps`)."""

from __future__ import annotations

import numpy as np

from ....exceptions import ConfigError
from ....models.perceptron.perceptron import MulticlassPerceptron
from ....structured import (
    DAgger,
    SequenceLabelingTask,
    StructuredPerceptron,
    StructuredSVM,
    rollout,
)
from ...families import Outcome, Unit, model_constraints, resolve_unit_params
from ...families.structured.problems import SequenceProblem, _token_rates


def _resolve(unit: str, hp: dict | None) -> dict:
    """``hp`` over the defaults of this family's unit ``unit``, checked
    (:func:`~replearn.pipeline.families.resolve_unit_params`)."""
    return resolve_unit_params(UNITS, unit, hp)


def _scores(pred, problem: SequenceProblem) -> dict:
    h, e = _token_rates(pred, problem.y_test)
    return {"hamming_loss": h, "sequence_error": e}


def _run_structured_perceptron(hp: dict, problem: SequenceProblem, seed: int) -> Outcome:
    p = _resolve("structured_perceptron", hp)
    model = StructuredPerceptron(max_iter=p["max_iter"], shuffle=p["shuffle"], average=p["average"], random_state=seed)
    model.fit(problem.X_train, problem.y_train)
    n = len(problem.X_train)
    return Outcome(
        scores=_scores(model.predict(problem.X_test), problem),
        n_iter=int(model.n_iter_),
        converged=bool(model.mistake_history_[-1] == 0),  # Alg. 40 stops at a pass without mistakes
        curve=[m / n for m in model.mistake_history_],
        curve_label="training sequences mistaken (fraction)",
        extra={"train_hamming_loss": [float(v) for v in model.hamming_history_]},
    )


def _run_structured_svm(hp: dict, problem: SequenceProblem, seed: int) -> Outcome:
    p = _resolve("structured_svm", hp)
    n = len(problem.X_train)
    if p["alpha"] * p["eta0"] >= n:
        raise ConfigError(
            f"structured_svm.alpha: alpha x eta0 = {p['alpha'] * p['eta0']} must be smaller than the number of "
            f"training sequences ({n}): the shrink w <- (1 - eta alpha / N) w would flip the weights"
        )
    model = StructuredSVM(
        alpha=p["alpha"],
        max_iter=p["max_iter"],
        eta0=p["eta0"],
        schedule=p["schedule"],
        shuffle=p["shuffle"],
        random_state=seed,
    )
    model.fit(problem.X_train, problem.y_train)
    return Outcome(
        scores=_scores(model.predict(problem.X_test), problem),
        n_iter=int(model.n_iter_),
        converged=True,  # a fixed number of passes (Alg. 41 has no stopping test)
        curve=[float(v) for v in model.objective_history_],
        curve_label="SSVM objective (eq. 17.24)",
        extra={"train_hamming_loss": [float(v) for v in model.hamming_history_]},
    )


def _run_token_perceptron(hp: dict, problem: SequenceProblem, seed: int) -> Outcome:
    from ....models import create

    p = _resolve("token_perceptron", hp)
    model = create(
        "multiclass_perceptron", max_iter=p["max_iter"], shuffle=p["shuffle"], average=p["average"], random_state=seed
    )
    model.fit(np.concatenate(problem.X_train), np.concatenate(problem.y_train))
    pred = [model.predict(x) for x in problem.X_test]
    return Outcome(
        scores=_scores(pred, problem),
        n_iter=int(model.n_iter_),
        converged=bool(model.converged_),
        curve=[float(v) for v in model.loss_history_],
        curve_label="training positions mistaken (fraction)",
    )


def _run_dagger(hp: dict, problem: SequenceProblem, seed: int) -> Outcome:
    p = _resolve("dagger", hp)
    train = SequenceLabelingTask(problem.X_train, problem.y_train, n_labels=problem.n_labels)
    model = DAgger(
        estimator="multiclass_perceptron",
        estimator_params={"max_iter": p["learner_epochs"], "shuffle": True, "average": True},
        max_iter=p["max_iter"],
        n_initial=p["n_initial"],
        n_per_iter=p["n_per_iter"],
        random_state=seed,
    )
    model.fit(train, range(train.n_episodes))
    test = SequenceLabelingTask(problem.X_test, problem.y_test, n_labels=problem.n_labels)
    pred = [rollout(test, e, model.policy_).actions for e in range(test.n_episodes)]
    return Outcome(
        scores=_scores(pred, problem),
        n_iter=int(model.n_iter_),
        converged=True,
        curve=[float(v) for v in model.loss_history_],
        curve_label="DAgger: Hamming loss per training sequence",
        extra={"best_index": int(model.best_index_), "n_samples": [int(v) for v in model.n_samples_history_]},
    )


UNITS = {
    "structured_perceptron": Unit(
        name="structured_perceptron",
        summary="structured perceptron with Viterbi decoding (averaged with average: true)",
        run=_run_structured_perceptron,
        constraints=model_constraints(StructuredPerceptron, "max_iter", "shuffle", "average"),
        defaults={"max_iter": 10, "shuffle": True, "average": False},
        section="CIML §17.2 Alg. 40 (+ Alg. 7's averaging), seed 001 L5091-5110",
    ),
    "structured_svm": Unit(
        name="structured_svm",
        summary="structured SVM (Hamming-loss-augmented hinge) by stochastic subgradient descent",
        run=_run_structured_svm,
        constraints=model_constraints(StructuredSVM, "alpha", "max_iter", "eta0", "schedule", "shuffle"),
        defaults={"alpha": 0.1, "max_iter": 10, "eta0": 1.0, "schedule": "constant", "shuffle": True},
        section="CIML §17.4 Alg. 41, seed 001 L5237-5258 (lambda = 1/(2C))",
    ),
    "token_perceptron": Unit(
        name="token_perceptron",
        summary="per-position multiclass perceptron on the unary features (no label transitions)",
        run=_run_token_perceptron,
        constraints=model_constraints(MulticlassPerceptron, "max_iter", "shuffle", "average"),
        defaults={"max_iter": 10, "shuffle": True, "average": False},
        section="CIML §17.1 Alg. 39, seed 001 L5017-5036",
    ),
    "dagger": Unit(
        name="dagger",
        summary="DAgger: left-to-right labelling policy (averaged multiclass perceptron), gold label as expert",
        run=_run_dagger,
        constraints=model_constraints(
            DAgger, "max_iter", "n_initial", "n_per_iter", learner_epochs=MulticlassPerceptron._constraints["max_iter"]
        ),
        defaults={"max_iter": 5, "n_initial": None, "n_per_iter": 20, "learner_epochs": 5},
        section="CIML §18.3 Alg. 45 with §18.5's sequence-labelling expert (eq. 18.8), seed 001 L5576-5689",
    ),
}
