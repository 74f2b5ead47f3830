"""Issue 39, the last read of the sixtieth pass's change and the sixty-first hostile pass: a table of one class's votes
beside a column of the annotators' number (`yes` of `n_annotators`, a binomial table) was read as two classes, `yes`
and `n_annotators` (every item's majority `n_annotators`: a ceiling of 1.0); a table of annotators whose ids are named
as a coder's, a judge's or a respondent's was refused though the votes' reader knows those names (two lists of them)."""

import json
import re

import numpy as np
import pandas as pd
import pytest
from cli_run import scruples

from scruples.annotations import read_annotated
from scruples.perspectives import read_annotators


def _binomial(n=30, seed=0):
    rng = np.random.default_rng(seed)
    votes = rng.integers(3, 6, n)
    return pd.DataFrame({'id': [f'p{i}' for i in range(n)], 'yes': rng.binomial(votes, 0.7), 'n_annotators': votes})


def test_a_class_beside_the_number_of_annotators_is_refused_with_the_subtraction(tmp_path):
    df = _binomial()
    with pytest.raises(ValueError, match=r"'yes' alone is one class.*n_annotators - yes"):
        read_annotated(df)
    df.to_csv(tmp_path / 'b.csv', index=False)
    r = scruples('best', tmp_path / 'b.csv', '--samples', 200, '--bootstrap', 0)
    assert r.returncode != 0 and 'n_annotators - yes' in r.stderr, (r.stdout, r.stderr)
    df.assign(no=df.n_annotators - df.yes).drop(columns='n_annotators').to_csv(tmp_path / 'b2.csv', index=False)
    r = scruples('best', tmp_path / 'b2.csv', '--samples', 200, '--bootstrap', 0)  # the way out, followed
    assert r.returncode == 0 and 'classes yes/no' in r.stdout, (r.stdout, r.stderr)


def test_a_label_column_beside_one_class_is_refused_and_so_are_columns_all_named_as_no_class():
    with pytest.raises(ValueError, match=r"'label' names.*'yes' alone is one class"):
        read_annotated(pd.DataFrame({'id': range(6), 'yes': [3, 1, 4, 2, 1, 5], 'label': [1, 0, 1, 0, 0, 1]}))
    with pytest.raises(ValueError, match='no column is left for the votes of a class'):  # (the 62nd pass: read as
        read_annotated(pd.DataFrame({'id': range(4), 'label': [1, 0, 1, 2], 'score': [3, 2, 2, 1]}))  # classes)
    d = read_annotated(pd.DataFrame({'id': range(4), 'yes': [3, 1, 4, 2], 'age': [2, 4, 1, 3]}))
    assert d.classes == ('yes', 'age')  # a maybe-name of vote-sized numbers beside one class: a class


@pytest.mark.parametrize('name', ['coder_id', 'judge', 'respondent_id', 'turker', 'labeller_id'])
def test_an_annotators_table_takes_every_name_the_votes_reader_takes(tmp_path, name):
    pd.DataFrame({name: ['a1', 'a2', 'a3', 'a4'], 'group': list('AABB')}).to_csv(tmp_path / 'w.csv', index=False)
    assert read_annotators(tmp_path / 'w.csv')['group'].to_dict() == {'a1': 'A', 'a2': 'A', 'a3': 'B', 'a4': 'B'}
    rows = [(f'i{i}', f'a{w}', 'neg' if w > 2 else 'pos') for i in range(10) for w in (1, 2, 3, 4)]
    pd.DataFrame(rows, columns=['item', name, 'label']).to_csv(tmp_path / 'v.csv', index=False)
    r = scruples('agree', tmp_path / 'v.csv', '--annotator', name, '--annotators', tmp_path / 'w.csv', '--by', 'group',
                 '--bootstrap', 0, '--json')
    assert r.returncode == 0, r.stderr
    within = pd.DataFrame(json.loads(r.stdout)['within']).set_index('group')
    assert within.loc['A', 'share_neg'] == 0 and within.loc['B', 'share_neg'] == 1


# --- the sixty-first hostile pass (on 638136d) -------------------------------------------------------------------------

def _votes_and_survey(tmp_path, name, ids=(3, 4, 1, 2)):
    "Workers 1, 2 vote pos, 3, 4 neg; the survey's `id` is its row number, its worker column (`name`) the ids."
    rows = [(f'i{i}', w, 'neg' if w in (3, 4) else 'pos') for i in range(10) for w in (1, 2, 3, 4)]
    pd.DataFrame(rows, columns=['item', 'worker', 'label']).to_csv(tmp_path / 'votes.csv', index=False)
    pd.DataFrame({'id': [1, 2, 3, 4], name: list(ids), 'group': list('AABB')}).to_csv(tmp_path / 's.csv', index=False)
    return scruples('agree', tmp_path / 'votes.csv', '--annotator', 'worker', '--annotators', tmp_path / 's.csv',
                    '--by', 'group', '--bootstrap', 0, '--json')


@pytest.mark.parametrize('name', ['WorkerId', 'workerID', 'Participant id', 'Worker ID', 'RATER-ID'])
def test_an_annotators_table_is_joined_on_its_worker_column_in_any_spelling(tmp_path, name):
    r = _votes_and_survey(tmp_path, name)  # MTurk's WorkerId, Prolific's 'Participant id'
    assert r.returncode == 0, r.stderr
    within = pd.DataFrame(json.loads(r.stdout)['within']).set_index('group')
    assert within.loc['A', 'share_neg'] == 1 and within.loc['B', 'share_neg'] == 0  # workers 3, 4 are group A


def test_a_bare_id_beside_another_column_named_for_workers_is_asked(tmp_path):
    r = _votes_and_survey(tmp_path, 'mturk_worker_code')
    assert r.returncode != 0 and "'id' and 'mturk_worker_code' could each be the ids" in r.stderr, r.stderr


def _fixed_votes(n=60, votes=5, seed=0):
    rng = np.random.default_rng(seed)
    yes = rng.integers(0, votes + 1, n)
    return pd.DataFrame({'id': range(n), 'text': [f't{i}' for i in range(n)], 'yes': yes, 'no': votes - yes})


@pytest.mark.parametrize('name', ['fold', 'batch', 'condition', 'round', 'weight', 'n', 'votes', 'q7'])
def test_an_items_small_numbers_beside_votes_of_one_number_an_item_are_no_class(tmp_path, name):
    df = _fixed_votes().assign(**{name: np.arange(60) % 4})  # 5 votes an item: the column breaks the sum
    df.to_csv(tmp_path / 'f.csv', index=False)
    r = scruples('best', tmp_path / 'f.csv', '--samples', 200, '--bootstrap', 0)
    assert r.returncode != 0 and f'{name!r}' in r.stderr and '--counts yes,no' in r.stderr, (r.stdout, r.stderr)
    r = scruples('best', tmp_path / 'f.csv', '--counts', 'yes,no', '--samples', 200, '--bootstrap', 0)
    assert r.returncode == 0 and 'classes yes/no ' in r.stdout, r.stderr


def test_an_authors_age_beside_reddit_posts_of_many_votes_is_no_class():
    rng = np.random.default_rng(2)
    votes = rng.integers(1, 12, 150)
    votes[7] = 300  # one post of 300 votes: an age of 16-45 is within twice the most votes
    c = np.stack([rng.multinomial(v, [0.5, 0.3, 0.1, 0.05, 0.05]) for v in votes])
    df = pd.DataFrame(c, columns=['AUTHOR', 'OTHER', 'EVERYBODY', 'NOBODY', 'INFO'])
    for name in ('author_age', 'post_hour', 'month'):
        with pytest.raises(ValueError, match=f"'{name}' names .*leave it out: counts='AUTHOR,OTHER,EVERYBODY"):
            read_annotated(df.assign(id=range(150), **{name: rng.integers(0, 46, 150)}))


def test_the_counts_hint_of_a_table_with_a_title_leaves_the_fold_out(tmp_path):
    df = _fixed_votes().rename(columns={'text': 'title'}).assign(fold=np.arange(60) % 5)
    df.to_csv(tmp_path / 'f.csv', index=False)
    r = scruples('best', tmp_path / 'f.csv', '--samples', 200, '--bootstrap', 0)
    assert r.returncode != 0 and re.search(r'--counts yes,no(?!\w|,\w)', r.stderr) and 'fold' not in r.stderr, r.stderr


def test_a_score_above_the_ceiling_is_said_in_places_that_set_them_apart(tmp_path):
    yes = np.repeat([0, 1, 4, 5], [20, 13, 9, 18])  # items of 5 votes, a third 4:1: a ceiling of 0.9996
    pd.DataFrame({'id': range(60), 'yes': yes, 'no': 5 - yes}).to_csv(tmp_path / 'g.csv', index=False)
    pd.DataFrame({'id': range(60), 'yes': (yes >= 3) * 0.9 + 0.05, 'no': (yes < 3) * 0.9 + 0.05}).to_csv(
        tmp_path / 'p.csv', index=False)  # the majority every time: accuracy 1
    r = scruples('score', tmp_path / 'p.csv', tmp_path / 'g.csv', '--samples', 200, '--bootstrap', 0,
                 '--ceiling-bootstrap', 0)
    assert r.returncode == 0, r.stderr
    said = [s for s in (r.stdout + r.stderr).splitlines() if 'is above the BEST estimate' in s]
    assert said and not any(re.search(r'(\d\.\d+) \(no interval\) is above the BEST estimate \1 ', s) for s in said), said


def test_zero_padded_worker_ids_are_said_so(tmp_path):
    rows = [(f'i{i}', w, 'neg' if w in ('10', '20') else 'pos') for i in range(10) for w in ('01', '02', '10', '20')]
    pd.DataFrame(rows, columns=['item', 'worker', 'label']).to_csv(tmp_path / 'votes.csv', index=False)
    pd.DataFrame({'worker': ['1', '2', '10', '20'], 'group': list('AABB')}).to_csv(tmp_path / 's.csv', index=False)
    r = scruples('agree', tmp_path / 'votes.csv', '--annotator', 'worker', '--annotators', tmp_path / 's.csv', '--by',
                 'group', '--bootstrap', 0)
    assert r.returncode != 0 and "'1' here is '01' there" in r.stderr, r.stderr
