"""Issue 39, the sixtieth hostile pass (on 422563f): an annotators table was joined on its bare `id` (a survey's row
number) beside `worker_id`, each annotator given another's group (the groups' results swapped, silent); a column of
`n_annotators` not exactly the rows' sums was a class (accuracy 1.0); hints named upvotes, flags and totals among the
count columns, or every column of a counts table with two texts as annotators; the name rules refused real classes
(`age`, `group`, `minute`..`year`, `right_length`, `answer`)."""

import numpy as np
import pandas as pd
import pytest
from cli_run import scruples

from scruples.annotations import read_annotated


def test_an_annotators_table_is_joined_on_its_worker_id_not_its_row_number(tmp_path):
    rows = [(f'i{i}', w, 'neg' if w in (3, 4) else 'pos') for i in range(10) for w in (1, 2, 3, 4)]
    pd.DataFrame(rows, columns=['item', 'worker', 'label']).to_csv(tmp_path / 'votes.csv', index=False)
    pd.DataFrame({'id': [1, 2, 3, 4], 'worker_id': [3, 4, 1, 2], 'group': list('AABB')}).to_csv(tmp_path / 'w.csv',
                                                                                               index=False)
    r = scruples('agree', tmp_path / 'votes.csv', '--annotator', 'worker', '--annotators', tmp_path / 'w.csv', '--by',
                 'group', '--bootstrap', 0, '--json')
    assert r.returncode == 0, r.stderr
    import json

    groups = json.loads(r.stdout)
    assert 'attributes id,group' in groups['joined']  # joined on worker_id: the row numbers an attribute
    within = pd.DataFrame(groups['within']).set_index('group')
    assert within.loc['A', 'share_neg'] == 1 and within.loc['B', 'share_neg'] == 0  # workers 3, 4 voted neg
    assert {a['annotator']: a['group'] for a in groups['annotators']} == {'1': 'B', '2': 'B', '3': 'A', '4': 'A'}


def test_a_column_of_annotator_counts_is_no_class_even_off_the_sums():
    df = pd.DataFrame({'id': range(20), 'yes': [4] * 20, 'no': [1] * 18 + [0, 0], 'n_annotators': [5] * 20})
    with pytest.raises(ValueError, match="n_annotators' names"):
        read_annotated(df)


def test_hints_leave_out_flags_totals_and_texts(tmp_path):
    rng = np.random.default_rng(0)
    n = 20
    aita = pd.DataFrame({'id': [f't{i}' for i in range(n)], 'title': [f'AITA for {i}' for i in range(n)],
                         **{c: rng.integers(0, 5, n) for c in ('YTA', 'NTA', 'ESH')},
                         'upvote_count': rng.integers(100, 5000, n), 'gilded': rng.integers(0, 3, n),
                         'over_18': rng.integers(0, 2, n), 'n_annotators': [12] * n})
    aita.to_csv(tmp_path / 'aita.csv', index=False)
    r = scruples('data', 'validate', tmp_path / 'aita.csv')
    assert r.returncode != 0 and '--counts YTA,NTA,ESH,' in r.stderr + r.stdout, r.stderr
    dil = pd.DataFrame({'id': [f'd{i}' for i in range(n)], 'action1': [f'doing {i}' for i in range(n)],
                        'action2': [f'other {i}' for i in range(n)], 'gold_label': rng.integers(0, 2, n),
                        'controversial': rng.integers(0, 2, n), 'votes_action1': rng.integers(0, 6, n)})
    dil['votes_action2'] = 5 - dil.votes_action1
    dil.to_csv(tmp_path / 'dil.csv', index=False)
    r = scruples('data', 'validate', tmp_path / 'dil.csv')
    out = r.stdout + r.stderr
    assert r.returncode != 0 and '--counts votes_action1,votes_action2,' in out and '--annotator-columns' not in out


@pytest.mark.parametrize('classes,asked', [(['race', 'gender', 'religion', 'age', 'disability'], True),
                                           (['individual', 'group', 'other'], True),
                                           (['minute', 'hour', 'day', 'week', 'month', 'year'], False),
                                           (['too_short', 'right_length', 'too_long'], True),
                                           (['answer', 'no_answer'], False)])
def test_real_classes_named_like_an_items_numbers_are_read(classes, asked):
    """Read where the table shows they are votes (every item's votes add up to one number with them, not without: the
    sixty-first pass read a fold, an author's age beside posts of up to 300 votes as classes) or where every column is
    so named (nothing else could be the classes); asked elsewhere, and read as the answer says."""
    rng = np.random.default_rng(1)
    df = pd.DataFrame({'id': range(30), **{c: rng.integers(0, 4, 30) for c in classes}})
    df[classes[0]] += 1  # every item a vote
    if asked:
        with pytest.raises(ValueError, match=r"a class of that name: say so, counts='"):
            read_annotated(df)
    else:
        assert read_annotated(df).classes == tuple(classes)
    assert read_annotated(df, counts=','.join(classes)).classes == tuple(classes)
    fixed = df.assign(**{classes[-1]: 3 * len(classes) - df[classes[:-1]].sum(axis=1)})  # a fixed number an item
    assert read_annotated(fixed).classes == tuple(classes)
    with pytest.raises(ValueError, match="counts='"):  # an author's age beside items of a few votes: not votes
        read_annotated(df.drop(columns=classes[-1]).assign(author_age=rng.integers(20, 60, 30)) if len(classes) > 2
                       else df.assign(author_age=rng.integers(20, 60, 30)))


@pytest.mark.parametrize('suffix', ['.csv', '.jsonl', '.parquet'])
def test_an_empty_count_cell_is_hinted_as_no_vote(tmp_path, suffix):
    long = pd.DataFrame({'post': ['a', 'a', 'b', 'c', 'c'], 'label': ['yes', 'no', 'yes', 'no', 'no']})
    wide = long.groupby(['post', 'label']).size().unstack().reset_index()  # b has no 'no' vote: NaN
    p = tmp_path / f'w{suffix}'
    {'.csv': lambda: wide.to_csv(p, index=False), '.jsonl': lambda: wide.to_json(p, orient='records', lines=True),
     '.parquet': lambda: wide.to_parquet(p)}[suffix]()
    with pytest.raises(ValueError, match=r'fillna\(0\)'):
        read_annotated(p, id='post')
    assert read_annotated(wide.fillna(0), id='post').counts.tolist() == [[1, 1], [0, 1], [2, 0]]


def test_an_extra_column_of_the_models_is_hinted_out_of_the_file(tmp_path):
    pd.DataFrame({'id': range(6), 'yes': [3, 1] * 3, 'no': [1, 3] * 3}).to_csv(tmp_path / 'g.csv', index=False)
    pd.DataFrame({'id': range(6), 'yes': [0.8, 0.2] * 3, 'no': [0.2, 0.8] * 3, 'epoch': 3}).to_csv(tmp_path / 'p.csv',
                                                                                                   index=False)
    r = scruples('score', tmp_path / 'p.csv', tmp_path / 'g.csv', '--bootstrap', 0)
    assert r.returncode != 0 and 'leave it out of the file' in r.stderr, r.stderr
