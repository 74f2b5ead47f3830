"""Benchmark: BEST macro F1 with 10,000 posterior samples, against a one-sample-at-a-time loop.

The reference draws one posterior sample at a time (a Dirichlet draw for every example, numpy), takes the argmax and scores it with
scikit-learn's f1_score: the way the estimator is usually written. It is timed on `--ref-samples` samples and
scaled linearly to the same number of samples (its cost is linear in them); both run in this process.
Usage: python benchmarks/bench_best.py [COUNTS.json] [--samples 10000] [--ref-samples 500]
Without COUNTS it uses the real Anecdotes dev label counts when found, else synthetic ones (2,500 x 5).
"""
import argparse, time

import numpy as np
from sklearn.metrics import f1_score

from scruples.best import best_samples, fit_dirichlet_prior
from scruples.data import label_counts, read_label_counts
from scruples.fetch import find_file
from scruples.synthetic import synthetic_anecdotes
from scruples.metrics import hard_labels


def reference(counts, alpha, n_samples, seed=0):
    "One posterior sample at a time (all examples' Dirichlet draws at once), argmax, sklearn's macro F1."
    rng, y, post = np.random.default_rng(seed), hard_labels(counts), alpha + counts
    scores = []
    for _ in range(n_samples):
        g = rng.standard_gamma(post)  # a Dirichlet draw per example, up to normalization (argmax unchanged)
        scores.append(f1_score(y, g.argmax(1), average='macro'))
    return np.array(scores)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('counts', nargs='?'); ap.add_argument('--samples', type=int, default=10000)
    ap.add_argument('--ref-samples', type=int, default=500)
    args = ap.parse_args()
    if args.counts: counts, what = label_counts(read_label_counts(args.counts)), args.counts
    else:
        try: p = find_file('anecdotes-label-counts', 'dev'); counts, what = label_counts(read_label_counts(p)), str(p)
        except FileNotFoundError: counts, what = label_counts(synthetic_anecdotes(2500, text=False)), 'synthetic anecdotes'
    alpha = fit_dirichlet_prior(counts)
    t0 = time.perf_counter(); ours = best_samples(counts, 'macro_f1', alpha, n_samples=args.samples, seed=0)
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter(); ref = reference(counts, alpha, args.ref_samples)
    t_ref = (time.perf_counter() - t0) * args.samples / args.ref_samples
    se = np.hypot(ours.std() / np.sqrt(len(ours)), ref.std() / np.sqrt(len(ref)))
    print(f'counts: {what} {counts.shape}')
    print(f'scruples.best.best_samples: {args.samples} samples in {t_ours:.2f} s  (macro F1 {ours.mean():.4f})')
    print(f'reference loop (sklearn):    {args.ref_samples} samples in {t_ref * args.ref_samples / args.samples:.2f} s '
          f'-> {t_ref:.1f} s for {args.samples}  (macro F1 {ref.mean():.4f})')
    print(f'estimates differ by {abs(ours.mean() - ref.mean()):.4f} ({abs(ours.mean() - ref.mean()) / se:.1f} standard errors)')
    print(f'speed-up (reference / ours): {t_ref / t_ours:.0f}x')


if __name__ == '__main__':
    main()
