# scruples: one entry point for the reproduction, the tests, the docs and JupyterLab.
# Every target creates the project's virtual environment (.venv) first when it is missing.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
KERNEL ?= scruples
SMOKE ?= 0
DATA_DIR ?=
SEED ?= 0
export HF_HUB_OFFLINE := 1

.PHONY: help venv reproduce test docs docs-deps sysdeps lab clean-runs check-export check-clean nbtest pytest smoke

help:
	@echo "make reproduce [SMOKE=1] [DATA_DIR=...] [SEED=0]  run every paper notebook with papermill"
	@echo "make test                                         everything CI checks"
	@echo "make docs                                         static docs site in _docs/"
	@echo "make lab                                          JupyterLab on nbs/ with the package importable"

# --- environment -----------------------------------------------------------------------------
$(VENV)/.installed: settings.ini setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip setuptools wheel
	# CPU build of PyTorch first, so no dependency ever pulls the CUDA build.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e ".[dev]"
	$(PY) -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "Python (scruples)" >/dev/null
	touch $@

venv: $(VENV)/.installed

# Debian packages for the docs' browser check (Chromium and its driver); installs only as root.
sysdeps:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else echo "chromium/chromedriver missing: the browser check of the docs will be skipped"; fi; \
	fi

# --- reproduction --------------------------------------------------------------------------
# A full run also keeps its executed notebooks, machine paths scrubbed, in figures/runs/ (committed with the
# figures): the docs' paper pages show them.
reproduce: venv
	$(BIN)/scruples reproduce $(if $(filter 1 true yes,$(SMOKE)),--smoke) $(if $(DATA_DIR),--data-dir $(DATA_DIR)) --seed $(SEED) --kernel $(KERNEL)
	$(if $(filter 1 true yes,$(SMOKE)),,$(PY) docs/keep_runs.py)

# --- tests ---------------------------------------------------------------------------------
check-export: venv
	$(BIN)/nbdev_export
	git diff --exit-code -- scruples
	@test -z "$$(git status --porcelain --untracked-files=all -- scruples)" || { git status --porcelain -- scruples; echo "nbdev_export made files that are not committed"; exit 1; }

check-clean: venv
	$(BIN)/nbdev_clean
	git diff --exit-code -- nbs

nbtest: venv
	$(BIN)/nbdev_test --n_workers 2 --timing

smoke: venv
	$(BIN)/scruples reproduce --smoke --kernel $(KERNEL)

pytest: venv
	$(BIN)/pytest tests/

test: venv sysdeps check-export check-clean nbtest smoke docs pytest

# --- docs ----------------------------------------------------------------------------------
# Fails on error text in any page (a failed cell or show_doc entry); the browser check is tests/test_docs_site.py.
docs: venv
	$(PY) docs/build.py

# --- JupyterLab ----------------------------------------------------------------------------
lab: venv
	$(PY) -m pip install --quiet "jupyterlab>=4" ipywidgets
	cd nbs && ../$(BIN)/jupyter lab $$([ "$$(id -u)" = 0 ] && echo --allow-root) $(LAB_ARGS)
