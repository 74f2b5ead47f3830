"""Twentieth hostile pass: numbers a user cannot trust that the earlier passes did not meet. Each test runs the CLI as
a user does (a subprocess) or the API, asserts the right behaviour, and failed on the code it was written against."""
import json

import pytest

from cli_run import scruples


# --- SILENT WRONG (text and JSON disagree): agree prints its table with 4 significant digits, so a count of 10,000 or
# --- more came out in exponent notation, its last digits lost: 12,345 votes printed 'n_annotations 1.234e+04' (12,340;
# --- the real Anecdotes dev label counts: 52,433 votes as 5.243e+04), where --json says 12345. analyze's summary prints
# --- a whole number as one ('10751, not 1.075e+04'); agree did not

def test_agree_text_prints_a_count_of_votes_whole(tmp_path):
    import random
    random.seed(1)
    counts = tmp_path/'counts.json'
    counts.write_text(json.dumps([[a, 5 - a] for a in (random.randint(0, 5) for _ in range(2469))]))  # 12,345 votes
    j = scruples('agree', counts, '--bootstrap', '0', '--json')
    assert j.returncode == 0, j.stderr
    assert {x['metric']: x['value'] for x in json.loads(j.stdout)['overall']}['n_annotations'] == 12345
    r = scruples('agree', counts, '--bootstrap', '0')
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith('n_annotations'))
    assert line.split()[1].replace(',', '') == '12345', line  # 'n_annotations  1.234e+04  NaN  NaN'


# --- DATA MIXED (API): best's prior_counts (the counts to choose and fit the prior on: every item of a dataset whose
# --- test items are scored) was taken by position: a frame (or what read_annotated returns) naming the same classes in
# --- another order fitted class c's prior to class a: cross-entropy 0.948 where the classes matched by name give 0.755.
# --- `y_true` and a model's probabilities are matched to the data by name (in_order_of); the prior's counts were not

def test_best_matches_prior_counts_to_the_classes_by_name(tmp_path):
    import numpy as np
    import pandas as pd

    from scruples.annotations import read_annotated
    from scruples.best import best
    rng = np.random.default_rng(0)
    c = np.array([rng.multinomial(5, q) for q in rng.dirichlet([4, 1, 1], 200)])
    full = pd.DataFrame(c, columns=['a', 'b', 'c'])
    test = full.iloc[:50]
    want = best(test, metrics='xentropy', n_boot=0, prior_counts=full)
    got = best(test, metrics='xentropy', n_boot=0, prior_counts=full[['c', 'b', 'a']])
    assert got.estimate.iloc[0] == pytest.approx(want.estimate.iloc[0], abs=1e-9), (got, want)  # 0.948 for 0.755
    # the same through the reader: the full file written with its count columns in another order
    full.assign(id=[f'i{i}' for i in range(200)])[['id', 'c', 'b', 'a']].to_csv(tmp_path/'full.csv', index=False)
    full.iloc[:50].assign(id=[f'i{i}' for i in range(50)]).to_csv(tmp_path/'test.csv', index=False)
    t, f = read_annotated(tmp_path/'test.csv'), read_annotated(tmp_path/'full.csv')
    assert t.classes == ('a', 'b', 'c') and f.classes == ('c', 'b', 'a')
    got = best(t, metrics='xentropy', n_boot=0, prior_counts=f)
    assert got.estimate.iloc[0] == pytest.approx(want.estimate.iloc[0], abs=1e-9), got


# --- UNCLEAR (a refusal that does not say what to do): score --cal-gold with the same classes as GOLD, its count columns
# --- in another order (yes,no,maybe beside maybe,no,yes), was refused: "classes ['yes', 'no', 'maybe'] differ from
# --- gold.csv's ['maybe', 'no', 'yes']": they do not differ, and nothing said that --classes reads both files in one
# --- order (the run then succeeds); the predictions files beside them are matched to the classes by name

def _split_gold(tmp_path):
    import numpy as np
    rng = np.random.default_rng(2)
    gold, cal, pred, pcal = ['id,maybe,no,yes'], ['id,yes,no,maybe'], ['id,maybe,no,yes'], ['id,maybe,no,yes']
    for i in range(40):
        c = rng.multinomial(5, rng.dirichlet([1, 1, 1]))
        c = c if c.sum() else np.array([1, 0, 0])
        p = rng.dirichlet([2, 2, 2]).round(4)
        p[2] = round(1 - p[0] - p[1], 4)
        if i < 25:
            gold.append(f'q{i},{c[0]},{c[1]},{c[2]}')
            pred.append(f'q{i},{p[0]},{p[1]},{p[2]}')
        else:
            cal.append(f'q{i},{c[2]},{c[1]},{c[0]}')
            pcal.append(f'q{i},{p[0]},{p[1]},{p[2]}')
    for name, rows in (('gold.csv', gold), ('cal_gold.csv', cal), ('pred.csv', pred), ('cal.csv', pcal)):
        (tmp_path/name).write_text('\n'.join(rows) + '\n')


def test_score_cal_gold_with_its_columns_in_another_order(tmp_path):
    _split_gold(tmp_path)
    fast = ('--bootstrap', '20', '--ceiling-bootstrap', '10', '--samples', '300', '--json')
    args = ('score', tmp_path/'pred.csv', tmp_path/'gold.csv', '--cal', tmp_path/'cal.csv', '--cal-gold',
            tmp_path/'cal_gold.csv', *fast)
    ordered = scruples(*args, '--classes', 'maybe,no,yes')
    assert ordered.returncode == 0, ordered.stderr
    r = scruples(*args)
    if r.returncode == 0:  # matched by name: the numbers of the run with the classes in one order
        assert json.loads(r.stdout)['metrics'] == json.loads(ordered.stdout)['metrics']
    else:  # or refused, saying what to do
        assert '--classes' in r.stderr, r.stderr


# --- UNCLEAR (the package's own output refused): AnnotatedData.long() of a wide table writes an annotator column of
# --- None (its docstring: 'None when unknown'); saved as CSV, JSON lines or Parquet and read again (scruples best
# --- long.csv) it was refused: "field 'annotator': expected a non-empty string or a whole number, got ''", naming the
# --- first line, with nothing saying that the column holds no annotator on any line and that --annotator '' reads the
# --- votes without annotator ids

@pytest.mark.parametrize('suffix', ['csv', 'jsonl', 'parquet'])
def test_long_export_of_a_wide_table_reads_back(tmp_path, suffix):
    from scruples.annotations import read_annotated
    (tmp_path/'wide.csv').write_text('id,yes,no\nq1,3,1\nq2,0,4\nq3,2,2\nq4,1,3\nq5,4,1\n')
    long = read_annotated(tmp_path/'wide.csv').long()
    path = tmp_path/f'long.{suffix}'
    {'csv': lambda p: long.to_csv(p, index=False), 'jsonl': lambda p: long.to_json(p, orient='records', lines=True),
     'parquet': lambda p: long.to_parquet(p)}[suffix](path)
    r = scruples('best', path, '--bootstrap', '0', '--samples', '200', '--json')
    if r.returncode == 0:
        assert json.loads(r.stdout)['estimates'][0]['n_examples'] == 5
    else:
        assert "--annotator ''" in r.stderr, r.stderr  # what to do, not only which cell


# --- SILENT WRONG (a number that moves with the file's form): --ordered takes the class order as the scale. The long
# --- form sorts labels 1..10 as numbers; the wide table pandas makes from the same votes (groupby + unstack, or
# --- crosstab) sorts its columns as text: 1,10,2,...,9, and the wide reading took that column order as the scale, in
# --- silence (10 between 1 and 2): ordinal alpha 0.388 where the long form gives 0.798, Wasserstein 0.638 for 0.454.
# --- The long form's labels sorted by name are refused under --ordered ('a scale of the alphabet'); the wide columns
# --- named by numbers out of their order were not

def _ratings(tmp_path):
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(4)
    rows = []
    for i in range(40):
        m = rng.integers(1, 11)
        rows += [(f'q{i:02d}', a, str(int(np.clip(m + rng.integers(-2, 3), 1, 10)))) for a in 'abcde']
    d = pd.DataFrame(rows, columns=['item', 'annotator', 'label'])
    d.to_csv(tmp_path/'long.csv', index=False)
    wide = d.groupby(['item', 'label']).size().unstack(fill_value=0)
    assert list(wide.columns[:3]) == ['1', '10', '2']  # as pandas sorts text
    wide.reset_index().to_csv(tmp_path/'wide.csv', index=False)


def test_ordered_wide_columns_named_by_numbers_out_of_order(tmp_path):
    _ratings(tmp_path)
    want = scruples('agree', tmp_path/'long.csv', '--ordered', '--bootstrap', '0', '--json')
    assert want.returncode == 0, want.stderr
    ordinal = lambda out: {x['metric']: x['value'] for x in json.loads(out)['overall']}['krippendorff_alpha_ordinal']
    r = scruples('agree', tmp_path/'wide.csv', '--ordered', '--bootstrap', '0', '--json')
    if r.returncode == 0:  # the scale of the numbers, as the long form reads it
        assert ordinal(r.stdout) == pytest.approx(ordinal(want.stdout), abs=1e-9), (ordinal(r.stdout), ordinal(want.stdout))
    else:  # or refused, saying how to give the order
        assert '--classes' in r.stderr, r.stderr
    b = scruples('best', tmp_path/'wide.csv', '--ordered', '--bootstrap', '0', '--metric', 'wasserstein', '--json')
    bl = scruples('best', tmp_path/'long.csv', '--ordered', '--bootstrap', '0', '--metric', 'wasserstein', '--json')
    assert bl.returncode == 0, bl.stderr
    if b.returncode == 0:
        assert json.loads(b.stdout)['estimates'] == json.loads(bl.stdout)['estimates']  # 0.6380 for 0.4537
    else:
        assert '--classes' in b.stderr, b.stderr


# --- UNCLEAR / REFUSED VALID INPUT (a reading that moves with the file's form): a yes/no task whose labels are booleans
# --- (pandas writes a bool column as true/false in JSON lines, as a boolean in Parquet) was refused: "field 'label':
# --- expected a non-empty string or a whole number, got True", nothing saying what to do; the same frame written as
# --- CSV (True/False as text) reads as classes False/True. A boolean count is rightly refused; a boolean label is a class

@pytest.mark.parametrize('suffix', ['jsonl', 'parquet'])
def test_boolean_labels_read_as_in_a_csv(tmp_path, suffix):
    import pandas as pd
    d = pd.DataFrame({'item': [f'q{i // 3}' for i in range(30)], 'annotator': ['x', 'y', 'z'] * 10,
                      'label': [bool((i * 7) % 5 < 2) for i in range(30)]})
    d.to_csv(tmp_path/'votes.csv', index=False)
    path = tmp_path/f'votes.{suffix}'
    d.to_json(path, orient='records', lines=True) if suffix == 'jsonl' else d.to_parquet(path)
    want = scruples('agree', tmp_path/'votes.csv', '--bootstrap', '0', '--json')
    assert want.returncode == 0, want.stderr
    r = scruples('agree', path, '--bootstrap', '0', '--json')
    if r.returncode == 0:
        assert json.loads(r.stdout)['overall'] == json.loads(want.stdout)['overall']
    else:  # refused: then saying what the cell is and what to do (the message, not the test's folder name)
        said = r.stderr.replace(str(tmp_path), 'DIR').lower()
        assert 'boolean' in said, r.stderr  # 'got True': a cell the reader knows is a boolean, not said


# --- SILENT WRONG (a warning `score` gives, left out): analyze scores a predictions file on the test items as `score`
# --- does (score_against_ceiling), and left out the warnings it returns: random predictions calibrated in-sample on 10
# --- test items got temperature 1000 and smoothing 1, and analyze printed 'cross-entropy 1.099 [1.099, 1.099]', 'expected
# --- calibration error 0 [0, 0]' (the uniform distribution's numbers) as the model's, where `scruples score` on the same
# --- items and probabilities warns 'made every prediction within 0.01 of uniform: its cross-entropy and soft metrics are
# --- the uniform distribution's, not its own probabilities'

def _long_votes():
    """A long table: 40 items, 5 labels each by 6 annotators, 3 classes (yes, no, maybe)."""
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(1)
    rows = []
    for i in range(40):
        p = rng.dirichlet([1, 1, 1])
        rows += [(f'q{i}', a, rng.choice(['yes', 'no', 'maybe'], p=p)) for a in rng.choice(list('abcdef'), 5, replace=False)]
    return pd.DataFrame(rows, columns=['item', 'annotator', 'label'])


def test_analyze_says_the_predictions_file_warnings(tmp_path):
    import csv
    import math

    import numpy as np
    import pandas as pd
    d = _long_votes()
    w = d.groupby(['item', 'label']).size().unstack(fill_value=0).reset_index().rename(columns={'item': 'id'})
    w.to_csv(tmp_path/'wide.csv', index=False)
    pr = pd.DataFrame(np.random.default_rng(2).dirichlet([2, 2, 2], len(w)), columns=['maybe', 'no', 'yes'])
    pr.insert(0, 'id', w.id)
    pr.to_csv(tmp_path/'pred.csv', index=False)
    r = scruples('analyze', tmp_path/'wide.csv', '--out', tmp_path/'out', '--bootstrap', '20', '--predictions',
                 tmp_path/'pred.csv', timeout=600)
    assert r.returncode == 0, r.stderr
    with open(tmp_path/'out'/'summary.csv') as f:
        rows = [x for x in csv.DictReader(f) if x['section'] == 'predictions file']
    xent = next(x for x in rows if x['quantity'].endswith('cross-entropy'))
    assert abs(float(xent['value']) - math.log(3)) < 1e-6, xent  # the uniform distribution's cross-entropy
    said = ' '.join(x['note'] for x in rows) + r.stdout + r.stderr
    assert 'uniform' in said, said  # score: 'made every prediction within 0.01 of uniform'


# --- DATA MIXED (every vote counted twice): a wide table with a totals column beside the count columns (a spreadsheet's
# --- SUM column, pandas' df['total'] = df.sum(axis=1)) was read with 'total' as a class holding half of every item's
# --- votes: it won the majority of 34 of 40 items, and best printed accuracy 0.85 and macro F1 0.23 where the file's
# --- votes give 0.73 and 0.73. A totals ROW (the column sums) is refused: 'a spreadsheet's sum row read as an item
# --- would double every vote'; the column that does the same on every row was read in silence

def test_wide_table_with_a_totals_column(tmp_path):
    import numpy as np
    rng = np.random.default_rng(1)
    rows, plain = ['id,maybe,no,yes,total'], ['id,maybe,no,yes']
    for i in range(40):
        c = rng.multinomial(5, rng.dirichlet([1, 1, 1]))
        rows.append(f'q{i},{c[0]},{c[1]},{c[2]},{c.sum()}')
        plain.append(f'q{i},{c[0]},{c[1]},{c[2]}')
    (tmp_path/'votes.csv').write_text('\n'.join(rows) + '\n')
    (tmp_path/'plain.csv').write_text('\n'.join(plain) + '\n')
    fast = ('--bootstrap', '0', '--samples', '500', '--json')
    want = scruples('best', tmp_path/'plain.csv', *fast)
    assert want.returncode == 0, want.stderr
    r = scruples('best', tmp_path/'votes.csv', *fast)
    if r.returncode == 0:  # the column left out (and said), the votes counted once
        got = json.loads(r.stdout)
        assert got['classes'] == ['maybe', 'no', 'yes'], got['classes']  # ['maybe', 'no', 'yes', 'total']
        assert got['estimates'] == json.loads(want.stdout)['estimates']
    else:  # or refused, naming the column
        assert "'total'" in r.stderr.replace(str(tmp_path), 'DIR') or ' total ' in r.stderr, r.stderr


# --- DATA LOST (a reading that drops most votes): the long form aggregated to one row per item and label with its
# --- number of votes (pandas' df.groupby(['item', 'label']).size().reset_index(name='count'), a pivot's stack, SQL's
# --- GROUP BY ... COUNT(*)) was read as one vote per row: 200 votes became 85, 34 of 40 items tied, the prior a point
# --- mass ('no variation beyond multinomial noise'), every number of best wrong; the read line only listed 'columns
# --- not read: count'. Whole numbers beside item and label in a table with one row per (item, label): the votes

@pytest.mark.parametrize('name', ['count', 'n'])
def test_long_form_with_a_count_per_row(tmp_path, name):
    d = _long_votes()
    d.groupby(['item', 'label']).size().reset_index(name=name).to_csv(tmp_path/'agg.csv', index=False)
    d.to_csv(tmp_path/'long.csv', index=False)
    fast = ('--bootstrap', '0', '--samples', '500', '--json')
    want = scruples('best', tmp_path/'long.csv', *fast)
    assert want.returncode == 0, want.stderr
    r = scruples('best', tmp_path/'agg.csv', *fast)
    if r.returncode == 0:  # the counts read as votes
        got = json.loads(r.stdout)
        assert '200 votes' in got['read'], got['read']  # 'long: 40 items, 85 votes, ...; columns not read: count'
        assert got['estimates'] == json.loads(want.stdout)['estimates']
    else:  # or refused, naming the column of counts
        assert f"'{name}'" in r.stderr.replace(str(tmp_path), 'DIR'), r.stderr


# --- the same for score_against_ceiling's prior_counts and best_by_group's prior_data (the lead's, from the report) ---

def test_score_and_groups_match_the_priors_classes_by_name():
    import numpy as np
    import pandas as pd

    from scruples.evaluation import score_against_ceiling
    rng = np.random.default_rng(0)
    full = pd.DataFrame([rng.multinomial(5, q) for q in rng.dirichlet([4, 1, 1], 200)], columns=['a', 'b', 'c'])
    test = full.iloc[:50]
    p = rng.dirichlet([1, 1, 1], 50)
    kw = dict(n_boot=0, ceiling_boot=0, n_samples=200, hard=False)
    want = score_against_ceiling(p, test, prior_counts=full, **kw)
    got = score_against_ceiling(p, test, prior_counts=full[['c', 'b', 'a']], **kw)
    assert np.allclose(got.ceiling, want.ceiling, equal_nan=True), (got.ceiling, want.ceiling)


def test_best_by_group_matches_prior_data_classes_by_name(tmp_path):
    import numpy as np

    from scruples.annotations import read_annotated
    from scruples.perspectives import best_by_group, simulate_perspectives
    long, ann = simulate_perspectives(n_items=40, groups={'a': 2, 'b': 2}, seed=3)
    long.to_csv(tmp_path/'long.csv', index=False)
    data = read_annotated(tmp_path/'long.csv')
    other = read_annotated(tmp_path/'long.csv', classes=list(reversed(data.classes)))  # every item, classes reversed
    assert other.classes == tuple(reversed(data.classes))
    groups = ann.set_index('annotator').group.reindex([str(a) for a in data.annotators]).to_numpy()
    kw = dict(metrics=['xentropy'], n_boot=0)
    want = best_by_group(data, groups, prior_data=data, **kw)
    got = best_by_group(data, groups, prior_data=other, **kw)
    assert np.allclose(got.estimate, want.estimate), (got, want)


def test_a_class_with_half_of_every_items_votes_is_a_class(tmp_path):
    # the totals column's rule needs its name too: two votes per item, one always 'a', or a table of one repeated row
    # (the readers' benchmark: 3,2,0,1,0 on every row) are data, not a column of totals
    rows = ['id,a,b,c'] + [f'q{i},1,{i % 2},{1 - i % 2}' for i in range(20)]
    (tmp_path/'half.csv').write_text('\n'.join(rows) + '\n')
    r = scruples('best', tmp_path/'half.csv', '--bootstrap', '0', '--metric', 'xentropy', '--json')
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)['classes'] == ['a', 'b', 'c']
