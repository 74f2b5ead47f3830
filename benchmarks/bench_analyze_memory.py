"""Peak resident memory of `scruples analyze` on a 10,000-item, 5-vote dataset with the frozen encoder (issue 43: at
most 1 GB), measured two ways in one run: `/usr/bin/time -v` around the command (its "maximum resident set size" is the
largest single process of the tree, the CLI or the kernel that runs the notebook, not their sum), and the peak of the
whole process tree's resident memory summed (the CLI, the Jupyter kernel and any worker), sampled every 0.1 s with
psutil: what a user sees the command take. The goal applies to the tree's sum.

  python benchmarks/bench_analyze_memory.py [--items 10000] [--votes 5] [--out DIR]
Prints one line: items, seconds, peak resident MB of the tree and of its largest process, and the goal.
"""
import argparse, os, re, shutil, subprocess, sys, tempfile, threading, time
from pathlib import Path

import numpy as np
import pandas as pd

WORDS = {'fine': ['helped', 'thanked', 'shared', 'comforted'],
         'wrong': ['lied to', 'insulted', 'ignored', 'cheated'],
         'unsure': ['called', 'visited', 'emailed', 'met']}
GOAL_MB = 1024


def make_dataset(path: Path, n: int, votes: int, seed: int = 0) -> Path:
    """n distinct texts whose verb says their class, `votes` votes each (70% for the true class), as a wide CSV:
    id, text, counts."""
    rng = np.random.default_rng(seed)
    classes = list(WORDS)
    truth = rng.integers(len(classes), size=n)
    whom = ['my sister', 'a neighbour', 'my boss', 'an old friend', 'the new tenant', 'my roommate']
    texts = [f'I {rng.choice(WORDS[classes[t]])} {rng.choice(whom)} on day {i} of the trip.'
             for i, t in enumerate(truth)]
    noisy = np.where(rng.random((n, votes)) < 0.7, truth[:, None],
                     rng.integers(len(classes), size=(n, votes)))
    counts = np.stack([(noisy == k).sum(1) for k in range(len(classes))], 1)
    frame = pd.DataFrame({'id': [f'i{i}' for i in range(n)], 'text': texts, **dict(zip(classes, counts.T))})
    frame.to_csv(path, index=False)
    return path


def sample_tree(pid: int, tree: dict, stop: threading.Event, t0: float, every: float = 0.1):
    "Record in `tree` the peak of the summed resident memory of `pid` and its descendants, until `stop` is set."
    import psutil
    try:
        root = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return
    while not stop.is_set():
        total = 0
        try:
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return
        for p in procs:
            try:
                total += p.memory_info().rss
            except psutil.Error:
                pass
        if total > tree['peak']:
            tree['peak'], tree['when'] = total, time.perf_counter() - t0
        stop.wait(every)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--items', type=int, default=10_000); ap.add_argument('--votes', type=int, default=5)
    ap.add_argument('--out', default=None); ap.add_argument('--param', action='append', default=[])
    a = ap.parse_args()
    d = Path(a.out or tempfile.mkdtemp(prefix='bench-analyze-'))
    d.mkdir(parents=True, exist_ok=True)
    data = make_dataset(d / 'votes.csv', a.items, a.votes)
    out = d / 'out'
    shutil.rmtree(out, ignore_errors=True)
    exe = [str(Path(sys.executable).parent / 'scruples'), 'analyze', str(data), '--out', str(out), '--finetune', 'no']
    exe += [x for p in a.param for x in ('--param', p)]
    cache = d / 'cache'  # an empty user cache: every text is embedded in the run (a cache from another run hides it)
    shutil.rmtree(cache, ignore_errors=True)
    env = os.environ | {'SCRUPLES_CACHE': str(cache)}
    t0 = time.perf_counter()
    proc = subprocess.Popen(['/usr/bin/time', '-v', *exe], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    tree = {'peak': 0, 'largest': 0, 'when': 0.0}
    stop = threading.Event()
    threading.Thread(target=sample_tree, args=(proc.pid, tree, stop, t0), daemon=True).start()
    out_text, err_text = proc.communicate()
    stop.set()
    dt = time.perf_counter() - t0
    r = subprocess.CompletedProcess(proc.args, proc.returncode, out_text, err_text)
    peak = re.search(r'Maximum resident set size \(kbytes\): (\d+)', r.stderr)
    if r.returncode or not peak:
        sys.exit(f'analyze failed ({r.returncode}):\n{r.stderr[-3000:]}')
    mb = int(peak.group(1)) / 1024
    total = tree['peak'] / 2**20
    print(f'memory: analyze --finetune no on {a.items:,} items x {a.votes} votes: {dt:.0f} s, '
          f'peak resident of the process tree {total:,.0f} MB (at {tree["when"]:.0f} s; GOAL <= {GOAL_MB} MB: '
          f'{"met" if total <= GOAL_MB else "NOT met"}); largest single process {mb:,.0f} MB (time -v)')


if __name__ == '__main__':
    main()
