"""Seventh hostile pass (issue 39). Each test runs the CLI as a user does (a subprocess) or the API, and asserts the
right behaviour; each failed on the code it was written against."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
CLI = 'import sys; from scruples.cli import main; sys.exit(main())'
SAMPLES = ROOT/'scruples'/'extraction_data'


def scruples(*argv, timeout=300, cwd=None):
    "`scruples ARGV` as a user runs it: a subprocess."
    env = os.environ.copy() | {'PYTHONPATH': os.environ.get('PYTHONPATH') or str(ROOT), 'HF_HUB_OFFLINE': '1'}
    return subprocess.run([sys.executable, '-c', CLI, *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=cwd)


# --- SILENT WRONG: a user's JSON file in extract's _reports/ counted as another input's partition -----------------

def test_extract_user_json_in_reports_not_counted_as_partition(tmp_path):
    out = tmp_path/'ex'
    (out/'_reports').mkdir(parents=True)
    (out/'_reports'/'notes.json').write_text('{"mine": 1}')
    r = scruples('extract', SAMPLES/'RS_sample.zst', SAMPLES/'RC_sample.zst', '--out', out, '--workers', '1',
                 '--no-progress', '--no-splits')
    assert r.returncode == 0, r.stderr
    assert (out/'_reports'/'notes.json').read_text() == '{"mine": 1}'  # kept
    assert json.loads((out/'report.json').read_text())['ignored_partitions'] == 0
