"""Benchmark: the Dirichlet-multinomial MLE (`scruples.dirichlet`) against scipy's L-BFGS-B fit it replaced.

The reference is the fit `scruples.dirichlet` used before issue 23: `scipy.optimize.minimize` (L-BFGS-B on log alpha
in [-20, 20], analytic gradient) and, with a fixed mean, `minimize_scalar` (bounded Brent on the log concentration in
[-10, 20]); it is copied here and imports scipy.optimize lazily. Both run in this process on the same sets: the real
label counts when found, and synthetic Dirichlet-multinomial draws (k = 2..50 classes, concentrations 0.05..1e4, 1 to
100,000 rows, zero rows, single annotators, no overdispersion, extreme imbalance, counts beyond 2**53, one row).
For each set it prints the time per fit of both, their ratio, and the difference of the log-likelihoods
(summed exactly for integer counts, see `accurate_ll`; ours minus the reference, relative to 1 + |ll|); it fails (exit 1) when ours is lower by more than
1e-9 (1 + |ll|) (beyond lgamma's rounding, where the counts are too large to sum exactly) or warns where the
reference did not.
Usage: python benchmarks/bench_dirichlet.py [--quick] [--seed 0]
"""
import argparse, sys, time, warnings

import numpy as np
from scipy.special import digamma, gammaln

from scruples.dirichlet import DirichletFitWarning, dirichlet_multinomial_mle, dm_log_likelihood


def reference_mle(counts, mean=None):
    "The fit before issue 23 (scipy.optimize); returns (alpha, warned)."
    from scipy.optimize import minimize, minimize_scalar
    c = np.asarray(counts, dtype=float); n = c.sum(1)
    def nll(alpha):
        a = alpha.sum()
        return -((gammaln(a) - gammaln(n + a)).sum() + (gammaln(c + alpha) - gammaln(alpha)).sum())
    if mean is not None:
        m = np.asarray(mean, dtype=float) / np.sum(mean)
        res = minimize_scalar(lambda ls: nll(np.exp(ls) * m), bounds=(-10, 20), method='bounded', options={'xatol': 1e-10})
        return np.exp(res.x) * m, not res.success or not np.isfinite(res.fun)
    def fun(la):
        alpha = np.exp(la); a = alpha.sum()
        grad = (digamma(a) - digamma(n + a)).sum() + (digamma(c + alpha) - digamma(alpha)).sum(0)
        return nll(alpha), -grad * alpha
    res = minimize(fun, np.zeros(c.shape[1]), jac=True, method='L-BFGS-B', bounds=[(-20, 20)] * c.shape[1], options={'gtol': 1e-10})
    stalled = res.nit == 0 or np.abs(res.jac).max() > 1e-3 * (1 + abs(res.fun))
    return np.exp(res.x), bool(not np.isfinite(res.fun) or not res.success and stalled)


def accurate_ll(counts, alpha):
    """The summed log-likelihood (no multinomial coefficient) without lgamma's cancellation at large alpha, for integer
    counts: sum_k c_k log(a_k / A) + sum_k sum_{j < c_k} log1p(j / a_k) - sum_{j < n} log1p(j / A); lgamma otherwise."""
    c, a = np.asarray(counts, dtype=float), np.asarray(alpha, dtype=float)
    n, A = c.sum(1), a.sum()
    if (c != np.round(c)).any() or n.max() > 10**5: return dm_log_likelihood(c, a, coefficient=False).sum()
    return exact_ll(c, a, n, A)


def rounding(counts, alpha):
    "The rounding error of `accurate_ll`: 0 where it sums exactly, else about 1e-15 times the lgamma terms' magnitude."
    c, a = np.asarray(counts, dtype=float), np.asarray(alpha, dtype=float)
    if not ((c != np.round(c)).any() or c.sum(1).max() > 10**5): return 0.0
    n, A = c.sum(1), a.sum()
    return 1e-15 * (np.abs(gammaln(c + a)).sum() + len(c) * np.abs(gammaln(a)).sum() + np.abs(gammaln(n + A)).sum() + len(c) * abs(gammaln(A)))


def exact_ll(c, a, n, A):
    "The integer-count sum of accurate_ll."
    ll = (c * np.log(a / A)).sum()
    for j in range(1, int(n.max())):
        ll += ((c > j) * np.log1p(j / a)).sum() - ((n > j) * np.log1p(j / A)).sum()
    return ll


def ours_mle(counts, mean=None):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        alpha = dirichlet_multinomial_mle(counts, mean=mean)
    return alpha, any(issubclass(w.category, DirichletFitWarning) for w in caught)


def dm_counts(rng, alpha, totals):
    "Dirichlet-multinomial draws: one row per total."
    return rng.multinomial(totals, rng.dirichlet(alpha, size=len(totals)))


def real_sets():
    "The real label counts on this machine: (name, counts, mean or None)."
    from scruples.data import label_counts, read_label_counts, read_dilemmas
    from scruples.fetch import find_file
    from scruples.synthetic import TABLE2_FREQUENCIES
    out = []
    for name, kind, split, read in [('anecdotes dev', 'anecdotes-label-counts', 'dev', read_label_counts),
                                    ('dilemmas dev', 'dilemmas-label-counts', 'dev', read_label_counts),
                                    ('anecdotes test', 'anecdotes-label-counts', 'test', read_label_counts),
                                    ('dilemmas test', 'dilemmas', 'test', read_dilemmas)]:
        try: c = label_counts(read(find_file(kind, split)))
        except (FileNotFoundError, ValueError): continue
        c = c[c.sum(1) > 0]
        out.append((f'real {name}', c, None))
        if name == 'anecdotes dev': out.append((f'real {name}, Table 2 mean', c, list(TABLE2_FREQUENCIES.values())))
    return out


def synthetic_sets(seed=0, quick=False):
    "(name, counts, mean or None) for the synthetic cases."
    rng, out = np.random.default_rng(seed), []
    ks, concs = (2, 3, 5, 10, 50), (0.05, 0.3, 2.0, 30.0, 1e4)
    ns = (1, 10, 300, 5000) if quick else (1, 10, 300, 5000, 100_000)
    for k in ks:
        for conc in concs:
            mean = rng.dirichlet(np.full(k, 2.0)) + 0.01; mean /= mean.sum()
            for n in ns:
                if n == 100_000 and (k > 5 or conc not in (0.3, 1e4)): continue  # keep the reference's time bounded
                c = dm_counts(rng, conc * mean, rng.integers(0, 12, n) if n > 1 else np.array([7]))  # zero rows mixed in
                if c.sum() == 0: continue
                out.append((f'k={k} conc={conc:g} n={n}', c, None))
                if n == 300: out.append((f'k={k} conc={conc:g} n={n} fixed mean', c, mean))
    for k in (2, 3, 5):
        out.append((f'k={k} single annotators n=2000', dm_counts(rng, np.linspace(0.5, 2, k), np.ones(2000, int)), None))
        p = np.linspace(1, 2, k); p /= p.sum()
        out.append((f'k={k} no overdispersion n=1000', rng.multinomial(10, p, size=1000), None))
        out.append((f'k={k} no overdispersion n=1000 fixed mean', rng.multinomial(10, p, size=1000), p))
    for p1 in (0.99, 0.999, 0.9999):
        for conc in (0.1, 5.0, 1e4):
            out.append((f'k=2 imbalance {p1} conc={conc:g}', dm_counts(rng, conc * np.array([p1, 1 - p1]), rng.integers(1, 10, 3000)), None))
    out.append(('k=2 all votes in one class', np.array([[5, 0], [3, 0], [1, 0]]), None))
    out.append(('k=3 one class never voted', dm_counts(rng, np.array([1.0, 2.0, 1e-9]), rng.integers(1, 8, 500)), None))
    out.append(('k=3 large counts ~1e6', dm_counts(rng, np.array([3.0, 1.0, 2.0]), rng.integers(10**5, 10**6, 200)), None))
    out.append(('k=2 counts 1e15 (< 2**53)', np.array([[10**15, 3], [3, 2], [1, 4], [2, 2]]), None))
    out.append(('k=2 counts 2**60 (> 2**53)', np.array([[2**60, 3], [3, 2], [1, 4]]), None))
    out.append(('k=3 non-integer counts', dm_counts(rng, np.array([1.0, 2.0, 0.5]), rng.integers(1, 10, 500)) * 0.5, None))
    out.append(('k=2 one row', np.array([[3, 1]]), None))
    out.append(('k=5 one row', np.array([[0, 4, 1, 0, 2]]), None))
    return out


def timed(fn, *args, budget=0.2, max_reps=20):
    "Seconds per call (the best of repeated calls, within about `budget` seconds), and the last result."
    t0 = time.perf_counter(); res = fn(*args); best = time.perf_counter() - t0; spent, reps = best, 1
    while spent < budget and reps < max_reps:
        t0 = time.perf_counter(); res = fn(*args); dt = time.perf_counter() - t0
        best, spent, reps = min(best, dt), spent + dt, reps + 1
    return best, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--quick', action='store_true', help='skip the 100,000-row sets'); ap.add_argument('--seed', type=int, default=0)
    args = ap.parse_args()
    sets = real_sets() + synthetic_sets(args.seed, args.quick)
    rows, bad = [], []
    print(f'{"set":46s} {"ours ms":>9s} {"L-BFGS-B ms":>11s} {"ratio":>6s} {"ll diff":>11s} {"rel diff":>10s}  warnings')
    for name, c, mean in sets:
        t_o, (a_o, w_o) = timed(ours_mle, c, mean)
        t_r, (a_r, w_r) = timed(reference_mle, c, mean)
        with np.errstate(all='ignore'): ll_o, ll_r = accurate_ll(c, a_o), accurate_ll(c, a_r)
        d = ll_o - ll_r; rel = d / (1 + abs(ll_r))
        tie = bool(abs(d) <= max(rounding(c, a_o), rounding(c, a_r)))  # lgamma cannot tell them apart (counts near 2**53)
        flag = 'ours' * w_o + ' ' + 'ref' * w_r + ' within rounding' * bool(tie and d != 0)
        print(f'{name:46s} {t_o * 1e3:9.2f} {t_r * 1e3:11.2f} {t_r / t_o:6.1f} {d:11.3g} {rel:10.2e}  {flag.strip()}')
        rows.append((name, t_r / t_o, d, 0.0 if tie else rel, w_o, w_r))
        if (w_o and not w_r) or (not w_r and not tie and not rel >= -1e-9): bad.append(name)
    ok = [r for r in rows if not r[5]]  # sets where the reference converged
    ratio = np.array([r[1] for r in rows]); rel = np.array([r[3] for r in ok])
    print(f'\n{len(rows)} sets; reference converged on {len(ok)}, ours on {sum(not r[4] for r in rows)}')
    print(f'speed-up (reference time / ours): median {np.median(ratio):.1f}x, min {ratio.min():.1f}x, max {ratio.max():.1f}x, '
          f'geometric mean {np.exp(np.log(ratio).mean()):.1f}x')
    print(f'relative log-likelihood difference (ours - reference) / (1 + |ll|) where the reference converged: '
          f'min {rel.min():.2e}, max {rel.max():.2e}  (goal: min >= -1e-9)')
    higher = sorted((r for r in ok if r[3] > 1e-12), key=lambda r: -r[3])
    print(f'ours higher by more than 1e-12 (1 + |ll|) on {len(higher)} sets: ' + '; '.join(f'{r[0]} (+{r[2]:.3g})' for r in higher[:12]))
    if bad: print('FAILED on: ' + '; '.join(bad)); sys.exit(1)
    print('goal met: never lower than the reference by more than 1e-9 (1 + |ll|), never a warning where it converged')


if __name__ == '__main__':
    main()
