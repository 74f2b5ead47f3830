"""Issue 39, the seventy-third hostile pass (on 901fdf5): a jsPsych export's hint pasted `--item trial_index` (a
trial's place in the session: 40 stimuli read as 15 items, silent); the same annotator ids under two names were asked
about; a class named `dialogue`, `topic` or `pair` is asked about (its pasted flag reads it); a vote's 1-5
`confidence` beside a table of disagreements was asked about as a groupby's size; a post's author `user` was pasted as
the annotators (the paste failed on repeats); `--text ''` was dropped by the commands, so a JSON record without its
text could not be read; doccano's list labels were told about counts."""

import json

import numpy as np
import pandas as pd
import pytest
from cli_run import hinted_flags, said

from scruples.annotations import read_annotated
from scruples.core import ScruplesDataError


def _run(*argv):
    "A command's exit status and all it printed, its lines joined (`cli_run.said`)."
    return said(*argv)


def _jspsych(path, same_ids=True):
    "20 participants, 15 trials each, of 40 stimuli: the trial's index is its place in the session."
    rng = np.random.default_rng(0)
    rows = []
    for p in range(20):
        pid = f'{rng.integers(16**12):012x}'
        for t, s in enumerate(rng.choice(40, 15, replace=False)):
            rows.append((pid, pid if same_ids else f'P{p}', t, int(rng.integers(300, 3000)), f'sentence {s}',
                         'acceptable' if rng.random() < 0.6 else 'unacceptable'))
    pd.DataFrame(rows, columns=['participant', 'PROLIFIC_PID', 'trial_index', 'rt', 'stimulus', 'response']).to_csv(
        path, index=False)


def test_a_jspsych_exports_hint_names_the_stimulus_not_the_trials_place_and_the_paste_reads_every_item(tmp_path):
    _jspsych(tmp_path / 'j.csv')
    rc, out = _run('data', 'validate', str(tmp_path / 'j.csv'))
    assert rc != 0 and '--item stimulus' in out and 'trial_index' not in out.split('got')[0], out
    flags = hinted_flags(out)
    rc, out = _run('data', 'validate', str(tmp_path / 'j.csv'), *flags)
    assert rc == 0 and '40 items' in out and '300 votes by 20 annotators' in out, out


def test_the_same_annotator_ids_under_two_names_are_read_as_one_column(tmp_path):
    _jspsych(tmp_path / 'j.csv')
    d = read_annotated(tmp_path / 'j.csv', form='long', item='stimulus', label='response')
    assert d.counts.sum() == 300 and len(set(d.annotators)) == 20, d.report
    assert 'PROLIFIC_PID the same ids' in d.report
    _jspsych(tmp_path / 'k.csv', same_ids=False)  # P0..P19 beside hex ids: one relabelling of the other, read alike
    assert read_annotated(tmp_path / 'k.csv', form='long', item='stimulus', label='response').counts.sum() == 300
    k = pd.read_csv(tmp_path / 'k.csv')
    k.loc[k.index % 2 == 0, 'PROLIFIC_PID'] = 'P0'  # two columns that split the rows differently: which? still asked
    k.to_csv(tmp_path / 'm.csv', index=False)
    with pytest.raises(ScruplesDataError, match='say which'):
        read_annotated(tmp_path / 'm.csv', form='long', item='stimulus', label='response')


@pytest.mark.parametrize('classes', [['dialogue', 'monologue', 'other'], ['topic', 'comment', 'other'],
                                     ['pair', 'single', 'none']])
def test_a_class_named_as_a_texts_unit_is_asked_as_a_class_and_the_pasted_flag_reads_it(tmp_path, classes):
    """The votes vary 3-5 an item: the table cannot show the column is votes (a page or a turn that falls as the votes
    rise looks the same: reading such a class where it steadies the votes was undone, the 75th and 76th passes)."""
    rng = np.random.default_rng(2)
    c = np.array([rng.multinomial(k, rng.dirichlet([2, 2, 2])) for k in rng.integers(3, 6, 60)])
    d = pd.DataFrame(c, columns=classes)
    d.insert(0, 'id', [f'i{i}' for i in range(60)])
    d.to_csv(tmp_path / 'w.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'w.csv'))
    said = f'--counts {",".join(classes)}'
    assert rc != 0 and f'a class of that name: say so, {said}' in out, out
    rc, out = _run('data', 'validate', str(tmp_path / 'w.csv'), '--counts', ','.join(classes))
    assert rc == 0 and f'classes {"/".join(classes)}' in out, out


@pytest.mark.parametrize('name,values', [('pair', (1, 3)), ('topic', (1, 6)), ('page', (1, 40))])
def test_an_items_own_number_beside_varying_votes_is_still_asked(tmp_path, name, values):
    "Set apart from the votes (the 69th pass's `pair` 1-24), it adds its own spread: never read as a class."
    rng = np.random.default_rng(3)
    c = np.array([rng.multinomial(k, [0.5, 0.3, 0.2]) for k in rng.integers(3, 6, 80)])
    d = pd.DataFrame(c, columns=['yes', 'no', 'unsure'])
    d.insert(0, 'id', [f'i{i}' for i in range(80)])
    d[name] = rng.integers(*values, 80)
    d.to_csv(tmp_path / 'w.csv', index=False)
    with pytest.raises(ScruplesDataError, match=f"'{name}'"):
        read_annotated(tmp_path / 'w.csv')


def test_a_votes_confidence_beside_a_table_of_disagreements_is_read(tmp_path):
    rng = np.random.default_rng(4)
    rows = [(f'i{i}', lab, int(rng.integers(1, 6))) for i in range(60)
            for lab in rng.choice(['anger', 'fear', 'joy', 'sad', 'surprise'], int(rng.integers(2, 4)), replace=False)]
    pd.DataFrame(rows, columns=['item', 'label', 'confidence']).to_csv(tmp_path / 'l.csv', index=False)
    d = read_annotated(tmp_path / 'l.csv')
    assert d.counts.sum() == len(rows) and 'columns not read: confidence' in d.report
    # a wide table's mean confidence an item is no class either (asked, as an age is)
    w = pd.DataFrame({'id': [f'i{i}' for i in range(40)], 'yes': rng.integers(0, 4, 40)})
    w['no'] = 3 - w.yes
    w['confidence'] = rng.integers(1, 6, 40)
    w.to_csv(tmp_path / 'w.csv', index=False)
    with pytest.raises(ScruplesDataError, match="'confidence'"):
        read_annotated(tmp_path / 'w.csv')


def test_a_posts_author_is_not_pasted_as_the_annotators(tmp_path):
    rng = np.random.default_rng(5)
    rows = [(f'p{i}', f'op_p{i}', lab, int(rng.integers(1, 500))) for i in range(50)
            for lab in rng.choice(['YTA', 'NTA', 'ESH'], int(rng.integers(3, 7)))]
    pd.DataFrame(rows, columns=['post_id', 'user', 'label', 'score']).to_csv(tmp_path / 'r.csv', index=False)
    rc, out = _run('data', 'validate', str(tmp_path / 'r.csv'))
    assert rc != 0 and '--item post_id' in out and '--annotator' not in out, out
    rc, out = _run('data', 'validate', str(tmp_path / 'r.csv'), '--long', '--item', 'post_id')
    assert rc == 0 and f'{len(rows)} votes' in out, out


def test_text_empty_reads_json_records_without_their_text_in_every_way_in(tmp_path):
    recs = [{'id': 'a0', 'yes': 3, 'no': 0}] + [{'id': f'a{i}', 'yes': i % 4, 'no': 3 - i % 4, 'text': 'x'}
                                                for i in range(1, 12)]
    (tmp_path / 'r.json').write_text(json.dumps(recs))
    rc, out = _run('data', 'validate', str(tmp_path / 'r.json'))
    assert rc != 0 and "--text ''" in out, out  # the message names the flag ...
    for cmd in (['data', 'validate'], ['best', '--bootstrap', '0'], ['agree', '--bootstrap', '0']):
        rc, out = _run(*cmd, str(tmp_path / 'r.json'), '--text', '')  # ... and the flag works in every command
        assert rc == 0, (cmd, out)
    d = read_annotated(tmp_path / 'r.json', text='')
    assert d.counts.sum() == 36 and d.texts is None


def test_doccanos_list_labels_are_said_to_be_lists(tmp_path):
    with open(tmp_path / 'd.jsonl', 'w') as f:
        for i in range(6):
            f.writelines(json.dumps({'id': i, 'text': f't{i}', 'label': ['POS' if i % 2 else 'NEG'], 'user': u}) + '\n'
                         for u in ('alice', 'bob'))
    rc, out = _run('data', 'validate', str(tmp_path / 'd.jsonl'))
    assert rc != 0 and 'list of labels' in out and 'explode' in out, out
    rc, out = _run('data', 'validate', str(tmp_path / 'd.jsonl'), '--long', '--item', 'id', '--annotator', 'user')
    assert rc != 0 and 'list of labels' in out and 'explode' in out, out
