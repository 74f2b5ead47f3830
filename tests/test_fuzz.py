"""Fuzzing every reader and every `scruples` command with generated bad input (issue 10).

What is generated: valid documents of each format (label-count JSON, counts CSV, gold labels, Dilemmas and Anecdotes
JSON lines, user-study CSV) broken at random: truncated, characters inserted, deleted or replaced (JSON syntax
characters, control characters, any Unicode), lines duplicated, numbers replaced by extreme ones (2**63, -1, 1e308,
NaN, 10**30, 5000-digit integers), records with a field deleted or replaced by any JSON value (nested lists and
objects, wrong types), re-encoded as UTF-16 / Latin-1 or with invalid UTF-8 bytes, and deeply nested documents; plus
paths that are folders, missing, unreadable, and bad option values.

The contract asserted for every input:
- a reader returns a frame or raises `ScruplesDataError` naming the file (and a line within it when it gives one),
  or an `OSError` naming the file; nothing else;
- a command exits 0 (the input happened to be valid), 1 (bad input: one `scruples: error:` line naming the file,
  or the validate table naming it) or 2 (usage), never prints a traceback, and writes no file;
- time grows linearly: a 10 MB file validates in seconds.
Commands that would run a model get a stand-in: a hashing encoder for MCM, a first-word verb finder for `verbs`.

API contracts (issue 22; the section at the end): generated class-index vectors (values from -1 to k, lengths that
may differ, batches), count matrices with zero rows and negative cells against probability matrices of other shapes,
`best` calls with any mix of bad counts, metric names (one bare string, unknown names, none), sample and bootstrap sizes,
levels and seeds, metric sets in any order, Dirichlet parameters of 33-70 classes, notebook selectors (any ASCII text
and the fragments that used to match everything), pooled file lists with repeats, label-count files whose width
disagrees with their name or that hold an all-zero row, user studies of 1-5 actions, and texts around the length cap.
Asserted: bad input is refused with ValueError/ScruplesDataError (naming file and line where there is one) before any
fitting, encoding or parsing; valid input gives the exact answer (scikit-learn's for the label metrics), with no NaN
and no length-1 input broadcast; a metric's estimate does not depend on the other metrics asked for.
"""
import json
import os
import re
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from scruples import data as sd
from scruples.annotations import read_annotated
from scruples.core import ScruplesDataError

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow, HealthCheck.data_too_large])

DILEMMA = {'id': 'd1', 'actions': [{'id': 'a1', 'description': 'borrowing a car'}, {'id': 'a2', 'description': 'lying'}],
           'gold_annotations': [1, 4], 'gold_label': 1, 'human_perf_annotations': [2, 3], 'human_perf_label': 1,
           'controversial': True}
ANECDOTE = {'id': 'x1', 'post_id': 'p1', 'title': 'AITA for X?', 'text': 'Long story.', 'post_type': 'HISTORICAL',
            'action': {'description': 'not going', 'pronormative_score': 3, 'contranormative_score': 1},
            'label_scores': {'AUTHOR': 3, 'OTHER': 8, 'EVERYBODY': 1, 'NOBODY': 1, 'INFO': 0}, 'label': 'OTHER',
            'binarized_label_scores': {'RIGHT': 9, 'WRONG': 4}, 'binarized_label': 'RIGHT'}


def jsonl(rec, n=3):
    return ''.join(json.dumps(dict(rec, id=f'{rec["id"]}-{i}')) + '\n' for i in range(n))


def read_counts(path) -> pd.DataFrame:
    "The counts of any table or count list as the one reader reads it (`scruples best`, `data validate`), as a frame."
    d = read_annotated(path)
    return pd.DataFrame(d.counts, columns=list(d.classes))


VALID = {  # file name -> a valid document
    'dev.scruples-dilemmas.jsonl': jsonl(DILEMMA),
    'dev.scruples-anecdotes.jsonl': jsonl(ANECDOTE),
    'dev.scruples-dilemmas_label-counts.json': '[\n  [1, 4],\n  [3, 2],\n  [0, 5]\n]\n',
    'counts.json': '[[5, 0, 0],\n [1, 3, 1],\n [0, 1, 4]]\n',
    'counts.csv': 'entailment,neutral,contradiction\n5,0,0\n1,3,1\n0,1,4\n',
}
READERS = {'dev.scruples-dilemmas.jsonl': sd.read_dilemmas, 'dev.scruples-anecdotes.jsonl': sd.read_anecdotes,
           'dev.scruples-dilemmas_label-counts.json': sd.read_label_counts, 'counts.json': read_counts,
           'counts.csv': read_counts}

EXTREME = ['2**63', '9223372036854775808', '18446744073709551616', '-1', '1e308', '-0', '1.5', 'NaN', 'Infinity',
           '1' * 30, '9' * 5000, 'true', 'null', '""', '[]', '{}', '"5"']
NASTY = st.sampled_from(list('[]{},:"\\\n\r\t\x00\x1f\u2028\ufeff ') + ['\ud7ff', '\x85', '\u00e9', '𝟘'])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)


@st.composite
def broken_text(draw, text: str) -> str:
    "`text` with one to three random edits."
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(['truncate', 'insert', 'delete', 'replace', 'dup_line', 'number', 'nest']))
        i = draw(st.integers(0, len(text)))
        if op == 'truncate': text = text[:i]
        elif op == 'insert': text = text[:i] + draw(st.text(NASTY | st.characters(blacklist_categories=('Cs',)), min_size=1, max_size=4)) + text[i:]
        elif op == 'delete': text = text[:i] + text[i + draw(st.integers(1, 8)):]
        elif op == 'replace': text = text[:i] + draw(st.text(max_size=6)) + text[i + 3:]
        elif op == 'dup_line':
            lines = text.split('\n'); j = draw(st.integers(0, len(lines) - 1)); lines.insert(j, lines[j]); text = '\n'.join(lines)
        elif op == 'number':
            nums = list(re.finditer(r'-?\d+', text))
            if nums:
                m = draw(st.sampled_from(nums)); text = text[:m.start()] + draw(st.sampled_from(EXTREME)) + text[m.end():]
        else: text = '[' * draw(st.integers(1, 3000)) + text + ']' * draw(st.integers(0, 3000))
    return text


@st.composite
def encoded(draw, text: str) -> bytes:
    "Mostly UTF-8; sometimes UTF-16, Latin-1, or UTF-8 with invalid bytes spliced in."
    how = draw(st.sampled_from(['utf-8'] * 5 + ['utf-16', 'latin-1', 'invalid', 'bom']))
    if how == 'invalid':
        b = text.encode('utf-8', 'surrogatepass'); i = draw(st.integers(0, len(b)))
        return b[:i] + draw(st.sampled_from([b'\xff', b'\xc3(', b'\xed\xa0\x80', b'\x80\x80', b'\xf0\x9f'])) + b[i:]
    if how == 'bom': return b'\xef\xbb\xbf' + text.encode('utf-8', 'surrogatepass')
    return text.encode(how if how != 'latin-1' else 'latin-1', 'replace' if how == 'latin-1' else 'surrogatepass')


@st.composite
def mutated_record(draw, rec: dict) -> dict:
    "`rec` with one (possibly nested) field deleted or replaced by any JSON value."
    rec = json.loads(json.dumps(rec))
    node = rec
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        k = draw(st.sampled_from(keys))
        if isinstance(node[k], (dict, list)) and node[k] and draw(st.booleans()): node = node[k]; continue
        if isinstance(node, dict) and draw(st.booleans()): del node[k]
        else: node[k] = draw(JSON_VALUES)
        return rec


def snapshot(folder: Path) -> set:
    return {(str(p.relative_to(folder)), p.stat().st_size) for p in folder.rglob('*')}


def check_reader(reader, path: Path, n_lines: int):
    "The reader's contract: a frame, or ScruplesDataError / OSError naming `path` (and a line inside the file)."
    try: out = reader(path)
    except ScruplesDataError as err:
        assert err.path == str(path) and str(err).startswith(str(path)), str(err)
        assert err.line is None or 1 <= err.line <= max(n_lines, 1), (err.line, n_lines, str(err))
        return None
    except OSError as err:
        assert err.filename == str(path), err
        return None
    except ValueError as err:  # a table that reads two ways, or a column given two roles: the one reader names the file
        assert str(err).startswith(str(path)) and ('two readings' in str(err) or 'one role' in str(err)), str(err)
        return None
    assert isinstance(out, pd.DataFrame) and len(out) > 0
    return out


from cli_run import in_process as cli  # noqa: E402  (`scruples` in-process: exit status, stdout, stderr)


def check_cli(folder: Path, argv, names=()):
    "The command's contract: exit 0/1/2, no traceback, an error naming the file, and no file written."
    before = snapshot(folder)
    rc, out, err = cli(*argv)
    assert rc in (0, 1, 2), (rc, err)
    assert 'Traceback' not in err and 'Traceback' not in out, err
    if rc == 2: assert 'usage:' in err
    if rc == 1:
        lines = err.strip().splitlines()
        if lines:
            assert len(lines) == 1 and lines[0].startswith('scruples: error: '), err
        assert any(str(n) in out + err for n in names) or not names, (names, out, err)
    assert snapshot(folder) == before, 'a file was written'
    return rc, out, err


# --- readers --------------------------------------------------------------------------------------------------------

@FUZZ
@given(name=st.sampled_from(sorted(VALID)), data=st.data())
def test_readers_on_broken_text(name, data):
    raw = data.draw(encoded(data.draw(broken_text(VALID[name]))))
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp)/name; p.write_bytes(raw)
        check_reader(READERS[name], p, raw.count(b'\n') + 1)


@FUZZ
@given(kind=st.sampled_from(['dilemmas', 'anecdotes']), data=st.data(), where=st.integers(0, 2))
def test_jsonl_readers_on_mutated_records(kind, data, where):
    base = DILEMMA if kind == 'dilemmas' else ANECDOTE
    recs = [dict(base, id=f'r{i}') for i in range(3)]
    recs[where] = data.draw(mutated_record(recs[where]))
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp)/f'x.scruples-{kind}.jsonl'
        p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
        out = check_reader(sd.read_dilemmas if kind == 'dilemmas' else sd.read_anecdotes, p, 3)
        if out is not None: assert len(out) == 3 and out.id.is_unique


@FUZZ
@given(rows=st.lists(st.lists(JSON_VALUES | st.integers(-5, 2**64), min_size=0, max_size=6), min_size=0, max_size=6))
def test_count_readers_on_any_json_list(rows):
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp)/'c.json'; p.write_text(json.dumps(rows))
        for reader in (read_counts, sd.read_label_counts):
            out = check_reader(reader, p, 1)
            if out is not None:
                assert out.dtypes.eq(np.int64).all() and (out.to_numpy() >= 0).all() and out.shape[1] >= 2


@FUZZ
@given(cells=st.lists(st.lists(st.text(st.characters(blacklist_categories=('Cs',)), max_size=5)
                               | st.integers(-3, 2**64).map(str), min_size=1, max_size=5), min_size=1, max_size=6))
def test_csv_counts_reader_on_any_cells(cells):
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp)/'c.csv'
        text = '\n'.join(','.join(r) for r in cells)
        p.write_text(text, encoding='utf-8', errors='surrogatepass')
        # lines as the reader counts them: a lone \r ends a row too (hypothesis drew '1,0\r,,0': an error on line 2)
        out = check_reader(read_counts, p, len(re.split(r'\r\n|\r|\n', text)))
        if out is not None: assert out.dtypes.eq(np.int64).all() and out.shape[1] >= 2


@FUZZ
@given(text=st.text(max_size=40), n=st.integers(1, 5), k=st.integers(2, 4))
def test_labels_reader(text, n, k):
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp)/'labels.txt'; p.write_text(text, encoding='utf-8', errors='surrogatepass')
        try: y = sd.read_labels(p, n_examples=n, n_classes=k)
        except ScruplesDataError as err: assert err.path == str(p)
        else: assert len(y) == n and y.min() >= 0 and y.max() < k


@pytest.mark.parametrize('reader', [sd.read_dilemmas, sd.read_anecdotes, sd.read_label_counts, read_counts, sd.read_labels])
def test_readers_on_folders_and_missing_paths(tmp_path, reader):
    d = tmp_path/'x.json'; d.mkdir()
    with pytest.raises(IsADirectoryError) as ei: reader(d)
    assert ei.value.filename == str(d)
    with pytest.raises(FileNotFoundError) as ei: reader(tmp_path/'nope.csv')
    assert ei.value.filename == str(tmp_path/'nope.csv')


# --- commands -------------------------------------------------------------------------------------------------------

class HashEncoder:
    "A stand-in sentence encoder: a fixed random vector per text (no model download, milliseconds)."
    model_name = 'hash-encoder'
    def __call__(self, texts):
        return np.stack([np.random.default_rng(abs(hash(t)) % 2**32).normal(size=16) for t in texts])


@pytest.fixture
def stand_ins(monkeypatch):
    import scruples.mcm as mcm, scruples.verbs as verbs
    monkeypatch.setattr(mcm, '_DEFAULT_ENCODER', HashEncoder())
    class FirstWord:
        def __init__(self, *a, **k): pass
        def __call__(self, texts): return [t.split()[0].lower() if t.split() else None for t in texts]
    monkeypatch.setattr(verbs, 'RootVerbs', FirstWord)


@FUZZ
@given(name=st.sampled_from(sorted(VALID)), data=st.data(), cmd=st.sampled_from(['validate', 'best', 'verbs']))
def test_file_commands_on_broken_files(stand_ins, name, data, cmd):
    raw = data.draw(encoded(data.draw(broken_text(VALID[name]))))
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp)/name; p.write_bytes(raw)
        argv = {'validate': ['data', 'validate', p], 'best': ['best', p, '--samples', '50', '--bootstrap', '10'],
                'verbs': ['verbs', p, '--samples', '20']}[cmd]
        rc, out, err = check_cli(Path(tmp), argv, [name])
        if cmd == 'validate' and rc == 0: assert check_reader(READERS[name], p, raw.count(b'\n') + 1) is not None


@FUZZ
@given(data=st.data(), labels=st.lists(st.integers(-2, 4) | st.sampled_from(['x', '1.0', '', '2**63']), max_size=5),
       as_json=st.booleans())
def test_best_with_bad_labels(data, labels, as_json):
    with tempfile.TemporaryDirectory() as tmp:
        c = Path(tmp)/'counts.csv'; c.write_text(VALID['counts.csv'])
        y = Path(tmp)/'y.txt'
        y.write_text(json.dumps(labels) if as_json else '\n'.join(map(str, labels)))
        check_cli(Path(tmp), ['best', c, '--labels', y, '--samples', '50', '--bootstrap', '0'], ['y.txt', 'counts.csv'])


@FUZZ
@given(data=st.data())
def test_user_study_on_broken_csv(stand_ins, data):
    text = data.draw(broken_text('Action,Yes,No\nsmile,40,3\nkill people,2,50\nhelp,30,10\n'))
    with tempfile.TemporaryDirectory() as tmp:
        p, q = Path(tmp)/'study.csv', Path(tmp)/'questions.csv'
        p.write_bytes(data.draw(encoded(text)))
        q.write_text('action,question\nsmile,Should I smile?\nkill people,Should I kill people?\nhelp,Should I help?\n')
        check_cli(Path(tmp), ['mcm', 'user-study', p, '--questions', q], ['study.csv', 'questions.csv'])


@FUZZ
@given(actions=st.lists(st.text(max_size=8), min_size=1, max_size=3), mode=st.sampled_from(['questions', 'raw', 'bare', 'x']))
def test_mcm_score_on_any_actions(stand_ins, actions, mode):
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err = check_cli(Path(tmp), ['mcm', 'score', '--mode', mode, '--', *actions])
        if mode == 'x': assert rc == 2


NUMBERS = st.sampled_from(['0', '-1', '1', '2', '1.5', 'nan', 'inf', '-inf', '1e3', 'x', '', '99999999999999999999999', '0x10', ' 3'])


@FUZZ
@given(option=st.sampled_from([('best', '--samples'), ('best', '--bootstrap'), ('best', '--seed'), ('verbs', '--alpha'),
                               ('verbs', '--samples')]),
       value=NUMBERS)
def test_option_values(stand_ins, option, value):
    with tempfile.TemporaryDirectory() as tmp:
        cmd, opt = option
        argv = {'best': ['best', Path(tmp)/'counts.csv', '--samples', '50', '--bootstrap', '0'],
                'verbs': ['verbs', Path(tmp)/'dev.scruples-dilemmas.jsonl', '--samples', '20']}[cmd] + [opt, value]
        (Path(tmp)/'counts.csv').write_text(VALID['counts.csv'])
        (Path(tmp)/'dev.scruples-dilemmas.jsonl').write_text(VALID['dev.scruples-dilemmas.jsonl'])
        rc, out, err = check_cli(Path(tmp), argv)
        assert rc in (0, 2), err  # a value is accepted or refused as a usage error, never half-way


@pytest.mark.parametrize('value', ['0', '-1', '1.5', 'nan', '', 'x', '1e3', '99999999999999999999999', '0x10'])
@pytest.mark.parametrize('opt', ['--synthetic-size', '--seed'])
def test_stats_option_values(tmp_path, opt, value):  # `data stats` with a valid value runs for half a minute: only refusals here
    if opt == '--seed' and value in ('0', '99999999999999999999999'): return
    rc, out, err = check_cli(tmp_path, ['data', 'stats', '--data-dir', tmp_path, opt, value])
    assert rc == 2 and f'argument {opt}: expected an integer' in err


@pytest.mark.parametrize('argv', [
    ['data', 'validate', '{d}'], ['best', '{d}'], ['verbs', '{d}'], ['mcm', 'user-study', '{d}'],
    ['mcm', 'user-study', '{f}', '--questions', '{d}'], ['best', '{f}', '--labels', '{d}'],
    ['data', 'locate', '--data-dir', '{m}'], ['data', 'stats', '--data-dir', '{m}'], ['best', '{m}'], ['verbs', '{m}'],
    ['data', 'fetch', '--dest', '{f}', '--which', 'anecdotes', '--url', 'anecdotes=http://127.0.0.1:9/a.tar.gz'],
    ['data', 'fetch', '--url', 'anecdotes', '--dest', '{d}'], ['data', 'fetch', '--url', 'nothing=http://x', '--dest', '{d}', '--no-progress'],
    ['reproduce', '--out', '{f}', '--fig-dir', '{d}'], ['reproduce', '--notebooks', 'no-such-notebook', '--out', '{d}'],
    ['reproduce', '--kernel', 'no-such-kernel', '--out', '{d}'], ['best', '{f}', '--metric', 'auc'], [], ['nope'],
])
def test_paths_and_options(stand_ins, tmp_path, argv):
    d = tmp_path/'folder.csv'; d.mkdir()
    f = tmp_path/'file.csv'; f.write_text('Action,Yes,No\nsmile,3,1\n')
    m = tmp_path/'missing.json'
    argv = [a.format(d=d, f=f, m=m) for a in argv]
    rc, out, err = check_cli(tmp_path, argv, [x for x in argv if str(tmp_path) in x or x.startswith('no-such')])
    assert rc in (1, 2), (rc, out, err)


# --- size: linear time ------------------------------------------------------------------------------------------------

def test_ten_megabytes_validate_in_seconds(tmp_path):
    "A 10 MB label-counts file with an error on its last line, and a 10 MB Dilemmas file, each validated in seconds."
    n = 10_000_000 // len('[3, 2],\n')
    p = tmp_path/'big.json'
    p.write_text('[\n' + '[3, 2],\n' * n + '[3, -2]\n]\n')
    # CPU seconds of this process, not wall-clock: a loaded machine (the whole suite on 2 cores) stretches the
    # wall clock several times; the bound only tells linear (seconds) from the old quadratic reader (hours)
    t0 = time.process_time(); rc, out, err = cli('data', 'validate', '--json', p); dt = time.process_time() - t0
    assert rc == 1 and json.loads(out)[0]['error'].startswith(f'{p}:{n + 2}: field ')
    assert dt < 60, f'{dt:.1f} CPU s for 10 MB'  # about 3 s here; the quadratic reader took hours

    line = json.dumps(DILEMMA) + '\n'
    q = tmp_path/'big.scruples-dilemmas.jsonl'
    m = 10_000_000 // len(line)
    q.write_text(''.join(line.replace('"d1"', f'"d{i}"', 1) for i in range(m)))
    t0 = time.perf_counter(); rc, out, err = cli('data', 'validate', '--json', q); dt = time.perf_counter() - t0
    assert rc == 0 and json.loads(out)[0]['items'] == m
    assert dt < 90, f'{dt:.1f} s for 10 MB'


# ================================================================================================================
# API contracts (issue 22, H5): inputs validated before any work starts; no NaN and no broadcast returned as an answer
# ================================================================================================================
from scruples.metrics import accuracy, macro_f1, total_variation, xentropy

API = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@API
@given(k=st.integers(1, 5), n_true=st.integers(0, 6), n_pred=st.integers(0, 6), data=st.data(), batch=st.booleans())
def test_label_metrics_refuse_or_answer_exactly(k, n_true, n_pred, data, batch):
    "Class indices outside [0, k) and mismatched lengths are refused; otherwise accuracy and macro F1 equal scikit-learn's."
    from sklearn.metrics import f1_score
    y = np.array(data.draw(st.lists(st.integers(-1, k), min_size=n_true, max_size=n_true)), dtype=np.int64)
    p = np.array(data.draw(st.lists(st.integers(-1, k), min_size=n_pred, max_size=n_pred)), dtype=np.int64)
    pp = np.stack([p, p[::-1]]) if batch else p
    valid = n_true == n_pred > 0 and y.min() >= 0 and p.min() >= 0 and y.max() < k and p.max() < k
    for f in (accuracy, macro_f1):
        if not valid:
            with pytest.raises(ValueError): f(y, pp, k=k)
            continue
        got = np.atleast_1d(f(y, pp, k=k))
        want = [(y == q).mean() if f is accuracy else f1_score(y, q, average='macro', zero_division=0) for q in np.atleast_2d(pp)]
        np.testing.assert_allclose(got, want, atol=1e-12)


@API
@given(n1=st.integers(1, 4), n2=st.integers(1, 4), k1=st.integers(2, 4), k2=st.integers(2, 4), data=st.data())
def test_distribution_metrics_never_broadcast(n1, n2, k1, k2, data):
    "xentropy and total_variation score one prediction per example: other shapes are refused, never broadcast."
    c = np.array(data.draw(st.lists(st.lists(st.integers(0, 5), min_size=k1, max_size=k1), min_size=n1, max_size=n1)))
    prob = np.random.default_rng(n1 * 10 + k2).dirichlet(np.ones(k2), n2)
    valid = n1 == n2 and k1 == k2 and (c.sum(1) > 0).all()
    for f in (xentropy, total_variation):
        if not valid:
            with pytest.raises(ValueError): f(c, prob)
        else:
            v = f(c, prob, per_example=True)
            assert v.shape == (n1,) and not np.isnan(v).any()


SMALL_COUNTS = st.integers(1, 5).flatmap(lambda n: st.integers(2, 4).flatmap(
    lambda k: st.lists(st.lists(st.integers(-1, 6), min_size=k, max_size=k), min_size=n, max_size=n)))
METRICS = st.one_of(st.sampled_from(['accuracy', 'macro_f1', 'xentropy', 'acc', 'a', '']),
                    st.lists(st.sampled_from(['accuracy', 'macro_f1', 'xentropy', 'kappa']), max_size=3))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(counts=SMALL_COUNTS, metrics=METRICS, n_samples=st.integers(-1, 30), n_boot=st.sampled_from([-1, 0, 1, 3, 9, 10, 12]),
       level=st.sampled_from([0.9, 0.0, 1.0, float('nan')]), seed=st.sampled_from([0, 7, -1, 'x', 1.5]))
def test_best_checks_everything_before_fitting_and_returns_no_nan(monkeypatch, counts, metrics, n_samples, n_boot, level, seed):
    import scruples.best as sb
    ms = [metrics] if isinstance(metrics, str) else metrics
    c = np.array(counts)
    args_ok = (ms and all(m in ('accuracy', 'macro_f1', 'xentropy') for m in ms) and n_samples >= 1
               and len(set(ms)) == len(ms)  # a metric asked for twice is refused (each is estimated once)
               and (n_boot == 0 or n_boot >= 10)  # fewer resamples give a point for an interval: refused
               and 0 < level < 1 and isinstance(seed, int) and seed >= 0)
    counts_ok = (c >= 0).all() and (c.sum(1) > 0).all()
    fitted = []
    real_fit = sb._fit_prior
    monkeypatch.setattr(sb, '_fit_prior', lambda x: fitted.append(1) or real_fit(x))
    try:
        res = sb.best(c, metrics=metrics, n_samples=n_samples, n_boot=n_boot, level=level, seed=seed)
    except (ValueError, TypeError):
        assert not (args_ok and counts_ok) or fitted, 'valid input refused'
        if not args_ok: assert not fitted, 'a bad argument was found only after the prior was fitted'
        return
    except Warning: return  # a degenerate fit warns (the command line turns it into an error)
    assert args_ok and counts_ok
    assert list(res.index) == ms and res.estimate.notna().all() and res.std_error.notna().all() or n_samples == 1
    assert ((res.estimate >= 0) & ((res.index == 'xentropy') | (res.estimate <= 1))).all()


@settings(max_examples=15, deadline=None)
@given(others=st.lists(st.sampled_from(['accuracy', 'xentropy']), max_size=2, unique=True), first=st.booleans(), seed=st.integers(0, 2**32))
def test_a_metric_estimate_does_not_depend_on_the_other_metrics(others, first, seed):
    from scruples.best import best
    c = np.array([[3, 1, 1], [0, 4, 1], [2, 2, 1], [1, 0, 4]])
    ms = ['macro_f1', *others] if first else [*others, 'macro_f1']
    a = best(c, metrics=ms, n_samples=100, n_boot=10, seed=seed).loc['macro_f1']
    b = best(c, metrics='macro_f1', n_samples=100, n_boot=10, seed=seed).loc['macro_f1']
    pd.testing.assert_series_equal(a, b)


@settings(max_examples=10, deadline=None)
@given(k=st.integers(33, 70), scale=st.sampled_from([0.2, 2.0, 50.0]), seed=st.integers(0, 1000))
def test_many_class_argmax_probabilities_agree_with_the_exact_quadrature(k, scale, seed):
    import scruples.best as sb
    a = np.random.default_rng(seed).gamma(1, scale, (2, k)) + 0.05
    fast = sb.posterior_argmax_probs(a)
    old = sb._EXACT_K
    try:
        sb._EXACT_K = 10**6
        exact = sb.posterior_argmax_probs(a)
    finally: sb._EXACT_K = old
    np.testing.assert_allclose(fast, exact, atol=2e-6)


@API
@given(selectors=st.lists(st.text(st.characters(codec='ascii', exclude_categories=('Cc',)), min_size=0, max_size=6)
                          | st.sampled_from(['01', '1', '05', '05_baselines', '05_baselines.ipynb', 's', 'ipynb', 'main']), min_size=1, max_size=3))
def test_notebook_selection_is_exact(selectors):
    from scruples.reproduce import select_notebooks
    nbs = [Path(f'/x/nbs/papers/{s}.ipynb') for s in ('01_dataset_statistics', '05_baselines', '07_extraction')]
    def names(s):
        s = s.strip()
        return {p for p in nbs if s in (p.name, p.stem) or (s.isdigit() and int(p.stem[:2]) == int(s))}
    if all(names(s) for s in selectors):
        assert set(select_notebooks(nbs, selectors)) == set().union(*map(names, selectors))
    else:
        with pytest.raises(ValueError, match='no paper notebook is named'): select_notebooks(nbs, selectors)


@API
@given(picks=st.lists(st.integers(0, 2), min_size=1, max_size=4))
def test_pooled_dilemmas_refuse_any_record_seen_twice(picks):
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for j in range(3):
            f = Path(tmp)/f'f{j}.scruples-dilemmas.jsonl'
            f.write_text(''.join(json.dumps(dict(DILEMMA, id=f'{j}-{i}')) + '\n' for i in range(2)))
            files.append(f)
        chosen = [files[i] for i in picks]
        if len(set(picks)) < len(picks):
            with pytest.raises(ScruplesDataError, match='has the same one'): sd.read_pooled(chosen)
        else: assert len(sd.read_pooled(chosen)) == 2 * len(picks)


@API
@given(k=st.integers(1, 7), kind=st.sampled_from(['dilemmas', 'anecdotes', 'plain']), n=st.integers(1, 3), zero_at=st.none() | st.integers(0, 2))
def test_label_counts_width_follows_the_file_name(k, kind, n, zero_at):
    rows = [[1] * k for _ in range(n)]
    if zero_at is not None and zero_at < n: rows[zero_at] = [0] * k
    name = {'dilemmas': 'dev.scruples-dilemmas_label-counts.json', 'anecdotes': 'dev.scruples-anecdotes_label-counts.json',
            'plain': 'counts.scruples-x.json'}[kind]
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp)/name; p.write_text(json.dumps(rows))
        ok = k == {'dilemmas': 2, 'anecdotes': 5}.get(kind, k) and k in (2, 5) and (zero_at is None or zero_at >= n)
        if ok: assert sd.read_label_counts(p).shape == (n, k)
        else:
            with pytest.raises(ScruplesDataError) as ei: sd.read_label_counts(p)
            assert ei.value.path == str(p) and ei.value.line is not None


@API
@given(answers=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)).filter(lambda t: sum(t) > 0), min_size=1, max_size=5))
def test_user_study_needs_three_actions_with_different_rates(answers):
    from scruples.mcm import check_study
    study = pd.DataFrame({'action': [f'act {i}' for i in range(len(answers))], 'yes': [a for a, _ in answers], 'no': [b for _, b in answers]})
    study['human'] = study.yes / (study.yes + study.no)
    study.attrs['path'] = 'my_study.csv'
    if len(study) >= 3 and study.human.nunique() > 1: assert check_study(study) is study
    else:
        with pytest.raises(ScruplesDataError, match='my_study.csv'): check_study(study)


@API
@given(extra=st.integers(-3, 3))
def test_root_verbs_refuse_long_texts_before_parsing(extra):
    from scruples.verbs import MAX_ACTION_CHARS, RootVerbs
    class NoParse:
        def pipe(self, texts, batch_size=1): raise AssertionError('parsed')
    text = 'a' * (MAX_ACTION_CHARS + extra)
    if extra > 0:
        with pytest.raises(ValueError, match='characters'): RootVerbs(nlp=NoParse())([text])
    else:
        with pytest.raises(AssertionError, match='parsed'): RootVerbs(nlp=NoParse())([text])


# --- extraction: interrupted runs and overlapping inputs (issue 22) ---------------------------------------------------

from scruples import extraction as _ex
from scruples.dumps import GOLD_DIR as _GOLD, open_dump as _open_dump

_RS, _RC = _GOLD/'RS_sample.zst', _GOLD/'RC_sample.zst'
_EXTRACTION = {}


def _reference():
    "The uninterrupted one-process result on the shipped sample (computed once)."
    if not _EXTRACTION: _EXTRACTION['ref'] = _ex.extract_anecdotes(_RS, _RC, warn=False)
    return _EXTRACTION['ref']


def _dump_lines(path) -> list[bytes]:
    with _open_dump(path) as f: return [l for l in f.read().splitlines() if l.strip()]


class _Killed(BaseException):
    "The process dies here (a BaseException, as KeyboardInterrupt or a kill would end it)."


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(where=st.sampled_from(['parse_post', 'parse_comment', 'replace']), at=st.integers(0, 1600), parts=st.integers(1, 3),
       twice=st.booleans())
def test_extraction_killed_at_a_random_point_then_rerun(where, at, parts, twice):
    "A run killed while parsing or while renaming a partition/report/output, then rerun: the uninterrupted result, record for record."
    recs, rep = _reference()
    at = at % {'parse_post': 125, 'parse_comment': 1500, 'replace': 14}[where]  # mostly inside the run, sometimes after it
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)/'run'
        calls = [0]
        real = {'parse_post': _ex.parse_post, 'parse_comment': _ex.parse_comment, 'replace': os.replace}[where]
        def dying(*a, **k):
            calls[0] += 1
            if calls[0] > at: raise _Killed
            return real(*a, **k)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(*((os, 'replace', dying) if where == 'replace' else (_ex, where, dying)))
            try:
                _ex.extract_dask(_RS, _RC, out, scheduler='sync', parts=parts, warn=False)
                killed = False
            except _Killed: killed = True
        if killed:  # an interrupted run leaves no half anecdotes file, nor a partition without its report, and a
            # report only where the run had written everything (killed at the manifest's last update, after the report)
            if (out/'anecdotes.jsonl').exists(): assert (out/'anecdotes.jsonl').read_text().count('\n') == len(recs)
            assert not (out/'report.json').exists() or (out/'anecdotes.jsonl').exists() and where == 'replace'
        for _ in range(2 if twice else 1):
            got, grep = _ex.extract_dask(_RS, _RC, out, scheduler='sync', parts=parts, warn=False)
            assert got == recs and grep.counts == rep.counts
        assert not [p for p in out.rglob('*.tmp')]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), n_files=st.integers(1, 3), same_twice=st.booleans(), dask=st.booleans())
def test_extraction_overlapping_inputs(data, n_files, same_twice, dask):
    "Comments split into files that overlap (and a file named twice): the anecdotes of the whole, record for record."
    recs, _ = _reference()
    lines = _dump_lines(_RC)
    cuts = sorted(data.draw(st.lists(st.integers(1, len(lines) - 1), min_size=n_files - 1, max_size=n_files - 1, unique=True)))
    bounds = list(zip([0] + cuts, cuts + [len(lines)]))
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for i, (a, b) in enumerate(bounds):
            a = max(0, a - data.draw(st.integers(0, 200))); b = min(len(lines), b + data.draw(st.integers(0, 200)))
            files.append(Path(tmp)/f'RC_{i}.jsonl'); files[-1].write_bytes(b''.join(l + b'\n' for l in lines[a:b]))
        if same_twice: files.append(files[0])
        posts = [_RS, _RS] if same_twice else _RS
        if dask: got, rep = _ex.extract_dask(posts, files, Path(tmp)/'run', scheduler='sync', parts=2, warn=False)
        else: got, rep = _ex.extract_anecdotes(posts, files, warn=False)
        assert got == recs
        assert rep.counts[('vote', 'counted')] == _reference()[1].counts[('vote', 'counted')]
