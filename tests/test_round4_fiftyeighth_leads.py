"""Issue 39, the fifty-eighth hostile pass (on 67f6971): probabilities whose columns a user named by position (a model's
sorted classes_ under the data's class names) were no longer weighed for their class order (0.33, silent); a long frame
indexed by item and `user` was read as one item per vote; hints named an annotator's column as the ids and the labels
as the items; `form='annotators'` alone crashed; a rank or a comment count beside the counts were classes, and a
post's thousands of votes were refused (a month or a group number of a few votes' size stays a class: a class may be so
named, the sixtieth pass)."""

import warnings

import numpy as np
import pandas as pd
import pytest

from scruples.annotations import read_annotated
from scruples.evaluation import ClassOrderWarning, score_predictions


def test_columns_named_by_position_are_weighed_for_their_class_order():
    rng = np.random.default_rng(0)
    classes = ['yes', 'no', 'maybe']  # the data's order; a model's classes_ are sorted: maybe, no, yes
    y = rng.integers(0, 3, 300)
    counts = pd.DataFrame(np.eye(3, dtype=int)[y] * 4 + 1, columns=classes)
    p = np.full((300, 3), 0.05)
    p[np.arange(300), [sorted(classes).index(classes[j]) for j in y]] = 0.9  # in the sorted order
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        f = score_predictions(pd.DataFrame(p, columns=counts.columns), counts, n_boot=0)['f1']
    assert f < 0.5 and any(issubclass(x.category, ClassOrderWarning) for x in w)


def _long(level='user', n=50):
    rng = np.random.default_rng(0)
    return pd.DataFrame({'post': np.repeat([f'p{i}' for i in range(n)], 5), level: np.tile([f'a{j}' for j in range(5)], n),
                         'label': rng.choice(['yes', 'no'], 5 * n)})


@pytest.mark.parametrize('level', ['user', 'turker', 'participant'])
def test_a_long_frame_indexed_by_item_and_user(level):
    long = _long(level)
    d = read_annotated(long.set_index(['post', level]))
    assert d.n_items == 50 and (d.n_votes == 5).all()
    with pytest.raises(ValueError, match='names annotators'):
        read_annotated(pd.crosstab([long.post, long[level]], long.label))


def test_a_long_frame_whose_two_levels_name_each_row_once_is_asked():
    long = _long('who', 20)
    with pytest.raises(ValueError, match="Is one of them the annotator"):
        read_annotated(long.set_index(['post', 'who']))
    assert read_annotated(long.set_index(['post', 'who']), form='long', item='post', annotator='who').n_items == 20
    thread = long.assign(thread=long.post.str[:2]).set_index(['thread', 'post'])[['label']]
    assert read_annotated(thread).n_items == 20  # items of two levels, five votes each: read as they are


def test_hints_name_the_ids_and_the_items_as_they_are():
    long = _long('annotator')
    pivot = long.pivot(index='post', columns='annotator', values='label')
    with pytest.raises(ValueError) as e:
        read_annotated(pivot)
    assert "annotator_columns='a0,a1,a2,a3,a4'" in str(e.value) and "id='a0'" not in str(e.value)
    assert read_annotated(pivot, annotator_columns='a0,a1,a2,a3,a4').items[:2] == ['p0', 'p1']
    verdict = long.rename(columns={'label': 'verdict'}).set_index('post')
    with pytest.raises(ValueError, match="item='post'"):
        read_annotated(verdict)
    with pytest.raises(ValueError, match='annotator_columns='):
        read_annotated(pivot, form='annotators')


@pytest.mark.parametrize(('column', 'values'), [('rank', np.arange(1, 201)), ('comment_count', np.arange(200) % 13),
                                               ('post_score', np.arange(200) % 13), ('author_age', 20 + np.arange(200) % 40)])
def test_an_items_other_numbers_are_no_class(column, values):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({'id': [f'p{i}' for i in range(200)], 'yes': rng.integers(1, 6, 200), 'no': rng.integers(1, 6, 200)})
    with pytest.raises(ValueError, match=f"counts='yes,no,{column}'"):
        read_annotated(df.assign(**{column: values}))


def test_a_posts_thousands_of_votes_are_votes():
    rng = np.random.default_rng(0)
    big = pd.DataFrame({'id': range(200), 'nta': rng.integers(1500, 5000, 200), 'yta': rng.integers(0, 20, 200),
                        'esh': rng.integers(0, 10, 200)})
    assert read_annotated(big).classes == ('nta', 'yta', 'esh')
