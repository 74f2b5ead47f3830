"""The fortieth hostile pass (issue 39): each test failed before its fix."""
import json

import numpy as np
import pandas as pd
import pytest

from cli_run import scruples


def _gold(tmp_path, n=60, seed=1):
    "Homogeneous votes (one shared label distribution): a prior of huge concentration, a ceiling interval of width 0."
    rng = np.random.default_rng(seed)
    c = rng.multinomial(5, [.5, .3, .2], size=n)
    ids = [f'p{i}' for i in range(n)]
    pd.DataFrame(c, columns=['yes', 'no', 'unsure']).assign(id=ids)[['id', 'yes', 'no', 'unsure']].to_csv(
        tmp_path / 'gold.csv', index=False)
    pd.DataFrame((c + .5) / 6.5, columns=['yes', 'no', 'unsure']).assign(id=ids)[['id', 'yes', 'no', 'unsure']].to_csv(
        tmp_path / 'pred.csv', index=False)
    return tmp_path / 'gold.csv', tmp_path / 'pred.csv'


def test_score_says_which_interval_the_ceilings_are(tmp_path):
    """`scruples score` printed the ceiling's accuracy/macro-F1 interval (posterior draws of the oracle's score on these
    items) under the footnote 'intervals: 95% bootstrap over the items', and judged its overlap with the model's item
    bootstrap as if they were of one kind."""
    gold, pred = _gold(tmp_path)
    r = scruples('score', pred, gold, '--bootstrap', 100, '--ceiling-bootstrap', 50, '--samples', 500)
    assert r.returncode == 0, r.stderr
    text = ' '.join(r.stdout.split())
    assert 'intervals: 95% bootstrap over the items' not in text
    assert "the model's a bootstrap over the items" in text and 'posterior draws' in text, text
    acc = [n for n in r.stderr.splitlines() if 'pred: accuracy' in n]
    assert acc and 'two kinds of interval' in acc[0], r.stderr
    xe = [n for n in r.stderr.splitlines() if 'pred: cross-entropy' in n]  # both bootstraps: no such words
    assert xe and 'two kinds' not in xe[0]
    j = scruples('score', pred, gold, '--bootstrap', 100, '--ceiling-bootstrap', 50, '--samples', 500, '--json')
    assert 'posterior draws' in json.loads(j.stdout)['intervals']


def test_above_ceiling_names_the_two_kinds_of_interval_of_a_hard_metric():
    from scruples.guide import above_ceiling

    ceiling = pd.DataFrame({'estimate': [.7, .9], 'ci_low': [.7, .85], 'ci_high': [.7, .95]}, index=['macro_f1', 'xentropy'])
    res = {'m': {'f1': .8, 'f1_lo': .6, 'f1_hi': .9, 'xentropy': .95, 'xentropy_lo': .9, 'xentropy_hi': 1.0}}
    said = above_ceiling(res, ceiling).set_index('metric').says
    assert 'two kinds of interval' in said['macro_f1'] and 'the intervals overlap: it may be chance' in said['macro_f1']


def test_analyze_prints_best_notes_and_no_pointer_to_absent_warnings(tmp_path):
    """`scruples analyze` said 'see the warnings below' of skewed classes with no model (no warnings follow), and left out
    the prior's concentration note that best/score/plan print; the ceiling rows' note did not say what lo, hi are."""
    gold, _ = _gold(tmp_path)
    r = scruples('analyze', gold, '--out', tmp_path / 'an', '--json', timeout=600)
    assert r.returncode == 0, r.stderr
    assert 'concentration' in r.stderr, r.stderr
    rows = json.loads(r.stdout)  # still the list of summary rows: the notes are rows of section 'notes'
    assert isinstance(rows, list) and any(x['section'] == 'notes' and 'concentration' in x['note'] for x in rows)
    skewed = [x for x in rows if x['quantity'] == 'skewed classes']
    assert skewed and 'warnings below' not in skewed[0]['note']
    ceil = {x['quantity']: x['note'] for x in rows if x['section'] == 'ceiling'}
    assert 'posterior draws' in ceil['BEST accuracy (all items)'] and 'bootstrap over the items' in ceil[
        'BEST cross-entropy (all items)']
