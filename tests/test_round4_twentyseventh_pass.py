"""Twenty-seventh hostile pass: the public API's estimators and per-class inputs given pandas objects whose names could
pair them (a calibrator fitted on frames of logits and counts, a latent trait model fitted on a frame of questions and
scoring another, a pair model given a frame of votes named by action). Each test runs the API as a user does, asserts
the right behaviour, and failed on the code it was written against."""
import numpy as np
import pandas as pd
import pytest


def _logits_and_counts(n=200, seed=0):
    "Logits of a model over yes/no/unsure and 5 votes an item drawn from its own probabilities (well calibrated)."
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 3)) * 2
    p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    cls = ['yes', 'no', 'unsure']
    return pd.DataFrame(z, columns=cls), pd.DataFrame([rng.multinomial(5, q) for q in p], columns=cls)


def test_temperature_calibrator_matches_a_frame_of_logits_to_the_counts_by_class_name():
    """MIXED (two inputs' classes paired by position). `TemperatureCalibrator.fit(logits, counts)` (public in
    `scruples.metrics`, the calibration `score` and `evaluate` use) takes frames of logits and of counts by position,
    where every scorer of the package (`xentropy`, `kl_divergence`, `score_predictions`) matches a frame's columns to
    the counts' classes by name. A model's logits over yes,no,unsure drawn to be calibrated give temperature 1.016 and
    smoothing 0 with the counts in the same order; the same logits with their columns in the order unsure,yes,no give
    temperature 1000 and smoothing 1.0 (the model flattened to uniform), and `score` of the calibrated model moves from
    0.607 to 1.926 nats with the logits' columns in another order. It should match the columns by name (the same fit and
    score either way) or refuse the frames whose names disagree."""
    from scruples.metrics import TemperatureCalibrator

    L, C = _logits_and_counts()
    same = TemperatureCalibrator().fit(L, C)
    other = TemperatureCalibrator().fit(L[['unsure', 'yes', 'no']], C)
    assert other.temperature_ == pytest.approx(same.temperature_, rel=1e-4), (same.temperature_, other.temperature_)
    assert other.smoothing_ == pytest.approx(same.smoothing_, abs=1e-6), (same.smoothing_, other.smoothing_)
    assert same.score(L[['no', 'yes', 'unsure']], C) == pytest.approx(same.score(L, C)), 'score pairs by position'


def test_latent_trait_model_scores_a_frame_by_its_question_names():
    """MIXED (a fitted object and new data paired by position). `LatentTraitModel` is a scikit-learn estimator fitted on
    a frame of respondents x questions (`lsat6()`, `annotator_responses(...)` name their columns), but `score`,
    `score_samples`, `scores` and `transform` take a new frame's columns by position: scikit-learn's own estimators
    refuse a frame whose feature names are in another order than at fit. On LSAT-6 (1,000 examinees, 5 items) the mean
    log-likelihood per respondent is -2.4667 with the columns as fitted and -2.5176 with the same frame's columns
    reversed (each item's difficulty given to another), and the trait scores of examinees move likewise, with no
    warning. It should match the columns by name (the same numbers) or refuse the frame."""
    from scruples.traits import LatentTraitModel, lsat6

    Y = lsat6()
    m = LatentTraitModel().fit(Y)
    Yr = Y[Y.columns[::-1]]
    try:
        got = m.score(Yr)
    except ValueError:
        return  # refused: the columns are not those of the fit in their order
    assert got == pytest.approx(m.score(Y), rel=1e-9), (m.score(Y), got)
    assert np.allclose(m.transform(Yr), m.transform(Y))


def test_pair_ranker_matches_a_frame_of_votes_to_the_actions_by_name():
    """MIXED (classes and columns paired by position). `PairRanker.fit(X, y)` takes y as "label counts (n, 2)" in the
    order action 1, action 2, and the Dilemmas classes are named `DILEMMAS_CLASSES = ('action_1', 'action_2')` (the
    label-count reader names the columns so). A frame of votes with those names in the order action_2, action_1 is taken
    by position: the model learns the votes for action 2 as votes for action 1, and its predict_proba ("P(action 1 is
    the less ethical), P(action 2 is)") is the mirror of the same model fitted on the frame in order: 0.176 for 0.824
    on the first test pair. It should match the columns to the actions by name (the same model) or refuse a frame whose
    columns are the actions in another order."""
    from scruples.pairs import PairRanker

    rng = np.random.default_rng(3)
    good = ['helping my friend', 'feeding the cat', 'calling my mother', 'paying my rent', 'thanking the driver']
    bad = ['lying to my boss', 'stealing a bike', 'insulting my sister', 'cheating on a test', 'ignoring my dad']
    rows, votes = [], []
    for i in range(80):
        g, b = good[rng.integers(5)], bad[rng.integers(5)]
        first_bad = rng.random() < 0.5
        rows.append((b, g) if first_bad else (g, b))
        v = rng.binomial(5, 0.85)  # votes that the bad action is the less ethical
        votes.append((v, 5 - v) if first_bad else (5 - v, v))
    X = pd.DataFrame(rows, columns=['action_1', 'action_2'])
    C = pd.DataFrame(votes, columns=['action_1', 'action_2'])
    same = PairRanker().fit(X, C).predict_proba(X.iloc[:5])
    try:
        other = PairRanker().fit(X, C[['action_2', 'action_1']]).predict_proba(X.iloc[:5])
    except ValueError:
        return  # refused: the columns name the actions in another order
    assert np.allclose(other, same), (same[:2], other[:2])


def test_tune_with_a_prepared_task_does_not_drop_the_class_weight_it_is_given():
    """SILENT WRONG (a keyword argument accepted but ignored). `tune(model, X, y, cv_task=task, class_weight='balanced')`
    takes the class weight from the prepared task (built without one) and drops the argument without a word: the search
    is the unweighted one, class_weight searched as one more knob. On 80 texts over three classes, Logistic with a
    budget of 2 points gives a best cross-validated cross-entropy of 1.0906 with cv_task and class_weight='balanced',
    exactly the run without class_weight, where the same call without cv_task (the same folds: `make_task` with the
    same seed) gives 1.0982 with the classes weighted. It should apply the class weight it is given (the same search as
    without cv_task) or refuse a class_weight other than the task's."""
    from scruples.baselines import make_task, tune

    rng = np.random.default_rng(0)
    words = ['cat', 'dog', 'sun', 'rain', 'car', 'tree', 'milk', 'book']
    texts = [' '.join(rng.choice(words, 6)) for _ in range(80)]
    y = np.array([0 if 'cat' in t else (1 if rng.random() < 0.85 else 2) for t in texts])
    C = pd.DataFrame(np.eye(3, dtype=int)[y], columns=['a', 'b', 'c'])
    kw = dict(budget=2, batch_size=2, n_jobs=1, progress=False)
    plain = tune('Logistic', texts, C, class_weight='balanced', **kw)
    try:
        prepared = tune('Logistic', texts, C, cv_task=make_task(texts, C, n_folds=4, seed=0), class_weight='balanced',
                        **kw)
    except ValueError:
        return  # refused: the prepared task has no class weight
    assert prepared.best_score == pytest.approx(plain.best_score), (plain.best_score, prepared.best_score)


def test_load_dilemmas_does_not_ignore_a_size_it_can_never_apply(real_data_dir):
    """SILENT WRONG (a keyword argument accepted but ignored). `load_dilemmas(split, synthetic=False, n=100)` (and
    `load_anecdotes`) documents `n` as "size of a synthetic split", and synthetic=False means "real or error": the size
    can never apply, yet the call returns the real dev split's 2,340 dilemmas without a word, where a user asked for 100.
    It should refuse n with synthetic=False (as it refuses other options that do not apply) or give 100 rows."""
    from scruples.corpus import load_dilemmas

    try:
        got = load_dilemmas('dev', data_dir=real_data_dir, synthetic=False, n=100)
    except ValueError:
        return  # refused: n applies to synthetic splits only
    assert len(got) == 100, len(got)


def test_prediction_warnings_names_the_class_a_frame_of_probabilities_predicts():
    """MIXED (classes and columns paired by position; a note contradicting the numbers). `prediction_warnings(proba,
    classes)` (public in `scruples.evaluation`, and `scruples.guide.model_warnings` on it) names the collapsed class by
    the position of the top column in `classes`, also where `proba` is a frame whose columns name the classes: a model
    giving 0.9 to 'yes' and 0.1 to 'no' on all 20 items, as a frame with columns no,yes beside classes ['yes', 'no'],
    is said to predict 'no' for 100% of the items. It should match the frame's columns to the classes by name (say
    'yes') or refuse the frame whose names disagree with the classes."""
    from scruples.evaluation import prediction_warnings

    P = pd.DataFrame({'no': [0.1] * 20, 'yes': [0.9] * 20})
    try:
        said = prediction_warnings(P, ['yes', 'no'], 'm')
    except ValueError:
        return  # refused: the columns name the classes in another order
    assert len(said) == 1 and "predicts 'yes'" in said[0]['says'], said


def test_best_matches_a_fitted_prior_to_a_frame_in_another_class_order():
    """MIXED (a fitted object and new data paired by position). `best(counts, prior=pr)` takes a fitted `Prior`
    (`fit_npmle(df)`, `choose_prior(df).prior`) by position: the Prior keeps no class names, so a prior fitted on a frame
    over yes,no,unsure and given with the same frame in the order unsure,no,yes puts yes's prior mass on unsure. On 300
    Dirichlet-multinomial items (5 votes), the BEST cross-entropy is 0.6972 with the frame as fitted (and 0.6972 with
    the prior put in the frame's order by `reorder_classes`), 0.7240 with the frame reordered, and the prior's check
    turns from "predicts the vote patterns (G = 2.2, p = 1.00)" to "poorly (G = 260.8, p = 0.010)", with nothing said of
    the classes. It should match the prior's classes to the frame's by name (the same ceiling) or refuse a fitted prior
    beside a frame whose class order it cannot check."""
    from scruples.best import best
    from scruples.priors import fit_npmle

    rng = np.random.default_rng(5)
    p = rng.dirichlet([1.0, 0.6, 0.4], size=300)
    C = pd.DataFrame([rng.multinomial(5, q) for q in p], columns=['yes', 'no', 'unsure'])
    pr = fit_npmle(C)
    same = best(C, prior=pr, n_boot=0, n_samples=2000, seed=0)
    try:
        other = best(C[['unsure', 'no', 'yes']], prior=pr, n_boot=0, n_samples=2000, seed=0)
    except ValueError:
        return  # refused: a fitted prior beside a frame of other class order
    assert other.loc['xentropy', 'estimate'] == pytest.approx(same.loc['xentropy', 'estimate'], abs=1e-6), (
        same.loc['xentropy', 'estimate'], other.loc['xentropy', 'estimate'])
    assert other.attrs['check_verdict'] == same.attrs['check_verdict'], (same.attrs['check'], other.attrs['check'])


class _Recorded:
    "A stand-in for `TransformerClassifier` in `search`: records the settings of each trial, fits nothing."
    seen: list = []

    def __init__(self, **kw):
        _Recorded.seen.append(kw)

    def fit(self, *a, **k):
        self.history_ = {'best_epoch': 1, 'heldout': [1.0]}
        return self


def test_search_does_not_override_a_field_it_is_told_to_hold_fixed(monkeypatch):
    """SILENT WRONG (a keyword argument accepted but ignored). `models.search(..., **fixed)` documents `fixed` as
    "TrainConfig fields held fixed, e.g. likelihood='dirichlet'", but a field that is also in `space` (the default
    F4_SPACE holds lr, weight_decay, warmup, batch_size, epochs) is overwritten by the trial's draw: `search(...,
    lr=2e-5)` fits its two trials with lr 3.0e-6 and 2.8e-4 (drawn from 1e-8..1e-2), the fixed 2e-5 never used, without
    a word. It should hold the field fixed (leave it out of the search) or refuse a field given both ways."""
    from scruples import models

    _Recorded.seen = []
    monkeypatch.setattr(models, 'TransformerClassifier', _Recorded)
    try:
        models.search(['a b', 'c d'], np.array([[1, 0], [0, 1]]), ['e f'], np.array([[1, 0]]), n_trials=2,
                      sampler='tpe', seed=0, lr=2e-5)
    except ValueError:
        return  # refused: lr is both fixed and searched
    assert [kw['lr'] for kw in _Recorded.seen] == [2e-5, 2e-5], [kw['lr'] for kw in _Recorded.seen]


def test_search_refuses_a_sampler_it_does_not_know():
    """SILENT WRONG (a keyword argument accepted but ignored). `models.search(sampler=...)` takes 'gp' (Gaussian process,
    as the paper) or 'tpe', but any other value ('GP', 'random', 'cmaes') runs TPE without a word: the study's sampler
    is a TPESampler for sampler='random'. It should refuse a sampler it does not know (as `tune` refuses an unknown
    model) before any fit."""
    from scruples import models

    with pytest.raises(ValueError, match='sampler'):
        models.search(['a b', 'c d'], np.array([[1, 0], [0, 1]]), ['e f'], np.array([[1, 0]]), n_trials=0,
                      sampler='random', seed=0)


def test_a_checkpointed_fit_keeps_a_users_files_in_its_checkpoint_dir(tmp_path):
    """DATA LOSS (a file the command did not write deleted and overwritten). `TransformerClassifier(checkpoint_dir=d)
    .fit(...)` (without resume) first removes every file of the names a checkpoint uses (`RunCheckpoint.clear`: state.json,
    model.safetensors, last.safetensors, optimizer.*, top_*.safetensors) from `d`, whoever wrote them, then writes its own:
    a user's state.json ({"mine": 1}) and model.safetensors (e.g. the weights `save()` wrote for another model into the
    same folder) are gone after a one-epoch fit on 16 pairs, replaced by the run's 1,305-byte state and 91 MB of weights,
    without a word; every other command of the package (analyze, score --figures, extract, reproduce) refuses a folder
    holding a user's file of a name it writes, or leaves it. It should refuse the folder (naming the files) or keep
    them."""
    from scruples import models as M
    from scruples.corpus import load_dilemmas
    from scruples.data import label_counts

    d = load_dilemmas('dev').iloc[:16].reset_index(drop=True)
    ck = tmp_path / 'ck'
    ck.mkdir()
    (ck / 'state.json').write_text('{"mine": 1}\n')
    (ck / 'model.safetensors').write_bytes(b'my own weights')
    kw = dict(likelihood='soft', batch_size=8, max_length=16, progress=False, seed=3, epochs=1)
    try:
        M.TransformerClassifier(checkpoint_dir=ck, **kw).fit(d, label_counts(d))
    except (ValueError, OSError):
        pass  # refused: the folder holds files the run did not write
    assert (ck / 'state.json').read_text() == '{"mine": 1}\n'
    assert (ck / 'model.safetensors').read_bytes() == b'my own weights'


def test_dirichlet_uncertainty_names_a_frames_columns_by_their_classes():
    """MIXED (classes and columns paired by position). `likelihoods.dirichlet_uncertainty(logits, classes)` names its
    columns mean_<class>, sd_<class> by the position of `classes`, also where the logits are a frame whose columns name
    the classes: logits with columns no,yes ([0, 2] on the first item) beside classes=['yes', 'no'] give mean_yes 0.119
    and mean_no 0.881, where the Dirichlet's mean of 'yes' is 0.881 (softmax of its logit 2). It should match the
    frame's columns to the classes by name (or take the frame's own names) or refuse names that disagree."""
    from scruples.likelihoods import dirichlet_uncertainty

    Z = pd.DataFrame({'no': [0.0, 1.0], 'yes': [2.0, 0.5]})
    want = np.exp(Z['yes']) / np.exp(Z).sum(axis=1)
    try:
        got = dirichlet_uncertainty(Z, classes=['yes', 'no'])
    except ValueError:
        return  # refused: the classes name the frame's columns in another order
    assert np.allclose(got['mean_yes'], want), (got['mean_yes'].tolist(), want.tolist())


def test_score_against_ceiling_warning_names_the_class_of_the_counts_column():
    """MIXED (classes and columns paired by position; a note contradicting the numbers). `score_against_ceiling(proba,
    counts, classes=...)` matches a frame of probabilities to the counts' columns by name, then names the collapsed
    class by its position in `classes`, never checked against the counts' column names: counts and probabilities over
    no,yes, the model giving 'yes' 0.8 on all 60 items, with classes=['yes', 'no'], are said to "predict 'no' for 100%
    of the 60 scored items" (and without classes, 'class 1', where the counts name it 'yes'). It should name the class by
    the counts' columns (say 'yes') or refuse classes that disagree with them."""
    import warnings

    from scruples.evaluation import score_against_ceiling

    rng = np.random.default_rng(0)
    n = 60
    C = pd.DataFrame({'no': rng.integers(0, 3, n), 'yes': rng.integers(1, 5, n)})
    P = pd.DataFrame({'no': [0.2] * n, 'yes': [0.8] * n})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            r = score_against_ceiling(P, C, classes=['yes', 'no'], n_boot=20, ceiling_boot=0, n_samples=500)
    except ValueError:
        return  # refused: classes name the counts' columns in another order
    said = [w['says'] for w in r.attrs['warnings'] if w['kind'] == 'collapsed']
    assert said and "predicts 'yes'" in said[0], said


def test_annotator_ranking_matches_the_kappa_rows_to_the_table_by_annotator():
    """MIXED (rows of two inputs joined by position where names could join them). `perspectives.annotator_ranking(table,
    kappa)` returns each annotator's mean kappa with the others, labelled by `table.annotator`, but takes kappa's rows by
    position whenever the two have as many rows (it matches them by annotator only when their lengths differ): the
    annotator table sorted in another order (`table.sort_values(...)`, here reversed) gives each annotator another's
    score: on 12 simulated annotators (two groups of 6, 120 items) left1's mean kappa is 0.465 with the table in
    kappa's order and 0.484 (right6's) with the table reversed, right5's 0.442 becomes 0.462, with no warning (and
    `kappa_heatmap`'s panel of the lowest and highest names them by this). It should match kappa's rows to the table's
    annotators by name (the same score per annotator in any order of the table)."""
    from scruples import perspectives as P
    from scruples.annotations import read_annotated

    long, ann = P.simulate_perspectives(groups={'left': 6, 'right': 6}, seed=0)
    data = read_annotated(long, 'long')
    groups = pd.Series(ann.group.values, index=ann.annotator)
    kap, shared = P.pairwise_kappa(data)
    table = P.annotator_table(data, groups, kappa=(kap, shared))
    same, _ = P.annotator_ranking(table, kap)
    other, _ = P.annotator_ranking(table.iloc[::-1], kap)
    assert other.sort_index().round(9).to_dict() == same.sort_index().round(9).to_dict(), (
        same.sort_index().round(3).to_dict(), other.sort_index().round(3).to_dict())
