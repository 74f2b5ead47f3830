"""The thirty-fifth pass's leads (issue 39): each test failed before its fix.

1. `evaluation.evaluate(model, X, annotated)` matched an AnnotatedData's item ids to X's row numbers when the ids were
   the numbers 0..n-1 in another order (macro F1 0.5 for 1.0): an AnnotatedData's items pair with X by position.
"""
import hashlib
import warnings

import numpy as np
import pandas as pd
import pytest


class Enc:
    "A deterministic encoder of `dim` numbers a text, named `name` (`model_name`, as SentenceEncoder's)."

    def __init__(self, name, seed=0, dim=16):
        self.model_name, self.seed, self.dim = name, seed, dim

    def __call__(self, texts):
        return np.array([np.random.default_rng(int(hashlib.md5(f'{self.seed}{t.lower()}'.encode()).hexdigest(), 16)
                                               % 2**32).normal(size=self.dim) for t in texts])


def test_evaluate_pairs_an_annotated_data_by_position_whatever_its_ids(tmp_path):
    "Ids 3, 0, 6, .. (0..7 shuffled) were matched to X's row numbers: f1 0.5 by the AnnotatedData, 1.0 by its counts."
    from scruples.annotations import read_annotated
    from scruples.evaluation import evaluate

    p = tmp_path / 'shuf2.csv'
    pd.DataFrame({'id': [3, 0, 6, 1, 7, 2, 5, 4], 'text': ['t0', 't1', 't0', 't1', 't0', 't1', 't1', 't0'],
                  'yes': [5, 0, 5, 0, 5, 0, 0, 5], 'no': [0, 5, 0, 5, 0, 5, 5, 0]}).to_csv(p, index=False)
    ad, X = read_annotated(p), pd.read_csv(p)[['text']]

    def model(X):
        return np.array([[.99, .01] if t == 't0' else [.01, .99] for t in X['text']])

    by_ad, by_counts = evaluate(model, X, ad, n_boot=0), evaluate(model, X, ad.counts, n_boot=0)
    assert by_ad['f1'] == pytest.approx(1.0) and by_counts['f1'] == pytest.approx(1.0)
    pd.testing.assert_series_equal(by_ad, by_counts)
