"""``python -m replearn <command>``: compose params.yaml, validate it, list what is available, open the UI."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from .exceptions import ReplearnError


def _cmd_compose(args) -> int:
    from .pipeline.config import compose

    out = compose(args.overrides, output=Path(args.output) if args.output else None)
    print(f"wrote {out}")
    return 0


def _cmd_validate(args) -> int:
    from .pipeline.config import load_and_validate

    params = load_and_validate(args.params)
    print(f"{args.params}: valid ({len(params['dataset'])} dataset(s), {len(params['models'])} model(s))")
    return 0


def _cmd_check(args) -> int:
    from .pipeline import deps
    from .pipeline.config import load_and_validate, project_root
    from .pipeline.lockfile import check_lock_file

    root = project_root()
    check_lock_file(root)
    load_and_validate(root / "params.yaml", root=root)
    problems = deps.check(root)
    if problems:
        print("dvc.yaml: the src/ deps of " + ", ".join(problems) + " differ from their imports; run "
              "`python -m replearn deps --write`", file=sys.stderr)
        return 1
    print("dvc.lock readable, params.yaml valid, dvc.yaml deps in sync")
    return 0


def _cmd_deps(args) -> int:
    from .pipeline import deps
    from .pipeline.config import project_root

    root = project_root()
    if args.write:
        changed = deps.write(root)
        print(f"dvc.yaml: src/ deps rewritten for {', '.join(changed)}" if changed else "dvc.yaml: src/ deps already in sync")
        return 0
    problems = deps.check(root)
    for stage, p in problems.items():
        for kind in ("missing", "superfluous"):
            for entry in p[kind]:
                print(f"{stage}: {kind} dep {entry}", file=sys.stderr)
    if problems:
        print("run `python -m replearn deps --write` to regenerate them", file=sys.stderr)
        return 1
    print("dvc.yaml: every stage's src/ deps match its imports")
    return 0


def _cmd_models(args) -> int:
    from . import models

    for name in models.available():
        tasks = [t for t in ("classification", "regression", "clustering", "decomposition", "matrix_completion")
                 if models.supports(name, t)]
        hp = ", ".join(f"{k}={v!r}" for k, v in models.hyperparameters(name).items())
        print(f"{name:24s} [{'/'.join(tasks)}]  {hp}")
    return 0


def _cmd_datasets(args) -> int:
    from .pipeline.data import shipped_registry

    for name, entry in sorted(shipped_registry().items()):
        print(f"{name:14s} {entry['task']:15s} {entry['n_samples']:5d} x {entry['n_features']:<3d} {entry['description']}")
    return 0


def _cmd_where(args) -> int:
    from .pipeline.config import load_params, project_root
    from .pipeline.tracking import resolve_target

    root = project_root()
    report = root / "reports" / "report.html"
    print()
    print(f"Report:   {report}  (Markdown summary: {report.with_suffix('.md')})")
    params = load_params(root / "params.yaml")
    if params.get("tracking", {}).get("enabled", False):
        target = resolve_target(root, params["tracking"].get("tracking_uri"))
        print(f"MLflow:   {target.tracking_uri}")
        print("          open the UI with `make ui`, then http://127.0.0.1:5000")
    print("Compare:  .venv/bin/dvc exp show   |   .venv/bin/dvc metrics diff   |   .venv/bin/dvc plots show")
    return 0


def _cmd_ui(args) -> int:
    from .pipeline.config import project_root
    from .pipeline.tracking import ui_command

    cmd = ui_command(project_root(), port=args.port)
    cmd[0] = str(Path(sys.executable).with_name("mlflow"))
    print("serving MLflow UI on http://127.0.0.1:%d (Ctrl-C to stop)" % args.port, flush=True)
    try:
        return subprocess.call(cmd, env=os.environ.copy())
    except KeyboardInterrupt:
        return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="replearn", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("compose", help="compose conf/ (with Hydra overrides) into params.yaml")
    p.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. +experiment=smoke 'models=[knn,ridge]' cv.folds=5")
    p.add_argument("--output", help="write here instead of params.yaml")
    p.set_defaults(func=_cmd_compose)
    p = sub.add_parser("validate", help="validate params.yaml")
    p.add_argument("params", nargs="?", default="params.yaml")
    p.set_defaults(func=_cmd_validate)
    sub.add_parser("check", help="check dvc.lock, params.yaml and dvc.yaml's deps before a run").set_defaults(
        func=_cmd_check)
    p = sub.add_parser("deps", help="check (or --write) the src/ deps of each stage in dvc.yaml against its imports")
    p.add_argument("--write", action="store_true", help="rewrite them instead of checking")
    p.set_defaults(func=_cmd_deps)
    sub.add_parser("models", help="list registry models and their hyperparameters").set_defaults(func=_cmd_models)
    sub.add_parser("datasets", help="list shipped datasets").set_defaults(func=_cmd_datasets)
    sub.add_parser("where", help="print where the report and the MLflow store are").set_defaults(func=_cmd_where)
    p = sub.add_parser("ui", help="serve the MLflow UI on 127.0.0.1")
    p.add_argument("--port", type=int, default=5000)
    p.set_defaults(func=_cmd_ui)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ReplearnError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
