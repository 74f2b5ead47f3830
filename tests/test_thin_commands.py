"""Issue 38, the rest: thin commands with one renderer (`cli.Result`, `cli.render`), an input module that knows no flag
names (its messages name the API's keywords; the command line says them as flags), and `scruples.options.__all__`
holding only the API."""
import ast
import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import scruples.annotations as annotations
import scruples.cli as cli
import scruples.options as options
from scruples.core import ScruplesError
from scruples.annotations import read_annotated

FLAG = re.compile(r'(?<![\w-])--[a-z]')


def strings_of(path: Path) -> list[str]:
    "Every string constant of a module's source, f-strings' literal parts included."
    return [n.value for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Constant)
            and isinstance(n.value, str)]


# --- the input module knows no flag names -----------------------------------------------------------------------------

def test_annotations_strings_name_no_flags():
    found = [s for s in strings_of(Path(annotations.__file__)) if FLAG.search(s)]
    assert not found, found


def cli_error(tmp_path, *argv) -> str:
    code = 'import sys; from scruples.cli import main; sys.exit(main())'  # cli.py has no __main__ guard
    p = subprocess.run([sys.executable, '-c', code, *map(str, argv)], capture_output=True, text=True, cwd=tmp_path,
                       env={**os.environ, 'PYTHONPATH': str(Path(__file__).resolve().parents[1])}, timeout=120)
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    return p.stdout + p.stderr


@pytest.fixture
def tables(tmp_path):
    (tmp_path/'long_id.csv').write_text('id,annotator,label\na,x,yes\na,y,no\nb,x,no\n')
    (tmp_path/'run.csv').write_text('1,2,3\n4,0,1\n2,2,1\n')
    (tmp_path/'labels.csv').write_text('item,annotator,label\na,x,yes\na,y,no\nb,x,no\nb,y,no\n')
    (tmp_path/'two.csv').write_text('item,label,yes,no\na,yes,1,2\nb,no,2,1\n')
    (tmp_path/'annotators.csv').write_text('id,a1,a2\nq1,yes,no\nq2,no,no\n')
    return tmp_path


# each: the file, the API's keyword arguments, the words the API's message says, the flags the CLI's message says
CASES = [
    ('long_id.csv', {}, ["form='long'", "item='id'"], ['--long', '--item id']),
    ('run.csv', {}, ["counts='1,2,3'", "classes='A,B,C'"], ['--counts 1,2,3', '--classes A,B,C']),
    ('labels.csv', {'ordered': True}, ['ordered=True'], ['--ordered']),
    ('two.csv', {}, ["counts='yes,no'", "form='long'"], ['--counts yes,no', '--long']),
    ('annotators.csv', {'form': 'wide'}, ["annotator_columns='a1,a2'"], ['--annotator-columns a1,a2']),
]


@pytest.mark.parametrize('name,kw,api,flags', CASES, ids=[c[0] for c in CASES])
def test_hints_in_the_api_words_and_in_the_cli_flags(tables, name, kw, api, flags):
    with pytest.raises((ValueError, ScruplesError)) as err:
        read_annotated(tables/name, **kw)
    msg = str(err.value)
    assert all(w in msg for w in api) and not FLAG.search(msg), msg
    if kw.get('ordered'):  # the commands read without ordered= (analyze's guide reads with it): the words alone
        said = options.flag_words(msg)
    else:
        said = cli_error(tables, 'data', 'validate', name, *(['--wide'] if kw.get('form') == 'wide' else []))
    assert all(f in said for f in flags) and not any(w in said for w in api), said


# --- scruples.options: __all__ is the API ------------------------------------------------------------------------------

def test_options_all_holds_no_module_objects():
    assert not {'np', 'ann'} & set(options.__all__)
    for name in options.__all__:
        v = getattr(options, name)
        assert not isinstance(v, types.ModuleType) and type(v).__name__ != 'LazyModule', name


# --- one renderer ------------------------------------------------------------------------------------------------------

def test_render_writes_a_result_as_text_or_json(capsys):
    import pandas as pd

    frame = pd.DataFrame({'metric': ['accuracy'], 'estimate': [0.123456]}).set_index('metric')
    res = cli.Result({'file': 'x.csv', 'estimates': frame}, ['read a line ' * 12, cli.Block('  as   it is'), frame],
                     notes=['note: a warning'], status=3)
    assert cli.render(res, False) == 3
    out, err = capsys.readouterr()
    assert err == 'scruples: note: a warning\n'
    lines = out.splitlines()
    assert max(map(len, lines)) <= cli.WIDTH and '  as   it is' in lines and '0.1235' in out
    assert cli.render(res, True) == 3
    out, err = capsys.readouterr()
    assert json.loads(out) == {'file': 'x.csv', 'estimates': [{'metric': 'accuracy', 'estimate': 0.123456}],
                               'notes': ['a warning']}  # every note printed is in the JSON too
    assert err == 'scruples: note: a warning\n'


def test_cli_prints_json_in_one_place():
    "Every command's JSON comes from `render`: no handler dumps its own (issue 38: each built its JSON by hand)."
    src = Path(cli.__file__).read_text()
    assert src.count('print(json.dumps(') == 1 and not re.search(r'def _emit\b', src)


def test_handlers_return_a_result(tables, capsys, monkeypatch):
    "A handler returns its Result (main renders it): text and JSON are two renderings of one object."
    monkeypatch.chdir(tables)
    (tables/'c.csv').write_text('id,yes,no\na,3,1\nb,1,3\nc,2,2\nd,4,0\n')
    args = cli.parser().parse_args(['data', 'validate', 'c.csv', 'run.csv'])
    res = args.fn(args)
    assert isinstance(res, cli.Result) and res.status == 1 and [r['file'] for r in res.fields] == ['c.csv', 'run.csv']
    args = cli.parser().parse_args(['best', 'c.csv', '--bootstrap', '10', '--samples', '100'])
    res = args.fn(args)
    assert isinstance(res, cli.Result) and res.fields['examples'] == 4
    capsys.readouterr()
    cli.render(res, False)
    text = capsys.readouterr().out
    assert all(f'{r["estimate"]:.4f}' in text for r in res.fields['estimates'])


def test_python_m_scruples_cli_is_the_script():
    "`python -m scruples.cli` ran nothing and exited 0; it is the `scruples` script."
    import subprocess, sys
    r = subprocess.run([sys.executable, '-m', 'scruples.cli', 'best', '--help'], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and 'usage: scruples best' in r.stdout, (r.returncode, r.stdout[:200], r.stderr[-300:])
