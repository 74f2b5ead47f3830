"""Issue 39, the seventy-first hostile pass (on cc4f288, this stop's second commit): its own rules' regressions. A post's
author (`user`) differing on one post was taken for the annotators, and the refusal's `--repeats first` then read 21
votes of 60 (accuracy 1.0 against 0.65: silent wrong through a named flag); a column named for annotators settled the
two readings (`item,label,raters,yes,no`: one vote an item, exit 0); two such columns (`participant`,
`PROLIFIC_PID`) were both left unread (a duplicate counted twice); empty worker cells refused the table; a row counter
`trial` was asked about as a groupby's size; classes `speaker`, `tweets`, `posts`, `messages` were refused; composite
ids with leading zeros were said to hold a decimal comma; a `.scruples-dilemmas.json` lost its file name's hint; a
small 0/1 table was refused as one-hot annotators."""

import json

import numpy as np
import pandas as pd
import pytest
from cli_run import said

from scruples.annotations import read_annotated


def _run(*argv):
    "A command's exit status and all it printed, its lines joined (`cli_run.said`)."
    return said(*argv)


def _votes(n=20, seed=0):
    rng = np.random.default_rng(seed)
    return [(f'p{i}', rng.choice(['yes', 'no'])) for i in range(n) for _ in range(3)]


def test_an_author_differing_on_one_post_is_no_annotator(tmp_path):
    rows = [(i, f'u{i[1:]}', lab) for i, lab in _votes()]
    rows[1] = (rows[1][0], '[deleted]', rows[1][2])  # a second crawl's author of one post
    pd.DataFrame(rows, columns=['item', 'user', 'label']).to_csv(tmp_path / 'a.csv', index=False)
    d = read_annotated(tmp_path / 'a.csv')
    assert d.counts.sum() == 60 and 'no annotator column' in d.report
    rc, out = _run('best', str(tmp_path / 'a.csv'), '--repeats', 'first', '--bootstrap', '0', '--samples', '50')
    assert rc != 0 and 'does not apply without an annotator column' in out, out


def test_a_repeat_of_a_column_read_by_its_name_names_no_annotators_too(tmp_path):
    rows = [(i, f'w{k % 3}', lab) for k, (i, lab) in enumerate(_votes())]
    rows.append(rows[0])  # one judgment given twice
    pd.DataFrame(rows, columns=['item', 'worker_id', 'label']).to_csv(tmp_path / 'r.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'r.csv'))
    assert rc != 0 and '--repeats' in out and "--annotator ''" in out, out


def test_a_column_named_for_annotators_does_not_settle_the_two_readings(tmp_path):
    pd.DataFrame({'item': ['a', 'b', 'c'], 'label': ['yes', 'no', 'yes'], 'raters': [4, 4, 5], 'yes': [3, 1, 4],
                  'no': [1, 3, 1]}).to_csv(tmp_path / 'w.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'w.csv'))
    assert rc != 0 and 'two readings' in out, out


def test_two_columns_of_annotator_ids_are_asked_about(tmp_path):
    rows = [(i, f'p{k % 3}', f'5f{(k + k // 3) % 3}X', lab) for k, (i, lab) in enumerate(_votes())]  # (the same ids
    # relabelled, `5f0X` for `p0` on every row, are one column: the seventy-third pass)
    pd.DataFrame(rows, columns=['item', 'participant', 'PROLIFIC_PID', 'label']).to_csv(tmp_path / 't.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 't.csv'), '--long')
    assert rc != 0 and 'say which, --annotator participant' in out, out
    rc, out = _run('data', 'validate', str(tmp_path / 't.csv'), '--long', '--annotator', 'PROLIFIC_PID')
    assert rc == 0 and '60 votes by 3 annotators' in out, out


def test_empty_worker_cells_leave_the_column_unread(tmp_path):
    rows = [(i, '' if k % 5 == 0 else f'w{k % 3}', lab) for k, (i, lab) in enumerate(_votes())]
    pd.DataFrame(rows, columns=['item', 'worker_id', 'label']).to_csv(tmp_path / 'e.csv', index=False)
    d = read_annotated(tmp_path / 'e.csv')
    assert d.counts.sum() == 60 and 'columns not read: worker_id' in d.report


def test_a_row_counter_beside_disagreeing_pairs_is_read(tmp_path):
    rows = [(f'i{i}', lab, 2 * i + j + 1) for i in range(15) for j, lab in enumerate(('anger', 'joy'))]
    pd.DataFrame(rows, columns=['item', 'label', 'trial']).to_csv(tmp_path / 't.csv', index=False)
    assert read_annotated(tmp_path / 't.csv').counts.sum() == 30


@pytest.mark.parametrize('names', [('narrator', 'speaker', 'listener'), ('tweets', 'posts', 'messages')])
def test_classes_of_roles_and_kinds_of_post_are_read(tmp_path, names):
    rng = np.random.default_rng(3)
    d = pd.DataFrame(rng.integers(0, 5, size=(30, 3)) + [1, 0, 0], columns=list(names))
    d.insert(0, 'id', [f'i{i}' for i in range(30)])
    d.to_csv(tmp_path / 'c.csv', index=False)
    assert read_annotated(tmp_path / 'c.csv').classes == names


def test_composite_ids_with_leading_zeros_are_said_to_be(tmp_path):
    pd.DataFrame({'doc': ['d1', 'd1', 'd2'], 'sent': ['7', '07', '1'], 'yes': [1, 2, 3], 'no': [2, 1, 0]}).to_csv(
        tmp_path / 'c.csv', index=False)
    with pytest.raises(Exception, match=r'leading zeros') as e:
        read_annotated(tmp_path / 'c.csv', id='doc,sent')
    assert 'decimal comma' not in str(e.value)


def test_the_dilemmas_saved_as_a_json_list_keep_the_file_names_hint(tmp_path):
    rec = {'id': 'x', 'actions': [{'id': 'a', 'description': 'one'}, {'id': 'b', 'description': 'two'}],
           'gold_annotations': [3, 2], 'gold_label': 0, 'controversial': False}
    (tmp_path / 'dev.scruples-dilemmas.json').write_text(json.dumps([rec, rec]))
    rc, out = _run('data', 'validate', str(tmp_path / 'dev.scruples-dilemmas.json'))
    assert rc != 0 and 'the file name says dilemmas' in out, out


def test_a_small_zero_one_table_is_read_as_classes(tmp_path):
    pd.DataFrame({'id': ['a', 'b', 'c', 'd'], 'very_good': [1, 0, 1, 0], 'very_bad': [0, 1, 0, 1],
                  'quite_good': [1, 1, 0, 0], 'quite_bad': [0, 0, 1, 1]}).to_csv(tmp_path / 'g.csv', index=False)
    assert read_annotated(tmp_path / 'g.csv').counts.sum() == 8
