"""Benchmark: the extraction pipeline's speed per CPU-second, its 1 -> 2 worker speed-up, and a month of the subreddit.

Input: the shipped dump sample's comments (scruples/extraction_data/RC_sample.zst) replicated with fresh ids to
`--comments` records, bodies lengthened with neutral sentences and the extra fields of real dump lines added (about
1 KB a line), written as `--files` zstandard files, and the sample's submissions replicated to match (one post per
`--comments-per-post` comments). Measured in one run (the reference first):

default (the stage that scales: parsing comments)
  plain loop       one process: stream, json.loads, parse_comment over the files -- the reference
  extract_dask w   the whole pipeline (`extract_dask`, local processes) with w = 1 and 2 workers
  1 file, 2 w      the same comments in ONE file with 2 workers: the file is split into parts
  old, w           the previous design (a dask.bag task per file, dask's default batching of 6 tasks per process)

--month (the whole pipeline on a month of the subreddit's size: posts with spaCy actions, comments, join, records)
  plain loop       `extract_anecdotes`, one process
  extract_dask 2   `extract_dask` with 2 worker processes

--big-file (a month that is ONE posts file and ONE comments file, the comments file the big one)
  plain loop       `extract_anecdotes`, one process
  extract_dask 1   `extract_dask` with 1 local worker process
  extract_dask 2   the same with 2: the speed-up 1 -> 2 is the number asked for (>= 1.8x on an idle machine); the plan
                   (parts per file) and CPU-seconds are printed beside the wall clock, with the load average; each
                   set-up runs --repeat times (1 and 2 workers in turn) and the median is shown

--titles (actions from post titles, spaCy en_core_web_sm)
  per title        `extract_action` once per title (the pipeline before batching) -- the reference
  batched          `extract_actions`: distinct texts through `nlp.pipe` in batches (what the pipeline does now)

--compressions (the cost of splitting a file in parts: each part decompresses the whole file)
  a ~6 MB synthetic comments dump in each compression: its decompression alone, and the CPU-seconds of staging it as
  1, 2 and 4 parts (`stage_file`, one process), as ratios to 1 part. Why bz2/xz files are not split by the plan.

Wall-clock ratios depend on what else runs on the machine; CPU-seconds (process time, summed over the workers) do not,
and "busy" (the parts' summed wall time / the run's wall time) shows how many workers were working at once.
Usage: python benchmarks/bench_extraction.py [--comments 200000] [--files 2]
       python benchmarks/bench_extraction.py --month [--comments 1000000] [--comments-per-post 30]
       python benchmarks/bench_extraction.py --big-file [--comments 300000] [--comments-per-post 50] [--repeat 3]
       python benchmarks/bench_extraction.py --titles [3000]
       python benchmarks/bench_extraction.py --compressions
"""
import argparse, json, os, resource, shutil, tempfile, time
from pathlib import Path

import zstandard

from scruples import extraction as ex
from scruples.dumps import GOLD_DIR, iter_records, open_dump
from scruples.records import DELETED, parse_comment

PAD = ['I read the whole thing twice before commenting.', 'My family had a very similar argument at Thanksgiving.',
       'People in these comments are being way too harsh.', 'You should sit down with her and talk it through.',
       'Honestly this sounds exhausting for everyone involved.', 'I would be upset too if my roommate did that.']
EXTRA = {'all_awardings': [], 'associated_award': None, 'author_flair_css_class': None, 'author_flair_richtext': [],
         'author_flair_type': 'text', 'author_fullname': 't2_abcdefg', 'author_patreon_flair': False, 'collapsed': False,
         'collapsed_reason': None, 'edited': False, 'gildings': {}, 'locked': False, 'no_follow': True, 'send_replies': True,
         'total_awards_received': 0, 'treatment_tags': [], 'score_hidden': False, 'archived': False, 'can_gild': True}


def _sample(name):
    with open_dump(GOLD_DIR/name) as f: return [json.loads(l) for l in f.read().splitlines() if l.strip()]


def make_files(n, folder, n_files=2, group=50, tag='RC_bench'):
    "Replicate the sample's comments (copy k refers to the posts of copy k // group); about 1 KB a line."
    recs, out, k = _sample('RC_sample.zst'), [], 0
    while len(out) < n:
        for j, r in enumerate(recs):
            r = dict(r, id=f"{r['id']}x{k}", link_id=f"{r['link_id']}x{k // group}", **EXTRA)
            if r.get('body') not in DELETED and r.get('author') != 'AutoModerator':
                r['body'] = (r.get('body') or '') + ''.join(' ' + PAD[(j + i) % len(PAD)] for i in range((j * 7 + k) % 6))
            if str(r.get('parent_id', '')).startswith('t3_'): r['parent_id'] = r['link_id']
            out.append(json.dumps(r))
            if len(out) == n: break
        k += 1
    cctx, paths, step = zstandard.ZstdCompressor(level=3), [], -(-n // n_files)
    for i in range(n_files):
        paths.append(Path(folder)/f'{tag}_{i}.zst')
        paths[-1].write_bytes(cctx.compress(('\n'.join(out[i * step:(i + 1) * step]) + '\n').encode()))
    return paths, k


def _distinct(title, m):
    "The title with a detail that makes each copy's text differ (so spaCy parses every one, as in a real month)."
    head, q, tail = (title or '').partition('?')
    return f'{head} on day {m}{q}{tail}' if m else title


def make_posts(copies, folder, distinct=False):
    "The sample's submissions, `copies` times with the ids `make_files` refers to (`distinct`: every title differs)."
    recs = _sample('RS_sample.zst')
    out = [json.dumps(dict(r, id=f"{r['id']}x{m}", **({'title': _distinct(r.get('title'), m)} if distinct else {})))
           for m in range(copies) for r in recs]
    p = Path(folder)/'RS_bench.zst'
    p.write_bytes(zstandard.ZstdCompressor(level=3).compress(('\n'.join(out) + '\n').encode()))
    return p, len(out)


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN); return r.ru_utime + r.ru_stime


def measure(f):
    "(result, wall seconds, CPU seconds of this process and of its finished children); a dict result gets both CPUs."
    import multiprocessing
    t, c, cc = time.perf_counter(), time.process_time(), children_cpu()
    out = f()
    wall, main_cpu = time.perf_counter() - t, time.process_time() - c
    deadline = time.monotonic() + 30  # the pool's workers exit after the run returns: count their CPU once reaped
    while multiprocessing.active_children() and time.monotonic() < deadline: time.sleep(0.05)
    child_cpu = children_cpu() - cc
    if isinstance(out, dict): out.update(main_cpu=main_cpu, child_cpu=child_cpu)
    return out, wall, main_cpu + child_cpu


def idle_estimate(r, workers):
    "Wall seconds on an idle machine, from CPU-seconds: the main process's work, a worker's start-up, the busiest worker."
    per_pid = {}
    for pid, c in r['pid_cpu']: per_pid[pid] = per_pid.get(pid, 0) + c
    startup = max(0.0, r['child_cpu'] - sum(per_pid.values())) / workers
    return r['main_cpu'] + startup + max(per_pid.values(), default=0.0)


def plain(paths):
    n = 0
    for p in paths:
        for _, rec in iter_records(p, []):
            parse_comment(rec); n += 1
    return n


def run_dask(posts, comments, out, workers):
    recs, rep = ex.extract_dask(posts, comments, out, num_workers=workers, warn=False)
    reps = [json.loads(p.read_text()) for p in (Path(out)/'_reports').glob('*.json')]
    return {'parts': len(reps), 'busy': sum(r['seconds'] for r in reps), 'pid_cpu': [(r.get('pid'), r['cpu_seconds']) for r in reps],
            'stage_cpu': sum(r['cpu_seconds'] for r in reps if r['kind'] == 'comments'), 'n': len(recs)}


def old_design(comments, out, workers):
    "The previous extract_dask stage: one dask.bag task per file, the processes scheduler's default batching."
    import dask.bag as db
    bag = db.from_sequence([str(p) for p in comments], npartitions=len(comments))
    return bag.map(lambda p, o=str(out): ex.stage_file(p, 'comments', o)).compute(scheduler='processes', num_workers=workers)


def bench_stage(args, d):
    n = args.comments
    comments, copies = make_files(n, d, args.files)
    one, _ = make_files(n, d, 1, tag='RC_one')
    posts = Path(d)/'RS_empty.jsonl'; posts.write_bytes(b'')  # no posts: this measures the comments' stage (no spaCy)
    rows = []
    _, t, c = measure(lambda: plain(comments)); rows.append(('plain loop (reference)', 1, t, c, None))
    for w in (1, 2):
        r, t, c = measure(lambda: run_dask(posts, comments, Path(d)/f'run{w}', w))
        rows.append((f'extract_dask, {w} worker(s), {args.files} files', w, t, c, r))
    r, t, c = measure(lambda: run_dask(posts, one, Path(d)/'one2', 2)); rows.append(('extract_dask, 2 workers, 1 file', 2, t, c, r))
    if not args.no_old:
        for w in (1, 2):
            _, t, c = measure(lambda: old_design(comments, Path(d)/f'old{w}', w)); rows.append((f'old design, {w} worker(s)', w, t, c, None))
    print(f'{n:,} comments in {args.files} zstd files (about 1 KB a line), {os.cpu_count()} cores, load average '
          f'{os.getloadavg()[0]:.1f} at the end')
    print(f'{"set-up":36} {"wall s":>7} {"CPU s":>7} {"comments/CPU-s":>15} {"busy":>5} {"vs plain":>9}')
    ref = rows[0][2]
    for name, w, t, c, r in rows:
        busy = f'{r["busy"] / t:5.2f}' if r else '    -'
        print(f'{name:36} {t:7.2f} {c:7.2f} {n / c:15,.0f} {busy} {ref / t:8.2f}x')
    by = {name: (t, c, r) for name, w, t, c, r in rows}
    t1, t2 = by[f'extract_dask, 1 worker(s), {args.files} files'][0], by[f'extract_dask, 2 worker(s), {args.files} files'][0]
    print(f'speed-up 1 -> 2 workers (wall clock): {t1 / t2:.2f}x ({args.files} files); one file split in parts: '
          f'{t1 / by["extract_dask, 2 workers, 1 file"][0]:.2f}x')
    e1 = idle_estimate(by[f'extract_dask, 1 worker(s), {args.files} files'][2], 1)
    e2 = idle_estimate(by[f'extract_dask, 2 worker(s), {args.files} files'][2], 2)
    e21 = idle_estimate(by['extract_dask, 2 workers, 1 file'][2], 2)
    print(f'estimated from CPU-seconds (an idle machine: main process + a worker\'s start-up + the busiest worker): '
          f'1 worker {e1:.1f} s, 2 workers {e2:.1f} s = {e1 / e2:.2f}x ({args.files} files), one file in parts {e1 / e21:.2f}x')
    if not args.no_old:
        print(f'old design 1 -> 2 workers: {by["old design, 1 worker(s)"][0] / by["old design, 2 worker(s)"][0]:.2f}x')
    s = by[f'extract_dask, 2 worker(s), {args.files} files'][2]
    print(f'comments per CPU-second inside the workers\' comment parts: {n / s["stage_cpu"]:,.0f}; plain loop: {n / rows[0][3]:,.0f}')


def bench_month(args, d):
    n = args.comments
    group = max(1, round(args.comments_per_post * len(_sample('RS_sample.zst')) / len(_sample('RC_sample.zst'))))
    comments, copies = make_files(n, d, args.files, group=group)
    posts, n_posts = make_posts(copies // group + 1, d)
    (recs, _), t_plain, c_plain = measure(lambda: ex.extract_anecdotes(posts, comments, warn=False))
    r, t_dask, c_dask = measure(lambda: run_dask(posts, comments, Path(d)/'month', args.workers))
    assert r['n'] == len(recs)
    print(f'a month: {n:,} comments in {args.files} zstd files and {n_posts:,} posts (one per {n / n_posts:.0f} comments), '
          f'{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end; {len(recs):,} anecdotes')
    print(f'plain one-process loop (extract_anecdotes): {t_plain:7.1f} s wall, {c_plain:7.1f} s CPU')
    print(f'extract_dask, {args.workers} workers:            {t_dask:7.1f} s wall, {c_dask:7.1f} s CPU, {r["parts"]} parts, '
          f'busy {r["busy"] / t_dask:.2f}')
    print(f'extract_dask vs the loop: {t_plain / t_dask:.2f}x faster (wall clock); CPU ratio {c_dask / c_plain:.2f}')
    print(f'estimated from CPU-seconds (an idle machine): loop {c_plain:.1f} s, extract_dask {idle_estimate(r, args.workers):.1f} s '
          f'= {c_plain / idle_estimate(r, args.workers):.2f}x')


def bench_big_file(args, d):
    "One posts file and one comments file: the plain loop, then extract_dask with 1 and 2 workers (the 1 -> 2 ratio)."
    n = args.comments
    group = max(1, round(args.comments_per_post * len(_sample('RS_sample.zst')) / len(_sample('RC_sample.zst'))))
    (comments,), copies = make_files(n, d, 1, group=group)
    posts, n_posts = make_posts(copies // group + 1, d, distinct=True)
    load0 = os.getloadavg()
    (recs, _), t_plain, c_plain = measure(lambda: ex.extract_anecdotes(posts, comments, warn=False))
    tries = {1: [], 2: []}
    for _ in range(args.repeat):  # 1 and 2 workers taken in turn: a slow spell of the machine touches both
        for w in (1, 2):
            shutil.rmtree(Path(d)/f'big{w}', ignore_errors=True)  # a fresh run each time (a rerun reuses the parts)
            r, t, c = measure(lambda: run_dask(posts, comments, Path(d)/f'big{w}', w))
            assert r['n'] == len(recs)
            plan = json.loads((Path(d)/f'big{w}'/'_plan.json').read_text())['parts']
            r['plan'] = {Path(f).name: k for f, k in ((t_['file'], t_['part'][1]) for t_ in plan)}
            tries[w].append((r, t, c))
    runs = {w: sorted(v, key=lambda x: x[1])[len(v) // 2] for w, v in tries.items()}  # the median run by wall clock
    mb = comments.stat().st_size / 1e6
    print(f'one posts file ({n_posts:,} posts) and one comments file ({n:,} comments, {mb:.0f} MB zstd), '
          f'{os.cpu_count()} cores; load average {load0[0]:.2f} before, {os.getloadavg()[0]:.2f} after; '
          f'{len(recs):,} anecdotes; the median of {args.repeat} runs each')
    print(f'{"set-up":28} {"wall s":>7} {"CPU s":>7} {"busy":>5}  parts per file; every run\'s wall s')
    print(f'{"plain loop (reference)":28} {t_plain:7.2f} {c_plain:7.2f}     -')
    for w, (r, t, c) in runs.items():
        print(f'{"extract_dask, " + str(w) + " worker(s)":28} {t:7.2f} {c:7.2f} {r["busy"] / t:5.2f}  {r["plan"]}; '
              + ' '.join(f'{x[1]:.2f}' for x in tries[w]))
    (r1, t1, c1), (r2, t2, c2) = runs[1], runs[2]
    state = 'idle machine' if load0[0] < 1 else f'load average {load0[0]:.1f}: rerun on an idle machine'
    print(f'speed-up 1 -> 2 workers: {t1 / t2:.2f}x wall clock, medians ({state}); '
          f'CPU-seconds 2 workers / 1 worker: {c2 / c1:.2f} (the reader\'s messages, a second worker\'s start-up)')
    print(f'2 workers vs the plain loop: {t_plain / t2:.2f}x wall')


def synthetic_titles(n, seed=0):
    "n distinct AITA/WIBTA titles of the subreddit's usual shapes."
    import random
    rnd = random.Random(seed)
    verbs = ['telling', 'not inviting', 'asking', 'refusing to pay', 'yelling at', 'ignoring', 'kicking out', 'lying to',
             'not helping', 'blocking', 'charging', 'leaving', 'uninviting', 'correcting', 'reporting', 'calling out']
    past = ['told', 'asked', 'refused to help', 'yelled at', 'ignored', 'kicked out', 'lied to', 'blocked', 'charged', 'left']
    who = ['my sister', 'my mom', 'my roommate', 'my best friend', 'my boyfriend', 'my coworker', 'my dad', 'my neighbor',
           'my wife', "my husband's family", 'my landlord', 'my brother']
    why = ['at her wedding', 'over money', 'after the funeral', 'about the dog', 'for being late', 'on my birthday',
           'because of a video game', 'during the holidays', 'about her diet', 'over a parking spot', '']
    out = set()
    while len(out) < n:
        w, x, y = rnd.choice(who), rnd.choice(why), rnd.randint(2, 60)
        t = (f'AITA for {rnd.choice(verbs)} {w} {x}' if rnd.random() < 0.6 else f'WIBTA if I {rnd.choice(past)} {w} {x}')
        out.add(f'{t.strip()} ({y}F)?' if rnd.random() < 0.3 else t.strip())
    return sorted(out)


def bench_titles(args):
    from scruples.actions import extract_action, extract_actions
    from scruples.core import load_spacy
    titles = synthetic_titles(args.titles)
    nlp = load_spacy(); extract_action(titles[0], nlp)  # loaded and warm before timing
    c0 = time.process_time(); one = [extract_action(t, nlp) for t in titles]; c_one = time.process_time() - c0
    c0 = time.process_time(); many = extract_actions(titles, nlp); c_many = time.process_time() - c0
    assert many == one, 'the batched actions differ from the per-title ones'
    twice = titles + titles[::-1]
    c0 = time.process_time(); extract_actions(twice, nlp); c_rep = time.process_time() - c0
    print(f'{len(titles):,} distinct titles, {nlp.meta.get("lang")}_{nlp.meta.get("name")} {nlp.meta.get("version")}, actions identical')
    print(f'per title (extract_action):   {len(titles) / c_one:8.0f} titles / CPU-s  (reference)')
    print(f'batched (extract_actions):    {len(titles) / c_many:8.0f} titles / CPU-s  = {c_one / c_many:.2f}x')
    print(f'batched, each title twice:    {len(twice) / c_rep:8.0f} titles / CPU-s  = {c_one * 2 / c_rep:.2f}x')


def bench_compressions(args, d):
    import bz2, gzip, lzma, random
    rnd = random.Random(0)
    words = 'the a I my friend mom dad wedding money car dog NTA YTA ESH NAH because said told never always'.split()
    raw = b''.join(json.dumps({'id': f'c{i}', 'link_id': f't3_p{i % 500}', 'parent_id': f't3_p{i % 500}',
                               'body': ' '.join(rnd.choice(words) for _ in range(rnd.randint(5, 60))),
                               'author': f'u{rnd.randint(0, 5000)}', 'created_utc': 1500000000 + i,
                               'subreddit': 'AmItheAsshole', 'score': 1}).encode() + b'\n' for i in range(20_000))
    comp = {'plain': lambda b: b, 'zst': lambda b: zstandard.ZstdCompressor(level=3).compress(b), 'gz': gzip.compress,
            'bz2': bz2.compress, 'xz': lzma.compress}
    print(f'{len(raw) / 1e6:.1f} MB of comments (20,000 lines); CPU-seconds of all parts together, ratio to 1 part')
    for name, f in comp.items():
        p = Path(d)/('RC.jsonl' + ('' if name == 'plain' else '.' + name)); p.write_bytes(f(raw))
        c0 = time.process_time()
        with open_dump(p) as fh:
            while fh.read(1 << 20): pass
        dec = time.process_time() - c0
        cpu = {}
        for k in (1, 2, 4):
            c0 = time.process_time()
            for i in range(k): ex.stage_file(p, 'comments', Path(d)/f'{name}-{k}', part=(i, k))
            cpu[k] = time.process_time() - c0
        why = ex._plan([(p, 'comments')], Path(d)/'plan', ex.SUBREDDIT, 4, None)[0]['why']
        print(f'{name:6} decompression {dec / cpu[1]:5.1%} of 1 part | 2 parts {cpu[2] / cpu[1]:.2f}x | 4 parts {cpu[4] / cpu[1]:.2f}x'
              f' | plan: {why or "split"}')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--comments', type=int, default=None, help='comments (default: 200,000; 1,000,000 with --month)')
    ap.add_argument('--files', type=int, default=2, help='number of dump files the comments are split into')
    ap.add_argument('--month', action='store_true', help='the whole pipeline on a month of the subreddit, vs the plain loop')
    ap.add_argument('--comments-per-post', type=float, default=30,
                    help='with --month, --big-file: comments per submission')
    ap.add_argument('--workers', type=int, default=2, help='with --month: worker processes')
    ap.add_argument('--no-old', action='store_true', help='skip the previous design')
    ap.add_argument('--titles', type=int, nargs='?', const=3000, default=None, help='actions from this many titles, per title vs batched')
    ap.add_argument('--compressions', action='store_true', help='the CPU cost of parts, per compression')
    ap.add_argument('--repeat', type=int, default=3, help='with --big-file: runs of each set-up (the median is shown)')
    ap.add_argument('--big-file', action='store_true',
                    help='one posts and one big comments file: 1 vs 2 workers (issue 30)')
    args = ap.parse_args()
    if args.titles: return bench_titles(args)
    args.comments = args.comments or (1_000_000 if args.month else 300_000 if args.big_file else 200_000)
    with tempfile.TemporaryDirectory() as d:
        if args.compressions: return bench_compressions(args, d)
        if args.big_file: return bench_big_file(args, d)
        (bench_month if args.month else bench_stage)(args, d)


if __name__ == '__main__':
    main()
