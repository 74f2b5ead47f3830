"""Issue 39, the seventy-seventh hostile pass (on a87acd7, this stop's final rules): a long hint named a column of one
value as the item (`stimulus`, the same prompt on every row: the paste read 1 item), passed over `index`, `idx` and
`seq` by name (ITEM, where the old hint's `--item index` read right), and named each row's own id (`annotation_id`,
`row_id`: items of one vote) beside a label and ids. The hint's item now repeats across the rows, is not one a row,
and a trial's place in the session is named only where nothing else is."""

import numpy as np
import pandas as pd
import pytest
from cli_run import hinted_flags, said


def _run(*argv):
    "A command's exit status and all it printed, its lines joined (`cli_run.said`)."
    return said(*argv)


def _hint_then_paste(path, expect_item, expect):
    rc, out = _run('data', 'validate', str(path))
    assert rc != 0 and f'--item {expect_item}' in out, out
    flags = hinted_flags(out)
    rc, out = _run('data', 'validate', str(path), *flags)
    assert rc == 0 and expect in out, out


def _votes(n_items=8, n_people=3, seed=0):
    rng = np.random.default_rng(seed)
    return [(i, k, rng.choice(['pos', 'neg'])) for i in range(n_items) for k in range(n_people)]


def test_a_prompt_the_same_on_every_row_is_not_the_item(tmp_path):
    rows = [{'participant': f'p{k}', 'stimulus': '<p>Is this sentence acceptable?</p>', 'sentence_id': f's{i}',
             'response': lab} for i, k, lab in _votes()]
    pd.DataFrame(rows).to_csv(tmp_path / 'j.csv', index=False)
    _hint_then_paste(tmp_path / 'j.csv', 'sentence_id', '8 items, 24 votes by 3 annotators')


@pytest.mark.parametrize('name', ['index', 'idx', 'seq'])
def test_an_item_column_named_index_or_seq_is_offered(tmp_path, name):
    rows = [{name: f'a{i}' if name != 'seq' else 'ACGT' * 2 + 'ACGT'[i % 4] + str(i), 'annotator': f'w{k}',
             'label': lab} for i, k, lab in _votes()]
    pd.DataFrame(rows).to_csv(tmp_path / 'x.csv', index=False)
    _hint_then_paste(tmp_path / 'x.csv', name, '8 items, 24 votes by 3 annotators')


@pytest.mark.parametrize('own', ['annotation_id', 'row_id'])
def test_each_rows_own_id_is_not_offered_as_the_item_beside_a_label_and_ids(tmp_path, own):
    rows = [{own: 500 + r, 'task_id': f't{i}', 'annotator_id': f'a{k}', 'label': lab}
            for r, (i, k, lab) in enumerate(_votes())]
    pd.DataFrame(rows).to_csv(tmp_path / 'l.csv', index=False)
    _hint_then_paste(tmp_path / 'l.csv', 'task_id', '8 items, 24 votes by 3 annotators')


def test_a_jspsych_export_without_an_items_name_offers_its_stimuli_not_the_trials_place(tmp_path):
    rng = np.random.default_rng(1)
    rows = []
    for k in range(4):
        for t, s in enumerate(rng.permutation(6)):
            rows.append({'trial_index': t, 'sound': f's{s}', 'response': rng.choice(['a', 'b']), 'participant': f'p{k}',
                         'PROLIFIC_PID': f'5f{k}abc'})
    pd.DataFrame(rows).to_csv(tmp_path / 's.csv', index=False)
    _hint_then_paste(tmp_path / 's.csv', 'sound', '6 items, 24 votes by 4 annotators')
