"""Leads left by earlier passes and found by the forty-seventh (issue 39): each test failed before its fix."""
import json

import numpy as np
import pandas as pd
import pytest
from cli_run import scruples

from scruples.annotations import read_annotated
from scruples.evaluation import evaluate
from scruples.metrics import rows_in_order_of


@pytest.mark.parametrize('cmd', [['best'], ['plan'], ['score', 'PRED'], ['agree']])
def test_json_errors_say_why_on_stdout(tmp_path, cmd):
    """A script reading `--json` got an empty stdout on bad input (the one line on stderr, exit status 1), so
    `json.loads` failed with no reason: the error is on stdout too, as JSON, and stderr keeps its line."""
    bad = tmp_path / 'bad.csv'
    bad.write_text('id,yes,no\na,1,x\n')
    pred = tmp_path / 'p.csv'
    pred.write_text('id,yes,no\na,.5,.5\n')
    args = [str(pred) if a == 'PRED' else a for a in cmd]
    r = scruples(*args, str(bad), '--json')
    assert r.returncode == 1, (r.stdout, r.stderr)
    got = json.loads(r.stdout)
    assert got['exit_status'] == 1 and 'bad.csv' in got['error'], got
    assert r.stderr.strip().startswith('scruples: error: ') and got['error'] in r.stderr
    r = scruples(*args, str(bad))  # without --json: stdout stays empty
    assert r.returncode == 1 and r.stdout == ''


# --- pairing left open by the forty-fifth and forty-sixth passes ------------------------------------------------------

CL = ['yes', 'no']


def _table(ids):
    "Items `ids`, every other one voted yes by all five, text t{id}."
    yes = np.arange(len(ids)) % 2 == 0
    return pd.DataFrame({'id': ids, 'text': [f't{i}' for i in ids], 'yes': np.where(yes, 5, 0),
                         'no': np.where(yes, 0, 5)})


class _Perfect:
    "Right on every item, reading its text."
    classes_ = np.array(['no', 'yes'])

    def __init__(self, df):
        self.truth = dict(zip(df.text, df.yes > 0))

    def predict_proba(self, X):
        return np.array([[.01, .99] if self.truth[t] else [.99, .01] for t in X['text']])


def _f1(df, X, y):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return float(evaluate(_Perfect(df), X, y, n_boot=0)['f1'])


def test_row_numbers_beside_ids_that_are_those_numbers_are_asked():
    """Counts indexed by ids ('id', a named index) that are 0..n-1 in another order than their rows, beside examples
    without an id column whose unnamed index holds row numbers (in order, sampled, or a subset), were matched row
    number to id: a perfect model scored 0.5. Row numbers or ids? Asked; each advice followed scores it right."""
    n = 12
    df = _table(list(np.random.default_rng(5).permutation(n)))
    y = df.set_index('id')[CL]
    perm = np.random.default_rng(1).permutation(n)
    for X in (df[['text']], df[['text']].iloc[perm], df[['text']].iloc[perm[:8]]):
        with pytest.raises(ValueError, match=r'row numbers or ids\?'):
            _f1(df, X, y)
        with pytest.raises(ValueError, match=r'row numbers or ids\?'):
            rows_in_order_of(y, X)
    assert _f1(df, df[['text']], y.reset_index(drop=True)) == 1.0  # by position, as the advice says
    assert _f1(df, df[['id', 'text']].iloc[perm], y) == 1.0  # X with its column of ids
    assert _f1(df, df.set_index('id')[['text']].iloc[perm].rename_axis(None).rename_axis('id'), y) == 1.0
    ok = _table(list(range(n)))  # ids that are the row numbers, in order: the two readings agree, nothing asked
    assert _f1(ok, ok[['text']].iloc[perm], ok.set_index('id')[CL]) == 1.0
    assert _f1(df, df[['text']], read_annotated(df)) == 1.0  # an AnnotatedData beside X in its order: by position


def test_a_named_index_of_another_name_holding_the_ids_is_asked():
    """X indexed by `user_id` (numbers 1..n in another order than the items' ids 1..n) was matched on it beside an
    AnnotatedData or counts indexed `id`: a perfect model scored 0.5. Asked, as the same numbers in a column are; X
    indexed by the data's own id column beside a `user_id` column was refused instead of matched on its index."""
    n = 12
    df = _table(list(range(1, n + 1)))
    df['user_id'] = np.random.default_rng(3).permutation(n) + 1
    d = read_annotated(df[['id', 'text'] + CL])
    X = df.drop(columns='id').set_index('user_id')
    for y in (d, df.set_index('id')[CL]):
        with pytest.raises(ValueError, match=r"its index 'user_id' holds numbers that are ids .* author_id"):
            _f1(df, X, y)
        assert _f1(df, X.reset_index(drop=True), y) == 1.0  # the advice: by position
        assert _f1(df, df.set_index('id').sample(frac=1, random_state=2), y) == 1.0  # on its index, named as the ids
    assert _f1(df, df.set_index('user_id').rename_axis('id'), df.set_index('id')[CL]) < 1  # told it is: as asked


def test_counts_indexed_by_whole_floats_are_matched_on_an_int_id_column():
    """Counts whose index is 1.0, 2.0 (a gap made the ids float) beside X holding the ids as ints were paired by
    position beside a `post_id` column (0.667 for a perfect model) and refused beside an `id` column: ids read as the
    readers read them, matched."""
    n = 12
    df = _table(list(range(1, n + 1)))
    y = df.set_index('id')[CL]
    y.index = y.index.astype(float)
    perm = np.random.default_rng(1).permutation(n)
    X = df.iloc[perm].reset_index(drop=True)
    assert _f1(df, X, y) == 1.0
    with pytest.raises(ValueError, match=r'an author_id'):  # numbers in another order in a post_id: asked, as for ints
        _f1(df, X.rename(columns={'id': 'post_id'}), y)
    assert _f1(df, X.rename(columns={'id': 'post_id'}), y.rename_axis('post_id')) == 1.0
    Xf = X.assign(id=X['id'].astype(float))  # floats on both sides: matched as written
    assert _f1(df, Xf, y) == 1.0
