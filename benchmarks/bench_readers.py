"""Benchmark: the validating Dilemmas reader against pandas' unvalidated JSON-lines reader.

Prints the time of each way on the same file in one run and their ratio (ours / reference). The
reference does no validation at all, so a ratio near 1 means validation is nearly free. Usage:
    python benchmarks/bench_readers.py [FILE] [--repeat N]
Without FILE it uses the real dev Dilemmas when found, else a synthetic file of the same size.
"""
import argparse, json, tempfile, time
from pathlib import Path

import pandas as pd

from scruples.data import read_dilemmas
from scruples.fetch import find_file
from scruples.synthetic import synthetic_dilemmas


def _synthetic_file(n=2340) -> Path:
    df = synthetic_dilemmas(n, seed=0)
    path = Path(tempfile.mkdtemp()) / 'synthetic.scruples-dilemmas.jsonl'
    with path.open('w') as f:
        for r in df.itertuples():
            f.write(json.dumps({'id': r.id, 'actions': [{'id': r.action_1_id, 'description': r.action_1},
                                                       {'id': r.action_2_id, 'description': r.action_2}],
                                'gold_annotations': [int(r.gold_1), int(r.gold_2)], 'gold_label': int(r.gold_label),
                                'human_perf_annotations': [int(r.human_1), int(r.human_2)],
                                'human_perf_label': int(r.human_label), 'controversial': bool(r.controversial)}) + '\n')
    return path


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter(); fn(); times.append(time.perf_counter() - t0)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('file', nargs='?'); ap.add_argument('--repeat', type=int, default=5)
    args = ap.parse_args()
    if args.file: path = Path(args.file)
    else:
        try: path = find_file('dilemmas', 'dev')
        except FileNotFoundError: path = _synthetic_file()
    n = len(read_dilemmas(path))
    ours = best_of(lambda: read_dilemmas(path), args.repeat)
    ref = best_of(lambda: pd.read_json(path, lines=True), args.repeat)
    print(f'file: {path} ({n} records)')
    print(f'read_dilemmas (validating): {ours * 1e3:8.1f} ms')
    print(f'pandas.read_json(lines=True): {ref * 1e3:8.1f} ms')
    print(f'ratio ours/reference: {ours / ref:.2f}')


if __name__ == '__main__':
    main()
