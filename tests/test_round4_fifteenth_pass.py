"""Fifteenth hostile pass: agree, plan, score and the readers on what the fourteen earlier passes tried least. Each test
runs the CLI as a user does (a subprocess) or the API, asserts the right behaviour against a truth computed apart, and
failed on the code it was written against."""
import json

import numpy as np
import pandas as pd
import pytest

from cli_run import scruples


def _long_with_repeats(tmp_path):
    "a, b, c label 12 items each; d labels items 0-5 twice (repeats=all: d#2) and shares fewer than 5 with each other."
    rng = np.random.default_rng(0)
    who = {'a': [0, 1, 2, *range(6, 12)], 'b': [3, 4, 5, *range(6, 12)], 'c': [0, 3, *range(6, 12)],
           'd': list(range(6)) * 2}
    rows = [(f'i{i}', w, 'xy'[rng.integers(2)], 'g1' if w in 'ab' else 'g2') for w, its in who.items() for i in its]
    path = tmp_path / 'long.csv'
    pd.DataFrame(rows, columns=['item', 'annotator', 'label', 'grp']).to_csv(path, index=False)
    return path


# --- SILENT WRONG: agree --by's note 'N annotators share fewer than 5 items with every other' counted rows of the
# --- annotator x item matrix: A's repeated labels (A#2, repeats=all) were another annotator, A's pair with A#2 (oneself)
# --- a pair, and an annotator of other items alone (--on test) one of them; the per-annotator table has people ------

def test_the_few_shared_items_note_counts_people_not_pseudo_annotators(tmp_path):
    path = _long_with_repeats(tmp_path)
    r = scruples('agree', path, '--repeats', 'all', '--by', 'grp', '--bootstrap', '0', '--json')
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    table = {a['annotator']: a for a in out['annotators']}
    assert set(table) == {'a', 'b', 'c', 'd'}
    assert table['d']['pairs_own'] == 0 and table['d']['pairs_other'] == 0  # d shares 3, 3 and 2 items: no kappa
    # independent: people sharing fewer than 5 items with every other person
    d = pd.read_csv(path)
    items = d.groupby('annotator').item.apply(set)
    few = [p for p in items.index if all(len(items[p] & items[q]) < 5 for q in items.index if q != p)]
    assert few == ['d']
    said = [n for n in out['notes'] if 'share fewer than' in n]
    assert said and said[0].startswith(f'{len(few)} annotators'), out['notes']  # the old code: none (d with d#2: 6)


# --- known: --on test: an annotator of the train items alone was a per-annotator row of 0 votes and NaN rates, and
# --- counted in the 'share fewer than' note (the join's count and the groups' sizes leave it out) ----------------

def test_agree_by_on_test_leaves_out_an_annotator_of_the_train_items_alone(tmp_path):
    rows = [(f'i{k}', w, 'xy'[(k + j) % 2], 'test', 'g1' if w in 'ac' else 'g2')
            for k in range(6) for j, w in enumerate('abc')]
    rows += [(f't{k}', w, 'x', 'train', 'g2') for k in range(3) for w in 'bd']
    path = tmp_path / 'split.csv'
    pd.DataFrame(rows, columns=['item', 'annotator', 'label', 'split', 'grp']).to_csv(path, index=False)
    r = scruples('agree', path, '--by', 'grp', '--bootstrap', '0', '--json')
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [a['annotator'] for a in out['annotators']] == ['a', 'b', 'c']  # d: train items only
    assert all(a['votes'] == 6 for a in out['annotators'])
    assert not any('share fewer than' in n for n in out['notes']), out['notes']  # a, b, c share 6 items


# --- misleading refusal: agree --bootstrap 0 --seed S on items of equal votes was refused, 'nothing in this run is
# --- random', while with annotator ids the seed seeds MACE's restarts: mace_agree_with_majority moved with it ------

def test_agree_takes_a_seed_that_seeds_mace(tmp_path):
    rng = np.random.default_rng(0)
    R = rng.integers(0, 3, size=(4, 10))
    rows = [(f'i{i}', w, 'xyz'[R[a, i]]) for i in range(10) for a, w in enumerate('abcd')]
    path = tmp_path / 'mace.csv'
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(path, index=False)
    out = {}  # five restarts, each from its own draw since stop 56: most seeds reach one fit here; seed 4 another
    for s in ('0', '4'):
        r = scruples('agree', path, '--bootstrap', '0', '--seed', s, '--json')
        assert r.returncode == 0, r.stderr  # the old code: refused, 'nothing in this run is random'
        out[s] = {m['metric']: m['value'] for m in json.loads(r.stdout)['overall']}['mace_agree_with_majority']
    from scruples.agreement import agreement_report  # independent of the CLI: the report with each seed
    from scruples.annotations import read_annotated
    d = read_annotated(path)
    api = {s: agreement_report(d, seed=int(s)).set_index('metric').value['mace_agree_with_majority'] for s in out}
    assert out == pytest.approx(api) and api['0'] != api['4'], (out, api)  # the seed moves MACE here


# --- SILENT WRONG: the aggregates (Dawid-Skene, MACE, GLAD) took A's repeated labels (repeats=all: the matrix row A#2)
# --- for another worker, with a confusion matrix of its own: the same person as two independent workers. One worker
# --- now, as every other per-annotator number (A#2 is A) --------------------------------------------------------

def _repeats(tmp_path, trial=3):
    rng = np.random.default_rng(trial)
    rows = []
    for it in range(12):
        for w in 'abcd':
            rows.append((f'i{it}', w, 'xyz'[rng.integers(3)]))
            if w == 'a' and rng.random() < .7:
                rows.append((f'i{it}', w, 'xyz'[rng.integers(3)]))
    path = tmp_path / 'rep.csv'
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(path, index=False)
    return path, pd.DataFrame(rows, columns=['item', 'annotator', 'label'])


@pytest.mark.parametrize('method', ['dawid_skene', 'glad'])
def test_aggregates_take_an_annotators_repeated_labels_as_one_worker(tmp_path, method):
    import warnings

    from crowdkit.aggregation import GLAD, DawidSkene

    from scruples.agreement import aggregate
    from scruples.annotations import read_annotated
    path, rows = _repeats(tmp_path)
    d = read_annotated(path, repeats='all')
    assert any('#' in str(a) for a in d.annotators)
    items = list(dict.fromkeys(rows.item))
    classes = sorted(set(rows.label))
    long = pd.DataFrame({'task': rows.item.map(items.index), 'worker': rows.annotator,  # crowd-kit on the raw rows
                         'label': rows.label.map(classes.index)})
    model = DawidSkene(n_iter=100) if method == 'dawid_skene' else GLAD(n_iter=100, silent=True)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        want = model.fit_predict(long)
        got = aggregate(d, methods=(method,))
    assert list(got.item) == items
    assert list(got[method]) == [classes[int(want[t])] for t in range(len(items))]  # the old code: 4 (3) differ


# --- SILENT WRONG: agree's *_agree_with_majority counted an item whose majority is tied against the first tied class
# --- (by the classes' order): the same file gave 0.6667 with --classes x,y and 0.8333 with --classes y,x. Tied items
# --- are left out (said); every item tied: NaN, not a scikit-learn traceback (aggregate_agreement) ---------------

def test_agreement_with_the_majority_does_not_move_with_the_class_order(tmp_path):
    path = tmp_path / 'long.csv'
    path.write_text('item,annotator,label\n1,a,x\n1,b,x\n1,c,y\n2,a,y\n2,b,y\n2,c,y\n3,a,x\n3,b,y\n3,c,y\n4,a,x\n'
                    '4,b,x\n4,c,x\n5,a,y\n5,b,x\n5,c,x\n6,a,x\n6,b,y\n')  # item 6: one x, one y, tied
    got = {}
    for order in ('x,y', 'y,x'):
        r = scruples('agree', path, '--bootstrap', '0', '--classes', order, '--json')
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        got[order] = {m['metric']: m['value'] for m in out['overall'] if m['metric'].endswith('_agree_with_majority')}
        assert any('1 tied items left out' in n for n in out['overall_notes']), out['overall_notes']
    assert got['x,y'] == got['y,x'], got  # the old code: 0.6667 and 0.8333 (Dawid-Skene)
    from scruples.agreement import aggregate  # independent: the aggregates against the majority on untied items
    from scruples.annotations import read_annotated
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        agg = aggregate(read_annotated(path))
    untied = agg[~agg.tied]
    for m in ('dawid_skene', 'mace', 'glad'):
        assert got['x,y'][f'{m}_agree_with_majority'] == pytest.approx((untied[m] == untied.majority).mean())


def test_every_item_tied_gives_nan_not_a_traceback(tmp_path):
    path = tmp_path / 'tied.csv'
    path.write_text('item,annotator,label\n1,a,x\n1,b,y\n2,a,y\n2,b,x\n')
    r = scruples('agree', path, '--bootstrap', '0', '--json')
    assert r.returncode == 0, r.stderr  # the old code (with the fix above): 'Found empty input array'
    from scruples.agreement import aggregate, aggregate_agreement
    from scruples.annotations import read_annotated
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        aa = aggregate_agreement(aggregate(read_annotated(path), ties='drop'))  # the old code: ValueError
    assert aa.agree_with_majority.isna().all() and (aa.n_items == 0).all()


# --- misleading message: a JSON-lines prediction of null (pandas to_json of NaN) was said 'got np.float64(nan)' -----

def test_a_null_probability_in_json_lines_is_said_as_null(tmp_path):
    rng = np.random.default_rng(0)
    ids = [f'i{k}' for k in range(12)]
    c = rng.integers(0, 6, 12)
    pd.DataFrame({'id': ids, 'yes': c, 'no': 5 - c}).to_csv(tmp_path / 'gold.csv', index=False)
    p = rng.dirichlet([2, 2], 12)
    pred = pd.DataFrame({'id': ids, 'yes': p[:, 0], 'no': p[:, 1]})
    pred.loc[2, 'yes'] = np.nan
    pred.to_json(tmp_path / 'pred.jsonl', orient='records', lines=True)
    assert '"yes":null' in (tmp_path / 'pred.jsonl').read_text()
    r = scruples('score', tmp_path / 'pred.jsonl', tmp_path / 'gold.csv', '--bootstrap', '0')
    assert r.returncode == 1 and "pred.jsonl:3: field 'yes'" in r.stderr and "got 'null'" in r.stderr, r.stderr
    assert 'np.float64' not in r.stderr


# --- agree --figure without --by drew the matrix rows: A's repeated labels (A#2) as an annotator of its own, and an
# --- annotator without a vote on these items; with --by it draws people (the fourteenth pass) -------------------

def test_agree_figure_without_by_draws_people(tmp_path, monkeypatch):
    import scruples.perspectives as sp
    from scruples.cli import main
    path = _long_with_repeats(tmp_path)
    drawn = {}
    real = sp.kappa_heatmap

    def spy(kappa, groups, table=None, **kw):
        fig = real(kappa, groups, table, **kw)
        drawn['ids'] = [t.get_text() for t in fig.axes[0].get_yticklabels()]  # the heatmap's rows as drawn
        return fig
    monkeypatch.setattr(sp, 'kappa_heatmap', spy)
    rc = main(['agree', str(path), '--repeats', 'all', '--bootstrap', '0', '--figure', str(tmp_path / 'k.png')])
    assert rc in (0, None) and (tmp_path / 'k.png').exists()
    assert drawn['ids'] == ['a', 'b', 'c', 'd'], drawn  # the old code: 'd#2' too
