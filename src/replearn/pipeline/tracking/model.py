"""A child's dataset input and fitted model: an MLflow Model defined by code (``tracking/tracking_model.py``),
written with MLflow's model-format API (:func:`write_model_dir`): it loads with ``mlflow.pyfunc.load_model`` and
nothing is pickled."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from .store import mlflow_private

MODEL_CODE = Path(__file__).with_name("tracking_model.py")
N_EXAMPLE_ROWS = 5


def _log_dataset_and_model(
    client,
    run_id,
    exp_id: str,
    root: Path,
    d: str,
    key: str,
    cparams: dict,
    example_output: list | None = None,
    *,
    model: bool = True,
) -> None:
    """The dataset as a run input, the fitted model as an MLflow Model (where the pipeline's files exist; not with
    ``model=False``, ``tracking.log_models: false``)."""
    from ...persistence import SUFFIXES, stem_file
    from .. import paths

    prepared = root / paths.PREPARED / d / "train.npz"
    if prepared.is_file():
        log_dataset_input(client, run_id, d, prepared, paths.PREPARED / d / "train.npz")
    stem = root / paths.MODELS / d / key
    features = root / paths.FEATURES / d / "test.npz"
    if model and all(stem_file(stem, sfx).is_file() for sfx in SUFFIXES) and features.is_file():
        log_model(client, run_id, exp_id, stem, features, params=cparams, example_output=example_output, root=root)


def log_dataset_input(client, run_id: str, name: str, path: Path, source: Path) -> None:
    """Log ``path`` (a prepared training part: npz with X, y) as the run's training dataset input."""
    import numpy as np
    from mlflow.entities import Dataset, DatasetInput, InputTag

    from ..paths import sha256_file

    digest = sha256_file(path)
    with np.load(path, allow_pickle=False) as data:
        X = data["X"]
        profile = {"num_rows": int(X.shape[0]), "num_features": int(X.shape[1]) if X.ndim == 2 else 1}
    ds = Dataset(
        name=name,
        digest=digest[:32],
        source_type="local",  # the store holds digests of <= 36 chars
        source=json.dumps({"uri": source.as_posix()}),
        profile=json.dumps(profile),
    )
    inputs = [DatasetInput(ds, tags=[InputTag("mlflow.data.context", "train"), InputTag("replearn.sha256", digest)])]
    try:
        client.log_inputs(run_id, datasets=inputs)
    except Exception as exc:  # noqa: BLE001 - only the store's unique-dataset race is retried, the rest re-raised
        # MLflow's store looks a dataset up by (experiment, name, digest) and inserts it when absent, in two steps:
        # two worker processes logging children of one dataset at once can both insert, and the second fails on
        # the UNIQUE constraint. The dataset is then in the store; logging again links this run to it.
        if "UNIQUE constraint failed: datasets." not in str(exc) and "dataset_pk" not in str(exc):
            raise
        client.log_inputs(run_id, datasets=inputs)


def log_model(
    client,
    run_id: str,
    exp_id: str,
    stem: Path,
    features: Path,
    params: dict | None = None,
    example_output: list | None = None,
    root: Path | None = None,
):
    """Log the model saved at ``stem`` (.npz + .json) to run ``run_id`` as an MLflow Model defined by code.

    The same MLflow Model (a LoggedModel of the run, named "model", so ``runs:/<run>/model`` and
    ``models:/<model_id>`` both load it) that ``mlflow.pyfunc.log_model(python_model=<tracking_model.py>,
    artifacts=...)`` produced, written by :func:`write_model_dir` with MLflow's model-format API instead:
    ``log_model`` spent ~0.45 s per model on work that tells replearn nothing (scanning every installed
    distribution to warn about requirement mismatches, reloading the model to validate the input
    example, copying every run metric onto the model). The signature and the input example come from
    the first rows of ``features`` (the sealed test part as the model sees it: after the feature maps) and
    the model's predictions on them: ``example_output`` when given (the train stage's predictions on those
    rows), else the model's own. Returns the LoggedModel.

    When the model's artifact location is a local directory inside the project ``root`` (the default store's
    ``mlartifacts/``), the directory is written there in place: ``log_model_artifacts`` would copy the same
    files from a temporary directory (MLflow's local artifact repository does nothing else), and the copy and
    its clean-up cost a benchmark's 516 child runs 3 s. Any other location (a server, a remote store) gets
    the files through ``log_model_artifacts``.
    """
    import tempfile

    from mlflow.entities import LoggedModelOutput, LoggedModelStatus

    model = client.create_logged_model(
        exp_id, name="model", source_run_id=run_id, params={k: str(v) for k, v in (params or {}).items()}
    )
    try:
        client.log_outputs(run_id, [LoggedModelOutput(model.model_id, step=0)])
        local = _local_artifact_dir(model.artifact_location, root) if root is not None else None
        if local is not None:
            write_model_dir(local, stem, features, run_id=run_id, model=model, output=example_output)
        else:
            with tempfile.TemporaryDirectory(prefix="replearn-model-") as tmp:
                write_model_dir(Path(tmp) / "model", stem, features, run_id=run_id, model=model, output=example_output)
                client.log_model_artifacts(model.model_id, str(Path(tmp) / "model"))
    except BaseException:
        try:
            client.finalize_logged_model(model.model_id, LoggedModelStatus.FAILED)
        except Exception:  # the store may be what failed; the original error matters more
            pass
        raise
    return client.finalize_logged_model(model.model_id, LoggedModelStatus.READY)


def _local_artifact_dir(uri: str, root: Path) -> Path | None:
    """The directory a ``file:`` artifact location names, when it lies inside ``root`` and holds nothing yet;
    None for any other location (MLflow's artifact repository writes those)."""
    from urllib.parse import urlparse
    from urllib.request import url2pathname

    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    path = Path(url2pathname(parsed.path)).resolve()
    if not path.is_relative_to(Path(root).resolve()) or (path.exists() and any(path.iterdir())):
        return None
    return path


def write_model_dir(path: Path, stem: Path, features: Path, *, run_id=None, model=None, output=None) -> Path:
    """Write the MLflow Model directory of the replearn model at ``stem`` to ``path`` (nothing pickled).

    Layout and ``MLmodel`` as ``mlflow.pyfunc.save_model`` writes them for a model from code: the
    python_function flavor (``mlflow.pyfunc.add_to_model``) with loader ``mlflow.pyfunc.loaders.code_model``
    and ``model_code_path`` = ``tracking_model.py`` (copied beside ``MLmodel``), the ``.npz`` and ``.json``
    under ``artifacts/`` with the names ``ReplearnModel.load_context`` reads, the signature
    (``infer_signature`` of the first test rows and the model's output on them), the input example and
    the environment (``requirements.txt``, ``python_env.yaml``, ``conda.yaml``) pinning mlflow, numpy and
    scipy; replearn itself is not on a package index, so serve from the project's environment
    (``--env-manager local``). The model is loaded once (through :func:`replearn.persistence.load_model`,
    ``allow_pickle=False``) for the output schema, unless ``output`` holds its predictions on the example rows
    already (the train stage's ``pred``: loading a forest of 100 trees to predict five rows cost ~15 ms a model).
    """
    import mlflow
    import numpy as np
    import scipy
    from mlflow.models import Model, infer_signature

    from ...atomic import copy_file
    from ...persistence import load_model, stem_file

    with np.load(features, allow_pickle=False) as data:
        example = np.asarray(data["X"][:N_EXAMPLE_ROWS], dtype=float)
    if output is not None and len(output) == len(example):
        output = np.asarray(output)
    else:
        fitted = load_model(stem)
        output = np.asarray((fitted.predict if hasattr(fitted, "predict") else fitted.transform)(example))

    (path / "artifacts").mkdir(parents=True, exist_ok=True)  # a fresh directory (or an empty one: _local_artifact_dir)
    artifacts = {}
    for name, suffix in (("npz", ".npz"), ("json", ".json")):  # the names tracking_model.load_context reads
        src = stem_file(stem, suffix)
        copy_file(src, path / "artifacts" / src.name)  # each file whole or not at all (replearn.atomic)
        artifacts[name] = {"path": f"artifacts/{src.name}", "uri": str(src)}
    copy_file(MODEL_CODE, path / MODEL_CODE.name)

    # as MLflow's log_model: the LoggedModel's location and id, which is the model's uuid too
    logged = {}
    if model is not None:
        logged = {"artifact_path": model.artifact_location, "model_id": model.model_id, "model_uuid": model.model_id}
    mlmodel = Model(run_id=run_id, signature=infer_signature(example, output), **logged)
    _save_input_example(mlmodel, example, path)
    mlflow.pyfunc.add_to_model(
        mlmodel,
        loader_module="mlflow.pyfunc.loaders.code_model",
        conda_env="conda.yaml",
        python_env="python_env.yaml",
        model_code_path=str(MODEL_CODE),
        artifacts=artifacts,
        streamable=False,
    )
    _write_environment(
        path, [f"mlflow=={mlflow.__version__}", f"numpy=={np.__version__}", f"scipy=={scipy.__version__}"]
    )
    mlmodel.model_size_bytes = sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    _save_mlmodel(mlmodel, path / "MLmodel")  # last: a model folder with an MLmodel file is complete
    return path


def _save_mlmodel(mlmodel, path: Path) -> None:
    """``mlmodel.save(path)`` with libyaml's emitter when PyYAML has it: the same text (a test compares them),
    4 ms -> 1 ms a model, which a benchmark's hundreds of child runs feel."""
    import yaml

    dumper = getattr(yaml, "CSafeDumper", None)
    if dumper is None:  # PyYAML built without libyaml
        mlmodel.save(str(path))
        return
    from ...atomic import atomic_write

    with atomic_write(path, "w", durable=False) as out:
        yaml.dump(mlmodel.to_dict(), out, Dumper=dumper, default_flow_style=False)


def _write_environment(path: Path, requirements: list[str]) -> None:
    """``requirements.txt``, ``python_env.yaml`` and ``conda.yaml`` as MLflow writes them for pinned requirements."""
    from ...atomic import write_text

    for name, text in _environment_files(tuple(requirements)).items():
        write_text(path / name, text, durable=False)


@functools.cache
def _environment_files(requirements: tuple[str, ...]) -> dict[str, str]:
    """The texts of :func:`_write_environment`'s files (the same for every model of a run: computed once)."""
    import platform
    from importlib import metadata

    def version(dist: str) -> str | None:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return None

    python, pip, setuptools = platform.python_version(), version("pip"), version("setuptools")
    build = [f"pip=={pip}" if pip else "pip", *([f"setuptools=={setuptools}"] if setuptools else []), "wheel"]
    return {
        "requirements.txt": "\n".join(requirements),
        "python_env.yaml": f"python: {python}\nbuild_dependencies:\n"
        + "".join(f"- {b}\n" for b in build)
        + "dependencies:\n- -r requirements.txt\n",
        "conda.yaml": f"channels:\n- conda-forge\ndependencies:\n- python={python}\n- pip{'<=' + pip if pip else ''}\n"
        "- pip:\n" + "".join(f"  - {r}\n" for r in requirements) + "name: mlflow-env\n",
    }


def _save_input_example(mlmodel, example, path: Path) -> None:
    """The input example as MLflow writes it (``input_example.json`` + ``serving_input_example.json``)."""
    _save_example = mlflow_private("mlflow.models.utils._save_example")  # version-checked, loud
    _save_example(mlmodel, example, str(path))
