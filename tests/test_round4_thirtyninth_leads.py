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


@pytest.mark.parametrize('col', ['id', 'item', 'ID', 'Item'])
def test_evaluate_matches_an_annotated_data_to_any_id_column_of_the_examples(col):
    """`evaluate(model, X, AnnotatedData)` matched the items to X's ids only in a column named exactly `id`: in one named
    `item` or `ID` (the readers' id columns, in any case) they were paired by position (F1 0.0 for a perfect model)."""
    from scruples.evaluation import evaluate

    d = read_annotated(pd.DataFrame({'id': ['a', 'b', 'c', 'd'], 'yes': [5, 0, 4, 0], 'no': [0, 5, 1, 5]}))
    X = pd.DataFrame({col: ['d', 'c', 'b', 'a'], 'x': [0, 1, 0, 1]})
    p = np.array([[0.05, 0.95], [0.9, 0.1], [0.05, 0.95], [0.95, 0.05]])  # right on every item, in X's order
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # calibrated in-sample: said, beside the point here
        r = evaluate(lambda X: p, X, d, n_boot=0)
    assert r['f1'] == 1.0
