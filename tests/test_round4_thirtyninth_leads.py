"""Three leads of the thirty-sixth to thirty-eighth passes left open at stop 64 (issue 39): each test failed before."""
import unicodedata
import warnings

import numpy as np
import pandas as pd
import pytest

from scruples import mcm, metrics
from scruples.annotations import read_annotated

DOS = ['help people', 'smile', 'love my family', 'thank a friend']
DONTS = ['kill people', 'steal money', 'lie to friends', 'harm animals']


def test_soft_metrics_take_an_annotated_data_and_hard_ones_say_which_labels():
    """`xentropy(AnnotatedData, probs)` raised "labels must be counts (n, k) or hard labels (n,), got shape ()"; a table
    of probabilities is matched to its items and classes by name. Hard metrics refuse votes, naming the two labels."""
    d = read_annotated(pd.DataFrame({'id': ['a', 'b', 'c'], 'yes': [3, 1, 0], 'no': [0, 2, 4]}))
    p = np.array([[.7, .3], [.4, .6], [.1, .9]])
    want = metrics.xentropy(d.counts, p)
    assert metrics.xentropy(d, p) == pytest.approx(want)
    shuffled = pd.DataFrame(p[[2, 0, 1]][:, ::-1], index=['c', 'a', 'b'], columns=['no', 'yes'])
    assert metrics.xentropy(d, shuffled) == pytest.approx(want)
    assert metrics.total_variation(d, shuffled) == pytest.approx(metrics.total_variation(d.counts, p))
    np.testing.assert_allclose(metrics.xentropy(d, shuffled, per_example=True), metrics.xentropy(d.counts, p, True))
    for f in (metrics.accuracy, metrics.macro_f1):
        with pytest.raises(ValueError, match=r'AnnotatedData \(votes, not labels\).*hard_labels'):
            f(d, np.array([0, 1, 1]))


class _Typed:
    "An encoder class without a model_name: only its type names it."

    def __call__(self, texts):
        return np.array([[len(t), t.count('e'), t.count('o'), sum(map(ord, t)) % 13, 1.0] for t in texts], float)


class _Named(_Typed):
    model_name = 'some-model'


def test_a_direction_of_an_encoder_class_naming_no_model_is_not_advised_a_model_of_that_name(tmp_path):
    """Saved and loaded again, a direction fitted with an instance of a class without `model_name` read its type's name
    ('_Typed') as a model's: loaded without an encoder it advised `SentenceEncoder('_Typed')`, and beside a named
    encoder it said "fitted with the encoder '_Typed'". The file now says the name is a type's."""
    enc = _Typed()
    d = mcm.MoralDirection(enc, dos=DOS, donts=DONTS).fit()
    p = tmp_path / 'd.npz'
    d.save(p)
    with pytest.raises(ValueError) as e:
        mcm.MoralDirection.load(p)
    assert "an encoder that names no model (a '_Typed')" in str(e.value) and 'SentenceEncoder' not in str(e.value)
    with pytest.raises(ValueError) as e:
        mcm.MoralDirection.load(p, encoder=_Named())
    assert "an encoder that names no model (a '_Typed')" in str(e.value) and 'SentenceEncoder' not in str(e.value)
    with pytest.warns(UserWarning, match='named no model'):  # its own kind: loaded, with the warning as before
        back = mcm.MoralDirection.load(p, encoder=enc)
    np.testing.assert_allclose(back.score(['eat']), d.score(['eat']))
    back.save(tmp_path / 'again.npz')  # saved again: still a type's name
    with pytest.raises(ValueError, match='names no model'):
        mcm.MoralDirection.load(tmp_path / 'again.npz')
    n = mcm.MoralDirection(_Named(), dos=DOS, donts=DONTS).fit()  # a named encoder: checked by name, as before
    n.save(tmp_path / 'n.npz')
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        mcm.MoralDirection.load(tmp_path / 'n.npz', encoder=_Named())
    with pytest.raises(ValueError, match="fitted with the encoder 'some-model'"):
        mcm.MoralDirection.load(tmp_path / 'n.npz')


def test_user_study_files_match_actions_however_typed(tmp_path):
    """The regional file and the question stems were matched by exact text: an action typed with a curly apostrophe,
    decomposed accents or doubled spaces in one file and not in the other was "missing a question", and two spellings
    of one action were two actions."""
    (tmp_path / 'r.csv').write_text("Action,Yes,No\ndon\u2019t lie,5,1\ncaf\u00e9  owner,2,4\nsmile,6,0\n", encoding='utf-8')
    cafe = unicodedata.normalize('NFD', 'caf\u00e9 owner')
    (tmp_path / 'q.csv').write_text(f"action,question\ndon't lie,Should I\n{cafe},Is it good to be a\nsmile,Should I\n",
                                    encoding='utf-8')
    s = mcm.load_user_study(regional=tmp_path / 'r.csv', questions=tmp_path / 'q.csv')
    assert s.question.tolist() == ['Should I', 'Is it good to be a', 'Should I']
    assert s.action.tolist() == ['don\u2019t lie', 'caf\u00e9  owner', 'smile']  # the actions as given
    (tmp_path / 'r2.csv').write_text("Action,Yes,No\ndon't lie,5,1\ndon\u2019t lie,2,4\nsmile,6,0\n", encoding='utf-8')
    with pytest.raises(Exception, match='each action once'):
        mcm.load_user_study(regional=tmp_path / 'r2.csv', questions=tmp_path / 'q.csv')


@pytest.mark.parametrize('col', ['id', 'item', 'ID', 'Item', 'post_id', 'postId'])
def test_evaluate_matches_an_annotated_data_to_any_id_column_of_the_examples(col):
    """`evaluate(model, X, AnnotatedData)` matched the items to X's ids only in a column named exactly `id`: in one named
    `item` or `ID` (the readers' id columns, in any case) they were paired by position (F1 0.0 for a perfect model); and
    after that fix, in a `post_id` column (`rows_in_order_of`'s rule: `metrics.ids_column_of`) still by position."""
    from scruples.evaluation import evaluate

    d = read_annotated(pd.DataFrame({'id': ['a', 'b', 'c', 'd'], 'yes': [5, 0, 4, 0], 'no': [0, 5, 1, 5]}))
    X = pd.DataFrame({col: ['d', 'c', 'b', 'a'], 'x': [0, 1, 0, 1]})
    p = np.array([[0.05, 0.95], [0.9, 0.1], [0.05, 0.95], [0.95, 0.05]])  # right on every item, in X's order
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # calibrated in-sample: said, beside the point here
        r = evaluate(lambda X: p, X, d, n_boot=0)
    assert r['f1'] == 1.0


def test_counts_keyed_by_ids_in_a_column_of_the_examples_are_matched_on_it_or_refused():
    """Counts keyed by ids held in a column of the examples other than `id`/`item` (`post_id`), or under a named index
    of that column's name, were paired with the examples by position; counts keyed by ints beside an `id` column of
    floats (1.0) too; counts keyed by 0..n-1 in another order beside an `id` column of those numbers in other rows were
    matched to the row numbers. Now matched on the column, or refused (naming the mismatch, or asking which)."""
    from scruples.evaluation import evaluate

    X = pd.DataFrame({'post_id': ['a', 'b', 'c'], 'text': ['x', 'y', 'z']})
    y = pd.Series([1, 2, 3], index=['c', 'a', 'b'])
    assert metrics.rows_in_order_of(y, X).tolist() == [2, 3, 1]
    assert metrics.rows_in_order_of(y.rename_axis('post_id'), X.assign(z=['c', 'b', 'a'])).tolist() == [2, 3, 1]
    # an `id` column of whole floats is read as the readers read ids (the forty-ninth pass: it was refused, 'once read
    # as numbers', where the same ids beside an AnnotatedData, or as the index, were matched)
    assert metrics.rows_in_order_of(pd.Series([30, 10, 20], index=[3, 1, 2]),
                                    pd.DataFrame({'id': [1.0, 2.0, 3.0]})).tolist() == [10, 20, 30]
    with pytest.raises(ValueError, match='row labels or ids'):
        metrics.rows_in_order_of(pd.Series([20, 0, 10], index=[2, 0, 1]), pd.DataFrame({'id': [2, 0, 1]}))
    same = pd.DataFrame({'id': [0, 1, 2]})  # the ids are the row numbers: one answer
    assert metrics.rows_in_order_of(pd.Series([20, 0, 10], index=[2, 0, 1]), same).tolist() == [0, 10, 20]
    plain = pd.DataFrame({'text': ['x', 'y', 'z']})  # no ids among the examples: by position, as before
    assert metrics.rows_in_order_of(y, plain).tolist() == [1, 2, 3]
    rng = np.random.default_rng(0)  # through evaluate: a perfect model scored as one
    n = 40
    ids = [f'p{i}' for i in range(n)]
    c = rng.multinomial(5, [.6, .4], size=n)
    counts = pd.DataFrame(c, index=ids, columns=['a', 'b'])
    X = pd.DataFrame({'post_id': ids, 's': (c[:, 0] + .5) / 6}).sample(frac=1, random_state=0).reset_index(drop=True)

    class M:
        classes_ = np.array(['a', 'b'])

        def predict_proba(self, X):
            return np.c_[X['s'].to_numpy(), 1 - X['s'].to_numpy()]

    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # calibrated in-sample: said, beside the point here
        assert evaluate(M(), X, counts, n_boot=0)['f1'] == 1.0
        assert evaluate(M(), X, counts.rename_axis('post_id'), n_boot=0)['f1'] == 1.0


def test_fleiss_kappa_of_every_vote_counts_each_item_once_in_chance_and_big_items_subsample(tmp_path):
    """`agree` printed Fleiss' kappa (every vote) -1.77 for items of 100, 5, 5 and 5 votes (-21.8 with 1,000, -2.4e7 with
    10**9) beside an alpha of 0.52: chance came from the pooled votes, set by the one big item alone; now from the mean
    of the items' shares (Gwet's form), 0.192. An item of 10**9 votes crashed the subsampled kappa with numpy's
    'sum(colors) must be less than 1000000000'."""
    import json

    from cli_run import scruples as run

    (tmp_path / 'uneq.csv').write_text('id,yes,no\na,100,0\nb,3,2\nc,2,3\nd,1,4\n')
    r = run('agree', str(tmp_path / 'uneq.csv'), '--bootstrap', '0', '--json')
    assert r.returncode == 0, r.stderr
    kappa = {row['metric']: row['value'] for row in json.loads(r.stdout)['overall']}['fleiss_kappa']
    pe = 0.55**2 + 0.45**2
    assert kappa == pytest.approx((0.6 - pe) / (1 - pe), abs=1e-4)
    (tmp_path / 'big.csv').write_text('id,yes,no\na,1000000000,1\nb,3,3\nc,1,4\n')
    r = run('agree', str(tmp_path / 'big.csv'), '--bootstrap', '0')
    assert r.returncode == 0 and 'sum(colors)' not in r.stderr, r.stderr


def test_ids_that_pair_up_once_read_as_numbers_are_not_advised_to_be_paired_by_position():
    """The refusal of probabilities indexed 2.0, 1.0, 3.0 beside counts of items '1', '2', '3' advised `.to_numpy()`
    first (pairing item 1's counts with item 2's probabilities), the right hint second."""
    c = pd.DataFrame([[3, 1], [0, 4], [2, 2]], columns=['a', 'b'], index=['1', '2', '3'])
    p = pd.DataFrame([[.1, .9], [.7, .3], [.5, .5]], columns=['a', 'b'], index=[2.0, 1.0, 3.0])
    with pytest.raises(ValueError) as e:
        metrics.xentropy(c, p)
    assert 'once read as numbers' in str(e.value) and 'to_numpy' not in str(e.value)
    with pytest.raises(ValueError, match=r'if its rows are in the order of y_true, give y_prob.to_numpy\(\)'):
        metrics.xentropy(c, p.set_axis(['x', 'y', 'z']))  # no pairing: by position, where the rows are in order


def test_ids_of_two_columns_are_hinted_on_both_sides(tmp_path):
    """A gold file whose ids are two columns (`doc,id`, unique only as a pair), read without `--id`, was advised
    `--annotator-columns doc,yes,no,unsure` (reading the counts as annotators); its predictions, read without
    `--pred-id`, were refused "expected a unique id" with no word of the gold's two id columns."""
    from cli_run import scruples as run

    rows = [(f'd{i // 3}', str(i % 3), 3 - i % 3, i % 3, 1) for i in range(9)]
    (tmp_path / 'gold.csv').write_text('doc,id,yes,no,unsure\n' + ''.join(f'{a},{b},{c},{d},{e}\n' for a, b, c, d, e in rows))
    (tmp_path / 'pred.csv').write_text('doc,id,yes,no,unsure\n' + ''.join(f'{a},{b},0.5,0.3,0.2\n' for a, b, *_ in rows))
    r = run('best', str(tmp_path / 'gold.csv'))
    assert r.returncode != 0 and '--id doc,id' in r.stderr and '--counts yes,no,unsure' in r.stderr, r.stderr
    assert '--annotator-columns' not in r.stderr
    r0 = run('score', str(tmp_path / 'pred.csv'), str(tmp_path / 'gold.csv'), '--id', 'doc,id', '--bootstrap', '0')
    assert r0.returncode == 0, r0.stderr  # the gold's two id columns: the default (the fifty-fourth pass), as said
    r = run('score', str(tmp_path / 'pred.csv'), str(tmp_path / 'gold.csv'), '--id', 'doc,id', '--pred-id', 'doc,id',
            '--bootstrap', '0')
    assert r.returncode == 0 and r.stdout == r0.stdout, r.stderr
