"""Benchmark: BEST macro F1 with 10,000 posterior samples, against a one-sample-at-a-time loop.

The reference draws one posterior sample at a time (a Dirichlet draw for every example, numpy), takes the argmax and scores it with
scikit-learn's f1_score: the way the estimator is usually written. It is timed on `--ref-samples` samples and
scaled linearly to the same number of samples (its cost is linear in them); both run in this process.
Usage: python benchmarks/bench_best.py [COUNTS.json] [--samples 10000] [--ref-samples 500]
Without COUNTS it uses the real Anecdotes dev label counts when found, else synthetic ones (2,500 x 5).

--bounded (issue 28): `best_estimates` with its defaults (accuracy, macro F1, cross-entropy; 10,000 posterior samples,
200 bootstrap resamples) on 100,000 examples x 3 classes and on 10 examples x 10,000 classes, each in a fresh process under
/usr/bin/time -v (wall time, CPU time, peak memory). The reference for the tall case is drawing every example's prediction
(the path below `_GROUPED_MIN` examples), timed on accuracy with 1,000 samples and no bootstrap beside the grouped draws.

--priors (issue 41): `best_estimates` with its defaults on 100,000 items x 3 classes (three kinds of item, 3-7 votes)
with the flexible prior ('npmle', and 'auto': the held-out choice and the posterior predictive check too) against the
single-Dirichlet path, in fresh processes; prints the ratio.
--study (issue 41): the larger simulation study of the BEST notebook (`prior_study`: 4 scenarios x 2-5 classes x
`--sims` datasets of 1,500 items with 1-10 votes), its table of bias and 95% interval coverage per cell, with the
coverage's exact 95% interval; `--scenarios`, `--classes`, `--prior-list` and `--seed` choose the cells and datasets.
"""
import argparse, re, subprocess, sys, time
from pathlib import Path

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


CASES = {'100,000 x 3': "g.multinomial(5, g.dirichlet([1.0, 1.0, 1.0], 100_000))",
         '10 x 10,000': "g.integers(0, 5, (10, 10_000)) + (np.arange(10_000) == 0)"}

def child(case: str, code: str) -> dict:
    "Run `code` after making `c` for `case` in a fresh interpreter under /usr/bin/time -v: wall s, CPU s, peak MB, its stdout."
    script = ('import numpy as np, time, warnings; warnings.simplefilter("ignore"); g = np.random.default_rng(0); '
              f'c = {CASES[case]}; import scruples.best as B; t0 = time.perf_counter(); {code}; print("inner", time.perf_counter() - t0)')
    timer = ['/usr/bin/time', '-v'] if Path('/usr/bin/time').exists() else []
    r = subprocess.run([*timer, sys.executable, '-c', script], capture_output=True, text=True)
    if r.returncode: raise RuntimeError(r.stderr[-2000:])
    get = lambda pat, f=float: f(m.group(1)) if (m := re.search(pat, r.stderr)) else float('nan')
    cpu = get(r'User time \(seconds\): ([\d.]+)') + get(r'System time \(seconds\): ([\d.]+)')
    return {'inner': get_inner(r.stdout), 'cpu': cpu, 'rss_mb': get(r'Maximum resident set size \(kbytes\): (\d+)') / 1024, 'out': r.stdout}

def get_inner(out: str) -> float:
    m = re.search(r'inner ([\d.]+)', out)
    return float(m.group(1)) if m else float('nan')

def bounded():
    "The two sizes of issue 28 with best's defaults, and the tall case's grouped draws against drawing every example."
    import os
    print(f'load average: {os.getloadavg()[0]:.2f} (the machine is shared: compare ratios, not times)')
    for case in CASES:
        r = child(case, 'B.best_estimates(c)')
        print(f'best_estimates defaults, {case}: {r["inner"]:.1f} s wall in best_estimates, {r["cpu"]:.1f} s CPU for the process, '
              f'peak memory {r["rss_mb"]:.0f} MB')
    grouped = child('100,000 x 3', 'B.best_estimates(c, metrics=["accuracy"], n_samples=1000, n_boot=0)')
    plain = child('100,000 x 3', 'B._GROUPED_MIN = 10**12; B.best_estimates(c, metrics=["accuracy"], n_samples=1000, n_boot=0)')
    print(f'accuracy, 1,000 samples, 100,000 x 3: grouped draws {grouped["inner"]:.2f} s, every example drawn {plain["inner"]:.2f} s '
          f'(peak {grouped["rss_mb"]:.0f} vs {plain["rss_mb"]:.0f} MB)')
    print(f'speed-up (every example / grouped): {plain["inner"] / grouped["inner"]:.0f}x')

CASES['100,000 x 3, three kinds'] = ("np.array([[0.9, 0.05, 0.05], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]])"
                                     "[g.choice(3, 100_000, p=[0.5, 0.3, 0.2])]; c = g.multinomial(g.integers(3, 8, 100_000), c)")


def priors():
    "BEST on 100,000 x 3 with the flexible prior against the single Dirichlet, each in a fresh process."
    import os
    print(f'load average: {os.getloadavg()[0]:.2f} (the machine is shared: compare ratios, not times)')
    case, t = '100,000 x 3, three kinds', {}
    for prior in ('dirichlet', 'npmle', 'auto'):
        r = child(case, f'r = B.best_estimates(c, prior={prior!r}); print(r.prior.prior.describe(), r[0][1]["estimate"])')
        t[prior] = r['inner']
        print(f'prior={prior!r}: {r["inner"]:.1f} s wall in best_estimates (peak {r["rss_mb"]:.0f} MB); '
              f'{r["out"].splitlines()[0]}')
    print(f'ratio to the single Dirichlet: npmle {t["npmle"] / t["dirichlet"]:.2f}x, auto {t["auto"] / t["dirichlet"]:.2f}x')


def study(n_sims: int, scenarios=None, classes=(2, 3, 4, 5), priors=('dirichlet', 'auto'), seed=0, out=None):
    """The simulation study of issue 41 at a larger size: bias and coverage of each prior, per cell (scenario, classes,
    prior, metric) with the coverage's exact (Clopper-Pearson) 95% interval over the cell's datasets."""
    import pandas as pd
    from scipy.stats import beta
    from scruples.best import PRIOR_SCENARIOS, prior_study
    t0 = time.perf_counter()
    st = prior_study(scenarios=scenarios or PRIOR_SCENARIOS, classes=classes, n_items=1500, n_sims=n_sims,
                     priors=priors, n_samples=1000, n_boot=100, seed=seed)
    if out: st.to_csv(out, index=False)
    st['width'] = st.ci_high - st.ci_low
    tab = (st.groupby(['scenario', 'classes', 'prior', 'metric'], sort=False)
             .agg(datasets=('covered', 'size'), covered=('covered', 'sum'), true=('true', 'mean'),
                  estimate=('estimate', 'mean'), bias=('error', 'mean'), mean_abs_error=('error', lambda e: e.abs().mean()),
                  width=('width', 'mean'), npmle_chosen=('chosen', lambda s: (s == 'npmle').mean())))
    tab['coverage'] = tab.covered / tab.datasets
    n, x = tab.datasets, tab.covered
    tab['cov_low'] = np.where(x > 0, beta.ppf(0.025, x, n - x + 1), 0.0)
    tab['cov_high'] = np.where(x < n, beta.ppf(0.975, x + 1, n - x), 1.0)
    with pd.option_context('display.width', 250, 'display.max_rows', 200, 'display.max_columns', 20):
        print(tab.round(3))
    print(f'{len(st) // 2} BEST runs in {time.perf_counter() - t0:.0f} s')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('counts', nargs='?'); ap.add_argument('--samples', type=int, default=10000)
    ap.add_argument('--ref-samples', type=int, default=500)
    ap.add_argument('--bounded', action='store_true', help='time and memory of the two sizes of issue 28 instead')
    ap.add_argument('--priors', action='store_true', help='100,000 x 3 with the flexible prior against the Dirichlet')
    ap.add_argument('--study', action='store_true', help='the simulation study of the priors, larger (issue 41)')
    ap.add_argument('--sims', type=int, default=5, help='--study: datasets per scenario and number of classes')
    ap.add_argument('--scenarios', help="--study: scenarios, comma-separated (default: all of PRIOR_SCENARIOS)")
    ap.add_argument('--classes', default='2,3,4,5', help='--study: numbers of classes, comma-separated')
    ap.add_argument('--prior-list', default='dirichlet,auto', help="--study: the priors BEST runs under")
    ap.add_argument('--seed', type=int, default=0, help='--study: the seed of the simulated datasets')
    ap.add_argument('--out', help='--study: write the rows (one per dataset, prior and metric) to this CSV')
    args = ap.parse_args()
    if args.bounded: return bounded()
    if args.priors: return priors()
    if args.study:
        return study(args.sims, args.scenarios.split(',') if args.scenarios else None,
                     tuple(int(k) for k in args.classes.split(',')), tuple(args.prior_list.split(',')), args.seed, args.out)
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
