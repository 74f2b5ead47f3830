"""The Dilemmas pair wrapper: pairing rule, PairRanker contracts, and scruples.evaluation on a pair model."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_val_predict
from sklearn.naive_bayes import MultinomialNB

from scruples.data import label_counts
from scruples.corpus import load_dilemmas
from scruples.metrics import hard_labels
from scruples.evaluation import evaluate
from scruples.pairs import PairRanker, pair_proba, pair_texts

WORDS = ['lie', 'steal', 'help', 'hug', 'cheat', 'share', 'yell', 'thank']


def toy(n=60, seed=0):
    "Pairs where 'bad' words make an action less ethical."
    rng = np.random.default_rng(seed)
    bad = {'lie', 'steal', 'cheat', 'yell'}
    a1 = [' '.join(rng.choice(WORDS, 3)) for _ in range(n)]
    a2 = [' '.join(rng.choice(WORDS, 3)) for _ in range(n)]
    s = lambda t: sum(w in bad for w in t.split())
    p1 = np.array([1 / (1 + np.exp(-(s(x) - s(y)))) for x, y in zip(a1, a2)])
    c1 = rng.binomial(5, p1)
    return pd.DataFrame({'action_1': a1, 'action_2': a2, 'gold_1': c1, 'gold_2': 5 - c1})


@given(st.lists(st.floats(-50, 50), min_size=1, max_size=20), st.floats(-30, 30))
def test_pair_proba_softmax_and_shift(s, shift):
    s1 = np.array(s); s2 = s1[::-1].copy()
    p = pair_proba(s1, s2)
    assert np.allclose(p.sum(1), 1) and (p >= 0).all()
    assert np.allclose(pair_proba(s1 + shift, s2 + shift), p, atol=1e-9)   # only the difference matters
    assert np.allclose(pair_proba(s2, s1), p[:, ::-1])


def test_pair_proba_extreme_is_stable():
    p = pair_proba([1e4, -1e4], [-1e4, 1e4])
    assert np.isfinite(p).all() and np.allclose(p, [[1, 0], [0, 1]])


@pytest.mark.parametrize('scorer,design', [(None, 'difference'), (MultinomialNB(), 'concat')])
@pytest.mark.parametrize('soft', [True, False])
def test_ranker_learns_and_is_antisymmetric(scorer, design, soft):
    df = toy(200)
    m = PairRanker(CountVectorizer(), scorer, soft=soft, design=design).fit(df, label_counts(df))
    test = toy(100, seed=1)
    bad = {'lie', 'steal', 'cheat', 'yell'}
    diff = np.array([sum(w in bad for w in x.split()) - sum(w in bad for w in y.split()) for x, y in zip(test.action_1, test.action_2)])
    acc = (m.predict(test)[diff != 0] == (diff[diff != 0] < 0)).mean()  # against the true, noise-free direction
    assert acc > 0.85
    swapped = test.rename(columns={'action_1': 'action_2', 'action_2': 'action_1'})
    assert np.allclose(m.predict_proba(swapped), m.predict_proba(test)[:, ::-1], atol=1e-12)


def test_inputs_agree():
    df = toy()
    m = PairRanker().fit(df, label_counts(df))
    pairs = list(zip(df.action_1, df.action_2))
    assert np.allclose(m.predict_proba(pairs), m.predict_proba(df))
    assert np.allclose(m.predict_proba(np.array(pairs)), m.predict_proba(df))
    m2 = PairRanker().fit(pairs, label_counts(df))
    assert np.allclose(m2.predict_proba(df), m.predict_proba(df))


def test_soft_counts_vs_expanded_hard_labels():
    "Soft training with counts equals hard training on the annotations expanded one per vote."
    df = toy(40)
    c = label_counts(df)
    soft = PairRanker(scorer=LogisticRegression(fit_intercept=False, C=1e6, max_iter=5000, tol=1e-10)).fit(df, c)
    rows = np.repeat(np.arange(len(df)), 5)
    labels = np.concatenate([[0] * a + [1] * b for a, b in c])
    hard = PairRanker(scorer=LogisticRegression(fit_intercept=False, C=1e6, max_iter=5000, tol=1e-10)).fit(df.iloc[rows], labels)
    assert np.allclose(soft.predict_proba(df), hard.predict_proba(df), atol=1e-3)


def test_clone_params_gridsearch():
    df = toy(80)
    m = PairRanker(CountVectorizer(binary=True), LogisticRegression(C=0.5, fit_intercept=False))
    c = clone(m)
    assert c.get_params()['scorer__C'] == 0.5 and c.get_params()['featurizer__binary']
    gs = GridSearchCV(m, {'scorer__C': [0.1, 1.0]}, cv=KFold(2), scoring='neg_log_loss').fit(df, hard_labels(label_counts(df)))
    assert gs.best_params_['scorer__C'] in (0.1, 1.0)


def test_bad_input():
    df = toy(10)
    with pytest.raises(ValueError, match=r'in \[0, 2\) \(0: action 1'): PairRanker().fit(df, [2] * 10)           # unseen labels
    with pytest.raises(ValueError, match='10 pairs but 3'): PairRanker().fit(df, [0, 1, 0])      # mismatched lengths
    with pytest.raises(ValueError, match='must have 2 classes, got 3'): PairRanker().fit(df, np.ones((10, 3), int))
    with pytest.raises(TypeError, match='single string'): PairRanker().fit('lie', [0])
    with pytest.raises(ValueError, match='no pairs'): PairRanker().fit([], [])
    with pytest.raises(ValueError): PairRanker().fit([('', '')] * 3, [0, 1, 0])                 # empty texts: empty vocabulary
    with pytest.raises(TypeError, match=r'action_2\[0\] is int'): PairRanker().fit([('a', 3)], [0])
    with pytest.raises(ValueError, match='pair'): PairRanker().fit([('a', 'b', 'c')], [0])
    m = PairRanker().fit(df, label_counts(df))
    assert m.predict_proba([]).shape == (0, 2)
    assert m.predict_proba([('', '')]).tolist() == [[0.5, 0.5]]                                # empty texts at predict time


def test_single_class_training():
    df = toy(30)
    m = PairRanker().fit(df, np.zeros(30, int))
    assert set(m.predict(df)) <= {0, 1} and np.allclose(m.predict_proba(df).sum(1), 1)


def test_evaluate_contracts():
    df, test = toy(150), toy(150, seed=2)
    m = PairRanker().fit(df, label_counts(df))
    oof = cross_val_predict(clone(m), df, label_counts(df), cv=KFold(3), method='predict_proba')
    r = evaluate(m, test, label_counts(test), proba_cal=oof, counts_cal=label_counts(df), n_boot=200)
    assert r.calibration == 'held-out' and r.f1_lo <= r.f1 <= r.f1_hi and r.xentropy_lo <= r.xentropy <= r.xentropy_hi
    again = evaluate(m, test, label_counts(test), X_cal=df, counts_cal=label_counts(df), n_boot=200)
    assert again.calibration == 'held-out'
    with pytest.raises(ValueError, match='counts_cal'): evaluate(m, test, label_counts(test), proba_cal=oof)
    with pytest.raises(ValueError, match='calibration'): evaluate(m, test, label_counts(test), proba_cal=oof[:5], counts_cal=label_counts(df))


def test_real_dev_pairs(real_data_dir):
    dev = load_dilemmas('dev', data_dir=real_data_dir)
    a1, a2 = pair_texts(dev)
    assert len(a1) == len(a2) == 2340 and all(a1) and all(a2)
