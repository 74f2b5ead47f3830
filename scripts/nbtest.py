"""`nbdev_test` (same arguments), without the five idle minutes at its end.

A notebook that runs joblib (scikit-learn's `n_jobs`, `LearnedDirection(n_jobs=2)`, the topic sweeps) leaves loky's
reusable worker processes behind; they wait 300 s for more work before they exit. nbdev_test runs the notebooks in a
multiprocessing pool, and a pool worker that exits joins its child processes, so the whole step waited for those idle
workers: 446 s measured for 35 notebooks whose own cells took about 145 s of wall time on 2 workers. Here each
notebook's loky workers are shut down as soon as it ends (about 0.05 s; the next notebook that needs them starts new ones).
Usage: python scripts/nbtest.py [nbdev_test arguments], e.g. --n_workers 2 --timing (the Makefile's `nbtest`).
"""
import os
import sys

from scruples.reproduce import thread_share


def _workers(argv) -> int:
    "nbdev_test's `--n_workers` (its default: the cores, at most 8)."
    for i, a in enumerate(argv):
        if a.startswith('--n_workers='):
            return int(a.split('=', 1)[1])
        if a == '--n_workers' and i + 1 < len(argv):
            return int(argv[i + 1])
    return min(len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count() or 1, 8)


if __name__ == '__main__':  # the notebooks run at once share the cores (before nbdev loads numpy; the workers inherit it)
    os.environ.update(thread_share(_workers(sys.argv[1:])))

import nbdev.test as nbdev_test_module

_test_nb = nbdev_test_module.test_nb


def test_nb_releasing_workers(*args, **kwargs):
    "nbdev's `test_nb`, then stop joblib's idle loky workers so this pool worker can exit at once."
    try:
        return _test_nb(*args, **kwargs)
    finally:
        if 'joblib' in sys.modules:
            from joblib.externals.loky import get_reusable_executor
            get_reusable_executor().shutdown(wait=True)


if __name__ == '__main__':
    # joblib's resource tracker (a process of its own, started by the first notebook that runs joblib) says at exit that
    # workers left memory-mapped folders registered ("resource_tracker: There appear to be N leaked folder objects to
    # clean up at shutdown") and removes them itself: nothing is left behind and nothing a notebook did is wrong, so the
    # tracker's warnings are not printed (issue 40: output a person reads). It inherits this filter from the environment.
    os.environ['PYTHONWARNINGS'] = ','.join(filter(None, [os.environ.get('PYTHONWARNINGS'), 'ignore:resource_tracker']))
    # by its module name (scripts/ is on sys.path), so the pool's workers can unpickle it
    from nbtest import test_nb_releasing_workers as by_name
    nbdev_test_module.test_nb = by_name  # nbdev_test looks test_nb up in its module when it runs
    nbdev_test_module.nbdev_test()
