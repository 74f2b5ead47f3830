"""Eighth hostile pass (issue 39). Each test runs the CLI as a user does (a subprocess) or the API, and asserts the
right behaviour; each failed on the code it was written against."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scruples.reproduce import Comparison

ROOT = Path(__file__).resolve().parents[1]
CLI = 'import sys; from scruples.cli import main; sys.exit(main())'


def scruples(*argv, timeout=300, cwd=None):
    "`scruples ARGV` as a user runs it: a subprocess."
    env = os.environ.copy() | {'PYTHONPATH': os.environ.get('PYTHONPATH') or str(ROOT), 'HF_HUB_OFFLINE': '1'}
    return subprocess.run([sys.executable, '-c', CLI, *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=cwd)


# --- DATA MIXED: reproduce's summary gathered the rows of an earlier run made with other settings -------------------

@pytest.fixture
def fake_checkout(tmp_path, monkeypatch):
    "A checkout with two paper notebooks and a papermill whose runs write one row saying how they were run."
    import papermill
    import scruples.reproduce as sr
    root = tmp_path/'repo'; (root/'nbs'/'papers').mkdir(parents=True)
    for s in ('01_first', '02_second'): (root/'nbs'/'papers'/f'{s}.ipynb').write_text('{}')
    monkeypatch.setattr(sr, 'checkout_root', lambda: root)

    def execute(src, dest, parameters, **kw):
        p = parameters
        Comparison(Path(src).stem).add('T', f"smoke={p['smoke']} seed={p['seed']} data={p['data_dir']!r}", 1.0,
                                       1.0).save(p['fig_dir'])
    monkeypatch.setattr(papermill, 'execute_notebook', execute)
    return root


@pytest.mark.parametrize('first, second', [
    (dict(smoke=False), dict(smoke=True)),  # a full run's rows in the '(smoke run)' summary
    (dict(seed=0), dict(seed=5)),  # another seed's numbers, as if of this seed
    (dict(data_dir='a'), dict(data_dir='b')),  # numbers of other data
])
def test_reproduce_summary_holds_no_rows_of_a_run_with_other_settings(fake_checkout, tmp_path, first, second):
    """`reproduce --notebooks 01` then `reproduce --notebooks 02 --smoke` (or --seed 5) into one --fig-dir: the summary of
    the second run held 01's rows of the first, titled as the second run's, with nothing saying they were made otherwise."""
    from scruples.reproduce import reproduce
    figs, log = tmp_path/'figs', []
    kw = dict(out=tmp_path/'out', fig_dir=figs, kernel='python3', log=log.append)
    reproduce(notebooks=['01'], **(kw | first))
    rows = reproduce(notebooks=['02'], **(kw | second))
    assert rows.notebook.tolist() == ['02_second']  # was: ['01_first', '02_second']
    assert pd.read_csv(figs/'summary.csv').notebook.tolist() == ['02_second']
    text = (figs/'summary.md').read_text()
    assert '01_first' in text and 'other settings' in text  # said, not dropped silently
    assert (figs/'01_first.rows.csv').exists()  # the earlier run's rows are kept, not deleted
    assert any('01_first' in m and 'other settings' in m for m in log)


def test_reproduce_summary_keeps_rows_of_an_earlier_run_with_the_same_settings(fake_checkout, tmp_path):
    "Running the notebooks one at a time with the same settings still builds one summary of all of them."
    from scruples.reproduce import reproduce
    kw = dict(out=tmp_path/'out', fig_dir=tmp_path/'figs', kernel='python3', log=lambda m: None, seed=3)
    reproduce(notebooks=['01'], **kw)
    rows = reproduce(notebooks=['02'], **kw)
    assert rows.notebook.tolist() == ['01_first', '02_second']


# --- DATA MIXED: mcm score --mode raw showed 'Smile.' and 'Smile!' as one action 'Smile' with two different scores ---

def test_mcm_score_raw_rows_name_the_text_scored():
    "`mcm score --mode raw 'Smile.' 'Smile!'`: two rows both named 'Smile', their scores those of different texts."
    r = scruples('mcm', 'score', '--mode', 'raw', '--json', '--', 'Smile.', 'Smile!', 'smile', timeout=600)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [x['action'] for x in rows] == ['Smile.', 'Smile!', 'smile']  # was: ['Smile', 'Smile', 'smile']
    assert len({x['score'] for x in rows}) == 3  # three texts embedded, three scores
