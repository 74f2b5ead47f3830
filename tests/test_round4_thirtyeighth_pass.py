"""The thirty-eighth hostile pass (issue 39): each test failed before its fix."""
import hashlib

import numpy as np
import pytest

from scruples import mcm

DOS = ['help people', 'smile', 'love my family', 'thank a friend']
DONTS = ['kill people', 'steal money', 'lie to friends', 'harm animals']


class _Model:
    "A sentence-transformers-like model: its `encode` method is the encoder."

    def __init__(self, name=None):
        if name:
            self.model_name = name

    def encode(self, texts):
        return np.array([np.frombuffer(hashlib.sha256(s.encode()).digest(), np.uint8)[:16].astype(float) for s in texts])


def test_a_bound_method_encoder_is_itself_and_names_its_models_model():
    """An encoder given as a bound method (`model.encode`) was refused against itself (each access makes a new bound
    method: `model.encode is model.encode` is False), and hid its model's `model_name`."""
    model = _Model()
    d = mcm.MoralDirection(model.encode, dos=DOS, donts=DONTS).fit()
    s = d.score(['eat'])
    out = mcm.score_actions(['eat'], encoder=model.encode, direction=d)
    np.testing.assert_allclose(out['score'].to_numpy(), s)
    d.set_params(encoder=model.encode)
    np.testing.assert_allclose(d.score(['eat']), s)
    d.set_params(encoder=_Model().encode)  # another model's method: still another encoder
    with pytest.raises(ValueError, match='another object'):
        d.score(['eat'])
    assert mcm.named_model(_Model('m-1').encode) == 'm-1' and mcm.same_encoder(_Model('m-1').encode, 'm-1')


def test_probabilities_keyed_by_dilemma_ids_match_a_filtered_or_sorted_corpus_frame():
    """Probabilities indexed by the dilemmas' ids were matched to a `load_dilemmas` frame by its `id` column only while
    the frame's index was 0..n-1 in order: the same frame filtered or sorted refused them, advising `to_numpy()`, which
    pairs them by position (macro F1 0.56 for a perfect model)."""
    import pandas as pd

    from scruples.bridge import dilemma_metrics
    from scruples.corpus import load_dilemmas

    d = load_dilemmas('dev').head(40)
    probs = pd.DataFrame(np.eye(2)[d.gold_label.to_numpy()] * 0.9 + 0.05, columns=['action_1', 'action_2'],
                         index=d['id']).sample(frac=1, random_state=0)
    for frame in (d, d.iloc[7:], d.sort_values('gold_label', kind='stable'), d[d.index % 3 != 0]):
        m = dilemma_metrics(probs[probs.index.isin(frame['id'])], frame)
        assert m['accuracy'] == 1.0 and m['n'] == len(frame), m


def test_evaluate_matches_annotated_data_to_a_corpus_frame_by_its_id_column(tmp_path):
    """`evaluate(model, X, annotated)` paired an AnnotatedData with a `load_dilemmas` frame (index 0..n-1, the ids in
    its `id` column) by position though both carry the same ids in other orders (F1 0.43 for a perfect model); the same
    votes as a frame keyed by the ids were matched by id (F1 1.0)."""
    import warnings

    import pandas as pd

    from scruples.annotations import read_annotated
    from scruples.corpus import load_dilemmas
    from scruples.evaluation import evaluate

    X = load_dilemmas('dev').head(40)

    class Oracle:
        classes_ = np.array(['action_1', 'action_2'])

        def predict_proba(self, X):
            return np.eye(2)[X.gold_label.to_numpy()] * 0.9 + 0.05

    g = pd.DataFrame({'id': X['id'], 'action_1': X.gold_1, 'action_2': X.gold_2}).sort_values('id')
    g.to_csv(tmp_path / 'votes.csv', index=False)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        by_frame = evaluate(Oracle(), X, g.set_index('id')[['action_1', 'action_2']], n_boot=0)
        by_data = evaluate(Oracle(), X, read_annotated(tmp_path / 'votes.csv'), n_boot=0)
    assert by_frame['f1'] == 1.0 and by_data['f1'] == 1.0, (by_frame['f1'], by_data['f1'])


def test_rows_in_order_of_matches_a_named_id_index_by_the_id_column_when_the_ids_are_row_numbers():
    """Counts indexed by a named `id` index whose ids happen to be 0..n-1 were paired with X's rows by their row
    numbers, X's `id` column (the same ids in another order) ignored (F1 0.33 for a perfect model; ids 10..15: 1.0)."""
    import pandas as pd

    from scruples.metrics import rows_in_order_of

    X = pd.DataFrame({'id': [3, 1, 0, 2], 'text': ['d', 'b', 'a', 'c']})
    votes = pd.DataFrame({'id': [0, 1, 2, 3], 'yes': [5, 4, 0, 1], 'no': [0, 1, 5, 4]}).set_index('id')
    assert rows_in_order_of(votes, X).index.tolist() == [3, 1, 0, 2]
    assert rows_in_order_of(votes.reset_index(drop=True), X).index.tolist() == [0, 1, 2, 3]  # unnamed 0..n-1: positions


@pytest.mark.parametrize('col', ['item', 'ID', 'Item'])
def test_rows_in_order_of_takes_the_readers_id_column_item_or_any_case(col):
    """Examples whose ids were in an `item` or `ID` column (the readers' own rule: id, else item, any case) were paired
    with id-keyed counts by position (F1 0.67 for a perfect model); only a column spelled `id` was matched."""
    import pandas as pd

    from scruples.metrics import rows_in_order_of

    X = pd.DataFrame({col: ['q1', 'q2', 'q3'], 'text': ['a', 'b', 'c']})
    votes = pd.DataFrame({'yes': [1, 2, 3]}, index=['q3', 'q1', 'q2'])
    assert rows_in_order_of(votes, X)['yes'].tolist() == [2, 3, 1]


def test_weights_as_a_series_from_a_list_are_positions_and_a_dict_is_keyed_by_item():
    """Weights as `pd.Series(list)` (unnamed index 0..n-1: positions) beside reordered predictions were taken in
    y_true's order where the same numbers as an array were refused; a dict keyed by the items was refused as an array."""
    import pandas as pd

    from scruples import metrics as M

    yt = pd.Series([0, 0, 1, 1, 1], index=list('abcde'))
    yp = pd.Series([1, 0, 1, 1, 1], index=list('abcde'))[list('edcba')]
    with pytest.raises(ValueError, match='in its order or in'):
        M.confusion_matrices(yt, yp, 2, weights=pd.Series([1, 1, 1, 1, 10]))
    w = {'a': 10, 'b': 1, 'c': 1, 'd': 1, 'e': 1}
    assert M.confusion_matrices(yt, yp, 2, weights=w).tolist() == [[1, 10], [0, 3]]
    assert M.confusion_matrices(yt, yp.sort_index(), 2, weights=pd.Series([10, 1, 1, 1, 1])).tolist() == [[1, 10], [0, 3]]


def test_a_direction_of_unknown_encoder_stays_unknown_when_saved_again(tmp_path):
    """A direction file saved before encoder names were, loaded without an encoder and saved again, was recorded as
    fitted with the default encoder: its true encoder was then refused and the default accepted."""
    class Named:
        def __init__(self, name):
            self.model_name = name

        def __call__(self, texts):
            return np.array([np.frombuffer(hashlib.sha256(s.encode()).digest(), np.uint8)[:16].astype(float)
                             for s in texts])

    d = mcm.MoralDirection(Named('m1'), dos=['help people', 'smile', 'love my family', 'thank a friend'],
                           donts=['kill people', 'steal money', 'lie to friends', 'harm animals']).fit()
    z = dict(np.load(d.save(tmp_path / 'named.npz')))
    z.pop('encoder')
    np.savez(tmp_path / 'old.npz', **z)
    p = mcm.MoralDirection.load(tmp_path / 'old.npz').save(tmp_path / 'resaved.npz')
    assert 'encoder' not in np.load(p).files
    mcm.MoralDirection.load(p, encoder=Named('m1'))  # unknown: not refused


def test_root_verbs_fold_typographic_apostrophes_and_keep_roman_numerals_numbers():
    """"I’m a jerk" (U+2019, what phones type) gave the root '’m' beside "'m" for "I'm a jerk" (two rows of one verb);
    a lone Roman numeral 'Ⅳ' became the verb 'iv' (NFKC's letters) while '12345' was dropped as a number."""
    from scruples.verbs import RootVerbs

    got = RootVerbs()(["I'm a jerk", 'I’m a jerk', 'it’s my fault', 'itʼs my fault', 'Ⅳ', 'ｓｔｅａｌ money'])
    assert got == ["'m", "'m", "'s", "'s", None, 'steal'], got


def test_best_and_score_json_carry_every_note_printed(tmp_path):
    """`best --json` and `score --json` dropped the prior's warning (fitted concentration 9.7e+08) and score's tie
    warning: stderr only, where `plan --json` carried them in `notes`."""
    import json

    from cli_run import scruples

    (tmp_path / 'u.csv').write_text('id,yes,no\n' + ''.join(f'i{i},{2 + i % 2},{3 - i % 2}\n' for i in range(100)))
    (tmp_path / 'p.csv').write_text('id,yes,no\n' + ''.join(f'i{i},0.5,0.5\n' for i in range(100)))
    r = scruples('best', tmp_path / 'u.csv', '--json', '--bootstrap', '20', '--samples', '300')
    assert r.returncode == 0, r.stderr
    assert any('concentration' in n for n in json.loads(r.stdout)['notes'])
    r = scruples('score', tmp_path / 'p.csv', tmp_path / 'u.csv', '--json', '--bootstrap', '20',
                 '--ceiling-bootstrap', '20', '--samples', '300')
    assert r.returncode == 0, r.stderr
    notes = json.loads(r.stdout)['notes']
    assert any('concentration' in n for n in notes) and any('same top probability' in n for n in notes), notes


def test_the_advice_for_rows_of_every_item_and_more_works_on_an_id_column_and_an_annotated_data():
    """Predictions holding every item and more were told to give `probs.loc[X['id'].index]` (row numbers: a KeyError)
    beside examples with an id column, and `y_prob.loc[y_true.index]` beside an AnnotatedData (it has no index)."""
    import re

    import pandas as pd

    from scruples.annotations import AnnotatedData
    from scruples.metrics import in_order_of, rows_in_order_of, xentropy

    X = pd.DataFrame({'id': ['q3', 'q1', 'q2'], 'text': ['a', 'b', 'c']})
    probs = pd.DataFrame({'yes': [0.5] * 4, 'no': [0.5] * 4}, index=['q1', 'q2', 'q3', 'q9'])
    with pytest.raises(ValueError) as e:
        rows_in_order_of(probs, X, 'probs', 'X')
    advice = re.search(r'\((probs\.loc\[.*\])\)$', str(e.value)).group(1)
    assert eval(advice).index.tolist() == ['q3', 'q1', 'q2'], advice
    y_true = AnnotatedData(['q3', 'q1', 'q2'], np.array([[1, 2], [3, 0], [2, 2]]), ('yes', 'no'))
    with pytest.raises(ValueError) as e:
        xentropy(y_true, probs)
    y_prob = probs  # noqa: F841 (named as the message names it)
    advice = re.search(r'\((y_prob\.loc\[.*\])\)$', str(e.value)).group(1)
    assert in_order_of(eval(advice), y_true).index.tolist() == ['q3', 'q1', 'q2'], advice


def test_a_one_column_frame_indexed_by_the_items_is_its_column():
    """A one-column predictions DataFrame indexed by the items (`preds[['pred']]`) was read as a batch whose items are
    its column names: refused as "y_pred.T: ... 1 rows are of no item (e.g. ['pred'])"."""
    import pandas as pd

    from scruples import metrics as M

    yt = pd.Series([0, 0, 1, 1, 1], index=list('abcde'))
    P = pd.DataFrame({'pred': [1, 0, 1, 1, 1]}, index=list('abcde')).iloc[::-1]
    assert M.accuracy(yt, P) == 0.8
    assert M.confusion_matrices(yt, P, 2).tolist() == [[1, 1], [0, 3]]


def test_messages_for_encoders_that_name_no_model_do_not_call_a_type_a_model(tmp_path):
    """Refusals for encoders naming no model read "encoder 'function' is not the direction's encoder 'function'" and
    advised `SentenceEncoder('function')` after a load: a type's name, not a model."""
    def emb(texts):
        return np.array([np.frombuffer(hashlib.sha256(s.encode()).digest(), np.uint8)[:16].astype(float)
                         for s in texts])

    d = mcm.MoralDirection(lambda t: emb(t), dos=['help people', 'smile', 'love my family', 'thank a friend'],
                           donts=['kill people', 'steal money', 'lie to friends', 'harm animals']).fit()
    with pytest.raises(ValueError) as e:
        mcm.score_actions(['eat'], encoder=lambda t: emb(t), direction=d)
    assert "encoder 'function' is not" not in str(e.value) and 'names no model' in str(e.value), str(e.value)
    p = d.save(tmp_path / 'd.npz')
    with pytest.raises(ValueError) as e:
        mcm.MoralDirection.load(p)
    assert "SentenceEncoder('function')" not in str(e.value) and 'names no model' in str(e.value), str(e.value)
