"""A notebook run by hand leaves the checkout clean: the guide run in place, as JupyterLab runs it (its folder as the
working directory, its default output folder), writes only where the repository's .gitignore covers it.

Papermill runs nbs/guides/your_data.ipynb at its smallest size with the executed copy in a temp folder; `git status
--porcelain` must read the same before and after. Skips outside a git checkout.
"""
import json, shutil, subprocess, time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT/'nbs'/'guides'/'your_data.ipynb'
SMALLEST = dict(max_items=40, epochs=1, budget=2, n_boot=20, best_samples=200, baselines='Prior',
                likelihoods='soft', finetune='no', trait_items=6)


def git_status():
    try: r = subprocess.run(['git', '-C', str(ROOT), 'status', '--porcelain', '--untracked-files=all'],
                            capture_output=True, text=True, check=True, timeout=60)
    except (OSError, subprocess.CalledProcessError): pytest.skip('not a git checkout (or no git)')
    return r.stdout


def default_out_dir():
    "The guide's default output folder (its `out_dir` parameter), as papermill reads it."
    from papermill.inspection import inspect_notebook
    return inspect_notebook(str(GUIDE))['out_dir']['default'].strip('\'"')


def test_guide_run_in_place_leaves_git_status_clean(tmp_path):
    import papermill as pm
    from scruples.reproduce import default_kernel
    out = GUIDE.parent/default_out_dir()
    existed = out.exists()
    before, start = git_status(), time.time()
    try:
        pm.execute_notebook(str(GUIDE), str(tmp_path/'your_data.ipynb'), kernel_name=default_kernel(),
                            progress_bar=False, cwd=str(GUIDE.parent), parameters=SMALLEST)
        written = [p for p in out.rglob('*') if p.is_file() and p.stat().st_mtime >= start - 1]
        assert written, f'the run wrote nothing into {out} (its default output folder)'
        after = git_status()
        assert after == before, f'a run of the guide in place changed `git status`:\nbefore:\n{before}\nafter:\n{after}'
        assert json.loads((tmp_path/'your_data.ipynb').read_text())['cells'], 'no executed notebook'
    finally:
        if not existed: shutil.rmtree(out, ignore_errors=True)  # only a folder this test made
