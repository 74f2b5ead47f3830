"""Benchmark: comments/s per core for the full label extraction, and the speed-up from 1 to 2 Dask workers.

Input: the shipped dump sample's comments (scruples/extraction_data/RC_sample.zst) replicated with fresh ids to
`--comments` records, bodies lengthened with neutral sentences and the extra fields of real dump lines added
(unless --short), and written as `--files` zstandard files (the same records in both set-ups). Measured in one run:
  plain   a one-process loop over the files: stream, json.loads, parse_comment (filters + label) -- the reference
  stage   the same loop through `stage_file`, which also writes the Parquet partitions (what Dask runs per file)
  dask-1  `extract_dask`'s stage over the two files with the processes scheduler and 1 worker
  dask-2  the same with 2 workers
  no-prefilter  label extraction alone, with the fuzzy phrases run on every comment (ablation of the prefilter)
Per-core rates divide by the workers used; comments per CPU-second (process time, summed over the workers) is a
per-core rate that other jobs on a shared machine do not distort, unlike the wall-clock speed-up.
Usage: python benchmarks/bench_extraction.py [--comments 200000] [--files 2] [--workers 1,2] [--short]
       python benchmarks/bench_extraction.py --end-to-end --comments 1000000 --files 4   (a month of the subreddit)
"""
import argparse, json, os, tempfile, time
from pathlib import Path

import zstandard

from scruples import dumps, judgments, records, extraction as ex


PAD = ['I read the whole thing twice before commenting.', 'My family had a very similar argument at Thanksgiving.',
       'People in these comments are being way too harsh.', 'You should sit down with her and talk it through.',
       'Honestly this sounds exhausting for everyone involved.', 'I would be upset too if my roommate did that.']
EXTRA = {'all_awardings': [], 'associated_award': None, 'author_flair_css_class': None, 'author_flair_richtext': [],
         'author_flair_type': 'text', 'author_fullname': 't2_abcdefg', 'author_patreon_flair': False, 'collapsed': False,
         'collapsed_reason': None, 'edited': False, 'gildings': {}, 'locked': False, 'no_follow': True, 'send_replies': True,
         'total_awards_received': 0, 'treatment_tags': [], 'score_hidden': False, 'archived': False, 'can_gild': True}


def make_files(n, folder, n_files=2, pad=True):
    "Replicate the sample's comments; `pad` lengthens bodies and adds the fields real dumps carry (about 1 KB a line)."
    raw = dumps.open_dump(dumps.GOLD_DIR/'RC_sample.zst').read().splitlines()
    recs = [json.loads(l) for l in raw if l.strip()]
    out, k = [], 0
    while len(out) < n:
        for j, r in enumerate(recs):
            r = dict(r, id=f"{r['id']}x{k}", link_id=f"{r['link_id']}x{k // 50}")
            if pad:
                r.update(EXTRA)
                if r['body'] not in records.DELETED and r['author'] != 'AutoModerator':
                    r['body'] += ''.join(' ' + PAD[(j + i) % len(PAD)] for i in range((j * 7 + k) % 6))
            if r['parent_id'].startswith('t3_'): r['parent_id'] = r['link_id']
            out.append(json.dumps(r))
            if len(out) == n: break
        k += 1
    cctx, paths, step = zstandard.ZstdCompressor(level=3), [], -(-n // n_files)
    for i in range(n_files):
        paths.append(Path(folder)/f'RC_bench_{i}.zst')
        paths[-1].write_bytes(cctx.compress(('\n'.join(out[i * step:(i + 1) * step]) + '\n').encode()))
    return paths, out


def make_posts(n_comments, folder):
    "The sample's submissions replicated to match `make_files`'s link ids (one copy per 50 replications of the comments)."
    raw = dumps.open_dump(dumps.GOLD_DIR/'RS_sample.zst').read().splitlines()
    recs = [json.loads(l) for l in raw if l.strip()]
    n_rep = n_comments // 1468 + 1  # replications of the 1,468 sample comments
    out = [json.dumps(dict(r, id=f"{r['id']}x{m}")) for m in range(n_rep // 50 + 1) for r in recs]
    p = Path(folder)/'RS_bench.zst'
    p.write_bytes(zstandard.ZstdCompressor(level=3).compress(('\n'.join(out) + '\n').encode()))
    return p, len(out)


def end_to_end(n, n_files, workers, folder):
    "The whole pipeline (`extract_dask`: posts with actions, comments, Parquet, join, tally, records) at scale."
    paths, lines = make_files(n, folder, n_files); del lines
    posts, n_posts = make_posts(n, folder)
    t = time.perf_counter()
    recs, rep = ex.extract_dask(posts, paths, Path(folder)/'run', scheduler='processes', num_workers=workers)
    wall = time.perf_counter() - t
    reps = [json.loads(p.read_text()) for p in (Path(folder)/'run'/'_reports').glob('*.json')]
    cpu = {k: sum(r['cpu_seconds'] for r in reps if r['kind'] == k) for k in ('posts', 'comments')}
    print(f'end to end, {n:,} comments in {n_files} files and {n_posts:,} posts, {workers} worker processes: {wall:.0f} s wall '
          f'(stage CPU: comments {cpu["comments"]:.0f} s = {n / cpu["comments"]:,.0f} comments per CPU-second, posts with '
          f'spaCy actions {cpu["posts"]:.0f} s); {len(recs):,} anecdotes, {rep.n_malformed} malformed lines')


def plain(paths):
    n = 0
    for p in paths:
        for _, rec in dumps.iter_records(p, []):
            records.parse_comment(rec); n += 1
    return n


def timed(f, *a, **k):
    t = time.perf_counter(); r = f(*a, **k); return r, time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(); ap.add_argument('--comments', type=int, default=200_000)
    ap.add_argument('--files', type=int, default=2, help='number of dump files the comments are split into')
    ap.add_argument('--workers', default='1,2', help='Dask worker counts to time, comma-separated')
    ap.add_argument('--end-to-end', action='store_true', help='time the whole extract_dask pipeline instead (posts too)')
    ap.add_argument('--short', action='store_true', help="the sample's comments as they are (short bodies, few fields)")
    args = ap.parse_args(); workers = [int(w) for w in args.workers.split(',')]
    import dask.bag as db
    if args.end_to_end:
        with tempfile.TemporaryDirectory() as d: end_to_end(args.comments, args.files, max(workers), d)
        return
    with tempfile.TemporaryDirectory() as d:
        paths, lines = make_files(args.comments, d, args.files, pad=not args.short)
        n = args.comments
        rows, cpu = [], {}
        c0 = time.process_time(); _, t = timed(plain, paths); cpu_plain = time.process_time() - c0; rows.append(('plain loop (reference)', 1, t))
        _, t = timed(lambda: [ex.stage_file(p, 'comments', Path(d)/'stage') for p in paths]); rows.append(('stage_file loop (+Parquet)', 1, t))
        for w in workers:
            out = Path(d)/f'dask{w}'
            bag = db.from_sequence([(p, 'comments') for p in paths], npartitions=len(paths)).map(lambda t_, o=out: ex.stage_file(t_[0], t_[1], o))
            reps, t = timed(bag.compute, scheduler='processes', num_workers=w); rows.append((f'dask processes, {w} worker(s)', w, t))
            cpu[w] = sum(r['cpu_seconds'] for r in reps)
        bodies = [json.loads(l).get('body') or '' for l in lines[:50_000]]
        _, t_fast = timed(lambda: [judgments.extract_label(b) for b in bodies])
        def slow(b):  # the fuzzy phrases on every comment: no anchor prefilter, no exact pass first
            low = b.lower()
            m = judgments._initialisms(b, low)
            for rx in judgments._FUZZY.values(): m += [(x.start(), x.end(), x.lastgroup) for x in rx.finditer(low)]
            return judgments.resolve_label(b, sorted(m))
        _, t_slow = timed(lambda: [slow(b) for b in bodies])
    ref = rows[0][2]
    print(f'{n:,} comments in {len(paths)} zstd files ({sum(map(len, lines)) / n:,.0f} bytes a line, bodies of '
          f'{sum(len(json.loads(l)["body"]) for l in lines[:20000]) / min(n, 20000):,.0f} characters on average), {os.cpu_count()} cores')
    print(f'{"set-up":32} {"seconds":>8} {"comments/s":>11} {"per core":>10} {"vs plain":>9}')
    for name, w, t in rows:
        print(f'{name:32} {t:8.2f} {n / t:11,.0f} {n / t / w:10,.0f} {ref / t:8.2f}x')
    dask = {w: t for (name, w, t) in rows[2:]}
    for w in workers[1:]: print(f'speed-up {workers[0]} -> {w} Dask workers: {dask[workers[0]] / dask[w]:.2f}x (wall clock)')
    print(f'per CPU-second (insensitive to other load): plain loop {n / cpu_plain:,.0f} comments/s; '
          + ', '.join(f'Dask {w} worker(s) {n / c:,.0f}' for w, c in cpu.items()) + ' (inside the workers)')
    print(f'label extraction alone on {len(bodies):,} bodies: {len(bodies) / t_fast:,.0f}/s with the prefilter, '
          f'{len(bodies) / t_slow:,.0f}/s fuzzy phrases on every comment ({t_slow / t_fast:.1f}x slower)')


if __name__ == '__main__':
    main()
