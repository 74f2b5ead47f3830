"""Benchmark: throughput (MB/s) of the validating readers against plain parsers on the same files, in one run.

For each format a file of about `--mb` megabytes is written, then read with our reader and with the references:
- label-count JSON (`read_label_counts`, and `read_annotated`, the one reader of tables) against `json.loads` of the text and `pandas.read_json`;
- Anecdotes JSON lines (`read_anecdotes`), the same way;
- Dilemmas JSON lines (`read_dilemmas`) against `json.loads` per line and `pandas.read_json(lines=True)`;
- counts CSV (`read_annotated`) against `pandas.read_csv`; a wide CSV with id and text columns, the same way.
The references validate nothing (no types, ranges, cross-checks, line numbers), so the ratio ours/reference is the
price of validation. Each format also prints one GOAL line: ours / the first reference beside the goal (<= 2x, issue 23). The best of `--repeat` runs is reported; ratios are measured in the same run (times alone are
noisy on a shared machine). The real dev Dilemmas are timed too when found. Usage:
    python benchmarks/bench_readers.py [--mb 10] [--repeat 3]
"""
import argparse, json, tempfile, time
from pathlib import Path

import pandas as pd

from scruples.annotations import read_annotated
from scruples.data import read_anecdotes, read_dilemmas, read_label_counts
from scruples.fetch import find_file

DILEMMA = {'actions': [{'id': 'a1', 'description': "using my roommate's command hook to hang up my towel"},
                       {'id': 'a2', 'description': 'asking my boyfriend to stop calling me "hot"'}],
           'gold_annotations': [3, 2], 'gold_label': 0, 'human_perf_annotations': [2, 3], 'human_perf_label': 1,
           'controversial': True}
ANECDOTE = {'post_id': 'p1', 'title': 'AITA for not lending my car?', 'text': 'My friend asked to borrow my car. ' * 8,
            'post_type': 'HISTORICAL', 'action': {'description': 'not lending my car', 'pronormative_score': 7, 'contranormative_score': 2},
            'label_scores': {'AUTHOR': 2, 'OTHER': 7, 'EVERYBODY': 0, 'NOBODY': 0, 'INFO': 1}, 'label': 'OTHER',
            'binarized_label_scores': {'RIGHT': 7, 'WRONG': 2}, 'binarized_label': 'RIGHT'}


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter(); fn(); times.append(time.perf_counter() - t0)
    return min(times)


def write_files(folder: Path, mb: float) -> dict:
    size = int(mb * 1e6)
    counts = folder/'counts.json'
    row = '[3, 2, 0, 1, 0],\n'
    n = size // len(row)
    counts.write_text('[\n' + row * (n - 1) + '[3, 2, 0, 1, 0]\n]\n')
    line = json.dumps({'id': 'x' * 32, **DILEMMA})
    m = size // (len(line) + 1)
    dil = folder/'big.scruples-dilemmas.jsonl'
    dil.write_text(''.join(json.dumps({'id': f'{i:032d}', **DILEMMA}) + '\n' for i in range(m)))
    csv = folder/'counts.csv'
    crow = '3,2,0,1,0\n'
    csv.write_text('author,other,everybody,nobody,info\n' + crow * (size // len(crow)))
    wide = folder/'wide.csv'
    wrow = 'some short text of a post,3,2,0,1,0\n'
    wide.write_text('id,text,author,other,everybody,nobody,info\n' + ''.join(f'x{i},{wrow}' for i in range(size // (len(wrow) + 7))))
    an = folder/'big.scruples-anecdotes.jsonl'
    an_line = len(json.dumps({'id': 'x' * 32, **ANECDOTE})) + 1
    an.write_text(''.join(json.dumps({'id': f'{i:032d}', **ANECDOTE}) + '\n' for i in range(size // an_line)))
    return {'counts': counts, 'dilemmas': dil, 'csv': csv, 'anecdotes': an, 'wide': wide}


GOAL = 2.0  # issue 23: every reader within 2x of the unvalidated parser


def report(name, path, ours, refs, repeat):
    mb = path.stat().st_size / 1e6
    t_ours = {k: best_of(f, repeat) for k, f in ours.items()}
    t_refs = {k: best_of(f, repeat) for k, f in refs.items()}
    print(f'\n{name}: {path.name}, {mb:.1f} MB')
    for k, t in {**t_ours, **t_refs}.items(): print(f'  {k:44s} {t:7.2f} s  {mb / t:7.1f} MB/s')
    for k, t in t_ours.items():
        print('  ' + '; '.join(f'{k} / {r}: {t / tr:.2f}x' for r, tr in t_refs.items()))
    r0, tr0 = next(iter(t_refs.items()))  # the goal is stated against the first (unvalidated) reference
    for k, t in t_ours.items():
        print(f'  GOAL {name}: {k} / {r0} = {t / tr0:.2f}x (goal <= {GOAL:g}x: {"met" if t / tr0 <= GOAL else "NOT met"})')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--mb', type=float, default=10); ap.add_argument('--repeat', type=int, default=3)
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp())
    f = write_files(folder, args.mb)
    report('label-count JSON', f['counts'],
           {'read_label_counts (validating)': lambda: read_label_counts(f['counts']),
            'read_annotated (validating)': lambda: read_annotated(f['counts'])},
           {'json.loads(text)': lambda: json.loads(f['counts'].read_text()),
            'pandas.read_json': lambda: pd.read_json(f['counts'])}, args.repeat)
    report('Dilemmas JSON lines', f['dilemmas'],
           {'read_dilemmas (validating)': lambda: read_dilemmas(f['dilemmas'])},
           {'json.loads per line': lambda: [json.loads(l) for l in f['dilemmas'].open()],
            'pandas.read_json(lines=True)': lambda: pd.read_json(f['dilemmas'], lines=True)}, args.repeat)
    report('Anecdotes JSON lines', f['anecdotes'],
           {'read_anecdotes (validating)': lambda: read_anecdotes(f['anecdotes'])},
           {'json.loads per line': lambda: [json.loads(l) for l in f['anecdotes'].open()],
            'pandas.read_json(lines=True)': lambda: pd.read_json(f['anecdotes'], lines=True)}, args.repeat)
    report('counts CSV', f['csv'], {'read_annotated (validating)': lambda: read_annotated(f['csv'])},
           {'pandas.read_csv': lambda: pd.read_csv(f['csv'])}, args.repeat)
    report('wide CSV with id and text', f['wide'], {'read_annotated (validating)': lambda: read_annotated(f['wide'])},
           {'pandas.read_csv': lambda: pd.read_csv(f['wide'])}, args.repeat)
    try: dev = find_file('dilemmas', 'dev')
    except FileNotFoundError: return print('\n(no real dev Dilemmas found: skipped)')
    report('real dev Dilemmas', dev, {'read_dilemmas (validating)': lambda: read_dilemmas(dev)},
           {'pandas.read_json(lines=True)': lambda: pd.read_json(dev, lines=True)}, args.repeat)


if __name__ == '__main__':
    main()
