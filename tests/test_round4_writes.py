"""Issue 39, nothing lost, nothing mixed: `scruples analyze`, `score --figures` and `extract` write by one rule
(`scruples.core.OwnedFolder`): into a folder seeded with a user's file of any name they write, each leaves the file
byte-identical or refuses the run in one line; two runs into one folder at once: the second is refused naming the first;
a killed run's temporary folder goes with the next run; `extract --no-splits` leaves no old split beside new anecdotes;
`extract --address` to something that is not a scheduler answers in seconds. Every command runs as a subprocess."""
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cli_run
from cli_run import cli_env
from hypothesis import HealthCheck, given, settings, strategies as st

ROOT = Path(__file__).resolve().parents[1]
CLI = 'import sys; from scruples.cli import main; sys.exit(main())'
SHIPPED_LONG = ROOT/'scruples'/'guide_data'/'replies_long.csv'
# the shipped long data have no text column: no model options (refused without texts since the twelfth pass)
FAST = ['--long', '--max-items', '40', '--param', 'n_boot=20', '--param', 'best_samples=200', '--param', 'trait_items=6']
# every name each command writes (analyze: the demo predictions of a run with and without a dev split; its figures)
ANALYZE_NAMES = ['your_data.ipynb', 'summary.csv', 'aggregation.png', 'models_vs_ceiling.png', 'reliability.png',
                 'uncertainty.png', 'plan.png', 'gold_demo.csv', 'predictions_demo.csv', 'predictions_demo_dev.csv',
                 'predictions_demo_oof.csv', 'models_vs_ceiling_grouped.png', 'perspectives_kappa.png',
                 'analyze-manifest.json', '.scruples-run.lock']
# (the lock is left out of the property tests' draws: an empty lock, or one holding a pid, is a killed run's by design; a
# user's file of that name with other content is refused in the one-name tests)
OTHER_NAMES = ['notes.txt', 'data.csv', 'mine.png', 'figs/x.png', 'summary.txt', 'anecdotes/mine.jsonl']  # a user's own
SCORE_NAMES = ['reliability.png', 'models_vs_ceiling.png', 'score-manifest.json', '.scruples-run.lock']
EXTRACT_NAMES = ['anecdotes.jsonl', 'report.json', '_plan.json', 'extract-manifest.json', '.scruples-run.lock',
                 *(f'{k}/{s}.scruples-{k}.jsonl' for k in ('anecdotes', 'dilemmas') for s in ('train', 'dev', 'test'))]


env = cli_env


def scruples(*argv, timeout=600, cwd=None):
    "`scruples ARGV` as a user runs it: a subprocess."
    return cli_run.scruples(*argv, timeout=timeout, cwd=cwd)


def snapshot(folder):
    "Every file under `folder` and its bytes."
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(Path(folder).rglob('*')) if p.is_file()}


def seed(folder, names, content=b'a user\'s own file\n'):
    "The user's files of `names` in `folder`."
    for n in names:
        (folder/n).parent.mkdir(parents=True, exist_ok=True)
        (folder/n).write_bytes(content)
    return snapshot(folder)


def refused_intact(r, folder, before, names):
    "The run was refused in one line naming the files, and every file is as it was."
    assert r.returncode == 1 and 'Traceback' not in r.stderr, r.stderr[-3000:]
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith('scruples: error:') and all(Path(n).name in line for n in names), r.stderr
    assert snapshot(folder) == before


def test_the_seeded_names_are_every_name_each_command_declares():
    "The lists the tests seed are each command's declared names, whole (a name added to a command is seeded too)."
    from scruples.core import LOCK_NAME
    from scruples.evaluation import SCORE_FIGURES
    from scruples.extraction import EXTRACT_FILES, EXTRACT_MANIFEST
    from scruples.guide import MANIFEST, RUN_FILES
    assert set(ANALYZE_NAMES) == {*RUN_FILES, MANIFEST, LOCK_NAME}
    assert set(SCORE_NAMES) == {*SCORE_FIGURES, 'score-manifest.json', LOCK_NAME}
    assert set(EXTRACT_NAMES) == {*EXTRACT_FILES, EXTRACT_MANIFEST, LOCK_NAME}
    assert not set(OTHER_NAMES) & {*ANALYZE_NAMES, *SCORE_NAMES, *EXTRACT_NAMES}


# --- analyze --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('name', ANALYZE_NAMES)
def test_analyze_refuses_a_folder_holding_a_user_file_of_a_name_it_writes(tmp_path, name):
    "A user's file of any name a run writes (gold_demo.csv, predictions_demo*.csv were replaced): refused, intact."
    out = tmp_path/'out'
    before = seed(out, [name], b'mine: ' + name.encode() + b'\n')
    r = scruples('analyze', SHIPPED_LONG, '--out', out, *FAST)
    refused_intact(r, out, before, [name])


@pytest.mark.parametrize('name', ['gold_demo.csv', 'predictions_demo.csv', 'predictions_demo_oof.csv'])
def test_analyze_refuses_to_replace_its_own_input(tmp_path, name):
    "The input named as a file a run writes, inside --out: refused, the input as it was (it was overwritten)."
    out = tmp_path/'out'
    out.mkdir()
    (out/name).write_bytes(SHIPPED_LONG.read_bytes())
    before = snapshot(out)
    r = scruples('analyze', out/name, '--out', out, *FAST)
    assert r.returncode == 1 and name in r.stderr and 'Traceback' not in r.stderr, r.stderr[-2000:]
    assert snapshot(out) == before


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(ANALYZE_NAMES[:-1]), min_size=1, max_size=5, unique=True),
       st.lists(st.sampled_from(OTHER_NAMES), unique=True), st.binary(min_size=0, max_size=64))
def test_analyze_into_a_seeded_folder_refuses_and_keeps_every_user_file(clash, others, content):
    """Any set of a user's files of names a run writes, beside files of other names, any content: refused in one line
    naming every clash, each file byte-identical. (A folder holding only other names: `analyze_run` below, a real run.)"""
    import tempfile
    out = Path(tempfile.mkdtemp())/'out'
    before = seed(out, [*clash, *others], content)
    r = scruples('analyze', SHIPPED_LONG, '--out', out, *FAST)
    refused_intact(r, out, before, clash)


@pytest.fixture(scope='module')
def analyze_run(tmp_path_factory):
    """One real run of the shipped long data into a folder seeded with a user's files of other names and a killed run's
    temporary folder; while it runs, a second run into the same --out."""
    d = tmp_path_factory.mktemp('analyze')
    out = d/'out'
    user = seed(out, ['notes.txt', 'data.csv', 'figs/mine.png'])
    killed = out/'.analyze-run-k1ll3d00'
    killed.mkdir()
    (killed/'summary.csv').write_text('half a run')
    (killed/'your_data.ipynb').write_text('{}')
    first = subprocess.Popen([sys.executable, '-c', CLI, 'analyze', str(SHIPPED_LONG), '--out', str(out), *FAST],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    lock, t0 = out/'.scruples-run.lock', time.time()
    while time.time() - t0 < 120 and not (lock.is_file() and lock.read_text().startswith(str(first.pid))):
        time.sleep(0.2)
    second = scruples('analyze', SHIPPED_LONG, '--out', out, *FAST)
    so, se = first.communicate(timeout=1200)
    return dict(out=out, user=user, killed=killed, rc=first.returncode, stdout=so, stderr=se, second=second,
                pid=first.pid)


def test_analyze_leaves_the_users_files_and_writes_only_declared_names(analyze_run):
    r = analyze_run
    assert r['rc'] == 0, r['stderr'][-3000:]
    now = snapshot(r['out'])
    assert {k: now[k] for k in r['user']} == r['user']  # the user's files, byte-identical
    from scruples.core import name_matches
    from scruples.guide import RUN_FILES
    written = json.loads((r['out']/'analyze-manifest.json').read_text())['files']
    assert set(written) <= set(ANALYZE_NAMES), written  # the names seeded in the refusal test cover every written one
    assert all(name_matches(n, (*RUN_FILES, 'analyze-manifest.json', '.scruples-run.lock')) for n in written)


def test_a_second_analyze_into_the_same_out_is_refused_naming_the_first(analyze_run):
    "Two runs at once into one --out (both exited 0, one's summary beside the other's figures): the second is refused."
    s = analyze_run['second']
    assert s.returncode == 1 and f'(process {analyze_run["pid"]})' in s.stderr and 'Traceback' not in s.stderr, s.stderr


def test_a_killed_analyze_runs_temporary_folder_goes_with_the_next_run(analyze_run):
    assert not analyze_run['killed'].exists()
    assert not [p for p in analyze_run['out'].iterdir() if p.name.startswith('.analyze-run-')]


def test_analyze_log_has_no_kernel_noise(analyze_run):
    "No TCP-encryption warning, no 'KeyboardInterrupt caught in kernel', no joblib leaked folders on a run that succeeded."
    err = analyze_run['stderr']
    for noise in ('IPKernelApp', 'KeyboardInterrupt', 'leaked folder', 'without encryption'):
        assert noise not in err, err[-3000:]


def test_analyze_summary_has_no_nan_js_and_no_negative_count(analyze_run):
    s = pd.read_csv(analyze_run['out']/'summary.csv')
    js = s[s.quantity.str.contains('Jensen-Shannon', na=False)]
    assert len(js) and np.isfinite(js.value).all() and np.isfinite(js.hi.dropna()).all(), js
    n = s[s.quantity == 'annotators with an answer'].value
    assert (n >= 0).all(), n


# --- score --figures ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope='module')
def score_files(tmp_path_factory):
    d = tmp_path_factory.mktemp('score')
    rng = np.random.default_rng(0)
    c = rng.integers(0, 5, (40, 2)) + [[1, 0]]
    ids = [f'i{i}' for i in range(40)]
    pd.DataFrame({'id': ids, 'yes': c[:, 0], 'no': c[:, 1]}).to_csv(d/'gold.csv', index=False)
    p = rng.uniform(0.2, 0.8, 40)
    pd.DataFrame({'id': ids, 'yes': p, 'no': 1 - p}).to_csv(d/'pred.csv', index=False)
    return d


SCORE_FAST = ['--bootstrap', '20', '--ceiling-bootstrap', '10', '--samples', '200']


@pytest.mark.parametrize('name', SCORE_NAMES)
def test_score_figures_refuses_a_folder_holding_a_user_file_of_a_name_it_writes(score_files, tmp_path, name):
    "A user's reliability.png (it was replaced) or any other name it writes: refused, intact."
    figs = tmp_path/'figs'
    before = seed(figs, [name], b'mine: ' + name.encode())
    r = scruples('score', score_files/'pred.csv', score_files/'gold.csv', '--figures', figs, *SCORE_FAST)
    refused_intact(r, figs, before, [name])


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(SCORE_NAMES[:2] + ['notes.txt', 'other.png']), unique=True),
       st.binary(min_size=0, max_size=64))
def test_score_figures_into_a_seeded_folder_keeps_every_user_file_or_refuses(score_files, names, content):
    "Any set of a user's files, any content: each byte-identical afterwards, or the run refused naming the clashes."
    import tempfile
    figs = Path(tempfile.mkdtemp())/'figs'
    before = seed(figs, names, content)
    r = scruples('score', score_files/'pred.csv', score_files/'gold.csv', '--figures', figs, *SCORE_FAST)
    clash = [n for n in names if n in SCORE_NAMES]
    if clash:
        refused_intact(r, figs, before, clash)
    else:
        assert r.returncode == 0, r.stderr
        now = snapshot(figs)
        assert {k: now[k] for k in before} == before
        assert set(now) - set(before) <= set(SCORE_NAMES)


# --- extract ---------------------------------------------------------------------------------------------------------

def dumps():
    from scruples.dumps import GOLD_DIR
    return GOLD_DIR/'RS_sample.zst', GOLD_DIR/'RC_sample.zst'


@pytest.mark.parametrize('name', EXTRACT_NAMES)
def test_extract_refuses_a_folder_holding_a_user_file_of_a_name_it_writes(tmp_path, name):
    out = tmp_path/'out'
    before = seed(out, [name], b'mine: ' + name.encode())
    r = scruples('extract', *dumps(), '--out', out, '--workers', '1', '--dev-size', '2', '--test-size', '2',
                 '--no-progress')
    refused_intact(r, out, before, [name])


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from([n for n in EXTRACT_NAMES if n != '.scruples-run.lock']), max_size=4, unique=True),
       st.lists(st.sampled_from(OTHER_NAMES), unique=True), st.binary(min_size=0, max_size=64))
def test_extract_into_a_seeded_folder_keeps_every_user_file_or_refuses(clash, others, content):
    "Any set of a user's files, of names a run writes or not, any content: each byte-identical, or the run refused naming the clashes."
    import tempfile
    out = Path(tempfile.mkdtemp())/'out'
    before = seed(out, [*clash, *others], content)
    r = scruples('extract', *dumps(), '--out', out, '--workers', '1', '--dev-size', '2', '--test-size', '2',
                 '--no-progress')
    if clash:
        refused_intact(r, out, before, clash)
    else:
        assert r.returncode == 0, r.stderr[-3000:]
        now = snapshot(out)
        assert {k: now[k] for k in before} == before
        assert all(n in EXTRACT_NAMES or n.split('/')[0] in ('posts', 'votes', 'sources', '_reports', '_queue')
                   for n in set(now) - set(before)), sorted(set(now) - set(before))


def test_a_users_manifest_beside_other_clashes_names_them_all(tmp_path):
    "Old: a user's extract-manifest.json beside a user's anecdotes.jsonl: the refusal named the manifest only."
    out = tmp_path/'out'
    before = seed(out, ['extract-manifest.json', 'anecdotes.jsonl', 'notes.txt'])
    r = scruples('extract', *dumps(), '--out', out, '--workers', '1', '--no-splits', '--no-progress')
    refused_intact(r, out, before, ['extract-manifest.json', 'anecdotes.jsonl'])
    assert 'is not a manifest scruples extract wrote' in r.stderr, r.stderr


def test_extract_no_splits_after_a_split_run_leaves_no_old_split(tmp_path):
    "--no-splits into a folder of an earlier split run: the old train/dev/test go (named), the user's files stay."
    out = tmp_path/'out'
    user = seed(out, ['notes.txt', 'anecdotes/mine.jsonl'])
    r = scruples('extract', *dumps(), '--out', out, '--workers', '1', '--dev-size', '2', '--test-size', '2',
                 '--no-progress')
    assert r.returncode == 0, r.stderr[-3000:]
    assert (out/'anecdotes'/'train.scruples-anecdotes.jsonl').is_file()
    r = scruples('extract', *dumps(), '--out', out, '--workers', '1', '--no-splits', '--no-progress')
    assert r.returncode == 0, r.stderr[-3000:]
    left = [n for n in EXTRACT_NAMES if '/' in n and (out/n).exists()]
    assert not left, left
    assert 'removed the splits of an earlier run' in r.stderr and 'train.scruples-anecdotes.jsonl' in r.stderr
    now = snapshot(out)
    assert {k: now[k] for k in user} == user


def test_extract_address_of_an_http_server_fails_in_seconds_naming_it(tmp_path):
    "The dashboard's port (an HTTP server) hung with no message: one line naming the address and what was expected."
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    http = subprocess.Popen([sys.executable, '-m', 'http.server', str(port), '--bind', '127.0.0.1'], cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        t0 = time.time()
        while time.time() - t0 < 30:
            try:
                socket.create_connection(('127.0.0.1', port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        t0 = time.time()
        r = scruples('extract', *dumps(), '--out', tmp_path/'out', '--address', f'tcp://127.0.0.1:{port}',
                     '--no-progress', timeout=90)
        took = time.time() - t0
    finally:
        http.terminate()
        http.wait(10)
    assert r.returncode == 1 and 'Traceback' not in r.stderr, r.stderr[-2000:]
    line = r.stderr.strip().splitlines()[-1]
    assert f'127.0.0.1:{port}' in line and 'tcp://HOST:8786' in line, line
    assert took < 45, took


@pytest.mark.parametrize('address', ['notaurl', 'http://127.0.0.1:8787'])
def test_extract_address_that_is_no_scheduler_address_is_one_line(tmp_path, address):
    "`notaurl` printed a traceback after a 60 s stall: one line, at once, saying what was expected."
    t0 = time.time()
    r = scruples('extract', *dumps(), '--out', tmp_path/'out', '--address', address, '--no-progress', timeout=90)
    assert r.returncode == 1 and 'Traceback' not in r.stderr, r.stderr[-2000:]
    assert address in r.stderr and 'tcp://HOST:8786' in r.stderr and time.time() - t0 < 45, r.stderr


def test_extract_on_a_cluster_without_workers_says_it_waits_and_resumes(tmp_path):
    "The cluster's only worker gone: a line while it waits; a worker that joins finishes the run."
    pytest.importorskip('distributed')
    bin_ = Path(sys.executable).parent
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    address = f'tcp://127.0.0.1:{port}'
    procs = [subprocess.Popen([str(bin_/'dask'), 'scheduler', '--host', '127.0.0.1', '--port', str(port),
                               '--no-dashboard'], cwd=tmp_path, env=env(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)]
    try:
        t0 = time.time()
        while time.time() - t0 < 60:
            try:
                socket.create_connection(('127.0.0.1', port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.3)
        run = subprocess.Popen([sys.executable, '-c', CLI, 'extract', *map(str, dumps()), '--out', str(tmp_path/'out'),
                                '--address', address, '--no-progress', '--no-splits'], env=env(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(run)
        import threading
        lines = []  # the run's stderr, read as it comes (a run that says nothing must not hang the test)
        reader = threading.Thread(target=lambda: lines.extend(iter(run.stderr.readline, '')), daemon=True)
        reader.start()
        t0 = time.time()
        while time.time() - t0 < 120 and not any('has no workers: waiting' in l for l in lines):
            time.sleep(0.5)
        assert any('has no workers: waiting for one to join' in l for l in lines), lines
        procs.append(subprocess.Popen([str(bin_/'dask'), 'worker', address, '--nthreads', '1', '--no-nanny',
                                       '--no-dashboard', '--host', '127.0.0.1'], cwd=tmp_path, env=env(),
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        run.wait(300)
        reader.join(30)
        assert run.returncode == 0, ''.join(lines)[-3000:]
        assert 'joined the cluster: the run resumes' in ''.join(lines)
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
