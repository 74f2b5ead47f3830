"""The `scruples` command: in-process through `scruples.cli.main`, and once through the installed console script."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import scruples.data as sd
import scruples.fetch as sf
from scruples.cli import main, parser

N_LOCATE_ROWS = sum(len(sd.SPLITS[k.split('-')[0]]) for k in sf.FILE_PATTERNS)  # 3 + 4 + 3 + 4

GOOD_DILEMMA = json.dumps({'id': 'd1', 'actions': [{'id': 'a1', 'description': 'x'}, {'id': 'a2', 'description': 'y'}],
                           'gold_annotations': [4, 1], 'gold_label': 0, 'human_perf_annotations': [3, 2],
                           'human_perf_label': 0, 'controversial': True})


@pytest.fixture
def files(tmp_path):
    good = tmp_path/'dev.scruples-dilemmas.jsonl'
    good.write_text(GOOD_DILEMMA + '\n' + GOOD_DILEMMA.replace('"d1"', '"d2"', 1) + '\n')  # ids are unique
    counts = tmp_path/'dev.scruples-dilemmas_label-counts.json'
    counts.write_text('[\n  [4, 1],\n  [2, 3]\n]\n')
    bad = tmp_path/'test.scruples-dilemmas.jsonl'
    bad.write_text(GOOD_DILEMMA + '\n\n' + GOOD_DILEMMA.replace('"gold_label": 0', '"gold_label": 2') + '\n')
    bad_counts = tmp_path/'test.scruples-dilemmas_label-counts.json'
    bad_counts.write_text('[\n  [4, 1],\n  [2, -3]\n]\n')
    return {'good': good, 'counts': counts, 'bad': bad, 'bad_counts': bad_counts, 'dir': tmp_path}


def run_main(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def scruples_exe() -> list[str]:
    "The installed console script beside this interpreter (scruples/cli.py has no __main__ guard for `python -m`)."
    exe = Path(sys.executable).with_name('scruples')
    if exe.is_file(): return [str(exe)]
    found = shutil.which('scruples')
    if found: return [found]
    pytest.skip('the scruples console script is not installed')


def run_exe(*argv, cwd=None):
    return subprocess.run([*scruples_exe(), *argv], capture_output=True, text=True, timeout=120, cwd=cwd, env=os.environ.copy())


# --- data locate -----------------------------------------------------------------------------------

def test_locate_json(capsys):
    rc, out, _ = run_main(capsys, 'data', 'locate', '--json')
    assert rc == 0
    rows = json.loads(out)
    assert len(rows) == N_LOCATE_ROWS == 14
    assert all(set(r) == {'kind', 'split', 'path'} for r in rows)  # no 'index': row numbers are no field
    assert [(r['kind'], r['split']) for r in rows] == [(k, s) for k in sf.FILE_PATTERNS for s in sd.SPLITS[k.split('-')[0]]]
    assert rows == json.loads(sf.locate().reset_index(drop=True).to_json(orient='records'))


def test_locate_json_real(capsys, real_data_dir):
    rc, out, _ = run_main(capsys, 'data', 'locate', '--json', '--data-dir', str(real_data_dir))
    assert rc == 0
    found = {(r['kind'], r['split']): r['path'] for r in json.loads(out) if r['path']}
    assert found[('dilemmas', 'dev')] == str(real_data_dir/'dilemmas'/'dev.scruples-dilemmas.jsonl')
    assert len(found) == 4


def test_locate_table(capsys, tmp_path):
    rc, out, _ = run_main(capsys, 'data', 'locate', '--data-dir', str(tmp_path))
    assert rc == 0
    assert 'kind' in out and 'dilemmas-label-counts' in out and 'train-extra' in out


def test_locate_missing_data_dir(capsys, tmp_path):
    rc, out, err = run_main(capsys, 'data', 'locate', '--data-dir', str(tmp_path/'nope'))
    # an explicit folder that does not exist is a typo, not "nothing found": exit 1, one line naming it, no table
    assert rc == 1 and out == ''
    assert err == f"scruples: error: data folder {tmp_path/'nope'} does not exist\n"


# --- data validate -------------------------------------------------------------------------------

def test_validate_good(capsys, files):
    rc, out, _ = run_main(capsys, 'data', 'validate', '--json', str(files['good']), str(files['counts']))
    assert rc == 0
    rows = json.loads(out)
    assert [(r['file'], r['items'], r['error']) for r in rows] == [(str(files['good']), 2, ''), (str(files['counts']), 2, '')]
    rc, out, _ = run_main(capsys, 'data', 'validate', str(files['good']))
    assert rc == 0 and str(files['good']) in out


@pytest.mark.parametrize('which,line,field', [('bad', 3, 'gold_label'), ('bad_counts', 3, 'counts[1][1]')])
def test_validate_bad(capsys, files, which, line, field):
    f = files[which]
    rc, out, _ = run_main(capsys, 'data', 'validate', '--json', str(files['good']), str(f))
    assert rc == 1
    rows = {r['file']: r for r in json.loads(out)}
    assert rows[str(files['good'])]['error'] == ''  # the good file is still reported
    assert rows[str(f)]['items'] == 0
    assert rows[str(f)]['error'].startswith(f'{f}:{line}: ') and f"'{field}'" in rows[str(f)]['error']
    rc, out, _ = run_main(capsys, 'data', 'validate', str(f))
    assert rc == 1 and f'{f.name}:{line}:' in out.replace('\n', '')


def test_validate_missing_and_unknown_files(capsys, tmp_path):
    other = tmp_path/'notes.txt'
    other.write_text('hello')
    rc, out, _ = run_main(capsys, 'data', 'validate', '--json', str(tmp_path/'nope.scruples-dilemmas.jsonl'), str(other))
    assert rc == 1
    errors = [r['error'] for r in json.loads(out)]
    assert 'no such file' in errors[0] and 'file name' in errors[1]


def test_validate_real(capsys, real_data_dir):
    fs = [real_data_dir/'dilemmas'/'dev.scruples-dilemmas.jsonl', real_data_dir/'label-counts'/'dev.scruples-anecdotes_label-counts.json']
    rc, out, _ = run_main(capsys, 'data', 'validate', '--json', *map(str, fs))
    assert rc == 0
    assert [r['items'] for r in json.loads(out)] == [2340, 2500]


# --- data stats ------------------------------------------------------------------------------------

def test_stats_synthetic(capsys, monkeypatch):
    # 50 rather than 200 per split: the synthetic texts are tokenized with spaCy, which dominates the time
    monkeypatch.setenv('SCRUPLES_NO_SHARED', '1'); monkeypatch.delenv('SCRUPLES_DATA', raising=False)  # no data found anywhere
    rc, out, _ = run_main(capsys, 'data', 'stats', '--json', '--synthetic-size', '50')
    assert rc == 0
    res = json.loads(out)
    assert set(res) == {'Table 1 (Anecdotes)', 'Table 1 (Dilemmas)', 'Table 2 (Anecdotes dev)'}
    t1a, t1d, t2 = res['Table 1 (Anecdotes)'], res['Table 1 (Dilemmas)'], res['Table 2 (Anecdotes dev)']
    assert [r['split'] for r in t1a] == ['train', 'dev', 'test', 'total']
    assert [r['split'] for r in t1d] == ['train', 'dev', 'test', 'total']
    for r in t1a + t1d + t2: assert r['source'] == 'synthetic'
    assert [r['instances'] for r in t1a] == [50, 50, 50, 150]
    assert [r['instances'] for r in t1d] == [50, 50, 50, 150]
    assert [r['annotations'] for r in t1d] == [250, 250, 250, 750]
    assert t1d[0]['human_annotations'] is None  # the train split has none
    assert [r['class'] for r in t2] == list(sd.ANECDOTES_CLASSES)
    assert sum(r['frequency'] for r in t2) == pytest.approx(1.0)


# --- help and usage --------------------------------------------------------------------------------

SUBCOMMANDS = [[], ['data'], ['data', 'locate'], ['data', 'fetch'], ['data', 'validate'], ['data', 'stats'], ['reproduce']]


@pytest.mark.parametrize('cmd', SUBCOMMANDS, ids=lambda c: ' '.join(c) or 'scruples')
def test_help(capsys, cmd):
    with pytest.raises(SystemExit) as ei: main([*cmd, '--help'])
    assert ei.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith('usage: scruples') and ' '.join(['scruples', *cmd]) in out


@pytest.mark.parametrize('argv', [[], ['data'], ['data', 'validate'], ['nonsense'], ['data', 'stats', '--seed', 'x']])
def test_usage_errors(capsys, argv):
    with pytest.raises(SystemExit) as ei: main(argv)
    assert ei.value.code == 2
    assert 'usage: scruples' in capsys.readouterr().err


def test_parser_commands():
    p = parser()
    assert p.prog == 'scruples'
    args = p.parse_args(['data', 'stats', '--synthetic-size', '10', '--seed', '3'])
    assert (args.synthetic_size, args.seed, args.json, args.data_dir) == (10, 3, False, None)


# --- the installed console script ------------------------------------------------------------------

def test_console_script(files, tmp_path):
    r = run_exe('data', 'locate', '--json', cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)) == N_LOCATE_ROWS
    r = run_exe('data', 'validate', str(files['good']), str(files['bad']), cwd=tmp_path)
    assert r.returncode == 1
    assert f"{files['bad'].name}:3:" in r.stdout.replace('\n', '')
    r = run_exe('data', 'validate', '--json', str(files['good']), cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)[0]['items'] == 2
    r = run_exe('data', 'stats', '--help', cwd=tmp_path)
    assert r.returncode == 0 and 'usage: scruples data stats' in r.stdout


# --- issue 22: items 9, 13, 15, 18 ----------------------------------------------------------------------------------

def test_stats_on_a_named_folder_without_data_is_an_error(capsys, tmp_path):
    rc, out, err = run_main(capsys, 'data', 'stats', '--data-dir', str(tmp_path), '--synthetic-size', '50')
    assert rc == 1 and out == '' and str(tmp_path) in err and 'no Scruples data' in err


@pytest.mark.parametrize('name, rows, says', [
    ('dev.scruples-dilemmas_label-counts.json', '[[1, 1, 1, 1, 1], [2, 0, 0, 0, 3]]', 'dilemmas'),   # 5 columns, named dilemmas
    ('dev.scruples-anecdotes_label-counts.json', '[[3, 2], [1, 4]]', 'anecdotes'),                   # 2 columns, named anecdotes
])
def test_label_counts_whose_name_and_width_disagree_are_refused(capsys, tmp_path, name, rows, says):
    (tmp_path/name).write_text(rows)
    for cmd in (['best', '--bootstrap', '0', '--samples', '50'], ['data', 'validate']):
        rc, out, err = run_main(capsys, *cmd, str(tmp_path/name))
        assert rc == 1 and f'{name}:1' in (out + err) and f'the file name says {says}' in (out + err)


@pytest.mark.parametrize('name, text, where', [
    ('zero.json', '[[3, 2],\n [0, 0],\n [1, 4]]', "zero.json:2: field 'counts[1]'"),
    ('zero.csv', 'a,b\n3,2\n1,4\n0,0\n', "zero.csv:4: field 'counts[2]'"),
    ('dev.scruples-dilemmas_label-counts.json', '[[3, 2],\n\n [0, 0]]', "label-counts.json:3: field 'counts[1]'"),
])
def test_an_all_zero_row_is_named_by_file_and_line(capsys, tmp_path, name, text, where):
    (tmp_path/name).write_text(text)
    rc, _, err = run_main(capsys, 'best', str(tmp_path/name), '--bootstrap', '0')
    assert rc == 1 and where in err and 'example 1' not in err, err  # was 'example 1 has no annotations' (0-based, no file)
    rc, out, _ = run_main(capsys, 'data', 'validate', '--json', str(tmp_path/name))
    assert rc == 1 and where in json.loads(out)[0]['error']  # was accepted


def test_suffixes_are_one_rule_for_validate_and_best(capsys, tmp_path):
    for name in ('counts.JSON', 'counts.Csv'):
        (tmp_path/name).write_text('[[3, 2], [1, 4]]' if name.lower().endswith('json') else '3,2\n1,4\n')
        rc_v, out, _ = run_main(capsys, 'data', 'validate', '--json', str(tmp_path/name))
        rc_b, _, _ = run_main(capsys, 'best', str(tmp_path/name), '--bootstrap', '0', '--samples', '50')
        assert (rc_v, rc_b) == (0, 0) and json.loads(out)[0]['items'] == 2  # validate refused upper case, best accepted it


def test_label_range_message_names_a_closed_interval(capsys, tmp_path):
    (tmp_path/'c.json').write_text('[[3, 2], [1, 4]]'); (tmp_path/'l.txt').write_text('0\n2\n')
    rc, _, err = run_main(capsys, 'best', str(tmp_path/'c.json'), '--labels', str(tmp_path/'l.txt'), '--bootstrap', '0')
    assert rc == 1 and 'l.txt:2' in err and '[0, 1]' in err and '[0, 1)' not in err  # 1 is allowed: "[0, 1)" said otherwise


def test_bootstrap_is_capped_with_a_reason(capsys, tmp_path):
    (tmp_path/'c.json').write_text('[[3, 2], [1, 4], [2, 2]]')
    with pytest.raises(SystemExit) as ei: main(['best', str(tmp_path/'c.json'), '--bootstrap', '1000000'])
    assert ei.value.code == 2 and 'run for hours' in capsys.readouterr().err


def test_cli_best_helpers_live_with_best_and_data():
    import scruples.cli as cli
    from scruples.best import best_alpha, class_support
    from scruples.annotations import read_annotated
    import scruples.annotations as ann, scruples.data as sd
    assert not any(hasattr(cli, n) for n in ('best_counts', 'class_support', 'best_alpha', '_reader_for'))
    # issue 28: one reader; the others are gone
    assert not any(hasattr(sd, n) for n in ('read_counts', 'read_any_counts', 'reader_for', '_csv_counts', '_csv_counts_fast'))
    assert not any(hasattr(ann, n) for n in ('read_wide', 'read_long', 'read_annotations', 'read_label_table', 'from_long', 'table_columns'))



def test_cli_best_is_a_thin_layer_over_best(capsys, tmp_path):
    "`scruples best FILE --labels FILE --json` gives the class names, support, annotations, alpha and estimates of `best`."
    import numpy as np
    from scruples.best import best, fit_dirichlet_prior
    rng = np.random.default_rng(2021)
    counts = np.stack([rng.multinomial(5, p) for p in rng.dirichlet([1.0, 0.5, 0.8], size=200)])
    y = rng.integers(0, 3, 200)
    (tmp_path/'c.csv').write_text('entailment,neutral,contradiction\n' + ''.join(f'{a},{b},{c}\n' for a, b, c in counts))
    (tmp_path/'y.txt').write_text(''.join(f'{v}\n' for v in y))
    rc, out, _ = run_main(capsys, 'best', str(tmp_path/'c.csv'), '--labels', str(tmp_path/'y.txt'), '--json', '--samples', '500', '--bootstrap', '0')
    out = json.loads(out)
    assert rc == 0 and out['classes'] == ['entailment', 'neutral', 'contradiction']
    assert [r['support'] for r in out['support']] == np.bincount(y, minlength=3).tolist()
    assert [r['annotations'] for r in out['support']] == counts.sum(0).tolist()
    assert np.allclose(out['alpha'], fit_dirichlet_prior(counts), atol=1e-5)
    direct = best(counts, y_true=y, n_samples=500, n_boot=0)
    assert np.allclose([r['estimate'] for r in out['estimates']], direct.estimate.to_numpy(), atol=1e-9)

# --- issue 22 item 16: `mcm user-study` checks the study before encoding anything -----------------------------------

@pytest.mark.parametrize('rows, says', [
    ('smile,40,3\n', 'at least 3 actions'),                                       # one action: failed after 30 s of encoding
    ('smile,10,10\nkill,5,5\nhelp,1,1\n', 'Yes rates that differ'),                # constant rate: rc 0, null r, a raw warning
])
def test_user_study_is_checked_before_encoding(capsys, tmp_path, monkeypatch, rows, says):
    import warnings
    import scruples.mcm as mcm
    monkeypatch.setattr(mcm, 'default_direction', lambda *a, **k: pytest.fail('the direction was fitted (encoding) before the check'))
    monkeypatch.setattr(mcm, 'get_encoder', lambda *a, **k: pytest.fail('an encoder was loaded before the check'))
    (tmp_path/'study.csv').write_text('Action,Yes,No\n' + rows)
    (tmp_path/'q.csv').write_text('action,question\n' + ''.join(f'{r.split(",")[0]},Should I {r.split(",")[0]}?\n' for r in rows.splitlines()))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        rc, out, err = run_main(capsys, 'mcm', 'user-study', str(tmp_path/'study.csv'), '--questions', str(tmp_path/'q.csv'))
    assert rc == 1 and out == '' and str(tmp_path/'study.csv') in err and says in err and 'Warning' not in err

# --- issue 20: `scruples best` reads your own tables (wide with id/text columns, chosen columns, the long form) ------

WIDE = 'id,text,entail,neutral,contra\nq1,A man sleeps.,4,1,0\nq2,A dog runs.,0,3,2\nq3,It rains.,1,0,4\nq4,She sings.,5,0,0\n'
LONG = ('item,annotator,label\n' + ''.join(f'q{i},a{a},{lab}\n' for i, labs in enumerate(['xyx', 'yyx', 'xxx', 'yxy'])
                                              for a, lab in enumerate(labs)))


def best_json(capsys, *argv):
    rc, out, err = run_main(capsys, 'best', *argv, '--json', '--samples', '200', '--bootstrap', '0')
    return rc, (json.loads(out) if rc == 0 else None), err


def test_best_reads_a_table_with_id_and_text_columns(capsys, tmp_path):
    "It failed with `field 'id': expected an integer`: the id and text columns are now told apart from the counts."
    (tmp_path/'votes.csv').write_text(WIDE)
    rc, out, err = best_json(capsys, str(tmp_path/'votes.csv'))
    assert rc == 0, err
    assert out['classes'] == ['entail', 'neutral', 'contra'] and out['examples'] == 4
    assert [r['class'] for r in out['support']] == ['entail', 'neutral', 'contra']  # class names kept in the output


def test_best_count_columns_are_chosen_by_name(capsys, tmp_path):
    "--counts picks the count columns and their order; --id names the id column; other columns are left alone."
    (tmp_path/'votes.csv').write_text(WIDE.replace('id,', 'key,'))
    rc, out, err = best_json(capsys, str(tmp_path/'votes.csv'), '--counts', 'contra,entail', '--id', 'key')
    assert rc == 0, err
    assert out['classes'] == ['contra', 'entail'] and [r['annotations'] for r in out['support']] == [6, 10]


def test_best_reads_the_long_form(capsys, tmp_path):
    "--long (or a table with item and label columns) counts one row per annotation; the classes are the sorted labels."
    (tmp_path/'long.csv').write_text(LONG)
    rc, out, err = best_json(capsys, str(tmp_path/'long.csv'), '--long')
    assert rc == 0, err
    assert out['classes'] == ['x', 'y'] and out['examples'] == 4
    assert [r['annotations'] for r in out['support']] == [7, 5]
    (tmp_path/'renamed.csv').write_text(LONG.replace('item,annotator,label', 'post,rater,verdict'))
    rc2, out2, err2 = best_json(capsys, str(tmp_path/'renamed.csv'), '--long', '--item', 'post', '--annotator', 'rater', '--label', 'verdict')
    assert rc2 == 0, err2
    assert out2['estimates'] == out['estimates']


@pytest.mark.parametrize('content, argv, says', [
    (WIDE, ['--counts', 'entail,nope'], ":1: field 'nope'"),                        # a count column that is not there
    (WIDE.replace('q3,It rains.,1,', 'q3,It rains.,x,'), [], ":4: field 'entail'"),  # a bad count: its line and column
    (WIDE.replace('q2,', 'q1,'), [], ":3: field 'id'"),                              # a repeated id
    (LONG + 'q0,a0,x\n', ['--long'], ":14: field 'annotator'"),                      # an annotator labels an item twice
    (LONG, ['--long', '--label', 'verdict'], ":1: field 'verdict'"),                 # a long-form column that is not there
])
def test_best_table_errors_name_file_line_and_field(capsys, tmp_path, content, argv, says):
    (tmp_path/'t.csv').write_text(content)
    rc, out, err = run_main(capsys, 'best', str(tmp_path/'t.csv'), *argv, '--bootstrap', '0', '--samples', '50')
    assert rc == 1 and out == '' and f't.csv{says}' in err, err


# --- issue 20: `scruples analyze` (the guide notebook through papermill): a thin layer, errors before any kernel -----

@pytest.fixture
def no_kernel(monkeypatch):
    import papermill
    monkeypatch.setattr(papermill, 'execute_notebook', lambda *a, **k: pytest.fail('the notebook ran before the input was checked'))


@pytest.mark.parametrize('argv, says', [
    (['--counts', 'entail,nope'], ":1: field 'nope'"),                    # a count column that is not there
    (['--text', 'body'], ":1: field 'body'"),                             # a text column that is not there
    (['--long'], ":1: field 'item'"),                                     # the long form without its columns
])
def test_analyze_checks_the_file_before_running_the_notebook(capsys, tmp_path, no_kernel, argv, says):
    (tmp_path/'votes.csv').write_text(WIDE)
    rc, out, err = run_main(capsys, 'analyze', str(tmp_path/'votes.csv'), '--out', str(tmp_path/'out'), *argv)
    assert rc == 1 and out == '' and f'votes.csv{says}' in err, err


def test_analyze_passes_columns_and_parameters_to_the_guide(capsys, tmp_path, monkeypatch):
    "The command resolves its options once (`guide_parameters`) and hands what it resolved to `guide.analyze`."
    import pandas as pd
    import scruples.guide as guide
    seen = {}
    def fake(file, out, **kw):
        seen.update(kw, file=file, out=out)
        return pd.DataFrame({'section': ['data'], 'quantity': ['items'], 'value': [4.0], 'lo': [None], 'hi': [None], 'note': ['']})
    monkeypatch.setattr(guide, 'analyze', fake)
    # read before the notebook runs (issue 28); a text column: the models' options do nothing without texts (refused)
    monkeypatch.chdir(tmp_path); (tmp_path/'v.csv').write_text('text,a,b\n' + ''.join(f'item {i},{i % 2 * 3},{2 - i % 2 * 2}\n' for i in range(10)))
    rc, out, err = run_main(capsys, 'analyze', 'v.csv', '--out', 'o', '--counts', 'a,b', '--epochs', '2', '--max-items', '50',
                            '--param', 'budget=3', '--param', 'test_share=0.5', '--param', 'baselines=Prior,Logistic')
    assert rc == 0 and 'items' in out, err
    got = seen['resolved']
    assert (got['form'], got['count_cols'], got['epochs'], got['max_items'], got['budget'], got['test_share'], got['baselines']) == \
        ('wide', 'a,b', 2, 50, 3, 0.5, 'Prior,Logistic')
    assert json.loads(got['reading']) == {'counts': 'a,b', 'form': 'wide'}  # the reading, as one value
    with pytest.raises(SystemExit): main(['analyze', 'v.csv', '--out', 'o', '--param', 'no equals sign'])
    with pytest.raises(SystemExit): main(['analyze', 'v.csv', '--out', 'o', '--max-items', '3'])


def test_best_long_needs_no_annotator_column_unless_typed(capsys, tmp_path):
    p = tmp_path/'l.csv'
    p.write_text('item,label\n' + ''.join(f'q{i},{"ab"[i % 2]}\nq{i},a\n' for i in range(6)))
    rc, out, err = run_main(capsys, 'best', str(p), '--long', '--bootstrap', '0', '--samples', '50', '--json')
    assert rc == 0, err
    rc, _, err = run_main(capsys, 'best', str(p), '--long', '--annotator', 'rater', '--bootstrap', '0', '--samples', '50')
    assert rc != 0 and "field 'rater'" in err


def test_analyze_long_defaults_fall_back_when_absent(tmp_path):
    from scruples.guide import guide_parameters
    from scruples.core import ScruplesDataError
    p = tmp_path/'l.csv'
    p.write_text('item,label\n' + ''.join(f'q{i},{"ab"[i % 2]}\nq{i},a\n' for i in range(10)))
    got = guide_parameters(p, form='long')
    assert (got['text_col'], got['annotator_col']) == ('', '')
    with pytest.raises(ScruplesDataError, match="field 'words'"): guide_parameters(p, form='long', text='words')


def test_best_names_classes_with_no_votes(capsys, tmp_path):
    p = tmp_path/'c.csv'
    p.write_text('text,yes,no,maybe\n' + ''.join(f't{i},{i % 4 + 1},{i % 3},0\n' for i in range(12)))
    rc, out, err = run_main(capsys, 'best', str(p), '--bootstrap', '0', '--samples', '50')
    assert rc == 0 and "no votes on any item: 'maybe'" in out + err
    rc, out, err = run_main(capsys, 'best', str(p), '--bootstrap', '0', '--samples', '50', '--json')
    assert rc == 0 and json.loads(out)['empty_classes'] == ['maybe']
    p.write_text('text,yes,no\n' + ''.join(f't{i},{i % 4 + 1},{i % 3}\n' for i in range(12)))
    rc, out, err = run_main(capsys, 'best', str(p), '--bootstrap', '0', '--samples', '50', '--json')
    assert rc == 0 and json.loads(out)['empty_classes'] == [] and 'no votes' not in err

# --- issue 23: `scruples best` prints from arrays, without pandas: the same text and JSON as the frames gave -----------

BEST_CASES = [  # (counts, y, n_boot): 2, 3 and 7 classes, with and without the bootstrap (NaN interval), gold labels given
    ([[3, 1, 0], [0, 4, 1], [2, 2, 1], [5, 0, 0], [1, 1, 3], [0, 0, 5]], None, 0),
    ([[3, 1], [0, 4], [2, 2], [5, 0], [1, 1], [0, 5], [4, 1]], [0, 1, 0, 0, 1, 1, 0], 30),
    ([[40, 1, 0, 2, 0, 0, 9], [0, 400, 1, 0, 0, 3, 0], [1, 2, 1000, 3, 4, 5, 0], [5, 0, 0, 7, 0, 1, 1], [1, 1, 3, 0, 9, 0, 2]], None, 10),
]


def _frame_json(df):
    "A frame as the CLI writes it with --json (`render`), read back."
    import contextlib
    import io

    from scruples.cli import Result, render
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        render(Result.of(df), as_json=True)
    return json.loads(buf.getvalue())


@pytest.mark.parametrize('counts, y, n_boot', BEST_CASES)
def test_best_text_and_json_match_the_pandas_rendering(counts, y, n_boot):
    "best_estimates is best without the frame (bit for bit); the CLI's table text and JSON records are what pandas printed."
    import numpy as np
    import pandas as pd
    from scruples.best import best, best_alpha, best_estimates, class_support, class_support_columns
    from scruples.cli import json_records, table_text
    counts = np.array(counts)
    res = best(counts, y_true=y, n_samples=300, n_boot=n_boot, seed=3)
    rows, alpha, _ = best_estimates(counts, y_true=y, n_samples=300, n_boot=n_boot, seed=3)
    cols = {k: [r[k] for r in rows] for k in rows[0]}
    pd.testing.assert_frame_equal(pd.DataFrame(rows).set_index('metric'), res, check_exact=True)
    assert best_alpha(res) == [round(float(a), 6) for a in alpha]
    ff = lambda x: f'{x:.4f}'
    assert table_text(cols, 'metric') == res.to_string(float_format=ff)
    a6, res.attrs = best_alpha(res), {}
    assert json_records(cols) == _frame_json(res)  # pandas' to_json, ten significant digits below 0.1 (sixteenth pass)
    gold, names = (counts.argmax(1) if y is None else np.array(y)), [f'c{j}' for j in range(counts.shape[1])]
    sup, scol = class_support(counts, names, gold, a6), class_support_columns(counts, names, gold, a6)
    assert table_text(scol, 'class') == sup.to_string(float_format=ff)
    assert json_records(scol) == _frame_json(sup)


def test_json_floats_round_as_pandas_does():
    """`json_float` reproduces pandas' to_json (10 decimals, its own half-way rule, exponents outside [1e-15, 1e16)) on
    awkward values from 0.1 up; below, where ten decimals keep fewer digits (5e-12 would be 0.0), 10 significant digits."""
    import numpy as np
    import pandas as pd
    from scruples.cli import json_float
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.random(2000), rng.random(500) * 1e-9, 10.0 ** rng.uniform(-20, 20, 1000), -rng.random(200) * 50,
                        [0.0, 0.5, 1.0, 0.99999999995, 0.123456789049, 0.12345678905, 1e-15, 9.99e-16, 1e16, 2.5e-11, 3.5e-11, np.nan]])
    want = json.loads(pd.DataFrame({'x': x}).to_json(orient='records'))
    pandas_like = [not (1e-15 <= abs(v) < 0.1) for v in x]
    got = [json_float(float(v)) for v in x]
    assert [g for g, p in zip(got, pandas_like) if p] == [r['x'] for r, p in zip(want, pandas_like) if p]
    assert [g for g, p in zip(got, pandas_like) if not p] == [float(f'{v:.10g}') for v, p in zip(x, pandas_like) if not p]


def test_best_cli_prints_what_the_frames_print(capsys, tmp_path):
    "The whole `scruples best` text output equals the frames' to_string (the pandas rendering the CLI used before issue 23)."
    import numpy as np
    from scruples.best import best, best_alpha, class_support
    counts = np.array(BEST_CASES[0][0])
    (tmp_path/'c.json').write_text(json.dumps(counts.tolist()))
    rc, out, _ = run_main(capsys, 'best', str(tmp_path/'c.json'), '--samples', '300', '--bootstrap', '20', '--seed', '4')
    res = best(counts, n_samples=300, n_boot=20, seed=4)
    sup = class_support(counts, ['class_0', 'class_1', 'class_2'], counts.argmax(1), best_alpha(res))
    ff = lambda x: f'{x:.4f}'
    n_tied = res.attrs['n_tied']
    flat = out.replace('\n  ', ' ')  # prose lines wrap at 100 columns
    assert rc == 0 and flat.startswith(f'read counts list: 6 items, classes class_0/class_1/class_2 (no names in the file), items '
                                      f'numbered from 0\n{tmp_path/"c.json"}: 6 examples, 3 classes; gold labels: the majority vote '), out
    assert f'(ties: first; {n_tied} of 6 examples tied)' in flat and str(best_alpha(res)) in flat
    assert f'\n{res.to_string(float_format=ff)}\n' in out and 'the Monte Carlo error' in flat
    assert out.endswith(f'\n\nper class (support: examples whose gold label it is):\n{sup.to_string(float_format=ff)}\n')
    assert max(map(len, out.splitlines())) <= 100
    assert f"prior: {res.attrs['prior']} ({res.attrs['prior_reason']})" in flat  # issue 41


# --- `scruples best --ties`: the majority vote's tie policy (as `best(ties=)`) -------------------------------------------

TIED = [[2, 2, 0], [3, 0, 0], [0, 1, 1], [1, 1, 1], [0, 0, 4], [0, 3, 1]]  # rows 0, 2 and 3 are tied


@pytest.mark.parametrize('ties', ['first', 'random', 'drop'])
def test_best_ties_policy_matches_the_function(capsys, tmp_path, ties):
    import numpy as np
    from scruples.best import best
    (tmp_path/'t.json').write_text(json.dumps(TIED))
    rc, out, _ = run_main(capsys, 'best', str(tmp_path/'t.json'), '--samples', '300', '--bootstrap', '0', '--seed', '2', '--ties', ties, '--json')
    got = json.loads(out)
    want = best(np.array(TIED), n_samples=300, n_boot=0, seed=2, ties=ties)
    assert rc == 0 and got['ties'] == ties and got['tied'] == 3 and want.attrs['n_tied'] == 3
    assert [r['estimate'] for r in got['estimates']] == pytest.approx(want.estimate.tolist(), abs=1e-9)
    assert sum(r['support'] for r in got['support']) == (3 if ties == 'drop' else 6)  # support counts the scored examples
    assert f'3 of 6 examples tied' in got['gold']


def test_best_ties_default_is_first_and_random_differs(capsys, tmp_path):
    (tmp_path/'t.json').write_text(json.dumps(TIED))
    args = ['best', str(tmp_path/'t.json'), '--samples', '400', '--bootstrap', '0', '--seed', '5', '--json']
    default, first, rand = (json.loads(run_main(capsys, *args, *extra)[1]) for extra in ([], ['--ties', 'first'], ['--ties', 'random']))
    assert default['estimates'] == first['estimates'] and default['ties'] == 'first'
    assert [r['support'] for r in rand['support']] != [r['support'] for r in first['support']]  # seed 5 moves a tied vote off class 0


def test_best_ties_with_gold_labels_is_an_error(capsys, tmp_path):
    (tmp_path/'t.json').write_text(json.dumps(TIED)); (tmp_path/'y.json').write_text(json.dumps([0, 0, 1, 2, 2, 1]))
    rc, _, err = run_main(capsys, 'best', str(tmp_path/'t.json'), '--labels', str(tmp_path/'y.json'), '--ties', 'drop')
    assert rc != 0 and '--ties breaks ties of the majority vote' in err and 'y.json' in err
    (tmp_path/'all.json').write_text(json.dumps([[1, 1], [2, 2]]))
    rc, _, err = run_main(capsys, 'best', str(tmp_path/'all.json'), '--ties', 'drop')
    assert rc != 0 and 'none left to score' in err


@pytest.mark.parametrize('param, hint', [('form=long', '--long'), ('annotator=x', '--annotator'), ('out_dir=/tmp/x', 'set by analyze')])
def test_analyze_param_naming_a_column_option_is_an_error_not_a_traceback(capsys, tmp_path, param, hint):
    "Found in review: --param form=long ended in `TypeError: analyze() got multiple values for keyword argument 'form'`."
    (tmp_path/'w.csv').write_text('id,text,a,b\n1,x,2,1\n2,y,0,3\n')
    rc, _, err = run_main(capsys, 'analyze', str(tmp_path/'w.csv'), '--out', str(tmp_path/'o'), '--param', param)
    assert rc == 1 and "is not a notebook parameter here" in err and hint in err and 'Traceback' not in err
