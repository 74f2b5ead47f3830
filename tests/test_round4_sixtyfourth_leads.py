"""Issue 39, the sixty-fourth hostile pass (on 2af6bfd): a column of each row's total under an unlisted name
(`num_ratings` of 5 beside the Dilemmas' pairs of 5 votes) was a class (macro F1 0.886 to 0.238, silent); the words
of a study's design `phase`, `stage`, `part`, `list` were classes; a refusal's hint kept a second column of totals
(`total` beside `n_ratings`); three unlisted columns beside votes of a fixed number were classes; a post's `retweets`,
`likes`, `stars`, `depth`, `num_reports` beside the Anecdotes' votes were classes; an annotators table's count
`workers` (3 on every row) was taken for a second id column; a DataFrame indexed by `rank` was joined on it (every
group swapped, silent); the hints named `--id comment_body,id`, called ChaosNLI's `uid` a majority vote, and said
nothing of leaving out a `weight` of 0.5."""

import shlex

import numpy as np
import pandas as pd
import pytest
from cli_run import said
from long_voters import long12

from scruples.annotations import as_counts, read_annotated
from scruples.perspectives import join_annotators, read_annotators


def _pairs(n=150, votes=5, seed=0):
    "Two classes' votes of a fixed number an item (the Dilemmas' pairs), with ids."
    rng = np.random.default_rng(seed)
    a = rng.binomial(votes, rng.beta(2, 2, n))
    return pd.DataFrame({'id': [f'd{i}' for i in range(n)], 'yes': a, 'no': votes - a})


def _varying(n=120, seed=0):
    "Five classes' votes of a varying number an item (the Anecdotes' counts), with ids."
    rng = np.random.default_rng(seed)
    c = rng.multinomial(1, [0.4, 0.3, 0.1, 0.1, 0.1], size=(n, 1)).sum(1) * 0
    for i in range(n):
        c[i] = rng.multinomial(rng.integers(3, 40), rng.dirichlet(np.ones(5)))
    df = pd.DataFrame(c, columns=['author', 'other', 'everybody', 'nobody', 'info'])
    df.insert(0, 'id', [f'a{i}' for i in range(n)])
    return df


def _run(*argv):
    "A command's exit status and all it printed (`cli_run.said`)."
    return said(*argv, joined=False)


def _hint(stderr):
    "The `--counts X` the refusal offers first (after 'leave it out')."
    tail = stderr.split('leave ')[1]
    return shlex.split(tail[tail.index('--counts'):].split(';')[0].split(')')[0])[1]


@pytest.mark.parametrize('name', ['num_ratings', 'n_ratings', 'num_annotations', 'judges', 'n_labels', 'foo'])
def test_a_totals_column_beside_votes_of_a_fixed_number_is_refused(tmp_path, name):
    df = _pairs()
    df[name] = 5
    df.to_csv(tmp_path / 'p.csv', index=False)
    rc, out = _run('best', str(tmp_path / 'p.csv'), '--bootstrap', '0', '--samples', '50')
    assert rc != 0 and 'column of totals' in out and '--counts yes,no' in out, out
    with pytest.raises(ValueError, match='totals column'):  # the API's frame, alike
        as_counts(df.drop(columns='id'))
    if name == 'foo':  # its name says no total: a class of half of every item's votes, said so, is read
        assert f'say so, --counts yes,no,{name}' in out, out
        data = read_annotated(tmp_path / 'p.csv', counts=f'yes,no,{name}')
        assert data.classes == ('yes', 'no', name)


@pytest.mark.parametrize('name', ['n_ratings', 'num_annotations'])
def test_a_totals_column_on_four_rows_is_refused_by_its_name(tmp_path, name):
    df = _pairs(4)
    df[name] = 5
    df.to_csv(tmp_path / 'p.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'p.csv'))
    assert rc != 0 and 'column of totals' in out, out


@pytest.mark.parametrize('name', ['phase', 'stage'])
def test_the_words_of_a_study_are_no_class(tmp_path, name):
    df = _varying()
    df[name] = np.arange(len(df)) % 3 + 1
    df.to_csv(tmp_path / 'v.csv', index=False)
    fixed = _pairs()
    fixed[name] = 1
    fixed.to_csv(tmp_path / 'f.csv', index=False)
    for f, keep in (('v.csv', 'author,other,everybody,nobody,info'), ('f.csv', 'yes,no')):
        rc, out = _run('data', 'validate', str(tmp_path / f))
        assert rc != 0 and f'leave it out: --counts {keep}' in out, (f, out)


def test_a_hint_never_keeps_a_second_totals_column(tmp_path):
    df = _pairs()
    df['total'] = 5
    df['n_ratings'] = 5
    df.to_csv(tmp_path / 't.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 't.csv'))
    assert rc != 0, out
    assert _hint(out) == 'yes,no', out  # it kept n_ratings: pasted, three classes
    assert read_annotated(tmp_path / 't.csv', counts=_hint(out)).classes == ('yes', 'no')


@pytest.mark.parametrize('n', [12, 60])
def test_three_unlisted_columns_beside_votes_of_a_fixed_number_are_refused(tmp_path, n):
    rng = np.random.default_rng(3)
    df = _pairs(n)
    df['foo'], df['bar'], df['baz'] = rng.integers(0, 50, n), rng.integers(0, 9, n), rng.integers(1, 4, n)
    df.to_csv(tmp_path / 'x.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'x.csv'))
    assert rc != 0 and "'foo', 'bar', 'baz' do not hold votes" in out, out
    assert _hint(out) == 'yes,no'


@pytest.mark.parametrize('name', ['retweets', 'likes', 'stars', 'depth', 'num_reports', 'n_replies'])
def test_a_posts_other_numbers_beside_varying_votes_are_no_class(tmp_path, name):
    df = _varying()
    df[name] = np.random.default_rng(4).integers(0, 30, len(df))
    df.to_csv(tmp_path / 'v.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'v.csv'))
    assert rc != 0 and '--counts author,other,everybody,nobody,info' in out, out


def test_stars_that_are_the_classes_are_read(tmp_path):  # a rating scale's classes: every column so named
    rng = np.random.default_rng(5)
    c = rng.multinomial(5, [0.1, 0.2, 0.3, 0.2, 0.2], size=30)
    pd.DataFrame(c, columns=[f'{k}_stars' for k in range(1, 6)]).to_csv(tmp_path / 's.csv', index=False)
    assert read_annotated(tmp_path / 's.csv').n_classes == 5


def test_a_count_of_workers_in_an_annotators_table_is_no_second_id(tmp_path):
    data = long12(tmp_path)
    ids = np.arange(1, 13)
    pd.DataFrame({'worker_id': ids, 'group': np.where(ids <= 6, 'A', 'B'), 'workers': 3}).to_csv(
        tmp_path / 'w.csv', index=False)
    joined = join_annotators(data, read_annotators(tmp_path / 'w.csv'))
    assert joined.attributes['group'].to_dict() == {str(i): 'A' if i <= 6 else 'B' for i in ids}
    pd.DataFrame({'annotator': ids, 'group': 'A', 'users': 13 - ids}).to_csv(tmp_path / 'u.csv', index=False)
    with pytest.raises(Exception, match='could each be the ids'):  # distinct numbers: it could be the ids, asked
        read_annotators(tmp_path / 'u.csv')


def test_a_frame_indexed_by_a_rank_is_no_ids(tmp_path):
    data = long12(tmp_path)
    ids = np.arange(1, 13)
    df = pd.DataFrame({'group': np.where(ids <= 6, 'A', 'B')}, index=pd.Index(13 - ids, name='rank'))
    with pytest.raises(Exception, match="index 'rank' holds integers and is named as an attribute"):
        join_annotators(data, df)
    joined = join_annotators(data, df.rename_axis('rater'))  # named as the ids: its index
    assert joined.attributes['group']['12'] == 'A'


def test_the_hints_of_a_column_of_words_and_of_a_weight(tmp_path):
    df = _pairs(20)
    df.insert(1, 'comment_body', [f'some words {i}' for i in range(20)])
    df.drop(columns='id').to_csv(tmp_path / 'h.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'h.csv'))
    assert rc != 0 and '--id comment_body' not in out and '--counts yes,no' in out, out
    chaos = pd.DataFrame({'uid': [f'c{i}' for i in range(20)], 'e': 50, 'n': 30, 'c': 20})
    chaos.to_csv(tmp_path / 'c.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'c.csv'))
    assert rc != 0 and '--id uid' in out and 'majority vote' not in out, out
    w = _pairs(20)
    w['weight'] = 0.5
    w.to_csv(tmp_path / 'w.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'w.csv'))
    assert rc != 0 and _hint(out) == 'yes,no', out
    assert read_annotated(tmp_path / 'w.csv', counts=_hint(out)).n_items == 20


@pytest.mark.parametrize('classes', [['Stage I', 'Stage II', 'Stage III', 'Stage IV'], ['Phase 1', 'Phase 2'],
                                     ['NOUN', 'VERB', 'PART', 'ADP'], ['appellant', 'respondent', 'judge']])
def test_classes_named_by_those_words_are_read(tmp_path, classes):  # (the sixty-seventh pass: refused on 80e007b)
    rng = np.random.default_rng(6)
    c = np.array([rng.multinomial(rng.integers(3, 9), np.ones(len(classes)) / len(classes)) for _ in range(40)])
    pd.DataFrame(c, columns=classes).to_csv(tmp_path / 'c.csv', index=False)
    assert read_annotated(tmp_path / 'c.csv').classes == tuple(classes)
