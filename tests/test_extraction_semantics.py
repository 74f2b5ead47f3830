"""Extraction semantics on dumps in the real format: the repost bot's forms, the authors' filters, the contrastive
rule, the cap on what the label patterns see, damaged compressed dumps, and the datasets built from the anecdotes."""
import bz2, gzip, json, lzma, warnings
from collections import Counter

import pytest
import zstandard
from hypothesis import given, settings, strategies as st

from scruples import dumps, judgments, records, datasets
from scruples.extraction import extract_anecdotes
from scruples.data import read_anecdotes, read_dilemmas

SAMPLE_RS, SAMPLE_RC = dumps.GOLD_DIR/'RS_sample.zst', dumps.GOLD_DIR/'RC_sample.zst'
NOTICE = ('^^^^AUTOMOD  ***This is a copy of the above post. It is a record of the post as originally written, '
          'in case the post is deleted or edited.***')


@pytest.fixture(scope='module')
def sample():
    return extract_anecdotes(SAMPLE_RS, SAMPLE_RC)


def _lines(path):
    return [r for _, r in dumps.iter_records(path)]


# --- the repost bot (issue 19) ---

@pytest.mark.parametrize('footer', [True, False])
@pytest.mark.parametrize('notice', list(records.REPOST_NOTICES.values()))
def test_real_repost_forms_give_the_text_without_notice_or_footer(notice, footer):
    text = 'So I (25F) told my brother no.\n\nHe is mad &amp; so is mom.'
    body = notice.replace('AUTOMOD ', 'AUTOMOD  ') + '\n\n' + text + ('\n\n' + records.REPOST_FOOTER if footer else '')
    assert records.original_text(body) == text
    c = records.parse_comment({'id': 'c', 'link_id': 't3_p', 'parent_id': 't3_p', 'author': 'AutoModerator', 'body': body,
                               'distinguished': 'moderator', 'subreddit': 'AmItheAsshole'})
    assert (c['kind'], c['text']) == ('source', text)


def test_unknown_repost_form_has_its_own_reason():
    body = '^^^^AUTOMOD ***Below: a copy of this post as originally written.***\n\nSo I told my brother no.'
    c = records.parse_comment({'id': 'c', 'link_id': 't3_p', 'parent_id': 't3_p', 'author': 'AutoModerator', 'body': body})
    assert c['reason'] == 'repost_unrecognized'
    assert issubclass(records.UnrecognizedRepostWarning, UserWarning)


def test_sample_in_real_format_extracts_the_bots_copy(sample):
    recs, rep = sample
    assert len(recs) > 40
    copies = {r['link_id'][3:]: records.original_text(r['body']) for r in _lines(SAMPLE_RC) if r['author'] == 'AutoModerator'}
    posts = {r['id']: r for r in _lines(SAMPLE_RS)}
    for r in recs:
        assert r['text'] == copies[r['post_id']] and records.REPOST_FOOTER not in r['text'] and 'AUTOMOD' not in r['text']
    edited = [r for r in recs if posts[r['post_id']]['edited']]
    assert edited and all(posts[r['post_id']]['selftext'] != r['text'] for r in edited)  # the copy, not the edit
    assert rep.counts[('comment', 'repost_unrecognized')] == 1


def test_sample_awkward_cases(sample):
    recs, rep = sample
    posts = _lines(SAMPLE_RS)
    kept = {r['post_id'] for r in recs}
    deleted_with_copy = [p['id'] for p in posts if p['selftext'] in ('[deleted]', '[removed]')]
    assert deleted_with_copy and not kept & set(deleted_with_copy)  # the authors drop them, copy or not
    assert not kept & {p['id'] for p in posts if not p['is_self'] or p['author'] == '[deleted]'}
    assert {r['subreddit'] for r in posts} > {'AmItheAsshole'}
    # a December post filed in the January frame, after its comments: still joined
    frames = [f for f in SAMPLE_RS.read_bytes().split(b'\x28\xb5\x2f\xfd') if f]
    assert len(frames) == 2
    jan = [json.loads(l) for l in zstandard.ZstdDecompressor().decompressobj().decompress(b'\x28\xb5\x2f\xfd' + frames[1]).splitlines()]
    late = [p for p in jan if p['created_utc'] < 1546300800 and p['subreddit'] == 'AmItheAsshole' and p['id'] in kept]
    assert late
    for key in [('post', 'not_self'), ('post', 'deleted_author'), ('post', 'deleted'), ('post', 'other_subreddit'),
                ('anecdote', 'no_original_text'), ('anecdote', 'tied_binarized')]:
        assert rep.counts[key] > 0, key


def test_action_scores_are_the_binarized_votes(sample):
    for r in sample[0]:
        if r['action'] is not None:
            assert r['action']['pronormative_score'] == r['binarized_label_scores']['RIGHT']
            assert r['action']['contranormative_score'] == r['binarized_label_scores']['WRONG']


def test_kept_anecdotes_pass_the_authors_checks(sample):
    for r in sample[0]:
        s = r['label_scores']
        assert records.count_words(r['title'] + ' ' + r['text']) >= records.MIN_WORDS
        assert r['binarized_label_scores']['RIGHT'] != r['binarized_label_scores']['WRONG']
        assert sorted(s.values())[-1] > sorted(s.values())[-2]


# --- the contrastive rule (issue 19) ---

@pytest.mark.parametrize('body,label', [
    ('NTA. You would be if you went the passive aggressive route, but not for being direct', 'OTHER'),
    ('NAH but ... YWBTA if you tell her', 'NOBODY'),
    ('NAH but honestly YWBTA if you went behind her back.', 'NOBODY'),
    ('ESH, but NTA if she really said that.', 'EVERYBODY'),
    ('YTA, however you would not be the asshole if you apologized.', 'AUTHOR'),
    ('NTA. But YTA when you bring it up again.', 'OTHER'),
    ('INFO but if he knew, YTA.', 'INFO'),
    ('YTA, but after reading your edit, NTA.', 'OTHER'),
    ('NTA. Edit: changing to ESH after OP\'s comments.', 'EVERYBODY'),
    ('YWNBTA. But actually YWBTA, since you promised.', 'AUTHOR'),
])
def test_only_a_stated_change_of_verdict_switches(body, label):
    assert judgments.extract_label(body) == label


@pytest.mark.parametrize('body,label', [
    ('&gt; YTA\n\nI disagree with this, NTA', 'OTHER'),   # the dumps store `>` escaped
    ('> YTA\n\nI disagree with this, NTA', 'OTHER'),
    ('&gt; I told him he was the asshole\n\nNTA', 'OTHER'),
    ('&gt; NTA\n&gt; YTA', None),                         # only quotes: no verdict of the commenter
    ('NTA, 3 &gt; 2', 'OTHER'),
])
def test_quoted_verdicts_are_not_the_commenters(body, label):
    assert judgments.extract_label(body) == label
    if label: assert records.parse_comment({'body': body, 'author': 'u', 'link_id': 't3_p', 'parent_id': 't3_p', 'id': 'c',
                                            'subreddit': 'AmItheAsshole'})['label'] == label


# --- what the patterns see (issue 22 item 12) ---

def test_label_patterns_see_at_most_reddits_comment_limit():
    assert judgments.extract_label('x' * (judgments.MAX_COMMENT_CHARS + 1) + ' NTA') is None
    assert judgments.extract_label('NTA ' + 'x' * 2_000_000) == 'OTHER'
    body = 'I think this sucks for everyone and the whole thing is a hole. ' * 40_000  # 2.5 MB, the fuzzy fallback
    c = records.parse_comment({'id': 'c', 'link_id': 't3_p', 'parent_id': 't3_p', 'author': 'u', 'body': body})
    assert c['reason'] in ('no_label', None)


# --- damaged dumps (issue 22 item 11) ---

RECS = b''.join(b'{"id": "r%05d", "body": "%s"}\n' % (k, b'ab' * (k % 40)) for k in range(30000))
PACK = {'gz': gzip.compress, 'bz2': bz2.compress, 'xz': lzma.compress,
        'zst': lambda b: zstandard.ZstdCompressor(level=3, write_checksum=True).compress(b)}


def _good_lines(kind, data):
    "The complete lines the data allows: decode byte by byte until the decompressor gives up."
    d, out = dumps.decompressor(kind), b''
    for k in range(len(data)):
        try: out += d.decompress(data[k:k + 1])
        except Exception: break
        if getattr(d, 'eof', False): break
    return out.count(b'\n')


@pytest.mark.parametrize('kind', ['gz', 'xz', 'zst', 'bz2'])
def test_corrupt_dump_never_raises(tmp_path, kind):
    z = PACK[kind](RECS)
    p = tmp_path/f'RC.{kind}'
    for at in (len(z) // 3, len(z) // 2, len(z) - 20):
        p.write_bytes(z[:at] + bytes([z[at] ^ 0x55]) + z[at + 1:])
        errs = []
        got = list(dumps.iter_records(p, errs))  # never raises
        assert errs and errs[-1].reason.startswith(('corrupt compressed', 'truncated compressed'))
        assert len(got) <= 30000


@pytest.mark.parametrize('kind', ['gz', 'bz2', 'xz', 'zst'])
def test_truncated_dump_keeps_every_complete_line(tmp_path, kind):
    z = PACK[kind](RECS)
    p = tmp_path/f'RC.{kind}'
    for at in (len(z) // 4, len(z) * 3 // 5, len(z) - 3):
        p.write_bytes(z[:at])
        errs = []
        got = [r['id'] for _, r in dumps.iter_records(p, errs)]
        assert got == [f'r{k:05d}' for k in range(len(got))]
        assert len(got) == _good_lines(kind, z[:at])
        assert len(errs) == 1 and errs[0].reason.startswith('truncated compressed')


def test_multi_member_gzip_and_padded_xz(tmp_path):
    (tmp_path/'a.gz').write_bytes(gzip.compress(RECS[:1000]) + gzip.compress(RECS[1000:]) + b'\0' * 8)
    (tmp_path/'a.xz').write_bytes(lzma.compress(RECS[:1000]) + b'\0' * 4 + lzma.compress(RECS[1000:]))
    for p in (tmp_path/'a.gz', tmp_path/'a.xz'):
        errs = []
        assert len(list(dumps.iter_records(p, errs))) == 30000 and errs == []


def test_missing_dump_raises_before_reading(tmp_path):
    with pytest.raises(FileNotFoundError):
        list(dumps.iter_records(tmp_path/'nope.zst'))


# --- datasets (paper Section 2.2) ---

def test_write_datasets_official_layout(tmp_path, sample):
    recs = sample[0]
    paths = datasets.write_datasets(recs, tmp_path, dev_size=8, test_size=8, seed=3)
    assert sorted(paths) == sorted(f'{k}/{s}' for k in ('anecdotes', 'dilemmas') for s in ('train', 'dev', 'test'))
    ids = {s: set(read_anecdotes(paths[f'anecdotes/{s}']).id) for s in ('train', 'dev', 'test')}
    assert len(ids['dev']) == len(ids['test']) == 8 and sum(map(len, ids.values())) == len(recs)
    for s in ('train', 'dev', 'test'):
        d = read_dilemmas(paths[f'dilemmas/{s}'])
        assert (d.gold_1 == 0).all() and (d.gold_2 == 0).all() and not d.controversial.any()
        assert set(d.action_1_id) | set(d.action_2_id) <= ids[s]


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 60), rounds=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_make_dilemmas_each_action_at_most_rounds_times(n, rounds, seed):
    recs = [{'id': f'a{k}', 'post_id': f'p{k}', 'action': {'description': f'doing {k}', 'pronormative_score': k % 3,
             'contranormative_score': 1}} for k in range(n)]
    dil = datasets.make_dilemmas(recs, seed=seed, rounds=rounds)
    uses = Counter(a['id'] for d in dil for a in d['actions'])
    assert not uses or max(uses.values()) <= rounds
    pairs = [frozenset(a['id'] for a in d['actions']) for d in dil]
    assert len(set(pairs)) == len(pairs) and all(len(p) == 2 for p in pairs)
    assert len({d['id'] for d in dil}) == len(dil)


@settings(max_examples=200, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=('Cs',)), max_size=300),
       notice=st.sampled_from(list(records.REPOST_NOTICES.values())), footer=st.booleans(), spaces=st.sampled_from([' ', '  ']))
def test_any_copy_round_trips(text, notice, footer, spaces):
    body = notice.replace('AUTOMOD ', 'AUTOMOD' + spaces) + '\n\n' + text + ('\n\n' + records.REPOST_FOOTER if footer else '')
    got = records.original_text(body)
    assert got is not None and got in text  # never more than the post's text
    if text.strip() and not text.rstrip().endswith(records.REPOST_FOOTER): assert got == text.strip()


def test_actions_use_cores_shared_spacy_loader(monkeypatch):
    "No second cache in scruples.actions: the default pipeline comes from `scruples.core.load_spacy` on every call."
    from scruples import actions
    actions.extract_action('AITA for skipping the party?')  # loaded (and cached by core) before the patch
    calls, real = [], actions.load_spacy
    monkeypatch.setattr(actions, 'load_spacy', lambda *a, **k: calls.append(a) or real(*a, **k))
    assert actions.extract_action('WIBTA if I skipped the party?') == 'skipping the party'
    assert calls


def test_quoted_copy_as_the_dumps_store_it_is_unquoted():
    "The dumps escape `>` as `&gt;`: a quoted copy of the post loses its quote marks in that form too."
    notice = ('^^^^AUTOMOD  ***Thanks for posting! This comment is a copy of your post so readers can see the original text '
              'if your post is edited or removed. This comment is NOT for rendering judgement.***\n\n')
    for q in ('>', '&gt;'):
        body = notice + f'{q}My sister asked me to pick her up &amp; I said no.\n\n{q}We argued.\n\n' + records.REPOST_FOOTER
        assert records.original_text(body) == 'My sister asked me to pick her up &amp; I said no.\n\nWe argued.'


def test_the_bots_other_messages_are_no_unrecognized_copy():
    "AutoModerator's removal notices mention 'the original post' without being a copy: a plain `bot` drop, no warning."
    body = ('Your post has been removed: titles must begin with AITA or WIBTA. Please resubmit with a new title; '
            'editing the original post will not restore it.\n\n*I am a bot, and this action was performed automatically.*')
    c = records.parse_comment({'body': body, 'author': 'AutoModerator', 'link_id': 't3_p', 'parent_id': 't3_p', 'id': 'c',
                               'subreddit': 'AmItheAsshole', 'distinguished': 'moderator'})
    assert c['reason'] != 'repost_unrecognized'
    assert records.looks_like_repost('^^^^AUTOMOD ***A record of your original text, kept in case you edit it.***')
