"""Shared fixtures: where the real data lives, and a private user cache for every test."""
from __future__ import annotations

import os
import sys

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
REAL_FILES = ('dilemmas/dev.scruples-dilemmas.jsonl', 'dilemmas/test.scruples-dilemmas.jsonl',
              'label-counts/dev.scruples-anecdotes_label-counts.json',
              'label-counts/dev.scruples-dilemmas_label-counts.json')

# Read once, at import: tests monkeypatch these variables, the real-data location must not follow them.
_DATA_ENV_AT_START = os.environ.get('SCRUPLES_DATA') or None


_NO_SHARED_AT_START = os.environ.get('SCRUPLES_NO_SHARED', '').strip() not in ('', '0')


def real_data_path() -> Path|None:
    "`$SCRUPLES_DATA` when set, else `../shared/data` beside the repository root; None when SCRUPLES_NO_SHARED hides it."
    if _DATA_ENV_AT_START: return Path(_DATA_ENV_AT_START).expanduser().resolve()
    if _NO_SHARED_AT_START: return None
    return REPO_ROOT.parent/'shared'/'data'


def data_required() -> bool:
    "CI sets SCRUPLES_REQUIRE_DATA: then missing real data is a failure, not a skip."
    v = os.environ.get('SCRUPLES_REQUIRE_DATA', '').strip()
    return bool(v) and v != '0'


@pytest.fixture(scope='session')
def real_data_dir() -> Path:
    "The folder with the real Scruples files; skips the test when they are absent (fails when they are required)."
    d = real_data_path()
    missing = list(REAL_FILES) if d is None else [f for f in REAL_FILES if not (d/f).is_file()]
    if missing:
        why = (f'real Scruples data not found in {d} (missing: {", ".join(missing)}); '
               f'set $SCRUPLES_DATA or place the data in ../shared/data beside the checkout')
        if data_required(): pytest.fail(f'SCRUPLES_REQUIRE_DATA is set but {why}', pytrace=False)
        pytest.skip(why)
    return d


@pytest.fixture(autouse=True)
def user_cache(tmp_path_factory, monkeypatch) -> Path:
    "Every test gets its own empty user cache (`$SCRUPLES_CACHE`), so no test touches the real one."
    cache = tmp_path_factory.mktemp('scruples-cache')
    monkeypatch.setenv('SCRUPLES_CACHE', str(cache))
    return cache


# --- the no-data leg ------------------------------------------------------------------------------
# `make test-nodata` runs `pytest -m data`: only the tests whose behaviour depends on whether the real data is found
# (the loaders' fallback to synthetic data, locating files, the skip-or-fail of the real-data tests). Every other
# test does the same with or without data and runs once, in `make test`. A test is `data` when it uses the
# `real_data_dir` fixture, lives in one of DATA_MODULES, or is named in DATA_TESTS (it calls a loader with the
# default search path). A new test that loads data by default: add it here (or mark it `@pytest.mark.data`).
# Not here: tests that hide the data themselves (they do the same in both legs), and tests that only compute on
# whatever the loaders return (e.g. test_models' tiny fit on load_dilemmas('dev')): the notebooks that train and
# score on the synthetic fallback run again in the no-data leg (Makefile NODATA_NBS).
DATA_MODULES = {'test_locate.py', 'test_data_real.py'}
DATA_TESTS = {
    'test_cli.py::test_locate_json',                        # `scruples data locate` with the default search path
    'test_likelihoods.py::test_dilemmas_counts_is_five_times_soft',  # load_dilemmas('dev'): real or synthetic
}
DATA_FIXTURES = {'real_data_dir'}


def pytest_configure(config):
    config.addinivalue_line('markers', 'data: behaves differently without the real data; `make test-nodata` runs only these')
    workers = os.environ.get('PYTEST_XDIST_WORKER_COUNT')  # set in each of pytest-xdist's workers before this runs
    if workers:  # the workers share the cores: each its share of BLAS threads, before numpy loads (torch: its own)
        # (issue 43: with a thread per core in each, a file of numpy tests took twice as long; the CLI calls inherit it)
        from scruples.reproduce import thread_share
        share = thread_share(int(workers))
        os.environ.update(share)
        if 'OPENBLAS_NUM_THREADS' in share and 'numpy' in sys.modules:  # a plugin loaded it already: told now
            from threadpoolctl import threadpool_limits
            _LIMITS.append(threadpool_limits(int(share['OPENBLAS_NUM_THREADS']), 'blas'))


_LIMITS: list = []  # held for the session


def pytest_ignore_collect(collection_path, config):
    "In a `-m data` run, files that hold no `data` test are not even imported (the no-data leg skips torch's import)."
    name = collection_path.name
    if config.option.markexpr != 'data' or not (name.startswith('test_') and name.endswith('.py')): return None
    if name in DATA_MODULES or any(t.split('::')[0] == name for t in DATA_TESTS): return None
    text = collection_path.read_text(encoding='utf-8', errors='replace')
    return None if 'mark.data' in text or any(f in text for f in DATA_FIXTURES) else True


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    names, modules = set(), set()
    for item in items:
        module = item.path.name
        name = f'{module}::{getattr(item, "originalname", None) or item.name}'
        names.add(name); modules.add(module)
        if module in DATA_MODULES or name in DATA_TESTS or DATA_FIXTURES & set(getattr(item, 'fixturenames', ())):
            item.add_marker(pytest.mark.data)
    # a renamed test must not silently leave the no-data leg: in a `-m data` run, every listed name must exist
    stale = sorted(n for n in DATA_TESTS if n.split('::')[0] in modules and n not in names and not config.option.keyword)
    if stale and 'data' in (config.option.markexpr or ''):
        raise pytest.UsageError(f'tests/conftest.py DATA_TESTS names tests that do not exist (renamed?): {", ".join(stale)}')


# --- one run of the shipped guide per test session ----------------------------------------------------------------
# The guide notebook on its shipped dataset, run in place as JupyterLab runs it (its folder as the working directory,
# its default output folder), once per session: test_clean_run.py checks that it leaves `git status` as it was, and
# test_guide.py reads its outputs (they ran one each before, issue 43). xdist workers share it through a file lock in
# the session's common temporary folder: the first runs it, the others read what it recorded.
SHIPPED_GUIDE_PARAMS = dict(max_items=120, epochs=1, budget=2, n_boot=20, best_samples=200, baselines='Prior,Logistic',
                            likelihoods='soft,dirichlet', trait_items=6)


def _git_status() -> str|None:
    import subprocess
    try: r = subprocess.run(['git', '-C', str(REPO_ROOT), 'status', '--porcelain', '--untracked-files=all'],
                            capture_output=True, text=True, check=True, timeout=60)
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired): return None
    return r.stdout


def _run_shipped_guide(dest: Path) -> dict:
    "Run the guide in place into `dest` (the executed notebook and a copy of what it wrote); what happened, as a dict."
    import shutil, time
    import papermill as pm
    from papermill.inspection import inspect_notebook
    from scruples.reproduce import default_kernel
    guide = REPO_ROOT/'nbs'/'guides'/'your_data.ipynb'
    out = guide.parent/inspect_notebook(str(guide))['out_dir']['default'].strip('\'"')
    existed, before, start = out.exists(), _git_status(), time.time()
    rec = dict(out_dir=str(out), git_before=before)
    try:
        pm.execute_notebook(str(guide), str(dest/'your_data.ipynb'), kernel_name=default_kernel(), progress_bar=False,
                            cwd=str(guide.parent), parameters=SHIPPED_GUIDE_PARAMS)
        written = [p for p in out.rglob('*') if p.is_file() and p.stat().st_mtime >= start - 1]
        for p in written:
            (dest/p.relative_to(out)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, dest/p.relative_to(out))
        rec.update(written=sorted(str(p.relative_to(out)) for p in written), git_after=_git_status(), error=None)
    except Exception as err:  # recorded: every test reading the run fails with it
        rec.update(error=f'{type(err).__name__}: {err}'[-3000:])
    finally:
        if not existed: shutil.rmtree(out, ignore_errors=True)  # only a folder this run made
    return rec


@pytest.fixture(scope='session')
def shipped_guide_run(tmp_path_factory) -> dict:
    """The shipped guide run in place once per session (`SHIPPED_GUIDE_PARAMS`): out (a folder with the executed
    notebook and copies of the files it wrote), out_dir (where it wrote them), written, git_before, git_after, error."""
    import json
    from filelock import FileLock
    root = tmp_path_factory.getbasetemp()
    if os.environ.get('PYTEST_XDIST_WORKER'): root = root.parent  # the workers' common folder
    dest, record = root/'shipped-guide-run', root/'shipped-guide-run.json'
    with FileLock(str(root/'shipped-guide-run.lock')):
        if not record.is_file():
            dest.mkdir(exist_ok=True)
            record.write_text(json.dumps(_run_shipped_guide(dest)))
    return json.loads(record.read_text()) | {'out': dest}


@pytest.fixture
def split_gold(tmp_path):
    """Gold counts of 60 items (3 classes) with a train/dev/test split column, and predictions near them: all.csv (every
    item), test.csv and dev.csv (one split each)."""
    import numpy as np
    import pandas as pd
    rng, n = np.random.default_rng(5), 60
    c = rng.multinomial(5, [0.5, 0.3, 0.2], size=n)
    g = pd.DataFrame(c, columns=['x', 'y', 'z'])
    g.insert(0, 'id', [f'q{i}' for i in range(n)])
    g['split'] = ['train'] * 20 + ['dev'] * 20 + ['test'] * 20
    g.to_csv(tmp_path/'gold.csv', index=False)
    p = np.clip(c / 5 + rng.normal(0, .1, (n, 3)), 0.01, None)
    p = pd.DataFrame(p / p.sum(1, keepdims=True), columns=['x', 'y', 'z'])
    p.insert(0, 'id', g.id)
    p.to_csv(tmp_path/'all.csv', index=False)
    p[g.split == 'test'].to_csv(tmp_path/'test.csv', index=False)
    p[g.split == 'dev'].to_csv(tmp_path/'dev.csv', index=False)
    return tmp_path


@pytest.fixture
def paper_checkout(tmp_path, monkeypatch):
    """A checkout with two paper notebooks (01_first, 02_second) for `reproduce`: call it with the function that stands
    for papermill's `execute_notebook(src, dest, parameters, **kw)`; it returns the checkout's root."""
    import papermill
    import scruples.reproduce as sr
    root = tmp_path/'repo'; (root/'nbs'/'papers').mkdir(parents=True)
    for s in ('01_first', '02_second'): (root/'nbs'/'papers'/f'{s}.ipynb').write_text('{}')
    monkeypatch.setattr(sr, 'checkout_root', lambda: root)

    def make(execute):
        monkeypatch.setattr(papermill, 'execute_notebook', execute)
        return root
    return make
