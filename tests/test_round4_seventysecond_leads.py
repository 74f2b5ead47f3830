"""Issue 39, the seventy-second hostile pass (on 4488579, this stop's third commit): a table of disagreements (two
raters an item, who never agree) beside a judgment's `seconds` or a rater's `age` was asked about as a groupby's size;
a column of worker ids with an empty cell was left unread beside a judgment given twice (counted twice, silent); a
class `takes_turns` was refused as certainly no class, its refusal advising first to leave it out."""

import numpy as np
import pandas as pd
import pytest
from cli_run import said

from scruples.annotations import read_annotated


def _run(*argv):
    "A command's exit status and all it printed, its lines joined (`cli_run.said`)."
    return said(*argv)


@pytest.mark.parametrize('col', ['seconds', 'age', 'duration'])
def test_a_table_of_disagreements_beside_an_items_named_number_is_read(tmp_path, col):
    rng = np.random.default_rng(0)
    rows = [(f'i{i}', lab, int(rng.integers(2, 60))) for i in range(12) for lab in ('yes', 'no')]
    pd.DataFrame(rows, columns=['item', 'label', col]).to_csv(tmp_path / 'd.csv', index=False)
    d = read_annotated(tmp_path / 'd.csv')
    assert d.counts.sum() == 24 and f'columns not read: {col}' in d.report


def _workers(empty: bool, repeat: bool):
    rows = [(f'q{i}', f'w{j}', 'yes' if (i + j) % 3 else 'no') for i in range(8) for j in range(3)]
    if repeat:
        rows.append(('q0', 'w1', 'no'))
    if empty:
        rows[5] = (rows[5][0], '', rows[5][2])
    return pd.DataFrame(rows, columns=['item', 'worker_id', 'label'])


def test_worker_ids_with_an_empty_cell_beside_a_judgment_given_twice_are_refused(tmp_path):
    _workers(empty=True, repeat=True).to_csv(tmp_path / 'r.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'r.csv'))
    assert rc != 0 and 'not on every row' in out and "--annotator ''" in out, out
    rc, out = _run('data', 'validate', str(tmp_path / 'r.csv'), '--annotator', '')
    assert rc == 0 and '25 votes' in out, out  # every row a vote of its own, as asked
    _workers(empty=True, repeat=False).to_csv(tmp_path / 'o.csv', index=False)
    d = read_annotated(tmp_path / 'o.csv')  # no judgment given twice: read, the ids unread as before
    assert d.counts.sum() == 24 and 'columns not read: worker_id' in d.report


def test_a_class_named_with_a_texts_unit_is_asked_as_a_class_first(tmp_path):
    rng = np.random.default_rng(1)
    n = rng.integers(3, 6, 20)
    c = np.array([rng.multinomial(k, [0.5, 0.3, 0.2]) for k in n])
    d = pd.DataFrame(c, columns=['takes_turns', 'interrupts', 'neutral'])
    d.insert(0, 'id', [f'i{i}' for i in range(20)])
    d.to_csv(tmp_path / 't.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 't.csv'))
    assert rc != 0 and out.index('a class of that name') < out.index('leave it out'), out
    rc, out = _run('data', 'validate', str(tmp_path / 't.csv'), '--counts', 'takes_turns,interrupts,neutral')
    assert rc == 0, out
