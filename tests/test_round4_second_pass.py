"""Issue 39, the second hostile pass (by a helper who did not write the round-4 fixes): each defect found pinned as a
user meets it (a `scruples` command in a subprocess) and, where quick, at the API. Every test here failed on main
before its fix."""
import json
import re
from pathlib import Path

import numpy as np
import pytest

import cli_run

REPO = Path(__file__).resolve().parents[1]


def cli(*args, env=None, timeout=300):
    "Run `scruples ARGS` as a user does; (exit status, stdout + stderr)."
    r = cli_run.scruples(*args, env=env, timeout=timeout)
    return r.returncode, r.stdout + r.stderr


def write(tmp_path, name, text):
    p = tmp_path/name
    p.write_text(text)
    return p


from test_round4_reader import _ordinal_long  # noqa: E402  (low/medium/high long votes, one helper for both files)


# --- (a) --ordered reaches the reader in every command that takes it -----------------------------------------------

@pytest.mark.parametrize('command', [('best', '--metric', 'wasserstein', '--bootstrap', '0'),
                                     ('agree', '--bootstrap', '0')])
def test_ordered_labels_sorted_by_name_are_refused_cli(tmp_path, command):
    "--ordered on labels low/medium/high: Wasserstein and ordinal alpha ran over high < low < medium (exit 0)."
    p = _ordinal_long(tmp_path)
    rc, out = cli(*command, '--ordered', p)
    assert rc != 0 and '--classes' in out and 'Traceback' not in out, out
    rc, out = cli(*command, '--ordered', '--classes', 'low,medium,high', p)
    assert rc == 0 and 'low/medium/high' in out, out


def test_ordered_reaches_the_guide_reading(tmp_path):
    "`analyze --ordered` reads the table through `guide_parameters`: the same refusal, before any notebook runs."
    from scruples.core import ScruplesDataError
    from scruples.guide import guide_parameters
    p = _ordinal_long(tmp_path)
    with pytest.raises(ScruplesDataError, match='classes='):
        guide_parameters(p, ordered=True)
    assert guide_parameters(p, ordered=True, classes='low,medium,high')['ordered'] is True


# --- (b) the read line names only the options a user gave ----------------------------------------------------------

def test_empty_item_does_not_name_repeats_drop_when_not_given(tmp_path):
    "An annotator-columns row with no label: the error said '(repeats=drop left none)' with no --repeats given."
    p = write(tmp_path, 'a.csv', 'id,A1,A2,A3\n1,x,y,x\n2,,,\n3,y,y,x\n')
    rc, out = cli('data', 'validate', '--annotator-columns', 'A1,A2,A3', p)
    assert rc != 0 and "item '2'" in out and 'repeats' not in out, out
    p = write(tmp_path, 'r.csv', 'item,annotator,label\n1,a,x\n1,a,y\n2,a,x\n2,b,y\n')
    rc, out = cli('data', 'validate', '--repeats', 'drop', p)
    assert rc != 0 and '--repeats drop' in out, out  # given: named, as a flag


# --- (c) analyze owns the names it writes, not every *.png -----------------------------------------------------------

def _guide_written_names() -> set:
    "The file names the guide notebook writes into its output folder (savefig / write / to_csv calls in its source)."
    nb = json.loads((REPO/'nbs/guides/your_data.ipynb').read_text())
    src = '\n'.join(''.join(c['source']) for c in nb['cells'] if c['cell_type'] == 'code')
    names = set(re.findall(r"savefig\([^\n]*?'([\w.]+\.png)'", src))
    names |= set(re.findall(r"write\([^\n]*?'([\w.]+\.csv)'", src)) | set(re.findall(r"out/'([\w.]+)'", src))
    names |= set(re.findall(r"'(predictions_demo_\w+\.csv)'", src))
    if 'models_vs_ceiling{' in src:
        names |= {'models_vs_ceiling.png', 'models_vs_ceiling_grouped.png'}
    return names


def test_analyze_declares_every_name_its_notebook_writes():
    from scruples.core import name_matches
    from scruples.guide import RUN_FILES
    names = _guide_written_names()
    assert {'summary.csv', 'reliability.png', 'plan.png', 'gold_demo.csv', 'predictions_demo_oof.csv'} <= names, names
    assert all(name_matches(n, RUN_FILES) for n in names), [n for n in names if not name_matches(n, RUN_FILES)]
    assert not any('*' in n or '?' in n for n in RUN_FILES), RUN_FILES  # exact names: no claim on a user's own PNG


def test_a_users_own_png_in_out_is_neither_refused_nor_touched(tmp_path):
    "A user's mine.png / predictions_demo_v2.csv in --out refused every analyze run (a '*.png' claim); now: kept, intact."
    from scruples.guide import analyze_folder, prepare_out, commit_run
    out = tmp_path/'out'
    out.mkdir()
    mine = {'mine.png': b'\x89PNG user', 'predictions_demo_v2.csv': b'id,a\n', 'plot_reliability.png': b'x'}
    for n, b in mine.items():
        (out/n).write_bytes(b)
    run, _ = prepare_out(out)  # before: FileExistsError naming mine.png
    (run/'reliability.png').write_bytes(b'ours')
    (run/'summary.csv').write_text('quantity,value\n')
    assert sorted(commit_run(out, run)) == ['reliability.png', 'summary.csv']
    assert all((out/n).read_bytes() == b for n, b in mine.items())
    run, prev = prepare_out(out)  # a rerun writing fewer names removes only its own earlier ones
    (run/'summary.csv').write_text('quantity,value\n')
    commit_run(out, run)
    assert not (out/'reliability.png').exists() and all((out/n).read_bytes() == b for n, b in mine.items())
    (out/'reliability.png').write_bytes(b'a user copy')  # a user's file of a name a run writes: refused, intact
    with pytest.raises(FileExistsError, match='reliability.png'):
        analyze_folder(out).check()
    assert (out/'reliability.png').read_bytes() == b'a user copy'


# --- labels equal as numbers, or equal but for case --------------------------------------------------------------------

@pytest.mark.parametrize('labels', [('1', '1.0'), ('2', '2.00'), ('0.5', '.5')])
def test_labels_equal_as_decimal_numbers_are_refused(tmp_path, labels):
    "'1' and '1.0' were two classes, sorted by name (01/1 was refused, 1/1.0 not): refused, naming both."
    a, b = labels
    p = write(tmp_path, 'n.csv', f'item,annotator,label\ni1,a,{a}\ni1,b,{b}\ni2,a,{a}\ni2,b,{a}\ni3,a,3\ni3,b,3\n')
    rc, out = cli('data', 'validate', p)
    assert rc != 0 and 'same number' in out and repr(a) in out and repr(b) in out, out
    rc, out = cli('data', 'validate', '--classes', f'{a},{b},3', p)
    assert rc == 0, out


def test_decimal_labels_are_sorted_as_numbers_and_can_be_ordered(tmp_path):
    "Labels 0.5 / 1 / 1.5 / 10: sorted by name (0.5, 1, 1.5, 10 by chance; 10 < 2 for 2, 10), refused by --ordered."
    from scruples.annotations import read_annotated
    rows = ['item,annotator,label'] + [f'i{i},a{j},{v}' for i in range(6) for j, v in enumerate(('2', '10', '2.5'))]
    p = write(tmp_path, 'd.csv', '\n'.join(rows) + '\n')
    d = read_annotated(p, ordered=True)
    assert d.classes == ('2', '2.5', '10') and d.class_order == 'sorted as numbers'
    rc, out = cli('best', '--ordered', '--metric', 'wasserstein', '--bootstrap', '0', p)
    assert rc == 0 and 'classes 2/2.5/10' in out, out


def test_labels_equal_but_for_case_are_refused(tmp_path):
    "yes / Yes / no read as three classes Yes/no/yes: one answer split in two, silently. Refused; --classes keeps them."
    p = write(tmp_path, 'c.csv', 'item,annotator,label\ni1,a,yes\ni1,b,Yes\ni2,a,no\ni2,b,yes\ni3,a,no\ni3,b,no\n')
    rc, out = cli('data', 'validate', p)
    assert rc != 0 and "'Yes' and 'yes'" in out and '--classes' in out, out
    rc, out = cli('data', 'validate', '--classes', 'yes,Yes,no', p)
    assert rc == 0 and 'yes/Yes/no' in out, out


# --- plan --figure FILE / agree --figure FILE: a user's file of that name ------------------------------------------------

def _pilot(tmp_path):
    rng = np.random.default_rng(1)
    c = rng.multinomial(5, [.3, .7], size=30)
    return write(tmp_path, 'pilot.csv', 'id,no,yes\n' + ''.join(f'{i},{a},{b}\n' for i, (a, b) in enumerate(c)))


@pytest.mark.parametrize('command', ['plan', 'agree'])
def test_figure_file_of_a_user_is_refused_intact(tmp_path, command):
    "`plan --figure mine.png` / `agree --figure mine.png` replaced a user's mine.png with the figure; now refused, intact."
    data = _pilot(tmp_path) if command == 'plan' else _ordinal_long(tmp_path)
    flags = ('--votes', '1,3') if command == 'plan' else ('--bootstrap', '0')
    mine = write(tmp_path, 'mine.png', 'my own picture')
    rc, out = cli(command, *flags, '--figure', mine, data)
    assert rc != 0 and 'mine.png' in out and 'did not write' in out and 'Traceback' not in out, out
    assert mine.read_text() == 'my own picture'
    fig = tmp_path/'figs'/'k.png'
    for _ in range(2):  # its own file: written, then written again
        rc, out = cli(command, *flags, '--figure', fig, data)
        assert rc == 0 and fig.read_bytes()[:4] == b'\x89PNG', out


def test_figure_file_of_an_unknown_format_is_refused_before_the_work(tmp_path):
    "`plan --figure out.txt` ran the whole plan, then printed matplotlib's \"Format 'txt' is not supported\"."
    rc, out = cli('plan', '--votes', '1,3', '--figure', tmp_path/'out.txt', _pilot(tmp_path))
    assert rc != 0 and '--figure' in out and '.png' in out and 'Format' not in out, out
    assert not (tmp_path/'out.txt').exists()


# --- --group with --ordered: a group of classes that are not neighbours on the scale ----------------------------------

def _ordinal_wide(tmp_path):
    rng = np.random.default_rng(2)
    c = rng.multinomial(4, [.3, .5, .2], size=30)
    return write(tmp_path, 'w.csv', 'id,lo,mid,hi\n' + ''.join(f'{i},{a},{b},{d}\n' for i, (a, b, d) in enumerate(c)))


def test_ordered_group_of_non_neighbours_is_refused(tmp_path):
    "best --ordered --group x=lo,hi gave a Wasserstein distance over the 'scale' x < mid (lo and hi joined around mid)."
    p = _ordinal_wide(tmp_path)
    flags = ('best', '--samples', '100', '--bootstrap', '0', '--ordered')
    rc, out = cli(*flags, '--group', 'x=lo,hi', p)
    assert rc != 0 and 'mid lies between them' in out and '--group' in out and 'Traceback' not in out, out
    rc, out = cli(*flags, '--group', 'x=lo,mid', p)
    assert rc == 0 and 'wasserstein' in out, out


def test_ordered_group_of_non_neighbours_is_refused_for_analyze(tmp_path):
    "`analyze --ordered --group x=lo,hi`: the one reading before the notebook refuses it too."
    from scruples.guide import guide_parameters
    with pytest.raises(ValueError, match='mid lies between them'):
        guide_parameters(_ordinal_wide(tmp_path), ordered=True, group='x=lo,hi')


# --- a library warning in a command: one line, not Python's source path and code ---------------------------------------

def test_library_warning_is_one_note_line(tmp_path):
    "score on counts with no overdispersion printed '/.../scruples/best.py:41: UserWarning: ...' and the warn line."
    rng = np.random.default_rng(2)
    c = rng.multinomial(4, [.3, .5, .2], size=30)
    p = write(tmp_path, 'f.csv', 'id,lo,mid,hi\n' + ''.join(f'{i},{a},{b},{d}\n' for i, (a, b, d) in enumerate(c)))
    rng = np.random.default_rng(3)
    pred = write(tmp_path, 'p.csv', 'id,lo,mid,hi\n' + ''.join(f'{i},{a:.6f},{b:.6f},{1 - a - b:.6f}\n' for i, (a, b, _)
                                                         in enumerate(rng.dirichlet([2, 2, 2], size=30))))
    for argv in (('best', '--samples', '100', '--bootstrap', '0', p),
                 ('score', '--samples', '100', '--bootstrap', '0', '--ceiling-bootstrap', '0', pred, p)):
        rc, out = cli(*argv)
        assert rc == 0 and 'scruples: note: the fitted prior concentration' in out, out
        assert 'UserWarning' not in out and 'warnings.warn' not in out and '.py:' not in out, out
