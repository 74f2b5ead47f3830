"""Eleventh hostile pass (issue 39): inputs and combinations the ten earlier passes did not try. Each test runs the CLI
as a user does (a subprocess) or the API, asserts the right behaviour against a truth computed apart (plain pandas /
numpy), and failed on the code it was written against."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_run import scruples

from scruples.annotations import read_annotated
from scruples.core import ScruplesDataError, ScruplesError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def votes(tmp_path):
    "A wide table of 30 items: an id and count columns yes, no, unsure (each column's votes distinct from the others')."
    rng = np.random.default_rng(0)
    c = np.array([rng.multinomial(5, p) for p in rng.dirichlet([1, 1, 1], size=30)])
    df = pd.DataFrame(c, columns=['yes', 'no', 'unsure']).assign(no=lambda d: d.no + 3)  # 'no' has more votes
    df.insert(0, 'id', [f'q{i}' for i in range(30)])
    df.to_csv(tmp_path/'votes.csv', index=False)
    return tmp_path/'votes.csv', df


# --- MIXED: --counts yes,no,unsure --classes no,yes,unsure named the 'yes' column's votes class 'no' (classes were
# --- given to the count columns by position): every number of class 'no' was of the votes for 'yes', and a predictions
# --- file's 'no' column was scored against them ------------------------------------------------------------------

def test_classes_naming_another_count_column_are_refused_api(votes):
    path, df = votes
    with pytest.raises(ScruplesDataError, match="count column 'yes'"):
        read_annotated(path, counts='yes,no,unsure', classes='no,yes,unsure')
    with pytest.raises(ScruplesDataError, match="count column 'no'"):
        read_annotated(path, counts='yes,no', classes='no,maybe')  # one class of another column's name: mixed too
    d = read_annotated(path, counts='yes,no,unsure', classes='Yes,No,Unsure')  # renamed in place: the same votes
    assert d.classes == ('Yes', 'No', 'Unsure') and (d.counts == df[['yes', 'no', 'unsure']].to_numpy()).all()
    d = read_annotated(path, classes='no,yes,unsure')  # classes alone pick the columns by name, in their order
    assert (d.counts == df[['no', 'yes', 'unsure']].to_numpy()).all()


def test_classes_naming_another_count_column_are_refused_cli(votes):
    path, df = votes
    r = scruples('best', path, '--counts', 'yes,no,unsure', '--classes', 'no,yes,unsure', '--bootstrap', '0',
                 '--samples', '200')
    assert r.returncode != 0 and "count column 'yes'" in r.stderr and '--classes' in r.stderr, r.stdout + r.stderr


# --- SILENT WRONG: score_predictions / score_against_ceiling took a predictions frame and a gold frame by position: a
# --- predictions frame read from its file (columns unsure,yes,no; rows in another order) was scored as if its columns
# --- were the gold's classes and its rows the gold's items (macro F1 0.309 where the truth is 0.301), and so against an
# --- AnnotatedData, which knows its classes and items ----------------------------------------------------------

@pytest.fixture
def pred_and_gold(votes):
    "The gold frame (indexed by id) and a predictions frame of the same items: its rows shuffled, its columns reordered."
    path, df = votes
    rng = np.random.default_rng(1)
    p = pd.DataFrame(rng.dirichlet([1, 1, 1], size=len(df)), columns=['yes', 'no', 'unsure'], index=df.id)
    return p[['unsure', 'yes', 'no']].sample(frac=1, random_state=2), df.set_index('id'), path


def _truth_f1(p, gold):
    "Macro F1 of the argmax against the majority vote (ties: first), by sklearn on frames aligned by hand."
    from sklearn.metrics import f1_score
    p = p.loc[gold.index, gold.columns]
    return f1_score(gold.to_numpy().argmax(1), p.to_numpy().argmax(1), average='macro')


def test_score_predictions_aligns_frames_by_their_names(pred_and_gold):
    from scruples.evaluation import score_against_ceiling, score_predictions
    p, gold, path = pred_and_gold
    truth = _truth_f1(p, gold)
    assert abs(_truth_f1(p, gold) - _truth_f1(p.iloc[::-1], gold)) < 1e-12  # the truth does not depend on the order
    aligned = p.loc[gold.index, gold.columns].to_numpy()
    assert not np.isclose(score_predictions(p.to_numpy(), gold.to_numpy(), n_boot=0)['f1'], truth)  # arrays: by position
    for counts in (gold, read_annotated(path)):
        got = score_predictions(p, counts, n_boot=0)
        want = score_predictions(aligned, gold.to_numpy(), n_boot=0)
        assert np.isclose(got['f1'], truth) and np.isclose(got['xentropy'], want['xentropy'])
    cal = p.index[:10]  # held-out calibration items (the scored items are refused as calibration items)
    scored = gold.drop(cal)
    got = score_predictions(p.drop(cal), scored.iloc[::-1], proba_cal=p.loc[cal], counts_cal=gold.loc[cal[::-1]], n_boot=0)
    want = score_predictions(p.loc[scored.index, gold.columns].to_numpy(), scored.to_numpy(),
                             proba_cal=p.loc[cal, gold.columns].to_numpy(), counts_cal=gold.loc[cal].to_numpy(), n_boot=0)
    assert np.isclose(got['xentropy'], want['xentropy']) and np.isclose(got['temperature'], want['temperature'])
    t = score_against_ceiling(p, read_annotated(path), n_boot=0, n_samples=200, ceiling_boot=20)
    assert np.isclose(t.loc['macro_f1', 'model'], truth)


def test_score_predictions_refuses_frames_of_other_names(pred_and_gold):
    from scruples.evaluation import score_predictions
    p, gold, _ = pred_and_gold
    with pytest.raises(ValueError, match='maybe'):  # a class the gold does not have
        score_predictions(p.rename(columns={'unsure': 'maybe'}), gold, n_boot=0)
    with pytest.raises(ValueError, match='q0'):  # items the gold does not have
        score_predictions(p.rename(index={'q0': 'zz'}), gold, n_boot=0)
    got = score_predictions(p.reset_index(drop=True)[['yes', 'no', 'unsure']], gold.to_numpy(), n_boot=0)  # no names
    assert np.isclose(got['f1'], _truth_f1(p.reset_index(drop=True)[['yes', 'no', 'unsure']].set_axis(gold.index), gold))


# --- LOST: a frame's unnamed index of item ids (pandas' `DataFrame(counts, index=ids)`, a Parquet file pandas wrote
# --- from it, a frame of the test rows `df[df.split == 'test']` without an id column) was dropped and the items numbered
# --- 0, 1, 2...: the ids were lost, and the numbers named other rows of the user's frame --------------------------

def test_an_unnamed_index_of_ids_is_the_items(tmp_path, votes):
    _, df = votes
    counts = df.set_index('id').rename_axis(None)
    assert list(read_annotated(counts).items) == list(df.id)
    counts.to_parquet(tmp_path/'w.parquet')
    assert list(read_annotated(tmp_path/'w.parquet').items) == list(df.id)
    test = df.drop(columns='id').iloc[[4, 9, 17]]  # the rows of a filter: their labels are the user's row numbers
    d = read_annotated(test)
    assert list(d.items) == ['4', '9', '17'] and (d.counts == df.iloc[[4, 9, 17], 1:].to_numpy()).all()
    assert list(read_annotated(df.iloc[[4, 9, 17]]).items) == ['q4', 'q9', 'q17']  # an id column: the ids, as before
    assert list(read_annotated(df.drop(columns='id')).items) == [str(i) for i in range(len(df))]  # 0..n-1: as before


def test_an_unnamed_index_of_ids_is_matched_by_score(tmp_path, votes):
    _, df = votes
    df.set_index('id').rename_axis(None).to_parquet(tmp_path/'gold.parquet')
    p = pd.DataFrame(np.full((len(df), 3), 1/3), columns=['yes', 'no', 'unsure']).assign(id=df.id)
    p.to_csv(tmp_path/'pred.csv', index=False)
    r = scruples('score', tmp_path/'pred.csv', tmp_path/'gold.parquet', '--bootstrap', '0', '--samples', '200',
                 '--ceiling-bootstrap', '20')
    assert r.returncode == 0 and f'{len(df)} items scored' in r.stdout, r.stdout + r.stderr


# --- MESSAGE: a Label Studio export (one vote per row: annotator, choice, id, text, times) read without flags said
# --- 'alice@x.org is a label: ... read with --annotator-columns annotator,choice,created_at,lead_time,updated_at',
# --- a reading that takes e-mail addresses and times for labels; it is the long form with its label column named ------

LABEL_STUDIO = """annotation_id,annotator,choice,created_at,id,lead_time,text,updated_at
1,alice@x.org,Positive,2024-01-01T10:00:00Z,101,3.2,good film,2024-01-01T10:00:00Z
2,bob@x.org,Negative,2024-01-01T10:01:00Z,101,4.1,good film,2024-01-01T10:01:00Z
3,alice@x.org,Negative,2024-01-01T10:02:00Z,102,2.0,bad film,2024-01-01T10:02:00Z
4,bob@x.org,Negative,2024-01-01T10:03:00Z,102,1.5,bad film,2024-01-01T10:03:00Z
5,carol@x.org,Positive,2024-01-01T10:04:00Z,101,2.2,good film,2024-01-01T10:04:00Z
"""


def test_a_long_export_without_a_label_column_is_pointed_to_the_long_form(tmp_path):
    (tmp_path/'export.csv').write_text(LABEL_STUDIO)
    r = scruples('data', 'validate', tmp_path/'export.csv')
    assert r.returncode != 0 and '--annotator-columns' not in r.stdout + r.stderr, r.stdout + r.stderr
    assert '--long' in r.stdout + r.stderr and '--label' in r.stdout + r.stderr, r.stdout + r.stderr
    r = scruples('data', 'validate', tmp_path/'export.csv', '--long', '--item', 'id', '--label', 'choice')
    assert r.returncode == 0 and '5 votes by 3 annotators' in ' '.join(r.stdout.split()), r.stdout + r.stderr


# --- SILENT WRONG: best(pd.read_csv('votes.csv')) on a table with a numeric id column (or the 'Unnamed: 0' column of a
# --- CSV pandas wrote with its index) took the ids for a class's votes: accuracy 0.93 where the truth is about 0.69, no
# --- word; so did every function taking label counts (fleiss_kappa, plan, the metrics) -----------------------------

@pytest.mark.parametrize('id_name', ['id', 'item_id', 'Unnamed: 0'])
def test_a_frame_of_counts_with_an_id_column_is_refused(votes, id_name):
    from scruples.agreement import fleiss_kappa
    from scruples.best import best
    _, df = votes
    table = df.assign(id=range(len(df))).rename(columns={'id': id_name})  # numbers: they pass as counts
    for f in (lambda c: best(c, n_boot=0, n_samples=100), fleiss_kappa):
        with pytest.raises(ValueError, match=id_name):
            f(table)
    counts = table.drop(columns=id_name)
    got = best(counts, n_boot=0, n_samples=100)  # the count columns alone: read as before, as the plain array
    assert np.allclose(got.estimate, best(counts.to_numpy(), n_boot=0, n_samples=100).estimate)


# --- CRASH / MESSAGE: `scruples analyze votes.csv --id qid --predictions pred.csv` with the predictions keyed by the
# --- data's own id column (qid; or src,num for ids of two columns) was refused: 'expected an id column 'id' (--pred-id
# --- names another)', a flag analyze does not have; no predictions file of such data could be scored by analyze -----

@pytest.mark.parametrize('key', [['qid'], ['src', 'num']])
def test_guide_reads_predictions_by_the_datas_id_columns(tmp_path, key):
    from scruples.guide import check_predictions
    rng = np.random.default_rng(5)
    df = pd.DataFrame({'qid': [f'k{i}' for i in range(12)], 'src': ['A'] * 6 + ['B'] * 6, 'num': list(range(6)) * 2})
    df[['yes', 'no']] = np.array([rng.multinomial(4, [.5, .5]) for _ in range(12)])
    df[[*key, 'yes', 'no']].to_csv(tmp_path/'votes.csv', index=False)
    p = df[key].assign(yes=np.linspace(0.1, 0.9, 12)).assign(no=lambda d: 1 - d.yes).iloc[::-1]  # rows in another order
    p.to_csv(tmp_path/'pred.csv', index=False)
    d = read_annotated(tmp_path/'votes.csv', id=','.join(key))
    pred = check_predictions(tmp_path/'pred.csv', d)
    at = {v: r for r, v in enumerate(pred.ids)}
    rows = [at[str(i)] for i in d.items]  # the guide matches a prediction to an item by str(item id)
    assert np.allclose(pred.proba[rows, 0], np.linspace(0.1, 0.9, 12))
    p.rename(columns={key[0]: 'other'}).to_csv(tmp_path/'bad.csv', index=False)
    with pytest.raises(ValueError) as err:
        check_predictions(tmp_path/'bad.csv', d)
    assert '--pred-id' not in str(err.value) and ','.join(key) in str(err.value)


# --- SILENT WRONG: R's write.csv writes a missing value as NA (a spreadsheet as #N/A, others N/A or NaN): a table of
# --- votes from R read 'NA' as a class, with votes: in a column per annotator the annotators who did not vote voted
# --- 'NA' (6 votes for 4), and the ceiling was of three classes where the data has two -----------------------------

R_LONG = '"item","annotator","label"\n"1","a","yes"\n"1","b",NA\n"1","c","no"\n"2","a","no"\n"2","b","yes"\n"2","c","no"\n'
R_COLUMNS = '"id","A1","A2","A3"\n"a","yes",NA,"no"\n"b","no","no",NA\n'


@pytest.mark.parametrize('mark', ['NA', 'N/A', 'NaN', '#N/A', 'null'])
def test_a_missing_value_mark_is_not_read_as_a_class(tmp_path, mark):
    (tmp_path/'long.csv').write_text(R_LONG.replace(',NA', f',{mark}'))
    (tmp_path/'cols.csv').write_text(R_COLUMNS.replace(',NA', f',{mark}'))
    with pytest.raises(ScruplesDataError, match='missing value'):
        read_annotated(tmp_path/'long.csv')
    with pytest.raises(ScruplesDataError, match='missing value'):
        read_annotated(tmp_path/'cols.csv', annotator_columns='A*')
    d = read_annotated(tmp_path/'long.csv', classes=f'no,yes,{mark}')  # a class of that name, said so: a class
    assert d.classes == ('no', 'yes', mark) and d.counts.sum() == 6


def test_a_missing_value_mark_is_refused_by_the_commands(tmp_path):
    (tmp_path/'cols.csv').write_text(R_COLUMNS)
    r = scruples('best', tmp_path/'cols.csv', '--annotator-columns', 'A*', '--bootstrap', '0', '--samples', '100')
    assert r.returncode != 0 and "'NA'" in r.stderr and '--classes' in r.stderr, r.stdout + r.stderr
    (tmp_path/'hot.csv').write_text('id,ann1_yes,ann1_NA,ann2_yes,ann2_NA\na,1,0,0,1\nb,0,1,0,1\n')  # a column's class
    d = read_annotated(tmp_path/'hot.csv', annotator_columns='{annotator}_{label}')
    assert d.classes == ('NA', 'yes') and d.counts.tolist() == [[1, 1], [2, 0]]


# --- MIXED: an annotators table from R (write.csv: a missing value is NA) made the annotators of no gender a group
# --- 'NA', scored beside f and m (its majority a coder of 'alpha across groups'), where a missing value is no group --

def test_by_refuses_a_missing_value_mark_as_a_group(tmp_path):
    from cli_run import run_by

    from scruples.perspectives import group_values
    r = run_by(tmp_path, 'agree', 'gender', ['f', 'm', 'NA', 'm'])
    assert r.returncode != 0 and "'NA'" in r.stderr and 'missing value' in r.stderr, (r.stdout[-800:], r.stderr)
    with pytest.raises(ScruplesError, match='missing value'):
        group_values(['f', '#N/A', 'm'], 'gender')
    assert list(group_values(['f', None, '', 'm'], 'gender')) == ['f', None, None, 'm']  # empty: no group, as before


# --- SPLIT: a wide table with count columns Yes and yes (two exports pasted together) read them as two classes where
# --- labels that differ only in case are refused in the long form (one answer split into two classes) --------------

def test_count_columns_differing_only_in_case_are_refused(tmp_path):
    (tmp_path/'w.csv').write_text('id,Yes,no,yes\na,1,2,3\nb,2,1,0\n')
    with pytest.raises(ScruplesDataError, match="'Yes' and 'yes'"):
        read_annotated(tmp_path/'w.csv')
    d = read_annotated(tmp_path/'w.csv', counts='Yes,no,yes')  # named: kept apart, as the user says
    assert d.classes == ('Yes', 'no', 'yes') and d.counts.tolist() == [[1, 2, 3], [2, 1, 0]]
    r = scruples('best', tmp_path/'w.csv', '--bootstrap', '0', '--samples', '100')
    assert r.returncode != 0 and '--counts' in r.stderr, r.stdout + r.stderr


def test_a_predictions_parquet_of_filtered_rows_keeps_its_id_column(tmp_path, votes):
    "The index of a filter written with the predictions (no `id` column: --pred-id names it) is no extra column."
    from scruples.evaluation import read_predictions
    _, df = votes
    p = pd.DataFrame({'qid': df.id, 'yes': 0.5, 'no': 0.25, 'unsure': 0.25}).iloc[5:]  # index 5, 6, ...: not 0..n-1
    p.to_parquet(tmp_path/'pred.parquet')
    got = read_predictions(tmp_path/'pred.parquet', ['yes', 'no', 'unsure'], id='qid')
    assert got.ids == list(df.id[5:])


# --- MESSAGE: a column per annotator written by pandas with empty cells (1.0, 2.0) beside one without (1, 2) was
# --- refused with 'give the classes in order (--classes), e.g. 1,1.0,2,2.0': a hint to split each class in two --------

def test_labels_written_as_floats_by_pandas_say_why(tmp_path):
    pd.DataFrame({'id': list('abcd'), 'A1': [1, 2, np.nan, 3], 'A2': [1, 2, 2, 3]}).to_csv(tmp_path/'a.csv', index=False)
    with pytest.raises(ScruplesDataError, match='pandas writes 1.0') as err:
        read_annotated(tmp_path/'a.csv', annotator_columns='A*')
    assert 'to keep them apart' in str(err.value)
