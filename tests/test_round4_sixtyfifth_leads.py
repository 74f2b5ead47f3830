"""Issue 39, the sixty-fifth hostile pass (on 8b725b8): a long table of counts made by `groupby(['item',
'label']).size().reset_index()` (its count column named `0`; SQL's `COUNT(*)`, DuckDB's `count_star()`, `cnt`) was read
as one vote a row (51 votes of 142, alpha -0.95 against 0.279, silent); a column per annotator of numeric labels
(`rater1..3` of Likert 1-5, `A1..A3`) was read as counts of a class per annotator, and `pd.get_dummies`' one-hot
columns per annotator (`ann1_no, ann1_yes`) as six classes; the blank cell's hint (fillna(0)) led there; counts in the
annotator column (`groupby(...).annotator.count()`) were told to choose `--repeats`; a CSV without a header row was
hinted `--id a1`, losing item a1's votes."""

import numpy as np
import pandas as pd
import pytest
from cli_run import said

from scruples.annotations import read_annotated


def _run(*argv):
    "A command's exit status and all it printed (`cli_run.said`)."
    return said(*argv, joined=False)


def _votes(n_items=30, seed=0):
    "One vote a row, no annotator column: item, label (several votes an item, labels repeating)."
    rng = np.random.default_rng(seed)
    return pd.DataFrame([(f'i{i}', rng.choice(['yes', 'no', 'maybe'], p=[0.5, 0.3, 0.2]))
                         for i in range(n_items) for _ in range(rng.integers(3, 7))], columns=['item', 'label'])


@pytest.mark.parametrize('name', [0, 'COUNT(*)', 'count_star()', 'cnt', 'weight', 'total'])
def test_a_long_table_of_counts_under_any_name_is_refused(tmp_path, name):
    agg = _votes().groupby(['item', 'label']).size().reset_index()
    agg = agg.rename(columns={0: name})
    agg.to_csv(tmp_path / 'agg.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'agg.csv'))
    assert rc != 0 and 'one row per vote' in out and 'pivot' in out, out


def test_other_whole_numbers_beside_one_vote_a_row_are_read(tmp_path):
    v = _votes()
    v['seconds'] = np.random.default_rng(1).integers(1, 90, len(v))  # labels repeat within an item: votes, not counts
    v.to_csv(tmp_path / 'v.csv', index=False)
    assert read_annotated(tmp_path / 'v.csv').counts.sum() == len(v)
    one = v.drop_duplicates('item')  # one vote an item: nothing says counts
    one.to_csv(tmp_path / 'one.csv', index=False)
    assert read_annotated(tmp_path / 'one.csv').counts.sum() == len(one)


def test_counts_in_the_annotator_column_are_said_to_be_counts(tmp_path):
    v = _votes()
    v['annotator'] = 'x'
    agg = v.groupby(['item', 'label']).annotator.count().reset_index()
    agg.to_csv(tmp_path / 'a.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'a.csv'))
    assert rc != 0 and 'annotator.count()' in out and 'pivot' in out, out


def _per_annotator(names, n=20, seed=2, blanks=False):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({x: rng.integers(1, 6, n).astype(float) for x in names})
    if blanks:
        df.iloc[3, 1] = np.nan
    df.insert(0, 'id', [f'q{i}' for i in range(n)])
    return df


@pytest.mark.parametrize('names', [['rater1', 'rater2', 'rater3'], ['annotator_1', 'annotator_2', 'annotator_3'],
                                   ['worker1', 'worker2'], ['A1', 'A2', 'A3']])
@pytest.mark.parametrize('blanks', [False, True])
def test_a_column_per_annotator_of_numeric_labels_is_no_class(tmp_path, names, blanks):
    _per_annotator(names, blanks=blanks).to_csv(tmp_path / 'r.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'r.csv'))
    assert rc != 0 and f'--annotator-columns {",".join(names)}' in out and 'fillna' not in out, out
    data = read_annotated(tmp_path / 'r.csv', annotator_columns=','.join(names))  # the hint pasted
    assert data.counts.sum() == 20 * len(names) - blanks and data.n_items == 20
    said = read_annotated(tmp_path / 'r.csv', counts=','.join(names)) if not blanks else None  # counts so named, said
    assert said is None or said.classes == tuple(names)


def test_one_hot_columns_per_annotator_are_no_classes(tmp_path):
    rng = np.random.default_rng(3)
    lab = pd.DataFrame({f'ann{k}': rng.choice(['no', 'yes'], 15) for k in (1, 2, 3)})
    hot = pd.get_dummies(lab).astype(int)
    hot.insert(0, 'id', range(15))
    hot.to_csv(tmp_path / 'h.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'h.csv'))
    assert rc != 0 and '{annotator}_{label}' in out, out
    data = read_annotated(tmp_path / 'h.csv', annotator_columns='{annotator}_{label}')
    assert data.classes == ('no', 'yes') and data.counts.sum() == 45


def test_a_table_without_a_header_row_is_said_so(tmp_path):
    (tmp_path / 'n.csv').write_text('a1,3,2\na2,1,4\na3,0,5\na4,2,3\n')
    rc, out = _run('data', 'validate', str(tmp_path / 'n.csv'))
    assert rc != 0 and 'header' in out and '--id a1' not in out and '--counts 3,2' not in out, out


def test_classes_named_by_a_number_beside_ids_keep_their_hint(tmp_path):  # a header of Likert classes: ids hinted
    pd.DataFrame({'post': [f'p{i}' for i in range(6)], '1': 2, '2': 3}).to_csv(tmp_path / 'l.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'l.csv'))
    assert rc != 0 and '--id post' in out, out
