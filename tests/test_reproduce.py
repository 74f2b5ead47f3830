"""`scruples.reproduce`: comparison rows, their summary, and the list of paper notebooks (papermill is not run here)."""
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scruples.core import ScruplesError
from scruples.reproduce import Comparison, ReproductionError, paper_notebooks, write_summary

REPO_ROOT = Path(__file__).resolve().parents[1]


def status(**kw):
    return Comparison('nb').add('Table 1', 'q', **kw).rows[-1]['status']


@pytest.mark.parametrize('kw,expected', [
    (dict(ours=0.807, paper=0.807), 'agrees'),
    (dict(ours=0.807, paper=0.804, tol=0.003), 'agrees'),  # |diff| == tol, up to float rounding
    (dict(ours=0.804, paper=0.807, tol=0.003), 'agrees'),
    (dict(ours=2340, paper=2340), 'agrees'),
    (dict(ours=np.int64(2340), paper=2340), 'agrees'),
    (dict(ours=0.807, paper=0.804, tol=0.002), 'differs'),
    (dict(ours=0.807, paper=0.804), 'differs'),
    (dict(ours=-1.0, paper=1.0, tol=1.5), 'differs'),
    (dict(ours=2341, paper=2340, tol=0.5), 'differs'),
    (dict(ours=0.807, paper=0.807, source='synthetic'), 'synthetic (not evidence)'),
    (dict(ours=0.807, paper=0.807, tol=1, source='real+synthetic'), 'synthetic (not evidence)'),
    (dict(ours=None, paper=0.807, source='synthetic'), 'synthetic (not evidence)'),
    (dict(ours=0.807, paper=0.807, source='real-label-counts'), 'agrees'),
    (dict(ours=0.5), 'ours only'),
    (dict(ours=0.5, paper=None, tol=1), 'ours only'),
    (dict(ours=None, paper=0.807), 'not computed'),
    (dict(ours=float('nan'), paper=0.807), 'not computed'),
    (dict(ours=pd.NA, paper=0.807), 'not computed'),
    (dict(ours=None), 'not computed'),
], ids=lambda x: x if isinstance(x, str) else None)
def test_status(kw, expected):
    assert status(**kw) == expected


def test_row_contents():
    c = Comparison('01_x')
    assert c.add('Table 8', 'human macro-F1 (dev)', np.float64(0.8067), 0.807, tol=0.0005, note='n') is c  # chains
    r = c.rows[0]
    assert r['notebook'] == '01_x' and r['table'] == 'Table 8' and r['quantity'] == 'human macro-F1 (dev)'
    assert type(r['ours']) is float and r['ours'] == 0.8067
    assert r['diff'] == pytest.approx(0.8067 - 0.807)
    assert (r['tol'], r['source'], r['note'], r['status']) == (0.0005, 'real', 'n', 'agrees')
    c.add('Table 1', 'x', None)
    assert c.rows[1]['ours'] is None and c.rows[1]['diff'] is None
    f = c.frame()
    assert tuple(f.columns) == Comparison.columns and len(f) == 2
    assert 'human macro-F1 (dev)' in repr(c) and 'notebook' not in repr(c)
    assert '<table' in c._repr_html_()
    assert tuple(Comparison('e').frame().columns) == Comparison.columns  # empty


def test_failed_run_raises_reproduction_error_and_writes_no_summary(tmp_path, monkeypatch):
    "Every notebook failing: a ScruplesError (the CLI prints one line, exit 1) naming each notebook, and no summary."
    import papermill
    from scruples.reproduce import reproduce
    def fail(src, dest, **kw): raise RuntimeError('kernel died\nat the end')
    monkeypatch.setattr(papermill, 'execute_notebook', fail)
    log = []
    with pytest.raises(ScruplesError) as ei:
        reproduce(smoke=True, out=tmp_path/'runs', fig_dir=tmp_path/'figs', notebooks=['01', '02'], kernel='python3', log=log.append)
    assert isinstance(ei.value, ReproductionError)
    msg = str(ei.value)
    assert 'no summary written' in msg and msg.count('RuntimeError: at the end') == 2
    assert '01_dataset_statistics.ipynb' in msg and sum('FAILED' in m for m in log) == 2
    assert not (tmp_path/'figs'/'summary.md').exists() and not (tmp_path/'figs'/'summary.csv').exists()


def test_partly_failed_run_summarises_what_ran(tmp_path, monkeypatch):
    "One notebook ran (its rows are saved), one failed: the summary holds the rows that exist, then the error is raised."
    import papermill
    from scruples.reproduce import reproduce
    def run(src, dest, parameters, **kw):
        if '01_' not in src: raise RuntimeError('boom')
        Comparison('01_dataset_statistics').add('Table 1', 'instances (dev)', 2340, 2340).save(parameters['fig_dir'])
    monkeypatch.setattr(papermill, 'execute_notebook', run)
    with pytest.raises(ReproductionError, match='boom'):
        reproduce(smoke=True, out=tmp_path/'runs', fig_dir=tmp_path/'figs', notebooks=['01', '02'], kernel='python3', log=lambda m: None)
    assert pd.read_csv(tmp_path/'figs'/'summary.csv')['quantity'].tolist() == ['instances (dev)']


def test_bad_arguments_write_nothing(tmp_path):
    from scruples.reproduce import reproduce
    with pytest.raises(ValueError, match="no paper notebook is named 'no-such-notebook'"):
        reproduce(notebooks=['no-such-notebook'], out=tmp_path/'o', fig_dir=tmp_path/'f')
    with pytest.raises(ValueError, match="no Jupyter kernel named 'nope'"):
        reproduce(kernel='nope', out=tmp_path/'o', fig_dir=tmp_path/'f')
    (tmp_path/'file').write_text('x')
    with pytest.raises(NotADirectoryError): reproduce(out=tmp_path/'o', fig_dir=tmp_path/'file')
    assert sorted(p.name for p in tmp_path.iterdir()) == ['file']


def fill(a: Comparison, b: Comparison):
    a.add('Table 1', 'instances (dev)', 2340, 2340).add('Table 1', 'annotations (dev)', 11700, 11700)
    a.add('Table 2', 'author share', 0.2978, 0.298, tol=0.0005).add('Table 2', 'info share', 0.03, 0.021, tol=0.0005)
    a.add('Section 2', 'median annotations', 8, note='from the real dev counts')
    b.add('Table 1', 'instances (train)', 27766, 27766, source='synthetic', note='no real train split')
    b.add('Table 8', 'best macro-F1', None, 0.848)


def test_save_and_summary_round_trip(tmp_path):
    a, b = Comparison('01_dataset_statistics'), Comparison('02_baselines')
    fill(a, b)
    pa, pb = a.save(tmp_path/'figs'), b.save(tmp_path/'figs')
    assert pa == tmp_path/'figs'/'01_dataset_statistics.rows.csv' and pa.is_file() and pb.is_file()
    (tmp_path/'figs'/'not-rows.csv').write_text('a,b\n1,2\n')  # ignored: not *.rows.csv
    rows = write_summary(tmp_path/'figs', title='Test run')
    assert len(rows) == 7
    assert list(rows.columns) == list(Comparison.columns)
    assert rows['notebook'].tolist() == ['01_dataset_statistics'] * 5 + ['02_baselines'] * 2
    assert rows['status'].tolist() == ['agrees', 'agrees', 'agrees', 'differs', 'ours only',
                                       'synthetic (not evidence)', 'not computed']
    expected = pd.concat([a.frame(), b.frame()], ignore_index=True)
    np.testing.assert_allclose(rows['ours'].to_numpy(float), expected['ours'].to_numpy(float), equal_nan=True)
    np.testing.assert_allclose(rows['paper'].to_numpy(float), expected['paper'].to_numpy(float), equal_nan=True)

    csv = pd.read_csv(tmp_path/'figs'/'summary.csv')
    assert len(csv) == 7 and list(csv.columns) == list(Comparison.columns)
    assert csv['quantity'].tolist() == expected['quantity'].tolist()

    md = (tmp_path/'figs'/'summary.md').read_text(encoding='utf-8')
    lines = md.splitlines()
    assert lines[0] == '# Test run'
    counts_line = next(l for l in lines if l.startswith('7 numbers from 2 notebooks: '))
    for part in ('3 agrees', '1 differs', '1 ours only', '1 synthetic (not evidence)', '1 not computed'):
        assert part in counts_line
    assert counts_line.endswith('.')
    # a paper notebook's heading is its title (a folder outside the checkout gets no link); another, its name
    assert lines.index('## Scruples, Tables 1 and 2: dataset statistics') < lines.index('## 02_baselines')
    table_rows = [l for l in lines if l.startswith('| Table') or l.startswith('| Section')]
    assert len(table_rows) == 7
    assert '| Table 1 | instances (dev) | 2,340 | 2,340 |' in md
    assert '| Table 1 | instances (train) | 27,766 | 27,766 |' in md and 'synthetic (not evidence)' in md
    assert 'no real train split' in md
    assert all(l.count('|') == 11 for l in table_rows)  # 10 cells; a NaN note is left empty, not 'nan'
    assert '| nan |' not in md.lower() and '| <na> |' not in md.lower()


def test_summary_overwrites_and_rereads(tmp_path):
    c = Comparison('01_a')
    c.add('Table 1', 'x', 1, 1)
    c.save(tmp_path)
    write_summary(tmp_path)
    c.add('Table 1', 'y', 2, 3)
    c.save(tmp_path)  # same notebook: the file is replaced, not appended to
    rows = write_summary(tmp_path)
    assert rows['quantity'].tolist() == ['x', 'y']
    assert '# Reproduction summary' in (tmp_path/'summary.md').read_text()


def test_summary_of_an_empty_folder(tmp_path):
    rows = write_summary(tmp_path)
    assert len(rows) == 0
    assert (tmp_path/'summary.md').is_file() and (tmp_path/'summary.csv').is_file()
    assert '0 numbers from 0 notebooks' in (tmp_path/'summary.md').read_text()


def test_paper_notebooks():
    nbs = paper_notebooks()
    assert REPO_ROOT/'nbs'/'papers'/'01_dataset_statistics.ipynb' in nbs
    assert nbs == sorted(nbs) and all(p.suffix == '.ipynb' and p.name[0].isdigit() for p in nbs)
    assert paper_notebooks(REPO_ROOT) == nbs


def test_paper_notebooks_of_another_root(tmp_path):
    papers = tmp_path/'nbs'/'papers'
    papers.mkdir(parents=True)
    for name in ('02_b.ipynb', '01_a.ipynb', 'scratch.ipynb', '03_c.py'): (papers/name).write_text('{}')
    assert [p.name for p in paper_notebooks(tmp_path)] == ['01_a.ipynb', '02_b.ipynb']
    assert paper_notebooks(tmp_path/'nowhere') == []


# --- issue 22 item 6: a failed notebook's stale rows, and --notebooks matched as substrings ---------------------------

@pytest.fixture
def fake_checkout(paper_checkout):
    "A checkout with two paper notebooks and a papermill whose runs write rows, or fail for the names in `failing`."
    failing, runs = set(), []
    def execute(src, dest, parameters, **kw):
        stem = Path(src).stem; runs.append(stem)
        if stem in failing:
            Comparison(stem).add('T', 'partial', 9.0).save(parameters['fig_dir'])  # rows written before the failure
            raise RuntimeError(f'{stem} broke')
        Comparison(stem).add('T', f'{stem} run {len(runs)}', 1.0, 1.0).save(parameters['fig_dir'])
    return paper_checkout(execute), failing, runs


def test_a_failed_notebook_leaves_no_stale_rows_in_the_summary(fake_checkout, tmp_path):
    from scruples.reproduce import reproduce
    root, failing, runs = fake_checkout
    figs = tmp_path/'figs'
    rows = reproduce(out=tmp_path/'out', fig_dir=figs, kernel='python3', log=lambda m: None)
    assert sorted(rows.notebook.unique()) == ['01_first', '02_second']
    failing.add('02_second')
    with pytest.raises(ReproductionError, match='02_second'): reproduce(out=tmp_path/'out', fig_dir=figs, kernel='python3', log=lambda m: None)
    summary = pd.read_csv(figs/'summary.csv')
    assert summary.notebook.unique().tolist() == ['01_first']  # was: 02_second's rows of the first run, as if fresh
    assert (figs/'02_second.rows.previous.csv').exists() and not (figs/'02_second.rows.csv').exists()
    failing.clear()
    reproduce(out=tmp_path/'out', fig_dir=figs, kernel='python3', log=lambda m: None)
    assert not (figs/'02_second.rows.previous.csv').exists()


@pytest.mark.parametrize('selector, expected', [('01', ['01_first']), ('2', ['02_second']), ('02_second', ['02_second']),
                                                ('01_first.ipynb', ['01_first'])])
def test_notebooks_are_selected_by_exact_names(fake_checkout, tmp_path, selector, expected):
    from scruples.reproduce import reproduce
    root, failing, runs = fake_checkout
    reproduce(out=tmp_path/'out', fig_dir=tmp_path/'figs', kernel='python3', notebooks=[selector], log=lambda m: None)
    assert runs == expected


@pytest.mark.parametrize('selector', ['s', 'repo', 'ipynb', 'first', '0', '03'])
def test_a_notebook_selector_matching_none_is_an_error(fake_checkout, tmp_path, selector):
    from scruples.reproduce import reproduce
    root, failing, runs = fake_checkout
    with pytest.raises(ValueError, match='no paper notebook is named'):
        reproduce(out=tmp_path/'out', fig_dir=tmp_path/'figs', kernel='python3', notebooks=['01', selector], log=lambda m: None)
    assert runs == []  # refused before anything ran


def test_key_and_reference():
    c = Comparison('x')
    c.add('Table 8', 'model F1', 0.70, reference=('Logistic', 'test macro F1'))
    c.add('Table 8', 'logistic F1', 0.643, key=('Logistic', 'test macro F1'))
    c.add('Table 7', 'mcm number', 0.1, key=('mcm', 'welcome', 'BERT-large Dos bias'), tol=0.1)
    r = c.frame()
    assert r.status.tolist() == ['ours only', 'agrees', 'agrees']
    assert r.reference[0] == pytest.approx(0.643) and pd.isna(r.paper[0])
    assert r.key[2] == 'mcm / Table 7 / welcome / BERT-large Dos bias'
    with pytest.raises(ValueError, match='a key is'):
        c.add('Table 8', 'q', 1.0, key=('Logistic',))


def test_summary_reads_rows_without_new_columns(tmp_path):
    pd.DataFrame([dict(notebook='01_a', table='T', quantity='q', ours=1.0, paper=1.0, diff=0.0, tol=0.0,
                       status='agrees', source='real', note='')]).to_csv(tmp_path/'01_a.rows.csv', index=False)
    rows = write_summary(tmp_path)
    assert list(rows.columns) == list(Comparison.columns) and rows.status.tolist() == ['agrees']


def test_paper_notebooks_look_published_numbers_up_by_key():
    "No paper notebook wraps its own lookup of published numbers: Comparison.add(key=...) and scruples.paper do it."
    import json
    wrappers = ('def paper_row(', 'def paper(', 'def _published(', 'SCRUPLES_T8 = {')
    for nb in paper_notebooks(REPO_ROOT):
        src = '\n'.join(''.join(c['source']) for c in json.loads(nb.read_text(encoding='utf-8'))['cells'])
        assert not [w for w in wrappers if w in src], nb.name


# --- issue 23: the smoke run keeps two kernels busy (`jobs`) -----------------------------------------------------------

def test_jobs_run_notebooks_at_once_and_report_failures_in_notebook_order(fake_checkout, tmp_path):
    import threading
    from scruples.reproduce import reproduce
    root, failing, runs = fake_checkout
    for s in ('03_third', '04_fourth'): (root/'nbs'/'papers'/f'{s}.ipynb').write_text('{}')
    rows = reproduce(out=tmp_path/'out', fig_dir=tmp_path/'figs', kernel='python3', jobs=2, log=lambda m: None)
    assert sorted(rows.notebook.unique()) == ['01_first', '02_second', '03_third', '04_fourth'] and sorted(runs) == sorted(set(runs))
    failing.update({'04_fourth', '02_second'})
    with pytest.raises(ReproductionError) as err:
        reproduce(out=tmp_path/'out', fig_dir=tmp_path/'figs', kernel='python3', jobs=3, log=lambda m: None)
    msg = str(err.value)
    assert msg.index('02_second') < msg.index('04_fourth')
    assert sorted(pd.read_csv(tmp_path/'figs'/'summary.csv').notebook.unique()) == ['01_first', '03_third']


def test_two_notebooks_really_overlap_with_two_jobs(fake_checkout, tmp_path, monkeypatch):
    "Each notebook waits until the other one has started: with jobs=1 this would deadlock (a timeout says so)."
    import threading
    import papermill
    from scruples.reproduce import reproduce
    root, failing, runs = fake_checkout
    both = threading.Barrier(2, timeout=30)
    def execute(src, dest, parameters, **kw):
        both.wait()
        Comparison(Path(src).stem).add('T', 'x', 1.0, 1.0).save(parameters['fig_dir'])
    monkeypatch.setattr(papermill, 'execute_notebook', execute)
    rows = reproduce(out=tmp_path/'out', fig_dir=tmp_path/'figs', kernel='python3', jobs=2, log=lambda m: None)
    assert sorted(rows.notebook) == ['01_first', '02_second']


@pytest.mark.parametrize('jobs', [0, -1, 1.5, True, '2'])
def test_bad_jobs_are_refused_before_anything_runs(fake_checkout, tmp_path, jobs):
    from scruples.reproduce import reproduce
    root, failing, runs = fake_checkout
    with pytest.raises(ValueError, match='jobs must be a positive integer'):
        reproduce(out=tmp_path/'out', fig_dir=tmp_path/'figs', kernel='python3', jobs=jobs, log=lambda m: None)
    assert runs == [] and not (tmp_path/'out').exists()


def test_jobs_accepts_any_integer_type(fake_checkout, tmp_path):
    import numpy as np
    from scruples.reproduce import reproduce
    rows = reproduce(out=tmp_path/'out', fig_dir=tmp_path/'figs', kernel='python3', jobs=np.int64(2), log=lambda m: None)
    assert sorted(rows.notebook.unique()) == ['01_first', '02_second']


def test_git_state_is_dirty_for_code_not_for_the_figures_a_run_writes(tmp_path):
    "A run's own figures/ do not make the code it ran 'uncommitted' (the paper pages' banner); a changed notebook does."
    import subprocess
    from scruples.reproduce import git_state
    g = lambda *a: subprocess.run(['git', '-C', str(tmp_path), *a], check=True, capture_output=True)
    (tmp_path/'figures').mkdir(); (tmp_path/'nbs').mkdir()
    (tmp_path/'figures'/'t.csv').write_text('a\n'); (tmp_path/'nbs'/'x.ipynb').write_text('{}\n')
    g('init', '-q'); g('add', '-A'); g('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'x')
    assert git_state(tmp_path)['dirty'] is False
    (tmp_path/'figures'/'t.csv').write_text('b\n')
    assert git_state(tmp_path)['dirty'] is False
    (tmp_path/'nbs'/'x.ipynb').write_text('{"cells": []}\n')
    assert git_state(tmp_path)['dirty'] is True


def _nb_writing_to_stderr(path, fail=False):
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import os\nos.write(2, b'kernel noise on fd 2\\n')"),
                nbformat.v4.new_code_cell('raise RuntimeError("the cell failed")' if fail else 'x = 1')]
    nbformat.write(nb, path)
    return path


@pytest.mark.parametrize('fail', [False, True])
def test_run_notebook_keeps_the_kernels_stderr_off_the_terminal(tmp_path, fail):
    """Issue 40: what a kernel writes to its stderr (joblib's resource tracker's tracebacks at exit in `make test`'s smoke
    run) does not reach the user's terminal; a run that succeeds leaves no log, a failed one names its log."""
    import shutil
    import tempfile
    nb = _nb_writing_to_stderr(tmp_path/'n.ipynb', fail)
    # the run's temporary files (the log, the kernel's IPC sockets) in a folder of this test's own, under /tmp: a
    # socket's path must stay under 108 characters, which pytest's own folders (under xdist) exceed
    temp = Path(tempfile.mkdtemp(prefix='scr-'))
    code = ('import sys, tempfile\nfrom scruples.reproduce import run_notebook\n'
            f'tempfile.tempdir = {str(temp)!r}\n'
            'try:\n'
            f'    run_notebook({str(nb)!r}, {str(tmp_path/"out.ipynb")!r}, {{}}, "python3", {str(tmp_path)!r})\n'
            'except Exception as e:\n'
            '    print("failed:", *getattr(e, "__notes__", []), sep="\\n")\n')
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=300,
                       env=os.environ | {'PYTHONPATH': str(REPO_ROOT)})
    logs = list(temp.glob('scruples-kernel-*.stderr.log'))
    shutil.rmtree(temp, ignore_errors=True)
    assert 'kernel noise' not in r.stderr, r.stderr
    if fail:
        assert 'failed:' in r.stdout and "the kernel's stderr" in r.stdout and 'kernel noise on fd 2' in r.stdout
        assert len(logs) == 1, logs  # kept, and named in the error with its lines (above)
    else:
        assert r.returncode == 0 and 'failed:' not in r.stdout and not logs, (r.stdout, r.stderr, logs)


# --- issue 39, fourth pass: a user's --out and --fig-dir are held by the rule of every command that writes there -----

def test_reproduce_into_a_users_folders_keeps_their_files(fake_checkout, tmp_path):
    "Reruns into its own folders go on; a user's file of a name it writes (or its own file the user edited) is refused."
    from scruples.reproduce import reproduce
    root, failing, runs = fake_checkout
    figs, out = tmp_path/'figs', tmp_path/'out'
    figs.mkdir()
    (figs/'notes.txt.bak').write_text('mine')  # a name reproduce does not write: neither refused nor touched
    quiet = dict(out=out, fig_dir=figs, kernel='python3', log=lambda m: None)
    reproduce(**quiet)
    reproduce(**quiet)  # a rerun into the folders it wrote
    assert (figs/'reproduce-manifest.json').is_file() and len(runs) == 4
    (figs/'summary.md').write_text('my edit')
    with pytest.raises(FileExistsError, match='summary.md'):
        reproduce(**quiet)
    assert (figs/'summary.md').read_text() == 'my edit' and len(runs) == 4  # refused before any notebook ran
    (figs/'summary.md').unlink()
    (figs/'my_plot.png').write_bytes(b'\x89PNG mine')  # a user's figure where the notebooks write theirs
    with pytest.raises(FileExistsError, match='my_plot.png'):
        reproduce(**quiet)
    assert (figs/'my_plot.png').read_bytes() == b'\x89PNG mine' and (figs/'notes.txt.bak').read_text() == 'mine'


def test_reproduce_into_the_checkouts_own_folders_needs_no_manifest(fake_checkout):
    "figures/ and _runs/ are the checkout's: the package's kept runs stand there without a manifest, and are rewritten."
    from scruples.reproduce import reproduce
    root, failing, runs = fake_checkout
    (root/'figures').mkdir()
    (root/'figures'/'summary.md').write_text('the kept run of the last commit')
    reproduce(kernel='python3', log=lambda m: None)
    assert 'the kept run' not in (root/'figures'/'summary.md').read_text()
    assert not (root/'figures'/'reproduce-manifest.json').exists()


@pytest.mark.parametrize('user', [None, '3'])
def test_notebooks_run_at_once_share_the_cores_and_the_users_threads_win(fake_checkout, tmp_path, monkeypatch, user):
    """Issue 43: each of `jobs` kernels gets the cores divided among them for BLAS (two kernels each with a thread
    per core: OpenBLAS's threads wait for each other, a small product 30x slower); a value the user set wins,
    and the process's environment is as it was afterwards."""
    import papermill

    from scruples.reproduce import THREAD_VARS, reproduce
    for k in THREAD_VARS:
        monkeypatch.delenv(k, raising=False)
    if user:
        monkeypatch.setenv('OPENBLAS_NUM_THREADS', user)
    seen = []
    def execute(src, dest, parameters, **kw):
        seen.append({k: os.environ.get(k) for k in THREAD_VARS})
        Comparison(Path(src).stem).add('T', 'x', 1.0, 1.0).save(parameters['fig_dir'])
    monkeypatch.setattr(papermill, 'execute_notebook', execute)
    cores = len(os.sched_getaffinity(0))
    reproduce(out=tmp_path/'out', fig_dir=tmp_path/'figs', kernel='python3', jobs=2, log=lambda m: None)
    share = str(max(1, cores // 2))
    assert seen == [{'OPENBLAS_NUM_THREADS': user or share, 'MKL_NUM_THREADS': share}] * 2
    assert {k: os.environ.get(k) for k in THREAD_VARS} == {'OPENBLAS_NUM_THREADS': user, 'MKL_NUM_THREADS': None}
    seen.clear()
    reproduce(out=tmp_path/'out', fig_dir=tmp_path/'figs', kernel='python3', jobs=1, log=lambda m: None)
    assert seen == [{'OPENBLAS_NUM_THREADS': user, 'MKL_NUM_THREADS': None}] * 2  # one at a time
