"""Issue 43, `scruples analyze` in 1 GB: the kernels `run_notebook` starts use glibc's allocator settings
(`reproduce.KERNEL_ENV`: freed memory goes back to the system), and `estimate_fit` measures on the frozen mode's one
encoder, leaving it as the frozen mode needs it (eval mode, weights unchanged). The peak itself is measured by
benchmarks/bench_analyze_memory.py, not here."""
import json
import os

import nbformat
import numpy as np
import pytest


def test_kernels_start_with_the_allocator_settings_and_a_users_own_value_wins(tmp_path, monkeypatch):
    from scruples.reproduce import KERNEL_ENV, default_kernel, run_notebook
    names = sorted(KERNEL_ENV)
    assert {'MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_'} <= set(names)
    for k in names: monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv('MALLOC_ARENA_MAX', '4')  # the user's own
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        f"import json, os; open('env.json', 'w').write(json.dumps({{k: os.environ.get(k) for k in {names!r}}}))")])
    nbformat.write(nb, tmp_path/'a.ipynb')
    run_notebook(tmp_path/'a.ipynb', tmp_path/'b.ipynb', {}, default_kernel(), tmp_path)
    seen = json.loads((tmp_path/'env.json').read_text())
    assert seen == KERNEL_ENV | {'MALLOC_ARENA_MAX': '4'}, seen
    assert os.environ['MALLOC_ARENA_MAX'] == '4' and 'MALLOC_MMAP_THRESHOLD_' not in os.environ  # the caller's own


def test_estimate_fit_measures_on_the_frozen_encoder_and_leaves_it_as_it_was(tmp_path, monkeypatch):
    "One encoder load for the estimate and the frozen embeddings (it was two); the embeddings are a fresh encoder's."
    import scruples.models as M
    texts = [f'I helped my neighbour {i} times this week.' for i in range(24)]
    loads, real = [], M.load_encoder
    monkeypatch.setattr(M, 'load_encoder', lambda *a, **k: loads.append(a) or real(*a, **k))
    M._frozen_encoder.cache_clear()
    try:
        est = M.estimate_fit(texts[:16], n_val=4, n_test=4, max_length=32, batch_size=4, steps=2)
        assert est.train_rate > 0 and est.embed_rate > 0
        after = M.embed_texts(texts, max_length=32, cache=False)
        assert len(loads) == 1, loads
        _, enc = M._frozen_encoder(None, str(M.pick_device()))
        assert not enc.training and all(p.grad is None for p in enc.parameters())
        M._frozen_encoder.cache_clear()
        fresh = M.embed_texts(texts, max_length=32, cache=False)  # a new load: weights as shipped
        assert len(loads) == 2
        np.testing.assert_allclose(after, fresh, atol=1e-6)
    finally:
        M._frozen_encoder.cache_clear()


def test_analyze_waits_for_the_kernel_without_pandas_or_the_table(tmp_path):
    """`scruples analyze` reads the table in a process of its own: the command's process reaches the notebook run holding
    no pandas, numpy or pyarrow (about 150 MB more for the whole run), with the reading resolved and checked there."""
    import subprocess, sys
    (tmp_path / 'v.csv').write_text('id,text,a,b\n' + ''.join(f'i{i},text {i},{i % 3},2\n' for i in range(12)))
    code = f"""
import json, sys
import scruples.guide as g
from scruples.cli import main
seen = {{}}
def fake(file, out, **kw):
    seen['modules'] = sorted(m for m in ('pandas', 'numpy', 'pyarrow', 'scipy') if m in sys.modules)
    seen['checked'], seen['read'], seen['reading'] = kw['resolved'].checked, kw['resolved'].read, kw['resolved']['reading']
    import pandas as pd
    return pd.DataFrame({{'section': ['data'], 'quantity': ['items'], 'value': [12.0]}})
g.analyze = fake
rc = main(['analyze', {str(tmp_path / 'v.csv')!r}, '--out', {str(tmp_path / 'o')!r}, '--counts', 'a,b', '--epochs', '2'])
print(json.dumps(seen | {{'rc': rc}}))
"""
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=300)
    seen = json.loads(r.stdout.strip().splitlines()[-1])
    assert seen['rc'] == 0 and seen['modules'] == [] and seen['checked'], (seen, r.stderr)
    assert '12 items' in seen['read'] and json.loads(seen['reading'])['counts'] == 'a,b'


def test_analyze_says_a_bad_input_read_in_its_reading_process_as_before(tmp_path):
    "The reading process's error is the command's one line (exit 1), its notes are the command's notes."
    import subprocess, sys
    from pathlib import Path
    (tmp_path / 'v.csv').write_text('id,text,a,b\n' + ''.join(f'i{i},text {i},{i % 3},2\n' for i in range(12)))
    exe = str(Path(sys.executable).parent / 'scruples')
    r = subprocess.run([exe, 'analyze', str(tmp_path / 'v.csv'), '--counts', 'a,nope', '--out', str(tmp_path / 'o')],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and r.stderr.startswith('scruples: error: ') and "field 'nope'" in r.stderr, r.stderr
    assert 'Traceback' not in r.stderr and len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / 'o').exists()


def test_papermill_comes_without_pyarrow_and_pyarrow_still_loads_after():
    "`reproduce._papermill`: papermill imported in a fresh process holds neither pyarrow nor numpy; both load after."
    import subprocess, sys
    code = ("import sys; from scruples.reproduce import _papermill; pm = _papermill(); "
            "print(sorted(m for m in ('pyarrow', 'numpy', 'pandas') if m in sys.modules)); "
            "import pyarrow.parquet, pandas; print(pm.__name__, pandas.__name__)")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.splitlines() == ['[]', 'papermill pandas'], (r.stdout, r.stderr)


def test_analyze_from_a_users_script_without_a_main_guard(tmp_path):
    """`scruples.cli.main(['analyze', ...])` at the top of a user's script (no `if __name__ == '__main__'`): the reading
    process runs the package's code only, not the script again (multiprocessing's spawn would, and fail)."""
    import subprocess, sys
    (tmp_path / 'v.csv').write_text('id,text,a,b\n' + ''.join(f'i{i},text {i},{i % 3},2\n' for i in range(12)))
    (tmp_path / 'run.py').write_text(
        "import sys\nfrom scruples.cli import main\nprint('script ran')\n"
        f"sys.exit(main(['analyze', {str(tmp_path / 'v.csv')!r}, '--counts', 'a,nope', '--out', {str(tmp_path / 'o')!r}]))\n")
    r = subprocess.run([sys.executable, str(tmp_path / 'run.py')], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and r.stdout.count('script ran') == 1 and "field 'nope'" in r.stderr, (r.stdout, r.stderr)
    assert 'Traceback' not in r.stderr and 'bootstrapping' not in r.stderr
