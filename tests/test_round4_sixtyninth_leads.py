"""Issue 39, the sixty-ninth hostile pass (on 4778550): a `groupby(['item', 'label']).size()` whose count column has
no count's name (`k`, `hits`, `support`) was read as one vote a row (75 votes of 136, silent); an item's other numbers
`pair`, `n_turns`, `n_sentences`, `topic` were classes; one-hot columns per annotator named for people (`alice_pos`,
`bob_neg`) were four classes; a long table's `worker_id`, `WorkerId`, `rater`, `coder` was not read (a judgment given
twice counted twice; `--by` refused); refusals named flags that failed when pasted (`--item votes` of a melt, an
`--annotator-columns` list of a Prolific export, `--item text` of a table keyed by its text); a JSON list of records
was refused as a list of counts."""

import json

import numpy as np
import pandas as pd
import pytest
from cli_run import said

from scruples.annotations import read_annotated
from scruples.perspectives import read_annotators


def _run(*argv):
    "A command's exit status and all it printed, its lines joined (`cli_run.said`)."
    return said(*argv)


def _long(seed=5, n=30):
    rng = np.random.default_rng(seed)
    return pd.DataFrame([(f'it{i}', f'w{a}', rng.choice(['yes', 'no', 'maybe']))
                         for i in range(n) for a in rng.choice(20, rng.integers(3, 7), replace=False)],
                        columns=['item', 'annotator', 'label'])


@pytest.mark.parametrize('name', ['k', 'hits', 'support', 'score'])
def test_a_groupby_size_under_any_name_is_refused_and_long_reads_it_as_asked(tmp_path, name):
    g = _long().groupby(['item', 'label']).size().reset_index(name=name)
    g.to_csv(tmp_path / 'g.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'g.csv'))
    assert rc != 0 and 'pivot it' in out and 'say so, --long' in out, out
    d = read_annotated(tmp_path / 'g.csv', form='long')  # another number of each vote: one vote a row, as asked
    assert d.counts.sum() == len(g)
    wide = g.pivot_table(index='item', columns='label', values=name, aggfunc='sum', fill_value=0).reset_index()
    assert read_annotated(wide).counts.sum() == g[name].sum()


def test_one_vote_a_row_beside_a_confidence_of_annotators_who_agree_is_read(tmp_path):
    v = _long().drop(columns='annotator')
    v['confidence'] = np.random.default_rng(0).integers(1, 6, len(v))
    v.to_csv(tmp_path / 'v.csv', index=False)
    assert read_annotated(tmp_path / 'v.csv').counts.sum() == len(v)  # labels repeat within items: votes


@pytest.mark.parametrize('name,hi', [('pair', 25), ('n_turns', 12), ('n_sentences', 9), ('topic', 10)])
def test_an_items_other_numbers_are_no_class(tmp_path, name, hi):
    rng = np.random.default_rng(6)
    c = rng.integers(0, 4, size=(50, 3))
    c[:, 0] += 1
    d = pd.DataFrame(c, columns=['yes', 'no', 'maybe'])
    d.insert(0, 'id', [f'i{i}' for i in range(50)])
    d[name] = rng.integers(1, hi, 50)
    d.to_csv(tmp_path / 'w.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'w.csv'))
    assert rc != 0 and '--counts yes,no,maybe' in out, out
    rc, out = _run('data', 'validate', str(tmp_path / 'w.csv'), '--counts', 'yes,no,maybe')
    assert rc == 0 and f'columns not read: {name}' in out, out


@pytest.mark.parametrize('first', [True, False])
def test_one_hot_columns_of_people_are_no_classes(tmp_path, first):
    rng = np.random.default_rng(2)
    rows = []
    for i in range(12):
        a, b = rng.choice(['pos', 'neg']), rng.choice(['pos', 'neg'])
        rows.append({'id': f's{i}', **{(f'{p}_{lab}' if first else f'{lab}_{p}'): int(x == lab)
                                        for p, x in (('alice', a), ('bob', b)) for lab in ('pos', 'neg')}})
    pd.DataFrame(rows).to_csv(tmp_path / 'h.csv', index=False)
    pattern = '{annotator}_{label}' if first else '{label}_{annotator}'
    rc, out = _run('data', 'validate', str(tmp_path / 'h.csv'))
    assert rc != 0 and f"--annotator-columns '{pattern}'" in out, out
    d = read_annotated(tmp_path / 'h.csv', annotator_columns=pattern)
    assert d.counts.sum() == 24 and sorted(d.classes) == ['neg', 'pos']


def test_zero_one_counts_of_one_vote_an_item_stay_classes(tmp_path):
    rng = np.random.default_rng(3)
    c = np.eye(4, dtype=int)[rng.integers(0, 4, 20)]
    d = pd.DataFrame(c, columns=['strong_yes', 'weak_yes', 'strong_no', 'weak_no'])
    d.insert(0, 'id', [f'i{i}' for i in range(20)])
    d.to_csv(tmp_path / 'c.csv', index=False)
    assert read_annotated(tmp_path / 'c.csv').classes == ('strong_yes', 'weak_yes', 'strong_no', 'weak_no')


def test_a_melt_of_counts_is_hinted_its_ids_and_the_pivot(tmp_path):
    rng = np.random.default_rng(1)
    b = pd.DataFrame(rng.integers(1, 5, size=(40, 3)), columns=['author', 'other', 'info'])
    b.insert(0, 'id', [f'q{i}' for i in range(40)])
    b.melt(id_vars='id', var_name='label', value_name='votes').to_csv(tmp_path / 'm.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'm.csv'))
    assert rc != 0 and '--item id' in out and '--item votes' not in out and "values='votes'" in out, out


@pytest.mark.parametrize('col', ['worker_id', 'WorkerId', 'rater', 'coder', 'judge', 'user', 'annotator_id', 'labeler'])
def test_a_column_named_for_annotators_gives_the_annotators(tmp_path, col):
    rows = [('s1', 'w1', 'yes'), ('s1', 'w1', 'yes'), ('s1', 'w2', 'no'), ('s2', 'w1', 'no'), ('s2', 'w2', 'no')]
    pd.DataFrame(rows, columns=['item', col, 'label']).to_csv(tmp_path / 'r.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'r.csv'))
    assert rc != 0 and f"field '{col}'" in out and '--repeats' in out, out  # a judgment given twice: asked
    d = read_annotated(tmp_path / 'r.csv', repeats='first')
    assert d.counts.sum() == 4 and f'annotator column {col}' in d.report
    pd.DataFrame(rows[1:], columns=['item', col, 'label']).to_csv(tmp_path / 'o.csv', index=False)
    pd.DataFrame({col: ['w1', 'w2'], 'gender': ['f', 'm']}).to_csv(tmp_path / 'a.csv', index=False)
    rc, out = _run('best', str(tmp_path / 'o.csv'), '--annotators', str(tmp_path / 'a.csv'), '--by', 'gender',
                   '--bootstrap', '0', '--samples', '20', '--metric', 'xentropy')
    assert 'needs annotator ids' not in out, out


def test_a_posts_author_beside_its_votes_is_no_annotator(tmp_path):
    rows = [(f'p{i}', f'u{i}', lab) for i in range(6) for lab in ('yes', 'no', 'yes')]  # `user`: each post's author
    pd.DataFrame(rows, columns=['item', 'user', 'label']).to_csv(tmp_path / 'p.csv', index=False)
    d = read_annotated(tmp_path / 'p.csv')
    assert d.counts.sum() == 18 and 'no annotator column' in d.report and 'columns not read: user' in d.report


def test_a_prolific_export_is_hinted_the_flags_that_read_it(tmp_path):
    rng = np.random.default_rng(4)
    p = pd.DataFrame([(f's{i}', a, rng.choice(['yes', 'no'])) for i in range(8) for a in ('u1', 'u2', 'u3')],
                     columns=['item_id', 'PROLIFIC_PID', 'response'])
    p['age'] = rng.integers(18, 70, len(p))
    p.to_csv(tmp_path / 'p.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'p.csv'))
    flags = ['--long', '--item', 'item_id', '--annotator', 'PROLIFIC_PID', '--label', 'response']
    assert rc != 0 and '--long, --item item_id, --annotator PROLIFIC_PID, --label response' in out, out
    rc, out = _run('data', 'validate', str(tmp_path / 'p.csv'), *flags)
    assert rc == 0 and '24 votes by 3 annotators' in out, out
    pd.DataFrame({'PROLIFIC_PID': ['u1', 'u2', 'u3'], 'gender': ['f', 'm', 'f']}).to_csv(tmp_path / 'a.csv',
                                                                                           index=False)
    assert sorted(read_annotators(tmp_path / 'a.csv').index) == ['u1', 'u2', 'u3']


def test_a_long_table_keyed_by_its_text_reads_with_the_flag_its_refusal_names(tmp_path):
    rows = [(f'text {i}', a, lab) for i in range(8) for a, lab in (('u1', 'yes'), ('u2', 'no'), ('u3', 'yes'))]
    pd.DataFrame(rows, columns=['text', 'annotator', 'label']).to_csv(tmp_path / 't.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 't.csv'))
    assert rc != 0 and '--item text' in out, out
    for extra in ([], ['--text', '']):
        rc, out = _run('data', 'validate', str(tmp_path / 't.csv'), '--long', '--item', 'text', *extra)
        assert rc == 0 and '8 items' in out and '24 votes' in out, out
    with pytest.raises(ValueError, match='both the item id and the text'):  # both named: one role a column
        read_annotated(tmp_path / 't.csv', form='long', item='text', text='text')


def test_the_two_readings_of_a_table_beside_an_annotator_column_are_asked_and_long_reads_it(tmp_path):
    """(An annotator column settled the two readings at cc4f288; a column named for annotators may hold a total beside
    counts, `raters`: the seventy-first pass. Asked again, `--long` reads it.)"""
    pd.DataFrame({'item': ['s1', 's1', 's2', 's2'], 'annotator': ['a', 'b', 'a', 'b'], 'label': ['yes', 'no', 'no', 'no'],
                  'confidence': [3, 4, 2, 5], 'created_at': ['2023-01-01'] * 4}).to_csv(tmp_path / 'c.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'c.csv'))
    assert rc != 0 and 'two readings' in out and '--long' in out, out
    d = read_annotated(tmp_path / 'c.csv', form='long')
    assert d.counts.sum() == 4 and 'long' in d.report


def test_a_json_list_of_records_is_a_table(tmp_path):
    recs = [{'item': f'i{i}', 'annotator': f'a{j}', 'label': ['yes', 'no'][(i * j) % 2]} for i in range(4)
            for j in range(3)]
    (tmp_path / 'r.json').write_text(json.dumps(recs, indent=1))
    d = read_annotated(tmp_path / 'r.json')
    assert d.counts.sum() == 12 and d.counts.shape == (4, 2)
    pd.DataFrame({'id': ['a', 'b'], 'yes': [3, 1], 'no': [1, 2]}).to_json(tmp_path / 'w.json', orient='records')
    assert read_annotated(tmp_path / 'w.json').counts.tolist() == [[3, 1], [1, 2]]
    (tmp_path / 'bad.json').write_text('[{"id": "a", "yes": 3, "no": 1},\n [1, 2]]')
    rc, out = _run('data', 'validate', str(tmp_path / 'bad.json'))
    assert rc != 0 and 'bad.json:2' in out and 'a record' in out, out
    (tmp_path / 'c.json').write_text('[[3, 2], [1, 4]]')  # a list of count lists, as before
    assert read_annotated(tmp_path / 'c.json').counts.tolist() == [[3, 2], [1, 4]]
