"""Issue 39, the fifty-fourth hostile pass (the commands, on 899546d): `score --pred-label` paired predictions on their
`id` column where the gold's ids are `item` and the file holds both (0.17 for 0.25); a wide table's `item` beside `id`,
a `gold_label`, a `row` column were read as classes; a column of totals named `num_annotators` was a class (a ceiling
of 0.99 for 0.72); a header `1,2` was read as an item; a label `None` (Python's str(None)) was a class."""

import json

import numpy as np
import pytest
from cli_run import scruples

from scruples.annotations import read_annotated


def _gold_long(path):
    rng = np.random.default_rng(0)
    rows = ['item,annotator,label']
    for i in range(12):
        for a in range(5):
            rows.append(f'{i},a{a},{rng.choice(["neg", "neu", "pos"])}')
    path.write_text('\n'.join(rows) + '\n')


def test_score_asks_which_column_holds_the_ids_where_the_golds_and_id_are_both_there(tmp_path):
    _gold_long(tmp_path / 'gold.csv')
    rng = np.random.default_rng(1)
    items = rng.permutation(12)
    labels = rng.choice(['neg', 'neu', 'pos'], 12)
    (tmp_path / 'pred.csv').write_text('id,item,label\n' + ''.join(f'{r},{i},{v}\n' for r, (i, v) in
                                                                    enumerate(zip(items, labels))))
    args = ['score', tmp_path / 'pred.csv', tmp_path / 'gold.csv', '--pred-label', 'label', '--bootstrap', '0',
            '--samples', '300', '--ceiling-bootstrap', '0']
    r = scruples(*args)
    assert r.returncode != 0 and 'which holds the ids? --pred-id' in r.stdout + r.stderr, r.stderr
    r = scruples(*args, '--pred-id', 'item', '--json')
    assert r.returncode == 0, r.stderr
    # only the gold's id column: taken, as the help says
    (tmp_path / 'pred2.csv').write_text('item,label\n' + ''.join(f'{i},{v}\n' for i, v in zip(items, labels)))
    r2 = scruples('score', tmp_path / 'pred2.csv', *args[2:], '--json')
    assert r2.returncode == 0, r2.stderr
    assert json.loads(r2.stdout)['metrics'] == json.loads(r.stdout)['metrics']


@pytest.mark.parametrize('column', ['item', 'gold_label', 'row', 'majority'])
def test_a_wide_tables_column_of_labels_or_rows_is_no_class(tmp_path, column):
    f = tmp_path / 'g.csv'
    f.write_text(f'id,{column},yes,no\n' + ''.join(f'p{i},{i % 2},{i % 5},{5 - i % 5}\n' for i in range(6)))
    r = scruples('data', 'validate', f)
    out = r.stdout + r.stderr
    assert r.returncode != 0 and f'{column!r} names a label, a vote, a row or other data of an item' in out and '--counts yes,no' in out, out
    assert read_annotated(f, counts='yes,no').classes == ('yes', 'no')
    assert read_annotated(f, counts=f'{column},yes,no').classes == (column, 'yes', 'no')  # a class if said so


@pytest.mark.parametrize('name', ['num_annotators', 'annotator_count', 'n_annotators', 'raters'])
def test_a_column_of_totals_named_as_a_count_of_annotators_is_refused(tmp_path, name):
    f = tmp_path / 'c.csv'
    rng = np.random.default_rng(2)
    c = rng.multinomial(5, [0.5, 0.3, 0.2], 8)
    f.write_text(f'id,lo,mid,hi,{name}\n' + ''.join(f'i{j},{a},{b},{d},5\n' for j, (a, b, d) in enumerate(c)))
    r = scruples('best', f, '--bootstrap', '0')
    assert r.returncode != 0 and 'without a column of totals' in r.stdout + r.stderr and '--counts lo,mid,hi' in r.stdout + r.stderr


def test_a_first_row_1_2_is_asked_header_or_item(tmp_path):
    f = tmp_path / 'two.csv'
    f.write_text('1,2\n5,0\n0,5\n2,3\n')
    r = scruples('data', 'validate', f)
    assert r.returncode != 0 and 'reads one way' in r.stdout + r.stderr
    assert read_annotated(f, counts='1,2').n_items == 3
    assert read_annotated(f, classes='a,b').n_items == 4


def test_a_label_none_is_a_missing_mark_and_none_in_lower_case_a_class(tmp_path):
    f = tmp_path / 'l.csv'
    f.write_text('item,annotator,label\n1,a,yes\n1,b,None\n2,a,no\n2,b,no\n')
    r = scruples('data', 'validate', f)
    assert r.returncode != 0 and "'None' is how R, pandas, Python" in r.stdout + r.stderr
    f.write_text('item,annotator,label\n1,a,yes\n1,b,none\n2,a,no\n2,b,no\n')
    assert 'none' in read_annotated(f).classes
