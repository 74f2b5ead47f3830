"""Baselines: estimator contracts, bad input, cached cross-validation against scikit-learn, seeded tuning."""
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_predict

from scruples.baselines import (MODELS, SPACES, CVTask, Length, PairBaseline, Prior, Sample, StyleFeatures, TextClassifier,
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
    with pytest.raises(ValueError, match='task must be'): make_model('Logistic', 'triples', LOGISTIC)
    with pytest.raises(ValueError, match='too few'): make_task(df[:2], c[:2], 'dilemmas', n_folds=4)
    with pytest.raises(ValueError, match='no texts'): anecdote_texts(pd.DataFrame({'title': [None], 'text': [None]}))


def test_single_class_training():
    texts, _ = toy_texts(10)
    m = TextClassifier(n_classes=5).fit(texts, [2] * 10)
    assert (m.predict(texts) == 2).all() and m.predict_proba(texts).shape == (10, 5)
    assert TextClassifier().fit(texts, [2] * 10).predict_proba(texts).shape == (10, 3)  # k from the labels: max + 1
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
    with pytest.warns(UserWarning, match='scored examples themselves'):  # in-sample calibration, said so (a training-split temperature overfits)
        r = evaluate(m, test, label_counts(test), n_boot=0)
    assert r.f1 > 0.55 and r.xentropy < np.log(2)  # regression: lexical cues carry signal on the real test split


# --- any number of classes, tie policies, class names, scikit-learn estimator checks (issue 20) -----------------------------

CLASSES3 = ['acceptable', 'unacceptable', 'unclear']
CUES = {'acceptable': ['helped', 'thanked', 'shared'], 'unacceptable': ['lied', 'stole', 'yelled'], 'unclear': ['maybe', 'perhaps', 'unsure']}


def votes_texts(n=60, k=3, seed=0, votes=5):
    "Single texts with a cue word of their true class, and `votes` annotations per text (mostly the true class): k=3 or k=2."
    rng = np.random.default_rng(seed)
    names = CLASSES3[:k]
    truth = rng.integers(0, k, n)
    texts = [f'I {rng.choice(CUES[names[t]])} my friend {rng.choice(["today", "again", "at work"])}' for t in truth]
    p = np.full((n, k), 0.15 / (k - 1)); p[np.arange(n), truth] = 0.85
    counts = np.array([rng.multinomial(votes, row) for row in p])
    return texts, pd.DataFrame(counts, columns=names), truth


@pytest.mark.parametrize('model, k', [(m, k) for m in ('Prior', 'Sample', 'BinaryNB', 'MultiNB', 'CompNB', 'Logistic', 'Forest') for k in (3, 2)]
                         + [('Style', 3)])  # Style (spaCy + gradient boosting) once: it is the slow one
def test_any_k_single_texts(model, k):
    "Every single-text baseline trains, tunes and predicts with k = 3 and k = 2 classes (k from the counts), keeping class names."
    texts, C, truth = votes_texts(30 if model == 'Style' else 60, k)
    tu = tune(model, texts, C, budget=1 if model == 'Style' else 2, batch_size=2, n_folds=2 if model == 'Style' else 3, n_jobs=1, seed=0, progress=False)
    assert tu.task == 'texts' and tu.oof_proba.shape == (len(texts), k)
    assert list(tu.classes) == CLASSES3[:k] and list(tu.model.classes_) == CLASSES3[:k]
    p = tu.model.predict_proba(texts[:5])
    assert p.shape == (5, k) and np.allclose(p.sum(1), 1)
    assert set(tu.model.predict(texts[:5])) <= set(CLASSES3[:k])  # predict returns the class names
    assert tu.n_ties == int(((C.to_numpy() == C.to_numpy().max(1, keepdims=True)).sum(1) > 1).sum())


def test_logistic_learns_three_classes():
    texts, C, truth = votes_texts(150, 3, seed=1)
    m = make_model('Logistic', None, {**LOGISTIC, 'multi_class': 'multinomial', 'fit_intercept': True, 'C': 10.0}, n_classes=3)
    m.fit(texts[:100], C[:100])
    assert (m.predict(texts[100:]) == np.array(CLASSES3)[truth[100:]]).mean() > 0.8  # the cue words carry the class


def test_cached_cv_equals_sklearn_three_classes():
    texts, C, _ = votes_texts(90, 3, seed=2)
    task = make_task(texts, C, n_folds=3, seed=0)
    assert task.task == 'texts' and task.counts.shape == (90, 3) and list(task.classes) == CLASSES3
    point = {**sample_point('Logistic', 'texts', seed=5), 'analyzer': 'word', 'min_df': 0.0, 'max_df': 1.0, 'stop_words': None}
    _, oof = cv_score(task, 'Logistic', point)
    ref = cross_val_predict(make_model('Logistic', 'texts', point, n_classes=3), texts, task.labels, cv=task.folds, method='predict_proba')
    assert np.allclose(oof, ref, atol=1e-4)


def test_guide_data_three_classes():
    "The shipped 3-class dataset: 300 texts, counts over acceptable / unacceptable / unclear."
    from scruples.annotations import guide_data, read_annotated
    d = read_annotated(guide_data('wide'))
    C = pd.DataFrame(d.counts, columns=list(d.classes))
    tu = tune('Logistic', d.texts, C, budget=2, batch_size=2, n_jobs=1, seed=0, progress=False)
    assert tu.oof_proba.shape == (d.n_items, 3) and tuple(tu.model.classes_) == d.classes
    with pytest.raises(ValueError, match='use task=None'): tune('Logistic', d.texts, C, task='anecdotes', budget=1, progress=False)
    with pytest.raises(ValueError, match='use task=None'): make_task(d.texts, d.counts, task='anecdotes')


def test_pairs_are_binary():
    "Pairs (which of two actions is the less ethical) take k = 2 only, with an error that says so; k > 2 needs single texts."
    df = toy_pairs(20)
    c3 = np.column_stack([label_counts(df), np.ones(20, int)])
    with pytest.raises(ValueError, match='pairs are binary'): make_task(df, c3)
    with pytest.raises(ValueError, match='pairs are binary'): make_model('Logistic', 'pairs', LOGISTIC).fit(df, c3)
    with pytest.raises(ValueError, match='pairs are binary'): Length().fit(df, c3)
    with pytest.raises(ValueError, match='takes pairs'): make_task(['a', 'b', 'c', 'd'], [0, 1, 0, 1], task='dilemmas')
    assert make_task(df, label_counts(df)).task == 'pairs' and make_task(df[['action_1', 'action_2']].to_numpy(), label_counts(df)).task == 'pairs'
    tl = tune('Length', df, label_counts(df), n_folds=4, progress=False)  # task=None: pairs from X
    assert tl.task == 'pairs' and tl.oof_proba.shape == (20, 2) and isinstance(tl.model, Length)
    assert isinstance(make_model('Logistic', params={**LOGISTIC, 'multi_class': 'ovr', 'fit_intercept': True}), TextClassifier)  # no X: single texts
    assert isinstance(make_model('Length'), Length) and make_model('Prior').n_classes is None


def test_paper_calls_unchanged():
    "The keyword order the paper notebook uses (task 4th of tune, 3rd of make_task) still works and gives the preset."
    df = toy_pairs(40); c = label_counts(df)
    task = make_task(df, c, 'dilemmas', n_folds=4, seed=0)
    tu = tune('Logistic', df, c, 'dilemmas', budget=2, batch_size=2, n_folds=4, n_jobs=1, seed=0, progress=False, cv_task=task)
    assert tu.task == 'dilemmas' and isinstance(tu.model, PairRanker) and tu.oof_proba.shape == (40, 2)
    texts, y = toy_texts(40)
    assert tune('Prior', texts, y, 'anecdotes', n_folds=4, seed=0, progress=False).oof_proba.shape == (40, 5)


def tied_texts():
    texts, C, _ = votes_texts(40, 3, seed=3, votes=4)
    C = C.copy(); C.iloc[:6] = [[2, 2, 0], [0, 2, 2], [1, 1, 1], [2, 0, 2], [2, 2, 0], [0, 2, 2]]  # six tied items (and any others drawn)
    n_ties = int(((C.to_numpy() == C.to_numpy().max(1, keepdims=True)).sum(1) > 1).sum())
    return texts, C, n_ties


@pytest.mark.parametrize('ties', ['first', 'random', 'drop'])
def test_tie_policies_reported(ties):
    texts, C, n_ties = tied_texts()
    assert n_ties >= 6
    for est in (Prior(ties=ties), Sample(ties=ties), TextClassifier(ties=ties)):
        assert est.fit(texts, C).n_ties_ == n_ties
    tu = tune('CompNB', texts, C, budget=2, batch_size=2, n_folds=3, n_jobs=1, seed=0, progress=False, ties=ties)
    assert tu.n_ties == n_ties and tu.ties == ties and tu.model.n_ties_ == n_ties and tu.model.ties == ties
    task = make_task(texts, C, ties=ties, n_folds=3)
    assert task.n_ties == n_ties and ((task.labels == -1).sum() == (n_ties if ties == 'drop' else 0))


def test_tie_policies_differ():
    texts, C, n_ties = tied_texts()
    first, drop = Prior(ties='first').fit(texts, C), Prior(ties='drop').fit(texts, C)
    h = C.to_numpy().argmax(1)
    assert np.allclose(first.prior_, np.bincount(h, minlength=3) / 40)  # 'first' is argmax: the paper's majority
    tied = (C.to_numpy() == C.to_numpy().max(1, keepdims=True)).sum(1) > 1
    assert np.allclose(drop.prior_, np.bincount(h[~tied], minlength=3) / (~tied).sum())
    r1, r2 = Prior(ties='random', seed=1).fit(texts, C), Prior(ties='random', seed=1).fit(texts, C)
    assert np.allclose(r1.prior_, r2.prior_)  # seeded
    df = toy_pairs(20); c = label_counts(df).copy(); c[:3] = [[2, 2], [1, 1], [3, 3]]  # tied pairs (even counts)
    for ties in ('first', 'random', 'drop'):
        for est in (Length(ties=ties), make_model('Logistic', 'pairs', LOGISTIC, ties=ties)):
            assert est.fit(df, c).n_ties_ == 3
    with pytest.raises(ValueError, match="'ties' parameter of Prior"): Prior(ties='coin').fit(texts, C)  # _parameter_constraints
    with pytest.raises(ValueError, match='all 2 examples are tied'): TextClassifier(ties='drop').fit(['a b', 'c d'], [[1, 1], [2, 2]])


def test_class_names_kept():
    texts, C, truth = votes_texts(30, 3)
    for est in (Prior(), Sample(), TextClassifier()):
        assert list(est.fit(texts, C).classes_) == CLASSES3 and set(est.predict(texts)) <= set(CLASSES3)
    lab = np.array(CLASSES3)[truth]
    m = TextClassifier().fit(texts, lab)  # labels by name
    assert list(m.classes_) == sorted(set(lab)) and m.predict_proba(texts).shape == (30, len(set(lab)))
    assert list(TextClassifier().fit(texts, C.to_numpy()).classes_) == [0, 1, 2]  # no names: indices


# scikit-learn's estimator checks. Prior and Sample ignore X (any array goes), so the whole suite runs on them. The other
# baselines read texts or pairs of texts and declare it (input_tags.string, not two_d_array): scikit-learn's suite then
# yields no check for them, as for CountVectorizer, because its checks feed numeric matrices. We run the checks that test
# the estimator API without numeric input by name, and text-input versions of the fitting checks below.
SKIPPED_FOR_TEXT = {  # check -> why it does not apply to an estimator reading texts (or pairs of texts)
    'check_fit_check_is_fitted': 'fits on a numeric matrix; test_text_estimators_fit_contracts checks it on texts',
    'check_estimators_fit_returns_self': 'numeric X; checked on texts below',
    'check_dont_overwrite_parameters': 'numeric X; checked on texts below (params unchanged by fit)',
    'check_estimators_overwrite_params': 'numeric X; checked on texts below',
    'check_fit_idempotent': 'numeric X; checked on texts below',
    'check_estimators_pickle': 'numeric X; checked on texts below',
    'check_methods_subset_invariance': 'numeric X; checked on texts below',
    'check_methods_sample_order_invariance': 'numeric X; checked on texts below',
    'check_n_features_in / check_n_features_in_after_fitting': 'a text has no number of features (n_features_in_ is for matrices)',
    'check_estimators_dtypes / check_dtype_object / check_complex_data': 'about numeric dtypes of X',
    'check_estimators_nan_inf / check_estimators_empty_data_messages': 'numeric NaN/inf/0-feature matrices (texts: empty and non-string items are errors, test_bad_input)',
    'check_estimator_sparse_array / check_estimator_sparse_matrix / check_f_contiguous_array_estimator / check_readonly_memmap_input': 'memory layouts of numeric matrices',
    'check_fit1d / check_fit2d_1sample / check_fit2d_1feature / check_fit2d_predict1d': 'shapes of numeric matrices',
    'check_classifiers_train / check_classifiers_classes / check_classifier_data_not_an_array / check_supervised_y_2d': 'classify numeric blobs; the text versions are test_any_k_single_texts and test_class_names_kept',
    'check_pipeline_consistency / check_dict_unchanged / check_requires_y_none / check_fit_score_takes_y / check_positive_only_tag_during_fit': 'numeric X',
    'check_array_api_input': 'array API namespaces are numeric arrays',
}
API_CHECKS = ('check_estimator_cloneable', 'check_estimator_repr', 'check_no_attributes_set_in_init', 'check_parameters_default_constructible',
              'check_get_params_invariance', 'check_set_params', 'check_do_not_raise_errors_in_init_or_set_params', 'check_estimators_unfitted',
              'check_mixin_order', 'check_estimator_tags_renamed', 'check_valid_tag_types',
              'check_param_validation')  # issue 38: `_parameter_constraints`, checked first in fit


def text_estimators():
    point = {**LOGISTIC, 'multi_class': 'ovr', 'fit_intercept': True}
    return {'TextClassifier': TextClassifier(), 'PairBaseline': PairBaseline(), 'Length': Length(), 'StyleFeatures': StyleFeatures(),
            'Logistic (texts)': make_model('Logistic', 'texts', point), 'Logistic (pairs)': make_model('Logistic', 'pairs', LOGISTIC),
            'CompNB (texts)': make_model('CompNB', 'texts', {k: v for k, v in {**point, 'alpha': 0.5, 'norm': False}.items()
                                                             if k in SPACES['CompNB']['texts']})}  # its own point only


@pytest.mark.parametrize('name', list(text_estimators()))
@pytest.mark.parametrize('check', API_CHECKS)
def test_sklearn_api_checks_text_estimators(name, check):
    import sklearn.utils.estimator_checks as ec
    if check == 'check_estimators_unfitted' and name == 'StyleFeatures': pytest.skip('a transformer: checked by predict-side checks only')
    if check == 'check_param_validation' and ' (' in name:
        pytest.skip("the check expects the name it is given in the message; these are TextClassifier/PairBaseline, checked as such")
    getattr(ec, check)(name, text_estimators()[name])


@pytest.mark.parametrize('est', [Prior(), Sample(), Prior(ties='drop'), Sample(seed=3, ties='random')], ids=repr)
def test_sklearn_check_estimator_prior_sample(est):
    "The full suite for the baselines that ignore X; Sample's seeded per-position draws are not subset- or order-invariant by design."
    from sklearn.utils.estimator_checks import check_estimator
    expected = {} if isinstance(est, Prior) and not isinstance(est, Sample) else {
        'check_methods_subset_invariance': 'Sample draws one class per position from a seeded stream: a subset gets other draws',
        'check_methods_sample_order_invariance': 'the same: the draws follow positions, not examples'}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        res = check_estimator(est, expected_failed_checks=expected, on_fail=None, on_skip=None)
    failed = [(r['check_name'], str(r['exception'])[:200]) for r in res if r['status'] == 'failed']
    assert not failed, failed
    assert sum(r['status'] == 'passed' for r in res) >= 40


def test_text_estimators_fit_contracts():
    "Text-input versions of the fitting checks: fit returns self, leaves params alone, is idempotent, pickles, subset- and order-invariant."
    import pickle
    from sklearn.exceptions import NotFittedError
    texts, C, _ = votes_texts(40, 3)
    df = toy_pairs(40); c = label_counts(df)
    for name, est in text_estimators().items():
        if name == 'StyleFeatures': continue
        X, y = (df, c) if 'pairs' in name or name in ('PairBaseline', 'Length') else (texts, C)
        with pytest.raises(NotFittedError): est.predict_proba(X)
        before = {k: repr(v) for k, v in est.get_params().items()}
        assert est.fit(X, y) is est
        assert {k: repr(v) for k, v in est.get_params().items()} == before  # fit changes no parameter
        p = est.predict_proba(X)
        assert np.allclose(clone(est).fit(X, y).predict_proba(X), p)  # idempotent, and clone-then-fit reproduces it
        assert np.allclose(pickle.loads(pickle.dumps(est)).predict_proba(X), p)
        sub = X.iloc[5:15] if isinstance(X, pd.DataFrame) else X[5:15]
        assert np.allclose(est.predict_proba(sub), p[5:15])  # subset invariance
        rev = X.iloc[::-1] if isinstance(X, pd.DataFrame) else X[::-1]
        assert np.allclose(est.predict_proba(rev), p[::-1])  # order invariance


def test_tuned_model_carries_its_out_of_fold_calibration():
    df = toy_pairs(80); c = label_counts(df)
    tu = tune('Logistic', df[:60], c[:60], 'dilemmas', budget=2, batch_size=2, n_jobs=1, seed=0, progress=False)
    np.testing.assert_array_equal(tu.model.heldout_proba_, tu.oof_proba)
    np.testing.assert_array_equal(tu.model.heldout_counts_, c[:60])
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # no in-sample calibration warning: the model's own held-out data is used
        own = evaluate(tu.model, df[60:], c[60:], n_boot=0)
    explicit = evaluate(tu.model, df[60:], c[60:], proba_cal=tu.oof_proba, counts_cal=c[:60], n_boot=0)
    assert own.calibration == "held-out (the model's own)" and np.isclose(own.xentropy, explicit.xentropy)


def test_final_refit_breaks_ties_as_cross_validation():
    from scruples.baselines import target_labels
    texts, C, n_ties = tied_texts()
    task = make_task(texts, C, ties='random', n_folds=3, seed=0)
    tu = tune('CompNB', texts, C, budget=2, batch_size=2, n_folds=3, n_jobs=1, seed=0, progress=False, ties='random')
    refit = target_labels(C, len(texts), None, 'random', tu.model.seed).labels
    np.testing.assert_array_equal(refit, task.labels)


# --- skewed classes and a context (issue 29) ---------------------------------------------------------------------

def skewed_texts(n=400, seed=0):
    "Texts whose word says the class (rare class 10%, the word present 60% of the time), as counts of 3 votes."
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.1).astype(int)
    words = np.where((y == 1) & (rng.random(n) < 0.6), 'awful', rng.choice(['fine', 'ok', 'good', 'nice'], size=n))
    texts = [f'{w} {rng.choice(["today", "again", "once"])}' for w in words]
    return texts, np.eye(2, dtype=int)[y] * 3


@pytest.mark.parametrize('model', ['Logistic', 'MultiNB'])
def test_balanced_class_weight_predicts_the_rare_class_more(model):
    "tune(class_weight='balanced') fits every point and the final model with balanced weights: the rare class is predicted more often."
    from scruples.baselines import tune
    texts, counts = skewed_texts()
    share = {}
    for cw in (None, 'balanced'):
        t = tune(model, texts, counts, budget=3, n_jobs=1, progress=False, seed=0, class_weight=cw)
        share[cw] = float(np.mean(t.model.predict_proba(texts)[:, 1]))
        if cw: assert 'class_weight' not in t.best_params
    assert share['balanced'] > share[None] + 0.05, share


def test_class_weight_is_refused_for_pairs_and_misspelt():
    from scruples.baselines import make_task
    with pytest.raises(ValueError, match='pairs are binary'): make_task([('a', 'b')] * 8, np.array([[1, 0]] * 8), class_weight='balanced')
    with pytest.raises(ValueError, match="None or 'balanced'"): make_task(['a b'] * 8, np.array([[1, 0]] * 8), class_weight='balance')


def test_context_words_are_features_of_their_own():
    "A word of the context never counts as the same word in the text."
    from sklearn.feature_extraction.text import CountVectorizer
    from scruples.baselines import with_context
    docs = with_context(['you lied', 'thanks'], ['did you go', float('nan')])
    assert docs == ['you lied ctx_did ctx_you ctx_go', 'thanks']
    vocab = CountVectorizer().fit(docs).vocabulary_
    assert {'you', 'ctx_you'} <= set(vocab)
