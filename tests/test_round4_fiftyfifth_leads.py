"""Issue 39, the fifty-fifth hostile pass (on 5e7da8f): data read from a dict keyed by ids (an unnamed index of ints
beyond the rows) was taken for row labels and paired by position (0.31); data read from a shuffled frame's row labels
was paired by position beside examples under a plain index; a two-level named index, or one beside `counts=`, was
read as a class or dropped; the class-order warning missed orders that keep some classes in place (the anecdotes'
five: 0.40) and swapped models of middling accuracy; a shuffled frame's `post_id` was set aside for its row labels."""

import warnings

import numpy as np
import pandas as pd
import pytest
from perfect_model import Perfect, V, f1, frame

from scruples.annotations import read_annotated
from scruples.evaluation import (
    ClassOrderWarning,
    class_order_warning,
    score_predictions,
)


def test_data_read_from_a_dict_keyed_by_ids_is_matched_on_the_id_column():
    df = frame(range(101, 113))
    votes = {int(r.id): {'yes': r.yes, 'no': r.no} for r in df.itertuples()}
    d = read_annotated(pd.DataFrame.from_dict(votes, orient='index'))
    X = df.sample(frac=1, random_state=1).reset_index(drop=True)
    assert f1(X, d) == 1.0
    P = pd.DataFrame(Perfect().predict_proba(X), index=pd.Index(X['id'], name='id'), columns=Perfect.classes_)
    assert score_predictions(P, d, n_boot=0)['f1'] == 1.0


def test_data_read_from_a_shuffled_frames_row_labels_beside_a_plain_index():
    df = frame([int(v) for v in np.random.default_rng(3).permutation(12)])
    d = read_annotated(df.sample(frac=1, random_state=4)[V])
    with pytest.raises(ValueError, match='row labels or ids'):
        f1(df, d)  # X's `id` column and its row labels both fit
    assert f1(df.drop(columns='id'), d) == 1.0  # by label, as the frame's own rows would be


def test_a_named_index_of_two_levels_or_beside_counts_is_read_as_the_ids():
    long = pd.DataFrame({'post': [7, 7, 7, 9, 9, 12], 'thread': [3, 3, 3, 4, 4, 4], 'label': list('yynynn')})
    d = read_annotated(pd.crosstab([long.thread, long.post], long.label))
    assert d.classes == ('n', 'y') and d.items == [('3', '7'), ('4', '9'), ('4', '12')]
    d = read_annotated(pd.crosstab(long.post, long.label), counts='y,n')
    assert d.classes == ('y', 'n') and d.items == ['7', '9', '12']


def test_a_shuffled_frames_post_id_is_its_ids():
    df = frame(range(500, 512)).rename(columns={'id': 'post_id'})
    d = read_annotated(df.sample(frac=1, random_state=2))
    assert 'id column post_id' in d.report and f1(df, d) == 1.0


def _warned(p, d):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        f = score_predictions(p, d, n_boot=0)['f1']
    return f, any(issubclass(x.category, ClassOrderWarning) for x in w)


@pytest.mark.parametrize('classes', [['author', 'other', 'everybody', 'nobody', 'info'], ['yes', 'no', 'maybe']])
def test_the_class_order_warning_sees_orders_that_keep_some_classes(classes):
    rng = np.random.default_rng(0)
    y = rng.choice(len(classes), 400, p=np.linspace(2, 1, len(classes)) / np.linspace(2, 1, len(classes)).sum())
    counts = np.eye(len(classes), dtype=int)[y] * 3
    d = read_annotated(pd.DataFrame(counts, columns=classes).assign(id=range(400)), counts=','.join(classes))
    srt = sorted(classes)
    p = np.full((400, len(classes)), 0.04 / (len(classes) - 1))
    p[np.arange(400), [srt.index(classes[j]) for j in y]] = 0.96  # a perfect model, in its sorted classes_
    f, warned = _warned(p, d)
    assert f < 0.7 and warned
    p_right = np.full((400, len(classes)), 0.04 / (len(classes) - 1))
    p_right[np.arange(400), y] = 0.96
    assert _warned(p_right, d) == (1.0, False)


def test_the_class_order_warning_and_middling_or_collapsed_models():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 2000)
    pred = np.where(rng.random(2000) < 0.65, y, 1 - y)  # accuracy 0.65, its columns swapped
    assert class_order_warning(1 - pred, y, ['yes', 'no']) is not None
    assert class_order_warning(pred, y, ['yes', 'no']) is None
    assert class_order_warning(np.ones(2000, int), y, ['yes', 'no']) is None  # collapsed: said as such elsewhere
