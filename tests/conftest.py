"""Shared fixtures: where the real data lives, and a private user cache for every test."""
from __future__ import annotations

import os

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
