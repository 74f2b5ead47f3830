"""Issue 28 (and the data layer of issue 29): one reader, one answer per file.

Each defect the issue lists for reading has a test here that failed before the one reader (`annotations.read_annotated`);
the property test at the end feeds the same votes in every form and format (wide CSV / JSON lines / Parquet, long,
annotator columns, one-hot annotator columns) to `scruples best --json` (a subprocess), `scruples data validate`, the
guide's reader (`guide.guide_parameters`) and the API, and asserts the same counts, classes and alpha."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from scruples.annotations import AnnotatedData, as_counts, guide_data, majority_vote, read_annotated
from scruples.cli import main
from scruples.core import ScruplesDataError

import cli_run


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def best_json(capsys, *argv):
    rc, out, err = run(capsys, 'best', *argv, '--json', '--samples', '50', '--bootstrap', '0')
    assert rc == 0, err
    return json.loads(out)


def scruples_exe() -> list[str]:
    exe = Path(sys.executable).with_name('scruples')
    return [str(exe)] if exe.exists() else [sys.executable, '-c', 'import sys; from scruples.cli import main; sys.exit(main())']


# --- silent wrong answers -------------------------------------------------------------------------------------------

def test_wide_table_with_item_and_label_columns_is_refused_with_both_readings(capsys, tmp_path):
    "It was read as the long form (one vote per row, the count columns dropped): alpha [0.816, 1.224] instead of [0.697, 0.661]."
    p = tmp_path/'t.csv'; p.write_text('item,text,label,yes,no\nq1,a,yes,3,1\nq2,b,no,0,2\nq3,c,no,2,2\n')
    rc, out, err = run(capsys, 'best', p, '--samples', '50', '--bootstrap', '0')
    assert rc == 1 and out == '' and 'two readings' in err and '--counts yes,no' in err and '--long' in err
    assert best_json(capsys, p, '--counts', 'yes,no')['examples'] == 3
    rc, out, err = run(capsys, 'best', p, '--long')  # the long reading: one vote per item, so no ceiling to estimate
    assert rc == 1 and 'one vote on each of the 3 items' in err


def test_numeric_header_is_a_header(capsys, tmp_path):
    """A Likert header 1,2,3,4,5 became a row of data (an extra example, classes class_0..4); read as a header, a
    headerless file whose first row is 1,2,3 lost that row (issue 39). A run reads both ways: refused with both, and
    --counts (a header) or --classes (data) decides."""
    p = tmp_path/'likert.csv'; p.write_text('1,2,3,4,5\n0,1,3,1,0\n2,2,0,0,1\n1,0,0,3,1\n')
    rc, out, err = run(capsys, 'best', p, '--samples', '50', '--bootstrap', '0')
    assert rc == 1 and '--counts 1,2,3,4,5' in err and '--classes' in err
    r = best_json(capsys, p, '--counts', '1,2,3,4,5')
    assert r['classes'] == ['1', '2', '3', '4', '5'] and r['examples'] == 3
    assert best_json(capsys, p, '--classes', 'a,b,c,d,e')['examples'] == 4


def test_id_column_in_any_case_is_not_a_class(capsys, tmp_path):
    p = tmp_path/'t.csv'; p.write_text('ID,yes,no\n7,3,1\n8,1,2\n')
    assert best_json(capsys, p)['classes'] == ['yes', 'no']
    assert read_annotated(p).items == ['7', '8']


def test_a_column_is_not_both_the_id_and_a_count(capsys, tmp_path):
    p = tmp_path/'t.csv'; p.write_text('n,yes,no\n7,3,1\n8,1,2\n')
    rc, out, err = run(capsys, 'best', p, '--id', 'n', '--counts', 'n,yes,no')
    assert rc == 1 and 'one role' in err


def test_nfc_and_nfd_labels_are_one_class(tmp_path):
    nfc, nfd = unicodedata.normalize('NFC', 'é'), unicodedata.normalize('NFD', 'é')
    assert nfc != nfd
    p = tmp_path/'l.csv'; p.write_text(f'item,annotator,label\nq1,a,{nfc}\nq1,b,{nfd}\nq2,a,x\n', encoding='utf-8')
    d = read_annotated(p)
    assert d.classes == ('x', nfc) and d.counts.tolist() == [[0, 2], [1, 0]]  # sorted by name: x < é
    w = tmp_path/'w.csv'; w.write_text(f'id,{nfc},{nfd}\n1,2,1\n', encoding='utf-8')  # two headers that print the same
    with pytest.raises(ScruplesDataError, match='distinct'): read_annotated(w)


def test_jsonl_key_twice_is_refused(tmp_path):
    "json kept the last value; CSV refuses a header twice."
    p = tmp_path/'t.jsonl'; p.write_text('{"id": 1, "yes": 3, "no": 1}\n{"id": 2, "yes": 1, "no": 2, "yes": 5}\n')
    with pytest.raises(ScruplesDataError, match=r't\.jsonl:2: .*twice'): read_annotated(p)


# --- refusals that made no sense -------------------------------------------------------------------------------------

def test_data_validate_accepts_what_best_and_analyze_accept(capsys, tmp_path):
    "It refused the shipped guide data (`field 'id': expected an integer ..., got 'item0000'`)."
    (tmp_path/'w.jsonl').write_text('{"id": "a", "text": "t", "yes": 2, "no": 1}\n{"id": "b", "text": "u", "yes": 0, "no": 3}\n')
    pd.read_json(tmp_path/'w.jsonl', lines=True).to_parquet(tmp_path/'w.parquet')
    files = [guide_data('wide'), guide_data('long'), tmp_path/'w.jsonl', tmp_path/'w.parquet']
    rc, out, err = run(capsys, 'data', 'validate', *files, '--json')
    rows = json.loads(out)
    assert rc == 0 and [r['items'] for r in rows] == [300, 300, 2, 2] and all(r['error'] == '' for r in rows)
    assert rows[0]['read'].startswith('wide: 300 items, classes acceptable/unacceptable/unclear')


@pytest.mark.parametrize('suffix', ['.jsonl', '.parquet'])
def test_best_reads_jsonl_and_parquet_count_tables(capsys, tmp_path, suffix):
    "It refused them ('expected a *.scruples-anecdotes.jsonl ... file name') while analyze took them."
    df = pd.DataFrame({'yes': [3, 1, 0], 'no': [1, 2, 4]})
    (tmp_path/'c.csv').write_text(df.to_csv(index=False))
    p = tmp_path/f'c{suffix}'
    df.to_json(p, orient='records', lines=True) if suffix == '.jsonl' else df.to_parquet(p)
    a, b = best_json(capsys, p), best_json(capsys, tmp_path/'c.csv')
    assert (a['classes'], a['alpha'], a['estimates']) == (b['classes'], b['alpha'], b['estimates'])


def test_whole_number_decimals_and_the_limit_are_the_same_everywhere(tmp_path):
    "'2.0' was a count beside an id column and refused in a plain counts CSV; the limits were 10**18, 2**62, 2**53, 2**63."
    (tmp_path/'a.csv').write_text('a,b\n2.0,1\n'); (tmp_path/'b.csv').write_text('id,a,b\nx,2.0,1\n')
    assert read_annotated(tmp_path/'a.csv').counts.tolist() == read_annotated(tmp_path/'b.csv').counts.tolist() == [[2, 1]]
    big = 2**63
    files = {'a.csv': f'a,b\n{big},1\n', 'b.csv': f'id,a,b\nx,{big},1\n', 'c.json': f'[[{big}, 1]]', 'd.jsonl': f'{{"a": {big}, "b": 1}}\n'}
    for name, text in files.items():
        (tmp_path/name).write_text(text)
        with pytest.raises(ScruplesDataError, match=r'below 2\*\*63 \(at most 9223372036854775807'): read_annotated(tmp_path/name)
    ok = 2**62
    (tmp_path/'e.jsonl').write_text(f'{{"a": {ok}, "b": 1}}\n')
    assert read_annotated(tmp_path/'e.jsonl').counts.tolist() == [[ok, 1]]


def test_cr_only_line_endings(capsys, tmp_path):
    "They read as no rows."
    p = tmp_path/'cr.csv'; p.write_bytes(b'yes,no\r3,1\r1,2\r')
    assert read_annotated(p).counts.tolist() == [[3, 1], [1, 2]] and best_json(capsys, p)['examples'] == 2


# --- crashes -------------------------------------------------------------------------------------------------------------

def test_csv_fields_of_any_length(capsys, tmp_path):
    "A text cell over 131,072 characters was a traceback in best and analyze."
    p = tmp_path/'t.csv'; p.write_text('id,text,yes,no\n1,' + 'x' * 200_000 + ',3,1\n2,short,1,2\n')
    assert len(read_annotated(p).texts[0]) == 200_000
    assert best_json(capsys, p)['examples'] == 2


def test_output_under_a_c_locale(tmp_path):
    "Half a table, then an ascii codec error."
    p = tmp_path/'t.csv'; p.write_text('id,text,ça,no\n1,é,3,1\n2,ü,1,2\n', encoding='utf-8')
    env = {k: v for k, v in os.environ.items() if not k.startswith(('LC_', 'LANG', 'PYTHONIOENCODING', 'PYTHONUTF8'))}
    env.update(LC_ALL='C', PYTHONUTF8='0')  # no UTF-8 mode: stdout is ASCII
    for argv in (['data', 'validate', str(p)], ['best', str(p), '--samples', '30', '--bootstrap', '0']):
        r = subprocess.run(scruples_exe() + argv, capture_output=True, env=env, timeout=120)
        assert r.returncode == 0 and b'Traceback' not in r.stderr, r.stderr.decode(errors='replace')
        assert b'\\xe7a' in r.stdout or 'ça'.encode() in r.stdout  # escaped, not lost


def test_lone_surrogate_names_file_and_line_and_the_other_files_are_reported(capsys, tmp_path):
    "'utf-8' codec can't encode character '\\ud800', no file or line, the other files never reported."
    bad = tmp_path/'bad.jsonl'; bad.write_text('{"id": "a", "text": "ok", "yes": 1, "no": 2}\n{"id": "b", "text": "\\ud800", "yes": 1, "no": 1}\n')
    good = tmp_path/'good.csv'; good.write_text('yes,no\n1,2\n')
    with pytest.raises(ScruplesDataError, match=r'bad\.jsonl:2: .*surrogate'): read_annotated(bad)
    rc, out, err = run(capsys, 'data', 'validate', bad, good, '--json')
    rows = json.loads(out)
    assert rc == 1 and 'bad.jsonl:2' in rows[0]['error'] and rows[1]['items'] == 1 and rows[1]['error'] == ''


# --- the API ---------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('bad', [[[np.nan, 1.0], [2.0, 1.0]], [[-1, 2], [1, 1]], [[0.5, 2], [1, 1]]])
def test_majority_vote_refuses_nan_negative_and_fractional_counts(bad):
    "A NaN row got label 0, not tied."
    with pytest.raises(ValueError, match=r'counts\[0, 0\]'): majority_vote(bad)
    with pytest.raises(ValueError, match=r'below 2\*\*63'): as_counts(bad)


# --- options that do not apply, and issue 29's data layer -----------------------------------------------------------------

def test_options_that_do_not_apply_are_errors(capsys, tmp_path):
    "With --long, --counts and --id were silently ignored."
    p = guide_data('long')
    for extra in (['--counts', 'a,b'], ['--id', 'item'], ['--annotator-columns', 'A*']):
        rc, out, err = run(capsys, 'best', p, '--long', *extra)
        assert rc == 1 and 'does not apply to the long form' in err, err
    rc, out, err = run(capsys, 'analyze', p, '--long', '--annotations', guide_data('long'), '--out', tmp_path/'o')
    assert rc == 1 and '--annotations' in err and not (tmp_path/'o').exists()


def test_id_holds_with_counts(tmp_path):
    "`--id` was ignored once `--counts` was given (rows numbered instead)."
    p = tmp_path/'t.csv'; p.write_text('key,a,b,other\nk1,1,2,x\nk2,3,0,y\n')
    d = read_annotated(p, counts='a,b', id='key')
    assert d.items == ['k1', 'k2'] and 'columns not read: other' in d.report


def test_one_vote_per_item_is_refused_before_any_work(capsys, tmp_path):
    p = tmp_path/'one.csv'; p.write_text('item,label\na,x\nb,y\nc,x\n')
    rc, out, err = run(capsys, 'best', p)
    assert rc == 1 and 'one vote on each of the 3 items' in err
    assert read_annotated(p).n_items == 3  # only a ceiling needs repeated votes


def test_classes_in_the_users_order_in_every_form(capsys, tmp_path):
    p = tmp_path/'l.csv'; p.write_text('item,annotator,label\nq1,a,1\nq1,b,0\nq2,a,-1\nq2,b,-1\nq3,a,1\nq3,b,1\n')
    assert read_annotated(p).classes == ('-1', '0', '1') and 'sorted as numbers' in read_annotated(p).report
    assert best_json(capsys, p, '--classes', '1,0,-1')['classes'] == ['1', '0', '-1']
    w = tmp_path/'w.csv'; w.write_text('id,a,b,c\n1,1,2,0\n2,0,1,1\n')
    assert read_annotated(w, classes='c,a,b').counts.tolist() == [[0, 1, 2], [1, 0, 1]]


def test_items_named_by_several_columns(tmp_path):
    p = tmp_path/'l.csv'; p.write_text('conv,turn,annotator,label\nc1,1,a,x\nc1,2,a,y\nc1,1,b,y\n')
    d = read_annotated(p, item='conv,turn')
    assert d.items == [('c1', '1'), ('c1', '2')] and d.counts.tolist() == [[1, 1], [0, 1]]  # tuples, never joined


def test_annotator_columns_with_repeats_splits_and_context(capsys, tmp_path):
    p = tmp_path/'a.csv'
    p.write_text('id,prev,text,part,Annotator1,Annotator2,Annotator3\n'
                 'u1,hi,you idiot,train,strong,mild,strong\nu2,hey,thanks,validation,none,none,\nu3,ok,bye,test,,none,mild\n')
    d = read_annotated(p, annotator_columns='Annotator*', context='prev', split='part', classes='none,mild,strong')
    assert d.counts.tolist() == [[0, 1, 2], [2, 0, 0], [1, 1, 0]] and d.contexts == ['hi', 'hey', 'ok']
    assert d.splits.tolist() == ['train', 'dev', 'test'] and len(d.annotators) == 3
    r = best_json(capsys, p, '--annotator-columns', 'Annotator*', '--context', 'prev', '--split', 'part', '--classes', 'none,mild,strong',
                  '--on', 'all')  # a split column selects the test items; --on all: every item (issue 38)
    assert r['classes'] == ['none', 'mild', 'strong'] and r['examples'] == 3 and 'split column part' in r['read']
    g = d.group({'abusive': ['mild', 'strong']})
    assert g.classes == ('none', 'abusive') and g.counts.tolist() == [[0, 3], [2, 0], [1, 1]]
    bad = tmp_path/'b.csv'; bad.write_text(p.read_text().replace('validation', 'holdout'))
    with pytest.raises(ScruplesDataError, match=r"b\.csv:3: field 'part'"): read_annotated(bad, annotator_columns='Annotator*', split='part')


def test_one_hot_annotator_columns_and_the_repeat_policy(tmp_path):
    p = tmp_path/'h.csv'
    p.write_text('id,A1_not,A1_abusive,A2_not,A2_abusive\nx,0,"1, 1",1,0\ny,"1, 0","0, 1",,\n')
    with pytest.raises(ScruplesDataError, match='repeats'): read_annotated(p, annotator_columns='{annotator}_{label}')
    kw = dict(annotator_columns='{annotator}_{label}', classes='not,abusive')
    first, every = (read_annotated(p, repeats=r, **kw) for r in ('first', 'all'))
    assert every.counts.tolist() == [[1, 2], [1, 1]] and first.counts.tolist() == [[1, 1], [1, 0]]
    assert '2 repeated labels' in every.report and 'repeats=all' in every.report
    with pytest.raises(ScruplesDataError, match="item 'y'"): read_annotated(p, repeats='drop', **kw)  # y's one annotator repeated
    q = tmp_path/'h2.csv'; q.write_text(p.read_text().replace('y,"1, 0","0, 1",,', 'y,"1, 0","0, 1",1,0'))
    assert read_annotated(q, repeats='drop', **kw).counts.tolist() == [[1, 0], [1, 0]]


# --- one answer per file: the same votes in every form and format ----------------------------------------------------------

def _forms(counts: np.ndarray, folder: Path) -> dict[str, tuple[Path, list[str]]]:
    "The same votes as files in every form and format, with the reading options each needs: name -> (path, options)."
    k = counts.shape[1]
    classes = [f'c{j}' for j in range(k)]
    items = [f'i{n}' for n in range(len(counts))]
    wide = pd.DataFrame(counts, columns=classes).assign(id=items)[['id', *classes]]
    votes = [(it, f'a{v}', classes[j]) for it, row in zip(items, counts) for v, j in enumerate(np.repeat(np.arange(k), row))]
    long = pd.DataFrame(votes, columns=['item', 'annotator', 'label'])
    n_ann = int(counts.sum(1).max())
    cols = long.pivot(index='item', columns='annotator', values='label').reindex(index=items, columns=[f'a{v}' for v in range(n_ann)])
    cols = cols.rename(columns=lambda a: f'ann_{a}').reset_index().rename(columns={'item': 'id'})
    hot = pd.DataFrame({'id': items})
    for v in range(n_ann):
        for c in classes: hot[f'{v}_{c}'] = [int(x == c) if isinstance(x, str) else '' for x in cols[f'ann_a{v}']]
    out, order = {}, ['--classes', ','.join(classes)]
    for name, df, opts in (('wide', wide, []), ('long', long, ['--long'] + order), ('columns', cols, ['--annotator-columns', 'ann_*'] + order),
                           ('onehot', hot, ['--annotator-columns', '{annotator}_{label}'] + order)):
        for fmt in (('csv', 'jsonl', 'parquet') if name in ('wide', 'long') else ('csv',)):
            p = folder/f'{name}.{fmt}'
            if fmt == 'csv': df.to_csv(p, index=False)
            elif fmt == 'jsonl': df.to_json(p, orient='records', lines=True)
            else: df.to_parquet(p)
            out[f'{name}.{fmt}'] = (p, opts)
    (folder/'plain.csv').write_text(pd.DataFrame(counts, columns=classes).to_csv(index=False)); out['plain.csv'] = (folder/'plain.csv', [])
    (folder/'list.json').write_text(json.dumps(counts.tolist())); out['list.json'] = (folder/'list.json', order)
    return out


def _api_options(opts: list[str]) -> dict:
    "The command-line reading options as `read_annotated`'s keywords."
    kw, rest = ({'form': 'long'}, opts[1:]) if opts[:1] == ['--long'] else ({}, opts)
    return kw | {a[2:].replace('-', '_'): b for a, b in zip(rest[::2], rest[1::2])}


COUNTS = st.integers(2, 3).flatmap(lambda k: st.lists(st.lists(st.integers(0, 3), min_size=k, max_size=k).filter(lambda r: sum(r) > 0),
                                                      min_size=8, max_size=10).filter(lambda rows: max(map(sum, rows)) >= 2))


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows=COUNTS)
def test_every_form_and_format_gives_one_answer(tmp_path_factory, capsys, rows):
    "Counts, classes and alpha agree across the API, `data validate`, the guide's reader and `best --json` (a subprocess)."
    from scruples.guide import guide_parameters
    counts = np.asarray(rows, dtype=np.int64)
    folder = tmp_path_factory.mktemp('forms')
    classes = [f'c{j}' for j in range(counts.shape[1])]
    alphas = set()
    for name, (p, opts) in _forms(counts, folder).items():
        d = read_annotated(p, **_api_options(opts))
        assert list(d.classes) == classes and d.counts.tolist() == counts.tolist(), (name, d.report)
        rc, out, _ = run(capsys, 'data', 'validate', p, *opts, '--json')
        assert rc == 0 and json.loads(out)[0]['items'] == len(counts), (name, out)
        if name.startswith(('wide', 'long')) and len(counts) >= 8:
            guide_parameters(p, form=name.split('.')[0], text=None)
        r = cli_run.scruples('best', p, *opts, '--json', '--samples', '20', '--bootstrap', '0', timeout=120)
        assert r.returncode == 0, (name, r.stderr)
        res = json.loads(r.stdout)
        assert res['classes'] == classes and res['examples'] == len(counts), name
        alphas.add(tuple(res['alpha']))
    assert len(alphas) == 1, alphas


def test_text_none_leaves_the_text_column_unread_not_a_count(tmp_path):
    "`--text ''` (documented as none) made the text column a count column unless --counts was also given."
    p = tmp_path/'t.csv'; p.write_text('id,text,yes,no\n1,hello,2,1\n2,bye,0,3\n')
    d = read_annotated(p, text='')
    assert d.classes == ('yes', 'no') and d.texts is None and 'columns not read: text' in d.report


def test_analyze_refuses_one_vote_per_item_before_writing(capsys, tmp_path):
    "analyze failed late, inside the kernel."
    p = tmp_path/'one.csv'; p.write_text('item,label\n' + ''.join(f'q{i},{"ab"[i % 2]}\n' for i in range(12)))
    rc, out, err = run(capsys, 'analyze', p, '--out', tmp_path/'o')
    assert rc == 1 and 'one vote on each of the 12 items' in err and not (tmp_path/'o').exists()


def test_lone_surrogate_in_a_scruples_file_is_one_plain_error(tmp_path):
    rec = {'id': 'd1', 'actions': [{'id': 'a1', 'description': 'x'}, {'id': 'a2', 'description': 'y'}], 'gold_annotations': [4, 1],
           'gold_label': 0, 'controversial': True}
    p = tmp_path/'s.scruples-dilemmas.jsonl'
    p.write_text(json.dumps(rec) + '\n' + json.dumps(dict(rec, id='d2')).replace('"x"', '"\\ud800"') + '\n')
    with pytest.raises(ScruplesDataError) as ei: read_annotated(p)
    assert str(ei.value).startswith(f'{p}:2: record: expected text without lone surrogate'), str(ei.value)
