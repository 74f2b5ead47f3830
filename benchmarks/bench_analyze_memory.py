"""Peak resident memory of `scruples analyze` on a 10,000-item, 5-vote dataset with the frozen encoder (issue 43: at
most 1 GB), measured with `/usr/bin/time -v` around the command (the kernel process that runs the notebook included:
`time -v` reports the largest of the process and its waited-for children).

  python benchmarks/bench_analyze_memory.py [--items 10000] [--votes 5] [--out DIR]
Prints one line: items, seconds, peak resident MB, and the goal.
"""
import argparse, re, shutil, subprocess, sys, tempfile, time
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
    t0 = time.perf_counter()
    r = subprocess.run(['/usr/bin/time', '-v', *exe], capture_output=True, text=True)
    dt = time.perf_counter() - t0
    peak = re.search(r'Maximum resident set size \(kbytes\): (\d+)', r.stderr)
    if r.returncode or not peak:
        sys.exit(f'analyze failed ({r.returncode}):\n{r.stderr[-3000:]}')
    mb = int(peak.group(1)) / 1024
    print(f'memory: analyze --finetune no on {a.items:,} items x {a.votes} votes: {dt:.0f} s, '
          f'peak resident {mb:,.0f} MB (GOAL <= {GOAL_MB} MB: {"met" if mb <= GOAL_MB else "NOT met"})')


if __name__ == '__main__':
    main()
