"""A model that reads each text's class from its first word, and the small annotated frames the pairing tests score it
on: any mis-pairing of examples and votes shows as an f1 below 1.0."""
from __future__ import annotations

import numpy as np
import pandas as pd

V = ['yes', 'no']


class Perfect:
    "Reads each text's class from its first word, with probability 0.99."

    classes_ = np.array(['no', 'yes'])

    def fit(self, X, y=None):
        return self

    def predict_proba(self, X):
        y = np.array([1 if str(s).startswith('yes') else 0 for s in X['text']])
        return np.c_[np.where(y == 0, 0.99, 0.01), np.where(y == 1, 0.99, 0.01)]


def frame(ids, seed=0) -> pd.DataFrame:
    "Items with `ids`, a text saying their class, and 5 votes (4 for it)."
    ids = list(ids)
    lab = np.random.default_rng(seed).integers(0, 2, len(ids))
    lab[0], lab[1] = 0, 1
    yes = np.where(lab == 1, 4, 1)
    return pd.DataFrame({'id': ids, 'text': [('yes' if v else 'no') + f'-{i}' for i, v in enumerate(lab)],
                         'yes': yes, 'no': 5 - yes})


def f1(X, counts) -> float:
    "The perfect model's macro F1 on the examples `X` against `counts`, paired as `evaluate` pairs them."
    from scruples.evaluation import evaluate

    return evaluate(Perfect(), X, counts, n_boot=0)['f1']
