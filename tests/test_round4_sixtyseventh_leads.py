"""Issue 39, the sixty-seventh hostile pass (on 8086916): a melted table of counts whose empty cells are NaN (a
`pivot_table` without `fill_value`, then `melt`) was read as one vote a row (36 votes of 60, silent), and a
`groupby(['item', 'pool', 'label']).size()` with `--long` (60 of 120); an annotators table whose real id column had
one repeated id was joined on its row numbers (each voter given another's group, silent: the previous commit asked);
long tables of one vote a row beside a `coder`, `annotator_id`, `worker` or `confidence` column were refused as counts;
superscript-digit annotator ids gave a raw `int()` error; classes named `Stage I`, `PART`, `judge`, `respondent` were
refused (`tests/test_round4_sixtyfourth_leads.py`); frames indexed by `voter`, `assessor`, `grader` were refused."""

import numpy as np
import pandas as pd
import pytest
from cli_run import said
from long_voters import long12

from scruples.annotations import read_annotated
from scruples.perspectives import join_annotators, read_annotators


def _run(*argv):
    "A command's exit status and all it printed (`cli_run.said`)."
    return said(*argv, joined=False)


def _votes(n_items=15, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame([(f'i{i}', f'p{rng.integers(2)}', rng.choice(['neg', 'neu', 'pos'], p=[0.3, 0.1, 0.6]))
                         for i in range(n_items) for _ in range(rng.integers(4, 12))], columns=['item', 'pool', 'label'])


@pytest.mark.parametrize('name', ['n_votes', 'value'])
def test_a_melted_table_of_counts_with_empty_cells_is_refused(tmp_path, name):
    wide = _votes().pivot_table(index='item', columns='label', aggfunc='size')  # no fill_value: NaN
    assert wide.isna().any().any()
    wide.reset_index().melt(id_vars='item', value_name=name).to_csv(tmp_path / 'm.csv', index=False)
    rc, out = _run('best', str(tmp_path / 'm.csv'), '--bootstrap', '0', '--samples', '50')
    assert rc != 0 and 'one row per vote' in out, out


@pytest.mark.parametrize('name', ['value', 0])
def test_a_groupby_size_over_another_key_is_refused(tmp_path, name):
    g = _votes().groupby(['item', 'pool', 'label']).size().reset_index(name=name)
    g.to_csv(tmp_path / 'g.csv', index=False)
    rc, out = _run('best', str(tmp_path / 'g.csv'), '--long', '--bootstrap', '0', '--samples', '50')
    assert rc != 0 and 'one row per vote' in out, out


def test_an_id_column_with_one_repeated_id_is_no_reason_to_join_on_row_numbers(tmp_path):
    data = long12(tmp_path)
    codes = list(range(12, 0, -1))
    codes[-1] = codes[-2]  # one annotator filled the survey twice, another never
    pd.DataFrame({'id': range(1, 13), 'annotator_code': codes, 'group': ['A'] * 6 + ['B'] * 6}).to_csv(
        tmp_path / 'a.csv', index=False)
    with pytest.raises(Exception, match="could each be the ids"):
        join_annotators(data, read_annotators(tmp_path / 'a.csv'))


@pytest.mark.parametrize('col', ['coder', 'annotator_id', 'worker', 'confidence'])
def test_one_vote_a_row_beside_small_whole_numbers_is_read(tmp_path, col):
    rows = [(f'i{i}', lab, k) for i in range(5) for k, lab in ((1, 'yes'), (2, 'no'))]  # two coders who disagree
    pd.DataFrame(rows, columns=['item', 'label', col]).to_csv(tmp_path / 'l.csv', index=False)
    assert read_annotated(tmp_path / 'l.csv').counts.sum() == 10  # its votes, the column not read
    if col == 'confidence':
        return
    assert read_annotated(tmp_path / 'l.csv', annotator=col).counts.sum() == 10
    many = [(f'i{i}', lab, k) for i in range(12) for k, lab in ((1, 'yes'), (2, 'no'))]  # twelve such items: a
    pd.DataFrame(many, columns=['item', 'label', col]).to_csv(tmp_path / 'm.csv', index=False)  # groupby's count?
    rc, out = _run('data', 'validate', str(tmp_path / 'm.csv'))
    assert rc != 0 and f'say so, --annotator {col}' in out, out  # asked, naming the flag that reads it
    assert read_annotated(tmp_path / 'm.csv', annotator=col).counts.sum() == 24


@pytest.mark.parametrize('col', ['worker_id', 'annotator_id'])
def test_a_count_of_a_column_named_for_annotators_is_refused(tmp_path, col):
    rng = np.random.default_rng(7)
    votes = pd.DataFrame([(f'd{i}', lab, a) for i in range(40)
                          for a, lab in enumerate(rng.choice(['yes', 'no'], 5, p=[0.7, 0.3]))],
                         columns=['item', 'label', col])
    votes.groupby(['item', 'label'])[col].count().reset_index().to_csv(tmp_path / 'g.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'g.csv'))
    assert rc != 0 and f'.{col}.count()' in out, out


@pytest.mark.parametrize('extra', ['word_count', 'Total approvals', 'trial_number', 'Input.word_count'])
def test_an_exports_other_numbers_named_like_counts_are_no_votes(tmp_path, extra):
    rng = np.random.default_rng(8)
    rows = [(f'a{r}', f'i{i}', rng.choice(['yes', 'no']), 20 + i if 'word' in extra else int(rng.integers(1, 9)))
            for r, i in enumerate(np.repeat(np.arange(30), 5))]
    pd.DataFrame(rows, columns=['annotation_id', 'item', 'label', extra]).to_csv(tmp_path / 'e.csv', index=False)
    assert read_annotated(tmp_path / 'e.csv', form='long').counts.sum() == 150


def test_superscript_annotator_ids_are_no_crash(tmp_path):
    pd.DataFrame({'item': ['a', 'a', 'b', 'b', 'c'], 'annotator': ['²', '³', '²', '³', '²'],
                  'label': ['x', 'y', 'x', 'x', 'y']}).to_csv(tmp_path / 's.csv', index=False)
    assert read_annotated(tmp_path / 's.csv').counts.sum() == 5


@pytest.mark.parametrize('name', ['voter', 'assessor', 'grader', 'annotator_idx', 'worker_index'])
def test_a_frame_indexed_by_a_name_of_people_is_joined(tmp_path, name):
    data = long12(tmp_path)
    ids = np.arange(1, 13)
    df = pd.DataFrame({'group': np.where(ids <= 6, 'A', 'B')}, index=pd.Index(ids, name=name))
    assert join_annotators(data, df).attributes['group']['12'] == 'B'
