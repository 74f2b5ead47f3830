"""Issue 39, the sixty-third hostile pass (on bc8b9f7): a DataFrame indexed by `annotator` beside a `WorkerId` column
was joined on its index (every voter given another's group, silent); `join_annotators` raised a KeyError where a
column named for annotators had no rank (`annotator_code`); a column of each row's total under an unlisted name
(`n_ratings`) was a class (macro F1 0.653 to 0.216), and two unlisted columns beside votes of a fixed number; the form
hint dropped real classes named `gender`, `age`; ChaosNLI's `e,n,c` (100 votes an item) was refused, its hint dropping
the neutral votes; `worker_id` beside `expert_annotator` was refused as two id columns; a class name with both quotes
was hinted in Python's words; `is toxic`/`not toxic`, `first,second,tie`, `score_1..3` were refused."""

import shlex

import numpy as np
import pandas as pd
import pytest
from cli_run import scruples
from long_voters import long12

from scruples.annotations import read_annotated
from scruples.perspectives import join_annotators, read_annotators


def test_a_frame_indexed_by_annotator_beside_a_worker_column_is_asked(tmp_path):
    data = long12(tmp_path)
    ids = np.arange(1, 13)
    df = pd.DataFrame({'annotator': 13 - ids, 'WorkerId': ids, 'group': np.where(ids <= 6, 'A', 'B')})
    with pytest.raises(Exception, match="'annotator' and its column 'WorkerId' could each be"):
        join_annotators(data, df.set_index('annotator'))
    joined = join_annotators(data, df.drop(columns='annotator').set_index('WorkerId'))  # the ids alone: joined right
    assert joined.attributes['group'].to_dict() == {str(i): 'A' if i <= 6 else 'B' for i in ids}


@pytest.mark.parametrize('other', ['annotator_code', 'expert_annotator'])
def test_a_named_index_beside_a_column_named_for_annotators_does_not_crash(tmp_path, other):
    data = long12(tmp_path)
    ids = np.arange(1, 13)
    df = pd.DataFrame({'worker_id': ids, other: [f'x{i}' for i in ids] if other == 'annotator_code' else ids % 2,
                       'group': np.where(ids <= 6, 'A', 'B')})
    df.to_csv(tmp_path / 's.csv', index=False)
    table = read_annotators(tmp_path / 's.csv', id='worker_id')  # the way out a refusal names
    assert join_annotators(data, table).attributes['group']['1'] == 'A'
    try:
        joined = join_annotators(data, df.set_index('worker_id'))
    except KeyError as e:  # the crash
        raise AssertionError(e) from e
    except Exception as e:  # noqa: BLE001 (asked, naming both: fine)
        assert 'could each be' in str(e), e
    else:
        assert joined.attributes['group']['1'] == 'A'


@pytest.mark.parametrize('attr', ['expert_annotator', 'is_crowd_worker', 'power_user', 'senior_rater'])
def test_an_attribute_that_names_annotators_is_no_id_column(tmp_path, attr):
    long12(tmp_path)
    ids = np.arange(1, 13)
    pd.DataFrame({'worker_id': ids, attr: ids % 2, 'group': np.where(ids <= 6, 'A', 'B')}).to_csv(tmp_path / 's.csv',
                                                                                                 index=False)
    r = scruples('agree', tmp_path / 'long.csv', '--annotators', tmp_path / 's.csv', '--by', 'group', '--bootstrap', 0)
    assert r.returncode == 0 and f'(attributes {attr},group)' in ' '.join(r.stdout.split()), r.stderr


def _anecdotes(n=100, seed=3):
    rng = np.random.default_rng(seed)
    votes = rng.integers(1, 60, n)
    c = np.stack([rng.multinomial(v, [0.3, 0.5, 0.08, 0.07, 0.05]) for v in votes])
    return pd.DataFrame(c, columns=['AUTHOR', 'OTHER', 'EVERYBODY', 'NOBODY', 'INFO']).assign(id=range(n))


@pytest.mark.parametrize('name', ['n_ratings', 'num_annotations', 'judges', 'ratings'])
def test_a_column_of_each_rows_total_is_no_class_whatever_its_name(name):
    df = _anecdotes()
    with pytest.raises(ValueError, match=f"column '{name}' holds each row's sum"):
        read_annotated(df.assign(**{name: df[['AUTHOR', 'OTHER', 'EVERYBODY', 'NOBODY', 'INFO']].sum(axis=1)}))


@pytest.mark.parametrize('names', [('phase', 'stage'), ('list', 'part'), ('q7', 'q8')])
def test_two_columns_beside_votes_of_a_fixed_number_are_no_classes(names):
    rng = np.random.default_rng(0)
    yes = rng.integers(0, 6, 40)
    df = pd.DataFrame({'id': range(40), 'yes': yes, 'no': 5 - yes, names[0]: rng.integers(1, 4, 40),
                       names[1]: rng.integers(1, 4, 40)})
    with pytest.raises(ValueError, match=f"'{names[0]}', '{names[1]}' (do not hold votes|name a label).*counts='yes,no'"):
        read_annotated(df)


def test_the_form_hint_keeps_real_classes_named_gender_and_age(tmp_path):
    rng = np.random.default_rng(0)
    classes = ['race', 'religion', 'origin', 'gender', 'sexuality', 'age', 'disability']
    df = pd.DataFrame({'id': range(60), 'comment_body': [f'some words {i}' for i in range(60)],
                       **{c: rng.integers(0, 3, 60) for c in classes}})
    df['race'] += 1
    df.to_csv(tmp_path / 'h.csv', index=False)
    r = scruples('data', 'validate', tmp_path / 'h.csv')
    assert r.returncode != 0 and f'--counts {",".join(classes)}' in r.stdout + r.stderr, r.stdout + r.stderr


def test_chaosnli_counts_of_one_hundred_votes_an_item_are_read(tmp_path):
    rng = np.random.default_rng(0)
    c = np.stack([rng.multinomial(100, p) for p in rng.dirichlet([1, 1, 1], 60)])
    d = read_annotated(pd.DataFrame({'id': range(60), 'e': c[:, 0], 'n': c[:, 1], 'c': c[:, 2]}))
    assert d.classes == ('e', 'n', 'c')


def test_a_hint_with_both_quotes_in_a_class_name_is_a_shell_flag(tmp_path):
    odd = 'very "bad"'
    pd.DataFrame({'id': range(6), 'label': list('xyzxyz'), "it's ok": [3, 1, 2, 4, 0, 5], odd: [2, 4, 3, 1, 5, 0],
                  'fine': [0] * 6}).to_csv(tmp_path / 'q.csv', index=False)
    r = scruples('data', 'validate', tmp_path / 'q.csv')
    assert r.returncode != 0 and '--counts ' + shlex.quote(f"it's ok,{odd},fine") in r.stdout + r.stderr, r.stderr


@pytest.mark.parametrize('classes,votes', [(('is toxic', 'not toxic'), (3, 8)), (('first', 'second', 'tie'), (3, 8)),
                                           (('has_pun', 'no_pun'), (3, 8)), (('score_1', 'score_2', 'score_3'), (5, 6))])
def test_plain_classes_are_read(classes, votes):
    """Any number of votes an item (`is toxic` beside `not toxic`: one column named as an item's numbers, `is`, beside
    one class: the names are the classes); `score_1..3` (named as an item's score) where each item has 5 votes."""
    rng = np.random.default_rng(0)
    c = np.stack([rng.multinomial(rng.integers(*votes), np.ones(len(classes)) / len(classes)) for _ in range(20)])
    c[:, 0] += c.sum(1) == 0
    assert read_annotated(pd.DataFrame(c, columns=list(classes)).assign(id=range(20))).classes == classes
