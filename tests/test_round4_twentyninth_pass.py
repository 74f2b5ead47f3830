"""Twenty-ninth hostile pass: the Python API's long tail (perspectives, agreement, verbs, baselines, softmetrics,
bridge, ...). Each test runs the API as a researcher does in a notebook, asserts the right behaviour, and failed on the
code it was written against."""
import numpy as np
import pandas as pd
import pytest


def _perspective_data():
    from scruples.annotations import read_annotated
    from scruples.perspectives import simulate_perspectives

    long, ann = simulate_perspectives(n_items=60, groups={'left': 3, 'right': 3}, seed=1)
    data = read_annotated(long, 'long')
    groups = ann.set_index('annotator').group.reindex(data.annotators).to_numpy()
    return data, groups


def test_annotator_table_matches_a_given_kappa_frame_by_annotator_not_by_position():
    """MIXED (an annotator's kappas attributed to another). `scruples.perspectives.annotator_table(data, groups,
    kappa=(kap, shared))` takes the precomputed `pairwise_kappa` frames by position (`kap.to_numpy()[i]` for
    `data.annotators[i]`), ignoring their annotator index. The same frames sorted for display (a notebook's
    `kap.loc[order, order]`) give every annotator another's mean kappa: left1's kappa_own is 0.8119 (right3's) where
    its mean kappa with left2 and left3 (read off the frame by name) is 0.8095, and its kappa_other 0.0897 for
    0.1354. It should match the frames to the annotators by their index (as `annotator_ranking` does), or refuse
    frames in another order."""
    from scruples.perspectives import annotator_table, pairwise_kappa

    data, groups = _perspective_data()
    kap, shared = pairwise_kappa(data)
    order = sorted(kap.index, reverse=True)
    try:
        t = annotator_table(data, groups, kappa=(kap.loc[order, order], shared.loc[order, order]))
    except ValueError:
        return  # refused: frames in another order than data.annotators
    t = t.set_index('annotator')
    for a in data.annotators:
        g = groups[list(data.annotators).index(a)]
        own = [b for b, h in zip(data.annotators, groups) if h == g and b != a]
        other = [b for b, h in zip(data.annotators, groups) if h != g]
        assert t.loc[a, 'kappa_own'] == pytest.approx(np.mean([kap.loc[a, b] for b in own]), abs=1e-12), a
        assert t.loc[a, 'kappa_other'] == pytest.approx(np.mean([kap.loc[a, b] for b in other]), abs=1e-12), a


def test_aggregate_agreement_matches_a_truth_series_to_the_items_by_id():
    """MIXED (true labels paired with other items). `scruples.agreement.aggregate_agreement(table, truth=...)` compares
    each aggregate with `np.asarray(truth)` by position. The table (`aggregate`) names its items in an `item` column; a
    truth given as a Series keyed by item id in another order (here reversed) is compared with the wrong items: the
    majority's accuracy is 0.375 where, matched by item id, it is 0.75 (the same truth as a list in the table's order
    also gives 0.75). It should align a Series with the table's `item` column by id, or refuse one whose index is not
    the table's items in order."""
    from scruples.agreement import aggregate, aggregate_agreement
    from scruples.annotations import simulate_annotations

    data, truth = simulate_annotations(n_items=40, n_annotators=8, votes=(3, 5), seed=0)
    agg = aggregate(data, methods=('mace',))
    s = pd.Series([data.classes[t] for t in truth], index=list(data.items))
    right = (agg.set_index('item').majority == s).mean()  # matched by item id, by hand
    assert right == pytest.approx(0.75)
    try:
        got = aggregate_agreement(agg, truth=s.iloc[::-1]).set_index('method')
    except ValueError:
        return  # refused: a Series keyed by items in another order
    assert got.loc['majority', 'accuracy'] == pytest.approx(right)


def test_verb_table_does_not_count_a_missing_verb_nan_as_the_verb_nan():
    """SILENT WRONG (NaN turned into a value). `scruples.verbs.verb_table` drops a pair whose root verb is None (no verb:
    nothing to compare), but a missing verb written as NaN (`RootVerbs`' None after a CSV round trip, `pd.read_csv`)
    becomes the verb 'nan': a row verb='nan' with better=1, and the pair it came from is counted for the other verb
    ('eat' 1 better / 1 worse where, without the verbless pair, it is 1 / 0). `permutation_test` then tests 'nan' as a
    verb and Holm-corrects every other verb's p-value for it. NaN should be treated as None (the pair left out) or
    refused."""
    from scruples.verbs import verb_table

    v1, v2, lab = ['go', np.nan, 'go'], ['eat', 'eat', 'say'], [0, 1, 1]
    try:
        t = verb_table(v1, v2, lab)
    except (ValueError, TypeError):
        return  # refused: a missing verb
    want = verb_table(['go', None, 'go'], ['eat', 'eat', 'say'], lab)  # None: the pair left out
    assert 'nan' not in set(t.verb)
    pd.testing.assert_frame_equal(t.reset_index(drop=True), want.reset_index(drop=True))


def test_with_context_treats_pandas_missing_context_as_no_context():
    """SILENT WRONG (a missing value turned into a feature). `scruples.baselines.with_context(texts, contexts)` says ''
    or None is no context, and leaves NaN out too; but a missing context of a pandas string column (`pd.NA`:
    `pd.read_csv(..., dtype='string')`, `convert_dtypes()`) becomes the word 'NA' of the context: 'b ctx_NA', so every
    item without a context shares a made-up n-gram feature `ctx_NA` in the baselines. It should give 'b' (no context),
    as for None and NaN."""
    from scruples.baselines import with_context

    ctx = pd.Series(['x y', None, 'q'], dtype='string')  # the None is stored as pd.NA
    assert ctx.isna().tolist() == [False, True, False]
    got = with_context(['a', 'b', 'c'], ctx)
    assert got == ['a ctx_x ctx_y', 'b', 'c ctx_q']


def test_anecdotes_preset_fitted_on_label_names_is_scored_against_label_counts_in_their_classes():
    """SILENT WRONG (class order: string sort instead of the preset's). `scruples.baselines.target_labels` gives labels
    by name the classes `np.unique` sorts: with the Anecdotes preset (`make_model('Prior', 'anecdotes')`) fitted on the
    frame's own `label` column, `classes_` is AUTHOR, EVERYBODY, INFO, NOBODY, OTHER and `predict_proba`'s columns
    follow it, not the preset's order author, other, everybody, nobody, info that `label_counts`, `ANECDOTES_CLASSES`
    and every table use. `evaluate(model, dev, label_counts(dev))` then scores OTHER's probability as everybody's:
    macro F1 0.0026 and cross-entropy 1.609 where the same prior fitted on `label_counts(train)` (the same majority
    labels) scores 0.159 and 1.120. The preset's labels should keep the preset's class order (or evaluate should refuse
    counts without names for a model whose classes are names)."""
    import warnings

    from scruples.baselines import make_model
    from scruples.corpus import load_anecdotes
    from scruples.data import label_counts
    from scruples.evaluation import evaluate

    tr = load_anecdotes('train', synthetic=True, n=400)
    dv = load_anecdotes('dev', synthetic=True, n=300)
    by_counts = make_model('Prior', 'anecdotes').fit(tr, label_counts(tr))
    by_names = make_model('Prior', 'anecdotes').fit(tr, tr.label)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        want = evaluate(by_counts, dv, label_counts(dv), proba_cal=by_counts.predict_proba(tr),
                        counts_cal=label_counts(tr), n_boot=0)
        try:
            got = evaluate(by_names, dv, label_counts(dv), proba_cal=by_names.predict_proba(tr),
                           counts_cal=label_counts(tr), n_boot=0)
        except ValueError:
            return  # refused: counts without class names for a model whose classes are names
    assert float(got['f1']) == pytest.approx(float(want['f1']), abs=1e-9)
    assert float(got['xentropy']) == pytest.approx(float(want['xentropy']), abs=1e-9)


def test_irt_parameters_name_the_questions_a_drop_degenerate_fit_kept():
    """MIXED (one question's parameters shown as another's). `scruples.traits.irt_parameters(model)` returns the
    difficulty and discrimination of the fitted questions indexed 0..J'-1, by their place among the questions KEPT,
    while `LatentTraitModel(drop_degenerate=True)` drops constant questions (common in `annotator_responses`: items
    everyone agreed on) and keeps the others' numbers as `items_` (`margin_fit` names them so). LSAT-6 with a constant
    question 'always' in front: row 3 (the fitted frame's question 3, 'Item 3') shows difficulty -1.866, Item 4's;
    Item 3's, as the fit without the constant question gives it, is -0.280. Rows should be named by the kept questions
    (their names, or their indices `items_`)."""
    import warnings

    from scruples.traits import LatentTraitModel, irt_parameters, lsat6

    Y = lsat6()
    Yc = Y.copy()
    Yc.insert(0, 'always', 1)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        plain = irt_parameters(LatentTraitModel(1).fit(Y))
        kept = irt_parameters(LatentTraitModel(1, drop_degenerate=True).fit(Yc))
    assert plain.loc[2, 'difficulty'] == pytest.approx(-0.2797, abs=1e-3)  # Item 3, the third question of Y
    key = 'Item 3' if 'Item 3' in kept.index else list(Yc.columns).index('Item 3')  # by name, or by its column in Yc
    assert kept.loc[key, 'difficulty'] == pytest.approx(plain.loc[2, 'difficulty'], abs=1e-6)


def test_text_baseline_does_not_silently_drop_a_frames_context_column():
    """SILENT WRONG (an input accepted and ignored). The shallow baselines read a frame of texts through
    `scruples.pairs.read_examples`, which reads its `context` column (the turn a reply answers), then keep only the
    texts (`baselines._docs`: `.X`): `TextClassifier().fit(df[['text', 'context']], y)` trains and predicts exactly as
    without the column, without a word. Here the label is decided by the context alone (the same two texts, each in
    both labels): the model predicts 0.5/0.5 for every item, identical (max difference 0.0) to the text-only model. It
    should use the context (e.g. `with_context`) or refuse/warn that the baselines ignore it."""
    import warnings

    from scruples.baselines import TextClassifier

    df = pd.DataFrame({'text': ['you are useless', 'thanks a lot', 'you are useless', 'thanks a lot'] * 5,
                       'context': ['I asked', 'I helped', 'I helped', 'I asked'] * 5})
    y = np.array([1, 0, 0, 1] * 5)
    text_only = TextClassifier().fit(df[['text']], y).predict_proba(df[['text']])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        try:
            with_ctx = TextClassifier().fit(df, y).predict_proba(df)
        except ValueError:
            return  # refused: a context the baselines cannot use
    if any('context' in str(w.message) for w in caught):
        return  # said
    assert not np.allclose(with_ctx, text_only)


def test_bridge_fits_match_a_frame_of_votes_to_the_actions_by_name():
    """MIXED (class order swapped). `scruples.bridge.fit_scale(diff, counts)` and `LearnedDirection.fit_arrays(x,
    counts)` take a frame of votes by position, although the package matches such a frame by its column names
    everywhere else (`scruples.pairs.pair_columns`: 'action_2, action_1 trained the mirror model'; `dilemma_metrics` in
    this very module uses it). The same votes as a frame with columns action_2, action_1 give k = -1.800 for +1.800
    and the mirror direction (coef -1.040, 2.073, -0.411 for 1.040, -2.073, 0.411). They should match the columns by
    name (or refuse a frame)."""
    from scruples.bridge import LearnedDirection, fit_scale

    rng = np.random.default_rng(0)
    d = rng.normal(size=200)
    c1 = rng.binomial(5, 1 / (1 + np.exp(-2 * d)))
    c = np.c_[c1, 5 - c1]
    swapped = pd.DataFrame(c, columns=['action_1', 'action_2'])[['action_2', 'action_1']]
    try:
        k = fit_scale(d, swapped)
    except (ValueError, TypeError):
        k = None  # refused: a frame of votes
    if k is not None:
        assert k == pytest.approx(fit_scale(d, c), rel=1e-6)
    x = rng.normal(size=(200, 3))
    c1 = rng.binomial(5, 1 / (1 + np.exp(-x @ np.array([1.0, -2.0, 0.5]))))
    c = np.c_[c1, 5 - c1]
    swapped = pd.DataFrame(c, columns=['action_1', 'action_2'])[['action_2', 'action_1']]
    want = LearnedDirection(n_jobs=1).fit_arrays(x, c).coef_
    try:
        got = LearnedDirection(n_jobs=1).fit_arrays(x, swapped).coef_
    except (ValueError, TypeError):
        return
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


def test_annotator_table_does_not_ignore_min_shared_when_given_kappa():
    """SILENT WRONG (an argument accepted and ignored). `scruples.perspectives.annotator_table(data, groups,
    min_shared=M, kappa=...)` uses the given kappa frames whatever `M` is, and still writes `attrs['min_shared'] = M`:
    with min_shared=1000 (no two annotators share 1,000 of the 60 items) and `kappa=pairwise_kappa(data)` (made with
    5), left1 gets kappa_own 0.809 over 2 pairs where `annotator_table(data, groups, min_shared=1000)` gives NaN over 0
    pairs, and the table says min_shared 1000. It should apply `min_shared` to the given frames (their `shared` counts),
    or refuse a `min_shared` other than the frames'."""
    from scruples.perspectives import annotator_table, pairwise_kappa

    data, groups = _perspective_data()
    want = annotator_table(data, groups, min_shared=1000).set_index('annotator')
    try:
        got = annotator_table(data, groups, min_shared=1000, kappa=pairwise_kappa(data)).set_index('annotator')
    except ValueError:
        return  # refused: kappa frames made with another min_shared
    assert (want.pairs_own == 0).all()
    pd.testing.assert_series_equal(got.pairs_own, want.pairs_own)
    pd.testing.assert_series_equal(got.kappa_own, want.kappa_own)


def test_plot_bias_vs_weat_matches_a_series_of_scores_to_the_table_like_bias_correlations():
    """MIXED (one verb's score drawn and correlated as another's). Figure 2's helper
    `scruples.mcm.plot_bias_vs_weat(table, bias)` takes `bias` by position (`np.asarray`), while its sibling
    `bias_correlations(table, scores)` matches a Series to the table's rows by index. The same scores as a Series in
    another row order: `bias_correlations` gives Pearson r 0.91 with WEAT, the figure's title prints r = -0.11 (each
    point pairs one verb's WEAT with another verb's bias). It should align a Series by index as `bias_correlations`
    does (title r = 0.91)."""
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    from scruples.mcm import bias_correlations, load_dos_donts, plot_bias_vs_weat

    t = load_dos_donts()
    rng = np.random.default_rng(0)
    s = pd.Series(t.weat.to_numpy() + rng.normal(0, 0.05, len(t)), index=t.index).sample(frac=1, random_state=0)
    r = bias_correlations(t, s).set_index('against').loc['weat', 'pearson_r']
    assert r == pytest.approx(0.905, abs=0.01)
    try:
        fig = plot_bias_vs_weat(t, s)
    except ValueError:
        return  # refused: scores in another order
    try:
        assert fig.axes[0].get_title() == f'Pearson r = {r:.2f} (n = {len(t)})'
    finally:
        plt.close(fig)


def test_plot_weights_labels_the_points_of_a_drop_degenerate_fit_by_the_kept_questions():
    """MIXED (a question's label on another's point). Figure 6's `scruples.traits.plot_weights(model, labels)` writes
    `labels[j]` beside row j of `weights_`, the j-th question KEPT; with `drop_degenerate=True` and a constant question
    'always' first, the labels one per question of the fitted frame (its columns) shift by one: q0's point is labelled
    'always' (a question the model dropped), q1's 'q0', and so on; the default labels (j + 1) number the kept
    questions, not the questions. The point of weights_ row j should be labelled `labels[items_[j]]`."""
    import warnings

    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    from scruples.traits import LatentTraitModel, plot_weights, simulate_responses

    Y, _, _ = simulate_responses(400, 6, 2, seed=0)
    Yc = pd.DataFrame(Y, columns=[f'q{j}' for j in range(6)])
    Yc.insert(0, 'always', 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        m = LatentTraitModel(2, drop_degenerate=True).fit(Yc)
    assert list(m.items_) == [1, 2, 3, 4, 5, 6]
    fig = plot_weights(m, labels=list(Yc.columns))
    try:
        texts = [t.get_text() for t in fig.axes[0].texts]
    finally:
        plt.close(fig)
    assert texts == [f'q{j}' for j in range(6)]
