"""Issue 39, the sixty-second hostile pass (on f5de830): an annotators table with two columns named for annotators
(`WorkerId` and `annotator`, `worker` and `worker_id`) was joined on one by a fixed order of names, the other read as
an attribute (the groups' agreement swapped, silent); a wide table whose every count column is named as no class
(`votes,total`, `gold_label,prediction`, `fold,batch`) or a class beside `N` was read as classes; an item's other
numbers named otherwise (`num_tokens`, `title_len`, `row_num`, `kfold`, `binarized_label`) were a sixth class of the
Anecdotes' counts; a hint offered columns named as an item's numbers as the classes; ids written 1.0 against 1 were
told to be left out; a `user_agent` column was taken for a possible id column."""

import json

import numpy as np
import pandas as pd
import pytest
from cli_run import scruples
from long_voters import long12

from scruples.annotations import read_annotated


@pytest.mark.parametrize('a,b', [('WorkerId', 'annotator'), ('worker', 'worker_id'), ('Participant id', 'rater_id'),
                                 ('annotator_code', 'mturk_worker_id')])
def test_two_columns_that_could_each_be_the_annotator_ids_are_asked(tmp_path, a, b):
    long12(tmp_path)
    ids = list(range(1, 13))
    groups = ['A' if i <= 6 else 'B' for i in ids]
    pd.DataFrame({a: ids, b: [13 - i for i in ids], 'group': groups}).to_csv(tmp_path / 's.csv', index=False)
    r = scruples('agree', tmp_path / 'long.csv', '--annotators', tmp_path / 's.csv', '--by', 'group', '--bootstrap', 0)
    assert r.returncode != 0 and 'could each be the ids' in r.stderr and repr(a) in r.stderr and repr(b) in r.stderr
    pd.DataFrame({a: ids, 'group': groups}).to_csv(tmp_path / 's.csv', index=False)  # the other dropped: joined
    r = scruples('agree', tmp_path / 'long.csv', '--annotators', tmp_path / 's.csv', '--by', 'group', '--bootstrap', 0,
                 '--json')
    assert r.returncode == 0, r.stderr
    within = pd.DataFrame(json.loads(r.stdout)['within']).set_index('group')
    alpha = next(c for c in within.columns if 'alpha' in c)
    assert within.loc['A', alpha] == pytest.approx(1.0) and within.loc['B', alpha] < 0.5, within


def test_a_user_agent_is_no_id_column_and_an_annotator_code_is(tmp_path):
    long12(tmp_path)
    ids = list(range(1, 13))
    pd.DataFrame({'id': range(12), 'user_agent': ['Mozilla/5.0'] * 12, 'annotator_code': ids,
                  'group': ['A' if i <= 6 else 'B' for i in ids]}).to_csv(tmp_path / 's.csv', index=False)
    r = scruples('agree', tmp_path / 'long.csv', '--annotators', tmp_path / 's.csv', '--by', 'group', '--bootstrap', 0)
    assert r.returncode != 0 and "'id' and 'annotator_code' could each be the ids" in r.stderr, r.stderr
    assert "'user_agent' could" not in r.stderr and "and 'user_agent'" not in r.stderr


def test_ids_written_as_floats_are_said_so(tmp_path):
    long12(tmp_path)
    pd.DataFrame({'WorkerId': [float(i) for i in range(1, 13)], 'group': list('AB') * 6}).to_csv(tmp_path / 's.csv',
                                                                                                  index=False)
    r = scruples('agree', tmp_path / 'long.csv', '--annotators', tmp_path / 's.csv', '--by', 'group', '--bootstrap', 0)
    assert r.returncode != 0 and "'1.0' here is '1' there" in r.stderr and 'leave their rows out' not in r.stderr


@pytest.mark.parametrize('cols', [('votes', 'total'), ('gold_label', 'prediction'), ('fold', 'batch'), ('yes', 'N')])
def test_a_table_whose_count_columns_are_all_named_as_no_class_is_refused(tmp_path, cols):
    rng = np.random.default_rng(0)
    n = rng.integers(3, 8, 40)
    pd.DataFrame({'id': range(40), cols[0]: rng.binomial(n, 0.6), cols[1]: n}).to_csv(tmp_path / 't.csv', index=False)
    r = scruples('best', tmp_path / 't.csv', '--samples', 200, '--bootstrap', 0)
    assert r.returncode != 0 and 'not a class' in r.stderr, (r.stdout, r.stderr)


def test_y_and_n_stay_classes():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 6, 30)
    assert read_annotated(pd.DataFrame({'id': range(30), 'y': y, 'n': rng.integers(0, 6, 30) + (y == 0)})).classes == (
        'y', 'n')


def _anecdotes(n=100, seed=3):
    rng = np.random.default_rng(seed)
    votes = rng.integers(1, 60, n)
    votes[:3] = (221, 150, 90)
    c = np.stack([rng.multinomial(v, [0.3, 0.5, 0.08, 0.07, 0.05]) for v in votes])
    return pd.DataFrame(c, columns=['AUTHOR', 'OTHER', 'EVERYBODY', 'NOBODY', 'INFO']).assign(id=range(n)), rng


@pytest.mark.parametrize('name', ['num_tokens', 'title_len', 'row_num', 'kfold', 'binarized_label', 'char_count',
                                  'reddit_score', 'index_', 'epoch', 'is_hypothetical'])
def test_an_items_other_numbers_beside_the_anecdotes_counts_are_no_class(name):
    df, rng = _anecdotes()
    values = {'binarized_label': rng.integers(0, 2, 100), 'is_hypothetical': rng.integers(0, 2, 100),
              'kfold': np.arange(100) % 5, 'epoch': np.arange(100) % 3}.get(name, rng.integers(5, 400, 100))
    with pytest.raises(ValueError, match=f"'{name}' names"):
        read_annotated(df.assign(**{name: values}))
    assert read_annotated(df).classes == ('AUTHOR', 'OTHER', 'EVERYBODY', 'NOBODY', 'INFO')


def test_a_hint_does_not_offer_columns_named_as_an_items_numbers_as_the_classes_without_saying_so():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({'id': range(40), 'age': rng.integers(1, 5, 40), 'group': rng.integers(1, 3, 40),
                       'length': rng.integers(100, 900, 40)})
    with pytest.raises(ValueError, match=r"'age', 'group' are named as an item's numbers too: votes\?"):
        read_annotated(df)
