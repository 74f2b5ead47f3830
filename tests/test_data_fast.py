"""The readers' fast path (msgspec + numpy, whole file) against the line-by-line reader: the same frame, dtypes
included, on any valid file; on anything the line-by-line reader refuses, the fast path refuses too (and the reader
then raises the line-by-line error)."""
import json
from functools import partial

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import scruples.core as sco
import scruples.annotations as ann
import scruples.data as sd

FAST = settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
TEXT = st.text(st.characters(blacklist_categories=('Cs',), blacklist_characters='\u2028\u2029\x85'), max_size=12)
COUNT = st.one_of(st.integers(0, 10), st.integers(0, 2**62))


def majority(c): return st.sampled_from([0, 1]) if c[0] == c[1] else st.just(int(c[1] > c[0]))


@st.composite
def dilemma(draw):
    gold = [draw(COUNT), draw(COUNT)]
    rec = {'id': draw(TEXT), 'actions': [{'id': draw(TEXT), 'description': draw(TEXT)} for _ in range(2)],
           'gold_annotations': gold, 'gold_label': draw(majority(gold)), 'controversial': min(gold) > 0}
    human = draw(st.sampled_from(['present', 'absent', 'null', 'counts only']))
    if human in ('present', 'counts only'):
        hum = [draw(COUNT), draw(COUNT)]
        rec['human_perf_annotations'] = hum
        if human == 'present': rec['human_perf_label'] = draw(majority(hum))
    elif human == 'null': rec.update(human_perf_annotations=None, human_perf_label=None)
    return rec


@st.composite
def anecdote(draw):
    s = {k: draw(COUNT) for k in sd.ANECDOTES_LABELS}
    rec = {'id': draw(TEXT), 'post_id': draw(TEXT), 'title': draw(TEXT), 'text': draw(TEXT),
           'post_type': draw(st.sampled_from(sd.POST_TYPES)), 'label_scores': s, 'label': draw(st.sampled_from(sd.ANECDOTES_LABELS)),
           'binarized_label_scores': {'RIGHT': s['OTHER'] + s['NOBODY'], 'WRONG': s['AUTHOR'] + s['EVERYBODY']},
           'binarized_label': draw(st.sampled_from(sd.BINARIZED_LABELS))}
    act = draw(st.sampled_from(['present', 'absent', 'null']))
    if act == 'present': rec['action'] = {'description': draw(TEXT), 'pronormative_score': draw(COUNT), 'contranormative_score': draw(COUNT)}
    elif act == 'null': rec['action'] = None
    return rec


def slow(monkeypatch, read, path):
    "`read(path)` with every fast path switched off."
    with monkeypatch.context() as m:
        m.setattr(sd, '_fast_or_none', lambda f, p: None)
        m.setattr(sd, '_json_counts_fast', lambda p, k: None)
        m.setattr(ann, '_counts_fast', lambda body, k, *where: None)
        return read(path)


def refused_alike(monkeypatch, fast, read, path) -> bool:
    """True when the line-by-line reader refuses `path` (counts drawn up to 2**62 can sum past 2**63 - 1), after checking
    that the fast path refuses it too and the reader raises the line-by-line error; False when the file is valid."""
    try: slow(monkeypatch, read, path)
    except sco.ScruplesDataError as err: expected = str(err)
    else: return False
    assert sd._fast_or_none(fast, path) is None
    with pytest.raises(sco.ScruplesDataError) as got: read(path)
    assert str(got.value) == expected
    return True


def jsonl(recs, blank, crlf):
    end = '\r\n' if crlf else '\n'
    return (end * 2 if blank else end).join(json.dumps(r, ensure_ascii=False) for r in recs) + end


@FAST
@given(recs=st.lists(dilemma(), min_size=1, max_size=6, unique_by=lambda r: r['id']), blank=st.booleans(), crlf=st.booleans())
def test_dilemmas_fast_equals_slow(tmp_path, monkeypatch, recs, blank, crlf):
    p = tmp_path/'x.scruples-dilemmas.jsonl'; p.write_text(jsonl(recs, blank, crlf), encoding='utf-8', newline='')
    if refused_alike(monkeypatch, sd._dilemmas_fast, sd.read_dilemmas, p): return
    fast = sd._dilemmas_fast(p)  # raises if the fast path refused a valid file
    pd.testing.assert_frame_equal(fast, slow(monkeypatch, sd.read_dilemmas, p)); assert fast.attrs == sd.read_dilemmas(p).attrs


@FAST
@given(recs=st.lists(anecdote(), min_size=1, max_size=6, unique_by=lambda r: r['id']), blank=st.booleans(), crlf=st.booleans())
def test_anecdotes_fast_equals_slow(tmp_path, monkeypatch, recs, blank, crlf):
    p = tmp_path/'x.scruples-anecdotes.jsonl'; p.write_text(jsonl(recs, blank, crlf), encoding='utf-8', newline='')
    if refused_alike(monkeypatch, sd._anecdotes_fast, sd.read_anecdotes, p): return
    fast = sd._anecdotes_fast(p)  # raises if the fast path refused a valid file
    pd.testing.assert_frame_equal(fast, slow(monkeypatch, sd.read_anecdotes, p))



def test_binarized_scores_past_int64_are_refused_by_both_paths(tmp_path, monkeypatch):
    "Two counts of 2**62 sum to 2**63: the fast path raised OverflowError where the test expected a frame (hypothesis found it)."
    rec = {'id': '0', 'post_id': '', 'title': '', 'text': '', 'post_type': 'HISTORICAL', 'label': 'AUTHOR',
           'label_scores': {'AUTHOR': 2**62, 'OTHER': 0, 'EVERYBODY': 2**62, 'NOBODY': 0, 'INFO': 0},
           'binarized_label_scores': {'RIGHT': 0, 'WRONG': 2**63}, 'binarized_label': 'RIGHT'}
    p = tmp_path/'x.scruples-anecdotes.jsonl'; p.write_text(jsonl([rec], False, False), encoding='utf-8')
    assert refused_alike(monkeypatch, sd._anecdotes_fast, sd.read_anecdotes, p)

ROWS = st.integers(2, 6).flatmap(lambda k: st.lists(st.lists(st.integers(0, 10**17), min_size=k, max_size=k), min_size=1, max_size=20))


def outcome(read, path):
    "What reading `path` gives: the counts and classes, or the error message."
    try: d = read(path); return d.counts.tolist(), d.classes, d.report, list(d.items)
    except sco.ScruplesDataError as err: return str(err)


@FAST
@given(rows=ROWS, header=st.booleans(), crlf=st.booleans(), trailing=st.booleans())
def test_counts_csv_fast_equals_slow(tmp_path, monkeypatch, rows, header, crlf, trailing):
    "The one reader's bulk CSV path (pandas' C parser) gives what the record-by-record path gives, errors included (all-zero rows)."
    end = '\r\n' if crlf else '\n'
    head = [','.join(f'c{j}' for j in range(len(rows[0])))] if header else []
    p = tmp_path/'x.csv'; p.write_text(end.join(head + [','.join(map(str, r)) for r in rows]) + (end if trailing else ''), newline='')
    body = p.read_bytes().partition(b'\n')[2] if header else p.read_bytes()
    assert ann._counts_fast(body, len(rows[0])) is not None
    assert outcome(ann.read_annotated, p) == outcome(lambda q: slow(monkeypatch, ann.read_annotated, q), p)


@FAST
@given(rows=ROWS, indent=st.sampled_from([None, 1]))
def test_counts_json_fast_equals_slow(tmp_path, monkeypatch, rows, indent):
    p = tmp_path/'x.json'; p.write_text(json.dumps(rows, indent=indent))
    assert sd._json_counts_fast(p, None) is not None
    read = partial(sd.read_count_lists, allow_zero_rows=True)     # the generated rows may be all zero (refused by default, by both paths)
    fast, lento = read(p), slow(monkeypatch, read, p)
    assert fast[0].tolist() == lento[0].tolist() and fast[1] == lento[1]
    if len(rows[0]) in (2, 5):  # the Scruples format: 5 or 2 counts per row
        read = partial(sd.read_label_counts, allow_zero_rows=True)
        pd.testing.assert_frame_equal(read(p), slow(monkeypatch, read, p))


GOOD_D = {'id': 'd1', 'actions': [{'id': 'a', 'description': 'x'}, {'id': 'b', 'description': 'y'}],
          'gold_annotations': [1, 4], 'gold_label': 1, 'controversial': True, 'human_perf_annotations': [3, 2], 'human_perf_label': 0}
BAD_D = [dict(GOOD_D, gold_label=0), dict(GOOD_D, gold_label=True), dict(GOOD_D, gold_label=2), dict(GOOD_D, controversial=False),
         dict(GOOD_D, controversial=1), dict(GOOD_D, human_perf_label=1), dict(GOOD_D, gold_annotations=[2**63, 0]),
         dict(GOOD_D, gold_annotations=[2**62, 2**62]), dict(GOOD_D, gold_annotations=[-1, 4]), dict(GOOD_D, gold_annotations=[1, 4.5]),
         dict(GOOD_D, id=1), dict(GOOD_D, id='d0'), dict(GOOD_D, actions=GOOD_D['actions'][:1]),
         {k: v for k, v in GOOD_D.items() if k != 'human_perf_annotations'}, {k: v for k, v in GOOD_D.items() if k != 'controversial'}]


@pytest.mark.parametrize('bad', BAD_D)
def test_dilemmas_fast_refuses_what_slow_refuses(tmp_path, bad):
    p = tmp_path/'x.scruples-dilemmas.jsonl'
    p.write_text(json.dumps(dict(GOOD_D, id='d0')) + '\n' + json.dumps(bad) + '\n')
    assert sd._fast_or_none(sd._dilemmas_fast, p) is None
    with pytest.raises(sco.ScruplesDataError, match=r':2: '): sd.read_dilemmas(p)


@pytest.mark.parametrize('text', ['a,b\n1,2\n3,-1\n', 'a,b\n1,2\n3,\n', 'a,b\n1,2\n3\n', 'a,b\n1,2,3\n', 'a,b\n1, 2\n1,x\n',
                                  'a,b\n9223372036854775807,1\n', 'a,b\n99999999999999999999,0\n', 'a,b\n1,2\r3\n'])
def test_counts_csv_fast_refuses_what_slow_refuses(tmp_path, text):
    p = tmp_path/'x.csv'; p.write_bytes(text.encode())
    assert ann._counts_fast(text.encode().partition(b'\n')[2], 2) is None
    with pytest.raises(sco.ScruplesDataError): ann.read_annotated(p)


def test_whole_number_floats_read_the_same_in_every_format(tmp_path):
    "Issue 28: '2.0' is a count in every file (it was refused in a plain counts CSV), and 4.0 in the Scruples JSON too."
    (tmp_path/'a.csv').write_text('a,b\n2.0,1\n'); (tmp_path/'b.csv').write_text('id,a,b\nx,2.0,1\n')
    (tmp_path/'c.json').write_text('[[2.0, 1]]')
    for f in ('a.csv', 'b.csv', 'c.json'): assert ann.read_annotated(tmp_path/f).counts.tolist() == [[2, 1]], f
    p = tmp_path/'x.scruples-dilemmas.jsonl'; p.write_text(json.dumps(dict(GOOD_D, gold_annotations=[1, 4.0])) + '\n')
    assert sd.read_dilemmas(p)[['gold_1', 'gold_2']].to_numpy().tolist() == [[1, 4]]


def test_synthetic_words_and_texts_unchanged_by_the_speedup():
    "`_pseudo_words` and `_gibberish` draw exactly as the per-call `rng.choice` / `np.split` versions did (same corpus, same stream)."
    import scruples.synthetic as ssyn
    def pseudo_words(n, rng):
        words = {''.join(rng.choice(ssyn._SYLLABLES, size=k)) for k in (2, 3) for _ in range(3 * n)}
        return np.array(sorted(words))[rng.permutation(len(words))[:n]]
    def gibberish(lengths, rng, vocab):
        p = 1 / np.arange(1, len(vocab) + 1) ** 1.1; p /= p.sum()
        words = vocab[rng.choice(len(vocab), size=int(sum(lengths)), p=p)]
        return [' '.join(ws) for ws in np.split(words, np.cumsum(lengths)[:-1])]
    for seed in (0, 7):
        r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
        v1, v2 = ssyn._pseudo_words(3000, r1), pseudo_words(3000, r2)
        np.testing.assert_array_equal(v1, v2)
        lengths = r1.integers(5, 50, size=200); assert (r2.integers(5, 50, size=200) == lengths).all()
        assert ssyn._gibberish(lengths, r1, v1) == gibberish(lengths, r2, v2)
        assert r1.random() == r2.random()


GOOD_A = {'id': 'a1', 'post_id': 'p1', 'title': 't', 'text': 'x', 'post_type': 'HISTORICAL',
          'action': {'description': 'd', 'pronormative_score': 3, 'contranormative_score': 1},
          'label_scores': {'AUTHOR': 1, 'OTHER': 2, 'EVERYBODY': 0, 'NOBODY': 1, 'INFO': 0}, 'label': 'OTHER',
          'binarized_label_scores': {'RIGHT': 3, 'WRONG': 1}, 'binarized_label': 'RIGHT'}
BAD_A = [dict(GOOD_A, post_type='OTHER'), dict(GOOD_A, label='other'), dict(GOOD_A, binarized_label='LEFT'), dict(GOOD_A, id='a0'),
         dict(GOOD_A, label_scores=dict(GOOD_A['label_scores'], INFO=True)), dict(GOOD_A, label_scores=dict(GOOD_A['label_scores'], INFO=-1)),
         dict(GOOD_A, label_scores={k: v for k, v in GOOD_A['label_scores'].items() if k != 'INFO'}),
         dict(GOOD_A, label_scores=dict(GOOD_A['label_scores'], MAYBE=0)), dict(GOOD_A, binarized_label_scores={'RIGHT': 3, 'WRONG': 2}),
         dict(GOOD_A, binarized_label_scores={'RIGHT': 3, 'WRONG': 1, 'X': 0}), dict(GOOD_A, action={'description': 'd', 'pronormative_score': 2**63, 'contranormative_score': 0}),
         dict(GOOD_A, action={'description': 'd', 'pronormative_score': 1}), dict(GOOD_A, title=None),
         dict(GOOD_A, label_scores=dict(GOOD_A['label_scores'], AUTHOR=2**63 - 1), binarized_label_scores={'RIGHT': 3, 'WRONG': 2**63})]


@pytest.mark.parametrize('bad', BAD_A)
def test_anecdotes_fast_refuses_what_slow_refuses(tmp_path, bad):
    p = tmp_path/'x.scruples-anecdotes.jsonl'
    p.write_text(json.dumps(dict(GOOD_A, id='a0')) + '\n' + json.dumps(bad) + '\n')
    assert sd._fast_or_none(sd._anecdotes_fast, p) is None
    with pytest.raises(sco.ScruplesDataError, match=r':2: '): sd.read_anecdotes(p)


WIDE_TEXT = st.text(st.sampled_from(list('ab ,"\n\r\té07.')), max_size=12)


@FAST
@given(rows=st.lists(st.tuples(st.text('abc/ 07', max_size=3), WIDE_TEXT, st.sampled_from(['train', 'Dev', 'validation', 'test', 'x']),
                               st.lists(st.sampled_from(['0', '1', '2', '3.0', ' 2', '', 'x', '99999999999999999999', '3\n', '+1', '\t4 ',
                                                         '-0', '1e3', '-1', '007', 'True', '2.50', '1000000000000000000']),
                                        min_size=2, max_size=2)),
                     min_size=1, max_size=8),
       crlf=st.booleans())
def test_wide_csv_fast_equals_plain(tmp_path, monkeypatch, rows, crlf):
    """The wide CSV bulk path (pandas' C reader: its own types where counts read as int64 and ids and texts as strings,
    else every cell a string) gives what the record-by-record path gives, errors included ('-0', '1e3', '007' ids)."""
    df = pd.DataFrame([(i, t, s, *c) for i, t, s, c in rows], columns=['id', 'text', 'split', 'yes', 'no'])
    p = tmp_path/'w.csv'; df.to_csv(p, index=False, lineterminator='\r\n' if crlf else '\n')
    def plain(q):
        with monkeypatch.context() as m:
            m.setattr(ann, '_wide_fast', lambda *a: None)
            return ann.read_annotated(q, split='split')
    def out(read):
        try: d = read(p); return d.counts.tolist(), d.classes, d.report, d.items, d.texts, d.splits.tolist()
        except (sco.ScruplesDataError, ValueError) as err: return str(err)
    assert out(lambda q: ann.read_annotated(q, split='split')) == out(plain)


def test_wide_csv_fast_path_is_taken_on_the_guide_data():
    "The shipped guide table (id, text, three count columns) goes the bulk way, and reads as the plain path reads it."
    t = ann._table(ann.guide_data('wide'))
    cols = {'text': 'text', 'context': None, 'split': None}
    c, got = ann._wide_fast(t.body, t.columns, ['acceptable', 'unacceptable', 'unclear'], ['id'], cols)
    d = ann.read_annotated(ann.guide_data('wide'))
    assert c.tolist() == d.counts.tolist() and got['items'] == d.items and got['text'] == d.texts


@pytest.mark.parametrize('text', ['id,a,b\nx,1,2\ny,1,2,3\n', 'id,a,b\nx,1,2,3\ny,1,2\n', 'id,a,b\nx,1\ny,1,2\n', 'id,a,b\nx,1,2\nx,2,1\n',
                                  'id,a,b\nx,1,2\n ,2,1\n', 'id,a,b\nx,0,0\n', 'id,a,b\nx,1,2\ny,3\u0663,1\n', 'id,a,b\nx,1,2\r y,1,1\n',
                                  'id,a,b\nx,1,-0\n', 'id,a,b\nx,1,1e3\n', 'id,a,b\nx,1,-1\n', 'id,a,b\nx,1,True\n',
                                  'id,a,b\nx,1,"3\n"\ny,1,1\n', 'id,a,b\nx,1,"\r\n3"\ny,1,1\n'])
def test_wide_csv_fast_refuses_what_plain_refuses(tmp_path, text):
    """Rows of another length, a repeated or blank id, an item without votes, a non-ASCII digit, a lone CR, counts the C
    reader takes as numbers and the count rule refuses ('-0', '1e3', True): the plain path decides."""
    p = tmp_path/'w.csv'; p.write_bytes(text.encode())
    t = ann._table(p)
    assert ann._wide_fast(t.body, t.columns, ['a', 'b'], ['id'], {'text': None, 'context': None, 'split': None}) is None
    if '\r' not in text:
        with pytest.raises(sco.ScruplesDataError): ann.read_annotated(p)


def test_wide_csv_numeric_ids_keep_their_text(tmp_path):
    """Issue 43: the typed bulk read would take ids 007 and 8 as numbers; they are read as text, as the plain path reads
    them. Issue 39 (the seventieth pass): 007 beside 7 is one number written two ways, refused as 7.0 beside 7 is."""
    p = tmp_path/'w.csv'; p.write_text('id,text,a,b\n007,1.50,1,2\n8,2,2,1\n')
    d = ann.read_annotated(p)
    assert d.items == ['007', '8'] and d.texts == ['1.50', '2'] and d.counts.tolist() == [[1, 2], [2, 1]]
    p.write_text('id,text,a,b\n007,1.50,1,2\n7,2,2,1\n')
    with pytest.raises(sco.ScruplesDataError, match="'007' are one number written two ways"):
        ann.read_annotated(p)


def test_counts_csv_over_pandas_parallel_threshold(tmp_path):
    "Issue 43: a counts CSV of 5 MB or more is parsed from its path (pandas splits it over threads): the same counts."
    rng = np.random.default_rng(0)
    c = rng.integers(10**6, 10**7, (160_000, 5))  # 7 digits a count: over 5 MB in few rows
    p = tmp_path / 'big.csv'
    p.write_text('a,b,c,d,e\n' + '\n'.join(','.join(map(str, r)) for r in c.tolist()) + '\n')
    assert p.stat().st_size > 5 * 2**20
    body = p.read_bytes().partition(b'\n')[2]
    np.testing.assert_array_equal(ann._counts_fast(body, 5, p, 1), c)
    np.testing.assert_array_equal(ann._counts_fast(body, 5), c)  # from the bytes: the same
    np.testing.assert_array_equal(ann.read_annotated(p).counts, c)
