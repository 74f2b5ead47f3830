"""Issue 39, the fifty-seventh hostile pass (on 7e2021c): data of a column per annotator dropped a pivot's named index of
ids (then paired by position: 0.33); a collapsed model was told "class order?" (named columns, whose order is known);
examples indexed by the data's own text ids were asked "row labels 0..n-1?"; hints that misread the data when followed
(an id column among the annotator columns, a crosstab by annotator, `item='id'` of a column that is not there); a
timestamp, upvotes or a post's length beside the counts were read as classes; predicted labels crashed."""

import numpy as np
import pandas as pd
import pytest
from perfect_model import Perfect, V, f1, frame

from scruples.annotations import read_annotated
from scruples.evaluation import evaluate, score_predictions


def _long(n=30, seed=0):
    df = frame([f'p{i}' for i in range(n)], seed)
    rows = [(r.id, f'w{a}', 'yes' if a < r.yes else 'no') for r in df.itertuples() for a in range(5)]
    return df, pd.DataFrame(rows, columns=['post', 'annotator', 'label'])


def test_a_pivots_named_index_is_the_ids_of_a_column_per_annotator():
    df, long = _long()
    wide = long.pivot(index='post', columns='annotator', values='label')  # sorted as text: p0, p1, p10, ...
    d = read_annotated(wide, annotator_columns='w*')
    assert d.items[:3] == ['p0', 'p1', 'p10'] and f1(df.rename(columns={'id': 'post'}), d) == 1.0


def test_examples_indexed_by_the_datas_text_ids_are_matched():
    df = frame([f'p{i}' for i in range(40)])
    X = df.sample(frac=1, random_state=4)
    d = read_annotated(df[['id', *V]].sample(frac=1, random_state=11))
    assert f1(X.set_index('id').rename_axis(None), d) == 1.0
    votes = df[['id', *V]].sample(frac=1, random_state=11).reset_index(drop=True)
    with pytest.raises(ValueError, match=r"set_index\('id'\)"):
        f1(X, votes)  # a votes frame whose ids are a column: the hint names it
    assert f1(X, votes.set_index('id')) == 1.0


def test_hints_that_read_the_data_as_it_is_when_followed():
    _, long = _long()
    ct = pd.crosstab([long.post, long.annotator], long.label)
    with pytest.raises(ValueError, match='names annotators'):
        read_annotated(ct, id='post')  # was hinted id='annotator,post': 150 items of one vote
    wide = long.pivot(index='post', columns='annotator', values='label').reset_index()
    with pytest.raises(ValueError, match="annotator_columns='w0,w1,w2,w3,w4', id='post'") as e:
        read_annotated(wide)
    assert read_annotated(wide, annotator_columns='w0,w1,w2,w3,w4', id='post').n_items == 30, e
    shuffled = long.sample(frac=1, random_state=0)
    with pytest.raises(ValueError, match="item='post'"):
        read_annotated(shuffled)
    assert read_annotated(shuffled, form='long', item='post').n_items == 30
    ints = long.assign(label=(long.label == 'yes').astype(int)).set_index(['post', 'annotator'])
    assert read_annotated(ints).n_items == 30  # a long frame of int labels, indexed by item and annotator


@pytest.mark.parametrize('column', ['created_utc', 'upvotes', 'num_comments', 'length', 'x'])
def test_a_posts_data_beside_the_counts_is_no_class(column):
    rng = np.random.default_rng(0)
    df = frame(range(30)).assign(**{column: 1.5e9 + rng.integers(0, 10**6, 30)})
    with pytest.raises(ValueError, match="counts='yes,no'"):
        read_annotated(df)
    assert read_annotated(df, counts='yes,no').classes == ('yes', 'no')


def test_predicted_labels_given_as_probabilities_are_said():
    d = read_annotated(frame(['a', 'b', 'c', 'd'])[['id', *V]])
    with pytest.raises(ValueError, match='predicted labels'):
        score_predictions(pd.Series(['yes', 'no', 'yes', 'no'], index=['a', 'b', 'c', 'd']), d, n_boot=0)


def test_the_perfect_model_on_the_datas_own_frame():
    df = frame(range(12))
    assert evaluate(Perfect(), df, read_annotated(df), n_boot=0)['f1'] == 1.0
