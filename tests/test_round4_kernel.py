"""Issue 39/40: a notebook run by `run_notebook` (what `scruples analyze` and `reproduce` use) that succeeded logs
nothing from its kernel: no "Kernel is running over TCP without encryption", no "KeyboardInterrupt caught in kernel",
and joblib's worker processes are not killed by a shutdown interrupt (which leaked their memory-mapped folders)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUN = '''
import sys, nbformat
from scruples.reproduce import default_kernel, run_notebook
cell = ("from joblib import Parallel, delayed\\nimport numpy as np\\n"
        "print(Parallel(n_jobs=2)(delayed(np.sum)(np.ones(10**6)) for _ in range(4)))")
nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)]), sys.argv[1] + '/a.ipynb')
run_notebook(sys.argv[1] + '/a.ipynb', sys.argv[1] + '/b.ipynb', {}, default_kernel(), sys.argv[1])
'''


@pytest.mark.parametrize('attempt', range(2))
def test_a_notebook_run_with_joblib_workers_logs_no_kernel_noise(tmp_path, attempt):
    env = os.environ.copy() | {'PYTHONPATH': os.environ.get('PYTHONPATH') or str(ROOT)}
    r = subprocess.run([sys.executable, '-c', RUN, str(tmp_path)], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert '1000000.0' in (tmp_path/'b.ipynb').read_text()  # the cell ran
    for noise in ('IPKernelApp', 'KeyboardInterrupt', 'LokyProcess', 'leaked'):
        assert noise not in r.stderr, r.stderr[-3000:]


def test_a_failing_cell_still_fails_the_run_with_its_error(tmp_path):
    "Quiet is not blind: a cell's error fails the run and names the error."
    import nbformat
    from papermill.exceptions import PapermillExecutionError
    from scruples.reproduce import default_kernel, run_notebook
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('raise ValueError("boom")')]),
                   tmp_path/'a.ipynb')
    with pytest.raises(PapermillExecutionError, match='boom'):
        run_notebook(tmp_path/'a.ipynb', tmp_path/'b.ipynb', {}, default_kernel(), tmp_path)


def test_a_kernel_that_used_joblib_has_no_child_left_when_asked_to_shut_down():
    """Issue 43: ipykernel's shutdown signals each child process (SIGTERM, then SIGKILL) and waits until none is left,
    up to 14.4 s a signal; the resource trackers of multiprocessing and joblib ignore SIGTERM and a killed one stays an
    unreaped zombie, so every notebook that had used joblib (the guide, `analyze`, the paper runs) took 29 s to end. The
    kernel manager now ends joblib's workers and the trackers in the kernel before its shutdown request: none is left
    when the request goes (before, the two trackers were)."""
    import psutil
    from scruples.reproduce import KERNEL_ENV, default_kernel, quiet_kernel_manager

    import asyncio

    async def run():
        km = quiet_kernel_manager()(kernel_name=default_kernel())
        await km.start_kernel()
        try:
            kc = km.client()
            kc.start_channels()
            await kc.wait_for_ready(timeout=60)
            reply = await kc.execute_interactive('from joblib import Parallel, delayed\nimport numpy as np\n'
                                                 'x = Parallel(n_jobs=2)(delayed(np.sum)(np.ones(10**5)) for _ in range(4))',
                                                 timeout=120, output_hook=lambda msg: None)
            assert reply['content']['status'] == 'ok'
            kernel = psutil.Process(km.provisioner.process.pid)
            assert kernel.children(), 'joblib started no process: the test tests nothing'
            kc.stop_channels()
            await km._async_request_shutdown()  # what shutdown_kernel calls (AsyncKernelManager.request_shutdown is the base's)
            return kernel.children()
        finally:
            await km.shutdown_kernel(now=True)

    assert asyncio.run(run()) == []  # not even a zombie: each child ended and was reaped
    assert KERNEL_ENV  # the kernels' environment is unchanged by this
