"""Issue 39, the seventy-sixth hostile pass (on 8f9fd6d, this stop's own rules): a `turn` or `group` numbered from 0
that falls as the votes rise was read as a class (the undone `_steadies`); `likert_1..5` beside `n_ratings` was told to
keep `n_ratings`; a long table with `--text '' --split ''` was refused as two readings; the long hint named ITEM for
`order_id`, `trial_id`, `user_id` and `doc_id` before `id` (24 sentences read as 6 documents); the doccano hint's
`--long` failed alone."""

import json

import numpy as np
import pandas as pd
import pytest
from cli_run import said

from scruples.annotations import read_annotated
from scruples.core import ScruplesDataError


def _run(*argv):
    "A command's exit status and all it printed, its lines joined (`cli_run.said`)."
    return said(*argv)


@pytest.mark.parametrize('name', ['turn', 'group'])
def test_a_number_from_0_that_falls_as_the_votes_rise_is_no_class(tmp_path, name):
    rng = np.random.default_rng(0)
    col = np.repeat([0, 1, 2], 20)
    c = np.array([rng.multinomial(k, [0.6, 0.4]) for k in 6 - col - rng.integers(0, 2, 60)])  # fewer later
    d = pd.DataFrame(c, columns=['acceptable', 'unacceptable'])
    d.insert(0, 'id', [f'i{i}' for i in range(60)])
    d[name] = col
    d.to_csv(tmp_path / 'w.csv', index=False)
    with pytest.raises(ScruplesDataError, match=f"'{name}'"):
        read_annotated(tmp_path / 'w.csv')


def test_a_likert_scale_beside_its_totals_is_told_to_leave_the_totals_out(tmp_path):
    rng = np.random.default_rng(1)
    c = np.array([rng.multinomial(k, [0.1, 0.2, 0.3, 0.25, 0.15]) for k in rng.integers(3, 8, 50)])
    d = pd.DataFrame(c, columns=[f'likert_{i}' for i in range(1, 6)])
    d.insert(0, 'id', [f'i{i}' for i in range(50)])
    d['n_ratings'] = c.sum(1)
    d.to_csv(tmp_path / 'l.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'l.csv'))
    assert rc != 0 and 'leave it out: --counts likert_1,likert_2,likert_3,likert_4,likert_5' in out, out


def test_a_long_table_without_its_text_and_split_reads(tmp_path):
    rows = [{'item': i, 'annotator': f'w{k}', 'label': 'ABC'[(i + k) % 3], 'text': f'text {i}', 'split': 'test'}
            for i in range(10) for k in range(3)]
    pd.DataFrame(rows).to_json(tmp_path / 'l.jsonl', orient='records', lines=True)
    rc, out = _run('agree', str(tmp_path / 'l.jsonl'), '--text', '', '--split', '', '--bootstrap', '0')
    assert rc == 0 and '10 items, 30 votes by 3 annotators' in out, out


@pytest.mark.parametrize('name', ['order_id', 'sequence_id', 'trial_id', 'user_id'])
def test_the_only_item_column_is_offered_whatever_its_words(tmp_path, name):
    rows = [(f'x{i}', f'w{k}', 'yes' if (i + k) % 3 else 'no') for i in range(10) for k in range(3)]
    pd.DataFrame(rows, columns=[name, 'annotator', 'label']).to_csv(tmp_path / 'p.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'p.csv'))
    assert rc != 0 and f'--item {name}' in out, out
    rc, out = _run('data', 'validate', str(tmp_path / 'p.csv'), '--long', '--item', name)
    assert rc == 0 and '30 votes by 3 annotators' in out, out


def test_the_ids_come_before_a_documents_id(tmp_path):
    rows = [(s, f'd{s // 4}', s % 4, f'w{k}', 'yes' if (s + k) % 2 else 'no') for s in range(24) for k in range(3)]
    pd.DataFrame(rows, columns=['id', 'doc_id', 'sentence_id', 'annotator', 'label']).to_csv(tmp_path / 'd.csv',
                                                                                          index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'd.csv'))
    assert rc != 0 and '--item id' in out and '--item doc_id' not in out, out
    rc, out = _run('data', 'validate', str(tmp_path / 'd.csv'), '--long', '--item', 'id')
    assert rc == 0 and '24 items, 72 votes by 3 annotators' in out, out


def test_the_doccano_hint_names_the_item_and_the_paste_after_explode_reads(tmp_path):
    recs = [{'id': i, 'text': f'sentence {i}', 'label': ['POS' if (i + k) % 2 else 'NEG'], 'user': f'u{k}'}
            for i in range(6) for k in range(2)]
    (tmp_path / 'd.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in recs))
    rc, out = _run('data', 'validate', str(tmp_path / 'd.jsonl'))
    assert rc != 0 and 'explode' in out and '--long, --item id, --annotator user' in out, out
    pd.read_json(tmp_path / 'd.jsonl', lines=True).explode('label').to_json(tmp_path / 'e.jsonl', orient='records',
                                                                             lines=True)
    rc, out = _run('data', 'validate', str(tmp_path / 'e.jsonl'), '--long', '--item', 'id', '--annotator', 'user')
    assert rc == 0 and '6 items, 12 votes by 2 annotators' in out, out
