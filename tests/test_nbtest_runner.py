"""scripts/nbtest.py (the Makefile's `nbtest`): nbdev_test, minus the wait for joblib's idle workers at its end."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _notebook(path: Path, sources: list[str]):
    cells = [{'cell_type': 'code', 'execution_count': None, 'id': f'c{i}', 'metadata': {}, 'outputs': [], 'source': s}
             for i, s in enumerate(sources)]
    path.write_text(json.dumps({'cells': cells, 'metadata': {'kernelspec': {'language': 'python', 'name': 'python3', 'display_name': 'Python 3'}},
                                'nbformat': 4, 'nbformat_minor': 5}))


def test_a_notebook_using_joblib_does_not_hold_the_run_for_its_idle_workers(tmp_path):
    "nbdev_test's pool worker joins its children when it exits; loky's idle workers wait 300 s. The runner stops them."
    nb = tmp_path/'uses_joblib.ipynb'
    _notebook(nb, ['from joblib import Parallel, delayed',
                   'assert Parallel(n_jobs=2)(delayed(abs)(-i) for i in range(4)) == [0, 1, 2, 3]'])
    env = {**os.environ, 'PYTHONPATH': str(ROOT)}
    # Before the runner: this call waited about 300 s (loky's idle timeout) after the notebook had passed.
    p = subprocess.run([sys.executable, str(ROOT/'scripts'/'nbtest.py'), '--path', str(nb), '--n_workers', '2'],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=150)
    assert p.returncode == 0, p.stdout + p.stderr
    assert 'Success' in p.stdout


def test_a_failing_notebook_still_fails(tmp_path):
    nb = tmp_path/'fails.ipynb'
    _notebook(nb, ['from joblib import Parallel, delayed', 'Parallel(n_jobs=2)(delayed(abs)(-i) for i in range(2))', 'assert False, "expected"'])
    p = subprocess.run([sys.executable, str(ROOT/'scripts'/'nbtest.py'), '--path', str(nb), '--n_workers', '2'],
                       cwd=ROOT, env={**os.environ, 'PYTHONPATH': str(ROOT)}, capture_output=True, text=True, timeout=150)
    assert p.returncode != 0
    assert 'fails.ipynb' in p.stderr


def test_notebooks_run_at_once_share_the_cores(tmp_path):
    "Issue 43: with `--n_workers 2` each notebook's BLAS gets half the cores (OpenBLAS's threads fought, 30x slower)."
    from scruples.reproduce import THREAD_VARS
    share = max(1, len(os.sched_getaffinity(0)) // 2)
    nbs = []
    for i in range(2):
        nbs.append(tmp_path/f'n{i}.ipynb')
        _notebook(nbs[-1], ['import os, numpy\nfrom threadpoolctl import threadpool_info',
                            f'assert os.environ["OPENBLAS_NUM_THREADS"] == "{share}", os.environ.get("OPENBLAS_NUM_THREADS")',
                            f'assert {{i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}} == {{{share}}}'])
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS} | {'PYTHONPATH': str(ROOT)}
    p = subprocess.run([sys.executable, str(ROOT/'scripts'/'nbtest.py'), '--path', str(tmp_path), '--n_workers', '2'],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=150, check=False)
    assert p.returncode == 0 and 'Success' in p.stdout, p.stdout + p.stderr
