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
