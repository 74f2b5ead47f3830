"""The tests' way of running `scruples ARGV` (tests/cli_run.py): a child forked from a server that has imported numpy,
pandas and scipy must be the command's own process, as a new interpreter is: the same exit status, stdout and stderr
on every command, its own pid, working folder, environment, path and random stream, its threads joined and atexit
handlers run, a timeout that kills it. Where a fork cannot give the environment asked for, a real interpreter runs it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import cli_run
import numpy as np
import pytest


def forking() -> bool:
    return os.environ.get('SCRUPLES_TEST_FORK', '1').strip() != '0' and hasattr(os, 'fork')


@pytest.fixture
def server():
    if not forking(): pytest.skip('no fork server here (SCRUPLES_TEST_FORK=0 or no os.fork)')
    s = cli_run._fork_server(cli_run.cli_env())
    assert s is not None, 'the commands of this test process run in new interpreters, not forked'
    return s


def both(monkeypatch, *argv, cwd=None) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    "`scruples ARGV` forked and in a new interpreter."
    monkeypatch.setenv('SCRUPLES_TEST_FORK', '1')
    assert cli_run._fork_server(cli_run.cli_env()) is not None  # forked indeed
    forked = cli_run.scruples(*argv, cwd=cwd)
    monkeypatch.setenv('SCRUPLES_TEST_FORK', '0'); real = cli_run.scruples(*argv, cwd=cwd)
    monkeypatch.delenv('SCRUPLES_TEST_FORK')
    return forked, real


def test_every_command_answers_alike_forked_and_in_a_new_interpreter(monkeypatch, tmp_path, server):
    rng = np.random.default_rng(3)
    gold = cli_run.gold_votes(rng, 40); gold.to_csv(tmp_path/'gold.csv', index=False)
    gold[['id']].assign(label=rng.choice(['yes', 'no', 'maybe'], len(gold))).to_csv(tmp_path/'pred.csv', index=False)
    cli_run.shuffled_votes(tmp_path)
    runs = [
        ('--help',), ('bogus',), ('best', '--help'),
        ('best', 'gold.csv', '--samples', '200', '--bootstrap', '20', '--seed', '1', '--json'),
        ('best', 'gold.csv', '--samples', '200', '--bootstrap', '20', '--seed', '1', '--metric', 'accuracy', 'xentropy'),
        ('best', 'missing.csv'), ('best', 'gold.csv', '--metric', 'nonsense'),
        ('agree', 'votes.csv', '--bootstrap', '50', '--seed', '2', '--json'),
        ('score', 'pred.csv', 'gold.csv', '--samples', '200', '--bootstrap', '20', '--seed', '0'),
        ('data', 'validate', 'gold.csv'), ('data', 'validate', '--json', 'votes.csv'),
        ('plan', 'gold.csv', '--votes', '3,5', '--seed', '0'),
    ]
    statuses = []
    for argv in runs:
        forked, real = both(monkeypatch, *argv, cwd=tmp_path)
        assert (forked.returncode, forked.stdout, forked.stderr) == (real.returncode, real.stdout, real.stderr), argv
        statuses.append(real.returncode)
    assert statuses == [0, 2, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0]


PROBE = r'''
import atexit, json, os, sys, threading, time
import numpy as np
out = sys.argv[1]
def later():
    time.sleep(0.3); open(out + '.thread', 'w').write('joined')
threading.Thread(target=later).start()
atexit.register(lambda: open(out + '.atexit', 'w').write('ran'))
print(json.dumps({'pid': os.getpid(), 'ppid': os.getppid(), 'cwd': os.getcwd(), 'argv': sys.argv, 'env': os.environ.get('PROBE_VAR'),
                  'path': sys.path[:3], 'scruples': __import__('scruples').__file__,
                  'draw': float(np.random.rand()), 'stdin': sys.stdin.read()}))
print('to stderr', file=sys.stderr)
sys.exit(int(os.environ.get('PROBE_RC', '0')))
'''


def test_a_forked_child_is_its_own_process(server, tmp_path):
    env = cli_run.cli_env(PROBE_VAR='seen', PROBE_RC='3', PYTHONPATH=f'{tmp_path}/a{os.pathsep}{tmp_path}/b')
    server = cli_run._fork_server(env)  # (the server of that path)
    runs = [server.run([str(tmp_path/f'r{i}'), 'x y'], env, tmp_path, 60, code=PROBE) for i in range(2)]
    real_scruples = subprocess.run([sys.executable, '-c', 'import scruples; print(scruples.__file__)'], env=env,
                                   cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()
    got = [json.loads(r.stdout) for r in runs]
    for r, g, i in zip(runs, got, range(2)):
        assert r.returncode == 3 and r.stderr == 'to stderr\n'
        assert g['pid'] not in (os.getpid(), server.proc.pid) and g['ppid'] == server.proc.pid
        assert g['cwd'] == str(tmp_path) and g['argv'] == ['-c', str(tmp_path/f'r{i}'), 'x y'] and g['env'] == 'seen'
        assert g['path'] == ['', f'{tmp_path}/a', f'{tmp_path}/b'] and g['stdin'] == ''
        assert g['scruples'] == real_scruples  # the package a new interpreter imports (the server's, preloaded)
        assert (tmp_path/f'r{i}.thread').read_text() == 'joined' and (tmp_path/f'r{i}.atexit').read_text() == 'ran'
    assert got[0]['pid'] != got[1]['pid'] and got[0]['draw'] != got[1]['draw']  # numpy's global stream seeded anew


@pytest.mark.parametrize('code, rc, err', [
    ('raise ValueError("boom")', 1, 'ValueError: boom'),
    ('import sys; sys.exit("a message")', 1, 'a message'),
    ('import sys; sys.exit(None)', 0, ''),
    ('import sys; sys.exit(256 + 4)', 4, ''),
    ('import os, signal; os.kill(os.getpid(), signal.SIGKILL)', -9, ''),
])
def test_exit_statuses_are_an_interpreters(server, tmp_path, code, rc, err):
    real = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=60, check=False)
    forked = server.run([], cli_run.cli_env(), tmp_path, 60, code=code)
    assert forked.returncode == real.returncode == rc and err in forked.stderr and err in real.stderr


def test_a_timeout_kills_the_child_and_the_server_goes_on(server, tmp_path):
    with pytest.raises(subprocess.TimeoutExpired):
        server.run([], cli_run.cli_env(), tmp_path, 1, code='import time; print("started", flush=True); time.sleep(60)')
    assert server.run([], cli_run.cli_env(), tmp_path, 60, code='print("next")').stdout == 'next\n'


@pytest.mark.parametrize('var', ['PYTHONHASHSEED', 'LC_ALL', 'PYTHONUTF8', 'OMP_NUM_THREADS', 'PYTHONWARNINGS'])
def test_an_interpreter_start_variable_goes_to_a_new_interpreter(server, var):
    env = cli_run.cli_env()
    assert cli_run._fork_server(env) is server
    assert cli_run._fork_server(env | {var: '7' if env.get(var) != '7' else '8'}) is None
    assert cli_run._fork_server(env | {'SCRUPLES_CACHE': '/elsewhere'}) is server
    assert cli_run._fork_server(env | {'PYTHONPATH': '/elsewhere'}) not in (None, server)  # a server of that path
    assert cli_run._fork_server(env) is server


def test_a_command_sees_the_environment_and_folder_it_is_given(tmp_path):
    (tmp_path/'here').mkdir()
    r = cli_run.scruples('data', 'locate', '--json', cwd=tmp_path/'here', env={'SCRUPLES_DATA': str(tmp_path/'nowhere')})
    assert str(tmp_path/'nowhere') in r.stdout + r.stderr


def test_the_server_follows_its_own_processs_environment(server, monkeypatch):
    "In CI every call went to a new interpreter: importing scikit-learn set KMP_* in the test process after the server started."
    monkeypatch.setenv('KMP_INIT_AT_FORK', 'FALSE' if os.environ.get('KMP_INIT_AT_FORK') != 'FALSE' else 'TRUE')
    again = cli_run._fork_server(cli_run.cli_env())
    assert again is not None and again is not server and server.proc.poll() is not None  # started again, the old one ended
    assert cli_run._fork_server(cli_run.cli_env()) is again
    assert cli_run._fork_server(cli_run.cli_env(PYTHONHASHSEED='3')) is None  # a call's own start variables: a new interpreter
    assert cli_run.scruples('--help').returncode == 0


def test_a_folder_with_a_scruples_of_its_own_runs_that_one(server, tmp_path):
    "`python -c` imports from the working folder first: a `scruples` there is the one a command runs, as a new interpreter's."
    (tmp_path/'scruples').mkdir()
    (tmp_path/'scruples'/'__init__.py').write_text('')
    (tmp_path/'scruples'/'cli.py').write_text('def main(argv=None):\n    print("the folder\'s own")\n    return 0\n')
    assert server.shadowed(tmp_path) and not server.shadowed(tmp_path/'scruples')
    r = cli_run.scruples('--help', cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "the folder's own\n", r
