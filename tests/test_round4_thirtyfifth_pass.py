"""The thirty-fifth pass's leads (issue 39): each test failed before its fix.

1. `evaluation.evaluate(model, X, annotated)` matched an AnnotatedData's item ids to X's row numbers when the ids were
   the numbers 0..n-1 in another order (macro F1 0.5 for 1.0): an AnnotatedData's items pair with X by position.
2. A `mcm.MoralDirection` whose encoder was changed after the fit (`set_params(encoder=B)`) scored with the new encoder,
   silently; `score_actions(acts, encoder=B, direction=dA)` was accepted and `encoder=A` refused; `load(path, encoder=B)`
   of a direction fitted with A only warned. `bridge.LearnedDirection` the same (`d.encoder = B`, `load`).
3. `bridge.LearnedDirection` loaded from an old file (no 'encoder' key) and saved again recorded the default encoder,
   not the one it was loaded with (so loading the new file without an encoder scored with the default).
4. `perspectives.join_annotators` took what a filter left of the row numbers ([0, 2, 3]) as annotator ids where the id
   column had a name it did not know (`worker`): every annotator got another row's group. The names `read_annotators`
   knows are recognised (one list), and any unnamed integer index without an id column is refused as row numbers; the
   message of RangeIndex(1, 4) said "the row numbers 0..2".
5. `bridge.dilemma_metrics(array, dilemmas)` paired the array by position with a Dilemmas frame sorted since (its index
   0..n-1 in another order): accuracy 1.0 became 0.6. Refused now (`rows_in_order_of`); its own callers pass their
   arrays by position.
6. `metrics.accuracy`, `macro_f1` and `confusion_matrices` paired a list, or a batch (s, n), by position with labels whose
   unnamed index was 0..n-1 in another order (a Series sorted): the refusal was for 1-D arrays alone.
7. `scruples score --bootstrap 0` (`guide.above_ceiling`) said "the intervals do not overlap" of a model without an
   interval (`--json`: overlap false, lo and hi null): it cannot be judged, and now says so (overlap None).
"""
import warnings

import numpy as np
import pandas as pd
import pytest

from toy_dilemmas import dilemmas
from toy_encoder import Enc


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


def test_a_direction_scores_only_with_the_encoder_it_was_fitted_with(tmp_path):
    "An encoder set after the fit, or given to load, that is another model: refused, naming both; the fitted one passes."
    from scruples import mcm

    A, B = Enc('toy-A', 1), Enc('toy-B', 2)
    acts = ['kill people', 'help people', 'smile']
    dA = mcm.MoralDirection(A).fit()
    want = dA.score(acts)
    p = dA.save(tmp_path / 'dA.npz')
    dA.set_params(encoder=B)
    for f in (lambda: dA.score(acts), lambda: dA.transform(acts), lambda: dA.nearest('smile'),
              lambda: mcm.score_actions(acts, encoder=B, direction=dA), lambda: mcm.score_actions(acts, direction=dA),
              lambda: mcm.MoralDirection.load(p, encoder=B)):
        with pytest.raises(ValueError, match="fitted with the encoder 'toy-A', and its encoder is 'toy-B'"):
            f()
    dA.set_params(encoder=Enc('toy-A', 1))  # the fitted encoder given back (the same model loaded again)
    np.testing.assert_allclose(dA.score(acts), want)
    t = mcm.score_actions(acts, encoder=A, direction=dA)  # the direction's fitted encoder: accepted
    np.testing.assert_allclose(t.score, want)
    with pytest.raises(ValueError, match="encoder 'toy-B' is not the direction's encoder 'toy-A'"):
        mcm.score_actions(acts, encoder=B, direction=dA)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        np.testing.assert_allclose(mcm.MoralDirection.load(p, encoder=A).score(acts), want)


def test_a_learned_direction_scores_only_with_the_encoder_it_was_fitted_with(tmp_path):
    "`d.encoder = B` after the fit scored with B; `LearnedDirection.load(p, B)` of a direction of A only warned."
    from scruples.bridge import LearnedDirection

    A, B, rng = Enc('toy-A', 1), Enc('toy-B', 2), np.random.default_rng(4)
    x = rng.normal(size=(60, 16))
    c1 = rng.binomial(5, 1 / (1 + np.exp(-x[:, 0])))
    ld = LearnedDirection(A, Cs=(0.1, 1.0), cv=2).fit_arrays(x, np.column_stack([c1, 5 - c1]))
    want = ld.score(['smile', 'kill'])
    p = ld.save(tmp_path / 'learned')
    ld.encoder = B
    with pytest.raises(ValueError, match="fitted with the encoder 'toy-A', and its encoder is 'toy-B'"):
        ld.score(['smile', 'kill'])
    with pytest.raises(ValueError, match="fitted with the encoder 'toy-A', and its encoder is 'toy-B'"):
        LearnedDirection.load(p, B)
    ld.encoder = A
    np.testing.assert_allclose(ld.score(['smile', 'kill']), want)
    np.testing.assert_allclose(LearnedDirection.load(p, Enc('toy-A', 1)).score(['smile', 'kill']), want)


def test_an_old_learned_direction_saved_again_records_its_encoder(tmp_path):
    "A file without the name, loaded with encoder A and saved: 'all-MiniLM-L6-v2' was written for 'toy-A'."
    from scruples.bridge import LearnedDirection

    A, rng = Enc('toy-A', 1), np.random.default_rng(4)
    x = rng.normal(size=(60, 16))
    c1 = rng.binomial(5, 1 / (1 + np.exp(-x[:, 0])))
    p = LearnedDirection(A, Cs=(0.1, 1.0), cv=2).fit_arrays(x, np.column_stack([c1, 5 - c1])).save(tmp_path / 'ld')
    with np.load(p) as z:
        np.savez(tmp_path / 'old.npz', **{k: z[k] for k in z.files if k != 'encoder'})
    again = LearnedDirection.load(tmp_path / 'old.npz', A).save(tmp_path / 'again.npz')
    with np.load(again) as z:
        assert str(z['encoder']) == 'toy-A'
    with pytest.raises(ValueError, match="fitted with the encoder 'toy-A'"):
        LearnedDirection.load(again)


def _numbered_votes(tmp_path):
    from scruples.annotations import read_annotated

    rng, rows = np.random.default_rng(0), []
    for it in range(10):
        for a in ['0', '1', '2', '3']:
            rows.append((f'i{it}', a, 'xy'[rng.integers(2)]))
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(tmp_path / 'num.csv', index=False)
    return read_annotated(tmp_path / 'num.csv')


def test_join_annotators_knows_the_common_id_names_and_refuses_row_numbers(tmp_path):
    "A survey with a worker column, filtered (index [0, 2, 3]): annotator 0 got row 0's group g3, and so on."
    from scruples.core import ScruplesError
    from scruples.perspectives import annotator_groups, join_annotators

    d = _numbered_votes(tmp_path)
    surv = pd.DataFrame({'worker': [3, 2, 1, 0], 'grp': ['g3', 'g2', 'g1', 'g0'], 'age': [20, 40, 50, 60]})
    for name in ('worker', 'Participant_ID', 'rater'):
        t = surv.rename(columns={'worker': name})
        j = join_annotators(d, t[t.age != 40])  # index [0, 2, 3]: what the filter left of the row numbers
        assert dict(zip(d.annotators, annotator_groups(j, 'grp'))) == {'0': 'g0', '1': 'g1', '2': None, '3': 'g3'}
    bare = surv.drop(columns='worker')
    for t in (bare[bare.age != 40], bare.sort_values('age').head(3), bare.iloc[[2, 0, 3, 1]]):
        with pytest.raises(ScruplesError, match='no annotator ids: its index is unnamed integers'):
            join_annotators(d, t)
    with pytest.raises(ScruplesError, match=r'unnamed integers \(1, 2, 3\)'):
        join_annotators(d, pd.DataFrame({'grp': ['a', 'b', 'c']}, index=pd.RangeIndex(1, 4)))
    named = surv.set_index('worker').rename_axis('annotator')  # ids in a named index: taken
    assert annotator_groups(join_annotators(d, named), 'grp').tolist() == ['g0', 'g1', 'g2', 'g3']


def test_dilemma_metrics_refuses_an_array_beside_a_sorted_dilemmas_frame():
    "A sorted frame (index 0..39 shuffled) beside the array of the original order: accuracy 0.6 for 1.0, no error."
    from scruples import bridge, mcm

    d = dilemmas()
    P = np.eye(2)[d.gold_label.to_numpy()] * 0.98 + 0.01
    assert bridge.dilemma_metrics(P, d)['accuracy'] == 1.0
    s = d.sort_values('action_1')
    with pytest.raises(ValueError, match='positions or items'):
        bridge.dilemma_metrics(P, s)
    assert bridge.dilemma_metrics(P[s.index.to_numpy()], s.reset_index(drop=True))['accuracy'] == 1.0
    A = Enc('toy-A', 1)  # its callers score the frame in its own order: a sorted frame is no error, and the same
    ld = bridge.LearnedDirection(A, base=False, Cs=(0.1, 1.0), cv=2).fit(d)
    assert ld.evaluate(s) == pytest.approx(ld.evaluate(d))
    md = mcm.MoralDirection(A).fit()
    z, zs = (bridge.zero_shot_dilemmas(md, dev, test, base=False) for dev, test in ((d[:20], d),
                                                                                    (d[:20].sort_values('action_1'), s)))
    pd.testing.assert_frame_equal(z[['k', 'accuracy', 'macro_f1', 'xentropy']], zs[['k', 'accuracy', 'macro_f1',
                                                                                       'xentropy']], rtol=1e-4)


def test_accuracy_and_f1_refuse_a_list_or_a_batch_beside_a_sorted_series():
    "accuracy(srt.y, list) gave 0.33 and macro_f1(srt.y, batch) its own number, where an array was refused."
    from scruples import metrics

    y = pd.Series([0, 1, 2, 0, 1, 2])
    srt, pred = y.iloc[[1, 2, 5, 4, 3, 0]], [0, 1, 2, 0, 1, 2]
    for f in (lambda: metrics.accuracy(srt, pred), lambda: metrics.macro_f1(srt, pred),
              lambda: metrics.confusion_matrices(srt, pred, 3), lambda: metrics.accuracy(srt, np.stack([pred, pred])),
              lambda: metrics.macro_f1(srt, np.stack([pred, pred]), k=3), lambda: metrics.accuracy(srt, tuple(pred)),
              lambda: metrics.confusion_matrices(srt, np.stack([pred, pred]), 3)):
        with pytest.raises(ValueError, match='positions or items'):
            f()
    assert metrics.accuracy(y, pred) == 1.0 and metrics.macro_f1(y, np.stack([pred, pred])).tolist() == [1.0, 1.0]
    assert metrics.accuracy(srt.reset_index(drop=True), pred) == pytest.approx(1 / 6)  # by position, as asked


def test_above_ceiling_says_an_overlap_cannot_be_judged_without_an_interval():
    "A model's score of no interval (--bootstrap 0) read 'the intervals do not overlap', overlap False."
    from scruples.guide import above_ceiling, scores_above_ceiling

    tab = pd.DataFrame({'model': [0.9, 0.5], 'model_lo': [np.nan, np.nan], 'model_hi': [np.nan, np.nan],
                        'ceiling': [0.7, 0.8], 'ceiling_lo': [0.6, 0.7], 'ceiling_hi': [0.8, 0.9]},
                       index=pd.Index(['accuracy', 'xentropy'], name='metric'))
    above = scores_above_ceiling(tab, 'm')
    assert above.overlap.tolist() == [None, None]
    for said in above.says:
        assert 'do not overlap' not in said and "the model's score has no interval" in said, said
        assert 'cannot be judged' in said and '(no interval)' in said and 'nan' not in said, said
    ceil = pd.DataFrame({'estimate': [0.72], 'ci_low': [np.nan], 'ci_high': [np.nan]}, index=['macro_f1'])
    a = above_ceiling({'A': pd.Series(dict(f1=0.77, f1_lo=0.67, f1_hi=0.87, xentropy=np.nan))}, ceil)
    assert a.overlap.tolist() == [None] and 'the BEST estimate has no interval' in a.says[0]
    tab[['model_lo', 'model_hi']] = [[0.85, 0.95], [0.4, 0.6]]  # with intervals: as before
    assert scores_above_ceiling(tab, 'm').overlap.tolist() == [False, False]


def test_evaluate_matches_an_annotated_datas_items_by_id_beside_x_indexed_by_ids(tmp_path):
    """The fix of the first defect (an AnnotatedData's items by position beside X indexed 0..n-1) must not pair them by
    position beside X indexed by the items' ids in another order: there the ids decide, as before."""
    from scruples.annotations import read_annotated
    from scruples.evaluation import evaluate

    ids = ['a3', 'a0', 'a6', 'a1', 'a7', 'a2', 'a5', 'a4']
    texts = ['t0', 't1', 't0', 't1', 't0', 't1', 't1', 't0']
    pd.DataFrame({'id': ids, 'text': texts, 'yes': [5 if t == 't0' else 0 for t in texts],
                  'no': [0 if t == 't0' else 5 for t in texts]}).to_csv(tmp_path / 'd.csv', index=False)
    ad = read_annotated(tmp_path / 'd.csv')

    def model(X):
        return np.array([[.99, .01] if t == 't0' else [.01, .99] for t in X['text']])

    X = pd.DataFrame({'text': texts}, index=pd.Index(ids, name='id'))
    right = evaluate(model, X, ad, n_boot=0)['f1']
    assert right == 1.0
    shuffled = X.iloc[[7, 6, 5, 4, 3, 2, 1, 0]]  # the same items, another order: matched by id
    assert evaluate(model, shuffled, ad, n_boot=0)['f1'] == right
    assert evaluate(model, X.reset_index(drop=True), ad, n_boot=0)['f1'] == right  # 0..n-1 in order: by position
