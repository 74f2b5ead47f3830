"""Annotated data of your own: the readers' bad-input errors (FILE:LINE: field), properties of the long/wide
forms for 2 and 3 classes, the shipped guide data, and the strict inputs of agreement and soft metrics."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

from scruples.annotations import AnnotatedData, majority_vote, read_annotated, simulate_annotations
from scruples.agreement import fleiss_kappa, krippendorff_alpha
from scruples.core import ScruplesDataError
from scruples.softmetrics import expected_calibration_error, kl_divergence, manhattan_distance

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT/'scruples'/'guide_data'


def write(tmp_path, name, text):
    p = tmp_path/name
    p.write_text(text, encoding='utf-8')
    return p


def read_wide(path, **kw): return read_annotated(path, 'wide', **kw)


def read_long(path, **kw):  # annotator=None here: no annotator column ('' for the reader, whose None is its default)
    return read_annotated(path, 'long', **(kw | ({'annotator': ''} if 'annotator' in kw and kw['annotator'] is None else {})))


def error(fn, *args, **kwargs) -> str:
    with pytest.raises(ScruplesDataError) as info: fn(*args, **kwargs)
    return str(info.value)


# ---- bad input: every error names the file, the line and the field -------------------------------------------

def test_wide_bad_count_names_line_and_field(tmp_path):
    p = write(tmp_path, 'w.csv', 'id,text,yes,no\n1,a text,2,1\n2,another,x,1\n')
    assert error(read_wide, p, counts=['yes', 'no'], id='id').startswith(f"{p}:3: field 'yes'")


@pytest.mark.parametrize('cell', ['-1', '1.5', '', ' '])
def test_wide_negative_or_fractional_counts(tmp_path, cell):
    p = write(tmp_path, 'w.csv', f'text,yes,no\na text,{cell},1\n')
    assert f"{p}:2: field 'yes'" in error(read_wide, p)


def test_wide_missing_column_is_named(tmp_path):
    p = write(tmp_path, 'w.csv', 'text,yes,no\na text,2,1\n')
    msg = error(read_wide, p, counts=['yes', 'maybe'])
    assert f"{p}:1: field 'maybe'" in msg and 'columns: text, yes, no' in msg
    assert "field 'body'" in error(read_wide, p, text='body')


def test_wide_jsonl_missing_field_names_line(tmp_path):
    p = write(tmp_path, 'w.jsonl', '{"text": "a", "yes": 1, "no": 2}\n{"text": "b", "yes": 1}\n')
    assert error(read_wide, p, counts=['yes', 'no']).startswith(f"{p}:2: field 'no'")


def test_wide_duplicate_id_names_both_lines(tmp_path):
    p = write(tmp_path, 'w.csv', 'id,text,yes,no\n7,a,1,1\n8,b,1,0\n7,c,0,1\n')
    msg = error(read_wide, p, id='id')
    assert msg.startswith(f"{p}:4: field 'id'") and 'line 2' in msg


def test_wide_no_votes_and_ragged_rows(tmp_path):
    assert ':2:' in error(read_wide, write(tmp_path, 'z.csv', 'text,yes,no\na,0,0\n'))
    assert error(read_wide, write(tmp_path, 'r.csv', 'text,yes,no\na,1\n')).endswith("got 'a,1'")


@pytest.mark.parametrize('name,text', [('e.csv', ''), ('b.csv', '\n  \n'), ('e.jsonl', ''), ('h.csv', 'text,yes,no\n')])
def test_empty_files(tmp_path, name, text):
    msg = error(read_wide, write(tmp_path, name, text))
    assert msg.startswith(str(tmp_path/name)) and ('non-empty' in msg or 'at least one' in msg)


def test_wrong_suffix_and_missing_file(tmp_path):
    assert 'a file name ending in' in error(read_wide, write(tmp_path, 'w.txt', 'text,yes,no\n'))
    with pytest.raises(FileNotFoundError): read_long(tmp_path/'absent.csv')
    assert 'Parquet' in error(read_wide, write(tmp_path, 'bad.parquet', 'not parquet'))


def test_long_label_not_in_classes(tmp_path):
    p = write(tmp_path, 'l.csv', 'item,annotator,label\nq1,a,yes\nq1,b,maybe\n')
    msg = error(read_long, p, classes=['yes', 'no'])
    assert msg.startswith(f"{p}:3: field 'label'") and "got 'maybe'" in msg


def test_long_duplicate_pair(tmp_path):
    p = write(tmp_path, 'l.csv', 'item,annotator,label\nq1,a,yes\nq2,a,no\nq1,a,no\n')
    msg = error(read_long, p)
    assert msg.startswith(f"{p}:4: field 'annotator'") and 'line 2' in msg
    assert read_long(p, annotator=None).counts.tolist() == [[1, 1], [1, 0]]  # anonymous votes may repeat


def test_long_wrong_columns_and_single_class(tmp_path):
    p = write(tmp_path, 'l.csv', 'item,rater,label\nq1,a,yes\n')
    assert "field 'annotator'" in error(read_long, p, annotator='annotator')
    assert '2 or more distinct labels' in error(read_long, p, annotator='rater')
    assert 'annotator column rater (named for annotators)' in read_long(write(tmp_path, 'm.csv', 'item,rater,label\nq1,a,yes\nq1,b,no\n')).report  # (issue 39)


def test_long_text_must_agree_per_item(tmp_path):
    p = write(tmp_path, 'l.csv', 'item,annotator,label,text\nq1,a,yes,hello\nq1,b,no,bye\n')
    assert error(read_long, p, text='text').startswith(f"{p}:3: field 'text'")


def test_long_jsonl_and_integer_labels(tmp_path):
    p = write(tmp_path, 'l.jsonl', '{"item": 1, "annotator": "a", "label": 0}\n{"item": 1, "annotator": "b", "label": 1}\n'
                                   '{"item": 2, "annotator": "a", "label": true}\n')
    assert error(read_long, p).startswith(f"{p}:3: field 'label'")


def test_majority_vote_bad_policy():
    with pytest.raises(ValueError, match="'first', 'random' or 'drop'"): majority_vote([[1, 1]], ties='last')


# ---- properties, for 2 and 3 classes ---------------------------------------------------------------------------

def long_frames(k):
    row = st.tuples(st.integers(0, 6), st.integers(0, 5), st.integers(0, k - 1))
    return st.lists(row, min_size=1, max_size=60, unique_by=lambda r: (r[0], r[1]))


@pytest.mark.parametrize('k', [2, 3])
def test_long_to_counts_totals(k):
    @settings(max_examples=40, deadline=None)
    @given(long_frames(k))
    def check(rows):
        classes = [f'c{j}' for j in range(k)]
        df = pd.DataFrame(rows, columns=['item', 'annotator', 'label']).assign(label=lambda d: [classes[j] for j in d.label])
        d = read_annotated(df, classes=classes)
        assert d.counts.dtype == np.int64 and d.counts.shape == (df.item.nunique(), k)
        assert d.counts.sum() == len(df) and (~np.isnan(d.responses)).sum() == len(df)
        assert (d.counts.sum(1) == (d.response_codes() >= 0).sum(0)).all()
        assert d.responses.shape == (df.annotator.nunique(), df.item.nunique())  # annotators x items
        back = d.long()
        assert sorted(map(tuple, back.astype(str).to_numpy())) == sorted(map(tuple, df.astype(str).to_numpy()))
    check()


@pytest.mark.parametrize('k', [2, 3])
def test_wide_long_round_trip_through_files(k, tmp_path_factory):
    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.lists(st.lists(st.integers(0, 4), min_size=k, max_size=k).filter(lambda r: sum(r) > 0), min_size=1, max_size=15)
           .filter(lambda rows: not (k >= 3 and len(rows) >= 5
                                     and any(all(2 * r[j] == sum(r) for r in rows) for j in range(k)))))
    def check(counts):  # (a column that holds every row's sum of the others on 5 rows or more is refused as a
        # spreadsheet's SUM column, even named: `_totals_columns`; hypothesis drew one, [[0,1,1],[0,1,1],[0,1,1],...])
        tmp = tmp_path_factory.mktemp('rt')
        classes = tuple(f'class {j}' for j in range(k))
        d = AnnotatedData(items=[f'i{n}' for n in range(len(counts))], counts=counts, classes=classes,
                          texts=[f'text number {n}' for n in range(len(counts))])
        d.wide().to_csv(tmp/'w.csv', index=False)
        d.long().drop(columns='annotator').to_csv(tmp/'l.csv', index=False)
        w = read_wide(tmp/'w.csv', counts=list(classes), id='id')
        l = read_long(tmp/'l.csv', annotator=None, classes=classes)
        assert w.classes == l.classes == classes and w.items == l.items == d.items and w.texts == d.texts
        assert (w.counts == d.counts).all() and (l.counts == d.counts).all()
        assert read_annotated(tmp/'l.csv', classes=classes).counts.tolist() == d.counts.tolist()
    check()


@pytest.mark.parametrize('k', [2, 3])
def test_alpha_from_responses_equals_alpha_from_counts(k):
    d, _ = simulate_annotations(n_items=40, n_annotators=8, classes=[f'c{j}' for j in range(k)], votes=(2, 5), seed=k)
    assert krippendorff_alpha(d) == pytest.approx(krippendorff_alpha(d.counts, counts=True), abs=1e-9)
    assert -1 <= fleiss_kappa(d) <= 1


def test_parquet_reads_like_csv(tmp_path):
    d, _ = simulate_annotations(n_items=20, seed=1)
    d.long().to_parquet(tmp_path/'l.parquet'); d.long().to_csv(tmp_path/'l.csv', index=False)
    a, b = read_long(tmp_path/'l.parquet'), read_long(tmp_path/'l.csv')
    assert a.items == b.items and (a.counts == b.counts).all() and np.array_equal(a.responses, b.responses, equal_nan=True)


# ---- the shipped guide data --------------------------------------------------------------------------------------

def test_guide_data_small_and_consistent():
    assert sum(p.stat().st_size for p in GUIDE.iterdir()) < 200_000
    w = read_wide(GUIDE/'votes_wide.csv', counts=['acceptable', 'unacceptable', 'unclear'], id='id')
    l = read_long(GUIDE/'votes_long.csv')
    assert w.n_items == 300 and len(l.annotators) == 40 and w.items == l.items and (w.counts == l.counts).all()
    assert 5 <= w.n_votes.min() and w.n_votes.max() <= 10 and len(set(w.texts)) == 300


def test_guide_data_regenerates_identically(tmp_path):
    subprocess.run([sys.executable, str(ROOT/'tests'/'fixtures'/'make_guide_data.py'), str(tmp_path)], check=True,
                   capture_output=True)
    for name in ('votes_wide.csv', 'votes_long.csv'):
        assert (tmp_path/name).read_bytes() == (GUIDE/name).read_bytes(), name


# ---- strict inputs of the soft metrics ---------------------------------------------------------------------------

def test_soft_metrics_refuse_broadcasting_and_bad_rows():
    with pytest.raises(ValueError, match='nothing is broadcast'): manhattan_distance([[1, 2], [2, 1]], [[0.5, 0.5]])
    with pytest.raises(ValueError, match='sum to 1'): kl_divergence([[1, 2]], [[0.5, 0.6]])
    with pytest.raises(ValueError, match='non-negative'): kl_divergence([[1, -2]], [[0.5, 0.5]])
    with pytest.raises(ValueError, match='2-D'): manhattan_distance([1, 2], [0.5, 0.5])
    with pytest.raises(ValueError, match='must match'): expected_calibration_error([0, 1, 1], [[0.5, 0.5]])


def test_wide_with_id_and_text_columns_reads_by_default(tmp_path):
    "Issue 20's first friction point: a table with an id and a text column beside the counts."
    p = write(tmp_path, 'w.csv', 'id,text,a,b,c\nx1,first,1,2,3\nx2,second,0,0,4\n')
    d = read_wide(p)
    assert d.items == ['x1', 'x2'] and d.classes == ('a', 'b', 'c') and d.counts.tolist() == [[1, 2, 3], [0, 0, 4]]
    assert read_wide(p, counts='c,a', id='id').counts.tolist() == [[3, 1], [4, 0]]


@pytest.mark.parametrize('k', [2, 3])
def test_aggregates_for_any_number_of_classes(k):
    from scruples.agreement import aggregate, aggregate_agreement, agreement_report
    classes = [f'c{j}' for j in range(k)]
    d, truth = simulate_annotations(n_items=40, n_annotators=12, classes=classes, votes=(3, 6), seed=k)
    agg = aggregate(d, ties='drop')
    assert list(agg.columns) == ['item', 'majority', 'tied', 'dawid_skene', 'mace', 'glad'] and len(agg) == 40
    assert agg.majority.isna().sum() == agg.tied.sum()  # ties='drop' leaves tied items without a majority label
    aa = aggregate_agreement(agg, truth=[classes[t] for t in truth]).set_index('method')
    assert aa.loc['majority', 'agree_with_majority'] == 1 and aa.loc['majority', 'n_items'] == 40 - agg.tied.sum()
    r = agreement_report(d).set_index('metric').value
    assert r['n_annotators'] == 12 and r['n_classes'] == k
    wide_only = AnnotatedData(items=d.items, counts=d.counts, classes=d.classes)
    with pytest.raises(ValueError, match='annotator ids'): aggregate(wide_only)
    assert 'n_annotators' not in set(agreement_report(wide_only).metric)


@pytest.mark.parametrize('suffix', ['.csv', '.jsonl'])
def test_fuzzed_tables_fail_only_with_named_errors(suffix, tmp_path_factory):
    "Whatever the bytes, the readers either read them or raise ScruplesDataError naming the file."
    alphabet = st.sampled_from(list('item,annotator,label,text,id,a,b,0123456789"{}:[]\n\r -.xé') + ['\x00', '\ufeff'])
    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.text(alphabet, max_size=80), st.booleans())
    def check(text, long_form):
        p = tmp_path_factory.mktemp('fz')/f't{suffix}'
        p.write_text(text, encoding='utf-8')
        try: (read_long if long_form else read_wide)(p)
        except (ScruplesDataError, ValueError) as err: assert str(err).startswith(str(p)), err
    check()


# ---- reviewer's holes (wt-fixdata) -----------------------------------------------------------------------------
def test_wide_jsonl_refuses_keys_beyond_the_first_record(tmp_path):
    p = write(tmp_path, 'w.jsonl', '{"text": "a", "yes": 1, "no": 2}\n{"text": "b", "yes": 0, "no": 1, "maybe": 3}\n')
    msg = error(read_wide, p)
    assert msg.startswith(f"{p}:1: field 'maybe': expected a present field"), msg  # every key is a column (ninth pass)
    assert read_wide(p, counts=['yes', 'no']).counts.tolist() == [[1, 2], [0, 1]]  # named count columns: extra keys ignored


def test_long_integer_labels_sort_numerically(tmp_path):
    rows = ''.join(f'q{j},a,{j}\n' for j in range(12))
    p = write(tmp_path, 'l.csv', 'item,annotator,label\n' + rows)
    assert read_long(p).classes == tuple(str(j) for j in range(12))
    p = write(tmp_path, 'm.csv', 'item,annotator,label\nq1,a,b\nq2,a,a10\nq3,a,a2\n')
    assert read_long(p).classes == ('a10', 'a2', 'b')  # not all integers: sorted as text


@pytest.mark.parametrize('cell,ok', [('2.0', 2), ('3.', 3), ('0.00', 0), ('1.5', None), ('-1.0', None), ('.0', None), ('2.0x', None)])
def test_wide_csv_whole_number_decimals(tmp_path, cell, ok):
    p = write(tmp_path, 'w.csv', f'text,yes,no\nhello,{cell},1\n')
    if ok is None: assert error(read_wide, p).startswith(f"{p}:2: field 'yes'")
    else: assert read_wide(p).counts.tolist() == [[ok, 1]]


def test_missing_column_names_the_real_header_line(tmp_path):
    p = write(tmp_path, 'w.csv', '\n\ntext,yes,no\nhello,1,2\n')
    assert error(read_wide, p, counts=['yes', 'maybe']).startswith(f"{p}:3: field 'maybe'")
    p = write(tmp_path, 'l.csv', '\n\n\nitem,label\nq1,a\n')
    assert error(read_long, p, annotator='annotator').startswith(f"{p}:4: field 'annotator'")


def test_majority_vote_random_ties_seeded_by_default():
    from scruples.annotations import majority_vote
    c = [[2, 2, 2]] * 50
    assert majority_vote(c, ties='random').labels.tolist() == majority_vote(c, ties='random').labels.tolist()
    assert majority_vote(c, ties='random').labels.tolist() == majority_vote(c, ties='random', seed=0).labels.tolist()
