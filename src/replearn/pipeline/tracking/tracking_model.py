"""The MLflow Model of a fitted replearn model, defined by code (MLflow's *models-from-code*): nothing pickled.

``pipeline/tracking/model.py`` logs *this file* as the model (the MLflow Model that
``mlflow.pyfunc.log_model(python_model=<this path>, artifacts={"npz": ..., "json": ...})`` would write; it is
written with MLflow's model-format API, ``tracking.write_model_dir``), with the model's ``.npz`` arrays and
``.json`` metadata written by the train stage (:mod:`replearn.persistence`) as the artifacts. Loading
(``mlflow.pyfunc.load_model``, ``mlflow models serve``) runs this file, which ends by handing MLflow the model
object (``set_model``); ``load_context`` rebuilds the estimator through the explicit model registry with
``allow_pickle=False``. So a logged model can never execute anything but replearn code, and the serving
environment needs replearn installed: serve from the project's virtual environment,
``mlflow models serve -m runs:/<run>/model --env-manager local --host 127.0.0.1``.

This is the one module besides the ``pipeline/tracking/`` package that imports mlflow (``tests/test_layers.py``
allows exactly these two); nothing in the package imports this module: MLflow executes it by path.
"""

from __future__ import annotations

from pathlib import Path

import mlflow
import numpy as np

#: the artifact names ``load_context`` expects (tracking/model.py logs the files under these names)
NPZ, JSON = "npz", "json"


def _stem(artifacts: dict) -> Path:
    npz, meta = Path(artifacts[NPZ]), Path(artifacts[JSON])
    # the suffix removed from the whole name (persistence.stem_file appends it: a dot in a stem is part of its name)
    if npz.suffix != ".npz" or meta.suffix != ".json" or npz.with_suffix("") != meta.with_suffix(""):
        raise ValueError(f"a replearn model needs <stem>.npz and <stem>.json side by side; got {npz} and {meta}")
    return npz.with_name(npz.name[: -len(".npz")])


class ReplearnModel(mlflow.pyfunc.PythonModel):  # type: ignore[name-defined]  # mlflow exports it lazily
    """pyfunc wrapper: ``predict`` is the estimator's ``predict`` (``transform`` for decompositions).

    The input is a 2-D array of features (after the pipeline's feature maps), as the logged signature says;
    the ``np.ndarray`` hint tells MLflow to take that signature rather than infer one from type hints.
    """

    def load_context(self, context) -> None:
        from replearn.persistence import load_model

        self.model = load_model(_stem(context.artifacts))

    def predict(self, context, model_input: np.ndarray, params=None) -> np.ndarray:
        if hasattr(model_input, "to_numpy"):  # a DataFrame (e.g. `mlflow models serve` with split input)
            model_input = model_input.to_numpy()
        X = np.asarray(model_input, dtype=float)
        if X.ndim == 1:
            X = X.reshape(1, -1)
        method = getattr(self.model, "predict", None) or self.model.transform
        return np.asarray(method(X))


mlflow.models.set_model(ReplearnModel())
