"""Fifth hostile pass (b): `data fetch`, `extract`, `analyze` and the readers against the API. Each test runs the CLI as a
user does (a subprocess) and asserts the right behaviour; each fails on the code it was written against."""
import functools
import http.server
import tarfile
import threading
from pathlib import Path

import pytest

import cli_run

ROOT = Path(__file__).resolve().parents[1]
CLI = 'import sys; from scruples.cli import main; sys.exit(main())'


def scruples(*argv, timeout=300):
    "`scruples ARGV` as a user runs it: a subprocess (no proxy for 127.0.0.1)."
    return cli_run.scruples(*argv, timeout=timeout,
                            env={'NO_PROXY': '127.0.0.1,localhost', 'no_proxy': '127.0.0.1,localhost'})


@pytest.fixture
def release_url(tmp_path):
    "A stand-in anecdotes.tar.gz (anecdotes/dev.scruples-anecdotes.jsonl) served on 127.0.0.1: its --url value."
    srv_dir, build = tmp_path/'srv', tmp_path/'build'/'anecdotes'
    srv_dir.mkdir()
    build.mkdir(parents=True)
    (build/'dev.scruples-anecdotes.jsonl').write_text('{"id": "release"}\n')
    with tarfile.open(srv_dir/'anecdotes.tar.gz', 'w:gz') as tf:
        tf.add(build, arcname='anecdotes')
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args): pass
    handler = functools.partial(Quiet, directory=str(srv_dir))
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    thread = threading.Thread(target=srv.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True)
    thread.start()
    yield f'anecdotes=http://127.0.0.1:{srv.server_port}/anecdotes.tar.gz'
    srv.shutdown()
    srv.server_close()


def test_fetch_keeps_a_users_own_file_of_a_release_files_name(tmp_path, release_url):
    """loss: `data fetch --dest D` (no --force, no tarball, no record) replaced the user's own D/anecdotes/dev.scruples-anecdotes.jsonl
    with the release's, exit 0; it must refuse in one line naming the file and leave it intact."""
    dest = tmp_path/'data'
    mine = dest/'anecdotes'/'dev.scruples-anecdotes.jsonl'
    mine.parent.mkdir(parents=True)
    mine.write_text('{"id": "mine"}\n')
    r = scruples('data', 'fetch', '--which', 'anecdotes', '--dest', dest, '--no-progress', '--url', release_url)
    assert mine.read_text() == '{"id": "mine"}\n', 'the user\'s file was overwritten: ' + r.stdout + r.stderr
    assert r.returncode == 1 and 'Traceback' not in r.stderr and 'dev.scruples-anecdotes.jsonl' in r.stderr, r.stderr


def test_fetch_rerun_keeps_a_users_edit_of_an_extracted_file(tmp_path, release_url):
    """loss: after a fetch, the user edits anecdotes/dev.scruples-anecdotes.jsonl and removes the tarball; a second
    `data fetch` (no --force) downloads again and silently replaces the edit (exit 0); it must refuse naming the file."""
    dest = tmp_path/'data'
    r = scruples('data', 'fetch', '--which', 'anecdotes', '--dest', dest, '--no-progress', '--url', release_url)
    assert r.returncode == 0, r.stderr
    edited = dest/'anecdotes'/'dev.scruples-anecdotes.jsonl'
    edited.write_text('{"id": "edited by the user"}\n')
    (dest/'anecdotes.tar.gz').unlink()
    r = scruples('data', 'fetch', '--which', 'anecdotes', '--dest', dest, '--no-progress', '--url', release_url)
    assert edited.read_text() == '{"id": "edited by the user"}\n', 'the user\'s edit was overwritten: ' + r.stderr
    assert r.returncode == 1 and 'Traceback' not in r.stderr and 'dev.scruples-anecdotes.jsonl' in r.stderr, r.stderr


def test_fetch_keeps_a_users_symlink_of_the_release_folders_name(tmp_path, release_url):
    """loss: D/anecdotes a user's symlink to their own folder: `data fetch --dest D` deleted the link and put a folder in
    its place, exit 0; it must refuse in one line naming D/anecdotes, the link kept."""
    dest, theirs = tmp_path/'data', tmp_path/'theirs'
    dest.mkdir()
    theirs.mkdir()
    (theirs/'dev.scruples-anecdotes.jsonl').write_text('{"id": "mine"}\n')
    (dest/'anecdotes').symlink_to(theirs, target_is_directory=True)
    r = scruples('data', 'fetch', '--which', 'anecdotes', '--dest', dest, '--no-progress', '--url', release_url)
    assert (dest/'anecdotes').is_symlink(), 'the user\'s link was replaced: ' + r.stdout + r.stderr
    assert (theirs/'dev.scruples-anecdotes.jsonl').read_text() == '{"id": "mine"}\n'
    assert r.returncode == 1 and 'Traceback' not in r.stderr and 'anecdotes' in r.stderr, r.stderr


def _sample_dumps():
    from scruples.dumps import GOLD_DIR
    return GOLD_DIR/'RS_sample.zst', GOLD_DIR/'RC_sample.zst'


@pytest.mark.parametrize('flag', [['--dev-size', '5'], ['--test-size', '7'], ['--seed', '3']])
def test_extract_split_flags_with_no_splits_are_refused(tmp_path, flag):
    """wrong: `extract --no-splits --dev-size 5` (or --test-size, --seed: options of the splits and the Dilemmas) ran with
    exit 0 and the flag ignored; it must be refused in one line naming the flag and --no-splits, nothing written."""
    out = tmp_path/'out'
    r = scruples('extract', *_sample_dumps(), '--out', out, '--workers', '1', '--no-splits', *flag, '--no-progress')
    assert r.returncode == 1 and 'Traceback' not in r.stderr, (r.returncode, r.stderr[-2000:])
    line = r.stderr.strip().splitlines()[-1]
    assert flag[0] in line and '--no-splits' in line, line
    assert not (out/'anecdotes.jsonl').exists()


def test_analyze_epochs_with_a_frozen_encoder_is_refused(tmp_path):
    """wrong: `analyze --finetune no --epochs 3` ran (exit 0) with summary.csv identical to --epochs 1 but the timing
    (the frozen encoder has no epochs): the flag must be refused in one line naming --epochs and --finetune."""
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(1)
    n = 30
    pd.DataFrame({'id': [f'i{k}' for k in range(n)], 'text': [f'text number {k} about a thing' for k in range(n)],
                  'yes': rng.integers(0, 5, n), 'no': rng.integers(0, 5, n), 'maybe': rng.integers(0, 3, n)}
                 ).to_csv(tmp_path/'w.csv', index=False)
    out = tmp_path/'out'
    r = scruples('analyze', tmp_path/'w.csv', '--out', out, '--seed', '1', '--finetune', 'no', '--epochs', '3',
                 '--param', 'budget=2', '--param', 'n_boot=20', '--param', 'best_samples=200', '--param',
                 'baselines=Prior,Logistic', '--param', 'likelihoods=soft', timeout=600)
    assert r.returncode == 1 and 'Traceback' not in r.stderr, (r.returncode, r.stderr[-2000:])
    line = r.stderr.strip().splitlines()[-1]
    assert '--epochs' in line and '--finetune' in line, line
    assert not (out/'summary.csv').exists()
