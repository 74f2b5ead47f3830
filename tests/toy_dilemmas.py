"""A small frame of dilemmas as `corpus.load_dilemmas` gives them: two actions, the votes for each, the gold label."""
import numpy as np
import pandas as pd


def dilemmas(n: int = 40, seed: int = 0, ids: bool = False) -> pd.DataFrame:
    """`n` dilemmas, the first action of each chosen by `gold_1` of 5 votes; with `ids`, an `id` column of dilemma ids
    (d000.., a permutation of the row numbers) first."""
    rng = np.random.default_rng(seed)
    words = ['help', 'hurt', 'thank', 'insult', 'feed', 'rob', 'hug', 'kick', 'praise', 'cheat']
    a1 = [f'{words[i % 10]} person {i}' for i in range(n)]
    a2 = [f'{words[(i * 3 + 1) % 10]} friend {i}' for i in range(n)]
    g1 = rng.integers(0, 6, n)
    d = pd.DataFrame({'action_1': a1, 'action_2': a2, 'gold_1': g1, 'gold_2': 5 - g1, 'gold_label': (g1 < 3).astype(int)})
    if ids:
        d.insert(0, 'id', [f'd{(i * 7) % n:03d}' for i in range(n)])
    return d
