"""The thirty-sixth pass's leads (issue 39): each test failed before its fix.

1. A moral direction fitted with an encoder that names no model (a plain function) scored, and loaded, with any other
   function: the check compared their type's name, 'function'. Such an encoder is now only itself (`same_encoder`).
2. `metrics.accuracy`, `macro_f1` and `confusion_matrices` took a batch (s, n) given as a DataFrame by position: beside
   labels sorted since (refused as an array), and whatever its columns, the items' ids, said.
3. `metrics.confusion_matrices(..., weights=Series)` and `softmetrics.expected_calibration_error` matched the predictions
   to the labels' items but took the weights by position: another item's weight.
4. `bridge.dilemma_metrics(probs, dilemmas)` paired probabilities indexed by the dilemmas' ids (the `id` column of a
   frame indexed 0..n-1, as `load_dilemmas` returns it) by position, whatever their order (`rows_in_order_of`).
5. perspectives' `groups=` (group_agreement, subset's `keep`, kappa_heatmap ...) read a Series indexed by a sorted or
   filtered table's row numbers (3, 4, 5, 0, 1, 2) as annotator ids: each annotator got another row's group
   (`join_annotators` refused the same index). Refused now, as there.
6. `evaluation.evaluate(model, X_subset, counts)` with counts of more items than X was refused with "0 of them have no
   row (e.g. [])" and the advice to_numpy(), which cannot pair them; it now says the counts hold more and to give
   `counts.loc[X.index]`.
7. `MoralDirection.load` of a file saved before the encoder's name was (no `encoder` in it) raised a numpy KeyError.
8. `pairs.PairRanker.fit(X, y)` paired a y Series with a shuffled Dilemmas frame by position (trained on other
   dilemmas' labels); its subclass `baselines.PairBaseline` refused the same call (`rows_in_order_of`).
9. `bridge.LearnedDirection.fit_arrays(x, counts)` paired a sampled counts frame (index 0..n-1 in another order) with the
   array x by position (`fit_scale` refused the same pair).
10. `--counts`/`--classes` leaving a count column out: a row whose votes were all in it was refused as "nobody
   labelled this item"; the message names its votes in the columns not read and the option that left them out.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

from toy_dilemmas import dilemmas
from toy_encoder import Enc

from scruples import mcm


def test_unnamed_encoder_is_only_itself(tmp_path):
    "A direction fitted with one plain function scored with another (set_params, d.encoder =, load) as the same model."
    from scruples.bridge import LearnedDirection

    e1, e2 = Enc('toy', seed=0), Enc('toy2', seed=1)
    f1, f2 = (lambda t: e1(t)), (lambda t: e2(t))
    d = mcm.MoralDirection(f1).fit()
    d.score(['smile'])  # its own function scores it
    p = d.save(tmp_path / 'd.npz')
    with pytest.raises(ValueError, match='names no model'):
        d.set_params(encoder=f2).score(['smile'])
    with pytest.warns(UserWarning, match='named no model'):  # nothing can tell the two apart: said, not silent
        loaded = mcm.MoralDirection.load(p, encoder=f2)
    with pytest.raises(ValueError, match='names no model'):  # from then on only that object is it
        loaded.set_params(encoder=f1).score(['smile'])
    with pytest.raises(ValueError, match=r"fitted with an encoder that names no model \(a 'function'\)"):  # named: refused
        mcm.MoralDirection.load(p, encoder=Enc('toy'))
    x = np.random.default_rng(0).normal(size=(20, 16))
    c = np.random.default_rng(1).integers(1, 5, size=(20, 2))
    ld = LearnedDirection(f1, cv=2, Cs=(1.0,), n_jobs=1).fit_arrays(x, c)
    ld.score(['smile'])
    ld.encoder = f2
    with pytest.raises(ValueError, match='names no model'):
        ld.score(['smile'])
    assert mcm.same_encoder(Enc('toy'), Enc('toy')) and not mcm.same_encoder(f1, f2) and mcm.same_encoder(f1, f1)


def test_moral_direction_loads_a_file_without_encoder_name(tmp_path):
    "MoralDirection.load of a file saved before the encoder name was saved raised KeyError: 'encoder is not a file'."
    p = mcm.MoralDirection(Enc('toy')).fit().save(tmp_path / 'new.npz')
    z = dict(np.load(p))
    z.pop('encoder')
    np.savez(tmp_path / 'old.npz', **z)
    d = mcm.MoralDirection.load(tmp_path / 'old.npz', encoder=Enc('toy'))
    np.testing.assert_allclose(d.score(['smile', 'kill people']),
                               mcm.MoralDirection.load(p, encoder=Enc('toy')).score(['smile', 'kill people']))


def test_batch_dataframe_is_matched_by_its_columns():
    "A batch (s, n) DataFrame was taken by position: accepted beside sorted labels, its item-named columns ignored."
    from scruples import metrics

    yt = pd.Series([0, 1, 2, 0, 1, 2]).iloc[[5, 4, 3, 2, 1, 0]]
    batch = np.array([[2, 1, 0, 2, 1, 0]] * 2)
    with pytest.raises(ValueError, match='positions or items'):
        metrics.accuracy(yt, pd.DataFrame(batch))
    ids = [f'x{i}' for i in range(6)]
    yt2 = pd.Series([0, 0, 1, 1, 2, 2], index=ids)
    b = pd.DataFrame([yt2.values, [0, 0, 1, 1, 2, 0]], columns=ids)
    for f in (metrics.accuracy, lambda y, p: metrics.macro_f1(y, p, 3)):
        np.testing.assert_allclose(f(yt2, b[ids[::-1]]), f(yt2, b))
    np.testing.assert_allclose(metrics.confusion_matrices(yt2, b[ids[::-1]], 3), metrics.confusion_matrices(yt2, b, 3))
    np.testing.assert_allclose(metrics.accuracy(yt2.to_numpy(), pd.DataFrame(b.to_numpy())), [1, 5 / 6])  # positions


def test_weights_are_matched_as_the_predictions():
    "Weights (a Series) were taken by position beside predictions matched to the labels' items by index."
    from scruples import metrics
    from scruples.softmetrics import expected_calibration_error as ece

    ids = [f'x{i}' for i in range(6)]
    yt = pd.Series([0, 0, 1, 1, 2, 2], index=ids)
    w = pd.Series([1, 1, 1, 1, 1, 5.], index=ids)
    perm = [5, 4, 3, 2, 1, 0]
    want = metrics.confusion_matrices(yt, yt, 3, weights=w)
    assert want[2, 2] == 6
    np.testing.assert_allclose(metrics.confusion_matrices(yt, yt.iloc[perm], 3, weights=w.iloc[perm]), want)
    with pytest.raises(ValueError, match='in its order or'):  # an array beside predictions reordered: whose order?
        metrics.confusion_matrices(yt, yt.iloc[perm], 3, weights=w.iloc[perm].to_numpy())
    np.testing.assert_allclose(metrics.confusion_matrices(yt, yt, 3, weights=w.to_numpy()), want)  # in order: as before
    ids = ids[:4]
    t = pd.DataFrame([[5, 0], [5, 0], [0, 5], [0, 5]], index=ids, columns=['a', 'b'])
    p = pd.DataFrame([[.9, .1], [.9, .1], [.6, .4], [.6, .4]], index=ids, columns=['a', 'b'])
    w = pd.Series([1, 1, 1, 10.], index=ids)
    assert ece(t, p.iloc[[3, 2, 1, 0]], weights=w.iloc[[3, 2, 1, 0]]) == pytest.approx(ece(t, p, weights=w))
    with pytest.raises(ValueError, match='in its order or'):
        ece(t, p.iloc[[3, 2, 1, 0]], weights=w.iloc[[3, 2, 1, 0]].to_numpy())


def test_dilemma_metrics_matches_probabilities_keyed_by_the_id_column():
    "Probabilities indexed by the dilemmas' ids were paired by position with a frame indexed 0..n-1 (ids in 'id')."
    from scruples import bridge

    d = dilemmas(ids=True)
    c = d[['gold_1', 'gold_2']].to_numpy() + 0.5
    probs = pd.DataFrame(c / c.sum(1, keepdims=True), columns=['action_1', 'action_2'], index=d['id'])
    want = bridge.dilemma_metrics(probs, d)
    assert want['macro_f1'] == 1.0
    assert bridge.dilemma_metrics(probs.sort_index(), d) == want
    assert bridge.dilemma_metrics(probs.sort_index().rename_axis(None), d) == want  # the ids, unnamed: the same
    with pytest.raises(ValueError, match="d000"):  # an id short: refused, naming it
        bridge.dilemma_metrics(probs.drop('d000'), d)
    assert bridge.dilemma_metrics(probs.reset_index(drop=True), d) == want  # 0..n-1 in order: by position, as before


def test_groups_on_a_sorted_tables_row_numbers_are_refused(tmp_path):
    "groups= indexed by a sorted table's row numbers (3, 4, 5, 0, 1, 2) were read as annotator ids: groups swapped."
    from scruples.annotations import read_annotated
    from scruples.perspectives import group_agreement

    rng = np.random.default_rng(0)
    rows = [(f'i{i}', a, 'yes' if ((i % 2 == 0) == (a < 3)) != (rng.random() < 0.1) else 'no')
            for i in range(20) for a in range(6)]
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(tmp_path / 'a.csv', index=False)
    d = read_annotated(tmp_path / 'a.csv')
    tbl = pd.DataFrame({'annotator': [5, 4, 3, 2, 1, 0], 'group': ['B', 'B', 'B', 'A', 'A', 'A']})
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        want = group_agreement(d, tbl.set_index('annotator')['group'], n_boot=0)
        with pytest.raises(ValueError, match='row numbers'):
            group_agreement(d, tbl.sort_values('group')['group'], n_boot=0)
        got = group_agreement(d, tbl.set_index('annotator').sort_values('group')['group'], n_boot=0)
    pd.testing.assert_frame_equal(got, want)


def test_pair_ranker_matches_y_to_a_shuffled_frame():
    "PairRanker.fit paired a y Series with a shuffled Dilemmas frame by position (PairBaseline refused the same)."
    from scruples.pairs import PairRanker

    d = dilemmas(60)
    y = d.gold_label
    with pytest.raises(ValueError, match='positions or items'):  # y in order (0..n-1), X shuffled: refused
        PairRanker().fit(d.sample(frac=1, random_state=0), y)
    s = d.sample(frac=1, random_state=0)
    a = PairRanker().fit(d, y).predict_proba(d)
    b = PairRanker().fit(s, y.sample(frac=1, random_state=1)).predict_proba(d)  # both keyed 0..n-1: matched by index
    np.testing.assert_allclose(a, b, rtol=1e-5)


def test_learned_direction_fit_arrays_refuses_a_sampled_counts_frame():
    "fit_arrays(x, counts) paired a sampled counts frame (index 0..n-1 in another order) with the array x by position."
    from scruples.bridge import LearnedDirection

    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 3))
    c = pd.DataFrame(rng.integers(0, 5, size=(40, 2)) + 1, columns=['action_1', 'action_2'])
    with pytest.raises(ValueError, match='positions or items'):
        LearnedDirection(cv=2, Cs=(1.0,), n_jobs=1).fit_arrays(x, c.iloc[rng.permutation(40)])
    a = LearnedDirection(cv=2, Cs=(1.0,), n_jobs=1).fit_arrays(x, c).coef_
    np.testing.assert_allclose(LearnedDirection(cv=2, Cs=(1.0,), n_jobs=1).fit_arrays(x, c.to_numpy()).coef_, a)


def test_counts_holding_more_items_than_x_say_so():
    "evaluate(model, X_subset, counts) said '0 of them have no row (e.g. [])' and advised to_numpy(), which cannot pair."
    from scruples.evaluation import evaluate

    ids = [f'q{i}' for i in range(20)]
    c = pd.DataFrame(np.random.default_rng(0).integers(1, 5, size=(20, 2)), index=ids, columns=['a', 'b'])
    X = pd.DataFrame({'f': np.linspace(0.1, 0.9, 20)}, index=ids)
    model = lambda X: np.c_[X['f'].to_numpy(), 1 - X['f'].to_numpy()]
    with pytest.raises(ValueError) as e:
        evaluate(model, X.iloc[:10], c, n_boot=0)
    assert 'every item of X_test and 10 more' in str(e.value) and 'counts_test.loc[X_test.index]' in str(e.value)
    assert 'to_numpy' not in str(e.value) and '[]' not in str(e.value)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        evaluate(model, X.iloc[:10], c.loc[X.index[:10]], n_boot=0)  # the advice works


def test_all_zero_row_names_its_votes_in_a_column_not_read(tmp_path):
    "--counts leaving a column out: a row whose votes are all in it was 'nobody labelled this item'."
    from cli_run import scruples

    p = tmp_path / 'left_out.csv'
    p.write_text('id,yes,no,unsure\nitem 0,0,0,5\nitem 1,1,1,3\nitem 2,3,2,0\n')
    r = scruples('best', str(p), '--counts', 'yes,no', '--samples', '50')
    assert r.returncode != 0
    assert 'unsure: 5' in r.stderr and '--counts' in r.stderr and 'nobody labelled' not in r.stderr
