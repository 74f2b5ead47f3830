"""Issue 30, the record-level seams: labels in real comments' phrasings, bots by known accounts, HTML entities in
actions, titles and texts, the repost bot's marker with an unknown wording, and the drop report's example ids after
the join."""
import json, warnings
from pathlib import Path

import pytest

from dump_copies import copied_comments
from scruples import extraction as ex
from scruples.actions import extract_action
from scruples.dumps import GOLD_DIR
from scruples.judgments import extract_label
from scruples.records import REPOST_NOTICES, UnrecognizedRepostWarning, is_bot, parse_comment

SAMPLE_RS, SAMPLE_RC = GOLD_DIR/'RS_sample.zst', GOLD_DIR/'RC_sample.zst'


@pytest.mark.parametrize('body,want', [
    ("I definitely don't think you're the asshole here", 'OTHER'),   # negation: not AUTHOR
    ("I don't think YTA, she overreacted.", 'OTHER'),
    ('Not YTA. Your sister is.', 'OTHER'),                          # `not` right before the initialism
    ("You're not YTA here", 'OTHER'),
    ('Not ESH, NTA: she started it.', 'OTHER'),                      # a negated other verdict states none
    ('Not NTA.', None),
    ('Not YTA, ESH', 'EVERYBODY'),                                   # a denied YTA gives way to a verdict stated
    ("I don't think YTA. NAH", 'NOBODY'),
    ('Not sure. YTA', 'AUTHOR'),                                     # `not` of another clause
    ("That doesn't make you an asshole.", 'OTHER'),
    ('That makes you an asshole.', 'AUTHOR'),                        # "an asshole" as a noun: not NOBODY
    ("You're an a-hole here, honestly.", 'AUTHOR'),
    ('I know an asshole here at work', None),
    ('There are no assholes in my family, so this surprised me', None),  # NAH needs the authors' "here"
    ('No assholes here, just a hard situation.', 'NOBODY'),
    ("You won't be the asshole if you say no.", 'OTHER'),           # future / WNBTA
    ('WNBTA. Go to the concert.', 'OTHER'),
    ('you will be the asshole if you do', 'AUTHOR'),
    ('OkNTA', 'OTHER'),                                              # glued to a word
    ('Wow soYTA. Just wow.', 'AUTHOR'),
    ('YTA -- but I think we also need more information', 'AUTHOR'),  # a verdict, then a request: not INFO
    ('NTA. Edit: INFO: did you pay?', 'INFO'),
])
def test_real_phrasings(body, want):
    assert extract_label(body) == want


def _vote(author, body='NTA, she was rude.'):
    return {'id': 'c1', 'link_id': 't3_p1', 'parent_id': 't3_p1', 'author': author, 'body': body, 'created_utc': 1,
            'subreddit': 'AmItheAsshole'}


@pytest.mark.parametrize('person', ['Talbot', 'Cabot1987', 'Abbot_22', 'not_a_robot'])
def test_people_whose_names_end_in_bot_vote(person):
    assert not is_bot(person)
    assert parse_comment(_vote(person))['kind'] == 'vote'


@pytest.mark.parametrize('bot', ['AutoModerator', 'Judgement_Bot_AITA', 'RemindMeBot'])
def test_known_bots_do_not_vote(bot):
    assert parse_comment(_vote(bot))['kind'] == 'drop'


def test_actions_never_hold_an_entity():
    assert extract_action('AITA for putting up with &lt;3 years of this&gt;') == 'putting up with <3 years of this>'
    assert extract_action('AITA for telling my mom &amp; dad the truth?') == 'telling my mom & dad the truth'


def _dumps(tmp_path: Path, bot_body: str) -> tuple[Path, Path]:
    story = 'So my sister asked me to drive her to the airport at midnight &amp; I said no because I had work early.'
    post = {'id': 'p1', 'title': 'AITA for saying no to my sister &amp; her friend?', 'selftext': story, 'author': 'op',
            'subreddit': 'AmItheAsshole', 'is_self': True, 'created_utc': 1}
    comments = [dict(_vote('someone'), id='c1'), {**_vote('AutoModerator', bot_body), 'id': 'b1', 'created_utc': 0}]
    rs, rc = tmp_path/'RS.jsonl', tmp_path/'RC.jsonl'
    rs.write_text(json.dumps(post) + '\n'); rc.write_text(''.join(json.dumps(c) + '\n' for c in comments))
    return rs, rc


def test_unescape_is_asked_for(tmp_path):
    story = 'So my sister asked me to drive her to the airport at midnight &amp; I said no because I had work early.'
    rs, rc = _dumps(tmp_path, REPOST_NOTICES['2018'] + '\n\n' + story)
    (rec,), _ = ex.extract_anecdotes(rs, rc)
    assert '&amp;' in rec['title'] and '&amp;' in rec['text']        # the dumps' text, as the authors'
    assert rec['action']['description'] == 'saying no to my sister & her friend'
    (rec,), _ = ex.extract_anecdotes(rs, rc, unescape=True)
    assert rec['title'] == 'AITA for saying no to my sister & her friend?'
    assert '&' in rec['text'] and '&amp;' not in rec['text']


def test_marker_with_an_unknown_wording_warns(tmp_path):
    rs, rc = _dumps(tmp_path, '^^^^AUTOMOD  ***Your story as you submitted it:***\n\nSo my sister asked me to drive.')
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        recs, rep = ex.extract_anecdotes(rs, rc)
    assert recs == [] and rep.counts[('comment', 'repost_unrecognized')] == 1
    assert [x for x in w if issubclass(x.category, UnrecognizedRepostWarning)]


def test_drop_report_has_example_ids_for_every_outcome(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        _, rep = ex.extract_anecdotes(SAMPLE_RS, SAMPLE_RC)
        _, drep = ex.extract_dask(SAMPLE_RS, SAMPLE_RC, tmp_path/'run', scheduler='sync', parts=2)
    df = rep.frame()
    assert (df.examples.str.len() > 0).all(), df[df.examples == '']
    post_ids = {e[2] for e in rep.examples[('post', 'kept')]}
    for outcome in ('no_original_text', 'no_votes', 'tied_binarized', 'kept'):
        ids = [e[2] for e in rep.examples[('anecdote', outcome)]]
        assert ids and all(i.startswith('a0') and 'c' not in i for i in ids), (outcome, ids)  # post ids
    assert post_ids
    assert drep.frame().equals(df)  # the same examples from the parts and the join
    saved = json.loads((tmp_path/'run'/'report.json').read_text())
    assert ex.ExtractionReport.from_dict(saved).examples == drep.examples


def test_streamed_parts_of_a_damaged_file_equal_one_process(tmp_path):
    "A truncated zstd comments file with malformed lines, read by one reader for 3 parts on 2 worker processes."
    import zstandard
    from scruples.dumps import open_dump
    with open_dump(SAMPLE_RC) as f: lines = [l for l in f.read().splitlines() if l.strip()]
    lines[40:40] = [b'{"id": "broken", ', b'[1, 2]']
    whole = zstandard.ZstdCompressor().compress(b''.join(l + b'\n' for l in lines))
    rc = tmp_path/'RC_cut.zst'; rc.write_bytes(whole[:int(len(whole) * 0.8)])
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        want, wrep = ex.extract_anecdotes(SAMPLE_RS, rc)
        got, grep = ex.extract_dask(SAMPLE_RS, rc, tmp_path/'run', num_workers=2, parts=3)
    assert got == want and grep.counts == wrep.counts
    assert [str(m) for m in grep.malformed] == [str(m) for m in wrep.malformed]  # the broken lines and the cut, once
    report = json.loads((tmp_path/'run'/'report.json').read_text())
    assert [p[3] for p in report['parts'] if p[0] == str(rc)] == [False, False, False]  # not done: read again next run
    assert not any(r.exists() for r in ex._queue_roots(tmp_path/'run'))  # the queues are gone, in memory and on disk


@pytest.mark.parametrize('memory', [True, False])
def test_queue_parts_balance_and_equal_one_process(tmp_path, monkeypatch, memory):
    "Local workers take one big file's blocks from one reader's queue (in memory, or on disk): the one-process result."
    monkeypatch.setattr(ex, 'STREAM_MESSAGE', 1)  # a message per block: many messages for the two parts to share
    if not memory: monkeypatch.setattr(ex, 'SHARED_MEMORY', tmp_path/'no-such-memory')
    rc, = copied_comments(tmp_path, 40)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        want, wrep = ex.extract_anecdotes(SAMPLE_RS, rc)
        got, grep = ex.extract_dask(SAMPLE_RS, rc, tmp_path/'run', num_workers=2, parts=2)
    assert got == want and grep.counts == wrep.counts
    plan = json.loads((tmp_path/'run'/'_plan.json').read_text())['parts']
    queue = [t for t in plan if t['file'] == str(rc)]
    assert [t['queue'] for t in queue] == [True, True] and [t['key'][-4:] for t in queue] == ['0in2', '1in2']
    reports = [json.loads((tmp_path/'run'/'_reports'/f"{t['key']}.json").read_text()) for t in queue]
    votes = [sum(n for s, r, n in rep['counts'] if (s, r) == ('comment', 'vote')) for rep in reports]
    assert sum(votes) == wrep.counts[('comment', 'vote')]  # each vote once, in whichever part took its block
    assert not any(r.exists() for r in ex._queue_roots(tmp_path/'run'))  # the queues are gone, in memory and on disk


def test_queue_parts_are_done_together_or_read_again(tmp_path):
    "One part of a queue lost (a kill): the rerun reads the whole file again, never the missing part alone."
    rc, = copied_comments(tmp_path, 10)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        want, _ = ex.extract_anecdotes(SAMPLE_RS, rc)
        ex.extract_dask(SAMPLE_RS, rc, tmp_path/'run', num_workers=2, parts=2)
        plan = json.loads((tmp_path/'run'/'_plan.json').read_text())['parts']
        lost, kept = [tmp_path/'run'/'_reports'/f"{t['key']}.json" for t in plan
                      if t['queue'] and t['file'] == str(rc)]
        lost.unlink()
        stale = kept.stat().st_mtime_ns
        got, _ = ex.extract_dask(SAMPLE_RS, rc, tmp_path/'run', num_workers=2, parts=2)
    assert got == want
    report = json.loads((tmp_path/'run'/'report.json').read_text())
    assert [p[2] for p in report['parts'] if p[0] == str(rc)] == [False, False]  # both parts read again
    assert kept.stat().st_mtime_ns != stale
    again, _ = ex.extract_dask(SAMPLE_RS, rc, tmp_path/'run', num_workers=2, parts=2)  # a complete set: reused
    assert again == want and all(p[2] for p in json.loads((tmp_path/'run'/'report.json').read_text())['parts'])
    on_one, _ = ex.extract_dask(SAMPLE_RS, rc, tmp_path/'run', scheduler='sync')  # reused by another scheduler too
    assert on_one == want and all(p[2] for p in json.loads((tmp_path/'run'/'report.json').read_text())['parts'])


def test_queues_go_to_memory_where_there_is_room(tmp_path, monkeypatch):
    "A queue lives in shared memory when it can hold four full queues per file, else in the run's folder."
    monkeypatch.setattr(ex, 'SHARED_MEMORY', tmp_path/'shm')
    (tmp_path/'shm').mkdir()
    todo = [{'file': 'RC_a.zst', 'key': 'RC_a.zst-0123456789abcdef.0in2', 'queue': True},
            {'file': 'RC_a.zst', 'key': 'RC_a.zst-0123456789abcdef.1in2', 'queue': True},
            {'file': 'RS_a.zst', 'key': 'RS_a.zst-0123456789abcdef.0of1', 'queue': False}]
    memory, disk = ex._queue_roots(tmp_path/'run')
    assert memory.parent == tmp_path/'shm' and disk == tmp_path/'run'/'_stream'
    assert ex._queues(todo, tmp_path/'run') == {'RC_a.zst': str(memory/'RC_a.zst-0123456789abcdef')}
    assert ex._queue_roots(tmp_path/'other')[0] != memory  # each run's folder has its own
    monkeypatch.setattr(ex, 'STREAM_MESSAGE', 1 << 50)  # no room
    assert ex._queues(todo, tmp_path/'run') == {'RC_a.zst': str(disk/'RC_a.zst-0123456789abcdef')}
    monkeypatch.setattr(ex, 'SHARED_MEMORY', tmp_path/'none')  # no memory file system
    monkeypatch.setattr(ex, 'STREAM_MESSAGE', 1)
    assert ex._queues(todo, tmp_path/'run') == {'RC_a.zst': str(disk/'RC_a.zst-0123456789abcdef')}


@pytest.mark.parametrize('where', ['memory', 'disk'])
def test_clean_spool_removes_a_killed_queue(tmp_path, monkeypatch, where):
    "What a killed run left in a queue (waiting, taken and half-written messages, the end) goes; nothing else does."
    monkeypatch.setattr(ex, 'SHARED_MEMORY', tmp_path/'shm')
    root = dict(zip(['memory', 'disk'], ex._queue_roots(tmp_path)))[where]
    q = root/'RC-0123456789abcdef'
    q.mkdir(parents=True)
    for n in ('00000003.blk', '00000002.blk.123-0a1b2c3d', '.00000004.blk.tmp', 'end.json', '.end.json.0a1b2c3d.tmp'):
        (q/n).write_bytes(b'x')
    (q/'mine.txt').write_text('not ours')
    theirs = [root/'mydata'/'12345678.blk', root/'sub'/'end.json', q/'deeper'/'end.json', root/'end.json']
    for f in theirs:
        f.parent.mkdir(parents=True, exist_ok=True); f.write_text('not ours')
    (root/'emptydir').mkdir()
    ex._clean_spool(tmp_path)
    assert sorted(p.name for p in q.iterdir()) == ['deeper', 'mine.txt']
    assert all(f.read_text() == 'not ours' for f in theirs) and (root/'emptydir').is_dir()  # only a queue's own names
    (q/'mine.txt').unlink()
    for f in theirs: f.unlink()
    for d in (q/'deeper', root/'mydata', root/'sub', root/'emptydir'): d.rmdir()
    ex._clean_spool(tmp_path)
    assert not root.exists()


def test_clean_spool_does_not_follow_links(tmp_path, monkeypatch):
    "A `_stream` or queue folder that is a link to the user's own folder: nothing in the link's target is removed."
    monkeypatch.setattr(ex, 'SHARED_MEMORY', tmp_path/'shm')
    target = tmp_path/'scratch'/'RC-0123456789abcdef'
    target.mkdir(parents=True)
    (target/'00000001.blk').write_text('theirs'); (target/'end.json').write_text('theirs')
    (tmp_path/'run').mkdir()
    (tmp_path/'run'/'_stream').mkdir()
    (tmp_path/'run'/'_stream'/'RC-fedcba9876543210').symlink_to(target, target_is_directory=True)
    ex._clean_spool(tmp_path/'run')
    assert (target/'00000001.blk').read_text() == 'theirs' and (target/'end.json').read_text() == 'theirs'


def test_inflated_size_reads_bz2_and_xz(tmp_path):
    "The planner's size estimate of bz2 and xz dumps comes from their first blocks, not a fixed ratio."
    import bz2, lzma
    from scruples.dumps import open_dump
    with open_dump(SAMPLE_RC) as f: raw = f.read() * 30
    for name, pack in (('RC.bz2', bz2.compress), ('RC.xz', lzma.compress)):
        (tmp_path/name).write_bytes(pack(raw))
        size, lines = ex._inflated_size(tmp_path/name)
        assert 0.7 < size / len(raw) < 1.4 and 0.7 < lines / raw.count(b'\n') < 1.4, (name, size, len(raw))
