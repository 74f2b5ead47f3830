"""`scruples ARGV` as a user runs it: one subprocess helper for the tests that meet the package as a command."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = 'import sys; from scruples.cli import main; sys.exit(main())'


def cli_env(**extra) -> dict:
    "The environment a command runs in: this checkout first on the path (unless PYTHONPATH says otherwise), offline."
    return os.environ.copy() | {'PYTHONPATH': os.environ.get('PYTHONPATH') or str(ROOT), 'HF_HUB_OFFLINE': '1'} | extra


def scruples(*argv, timeout=300, cwd=None, env: dict|None=None) -> subprocess.CompletedProcess:
    "`scruples ARGV` in a subprocess, its output captured; `env` adds variables to `cli_env()`."
    return subprocess.run([sys.executable, '-c', CLI, *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, env=cli_env(**(env or {})), cwd=cwd)


def in_process(*argv) -> tuple[int, str, str]:
    "`scruples ARGV` in this process (a test may replace a function inside it): (exit status, stdout, stderr)."
    import contextlib
    import io

    from scruples.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def run_by(folder, command: str, by: str, values, *flags) -> subprocess.CompletedProcess:
    """`scruples COMMAND long.csv --by BY --annotators ann.csv --bootstrap 0` on simulated votes of four annotators in two
    groups, the annotators' BY column set to `values` (written into `folder`)."""
    from scruples.perspectives import simulate_perspectives

    folder = Path(folder)
    long, ann = simulate_perspectives(n_items=30, groups={'a': 2, 'b': 2}, seed=1)
    long.to_csv(folder/'long.csv', index=False)
    ann.assign(**{by: values}).to_csv(folder/'ann.csv', index=False)
    return scruples(command, folder/'long.csv', '--by', by, '--annotators', folder/'ann.csv', '--bootstrap', '0', *flags)


def shuffled_votes(tmp_path):
    """A long table of 60 items, 4 labels each by 7 annotators, 3 classes (`votes.csv`), and the same rows in another
    order (`shuffled.csv`): for tests that the numbers do not depend on the rows' order."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(5)
    rows = [(f'it{i:03d}', a, rng.choice(['yes', 'no', 'maybe'], p=[.5, .3, .2]))
            for i in range(60) for a in rng.choice(list('abcdefg'), 4, replace=False)]
    d = pd.DataFrame(rows, columns=['item', 'annotator', 'label'])
    d.to_csv(tmp_path / 'votes.csv', index=False)
    d.sample(frac=1, random_state=2).to_csv(tmp_path / 'shuffled.csv', index=False)
    return d


def gold_votes(rng, n: int = 30):
    """Counts of `n` items over yes/no/maybe (5 votes each, Dirichlet-multinomial drawn from `rng`) with an `id` column
    1..n: the gold table several round-4 tests write; `rng` goes on to draw what the test draws next."""
    import pandas as pd

    gold = pd.DataFrame([rng.multinomial(5, q) for q in rng.dirichlet([1, 1, 1], n)], columns=['yes', 'no', 'maybe'])
    gold.insert(0, 'id', range(1, n + 1))
    return gold
