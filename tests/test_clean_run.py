"""A notebook run by hand leaves the checkout clean: the guide run in place, as JupyterLab runs it (its folder as the
working directory, its default output folder), writes only where the repository's .gitignore covers it.

Papermill runs nbs/guides/your_data.ipynb at a small size with the executed copy in a temp folder (conftest's
`shipped_guide_run`: the session's one run of the shipped guide in place, whose outputs test_guide.py reads too); `git
status --porcelain` must read the same before and after. Skips outside a git checkout.
"""
import json, subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT/'nbs'/'guides'/'your_data.ipynb'


def git_status():
    try: r = subprocess.run(['git', '-C', str(ROOT), 'status', '--porcelain', '--untracked-files=all'],
                            capture_output=True, text=True, check=True, timeout=60)
    except (OSError, subprocess.CalledProcessError): pytest.skip('not a git checkout (or no git)')
    return r.stdout


def default_out_dir():
    "The guide's default output folder (its `out_dir` parameter), as papermill reads it."
    from papermill.inspection import inspect_notebook
    return inspect_notebook(str(GUIDE))['out_dir']['default'].strip('\'"')


def test_guide_run_in_place_leaves_git_status_clean(shipped_guide_run):
    """The session's one run of the shipped guide in place, as this test ran it before (conftest's `shipped_guide_run`:
    `git status` before and after it; test_guide.py reads its outputs)."""
    run = shipped_guide_run
    if run['git_before'] is None: pytest.skip('not a git checkout (or no git)')
    assert run['error'] is None, run['error']
    assert Path(run['out_dir']) == GUIDE.parent/default_out_dir()
    assert run['written'], f'the run wrote nothing into {run["out_dir"]} (its default output folder)'
    assert run['git_after'] == run['git_before'], \
        f'a run of the guide in place changed `git status`:\nbefore:\n{run["git_before"]}\nafter:\n{run["git_after"]}'
    assert json.loads((run['out']/'your_data.ipynb').read_text())['cells'], 'no executed notebook'


def test_paper_notebook_run_by_hand_leaves_git_status_clean(tmp_path):
    """A paper notebook run as JupyterLab runs it (its folder as cwd, its default parameters but smoke) writes its figures
    into an ignored folder, not over the committed figures/ that `make reproduce` keeps."""
    import papermill as pm
    from scruples.reproduce import default_kernel
    nb = ROOT/'nbs'/'papers'/'07_extraction.ipynb'
    before = git_status()
    figures = sorted((ROOT/'figures').glob('extraction_*'))
    stamps = {p: p.stat().st_mtime for p in figures}
    pm.execute_notebook(str(nb), str(tmp_path/nb.name), kernel_name=default_kernel(), progress_bar=False,
                        cwd=str(nb.parent), parameters=dict(smoke=True, scheduler='sync'))
    assert git_status() == before, 'a paper notebook run by hand changed `git status`'
    assert all(p.stat().st_mtime == t for p, t in stamps.items()), 'a run by hand rewrote a committed figure'
    assert any((ROOT/'_runs'/'by_hand'/'figures').glob('extraction_*')), 'the run by hand wrote no figures'
