"""Benchmark: 100,000-permutation root-verb test, against a loop that counts verbs in a dict per permutation.

Both run in this process on the same pairs (the real dev+test Dilemmas when found, else synthetic ones).
The reference permutes the label vector and builds a dict of worse counts per permutation, the way such a
test is usually written; it is timed on `--ref-permutations` and scaled linearly to the same number. Root
verbs are parsed once beforehand (parsing is not what is measured).
Usage: python benchmarks/bench_verbs.py [--permutations 100000] [--ref-permutations 1000]
"""
import argparse, time
from collections import Counter

import numpy as np
import pandas as pd

from scruples.corpus import load_dilemmas
from scruples.verbs import RootVerbs, permutation_test, verb_table


def reference(v1, v2, labels, n_perm, seed=0):
    "Per permutation: shuffle the labels, count each verb's worse actions in a dict, compare with the data."
    table = verb_table(v1, v2, labels).set_index('verb')
    m_obs = np.minimum(table.worse, table.better)
    b, rng, labels = Counter(), np.random.default_rng(seed), np.asarray(labels)
    for _ in range(n_perm):
        perm = rng.permutation(labels)
        worse = Counter(a if l == 0 else c for a, c, l in zip(v1, v2, perm))
        for verb, total in table.total.items():
            w = worse.get(verb, 0)
            if min(w, total - w) <= m_obs[verb]: b[verb] += 1
    return pd.Series(b, dtype=float).reindex(table.index, fill_value=0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--permutations', type=int, default=100_000); ap.add_argument('--ref-permutations', type=int, default=1000)
    args = ap.parse_args()
    dil = pd.concat([load_dilemmas('dev'), load_dilemmas('test')], ignore_index=True)
    rv = RootVerbs(); v1, v2 = rv(dil.action_1), rv(dil.action_2)
    t0 = time.perf_counter(); ours = permutation_test(v1, v2, dil.gold_label, n_permutations=args.permutations, seed=0)
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter(); b = reference(v1, v2, dil.gold_label.to_numpy(), args.ref_permutations)
    t_ref = (time.perf_counter() - t0) * args.permutations / args.ref_permutations
    ref_p = ((b + 1) / (args.ref_permutations + 1)).reindex(ours.verb).to_numpy()
    print(f'{len(dil)} pairs ({dil.attrs.get("source", load_dilemmas("dev").attrs["source"])}), {len(ours)} verbs')
    print(f'scruples.verbs.permutation_test: {args.permutations:,} permutations in {t_ours:.2f} s')
    print(f'dict-counting loop: {args.ref_permutations:,} permutations in {t_ref * args.ref_permutations / args.permutations:.1f} s '
          f'-> {t_ref:.0f} s for {args.permutations:,}')
    print(f'largest |p difference| between the two (Monte Carlo noise of the shorter run): {np.abs(ours.p.to_numpy() - ref_p).max():.3f}')
    print(f'speed-up (reference / ours): {t_ref / t_ours:.0f}x')


if __name__ == '__main__':
    main()
