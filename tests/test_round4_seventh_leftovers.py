"""The seventh hostile pass's leftovers (issue 39), mended: each test failed on the code before its fix. Commands run as
a user runs them (a subprocess), and the API."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_run import scruples

ROOT = Path(__file__).resolve().parents[1]


# --- SILENT WRONG: --cal-gold a copy of the gold file: the temperature fitted on the scored items, called held-out ---

@pytest.mark.parametrize('form', ['copy', 'tsv', 'test part'])
def test_score_cal_gold_copy_of_the_gold_is_refused(split_gold, form):
    t = split_gold
    g = pd.read_csv(t/'gold.csv')
    if form == 'copy':
        (t/'copy.csv').write_bytes((t/'gold.csv').read_bytes())
        cal_gold, cal = t/'copy.csv', t/'all.csv'
    elif form == 'tsv':
        g.to_csv(t/'copy.tsv', sep='\t', index=False)
        cal_gold, cal = t/'copy.tsv', t/'all.csv'
    else:  # the scored items alone, without the split column
        g[g.split == 'test'].drop(columns='split').to_csv(t/'copy.csv', index=False)
        cal_gold, cal = t/'copy.csv', t/'test.csv'
    r = scruples('score', t/'test.csv', t/'gold.csv', '--cal', cal, '--cal-gold', cal_gold,
                 '--bootstrap', '0', '--ceiling-bootstrap', '0', '--samples', '200')
    assert r.returncode == 1 and 'held-out' not in r.stdout, r.stdout  # the old code: "held-out" on the scored items
    assert '--cal-gold' in r.stderr and '20 of its items are scored items' in r.stderr, r.stderr


def test_score_cal_gold_of_other_items_numbered_alike_is_accepted(split_gold):
    "Held-out items that happen to share ids with the scored ones, but not their votes, are other items: accepted."
    t = split_gold
    g = pd.read_csv(t/'gold.csv')
    dev = g[g.split == 'dev'].drop(columns='split').copy()
    dev['id'] = g[g.split == 'test'].id.to_numpy()  # numbered like the test items
    dev[['x', 'y', 'z']] = dev[['x', 'y', 'z']].to_numpy()[:, [1, 2, 0]]  # other votes
    dev.to_csv(t/'dev_gold.csv', index=False)
    p = pd.read_csv(t/'dev.csv')
    p['id'] = dev.id.to_numpy()
    p.to_csv(t/'dev_pred.csv', index=False)
    r = scruples('score', t/'test.csv', t/'gold.csv', '--cal', t/'dev_pred.csv', '--cal-gold', t/'dev_gold.csv',
                 '--bootstrap', '0', '--ceiling-bootstrap', '0', '--samples', '200')
    assert r.returncode == 0, r.stderr
    assert 'dev_gold.csv' in r.stdout


# --- SILENT WRONG: n_boot=1 at the API gave a point for an interval (the CLI refuses it) ---------------------------

@pytest.mark.parametrize('n_boot', [1, 5, 9])
def test_best_and_score_refuse_too_few_resamples(n_boot):
    from scruples.agreement import agreement_interval
    from scruples.best import best
    from scruples.evaluation import score_predictions
    from scruples.annotations import simulate_annotations
    c = np.random.default_rng(0).multinomial(5, [0.5, 0.3, 0.2], size=40)
    with pytest.raises(ValueError, match='at least 10'):
        best(c, n_boot=n_boot, n_samples=100)
    with pytest.raises(ValueError, match='at least 10'):
        score_predictions(np.full((40, 3), 1 / 3), c, n_boot=n_boot)
    with pytest.raises(ValueError, match='at least 10'):
        agreement_interval(simulate_annotations(n_items=30, n_annotators=10, seed=0)[0], n_boot=n_boot)
    r = best(c, n_boot=10, n_samples=100, metrics='accuracy').loc['accuracy']
    assert r.ci_low < r.ci_high and r.ci_low <= r.estimate <= r.ci_high


def test_items_for_difference_uses_its_n_boot_and_n_sims(monkeypatch):
    "n_boot was accepted and replaced by n_sims (and n_sims raised to 50): both are now used, n_boot below 10 refused."
    import scruples.plan as sp
    with pytest.raises(ValueError, match='at least 10'):
        sp.items_for_difference(np.array([2.0, 1.0, 1.0]), 3, 0.1, n_sims=60, n_boot=1)
    seen, real = [], sp._power
    monkeypatch.setattr(sp, '_power', lambda probs, k, n, n_sims, n_boot, *a:
                        seen.append((n_sims, n_boot)) or real(probs, k, n, n_sims, n_boot, *a))
    sp.items_for_difference(np.array([2.0, 1.0, 1.0]), 3, 0.1, n_sims=20, n_boot=70, seed=1)
    assert seen and set(seen) == {(20, 70)}, set(seen)


# --- MESSAGE / SILENT WRONG: best --by --ties drop, votes; a group without votes; groups of the wrong length -------

def _long(tmp_path, extra=()):
    rows = []
    for i in range(16):
        labels = ['x', 'x', 'y', 'y'] if i % 4 == 0 else ['x', 'y', 'y', 'x'] if i % 4 == 1 else ['x', 'x', 'x', 'y']
        rows += [(f'i{i}', f'a{j}', lab, 'test' if i < 8 else 'train') for j, lab in enumerate(labels)]
    rows += list(extra)
    pd.DataFrame(rows, columns=['item', 'annotator', 'label', 'split']).to_csv(tmp_path/'long.csv', index=False)
    return tmp_path/'long.csv'


def test_best_by_ties_drop_votes_are_those_of_the_items_scored(tmp_path):
    path = _long(tmp_path)
    pd.DataFrame({'annotator': ['a0', 'a1', 'a2', 'a3'], 'team': ['p', 'p', 'q', 'q']}).to_csv(tmp_path/'ann.csv',
                                                                                              index=False)
    r = scruples('best', path, '--on', 'all', '--ties', 'drop', '--metric', 'accuracy', '--samples', '500',
                 '--bootstrap', '0', '--json', '--by', 'team', '--annotators', tmp_path/'ann.csv')
    assert r.returncode == 0, r.stderr
    rows = {c['group']: c for c in json.loads(r.stdout)['ceilings']}
    assert rows['all']['items'] == 8 and rows['all']['votes'] == 32, rows['all']  # the old code: 64 votes of 16 items


def test_best_by_on_a_group_without_votes_says_so(tmp_path):
    path = _long(tmp_path, extra=[(f'i{i}', 'late', 'x', 'train') for i in range(8, 16)])
    pd.DataFrame({'annotator': ['a0', 'a1', 'a2', 'a3', 'late'], 'team': ['p', 'p', 'q', 'q', 'r']}).to_csv(
        tmp_path/'ann.csv', index=False)
    r = scruples('best', path, '--on', 'test', '--metric', 'accuracy', '--samples', '500', '--bootstrap', '0',
                 '--json', '--by', 'team', '--annotators', tmp_path/'ann.csv')
    assert r.returncode == 0, r.stderr
    row = {c['group']: c for c in json.loads(r.stdout)['ceilings']}['r']
    assert row['votes'] == 0 and 'no votes' in row['note'] and 'one vote per item' not in row['note'], row


@pytest.mark.parametrize('fn', ['group_agreement', 'group_majorities', 'between_groups', 'alpha_across_groups',
                                'annotator_table', 'best_by_group', 'plan_by_group'])
@pytest.mark.parametrize('length', [3, 7])
def test_groups_of_the_wrong_length_are_refused(fn, length):
    import scruples.perspectives as sp
    from scruples.annotations import simulate_annotations
    d = simulate_annotations(n_items=30, n_annotators=10, seed=0)[0]
    assert len(d.annotators) not in (3, 7)
    groups = np.array(['p', 'q'] * 4, dtype=object)[:length]
    with pytest.raises(ValueError, match=f'{length} groups for {len(d.annotators)} annotators'):
        getattr(sp, fn)(d, groups)


def test_groups_as_a_list_are_taken_as_an_array():
    "A list of groups (one per annotator) gives what the array gives: `groups == g` of a list was one False."
    from scruples.perspectives import group_majorities
    from scruples.annotations import simulate_annotations
    d = simulate_annotations(n_items=30, n_annotators=10, seed=0)[0]
    g = ['p' if i % 2 else 'q' for i in range(len(d.annotators))]
    pd.testing.assert_frame_equal(group_majorities(d, g), group_majorities(d, np.array(g, dtype=object)))


# --- SILENT WRONG: plan --votes 3,3 planned once and said nothing ----------------------------------------------------

def test_plan_votes_named_twice_are_refused(tmp_path):
    c = np.random.default_rng(0).multinomial(3, [0.5, 0.3, 0.2], size=60)
    pd.DataFrame(c, columns=['x', 'y', 'z']).to_csv(tmp_path/'pilot.csv', index=False)
    r = scruples('plan', tmp_path/'pilot.csv', '--votes', '3,3')
    assert r.returncode == 2 and 'named twice' in r.stderr, (r.returncode, r.stderr)
    from scruples.plan import plan_ceiling
    with pytest.raises(ValueError, match='named twice: 3'):
        plan_ceiling(np.array([2.0, 1.0, 1.0]), votes=(3, 5, 3), n_sims=10)
