"""Malformed input: every reader error names the file, the line (`file:LINE:`) and the field, as attributes and in the message.

Each case starts from a valid, real-looking record and changes one thing. The bad record sits on line 4 of its
file (two valid records, a blank line, then the bad one), so a line number that ignores blank lines or always
says 1 is caught.
"""
import copy
import json
import re
from pathlib import Path

import pytest

from scruples.core import ScruplesDataError, ScruplesError
from scruples.data import ANECDOTES_CLASSES, DILEMMAS_CLASSES, read_anecdotes, read_dilemmas, read_label_counts

# --- valid baselines, shaped like the released files ----------------------------------------------

DILEMMA = {
    'id': 'tmNErYoJwZJxjW0yDWYNkDItWByNOl1J',
    'actions': [{'id': '3vtILixJ1WQxm4DEhF47ISi92TzdLqEy',
                 'description': "using my roommate's command hook to hang up my towel in the bathroom"},
                {'id': 'zxtrGmGAmTlyczn5gMk4rUVkbdYeCENI',
                 'description': 'asking my boyfriend to stop calling me "hot"'}],
    'gold_annotations': [3, 2], 'gold_label': 0,
    'human_perf_annotations': [2, 3], 'human_perf_label': 1,
    'controversial': True}

ANECDOTE = {
    'id': 'Qx3ZDcWTpkdVyGuSjPbSQm8whXZgOUXR', 'post_id': 'b4i0wf',
    'action': {'description': 'not wanting to go to my cousin\'s wedding',
               'pronormative_score': 9, 'contranormative_score': 4},
    'title': "AITA for not wanting to go to my cousin's wedding?",
    'text': 'My cousin is getting married next month and I really do not want to go. ...',
    'post_type': 'HISTORICAL',
    'label_scores': {'AUTHOR': 3, 'OTHER': 8, 'EVERYBODY': 1, 'NOBODY': 1, 'INFO': 0},
    'label': 'OTHER',
    'binarized_label_scores': {'RIGHT': 9, 'WRONG': 4},
    'binarized_label': 'RIGHT'}

BAD_LINE = 4  # line of the malformed record in every JSON-lines case


def jsonl(tmp_path: Path, name: str, bad_line: str, good: dict) -> Path:
    "Two valid records, a blank line, then `bad_line` (line 4)."
    p = tmp_path/name
    second = dict(good, id=good['id'] + '-2')  # ids are unique within a file
    p.write_text(json.dumps(good) + '\n' + json.dumps(second) + '\n\n' + bad_line + '\n', encoding='utf-8')
    return p


def mutated(base: dict, fn) -> str:
    rec = copy.deepcopy(base)
    fn(rec)
    return json.dumps(rec)


def assert_error(err: ScruplesDataError, path: Path, line, field):
    msg = str(err)
    assert isinstance(err, ScruplesError) and isinstance(err, ValueError)
    assert err.path == str(path)
    assert err.line == line
    assert err.field == field
    if line is None: assert msg.startswith(f'{path}: ')
    else: assert msg.startswith(f'{path}:{line}: ')
    if field is not None: assert f"field '{field}'" in msg
    assert 'expected' in msg


def setter(*keys_and_value):
    "A mutation setting rec[k1][k2]... = value."
    *keys, value = keys_and_value
    def fn(rec):
        d = rec
        for k in keys[:-1]: d = d[k]
        d[keys[-1]] = value
    return fn


def deleter(*keys):
    def fn(rec):
        d = rec
        for k in keys[:-1]: d = d[k]
        del d[keys[-1]]
    return fn


# --- raw lines that are not a JSON object ----------------------------------------------------------

_dilemma_text = json.dumps(DILEMMA)
RAW_LINES = {
    'truncated-json': _dilemma_text[:-10],
    'single-quotes': _dilemma_text.replace('"', "'"),
    'trailing-comma': _dilemma_text[:-1] + ', }',
    'json-array': json.dumps([DILEMMA]),
    'json-string': json.dumps('a dilemma'),
    'json-number': '42',
    'json-null': 'null',
    'nan-count': _dilemma_text.replace('"gold_annotations": [3, 2]', '"gold_annotations": [NaN, 2]'),
    'infinity-count': _dilemma_text.replace('"gold_annotations": [3, 2]', '"gold_annotations": [Infinity, 2]'),
    'minus-infinity-count': _dilemma_text.replace('"gold_annotations": [3, 2]', '"gold_annotations": [-Infinity, 2]'),
    'two-objects-on-one-line': _dilemma_text + ' ' + _dilemma_text,
}


@pytest.mark.parametrize('reader,good', [(read_dilemmas, DILEMMA), (read_anecdotes, ANECDOTE)], ids=['dilemmas', 'anecdotes'])
@pytest.mark.parametrize('case', sorted(RAW_LINES))
def test_raw_line_not_an_object(tmp_path, case, reader, good):
    assert RAW_LINES['nan-count'] != _dilemma_text  # the substitutions did apply
    p = jsonl(tmp_path, 'x.jsonl', RAW_LINES[case], good)
    with pytest.raises(ScruplesDataError) as ei: reader(p)
    assert_error(ei.value, p, BAD_LINE, None)


# --- dilemma records with one field wrong -----------------------------------------------------------

DILEMMA_CASES = {  # name: (mutation, field named in the error)
    'id-missing': (deleter('id'), 'id'),
    'id-int': (setter('id', 12345), 'id'),
    'id-null': (setter('id', None), 'id'),
    'actions-missing': (deleter('actions'), 'actions'),
    'actions-object': (setter('actions', {'id': 'a', 'description': 'b'}), 'actions'),
    'actions-one': (lambda r: r['actions'].pop(), 'actions'),
    'actions-three': (lambda r: r['actions'].append(dict(r['actions'][0])), 'actions'),
    'actions-empty': (setter('actions', []), 'actions'),
    'action-not-object': (setter('actions', 1, 'asking my boyfriend'), 'actions[1]'),
    'action-id-int': (setter('actions', 1, 'id', 7), 'actions[1].id'),
    'action-description-missing': (deleter('actions', 0, 'description'), 'actions[0].description'),
    'action-description-list': (setter('actions', 0, 'description', ['a']), 'actions[0].description'),
    'gold-missing': (deleter('gold_annotations'), 'gold_annotations'),
    'gold-three-counts': (setter('gold_annotations', [3, 1, 1]), 'gold_annotations'),
    'gold-one-count': (setter('gold_annotations', [5]), 'gold_annotations'),
    'gold-not-list': (setter('gold_annotations', '3,2'), 'gold_annotations'),
    'gold-negative': (setter('gold_annotations', [-1, 6]), 'gold_annotations[0]'),
    'gold-float': (setter('gold_annotations', [2.5, 2.5]), 'gold_annotations[0]'),
    'gold-float-fraction': (setter('gold_annotations', [3, 2.5]), 'gold_annotations[1]'),
    'gold-bool': (setter('gold_annotations', [True, 4]), 'gold_annotations[0]'),
    'gold-string-count': (setter('gold_annotations', [3, '2']), 'gold_annotations[1]'),
    'gold-label-missing': (deleter('gold_label'), 'gold_label'),
    'gold-label-2': (setter('gold_label', 2), 'gold_label'),
    'gold-label-negative': (setter('gold_label', -1), 'gold_label'),
    'gold-label-bool': (setter('gold_label', True), 'gold_label'),
    'gold-label-string': (setter('gold_label', '0'), 'gold_label'),
    'gold-label-float': (setter('gold_label', 0.0), 'gold_label'),
    'human-not-list': (setter('human_perf_annotations', 5), 'human_perf_annotations'),
    'human-three-counts': (setter('human_perf_annotations', [1, 2, 2]), 'human_perf_annotations'),
    'human-negative': (setter('human_perf_annotations', [2, -3]), 'human_perf_annotations[1]'),
    'human-label-3': (setter('human_perf_label', 3), 'human_perf_label'),
    'human-label-bool': (setter('human_perf_label', False), 'human_perf_label'),
    'controversial-missing': (deleter('controversial'), 'controversial'),
    'controversial-int': (setter('controversial', 1), 'controversial'),
    'controversial-string': (setter('controversial', 'true'), 'controversial'),
}


@pytest.mark.parametrize('case', sorted(DILEMMA_CASES))
def test_bad_dilemma_field(tmp_path, case):
    fn, field = DILEMMA_CASES[case]
    bad = mutated(DILEMMA, fn)
    assert bad != json.dumps(DILEMMA)
    p = jsonl(tmp_path, 'dev.scruples-dilemmas.jsonl', bad, DILEMMA)
    with pytest.raises(ScruplesDataError) as ei: read_dilemmas(p)
    assert_error(ei.value, p, BAD_LINE, field)


# --- anecdote records with one field wrong ----------------------------------------------------------

def _scores(**kw):
    "label_scores with some counts changed, and binarized scores that stay consistent."
    def fn(rec):
        rec['label_scores'].update(kw)
        s = rec['label_scores']
        if all(isinstance(v, int) for v in s.values()) and set(s) >= {'AUTHOR', 'OTHER', 'EVERYBODY', 'NOBODY'}:
            rec['binarized_label_scores'] = {'RIGHT': s['OTHER'] + s['NOBODY'], 'WRONG': s['AUTHOR'] + s['EVERYBODY']}
    return fn


ANECDOTE_CASES = {
    'id-int': (setter('id', 1), 'id'),
    'post-id-missing': (deleter('post_id'), 'post_id'),
    'title-null': (setter('title', None), 'title'),
    'text-int': (setter('text', 0), 'text'),
    'post-type-unknown': (setter('post_type', 'FICTIONAL'), 'post_type'),
    'post-type-lowercase': (setter('post_type', 'historical'), 'post_type'),
    'post-type-int': (setter('post_type', 0), 'post_type'),
    'action-string': (setter('action', 'not wanting to go'), 'action'),
    'action-description-missing': (deleter('action', 'description'), 'action.description'),
    'action-pronormative-negative': (setter('action', 'pronormative_score', -2), 'action.pronormative_score'),
    'action-contranormative-float': (setter('action', 'contranormative_score', 1.5), 'action.contranormative_score'),
    'label-scores-missing': (deleter('label_scores'), 'label_scores'),
    'label-scores-list': (setter('label_scores', [3, 8, 1, 1, 0]), 'label_scores'),
    'label-scores-missing-class': (deleter('label_scores', 'INFO'), 'label_scores'),
    'label-scores-extra-class': (setter('label_scores', 'MAYBE', 0), 'label_scores'),
    'label-scores-lowercase-names': (setter('label_scores', {c: 1 for c in ANECDOTES_CLASSES}), 'label_scores'),
    'label-score-negative': (_scores(AUTHOR=-1), 'label_scores.AUTHOR'),
    'label-score-float': (_scores(OTHER=2.5), 'label_scores.OTHER'),
    'label-score-bool': (_scores(NOBODY=True), 'label_scores.NOBODY'),
    'label-score-null': (_scores(INFO=None), 'label_scores.INFO'),
    'label-unknown-name': (setter('label', 'SOMEONE'), 'label'),
    'label-lowercase': (setter('label', 'other'), 'label'),
    'label-missing': (deleter('label'), 'label'),
    'binarized-scores-inconsistent': (setter('binarized_label_scores', 'RIGHT', 10), 'binarized_label_scores'),
    'binarized-scores-swapped': (setter('binarized_label_scores', {'RIGHT': 4, 'WRONG': 9}), 'binarized_label_scores'),
    'binarized-scores-extra-key': (setter('binarized_label_scores', 'UNSURE', 0), 'binarized_label_scores'),
    'binarized-scores-missing-key': (deleter('binarized_label_scores', 'WRONG'), 'binarized_label_scores'),
    'binarized-scores-not-updated': (lambda r: r['label_scores'].update(INFO=0, NOBODY=5), 'binarized_label_scores'),
    'binarized-label-unknown': (setter('binarized_label', 'MAYBE'), 'binarized_label'),
    'binarized-label-bool': (setter('binarized_label', True), 'binarized_label'),
}


@pytest.mark.parametrize('case', sorted(ANECDOTE_CASES))
def test_bad_anecdote_field(tmp_path, case):
    fn, field = ANECDOTE_CASES[case]
    bad = mutated(ANECDOTE, fn)
    assert bad != json.dumps(ANECDOTE)
    p = jsonl(tmp_path, 'dev.scruples-anecdotes.jsonl', bad, ANECDOTE)
    with pytest.raises(ScruplesDataError) as ei: read_anecdotes(p)
    assert_error(ei.value, p, BAD_LINE, field)


# --- whole files: empty, blank, wrong encoding ------------------------------------------------------

ALL_READERS = [read_dilemmas, read_anecdotes, read_label_counts]


@pytest.mark.parametrize('reader', ALL_READERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize('content', [b'', b'   ', b'\n\n\n', b' \t\r\n \n', b'\xef\xbb\xbf', b'\xef\xbb\xbf\n  \n'],
                         ids=['empty', 'spaces', 'newlines', 'mixed-whitespace', 'bom-only', 'bom-and-blank'])
def test_empty_file(tmp_path, reader, content):
    p = tmp_path/'dev.data'
    p.write_bytes(content)
    with pytest.raises(ScruplesDataError) as ei: reader(p)
    assert_error(ei.value, p, None, None)
    assert 'non-empty' in str(ei.value)


def _latin1(good):
    rec = copy.deepcopy(good)
    rec['id'] = 'café'
    return json.dumps(rec, ensure_ascii=False).encode('latin-1')


@pytest.mark.parametrize('reader,good', [(read_dilemmas, DILEMMA), (read_anecdotes, ANECDOTE)], ids=['dilemmas', 'anecdotes'])
def test_latin1_bytes(tmp_path, reader, good):
    p = tmp_path/'x.jsonl'
    ok = json.dumps(good).encode()
    ok2 = json.dumps(dict(good, id=good['id'] + '-2')).encode()  # ids are unique within a file
    p.write_bytes(ok + b'\n' + ok2 + b'\n\n' + _latin1(good) + b'\n')
    with pytest.raises(ScruplesDataError) as ei: reader(p)
    assert_error(ei.value, p, BAD_LINE, None)
    assert 'UTF-8' in str(ei.value)


@pytest.mark.parametrize('reader,text', [
    (read_dilemmas, json.dumps(DILEMMA) + '\n'), (read_anecdotes, json.dumps(ANECDOTE) + '\n'),
    (read_label_counts, '[\n  [1, 2],\n  [3, 4]\n]\n')], ids=['dilemmas', 'anecdotes', 'label-counts'])
@pytest.mark.parametrize('encoding', ['utf-16', 'utf-16-le', 'utf-16-be', 'utf-32'])
def test_utf16_and_utf32(tmp_path, reader, text, encoding):
    p = tmp_path/'x.data'
    p.write_bytes(text.encode(encoding))  # 'utf-16' and 'utf-32' write a BOM
    with pytest.raises(ScruplesDataError) as ei: reader(p)
    assert_error(ei.value, p, 1, None)
    # with a BOM the bytes are not UTF-8; BOM-less UTF-16 of ASCII text is valid UTF-8 full of NUL characters
    # and fails as JSON instead, still at line 1
    if encoding in ('utf-16', 'utf-32'): assert 'UTF-8' in str(ei.value)


def test_latin1_in_label_counts(tmp_path):
    p = tmp_path/'dev.scruples-dilemmas_label-counts.json'
    p.write_bytes(b'[\n  [1, 2],\n  [3, 4]\n] \xe9\n')
    with pytest.raises(ScruplesDataError) as ei: read_label_counts(p)
    assert_error(ei.value, p, 4, None)


def test_missing_file_is_file_not_found(tmp_path):
    for reader in ALL_READERS:
        with pytest.raises(FileNotFoundError, match='no such file'): reader(tmp_path/'nope.jsonl')


# --- label-count files -------------------------------------------------------------------------------

LABEL_COUNT_CASES = {  # name: (file text, line, field)
    'object-not-list': ('{"author": 1}\n', 1, None),
    'object-after-blank-lines': ('\n\n{"author": 1}\n', 3, None),
    'number-not-list': ('5\n', 1, None),
    'string-not-list': ('"[[1, 2]]"\n', 1, None),
    'jsonl-not-list': ('[1, 2]\n[3, 4]\n', 1, 'counts[0]'),
    'ragged-row': ('[\n  [1,2,3,4,5],\n  [1,2,3,4,5],\n  [1,2,3,4]\n]\n', 4, 'counts[2]'),
    'ragged-long-row': ('[\n  [1,2],\n  [3,4],\n  [5,6],\n  [7,8,9]\n]\n', 5, 'counts[3]'),
    'row-is-object': ('[\n  [1,2],\n  {"a": 1, "b": 2}\n]\n', 3, 'counts[1]'),
    'row-is-number': ('[\n  [1,2],\n  3\n]\n', 3, 'counts[1]'),
    'negative': ('[\n  [0,3,1,0,0],\n  [1,8,0,0,0],\n  [1,-2,0,0,0]\n]\n', 4, 'counts[2][1]'),
    'float': ('[\n  [0,3,1,0,0],\n  [1,8,2.5,0,0]\n]\n', 3, 'counts[1][2]'),
    'huge-float': ('[\n  [3,2],\n  [1e400,1]\n]\n', 3, 'counts[1][0]'),
    'bool': ('[\n  [3,2],\n  [true,1]\n]\n', 3, 'counts[1][0]'),
    'string-count': ('[\n  [3,2],\n  [4,"1"]\n]\n', 3, 'counts[1][1]'),
    'null-count': ('[\n  [3,2],\n  [4,null]\n]\n', 3, 'counts[1][1]'),
    'nan': ('[\n  [3,2],\n  [NaN,1]\n]\n', 3, None),
    'infinity': ('[\n  [3,2],\n  [4,1],\n  [Infinity,1]\n]\n', 4, None),
    'minus-infinity': ('[\n  [3,2],\n  [-Infinity,1]\n]\n', 3, None),
    'empty-list': ('[]\n', None, None),
    'empty-list-multiline': ('[\n\n]\n', None, None),
    'rows-of-3-one-line': ('[[1,2,3],[4,5,6]]\n', 1, 'counts[0]'),
    'rows-of-0-one-line': ('[[]]\n', 1, 'counts[0]'),
    'trailing-garbage': ('[\n  [3,2],\n  [4,1]\n] x\n', 4, None),
    'trailing-second-list': ('[\n  [3,2]\n][\n  [4,1]\n]\n', 3, None),
    'trailing-comma': ('[\n  [3,2],\n  [4,1],\n]\n', 4, None),
    'missing-comma': ('[\n  [3,2]\n  [4,1]\n]\n', 3, None),
    'truncated-row': ('[\n  [3,2],\n  [4,\n', 3, None),
    'single-quotes': ("[\n  [3,2],\n  '4,1'\n]\n", 3, None),
}


@pytest.mark.parametrize('case', sorted(LABEL_COUNT_CASES))
def test_bad_label_counts(tmp_path, case):
    text, line, field = LABEL_COUNT_CASES[case]
    first = re.search(r'\[([^\[\]]*)\]', text)  # the file name says how many classes (issue 22, item 9): as many as the first row
    kind = 'anecdotes' if first and first.group(1).count(',') == 4 else 'dilemmas'
    p = tmp_path/f'dev.scruples-{kind}_label-counts.json'
    p.write_text(text, encoding='utf-8')
    with pytest.raises(ScruplesDataError) as ei: read_label_counts(p)
    assert_error(ei.value, p, line, field)


def test_label_counts_wrong_width_for_given_classes(tmp_path):
    p = tmp_path/'counts.json'
    p.write_text('[\n  [3, 2],\n  [4, 1]\n]\n')
    with pytest.raises(ScruplesDataError) as ei: read_label_counts(p, ANECDOTES_CLASSES)
    assert_error(ei.value, p, 2, 'counts[0]')
    assert read_label_counts(p, DILEMMAS_CLASSES).shape == (2, 2)


# Regressions of bugs found in review: the line numbers used to be wrong.

def test_rows_of_3_multiline_reports_the_row_line(tmp_path):
    p = tmp_path/'counts.json'
    p.write_text('[\n  [1,2,3],\n  [4,5,6]\n]\n')
    with pytest.raises(ScruplesDataError) as ei: read_label_counts(p)
    assert ei.value.line == 2


def test_trailing_garbage_on_a_later_line(tmp_path):
    p = tmp_path/'counts.json'
    p.write_text('[\n  [3,2]\n]\n\nx\n')
    with pytest.raises(ScruplesDataError) as ei: read_label_counts(p)
    assert ei.value.line == 5


# --- valid files with blank lines, a BOM, CRLF -------------------------------------------------------

def test_baselines_are_valid(tmp_path):
    p = tmp_path/'d.jsonl'
    p.write_text(json.dumps(DILEMMA) + '\n')
    row = read_dilemmas(p).iloc[0]
    assert (row.id, row.action_1_id, row.gold_1, row.gold_2, row.gold_label) == (DILEMMA['id'], DILEMMA['actions'][0]['id'], 3, 2, 0)
    assert (row.human_1, row.human_2, row.human_label, bool(row.controversial)) == (2, 3, 1, True)
    p = tmp_path/'a.jsonl'
    p.write_text(json.dumps(ANECDOTE) + '\n')
    row = read_anecdotes(p).iloc[0]
    assert [row[c] for c in ANECDOTES_CLASSES] == [3, 8, 1, 1, 0]
    assert (row.label, row.binarized_label, row.action_pronormative_score, row.action_contranormative_score) == ('OTHER', 'RIGHT', 9, 4)


@pytest.mark.parametrize('newline', ['\n', '\r\n'], ids=['lf', 'crlf'])
@pytest.mark.parametrize('bom', [b'', b'\xef\xbb\xbf'], ids=['no-bom', 'bom'])
def test_valid_jsonl_with_blank_lines_and_bom(tmp_path, bom, newline):
    for reader, good in [(read_dilemmas, DILEMMA), (read_anecdotes, ANECDOTE)]:
        recs = [dict(good, id=f'id{i}') for i in range(3)]
        text = newline.join(['', json.dumps(recs[0]), '   ', json.dumps(recs[1]), '\t', '', json.dumps(recs[2]), '', ''])
        p = tmp_path/'ok.jsonl'
        p.write_bytes(bom + text.encode('utf-8'))
        df = reader(p)
        assert list(df.id) == ['id0', 'id1', 'id2']
        assert df.attrs['source'] == 'real' and df.attrs['path'] == str(p)


@pytest.mark.parametrize('bom', [b'', b'\xef\xbb\xbf'], ids=['no-bom', 'bom'])
def test_valid_label_counts_with_bom_and_blank_lines(tmp_path, bom):
    p = tmp_path/'counts.json'
    p.write_bytes(bom + b'\n\n[\r\n\n  [0,3,1,0,0] ,\n\n  [1,8,0,0,0]\t]\n\n\n')
    df = read_label_counts(p)
    assert list(df.columns) == list(ANECDOTES_CLASSES)
    assert df.to_numpy().tolist() == [[0, 3, 1, 0, 0], [1, 8, 0, 0, 0]]
    assert df.attrs['source'] == 'real-label-counts'


def test_anecdote_without_action_and_with_null_action(tmp_path):
    recs = [dict(ANECDOTE, action=None), {k: v for k, v in ANECDOTE.items() if k != 'action'} | {'id': 'a2'}]
    p = tmp_path/'a.jsonl'
    p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    df = read_anecdotes(p)
    assert df['action'].isna().all() and df['action_pronormative_score'].isna().all()
    assert str(df['action_pronormative_score'].dtype) == 'Int64'


def test_dilemma_without_human_annotations(tmp_path):
    rec = {k: v for k, v in DILEMMA.items() if not k.startswith('human')}
    p = tmp_path/'train.scruples-dilemmas.jsonl'
    p.write_text(json.dumps(rec) + '\n' + json.dumps(dict(rec, id='d2', human_perf_annotations=None, human_perf_label=None)) + '\n')
    df = read_dilemmas(p)
    assert df[['human_1', 'human_2', 'human_label']].isna().all().all()
    assert all(str(df[c].dtype) == 'Int64' for c in ('human_1', 'human_2', 'human_label'))


def test_long_bad_value_is_shortened_in_message(tmp_path):
    p = jsonl(tmp_path, 'x.jsonl', mutated(DILEMMA, setter('id', list(range(1000)))), DILEMMA)
    with pytest.raises(ScruplesDataError) as ei: read_dilemmas(p)
    assert_error(ei.value, p, BAD_LINE, 'id')
    assert len(str(ei.value)) < 300 and str(ei.value).endswith('...')


# --- regressions of bugs found in review ------------------------------------------------------------

@pytest.mark.parametrize('char', ['\u2028', '\u2029', '\x85'], ids=['U+2028', 'U+2029', 'U+0085'])
def test_raw_unicode_line_separators_inside_strings(tmp_path, char):
    rec = copy.deepcopy(DILEMMA)
    rec['actions'][0]['description'] = f'first part{char}second part'
    p = tmp_path/'dev.scruples-dilemmas.jsonl'
    p.write_text(json.dumps(rec, ensure_ascii=False) + '\n', encoding='utf-8')
    assert read_dilemmas(p)['action_1'].iloc[0] == rec['actions'][0]['description']


@pytest.mark.parametrize('scores,bad', [({'RIGHT': 9.5, 'WRONG': 4}, 'RIGHT'), ({'RIGHT': 1, 'WRONG': True}, 'WRONG')], ids=['float', 'bool'])
def test_binarized_scores_must_be_integers(tmp_path, scores, bad):
    rec = copy.deepcopy(ANECDOTE)
    if scores['WRONG'] is True: rec['label_scores'] = {'AUTHOR': 1, 'OTHER': 1, 'EVERYBODY': 0, 'NOBODY': 0, 'INFO': 0}
    rec['binarized_label_scores'] = scores
    p = jsonl(tmp_path, 'dev.scruples-anecdotes.jsonl', json.dumps(rec), ANECDOTE)
    with pytest.raises(ScruplesDataError) as ei: read_anecdotes(p)
    assert_error(ei.value, p, BAD_LINE, f'binarized_label_scores.{bad}')


@pytest.mark.parametrize('space', ['\xa0', '\u3000'], ids=['U+00A0', 'U+3000'])
def test_label_counts_reject_non_json_whitespace(tmp_path, space):
    p = tmp_path/'counts.json'
    text = f'[{space}[1, 2],\n  [3, 4]\n]\n'
    with pytest.raises(ValueError): json.loads(text)
    p.write_text(text, encoding='utf-8')
    with pytest.raises(ScruplesDataError): read_label_counts(p)
