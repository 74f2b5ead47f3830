"""Benchmark: latent trait fits, ours (quadrature + L-BFGS) against the authors' Monte Carlo + SGD and against girth.

1. A 2-trait fit of simulated 1,000 x 20 responses (weights N(0, 0.8^2), paper-like): `LatentTraitModel(2)` against
   a faithful re-implementation of the authors' method (scruples/analysis/traits.py in allenai/scruples: 10,000
   fresh N(0, I) draws per mini-batch of 128, the mean of the product of Bernoulli probabilities, SGD at lr 10 with
   ReduceLROnPlateau(patience 5, factor 0.1), `--epochs` epochs, default 100 as theirs). Both fits' log-likelihoods are
   evaluated by the same dense 101 x 101 Gauss-Hermite rule, so they are comparable.
2. A 1-trait fit on LSAT-6 (1,000 x 5) and on simulated 1,000 x 20: ours against `girth.twopl_mml`.
All in one process, one after another; the times are wall-clock on whatever machine runs it (report ratios).
Usage: python benchmarks/bench_traits.py [--epochs 100] [--repeats 3]
"""
import argparse, time, warnings

import numpy as np
import torch as th

from scruples.traits import LatentTraitModel, lsat6, quadrature, response_patterns, simulate_responses, marginal_loglik


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


def timed(fn, repeats):
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter(); out = fn(); best = min(best, time.perf_counter() - t)
    return out, best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--epochs', type=int, default=100)
    ap.add_argument('--repeats', type=int, default=3)
    ap.add_argument('--device', default='cpu', help="torch device for the authors' method (theirs accepted one)")
    a = ap.parse_args()
    th.set_num_threads(2)
    w = np.random.default_rng(1).normal(0, 0.8, (20, 2))
    Y = simulate_responses(1000, 20, 2, weights=w, seed=3)[0]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        m, t_ours = timed(lambda: LatentTraitModel(2).fit(Y), a.repeats)
    t = time.perf_counter(); Wa, ba = authors_fit(Y, 2, n_epochs=a.epochs, device=a.device); t_auth = time.perf_counter() - t
    ll_ours, ll_auth = exact_loglik(m.weights_, m.intercepts_, Y, 101), exact_loglik(Wa, ba, Y, 101)
    print(f'2 traits, 1000 x 20 (simulated, paper-like)')
    print(f'  ours (GH 31x31 pruned + L-BFGS):   {t_ours:8.2f} s  log-lik {ll_ours:.3f}  (fit rule {m.loglik_:.3f}, rule check {m.quadrature_gap_:.1e})')
    print(f'  authors (MC 10k + SGD, {a.epochs} epochs, {a.device}): {t_auth:8.2f} s  log-lik {ll_auth:.3f}')
    print(f'  speed-up x{t_auth / t_ours:.0f}; log-lik gain {ll_ours - ll_auth:+.3f}'
          + (f'; their full 100 epochs would take about {t_auth / a.epochs * 100:.0f} s (linear in epochs)' if a.epochs != 100 else ''))

    try: import girth
    except ImportError: print('girth not installed: 1-trait comparison skipped'); return
    wpos = np.random.default_rng(2).uniform(0.5, 2.0, (20, 1))
    for name, Y1 in [('LSAT-6 1000 x 5', lsat6().to_numpy(float)),
                     ('simulated 1000 x 20', simulate_responses(1000, 20, 1, weights=wpos, seed=7)[0])]:
        m1, t1 = timed(lambda: LatentTraitModel(1).fit(Y1), a.repeats)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            g, tg = timed(lambda: girth.twopl_mml(Y1.T.astype(int)), a.repeats)
        ag, dg = g['Discrimination'], g['Difficulty']
        llg, llo = exact_loglik(ag[:, None], -ag * dg, Y1, 201), exact_loglik(m1.weights_, m1.intercepts_, Y1, 201)
        print(f'1 trait, {name}: ours {t1 * 1e3:7.1f} ms  log-lik {llo:.4f} | girth {tg * 1e3:7.1f} ms  log-lik {llg:.4f}'
              f' | girth/ours time x{tg / t1:.1f}; max |w diff| {np.abs(m1.weights_[:, 0] - ag).max():.4f}')


if __name__ == '__main__':
    main()
