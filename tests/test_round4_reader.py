"""Issue 39, the reader's defects: each pinned as a user meets it (a `scruples` command in a subprocess) and at the API.

Every test here failed on the code before the fix (see the report of the change): nothing lost, nothing mixed, no
silent wrong answer, and a message that names the flag that fixes it."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cli_run

from scruples.annotations import read_annotated
from scruples.core import ScruplesDataError

REPO = Path(__file__).resolve().parents[1]


def cli(*args, env=None):
    "Run `scruples ARGS` as a user does; (exit status, stdout + stderr)."
    r = cli_run.scruples(*args, env=env, timeout=300)
    return r.returncode, r.stdout + r.stderr


def validate(path, *flags):
    "`scruples data validate --json FLAGS PATH`: (exit status, the one row: records, read, error)."
    rc, out = cli('data', 'validate', '--json', *flags, path)
    rows = json.loads(out[out.index('['):])
    assert len(rows) == 1, out
    return rc, rows[0]


def write(tmp_path, name, text):
    p = tmp_path/name
    p.write_text(text)
    return p


# --- 1. a headerless counts CSV whose first row is a run (1,2,3 / 0,1,2) lost that row to class names ---------------

@pytest.mark.parametrize('first', ['1,2,3', '0,1,2'])
def test_headerless_run_first_row_not_lost_cli(tmp_path, first):
    p = write(tmp_path, 'c.csv', f'{first}\n4,0,1\n2,2,2\n')
    rc, row = validate(p)
    assert rc == 1 and row['items'] == 0, row  # before: exit 0, 2 items, the first row taken as class names
    for part in (first, '--counts', '--classes', 'header', 'counts of the first item'):
        assert part in row['error'], (part, row['error'])
    rc, row = validate(p, '--classes', 'a,b,c')  # no header: the first row is data
    assert rc == 0 and row['items'] == 3 and 'no header' in row['read'], row


def test_headerless_run_first_row_api(tmp_path):
    p = write(tmp_path, 'c.csv', '1,2,3\n4,0,1\n2,2,2\n')
    with pytest.raises(ScruplesDataError, match='counts of the first item'):
        read_annotated(p)
    d = read_annotated(p, classes='low,mid,high')
    assert d.counts.tolist() == [[1, 2, 3], [4, 0, 1], [2, 2, 2]] and d.classes == ('low', 'mid', 'high')
    assert 'no header' in d.report
    d = read_annotated(p, counts='1,2,3')  # a header: the count columns named by it
    assert d.counts.tolist() == [[4, 0, 1], [2, 2, 2]] and d.classes == ('1', '2', '3')
    assert 'header' in d.report and '1,2,3' in d.report
    assert read_annotated(p, classes='1,2,3').n_items == 2  # classes= naming the first row: it is the header


def test_headerless_plain_counts_unchanged(tmp_path):
    "A first row of counts that is not a run stays data, as before (nothing to decide)."
    d = read_annotated(write(tmp_path, 'c.csv', '3,1,0\n4,0,1\n'))
    assert d.counts.tolist() == [[3, 1, 0], [4, 0, 1]] and 'no header' in d.report


# --- 2. composite ids joined with '/': ('a/b','c') and ('a','b/c') became one item ----------------------------------

def test_composite_ids_not_mixed_cli(tmp_path):
    p = write(tmp_path, 'l.csv', 'doc,sent,annotator,label\na/b,c,x,yes\na/b,c,y,no\na,b/c,x,no\na,b/c,y,no\n')
    rc, row = validate(p, '--item', 'doc,sent')
    assert rc == 0 and row['items'] == 2, row  # before: 1 item with 4 votes


def test_composite_ids_are_tuples_api(tmp_path):
    p = write(tmp_path, 'l.csv', 'doc,sent,annotator,label\na/b,c,x,yes\na/b,c,y,no\na,b/c,x,no\na,b/c,y,no\n')
    d = read_annotated(p, item='doc,sent')
    assert d.items == [('a/b', 'c'), ('a', 'b/c')] and d.counts.tolist() == [[1, 1], [2, 0]]
    assert len(d.long()) == 4 and set(d.long().item) == {('a/b', 'c'), ('a', 'b/c')}
    w = write(tmp_path, 'w.csv', 'doc,sent,yes,no\na/b,c,1,2\na,b/c,3,0\n')  # the wide fast path, and the plain one
    for path in (w, write(tmp_path, 'w2.csv', 'doc,sent,yes,no\n"a/b",c,1,2\na,b/c,3,0\n')):
        d = read_annotated(path, id='doc,sent')
        assert d.items == [('a/b', 'c'), ('a', 'b/c')] and d.counts.tolist() == [[1, 2], [3, 0]]
    d = read_annotated(write(tmp_path, 'w3.csv', 'doc,sent,yes,no\na,b,1,2\na,c,3,0\n'), id='doc,sent')  # fast path
    assert d.items == [('a', 'b'), ('a', 'c')] and 'tuple' in d.report
    with pytest.raises(ScruplesDataError, match=r"\('a', 'b'\)"):  # a true duplicate is named as the tuple
        read_annotated(write(tmp_path, 'dup.csv', 'doc,sent,yes,no\na,b,1,2\na,b,3,0\n'), id='doc,sent')


# --- 3. one column per annotator: two rows with one id were merged silently ----------------------------------------

def test_annotator_columns_duplicate_id_cli(tmp_path):
    p = write(tmp_path, 'a.csv', 'id,A1,A2\nx,yes,\ny,no,no\nx,,no\n')
    rc, row = validate(p, '--annotator-columns', 'A1,A2')
    assert rc == 1, row  # before: exit 0, item x with the votes of both rows
    for part in ("'x'", 'line 2', '--repeats'):
        assert part in row['error'], (part, row['error'])
    rc, row = validate(p, '--annotator-columns', 'A1,A2', '--repeats', 'first')
    assert rc == 0 and row['items'] == 2 and 'more than one row' in row['read'], row


def test_annotator_columns_duplicate_id_api(tmp_path):
    with pytest.raises(ScruplesDataError, match=r"line 2 has the same one, 'x'.*repeats"):  # before: merged
        read_annotated(write(tmp_path, 'b.csv', 'id,A1,A2\nx,yes,\ny,no,no\nx,,no\n'), annotator_columns='A1,A2')
    p = write(tmp_path, 'a.csv', 'id,A1,A2\nx,yes,\ny,no,no\nx,yes,no\n')
    d = read_annotated(p, annotator_columns='A1,A2', repeats='all')  # A1 labelled x twice: both count
    assert d.items == ['x', 'y']
    assert dict(zip(d.items, d.counts.tolist()))['x'] == [1, 2]  # classes no/yes: no 1 (A2), yes 2 (A1 twice)
    d = read_annotated(p, annotator_columns='A1,A2', repeats='drop')
    assert dict(zip(d.items, d.counts.tolist()))['x'] == [1, 0]


# --- 4. labels equal as numbers (01, 1) came out in another order on each run ---------------------------------------

def test_labels_equal_as_numbers_refused_cli(tmp_path):
    p = write(tmp_path, 'l.csv', 'item,annotator,label\na,x,01\na,y,1\nb,x,2\nb,y,1\n')
    outs = set()
    for seed in ('1', '2', '3'):  # before: exit 0, classes 01/1/2 or 1/01/2 by the hash seed
        rc, out = cli('data', 'validate', '--json', p, env={'PYTHONHASHSEED': seed})
        outs.add(out)
        assert rc == 1, out
        assert "'01'" in out and "'1'" in out and '--classes' in out, out
    assert len(outs) == 1


def test_labels_equal_as_numbers_api(tmp_path):
    p = write(tmp_path, 'l.csv', 'item,annotator,label\na,x,01\na,y,1\nb,x,2\nb,y,1\n')
    with pytest.raises(ScruplesDataError, match='01'):
        read_annotated(p)
    d = read_annotated(p, classes='1,01,2')  # distinct strings, in the order given
    assert d.classes == ('1', '01', '2') and d.counts.tolist() == [[1, 1, 0], [1, 0, 1]]
    d = read_annotated(write(tmp_path, 'm.csv', 'item,label\na,10\na,9\nb,-1\nb,9\n'))
    assert d.classes == ('-1', '9', '10') and 'sorted as numbers' in d.report


# --- 5. --repeats all: the ceiling counted every vote, agreement only the first --------------------------------------

def test_repeats_all_one_source_of_votes(tmp_path):
    from scruples.agreement import agreement_report, coincidence_alpha, krippendorff_alpha, person_coincidences
    rows = ['item,annotator,label'] + [f'i{i},A,{"yes" if i % 2 else "no"}' for i in range(8)] \
        + [f'i{i},A,{"no" if i % 3 else "yes"}' for i in range(8)] + [f'i{i},B,yes' for i in range(8)]
    p = write(tmp_path, 'l.csv', '\n'.join(rows) + '\n')
    d = read_annotated(p, repeats='all')
    assert d.counts.sum() == 24
    tally = np.stack([(d.responses == j).sum(0) for j in range(d.n_classes)], 1)
    assert (tally == d.counts).all()  # the annotator x item matrix holds the votes the counts hold
    # every vote counts in alpha too, A's two labels of an item as one person's value split between them (issue 39's
    # thirty-second pass: A's second label is not another coder's, so alpha is not the counts' alpha, which pairs them)
    o = person_coincidences(d)
    assert o.sum() == 16  # 2 persons on each of 8 items
    assert krippendorff_alpha(d) == pytest.approx(coincidence_alpha(o.sum(0)), abs=1e-12)
    assert krippendorff_alpha(d) != pytest.approx(krippendorff_alpha(read_annotated(p, repeats='first')), abs=1e-6)
    rep = agreement_report(d, methods=()).set_index('metric')
    assert rep.loc['n_annotations', 'value'] == 24
    assert 'repeats=all' in d.report and 'annotator x item' in d.report
    first = read_annotated(p, repeats='first')
    assert first.counts.sum() == 16 and (np.stack([(first.responses == j).sum(0) for j in range(2)], 1)
                                         == first.counts).all()


def test_repeats_all_stated_cli(tmp_path):
    p = write(tmp_path, 'l.csv', 'item,annotator,label\na,A,yes\na,A,no\na,B,yes\nb,A,no\nb,B,no\n')
    rc, row = validate(p, '--repeats', 'all')
    assert rc == 0 and 'repeats=all' in row['read'] and 'annotator x item' in row['read'], row


# --- 6. a numeric item_id column became a class ---------------------------------------------------------------------

def test_id_like_column_not_a_class_cli(tmp_path):
    p = write(tmp_path, 'w.csv', 'item_id,yes,no\n101,3,1\n102,0,4\n103,2,2\n')
    rc, row = validate(p)
    assert rc == 0 and 'classes yes/no' in row['read'] and 'item_id' in row['read'], row  # before: item_id/yes/no


def test_id_like_column_not_a_class_api(tmp_path):
    d = read_annotated(write(tmp_path, 'w.csv', 'item_id,yes,no\n101,3,1\n102,0,4\n'))
    assert d.classes == ('yes', 'no') and d.items == ['101', '102'] and 'named like an id' in d.report
    d = read_annotated(write(tmp_path, 'w2.csv', 'id,post_id,yes,no\n1,101,3,1\n2,102,0,4\n'))
    assert d.classes == ('yes', 'no') and d.items == ['1', '2'] and 'post_id' in d.report
    d = read_annotated(write(tmp_path, 'w3.csv', 'item_id,yes,no\n101,3,1\n102,0,4\n'), counts='item_id,yes,no')
    assert d.classes == ('item_id', 'yes', 'no')  # named by the user: counted


# --- 7. best --ordered on long labels low/medium/high: Wasserstein in alphabetical order ---------------------------

def _ordinal_long(tmp_path, labels=('low', 'medium', 'high'), name='o.csv'):
    rows = ['item,annotator,label']
    rng = np.random.default_rng(0)
    for i in range(12):
        for a in range(4):
            rows.append(f'i{i},a{a},{labels[rng.integers(3)]}')
    return write(tmp_path, name, '\n'.join(rows) + '\n')


def test_ordered_needs_an_order_api(tmp_path):
    p = _ordinal_long(tmp_path)
    with pytest.raises(ScruplesDataError, match='classes='):
        read_annotated(p, ordered=True)
    d = read_annotated(p, ordered=True, classes='low,medium,high')
    assert d.classes == ('low', 'medium', 'high')
    assert read_annotated(_ordinal_long(tmp_path, ('1', '2', '3'), 'n.csv'), ordered=True).classes == ('1', '2', '3')
    assert read_annotated(p).classes == ('high', 'low', 'medium')  # unordered: sorted by name, and said so


def test_ordered_needs_an_order_cli(tmp_path):
    p = _ordinal_long(tmp_path)
    # (no --samples: Wasserstein is not a sampled metric, and --samples is refused without one)
    rc, out = cli('best', '--ordered', '--metric', 'wasserstein', '--bootstrap', '0', p)
    assert rc != 0 and '--classes' in out, out  # before: exit 0, Wasserstein over high < low < medium
    rc, out = cli('best', '--ordered', '--metric', 'wasserstein', '--bootstrap', '0',
                  '--classes', 'low,medium,high', p)
    assert rc == 0, out


# --- 8. messages ----------------------------------------------------------------------------------------------------

def _gold(tmp_path):
    return write(tmp_path, 'gold.csv', 'id,no,yes\n0,3,1\n1,1,3\n2,2,2\n3,4,0\n')


def test_sum_tolerance_inclusive_cli(tmp_path):
    g = _gold(tmp_path)
    pred = write(tmp_path, 'p.csv', 'id,no,yes\n0,0.5,0.499\n1,0.2,0.8\n2,0.5,0.5\n3,0.9,0.1\n')
    rc, out = cli('score', '--bootstrap', '0', '--ceiling-bootstrap', '0', '--samples', '200', pred, g)
    assert rc == 0, out  # before: "probabilities summing to 1 (within 0.001)" refused 0.999


def test_sum_tolerance_api(tmp_path):
    from scruples.evaluation import read_predictions
    ok = read_predictions(write(tmp_path, 'p.csv', 'id,no,yes\n0,0.5,0.499\n1,0.2,0.8\n'), ['no', 'yes'])
    assert ok.renormalized == 1 and np.allclose(ok.proba.sum(1), 1)
    with pytest.raises(ScruplesDataError, match=r'0\.998 .*off by 0\.002'):
        read_predictions(write(tmp_path, 'r.csv', 'id,no,yes\n0,0.7,0.298\n'), ['no', 'yes'])


def test_one_probability_column_cli(tmp_path):
    g = _gold(tmp_path)
    pred = write(tmp_path, 'p.csv', 'id,p\n0,0.2\n1,0.8\n2,0.5\n3,0.1\n')
    rc, out = cli('score', '--bootstrap', '0', '--ceiling-bootstrap', '0', '--samples', '200', pred, g)
    assert rc != 0 and 'probabilit' in out and "'yes'" in out and 'label' in out, out


def test_one_probability_column_api(tmp_path):
    from scruples.evaluation import read_predictions
    with pytest.raises(ScruplesDataError, match='two readings'):
        read_predictions(write(tmp_path, 'p.csv', 'id,p\n0,0.2\n1,0.8\n'), ['no', 'yes'])
    hard = read_predictions(write(tmp_path, 'h.csv', 'id,pred\n0,yes\n1,no\n'), ['no', 'yes'])
    assert hard.hard and hard.proba.tolist() == [[0, 1], [1, 0]]
    hard = read_predictions(write(tmp_path, 'h01.csv', 'id,pred\n0,1\n1,0\n'), ['0', '1'])  # labels 0/1 are labels
    assert hard.hard


def test_text_empty_is_no_text_api(tmp_path):
    d = read_annotated(write(tmp_path, 'w.csv', 'id,text,yes,no\n1,hi,2,1\n2,bye,0,3\n'), text='')
    assert 'no text column' in d.report and 'text column text' not in d.report and d.texts is None


def test_long_table_with_id_column_hint_cli(tmp_path):
    p = write(tmp_path, 'l.csv', 'id,annotator,label\na,x,yes\na,y,no\nb,x,no\n')
    rc, row = validate(p)
    assert rc == 1 and '--long' in row['error'] and '--item id' in row['error'], row


def test_label_columns_without_flag_hint_cli(tmp_path):
    p = write(tmp_path, 'a.csv', 'id,A1,A2,A3\nx,yes,no,yes\ny,no,no,yes\n')
    rc, row = validate(p)
    assert rc == 1 and '--annotator-columns' in row['error'], row


def test_hints_api(tmp_path):
    with pytest.raises(ScruplesDataError, match="annotator_columns='A1,A2,A3'"):  # the API's words
        read_annotated(write(tmp_path, 'a.csv', 'id,A1,A2,A3\nx,yes,no,yes\ny,no,no,yes\n'))
    with pytest.raises(ScruplesDataError, match="item='id'"):
        read_annotated(write(tmp_path, 'l.csv', 'id,annotator,label\na,x,yes\na,y,no\nb,x,no\n'))


def test_one_hot_annotator_ids_with_underscore(tmp_path):
    p = write(tmp_path, 'h.csv', 'id,ann_1_yes,ann_1_no,ann_2_yes,ann_2_no\nx,1,0,0,1\ny,0,1,0,1\n')
    d = read_annotated(p, annotator_columns='{annotator}_{label}')
    assert set(d.classes) == {'yes', 'no'} and sorted(d.annotators) == ['ann_1', 'ann_2'], d.report
    q = write(tmp_path, 'n.csv', 'id,X_not_sure,X_sure,Y_not_sure,Y_sure\nx,1,0,0,1\ny,0,1,0,1\n')
    d = read_annotated(q, annotator_columns='{annotator}_{label}')
    assert set(d.classes) == {'not_sure', 'sure'} and sorted(d.annotators) == ['X', 'Y'], d.report
    r = write(tmp_path, 'm.csv', 'id,ann_1_not_sure,ann_1_sure,ann_2_not_sure,ann_2_sure\nx,1,0,0,1\ny,0,1,0,1\n')
    d = read_annotated(r, annotator_columns='{annotator}_{label}')
    assert set(d.classes) == {'not_sure', 'sure'} and sorted(d.annotators) == ['ann_1', 'ann_2'], d.report
    d = read_annotated(p, annotator_columns='{annotator}_{label}', classes='no,yes')  # the known labels
    assert d.classes == ('no', 'yes') and sorted(d.annotators) == ['ann_1', 'ann_2']


def test_one_hot_annotator_ids_with_underscore_cli(tmp_path):
    p = write(tmp_path, 'h.csv', 'id,ann_1_yes,ann_1_no,ann_2_yes,ann_2_no\nx,1,0,0,1\ny,0,1,0,1\n')
    rc, row = validate(p, '--annotator-columns', '{annotator}_{label}')
    assert rc == 0 and 'classes no/yes' in row['read'] and 'by 2 annotators' in row['read'], row


def test_prediction_ids_normalised_as_gold(tmp_path):
    "Parquet ids 0.0 and ' 1' are the gold's 0 and 1; .tsv is read by both readers."
    from scruples.evaluation import align_predictions, read_predictions
    g = _gold(tmp_path)
    pq = tmp_path/'p.parquet'
    pd.DataFrame({'id': [0.0, 1.0, 2.0, 3.0], 'no': [.5] * 4, 'yes': [.5] * 4}).to_parquet(pq)
    pred = read_predictions(pq, ['no', 'yes'])
    assert pred.ids == ['0', '1', '2', '3']
    d = read_annotated(g)
    assert align_predictions(pred, d.items).tolist() == [0, 1, 2, 3]
    tsv = write(tmp_path, 'gold.tsv', 'id\tno\tyes\n0\t3\t1\n1\t1\t3\n')
    assert read_annotated(tsv).counts.tolist() == [[3, 1], [1, 3]]


def test_prediction_ids_cli(tmp_path):
    g = _gold(tmp_path)
    pq = tmp_path/'p.parquet'
    pd.DataFrame({'id': [0.0, 1.0, 2.0, 3.0], 'no': [.5, .4, .6, .7], 'yes': [.5, .6, .4, .3]}).to_parquet(pq)
    rc, out = cli('score', '--bootstrap', '0', '--ceiling-bootstrap', '0', '--samples', '200', pq, g)
    assert rc == 0, out  # before: "4 of the 4 items of gold.csv have no prediction: '0', '1', ..."
    tsv = write(tmp_path, 'gold.tsv', 'id\tno\tyes\n0\t3\t1\n1\t1\t3\n2\t2\t2\n3\t4\t0\n')
    rc, row = validate(tsv)
    assert rc == 0 and row['items'] == 4, row  # before: only predictions could be .tsv


def test_semicolon_csv_cli(tmp_path):
    p = write(tmp_path, 's.csv', 'id;yes;no\na;3;1\nb;0;4\n')
    rc, row = validate(p)
    assert rc == 0 and row['items'] == 2 and 'semicolon' in row['read'] and 'classes yes/no' in row['read'], row


def test_semicolon_csv_api(tmp_path):
    from scruples.evaluation import read_predictions
    d = read_annotated(write(tmp_path, 's.csv', 'id;yes;no\na;3;1\nb;0;4\n'))
    assert d.counts.tolist() == [[3, 1], [0, 4]] and d.items == ['a', 'b']
    p = read_predictions(write(tmp_path, 'p.csv', 'id;yes;no\na;0.5;0.5\nb;0.2;0.8\n'), ['yes', 'no'])
    assert p.ids == ['a', 'b'] and np.allclose(p.proba, [[.5, .5], [.2, .8]])
