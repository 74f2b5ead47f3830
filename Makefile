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
# Python caches compiled modules, and pytest its rewritten test modules, in __pycache__ folders (ignored by git): where a
# machine sets PYTHONDONTWRITEBYTECODE, each of the suite's ~700 processes (commands, kernels, test workers) compiled the
# package's modules again, and each pytest worker rewrote the 100 test modules again (issue 43)
export PYTHONDONTWRITEBYTECODE :=

.PHONY: help venv lock reproduce test test-nodata bench docs docs-deps sysdeps lab clean-runs check-export check-clean check-structure check-runs nbtest pytest smoke

help:
	@echo "make reproduce [SMOKE=1] [DATA_DIR=...] [SEED=0]  run every paper notebook with papermill"
	@echo "make test                                         everything CI checks (installs nothing outside .venv)"
	@echo "make sysdeps                                      as root: chromium and chromedriver, for the browser check"
	@echo "make test-nodata                                  the data-dependent tests with the development data hidden"
	@echo "make bench [BENCH_ARGS=--quick]                   every benchmark, then each ratio beside its goal (issue 23)"
	@echo "make lock                                         refresh requirements.lock from settings.ini"
	@echo "make docs                                         static docs site in _docs/"
	@echo "make lab                                          JupyterLab on the repository, opening nbs/index.ipynb"

# --- environment -----------------------------------------------------------------------------
# requirements.lock pins every package (made by `make lock` with pip-tools from settings.ini, on the Python
# named in its first line). A venv on that Python installs exactly the lock; on another Python, the ranges of
# settings.ini (a warning says so).
LOCK := requirements.lock
LOCK_PY = $(shell sed -n 's/^# python: \([0-9.]*\).*/\1/p' $(LOCK))

$(VENV)/.installed: settings.ini setup.py $(LOCK)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip setuptools wheel
	# CPU build of PyTorch first, so no dependency ever pulls the CUDA build.
	$(PY) -m pip install --quiet torch==2.13.0
	@if [ "$$($(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = "$(LOCK_PY)" ]; then \
	  echo "installing the locked environment ($(LOCK), Python $(LOCK_PY))"; \
	  $(PY) -m pip install --quiet -r $(LOCK) && $(PY) -m pip install --quiet --no-deps -e . ; \
	else \
	  echo "WARNING: $(LOCK) was made with Python $(LOCK_PY), this is $$($(PY) -V): installing from the ranges in settings.ini"; \
	  $(PY) -m pip install --quiet -e ".[dev]"; \
	fi
	$(PY) -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "Python (scruples)" >/dev/null
	touch $@

venv: $(VENV)/.installed

# Refresh the lock from settings.ini (pip-tools in a throwaway venv; torch pinned to the CPU build).
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/pip install --quiet pip-tools
	echo "torch==2.13.0" > .lock-venv/constraints.txt
	.lock-venv/bin/pip-compile --quiet --no-header --extra dev --strip-extras --allow-unsafe \
	  --no-emit-index-url --no-emit-find-links --constraint .lock-venv/constraints.txt -o .lock-venv/out.txt setup.py
	{ echo "# python: $$(.lock-venv/bin/python -c 'import sys; print("%d.%d" % sys.version_info[:2])') (made by 'make lock' with pip-tools from settings.ini on $$(date -u +%Y-%m-%d))"; \
	  grep -v '^#' .lock-venv/out.txt | sed 's/^-e file.*//' ; } > $(LOCK)
	rm -rf .lock-venv
	@echo "$(LOCK): $$(grep -c '==' $(LOCK)) pinned packages"

# System packages: Chromium and its driver, for the docs' browser check (tests/test_docs_site.py). Only this target
# installs anything outside the repository, and only when asked: CI calls it before `make test` (.ci/run); `make test`
# never does (without them the browser check is skipped, and `make test` says so at the end).
SYSDEPS_APT := chromium chromium-driver
sysdeps:
	@if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then \
	  echo "sysdeps: chromium and chromedriver are installed"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "sysdeps: apt-get install $(SYSDEPS_APT)"; \
	  apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(SYSDEPS_APT) >/dev/null; \
	else echo "sysdeps: chromium/chromedriver missing and this user cannot install them:" \
	  "as root, apt-get install $(SYSDEPS_APT)"; exit 1; fi

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

# The house's shape (fast, before the long steps): no private names across modules, notebooks import only lower
# numbers, relative links of the notebooks resolve, no machine paths in committed outputs. Also part of `pytest`.
check-structure: venv
	$(PY) tests/test_structure.py
	$(BIN)/ruff check --select F601 scruples tests  # a dict key written twice (score --json lost its `read`: issue 38)

# Whether every kept paper run (figures/runs/) ran the code its notebook holds now, says which commit ran it and holds
# no progress bar or widget repr: one line per stale run, naming the code cells that differ (also part of `pytest`;
# `make reproduce` refreshes every kept run).
check-runs: venv
	$(PY) tests/test_kept_runs.py

# The notebooks whose examples behave differently without the real data: they call a loader, locate files or
# require data. `make test-nodata` runs only these (the others do the same with or without data).
NODATA_PAT := load_anecdotes\(|load_dilemmas\(|require_data\(|data_required\(|find_file\(|locate\(|data_dirs\(|SCRUPLES_NO_SHARED|mcm_file\(|load_user_study\(
NODATA_NBS := $(shell grep -lE '$(NODATA_PAT)' nbs/*.ipynb nbs/guides/*.ipynb 2>/dev/null | xargs -n1 basename | sed 's/\.ipynb$$//' | paste -sd'|')
NODATA ?=
# Both cores: pytest-xdist when installed (the lock has it), one process otherwise (and in the no-data leg: a
# few quick tests, where starting workers costs more than it saves).
PYTEST_N ?= $(shell $(PY) -c 'import xdist' 2>/dev/null && echo '-n 2 --dist loadfile')

# nbdev_test through scripts/nbtest.py: it stops joblib's idle workers after each notebook (nbdev's pool workers
# otherwise wait 300 s for them at exit: the step took 446 s for 145 s of notebooks).
# Cells marked `#| slow` (settings.ini's tst_flags: the simulation studies of 12_best, which draw their own data) run
# here and are skipped by the no-data leg, where they would only run again.
nbtest: venv
	$(PY) scripts/nbtest.py --n_workers 2 --timing $(if $(NODATA),--file_re '^($(NODATA_NBS))\.ipynb$$',--flags slow)

smoke: venv
	$(BIN)/scruples reproduce --smoke --jobs 2 --kernel $(KERNEL)

pytest: venv
	$(BIN)/pytest tests/ $(if $(NODATA),-m data --ignore=tests/test_docs_site.py,$(PYTEST_N)) --durations=15 \
	  $(if $(SKIPS_XML),--junitxml=$(SKIPS_XML)) $(PYTEST_ARGS)

# Runs the steps named in $(1) one after another as sub-makes, printing each one's seconds and a table at the end
# (also when a step fails: the table says which). $(2): variables for the sub-makes. The table is also kept in
# _runs/times-TARGET.txt (benchmarks/run_all.py reports it beside the goals of issue 23). Last, the checks pytest
# skipped and why, one line per reason (scripts/skip_report.py, from the pytest step's _runs/skips-TARGET.xml).
define timed_steps
	@mkdir -p _runs; rm -f _runs/skips-$@.xml; tbl=""; all=$$(date +%s); for t in $(1); do s=$$(date +%s); \
	  if $(MAKE) --no-print-directory $$t $(2) SKIPS_XML=_runs/skips-$@.xml; then r=ok; else r=FAILED; fi; \
	  d=$$(( $$(date +%s) - s )); echo "make $@: $$t $$r in $$d s"; tbl="$$tbl$$(printf '%-16s %6d s  %s' $$t $$d $$r)\n"; \
	  if [ $$r = FAILED ]; then break; fi; done; \
	  tbl="$$tbl$$(printf '%-16s %6d s  %s' total $$(( $$(date +%s) - all )) $$r)\n"; \
	  printf "$$tbl" > _runs/times-$@.txt; printf "make $@: step times\n$$tbl"; \
	  $(PY) scripts/skip_report.py _runs/skips-$@.xml "make $@" || true; [ $$r = ok ]
endef

test: venv
	$(call timed_steps,check-export check-clean check-structure nbtest smoke docs pytest)

# The parts of `make test` that depend on data, as on a user's machine without any: ../shared/data and the
# user cache are hidden (SCRUPLES_NO_SHARED=1), so every loader falls back to the synthetic corpus. Only the
# notebooks of NODATA_NBS and the tests marked `data` (tests/conftest.py) run again; the smoke run (every paper
# notebook loads data) runs whole.
test-nodata: venv
	$(call timed_steps,nbtest smoke pytest,NODATA=1 SCRUPLES_NO_SHARED=1 SCRUPLES_DATA= SCRUPLES_REQUIRE_DATA=)

# --- benchmarks ----------------------------------------------------------------------------
# Every script in benchmarks/, then one table of each ratio beside its goal; `BENCH_ARGS=--quick` for small sizes.
bench: venv
	$(PY) benchmarks/run_all.py $(BENCH_ARGS)

# --- docs ----------------------------------------------------------------------------------
# Fails on error text in any page (a failed cell or show_doc entry); the browser check is tests/test_docs_site.py.
docs: venv
	$(PY) docs/build.py

# --- JupyterLab ----------------------------------------------------------------------------
# Served from the repository root, so the notebooks' relative links (../figures/...) resolve, opening nbs/index.ipynb.
# (Not `jupyter lab nbs/index.ipynb`: a file argument makes its folder the server root, which is the old 404.)
# Every save goes through nbdev_clean (nbdev's pre-save hook; `jupyter_hooks = True` in settings.ini), so the kernel
# metadata JupyterLab writes never reaches the file: reading a notebook leaves `git status` clean.
lab: venv
	$(PY) -m pip install --quiet "jupyterlab>=4" ipywidgets
	$(BIN)/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/nbs/index.ipynb --ContentsManager.pre_save_hook=nbdev.clean.clean_jupyter $$([ "$$(id -u)" = 0 ] && echo --allow-root) $(LAB_ARGS)
