"""Benchmark: the aggregates MACE and GLAD (`scruples.agreement`, crowd-kit's algorithms on arrays) against crowd-kit's own.

Both run in this process on the same simulated votes (annotators of random skill, 3 classes, 5 votes per item): the
annotators' and labels' names first appear in sorted order, where crowd-kit's MACE keeps each annotator's strategy with
its annotator (elsewhere it mixes them: see nbs/13_agreement.ipynb), so the two fits should give the same labels. One
restart for MACE on both sides (crowd-kit repeats one start for an integer seed). Prints each time, the speed-up, and on
how many items the labels differ.

Then Fleiss' kappa, which `scruples.agreement` computes with statsmodels' formula instead of calling it: each side in a
fresh interpreter (numpy already imported), its import and the kappa of the items and of 200 bootstrap resamples (what
`scruples agree` does), best of three; and the largest difference of the two kappas over random tables.
Usage: python benchmarks/bench_agreement.py [--items 2000] [--annotators 30]
"""
import argparse
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd
from crowdkit.aggregation import GLAD as CrowdKitGLAD
from crowdkit.aggregation import MACE as CrowdKitMACE

from scruples.agreement import GLAD, MACE


def votes(n, m, k=3, per_item=5, seed=0):
    "Long votes (task, worker, label): each item's true class, said by each annotator with their own skill."
    rng = np.random.default_rng(seed)
    truth, skill = rng.integers(k, size=n), rng.uniform(0.3, 0.95, m)
    rows = [(i, a, truth[i] if rng.random() < skill[a] else rng.integers(k)) for i in range(n)
            for a in rng.choice(m, size=per_item, replace=False)]
    d = pd.DataFrame(rows, columns=['task', 'worker', 'label'])
    return d.assign(worker=pd.factorize(d.worker)[0], label=pd.factorize(d.label)[0])  # first seen in sorted order


FLEISS = {  # each side in a fresh interpreter: (its import, its call); numpy is imported before the clock starts
    'statsmodels': ('from statsmodels.stats.inter_rater import fleiss_kappa', "fleiss_kappa(t, method='fleiss')"),
    'ours': ('from scruples.agreement import fleiss_kappa', 'fleiss_kappa(t)'),
}
FLEISS_RUN = """
import time, numpy as np
rng = np.random.default_rng(0)
c = rng.multinomial(5, rng.dirichlet(np.full(3, 2.0), {n}))  # items of their own distributions
t0 = time.perf_counter()
{imp}
for b in range(201):
    t = c if b == 0 else c[rng.integers(0, len(c), len(c))]
    k = {call}
print(time.perf_counter() - t0)
"""


def fleiss(n: int) -> None:
    "Fleiss' kappa: statsmodels' against ours in fresh processes (import + 201 kappas), and their largest difference."
    from statsmodels.stats.inter_rater import fleiss_kappa as sm
    from scruples.agreement import fleiss_kappa as ours
    rng = np.random.default_rng(1)
    diff = max(abs(sm(t, method='fleiss') - ours(t)) for t in
               (rng.multinomial(v, rng.dirichlet(np.ones(k)), size=rng.integers(2, 300))
                for k, v in zip(rng.integers(2, 8, 200), rng.integers(2, 12, 200))))
    secs = {}
    for side, (imp, call) in FLEISS.items():
        code = FLEISS_RUN.format(n=n, imp=imp, call=call)
        secs[side] = min(float(subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                                              check=True).stdout) for _ in range(3))
    print(f"Fleiss' kappa, {n:,} items x 5 votes, import + the kappa and 200 resamples in a fresh process: statsmodels "
          f"{secs['statsmodels']:.3f} s, ours {secs['ours']:.3f} s; largest difference over 200 random tables "
          f"{diff:.1e}; speed-up (reference / ours): {secs['statsmodels'] / secs['ours']:.1f}x")


def timed(fit):
    t = time.perf_counter()
    labels = fit()
    return labels, time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--items', type=int, default=2000); ap.add_argument('--annotators', type=int, default=30)
    args = ap.parse_args()
    d = votes(args.items, args.annotators)
    print(f'{args.items:,} items x 5 votes by {args.annotators} annotators, 3 classes')
    warnings.simplefilter('ignore')  # crowd-kit 1.4's pandas deprecations
    pairs = {
        'GLAD': (lambda: CrowdKitGLAD(n_iter=100, silent=True).fit_predict(d), lambda: GLAD(n_iter=100).fit_predict(d)),
        'MACE': (lambda: CrowdKitMACE(n_restarts=1, n_iter=50, random_state=np.random.RandomState(7)).fit_predict(d),
                 lambda: MACE(n_restarts=1, n_iter=50, seed=np.random.RandomState(7)).fit_predict(d)),
    }
    for name, (theirs, ours) in pairs.items():
        a, t_ref = timed(theirs)
        b, t_ours = timed(ours)
        differ = int((a.sort_index() != b.sort_index()).sum())
        print(f'{name}: crowd-kit {t_ref:.2f} s, ours {t_ours:.3f} s; labels differ on {differ} of {len(a)} items; '
              f'speed-up (reference / ours): {t_ref / t_ours:.0f}x')
    fleiss(args.items)


if __name__ == '__main__':
    main()
