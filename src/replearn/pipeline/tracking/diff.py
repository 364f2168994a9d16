"""``replearn diff --log-to-mlflow``: the tested diff of two runs logged to the later one's MLflow run."""

from __future__ import annotations

import json
from pathlib import Path

from .store import RUN_KEY_TAG, _client, _sqlite_path, close_stores, logged_run_id, pipeline_run_key, resolve_target

DIFF_OUTCOME_TAG = "replearn.diff.outcome"


def log_diff(result, project_root: Path, as_dict: dict, markdown: str) -> str:
    """Tag the MLflow run of the diff's side B with the diff's outcome and log the diff (JSON and Markdown) as its
    artifacts ``diff/against-<A>.json`` / ``.md``. The run is B's parent run, found by its run key (its params,
    crossval and significance records, as the report stage computed it). Returns what was done, or why nothing
    was (tracking off in B's params, no store, no run of B in it) -- never an error: the diff stands without it."""
    b = result.b
    params = b.params or {}
    cfg = params.get("tracking") or {}
    if not cfg.get("enabled"):
        return "not logged (tracking off in B's params)"
    if b.significance is None or not b.plain:
        return "not logged (B has no significance record, so no pipeline run was logged for it)"
    wanted = list(params.get("dataset") or b.plain)
    if set(wanted) != set(b.plain):
        return "not logged (B's records are not those of its params' datasets)"
    key = pipeline_run_key(params, {d: b.plain[d] for d in wanted}, b.significance)
    try:
        target = resolve_target(project_root, cfg.get("tracking_uri"), server=bool(cfg.get("server")))
    except Exception as exc:  # an unusable store: say so, keep the diff
        return f"not logged ({exc})"
    if target.lock_file is not None:
        run_id = logged_run_id(_sqlite_path(target.tracking_uri), cfg["experiment"], key)
        if run_id is None:
            return (
                f"not logged (no complete run of B with run key {key} in {target.tracking_uri}; `dvc repro` logs one)"
            )
    try:
        client, exp_id = _client(target, cfg["experiment"])
        if target.lock_file is None:
            found = client.search_runs([exp_id], filter_string=f"tags.`{RUN_KEY_TAG}` = '{key}'", max_results=1)
            if not found:
                return f"not logged (no complete run of B with run key {key} in {target.tracking_uri})"
            run_id = found[0].info.run_id
        against = result.a.label.replace("/", "_").replace(" ", "_") or "A"
        counts = ", ".join(f"{n} {v}" for v, n in result.counts().items())
        client.set_tag(run_id, DIFF_OUTCOME_TAG, as_dict["outcome"])
        client.set_tag(run_id, "replearn.diff.against", result.a.describe())
        client.set_tag(run_id, "replearn.diff.summary", counts[:4900])
        client.log_text(run_id, json.dumps(as_dict, indent=2, sort_keys=True), f"diff/against-{against}.json")
        client.log_text(run_id, markdown, f"diff/against-{against}.md")
    except Exception as exc:  # the store failed: the diff is still printed
        return f"not logged ({type(exc).__name__}: {exc})"
    finally:
        close_stores()
    return (
        f"run {run_id} of B tagged {DIFF_OUTCOME_TAG}={as_dict['outcome']}, the diff logged as diff/against-{against}"
    )
