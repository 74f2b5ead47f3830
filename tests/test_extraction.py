"""Extraction from Reddit dumps to Anecdotes: readers, filters, labels, types, actions, records, Dask stage, resume."""
import gzip, json
from pathlib import Path

import pytest
import zstandard
from hypothesis import given, settings, strategies as st

from scruples import dumps, judgments, actions, records, extraction_eval, extraction as ex
from scruples.core import ScruplesDataError
from scruples.data import read_anecdotes, ANECDOTES_LABELS, POST_TYPES

SAMPLE_RS, SAMPLE_RC = dumps.GOLD_DIR/'RS_sample.zst', dumps.GOLD_DIR/'RC_sample.zst'


def _raw(path):
    with dumps.open_dump(path) as f: return f.read()


@pytest.fixture(scope='module')
def reference():
    return ex.extract_anecdotes(SAMPLE_RS, SAMPLE_RC)


def test_constants_match_data_layer():
    assert judgments.LABELS == ANECDOTES_LABELS and actions.POST_TYPES == POST_TYPES


def test_records_are_read_by_the_data_layer(reference, tmp_path):
    recs, rep = reference
    df = read_anecdotes(ex.write_anecdotes(recs, tmp_path/'x.scruples-anecdotes.jsonl'))
    assert len(df) == len(recs) > 20
    assert df.post_id.is_unique and df.id.is_unique
    assert (df[['author', 'other', 'everybody', 'nobody', 'info']].sum(axis=1) >= 1).all()
    assert rep.counts[('anecdote', 'kept')] == len(recs)
    # a broken record is refused by the validator: the test of the schema can fail
    bad = dict(recs[0], binarized_label_scores={'RIGHT': 99, 'WRONG': 0})
    ex.write_anecdotes([bad], tmp_path/'bad.jsonl')
    with pytest.raises(ScruplesDataError): read_anecdotes(tmp_path/'bad.jsonl')


@pytest.mark.parametrize('fmt', ['plain', 'gzip', 'zst'])
def test_formats_stream_the_same_records(tmp_path, fmt):
    raw = _raw(SAMPLE_RC)
    p = tmp_path/f'RC.{fmt}'
    p.write_bytes({'plain': lambda b: b, 'gzip': gzip.compress, 'zst': zstandard.ZstdCompressor().compress}[fmt](raw))
    got = [r['id'] for _, r in dumps.iter_records(p)]
    assert got == [json.loads(l)['id'] for l in raw.splitlines() if l.strip()]


def test_long_window_zstd(tmp_path):
    "The dumps use windows larger than zstandard's default limit: open_dump must read them."
    params = zstandard.ZstdCompressionParameters.from_level(3, window_log=28)
    cctx = zstandard.ZstdCompressor(compression_params=params)
    p = tmp_path/'RC_long.zst'
    with open(p, 'wb') as f, cctx.stream_writer(f) as w: w.write(b'{"id": "a"}\n' * 10)
    with pytest.raises(zstandard.ZstdError):  # the default decompressor refuses the frame
        zstandard.ZstdDecompressor().stream_reader(open(p, 'rb')).read()
    assert [r['id'] for _, r in dumps.iter_records(p)] == ['a'] * 10


def test_malformed_lines_reported_never_raised(tmp_path):
    p = tmp_path/'RC_bad.jsonl'
    p.write_bytes(b'{"id": "a"}\nnot json\n\xff\xfe\n[1]\n\n{"id": "b"}\n')
    errs = []
    assert [r['id'] for _, r in dumps.iter_records(p, errs)] == ['a', 'b']
    assert [(Path(e.path).name, e.line) for e in errs] == [('RC_bad.jsonl', 2), ('RC_bad.jsonl', 3), ('RC_bad.jsonl', 4)]


def test_truncated_zstd_is_reported(tmp_path):
    data = zstandard.ZstdCompressor().compress(b'{"id": "a"}\n' * 5000)
    p = tmp_path/'RC_trunc.zst'; p.write_bytes(data[:len(data) // 2])
    errs = []
    list(dumps.iter_records(p, errs))
    assert errs and 'compressed stream' in errs[-1].reason


@pytest.mark.parametrize('body,label', [
    ('NTA', 'OTHER'), ('YTA.', 'AUTHOR'), ('Y T A', 'AUTHOR'), ('n.t.a.', 'OTHER'), ('ESH!', 'EVERYBODY'), ('NAH', 'NOBODY'),
    ('INFO', 'INFO'), ('info: how old?', 'INFO'), ('YWBTA', 'AUTHOR'), ('YWNBTA', 'OTHER'), ('NTAH', 'OTHER'),
    ("you're the a-hole", 'AUTHOR'), ('not the asshole', 'OTHER'), ('everyone sucks here', 'EVERYBODY'),
    ('evryone sucks here', 'EVERYBODY'), ('everybody sucks hear', 'EVERYBODY'), ('no assholes here', 'NOBODY'),
    ('need more info', 'INFO'), ('NTA but actually ESH', 'EVERYBODY'), ('NTA, YTA', 'OTHER'), ('YTA. Edit: NTA', 'OTHER'),
    ('nah', None), ('the info', None), ('mentally', None), ('yesterday I ate nachos', None), ('', None)])
def test_labels(body, label):
    assert judgments.extract_label(body) == label


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_label_is_a_class_or_none(text):
    assert judgments.extract_label(text) in judgments.LABELS + (None,)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([('NTA', 'OTHER'), ('YTA', 'AUTHOR'), ('ESH', 'EVERYBODY'), ('NAH', 'NOBODY'), ('INFO', 'INFO')]),
       st.text(alphabet='abcdfgjklmopqruvwxz .,!\n', max_size=40), st.text(alphabet='bcdgjklmopqruvwxz .,!\n', max_size=40))
def test_initialism_found_between_unrelated_text(pair, before, after):
    ini, lab = pair
    assert judgments.extract_label(f'{before} {ini} {after}'.replace('hole', '')) == lab


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(['id', 'body', 'author', 'link_id', 'parent_id', 'distinguished', 'created_utc']),
                       st.one_of(st.none(), st.text(max_size=30), st.integers())))
def test_parse_comment_total_on_odd_records(rec):
    out = records.parse_comment(rec)
    assert out['kind'] in ('vote', 'source', 'drop') and (out['kind'] != 'vote' or out['label'] in judgments.LABELS)
    assert records.parse_post({k.replace('body', 'title'): v for k, v in rec.items()}, with_action=False)['kind'] in ('post', 'drop')


@pytest.mark.parametrize('title,typ', [('AITA for x', 'HISTORICAL'), ('A.I.T.A. for x', 'HISTORICAL'), ('AmITA for x', 'HISTORICAL'),
    ('[aita] x', 'HISTORICAL'), ('WIBTA if x', 'HYPOTHETICAL'), ('W.I.B.T.A if', 'HYPOTHETICAL'),
    ('Would I be the asshole if', 'HYPOTHETICAL'), ('Would I be the a-hole if', 'HYPOTHETICAL'), ('META: x', 'META'),
    ('AITAFORX', None), ('Paita for x', None), ('', None)])
def test_post_type(title, typ):
    assert actions.post_type(title) == typ


@pytest.mark.parametrize('title,action', [
    ('AITA for not offering to pick up my friend?', 'not offering to pick up my friend'),
    ('WIBTA if I told my sister about it', 'telling my sister about it'),
    ("WIBTA if I don't go to the party?", 'not going to the party'),
    ('AITA because I lied to my boss', 'lying to my boss'),
    ('AITA? long story', None), ('AITA for my behavior', None), ('My sister', None)])
def test_actions(title, action):
    assert actions.extract_action(title) == action


def test_filters_and_tally():
    base = {'link_id': 't3_p', 'parent_id': 't3_p', 'created_utc': 1}
    cs = [dict(base, id='1', author='u', body='NTA'), dict(base, id='2', author='u', body='YTA', created_utc=2),
          dict(base, id='3', author='v', body='ESH'), dict(base, id='4', author='[deleted]', body='NTA'),
          dict(base, id='5', author='[deleted]', body='NTA'), dict(base, id='6', author='w', body='NTA', parent_id='t1_1'),
          dict(base, id='7', author='AutoModerator', body='NTA'), dict(base, id='8', author='m', body='YTA', distinguished='moderator')]
    parsed = [records.parse_comment(c) for c in cs]
    assert [p['reason'] for p in parsed[5:]] == ['not_top_level', 'bot', 'moderator']
    assert ex.tally(parsed) == {'p': {'OTHER': 3, 'EVERYBODY': 1}}  # u votes once (earliest); [deleted] each count


def test_evaluation_harness_regression():
    ev = extraction_eval.evaluate_extraction()
    assert len(extraction_eval.read_gold('comments')) >= 150 and len(extraction_eval.read_gold('titles')) >= 60 and len(extraction_eval.read_gold('posts')) >= 40
    t4 = ev['table4'].set_index('class')
    assert (t4.loc[list(judgments.LABELS), 'f1'] >= 0.85).all(), t4
    assert (t4.loc[list(actions.POST_TYPES), 'f1'] == 1).all()
    assert ev['table3'].set_index('record').loc['comment', 'f1'] >= 0.9
    assert ev['actions'].iloc[0]['exact match'] >= 0.9
    with pytest.raises(ValueError): extraction_eval.read_gold('nope')
    with pytest.raises(ValueError): extraction_eval.prf([1], [1, 2], [1])


def test_dask_matches_reference_and_resumes(reference, tmp_path, monkeypatch):
    recs, _ = reference
    raw = _raw(SAMPLE_RC).splitlines(keepends=True)
    half = len(raw) // 2
    (tmp_path/'RC_a.jsonl').write_bytes(b''.join(raw[:half]) + b'{"broken\n')
    (tmp_path/'RC_b.zst').write_bytes(zstandard.ZstdCompressor().compress(b''.join(raw[half:])))
    files = [tmp_path/'RC_a.jsonl', tmp_path/'RC_b.zst']
    real = dumps.iter_records
    def crash(path, *a, **k):  # the second file crashes
        if Path(path).name == 'RC_b.zst': raise RuntimeError('worker died')
        return real(path, *a, **k)
    run = tmp_path/'run'
    for f, kind in ((SAMPLE_RS, 'posts'), (files[0], 'comments')): ex.stage_file(f, kind, run)  # done before the crash
    monkeypatch.setattr(ex, 'iter_records', crash)
    with pytest.raises(RuntimeError): ex.extract_dask(SAMPLE_RS, files, tmp_path/'run', scheduler='sync')
    monkeypatch.setattr(ex, 'iter_records', real)
    got, rep = ex.extract_dask(SAMPLE_RS, files, tmp_path/'run', scheduler='threads', num_workers=2)
    resumed = dict((Path(f).name, r) for f, r in json.loads((tmp_path/'run'/'report.json').read_text())['files'])
    assert resumed == {'RS_sample.zst': True, 'RC_a.jsonl': True, 'RC_b.zst': False}
    assert sorted(map(json.dumps, got)) == sorted(map(json.dumps, recs))
    assert rep.n_malformed == 1 and rep.malformed[0].line == half + 1 and rep.malformed[0].path.endswith('RC_a.jsonl')
    assert read_anecdotes(tmp_path/'run'/'anecdotes.jsonl').shape[0] == len(recs)


def test_cluster_address_needs_distributed(tmp_path, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, 'distributed', None)  # as if not installed
    with pytest.raises(ImportError, match='pip install distributed'):
        ex.extract_dask(SAMPLE_RS, SAMPLE_RC, tmp_path/'run', address='tcp://127.0.0.1:8786')


def test_other_subreddits_are_dropped_and_counted(tmp_path, reference):
    "Monthly dumps hold every subreddit: other subreddits' lines are skipped (before parsing) and reported."
    recs, rep = reference
    raw = _raw(SAMPLE_RC).splitlines()
    other = [json.dumps(dict(json.loads(l), subreddit='relationships', id=f'o{i}')).encode() for i, l in enumerate(raw[:50])]
    mention = [json.dumps(dict(json.loads(raw[1]), subreddit='AskReddit', id='m1', body='crosspost from AmItheAsshole: NTA')).encode()]
    (tmp_path/'RC_mixed.jsonl').write_bytes(b'\n'.join(other + raw + mention) + b'\n')
    got, rep2 = ex.extract_anecdotes(SAMPLE_RS, tmp_path/'RC_mixed.jsonl')
    assert sorted(map(json.dumps, got)) == sorted(map(json.dumps, recs))
    # 50 skipped from their bytes, 1 from the parsed field, beside the sample's own records of other subreddits
    assert rep2.counts[('comment', 'other_subreddit')] == rep.counts[('comment', 'other_subreddit')] + 51
    assert ex.extract_anecdotes(SAMPLE_RS, tmp_path/'RC_mixed.jsonl', subreddit=None)[1].counts[('comment', 'other_subreddit')] == 0


def test_batched_actions_equal_the_per_title_path(tmp_path, monkeypatch):
    "Titles go through spaCy in batches (`extract_actions`, `nlp.pipe`): the same action for every title as `extract_action`."
    titles = [r.get('title') for _, r in dumps.iter_records(SAMPLE_RS)]
    titles += ['AITA for not offering to pick up my friend?', 'WIBTA if I told my sister she was wrong', 'META: rules', '', None]
    one = [actions.extract_action(t) for t in titles]
    assert any(one) and actions.extract_actions(titles, batch_size=7) == one == actions.extract_actions(titles)
    recs, _ = ex.extract_anecdotes(SAMPLE_RS, SAMPLE_RC, warn=False)
    assert recs and all((r['action'] or {}).get('description') == actions.extract_action(r['title']) for r in recs)
    monkeypatch.setattr(ex, 'ACTION_BATCH', 3)  # stage_file flushes its batch of kept posts many times
    got, _ = ex.extract_dask(SAMPLE_RS, SAMPLE_RC, tmp_path/'out', scheduler='sync', num_workers=1, warn=False)
    assert got == recs
