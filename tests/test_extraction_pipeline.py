"""The extraction pipeline at scale: resume, reused folders, overlapping dumps, interrupted runs, wrong-typed fields,
the subreddit filter, parts of files across workers, and a real `distributed.LocalCluster` (issues 19 and 22)."""
import json, os, signal, threading, time, warnings
from pathlib import Path

import pytest
import zstandard

from dump_copies import copied_comments
from scruples import extraction as ex
from scruples.data import read_anecdotes
from scruples.dumps import GOLD_DIR, open_dump
from scruples.records import UnrecognizedRepostWarning

SAMPLE_RS, SAMPLE_RC = GOLD_DIR/'RS_sample.zst', GOLD_DIR/'RC_sample.zst'


def _lines(path) -> list[bytes]:
    with open_dump(path) as f: return [l for l in f.read().splitlines() if l.strip()]


def _write(path: Path, lines, compress=False) -> Path:
    data = b''.join(l + b'\n' for l in lines)
    path.write_bytes(zstandard.ZstdCompressor().compress(data) if compress else data)
    return path


@pytest.fixture(scope='module')
def reference():
    return ex.extract_anecdotes(SAMPLE_RS, SAMPLE_RC)


def test_resume_sees_a_repaired_file(tmp_path, reference):
    "22.1: a truncated dump staged, repaired, rerun into the same folder: the full result, not the truncated one."
    recs, _ = reference
    data = zstandard.ZstdCompressor().compress(b''.join(l + b'\n' for l in _lines(SAMPLE_RC)))
    rc = tmp_path/'RC.zst'; rc.write_bytes(data[: len(data) // 3])
    cut, rep = ex.extract_dask(SAMPLE_RS, rc, tmp_path/'run', scheduler='sync')
    assert len(cut) < len(recs) and any(map(ex.damaged_stream, rep.malformed))
    again, _ = ex.extract_dask(SAMPLE_RS, rc, tmp_path/'run', scheduler='sync')  # still truncated: read again, not "done"
    parts = json.loads((tmp_path/'run'/'report.json').read_text())['parts']
    assert [p[2] for p in parts if p[0] == str(rc)] == [False] and again == cut
    rc.write_bytes(data)
    got, rep = ex.extract_dask(SAMPLE_RS, rc, tmp_path/'run', scheduler='sync')
    assert got == recs and rep.n_malformed == 0


def test_resume_key_holds_the_subreddit(tmp_path, reference):
    "22.1: a run for another subreddit, then the default one into the same folder: the default's anecdotes."
    assert ex.extract_dask(SAMPLE_RS, SAMPLE_RC, tmp_path/'run', scheduler='sync', subreddit='Other')[0] == []
    assert ex.extract_dask(SAMPLE_RS, SAMPLE_RC, tmp_path/'run', scheduler='sync')[0] == reference[0]


def test_reused_folder_joins_this_runs_inputs_only(tmp_path):
    "22.2: posts A then posts B into one folder gives B's anecdotes, as B alone does."
    posts = _lines(SAMPLE_RS)
    a, b = _write(tmp_path/'RS_a.jsonl', posts[::2]), _write(tmp_path/'RS_b.jsonl', posts[1::2])
    alone, _ = ex.extract_anecdotes(b, SAMPLE_RC)
    ex.extract_dask(a, SAMPLE_RC, tmp_path/'run', scheduler='sync')
    got, _ = ex.extract_dask(b, SAMPLE_RC, tmp_path/'run', scheduler='sync')
    assert got == alone and 0 < len(got)
    rep = json.loads((tmp_path/'run'/'report.json').read_text())
    assert rep['ignored_partitions'] >= 1 and len(read_anecdotes(tmp_path/'run'/'anecdotes.jsonl')) == len(alone)


def test_same_comment_in_two_files_is_counted_once(tmp_path, reference):
    "22.3: overlapping comments dumps (votes of [deleted] authors included) give the votes of one copy."
    recs, _ = reference
    lines = _lines(SAMPLE_RC)
    deleted = sum(b'"[deleted]"' in l for l in lines)
    assert deleted > 0  # the case of the issue: without an author only the comment id tells copies apart
    first, second = _write(tmp_path/'RC_1.jsonl', lines[: 2 * len(lines) // 3]), _write(tmp_path/'RC_2.jsonl', lines[len(lines) // 3:])
    for run in (lambda: ex.extract_anecdotes(SAMPLE_RS, [first, second]),
                lambda: ex.extract_dask(SAMPLE_RS, [first, second, SAMPLE_RC], tmp_path/'run', scheduler='sync', parts=2)):
        got, rep = run()
        assert got == recs
        assert rep.counts[('vote', 'duplicate_comment')] > 0


def test_interrupted_run_leaves_no_half_output(tmp_path, monkeypatch, reference):
    "22.5: a run killed while writing leaves the previous complete anecdotes.jsonl and no report.json, never half a file."
    run = tmp_path/'run'
    ex.extract_dask(SAMPLE_RS, SAMPLE_RC, run, scheduler='sync')
    before = (run/'anecdotes.jsonl').read_bytes()
    real = json.dumps
    calls = [0]
    def dies(obj, *a, **k):  # the process dies half-way through writing the records
        if isinstance(obj, dict) and 'label_scores' in obj:
            calls[0] += 1
            if calls[0] == 10: raise KeyboardInterrupt
        return real(obj, *a, **k)
    monkeypatch.setattr(ex.json, 'dumps', dies)
    with pytest.raises(KeyboardInterrupt): ex.extract_dask(SAMPLE_RS, [SAMPLE_RC, SAMPLE_RC], run, scheduler='sync', min_votes=2)
    monkeypatch.setattr(ex.json, 'dumps', real)
    assert not (run/'report.json').exists()
    assert (run/'anecdotes.jsonl').read_bytes() == before
    assert not [p for p in run.iterdir() if p.name.endswith('.tmp')]


def test_wrong_typed_fields_are_malformed_lines(tmp_path, reference):
    "22.10: a comment id of 777, a created_utc string, a post id that is a list: malformed with file and line; the run goes on."
    recs, _ = reference
    posts, comments = _lines(SAMPLE_RS), _lines(SAMPLE_RC)
    c0 = json.loads(comments[0])
    bad_c = [json.dumps(dict(c0, id=777)).encode(), json.dumps(dict(c0, id='zz1', created_utc='yesterday')).encode(),
             json.dumps(dict(c0, id='zz2', link_id=['t3_x'])).encode()]
    bad_p = [json.dumps(dict(json.loads(posts[0]), id=['p', 'q'])).encode()]
    rs = _write(tmp_path/'RS.jsonl', bad_p + posts)
    rc = _write(tmp_path/'RC.jsonl', comments[:5] + bad_c + comments[5:])
    for got, rep in (ex.extract_anecdotes(rs, rc), ex.extract_dask(rs, rc, tmp_path/'run', scheduler='sync', parts=2)):
        assert got == recs
        where = sorted((Path(m.path).name, m.line, m.reason.split(':')[0]) for m in rep.malformed)
        assert where == [('RC.jsonl', 6, "field 'id'"), ('RC.jsonl', 7, "field 'created_utc'"), ('RC.jsonl', 8, "field 'link_id'"),
                         ('RS.jsonl', 1, "field 'id'")], where


def test_subreddit_is_case_insensitive_in_the_byte_filter(reference):
    "22.12: subreddit='amitheasshole' keeps the records of r/AmItheAsshole."
    got, rep = ex.extract_anecdotes(SAMPLE_RS, SAMPLE_RC, subreddit='amitheasshole')
    assert got == reference[0] and len(got) > 0 and rep.counts == reference[1].counts


def test_unrecognized_repost_is_counted_and_warned_once(tmp_path, monkeypatch):
    "A repost-bot comment that matches no known form: its own outcome in the report and one warning with an example id."
    real = ex.parse_comment
    def odd(rec, **k):
        out = real(rec, **k)
        if out['kind'] == 'source': out.update(kind='drop', reason='repost_unrecognized', text=None)
        return out
    monkeypatch.setattr(ex, 'parse_comment', odd)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        recs, rep = ex.extract_dask(SAMPLE_RS, SAMPLE_RC, tmp_path/'run', scheduler='sync', parts=3)
    n = rep.counts[('comment', 'repost_unrecognized')]
    mine = [x for x in w if issubclass(x.category, UnrecognizedRepostWarning)]
    assert n > 0 and recs == [] and len(mine) == 1
    f, line, rid = rep.examples[('comment', 'repost_unrecognized')][0]
    assert f'{n:,} ' in str(mine[0].message) and str(rid) in str(mine[0].message) and f'{Path(f).name}:{line}' in str(mine[0].message)
    assert json.loads((tmp_path/'run'/'report.json').read_text())['examples']


def test_parts_on_worker_processes_equal_one_process(tmp_path, reference):
    "Every file split into parts, run on 2 local worker processes: the records and counts of the one-process run."
    recs, rep = reference
    got, grep = ex.extract_dask(SAMPLE_RS, SAMPLE_RC, tmp_path/'run', num_workers=2, parts=3)
    assert got == recs
    drop = lambda r: {k: v for k, v in r.counts.items()}
    assert drop(grep) == drop(rep)
    assert sorted(p[1][0] for p in json.loads((tmp_path/'run'/'report.json').read_text())['parts']) == [0, 0, 1, 1, 2, 2]


def test_plan_splits_one_file_for_two_workers(tmp_path):
    "One big comments file and two workers: planned in parts, so the second worker gets work."
    rc = _write(tmp_path/'RC.jsonl', _lines(SAMPLE_RC) * 20)
    plan = ex._plan([(rc, 'comments')], tmp_path/'run', ex.SUBREDDIT, 2, None)
    assert [p['part'] for p in plan] == [[0, 2], [1, 2]]
    assert [p['part'] for p in ex._plan([(rc, 'comments')], tmp_path/'run', ex.SUBREDDIT, 1, None)] == [[0, 1]]


# --- a real cluster ---------------------------------------------------------------------------------------------------

def _bigger(tmp_path, copies=12):
    "The sample's comments copied with fresh ids into two files (a part takes a second or so), and its posts."
    return SAMPLE_RS, copied_comments(tmp_path, copies, files=2)


@pytest.fixture(scope='module')
def cluster():
    distributed = pytest.importorskip('distributed')
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c, \
            distributed.Client(c) as client:
        yield c, client


def test_local_cluster_through_its_address(tmp_path, cluster, reference):
    c, _ = cluster
    got, rep = ex.extract_dask(SAMPLE_RS, SAMPLE_RC, tmp_path/'run', address=c.scheduler_address, parts=2)
    assert got == reference[0] and rep.counts == reference[1].counts


def test_killed_worker_then_rerun_equals_one_process(tmp_path, cluster):
    "A worker process killed in the middle of a run; the rerun's output equals the one-process result, record for record."
    c, client = cluster
    posts, comments = _bigger(tmp_path)
    want, _ = ex.extract_anecdotes(posts, comments)
    run, result = tmp_path/'run', {}
    def go():
        try: result['out'] = ex.extract_dask(posts, comments, run, address=c.scheduler_address, parts=3)
        except Exception as err: result['err'] = err
    th = threading.Thread(target=go); th.start()
    killed, t0 = None, time.time()
    while th.is_alive() and time.time() - t0 < 120 and killed is None:
        busy = [w for w, keys in client.processing().items() if any('stage' in str(k) for k in keys)]
        if busy and list((run/'_reports').glob('*.json')):  # some parts done, one running: kill its worker
            pids = client.run(os.getpid, workers=busy[:1])
            killed = next(iter(pids.values())); os.kill(killed, signal.SIGKILL)
        time.sleep(0.05)
    th.join(180)
    assert killed is not None, 'the run ended before a worker could be killed'
    if 'out' in result: assert result['out'][0] == want  # the cluster retried the lost part
    client.wait_for_workers(2, timeout=60)
    got, rep = ex.extract_dask(posts, comments, run, address=c.scheduler_address, parts=3)
    assert got == want
    ids = [r['id'] for r in got]
    assert len(ids) == len(set(ids))


# --- scruples extract -------------------------------------------------------------------------------------------------

from cli_run import in_process as _cli  # noqa: E402


def test_cli_extract_formats_globs_and_resume(tmp_path, reference):
    "Compressed formats and a glob, as positional files; the report printed and saved; a rerun resumes, same records."
    import bz2, gzip, lzma
    lines = _lines(SAMPLE_RC); third = len(lines) // 3
    data = [b''.join(l + b'\n' for l in part) for part in (lines[:third], lines[third:2 * third], lines[2 * third:])]
    (tmp_path/'RC_a.gz').write_bytes(gzip.compress(data[0])); (tmp_path/'RC_b.bz2').write_bytes(bz2.compress(data[1]))
    (tmp_path/'RC_c.xz').write_bytes(lzma.compress(data[2]))
    (tmp_path/'posts.jsonl').write_bytes(b''.join(l + b'\n' for l in _lines(SAMPLE_RS)))  # told apart by its first record
    argv = ['extract', tmp_path/'posts.jsonl', str(tmp_path/'RC_*'), '--out', tmp_path/'out', '--workers', '1', '--no-progress']
    rc, out, err = _cli(*argv)
    assert rc == 0, err
    assert 'anecdote' in out and 'kept' in out and (tmp_path/'out'/'report.json').is_file()
    assert read_anecdotes(tmp_path/'out'/'anecdotes.jsonl').post_id.tolist() == [r['post_id'] for r in reference[0]]
    assert 'too few for the dev (2,500) and test (2,500) splits' in out  # the sample cannot fill the paper's splits
    rc, out, err = _cli(*argv, '--json', '--dev-size', '5', '--test-size', '7')  # resumes, and writes the splits
    got = json.loads(out)
    assert rc == 0 and got['anecdotes'] == len(reference[0]) and all(r for _, r in got['files']) and len(got['files']) == 4
    sizes = {k: len(read_anecdotes(v)) for k, v in got['written'].items() if k.startswith('anecdotes/')}
    assert sizes == {'anecdotes/train': len(reference[0]) - 12, 'anecdotes/dev': 5, 'anecdotes/test': 7}
    assert json.loads((tmp_path/'out'/'report.json').read_text())['datasets']['dev_size'] == 5
    rc, out, err = _cli(*argv, '--dev-size', '5000', '--test-size', '7')
    assert rc == 1 and 'cannot fill --dev-size 5,000' in err


@pytest.mark.parametrize('argv,msg', [
    (['extract', '{d}/RS.zst', '{d}/RC_missing.zst'], '{d}/RC_missing.zst: no such comments file'),
    (['extract', '{d}/RS.zst', '{d}/RC_*.nope'], '{d}/RC_*.nope: no file matches this pattern'),
    (['extract', '--posts', '{d}', '--comments', '{d}/RS.zst'], '{d}: a folder, not a posts file'),
    (['extract', '{d}/RS.zst', '{d}/odd.jsonl'], '{d}/odd.jsonl: cannot tell whether it holds submissions or comments'),
    (['extract', '{d}/RS.zst'], 'no comments dump given'),
    (['extract', '{d}/RS.zst', '{d}'], '{d}: a folder, not a dump file'),  # was 'no such file'
])
def test_cli_extract_bad_paths(tmp_path, argv, msg):
    (tmp_path/'RS.zst').write_bytes(SAMPLE_RS.read_bytes()); (tmp_path/'odd.jsonl').write_text('{"id": "x"}\n')
    rc, out, err = _cli(*[a.format(d=tmp_path) for a in argv], '--out', tmp_path/'out', '--no-progress')
    assert rc == 1 and err.startswith(f'scruples: error: {msg.format(d=tmp_path)}') and err.count('\n') == 1, err
    assert not (tmp_path/'out').exists()


def test_plan_sizes_files_by_their_content(tmp_path):
    "Costs come from the decompressed size (sampled), not the file size: a very compressible posts dump is still split."
    posts = _lines(SAMPLE_RS) * 40
    rs = _write(tmp_path/'RS.zst', posts, compress=True)
    rc = [_write(tmp_path/f'RC_{i}.zst', _lines(SAMPLE_RC) * 4, compress=True) for i in range(2)]
    assert ex._inflated_size(rs)[0] > 20 * rs.stat().st_size  # replicated text: far above a dump's usual ratio
    plan = ex._plan([(rs, 'posts')] + [(p, 'comments') for p in rc], tmp_path/'run', ex.SUBREDDIT, 2, None)
    assert sum(p['kind'] == 'posts' for p in plan) >= 2


def test_extract_is_an_ordinary_subcommand():
    "`extract` is added in `parser()` with the other subcommands, not by wrapping it and searching argparse's private `_actions`."
    import inspect
    from scruples import cli
    assert '._actions' not in inspect.getsource(cli) and not hasattr(cli, '_parser_without_extract')
    args = cli.parser().parse_args(['extract', 'RS_x', 'RC_x', '--out', 'o', '--workers', '2'])
    assert args.fn is cli._cmd_extract and args.files == ['RS_x', 'RC_x'] and args.workers == 2 and args.subreddit == 'AmItheAsshole'


def test_plan_charges_every_part_the_decompression(tmp_path, reference):
    "Every part decompresses its file from the start: the plan charges that, so slow codecs (bz2, xz) never get more parts."
    import bz2, lzma
    data = b''.join(l + b'\n' for l in _lines(SAMPLE_RC) * 20)
    plain = tmp_path/'RC.jsonl'; plain.write_bytes(data)
    (tmp_path/'RC.jsonl.bz2').write_bytes(bz2.compress(data)); (tmp_path/'RC.jsonl.xz').write_bytes(lzma.compress(data))
    n = {name: len(ex._plan([(tmp_path/name, 'comments')], tmp_path/'run', ex.SUBREDDIT, 4, None)) for name in ('RC.jsonl', 'RC.jsonl.xz', 'RC.jsonl.bz2')}
    assert n['RC.jsonl'] >= n['RC.jsonl.xz'] >= n['RC.jsonl.bz2'] >= 1, n
    for name in n:  # a file read whole says why; a split one says None
        for t in ex._plan([(tmp_path/name, 'comments')], tmp_path/'run', ex.SUBREDDIT, 4, None):
            assert (t['why'] is None) == (t['part'][1] > 1), t
    one = ex._plan([(tmp_path/'RC.jsonl.bz2', 'comments')], tmp_path/'run', ex.SUBREDDIT, 1, None)
    assert [(t['part'], t['why']) for t in one] == [([0, 1], 'one worker')]
    assert [t['part'] for t in ex._plan([(tmp_path/'RC.jsonl.bz2', 'comments')], tmp_path/'run', ex.SUBREDDIT, 2, 3)] == [[0, 3], [1, 3], [2, 3]]
    # review: a bz2 posts file (spaCy per post) is split for idle workers like any other (it was kept whole, 3 cores idle)
    big = tmp_path/'RS_big.bz2'; big.write_bytes(bz2.compress(b''.join(l + b'\n' for l in _lines(SAMPLE_RS) * 400)))
    assert len(ex._plan([(big, 'posts')], tmp_path/'run', ex.SUBREDDIT, 4, None)) > 1
    # end to end: bz2 posts and xz comments, planned for two workers, give the one-process records
    rs, rc = tmp_path/'RS.bz2', tmp_path/'RC.xz'
    rs.write_bytes(bz2.compress(b''.join(l + b'\n' for l in _lines(SAMPLE_RS))))
    rc.write_bytes(lzma.compress(b''.join(l + b'\n' for l in _lines(SAMPLE_RC))))
    recs, _ = ex.extract_dask(rs, rc, tmp_path/'out', scheduler='sync', num_workers=2, warn=False)
    assert recs == reference[0]
    assert all(p[1][0] < p[1][1] for p in json.loads((tmp_path/'out'/'report.json').read_text())['parts'])
