"""Issue 39, the sixty-sixth hostile pass (on 80e007b): a long table of counts made by `melt` keeps the classes no one
voted as rows of 0 and was read as one vote a row (every item one vote of each class: accuracy 0.334 against 0.830,
silent, even with its column named `count`); counts in the annotator column (`groupby(['id', 'label']).annotator
.count()` of the Dilemmas' pairs) were read, pasted from the wide reader's hint, as votes of five annotators (313 votes
of 1,000: macro F1 0.194 against 0.880); two columns of totals (`assigned`, `completed`) were classes; a column per
annotator named `annotator1_label` or `coder_A` was read as counts; a 2.5 in a class column was hinted to leave the
class out; an age beside one vote a row was refused; three rare classes of a table of 28 were taken for extra columns;
an annotators frame indexed by `subject` was refused."""

import numpy as np
import pandas as pd
import pytest
from cli_run import said
from long_voters import long12

from scruples.annotations import as_counts, read_annotated
from scruples.perspectives import join_annotators


def _run(*argv):
    "A command's exit status and all it printed (`cli_run.said`)."
    return said(*argv, joined=False)


def _wide(n=12, votes=5, seed=0):
    rng = np.random.default_rng(seed)
    c = rng.multinomial(votes, [0.6, 0.3, 0.1], size=n)
    return pd.DataFrame({'item': [f'i{i}' for i in range(n)], 'yes': c[:, 0], 'no': c[:, 1], 'maybe': c[:, 2]})


@pytest.mark.parametrize('name', ['count', 'value', 'n_votes', 0])
def test_a_melted_table_of_counts_with_its_zeros_is_refused(tmp_path, name):
    long = _wide().melt(id_vars='item', var_name='label', value_name=name)
    assert (long[name] == 0).any()
    long.to_csv(tmp_path / 'm.csv', index=False)
    rc, out = _run('best', str(tmp_path / 'm.csv'), '--bootstrap', '0', '--samples', '50')
    assert rc != 0 and 'one row per vote' in out, out


def test_an_age_beside_one_vote_a_row_is_read(tmp_path):
    rows = [('a', 'yes', 25), ('a', 'no', 41), ('b', 'no', 33), ('c', 'yes', 52), ('c', 'no', 19), ('d', 'yes', 30)]
    pd.DataFrame(rows, columns=['item', 'label', 'age']).to_csv(tmp_path / 'l.csv', index=False)
    assert read_annotated(tmp_path / 'l.csv').counts.sum() == 6


def test_counts_in_the_annotator_column_are_refused_without_a_repeat(tmp_path):
    rng = np.random.default_rng(1)
    votes = pd.DataFrame([(f'd{i}', lab, a) for i in range(40)
                          for a, lab in enumerate(rng.choice(['action1', 'action2'], 5, p=[0.7, 0.3]))],
                         columns=['id', 'label', 'annotator'])
    agg = votes.groupby(['id', 'label']).annotator.count().reset_index()
    agg.to_csv(tmp_path / 'g.csv', index=False)
    rc, out = _run('best', str(tmp_path / 'g.csv'), '--long', '--item', 'id', '--bootstrap', '0', '--samples', '50')
    assert rc != 0 and 'annotator.count()' in out and 'pivot' in out, out
    said = read_annotated(tmp_path / 'g.csv', form='long', item='id', annotator='annotator', repeats='first')
    assert said.n_items == 40  # annotators so numbered, said so: read as said


@pytest.mark.parametrize('fixed', [False, True])
def test_two_columns_of_totals_are_refused(tmp_path, fixed):
    df = _wide(30, seed=2) if fixed else pd.concat([_wide(10, v, seed=v) for v in (3, 5, 7)], ignore_index=True)
    df['item'] = [f'i{i}' for i in range(len(df))]
    df['assigned'] = df['completed'] = df[['yes', 'no', 'maybe']].sum(axis=1)
    df.to_csv(tmp_path / 't.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 't.csv'))
    assert rc != 0 and "'assigned', 'completed'" in out and '--counts yes,no,maybe' in out, out
    with pytest.raises(ValueError, match="'assigned', 'completed' holds each row's sum"):
        as_counts(df.drop(columns='item'))


@pytest.mark.parametrize('names', [['annotator1_label', 'annotator2_label', 'annotator3_label'],
                                   ['annotator_a', 'annotator_b', 'annotator_c'], ['coder_A', 'coder_B']])
def test_more_names_of_a_column_per_annotator_are_no_classes(tmp_path, names):
    rng = np.random.default_rng(3)
    df = pd.DataFrame({x: rng.integers(1, 6, 20) for x in names})
    df.insert(0, 'id', range(20))
    df.to_csv(tmp_path / 'a.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'a.csv'))
    assert rc != 0 and f'--annotator-columns {",".join(names)}' in out, out
    assert read_annotated(tmp_path / 'a.csv', annotator_columns=','.join(names)).counts.sum() == 20 * len(names)


def test_a_fraction_in_a_class_column_is_no_hint_to_leave_the_class_out(tmp_path):
    df = _wide(6)
    df['no'] = df['no'].astype(object)
    df.loc[2, 'no'] = 2.5
    df.to_csv(tmp_path / 'f.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'f.csv'))
    assert rc != 0 and 'leave it out' not in out, out


def test_the_rare_classes_of_many_are_no_extra_columns(tmp_path):
    names = [f'emotion_{k}' for k in range(28)]
    rng = np.random.default_rng(4)
    c = np.zeros((12, 28), dtype=int)
    for i in range(12):
        for j in rng.choice(3, 3):
            c[i, j] += 1
    c[2, 25] += 1  # three items of an extra vote, each in a class no other item has
    c[5, 26] += 1
    c[9, 27] += 1
    df = pd.DataFrame(c, columns=names)
    df.insert(0, 'id', range(12))
    df.to_csv(tmp_path / 'e.csv', index=False)
    assert read_annotated(tmp_path / 'e.csv').n_classes == 28


@pytest.mark.parametrize('name', ['subject', 'person_number'])
def test_a_frame_indexed_by_a_subject_is_joined(tmp_path, name):
    data = long12(tmp_path)
    ids = np.arange(1, 13)
    df = pd.DataFrame({'group': np.where(ids <= 6, 'A', 'B')}, index=pd.Index(ids, name=name))
    assert join_annotators(data, df).attributes['group']['12'] == 'B'
