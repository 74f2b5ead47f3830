"""Issue 39, leftovers of the fourth pass mended by the lead: each test failed on main before its fix (its docstring's
first line says what the old code did)."""
import numpy as np
import pytest

from test_round4_second_pass import cli, write  # as the second pass runs a command and writes a file

ITEMS = 'a,3,2\nb,1,4\nc,2,3\nd,5,0\ne,0,5\nf,2,2\n'  # six items; their sums: 13, 16


@pytest.mark.parametrize('body', [
    'id,yes,no\n' + ITEMS + 'Total,13,16\n',        # a spreadsheet's sum row, last
    'id,yes,no\nTotal,13,16\n' + ITEMS,             # or first
    'id,yes,no\n' + ITEMS + 'z,13,16\n',            # named otherwise: the sums decide with 5 or more other rows
    'id,yes,no\na,3,2\nb,1,4\nsum,4,6\n',           # a small table: its id says it
    'yes,no\n' + ''.join(l.split(',', 1)[1] + '\n' for l in ITEMS.splitlines()) + '13,16\n',  # no id column (fast path)
])
@pytest.mark.parametrize('command', [['best'], ['data', 'validate']])
def test_a_totals_row_is_refused_not_read_as_an_item(tmp_path, body, command):
    "Old: a trailing Total row of a wide table was read as one more item with every vote of the others (exit 0)."
    p = write(tmp_path, 'votes.csv', body)
    rc, out = cli(*command, p)
    assert rc == 1 and 'row of totals' in out and 'holds the sums' in out, out


def test_a_totals_row_in_parquet_and_at_the_api(tmp_path):
    "Old: the same from a Parquet file and from `read_annotated`."
    import pandas as pd
    from scruples.annotations import read_annotated
    from scruples.core import ScruplesDataError
    rows = [l.split(',') for l in ITEMS.splitlines()] + [['TOTAL', '13', '16']]
    df = pd.DataFrame(rows, columns=['id', 'yes', 'no']).astype({'yes': int, 'no': int})
    df.to_parquet(tmp_path / 'v.parquet')
    with pytest.raises(ScruplesDataError, match="item 'TOTAL'"):
        read_annotated(tmp_path / 'v.parquet')


@pytest.mark.parametrize('body', [
    'id,yes,no\na,1,0\nb,0,1\nc,1,1\n',     # few rows: the last equals the others' sums by chance, its id says nothing
    'id,yes,no\na,1,0\nb,0,1\n',            # two rows
    'id,yes,no\n' + ITEMS + 'g,13,15\n',    # near the sums, not equal
])
def test_rows_that_only_look_like_totals_are_items(tmp_path, body):
    "A small table's last row may equal the others' sums by chance: without a totals id it stays an item."
    p = write(tmp_path, 'votes.csv', body)
    rc, out = cli('data', 'validate', p)
    assert rc == 0 and f'{body.count(chr(10)) - 1} items' in out, out


@pytest.mark.parametrize('form, flag, given, says', [
    ('long', '--classes', 'no,yes,no', "--classes names 'no' twice"),
    ('long', '--classes', ' yes, yes', "--classes names 'yes' twice"),
    ('wide', '--classes', 'no,yes,no', "--classes names 'no' twice"),
    ('wide', '--counts', 'yes,yes', "--counts names 'yes' twice"),
])
def test_a_class_named_twice_is_said_as_such(tmp_path, form, flag, given, says):
    """Old: `--classes no,yes,no` said "expected 2 or more distinct labels, got ['no', 'yes', 'no']" (long) or "column
    'no' is both a count and a count" (wide)."""
    body = ('item,annotator,label\na,x,yes\na,y,no\nb,x,no\nb,y,no\n' if form == 'long'
            else 'id,yes,no\na,3,2\nb,1,4\nc,2,2\n')
    p = write(tmp_path, 'votes.csv', body)
    rc, out = cli('best', p, flag, given)
    assert rc == 1 and says in out and 'once' in out, out


def _categorical_long(tmp_path, categories, ordered=True):
    import pandas as pd
    df = pd.DataFrame({'item': list('aabbccdd'), 'annotator': list('xyxyxyxy'),
                       'label': pd.Categorical(['low', 'high', 'high', 'high', 'low', 'low', 'high', 'low'],
                                               categories=categories, ordered=ordered)})
    df.to_parquet(tmp_path / 'cat.parquet')
    return df, str(tmp_path / 'cat.parquet')


def test_a_categorical_label_column_gives_its_own_class_order(tmp_path):
    """Old: a Parquet label column of categories low < medium < high was read in alphabetical order (high, low), and
    `--ordered` refused it as 'sorted by name'."""
    from scruples.annotations import read_annotated
    df, p = _categorical_long(tmp_path, ['low', 'medium', 'high'])
    d = read_annotated(p)
    assert d.classes == ('low', 'high') and 'categories of column label' in d.class_order and 'medium' in d.class_order
    assert read_annotated(df).classes == ('low', 'high')  # a frame in memory alike
    assert read_annotated(p, classes='high,medium,low').classes == ('high', 'medium', 'low')  # classes= still decides
    rc, out = cli('best', p, '--ordered', '--metric', 'wasserstein')
    assert rc == 0 and 'classes low/high (in the order of the categories of column label; medium never chosen' in ' '.join(
        out.split()), out
    _, p2 = _categorical_long(tmp_path, ['high', 'low'], ordered=False)  # unordered categories: their order still
    assert read_annotated(p2).classes == ('high', 'low')


# --- score --cal with predicted labels (noticed in the fifth pass, mended this stop) ------------------------------------

def _score_files(tmp_path):
    rng = np.random.default_rng(0)
    p = rng.dirichlet([1, 1], 40)
    c = np.array([rng.multinomial(5, q) for q in p])
    gold = 'id,no,yes,split\n' + ''.join(f'{i},{a},{b},{"dev" if i < 20 else "test"}\n' for i, (a, b) in enumerate(c))
    lab = np.where(p[:, 1] > 0.5, 'yes', 'no')
    pred = 'id,label\n' + ''.join(f'{i},{lab[i]}\n' for i in range(20, 40))
    cal = 'id,no,yes\n' + ''.join(f'{i},{0.8 if lab[i] == "no" else 0.2},{0.2 if lab[i] == "no" else 0.8}\n'
                                  for i in range(20))
    return write(tmp_path, 'gold.csv', gold), write(tmp_path, 'pred.csv', pred), write(tmp_path, 'cal.csv', cal)


def test_score_cal_with_predicted_labels_is_refused(tmp_path):
    "Old: `score LABELS GOLD --cal PROBS` exit 0, the same numbers as without --cal and 'calibration: none (hard predictions) (cal.csv: ...)'."
    gold, pred, cal = _score_files(tmp_path)
    q = ('--bootstrap', '0', '--ceiling-bootstrap', '0')
    rc, out = cli('score', pred, gold, *q, '--cal', cal)
    assert rc == 1 and '--cal' in out and 'predicted labels' in out and 'leave out --cal' in out, out
    rc, out = cli('score', pred, gold, *q)  # without it: scored as labels
    assert rc == 0 and 'calibration: none (hard predictions)' in out, out


def test_score_cal_gold_without_cal_is_refused(tmp_path):
    "Old: `score PRED GOLD --cal-gold FILE` without --cal: exit 0, the file never read."
    gold, pred, _ = _score_files(tmp_path)
    rc, out = cli('score', pred, gold, '--bootstrap', '0', '--ceiling-bootstrap', '0', '--cal-gold', gold)
    assert rc == 1 and '--cal-gold' in out and 'no --cal' in out, out


def test_score_predictions_refuses_a_temperature_for_hard_predictions_at_the_api():
    "Old: `score_predictions(onehot, counts, proba_cal, counts_cal, hard=True)` took proba_cal and did nothing with it."
    from scruples.evaluation import score_against_ceiling, score_predictions
    p = np.eye(2)[[0, 1, 0, 1]]
    c = np.array([[3, 1], [1, 3], [2, 2], [0, 4]])
    for f in (score_predictions, score_against_ceiling):
        with pytest.raises(ValueError, match='hard=True'):
            f(p, c, p, c, hard=True, n_boot=0)
