"""Baselines: estimator contracts, bad input, cached cross-validation against scikit-learn, seeded tuning."""
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_predict

from scruples.baselines import (MODELS, SPACES, CVTask, Length, Prior, Sample, StyleFeatures, TextClassifier,
                                cv_score, make_model, make_task, style_features, tune)
from scruples.data import label_counts
from scruples.corpus import anecdote_texts, load_dilemmas
from scruples.metrics import hard_labels, xentropy
from scruples.evaluation import evaluate
from scruples.pairs import PairRanker

WORDS = ['lie', 'steal', 'help', 'hug', 'cheat', 'share', 'yell', 'thank', 'Café', 'naïve']
BAD = {'lie', 'steal', 'cheat', 'yell'}


def toy_pairs(n=80, seed=0):
    rng = np.random.default_rng(seed)
    a1 = [' '.join(rng.choice(WORDS, 3)) for _ in range(n)]
    a2 = [' '.join(rng.choice(WORDS, 4)) for _ in range(n)]
    s = lambda t: sum(w in BAD for w in t.split())
    c1 = rng.binomial(5, [1 / (1 + np.exp(-(s(x) - s(y)))) for x, y in zip(a1, a2)])
    return pd.DataFrame({'action_1': a1, 'action_2': a2, 'gold_1': c1, 'gold_2': 5 - c1})


def toy_texts(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, n)
    texts = [f'{WORDS[k]} {WORDS[k]} ' + ' '.join(rng.choice(WORDS, 3)) for k in y]
    return texts, y


def sample_point(model, task, seed=0):
    "A random point of a search space (what optuna would propose)."
    import optuna
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
    return study.ask(SPACES[model][task]).params


LOGISTIC = dict(strip_accents='ascii', lowercase=False, stop_words=None, ngram_low=1, ngram_extra=1, analyzer='word', max_df=0.98,
                min_df=0.0, binary=True, norm='l2', use_idf=False, sublinear_tf=True, C=0.5, class_weight='balanced')


@pytest.mark.parametrize('point', [LOGISTIC, {**LOGISTIC, 'analyzer': 'char_wb', 'ngram_low': 2, 'ngram_extra': 2, 'min_df': 0.05,
                                              'max_df': 0.9, 'binary': False, 'norm': None, 'use_idf': True, 'lowercase': True}])
def test_cached_cv_equals_sklearn_refit(point):
    df = toy_pairs(120)
    c = label_counts(df)
    task = make_task(df, c, 'dilemmas', n_folds=3, seed=1)
    score, oof = cv_score(task, 'Logistic', point)
    ref = cross_val_predict(make_model('Logistic', 'dilemmas', point), df, hard_labels(c), cv=task.folds, method='predict_proba')
    assert np.allclose(oof, ref, atol=1e-4)


@pytest.mark.parametrize('model', ['BinaryNB', 'MultiNB', 'CompNB', 'Forest'])
def test_cached_cv_equals_sklearn_anecdotes(model):
    texts, y = toy_texts(80)
    task = make_task(texts, y, 'anecdotes', n_folds=3, seed=0)
    point = {**sample_point(model, 'anecdotes', seed=3), 'analyzer': 'word', 'min_df': 0.0, 'max_df': 1.0, 'stop_words': None}
    _, oof = cv_score(task, model, point)
    ref = cross_val_predict(make_model(model, 'anecdotes', point), texts, y, cv=task.folds, method='predict_proba')
    assert np.allclose(oof, ref, atol=1e-6)


@pytest.mark.parametrize('model', [m for m in MODELS if m not in ('Prior', 'Sample', 'Length', 'Style')])
@pytest.mark.parametrize('task', ['anecdotes', 'dilemmas'])
def test_every_model_clone_and_shape(model, task):
    point = {**sample_point(model, task), 'analyzer': 'word', 'min_df': 0.0, 'max_df': 1.0, 'stop_words': None}
    est = make_model(model, task, point)
    c = clone(est)
    assert c.get_params(deep=False).keys() == est.get_params(deep=False).keys()
    if task == 'dilemmas':
        df = toy_pairs(40); p = c.fit(df, label_counts(df)).predict_proba(df)
        swapped = df.rename(columns={'action_1': 'action_2', 'action_2': 'action_1'})
        assert np.allclose(c.predict_proba(swapped), p[:, ::-1], atol=1e-9)  # antisymmetric for every scorer
    else:
        texts, y = toy_texts(40); p = c.fit(texts, y).predict_proba(texts)
    assert np.allclose(p.sum(1), 1) and p.shape[1] == (2 if task == 'dilemmas' else 5)


def test_prior_sample_length():
    df = toy_pairs(50); c = label_counts(df)
    pr = Prior().fit(df, c)
    assert np.allclose(pr.prior_, np.bincount(hard_labels(c), minlength=2) / 50)
    s1, s2 = Sample(seed=1).fit(df, c), Sample(seed=1).fit(df, c)
    assert (s1.predict(df) == s2.predict(df)).all() and set(np.unique(s1.predict_proba(df))) <= {0.0, 1.0}
    assert np.isnan(evaluate(s1, df, c, n_boot=0).xentropy)  # hard predictions: no cross-entropy, as in the paper
    ln = Length(measure='words', pick='longest').fit(df, c)
    assert (ln.predict(df) == 1).all()  # action 2 always has 4 words, action 1 three


def test_bad_input():
    df = toy_pairs(20); c = label_counts(df)
    with pytest.raises(ValueError, match='class indices'): Prior(n_classes=2).fit(df, [5] * 20)        # unseen labels
    with pytest.raises(ValueError, match='20 examples but 3'): Prior(n_classes=2).fit(df, [0, 1, 0])    # mismatched lengths
    with pytest.raises(ValueError, match=r'in \[0, 2\) \(0: action 1'): Length().fit(df, [3] * 20)
    with pytest.raises(ValueError, match='20 pairs but 2'): make_model('Logistic', 'dilemmas', LOGISTIC).fit(df, [0, 1])
    with pytest.raises(TypeError, match='single string'): TextClassifier().fit('one text', [0])
    with pytest.raises(ValueError, match='no texts'): TextClassifier().fit([], [])
    with pytest.raises(ValueError): TextClassifier().fit(['', ''], [0, 1])                             # empty texts: no vocabulary
    with pytest.raises(ValueError, match='missing hyper-parameters'): make_model('Forest', 'anecdotes', {'C': 1})
    with pytest.raises(ValueError, match='task must be'): make_model('Logistic', 'pairs', LOGISTIC)
    with pytest.raises(ValueError, match='too few'): make_task(df[:2], c[:2], 'dilemmas', n_folds=4)
    with pytest.raises(ValueError, match='no texts'): anecdote_texts(pd.DataFrame({'title': [None], 'text': [None]}))


def test_single_class_training():
    texts, _ = toy_texts(10)
    m = TextClassifier().fit(texts, [2] * 10)
    assert (m.predict(texts) == 2).all() and m.predict_proba(texts).shape == (10, 5)
    df = toy_pairs(10)
    m = make_model('Logistic', 'dilemmas', LOGISTIC).fit(df, np.zeros(10, int))
    assert np.allclose(m.predict_proba(df).sum(1), 1)


def test_style_features_empty_and_shape():
    f = style_features(['', 'I lied. Then I cried!'])
    assert f.shape == (2, len(StyleFeatures().get_feature_names_out())) and (f[0] == 0).all() and f[1, 1] == 2
    with pytest.raises(TypeError): style_features('a string')


def test_tune_seeded_and_failures_recorded():
    df = toy_pairs(80); c = label_counts(df)
    r1 = tune('Logistic', df, c, 'dilemmas', budget=5, batch_size=3, n_jobs=1, seed=4, progress=False)
    r2 = tune('Logistic', df, c, 'dilemmas', budget=5, batch_size=3, n_jobs=1, seed=4, progress=False)
    assert r1.best_params == r2.best_params and len(r1.trials) == 5
    assert r1.best_score == np.nanmin(r1.trials.score) and r1.oof_proba.shape == c.shape
    assert isinstance(r1.model, PairRanker)
    with pytest.raises(ValueError, match='budget'): tune('Logistic', df, c, budget=0)
    with pytest.raises(ValueError, match='objective'): tune('Logistic', df, c, objective='accuracy')


def test_real_dev_logistic_beats_prior(real_data_dir):
    dev, test = load_dilemmas('dev', data_dir=real_data_dir), load_dilemmas('test', data_dir=real_data_dir)
    m = make_model('Logistic', 'dilemmas', {**LOGISTIC, 'stop_words': 'english', 'C': 0.2}).fit(dev, label_counts(dev))
    r = evaluate(m, test, label_counts(test), n_boot=0)
    assert r.f1 > 0.55 and r.xentropy < np.log(2)  # regression: lexical cues carry signal on the real test split
