"""Benchmark: latent trait fits, ours (quadrature + L-BFGS) against the authors' Monte Carlo + SGD and against girth.

1. A 2-trait fit of simulated 1,000 x 20 responses (weights N(0, 0.8^2), paper-like): `LatentTraitModel(2)` against
   a faithful re-implementation of the authors' method (scruples/analysis/traits.py in allenai/scruples: 10,000
   fresh N(0, I) draws per mini-batch of 128, the mean of the product of Bernoulli probabilities, SGD at lr 10 with
   ReduceLROnPlateau(patience 5, factor 0.1), `--epochs` epochs, default 100 as theirs). Both fits' log-likelihoods are
   evaluated by the same dense 101 x 101 Gauss-Hermite rule, so they are comparable.
2. A 1-trait fit on LSAT-6 (1,000 x 5) and on simulated 1,000 x 20: ours against the implementation of the day issue 23
   was filed (benchmarks/bench_traits_reference.py, frozen; a stretch, not the issue's goal) and against
   `girth.twopl_mml` (the issue's goal: at least 10x girth).
All in one process, one after another; the times are wall-clock and CPU on whatever machine runs it (report ratios).
Usage: python benchmarks/bench_traits.py [--epochs 100] [--repeats 3]
"""
import argparse, sys, time, warnings
from pathlib import Path

import numpy as np
import torch as th

from scruples.traits import LatentTraitModel, lsat6, quadrature, response_patterns, simulate_responses, marginal_loglik

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_traits_reference as reference   # scruples.traits at commit 52a7f0a (issue 23's "today"), frozen


def authors_fit(Y, latent_dim, n_latent_samples=10_000, lr=1e1, n_batch_size=128, patience=5, n_epochs=100, seed=0,
                device='cpu'):
    "Their algorithm: plain Monte Carlo over Z inside every mini-batch, SGD with a plateau schedule. Returns W (J x d), b."
    gen = th.Generator(device=device).manual_seed(seed); rng = np.random.default_rng(seed)
    data = th.tensor(Y, dtype=th.float32, device=device)
    n, J = data.shape
    W = th.nn.Parameter((2. / (latent_dim + J)) ** 0.5 * th.randn(latent_dim, J, generator=gen, device=device))
    b = th.nn.Parameter(th.zeros(J, device=device))
    opt = th.optim.SGD([W, b], lr=lr)
    sched = th.optim.lr_scheduler.ReduceLROnPlateau(opt, mode='min', factor=0.1, patience=patience)
    for _ in range(n_epochs):
        perm, losses = rng.permutation(n), []
        for i in range(0, n, n_batch_size):
            opt.zero_grad()
            z = th.randn(n_latent_samples, latent_dim, generator=gen, device=device)
            probs = th.sigmoid(z @ W + b)                                   # samples x J
            y = data[th.as_tensor(perm[i:i + n_batch_size], device=device)]                              # batch x J
            lik = th.mean(th.prod(y.unsqueeze(-1) * probs.t() + (1 - y).unsqueeze(-1) * (1 - probs.t()), dim=1), dim=-1)
            loss = -th.mean(th.log(lik))
            loss.backward(); opt.step(); losses.append(loss.item())
        sched.step(np.mean(losses))
    return W.detach().cpu().numpy().T.astype(float), b.detach().cpu().numpy().astype(float)


def exact_loglik(W, b, Y, n_points):
    P, f, _ = response_patterns(Y)
    return marginal_loglik(W, b, P, np.ones_like(P), f, *quadrature(W.shape[1], n_points, prune=0), grad=False)[0]


CPU = {}  # the best CPU seconds of each `timed` call, by label (process time: what the fit used of a shared machine)

def timed(fn, repeats, label=None):
    "Best wall-clock seconds of `repeats` calls (and the best CPU seconds under `label` in CPU)."
    best, best_cpu = np.inf, np.inf
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time(); out = fn()
        best, best_cpu = min(best, time.perf_counter() - t), min(best_cpu, time.process_time() - c)
    if label: CPU[label] = best_cpu
    return out, best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--epochs', type=int, default=100)
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--device', default='cpu', help="torch device for the authors' method (theirs accepted one)")
    ap.add_argument('--one-trait', action='store_true', help='only the 1-trait fits (ours, the issue-time reference, girth)')
    a = ap.parse_args()
    th.set_num_threads(2)
    if not a.one_trait: two_traits(a)
    one_trait(a)


def two_traits(a):
    w = np.random.default_rng(1).normal(0, 0.8, (20, 2))
    Y = simulate_responses(1000, 20, 2, weights=w, seed=3)[0]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        m, t_ours = timed(lambda: LatentTraitModel(2).fit(Y), a.repeats, '2 traits')
        Yd = simulate_responses(1000, 20, 2, seed=3)[0]  # the notebook's default problem: N(0, 1) weights
        md, t_def = timed(lambda: LatentTraitModel(2).fit(Yd), a.repeats, '2 traits default')
        m31, t_31 = timed(lambda: LatentTraitModel(2, n_points=31, rule='gh').fit(Yd), a.repeats, '2 traits 31')
    t = time.perf_counter(); Wa, ba = authors_fit(Y, 2, n_epochs=a.epochs, device=a.device); t_auth = time.perf_counter() - t
    ll_ours, ll_auth = exact_loglik(m.weights_, m.intercepts_, Y, 101), exact_loglik(Wa, ba, Y, 101)
    err_def = abs(md.loglik_ - exact_loglik(md.weights_, md.intercepts_, Yd, 121))
    err_31 = abs(m31.loglik_ - exact_loglik(m31.weights_, m31.intercepts_, Yd, 121))
    print(f'2 traits, 1000 x 20, N(0, 1) weights (the default problem): wall {t_def:.2f} s, CPU {CPU["2 traits default"]:.2f} s '
          f'(goal <= 0.5 s: {"met" if CPU["2 traits default"] <= 0.5 else "NOT met"} in CPU time); '
          f'rule error {err_def:.4f} vs a dense 121 x 121 rule (goal <= 0.01: {"met" if err_def <= 0.01 else "NOT met"})')
    print(f'  the old default (31 x 31 GH, pruned at 1e-6 here): CPU {CPU["2 traits 31"]:.2f} s, rule error {err_31:.4f}; '
          f'CPU ratio old/new x{CPU["2 traits 31"] / CPU["2 traits default"]:.2f}')
    print(f'2 traits, 1000 x 20 (simulated, paper-like)')
    print(f'  ours (GH 51x51 pruned + L-BFGS):   {t_ours:8.2f} s (CPU {CPU["2 traits"]:.2f} s)  log-lik {ll_ours:.3f}  (fit rule {m.loglik_:.3f}, rule check {m.quadrature_gap_:.1e})')
    print(f'  authors (MC 10k + SGD, {a.epochs} epochs, {a.device}): {t_auth:8.2f} s  log-lik {ll_auth:.3f}')
    print(f'  speed-up x{t_auth / t_ours:.0f}; log-lik gain {ll_ours - ll_auth:+.3f}'
          + (f'; their full 100 epochs would take about {t_auth / a.epochs * 100:.0f} s (linear in epochs)' if a.epochs != 100 else ''))


def one_trait(a):
    try: import girth
    except ImportError: girth = None; print('girth not installed: the girth column is skipped')
    wpos = np.random.default_rng(2).uniform(0.5, 2.0, (20, 1))
    for name, Y1 in [('LSAT-6 1000 x 5', lsat6().to_numpy(float)),
                     ('simulated 1000 x 20', simulate_responses(1000, 20, 1, weights=wpos, seed=7)[0])]:
        r1 = max(a.repeats, 7)                                        # milliseconds: more repeats for a stable best
        m1, t1 = timed(lambda: LatentTraitModel(1).fit(Y1), r1, name)
        mr, tr = timed(lambda: reference.LatentTraitModel(1).fit(Y1), r1, 'reference ' + name)
        llo, llr = exact_loglik(m1.weights_, m1.intercepts_, Y1, 201), exact_loglik(mr.weights_, mr.intercepts_, Y1, 201)
        ratio = CPU['reference ' + name] / CPU[name]
        print(f'1-trait fit, {name}: {CPU[name] * 1e3:.2f} ms CPU ({t1 * 1e3:.2f} ms wall, {m1.optimizer_}), {ratio:.1f}x the issue-time '
              f'reference ({CPU["reference " + name] * 1e3:.2f} ms CPU) (a stretch beside the issue\'s goal, which is the girth ratio below); '
              f'log-lik {llo:.4f} vs {llr:.4f}')
        if girth is None: continue
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            g, tg = timed(lambda: girth.twopl_mml(Y1.T.astype(int)), a.repeats, 'girth ' + name)
        ag, dg = g['Discrimination'], g['Difficulty']
        llg = exact_loglik(ag[:, None], -ag * dg, Y1, 201)
        rg = CPU['girth ' + name] / CPU[name]
        print(f'  girth: {tg * 1e3:7.1f} ms  log-lik {llg:.4f} | girth/ours CPU x{rg:.0f} (goal >= 10x: {"met" if rg >= 10 else "NOT met"}); '
              f'max |w diff| {np.abs(m1.weights_[:, 0] - ag).max():.4f}')

if __name__ == '__main__':
    main()
