"""The command line starts light: `scruples --help` imports none of the heavy libraries, and `scruples best`
none of the deep-learning or NLP ones. Checked on `sys.modules` in a fresh interpreter (a contract, not a timing:
`benchmarks/run_all.py` reports the seconds)."""
import json
import subprocess
import sys

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ('torch', 'transformers', 'sentence_transformers', 'spacy', 'sklearn', 'pandas', 'scipy', 'numpy', 'matplotlib',
         'seaborn', 'statsmodels', 'pyarrow', 'pooch', 'dask')
DEEP = ('torch', 'transformers', 'sentence_transformers', 'spacy', 'sklearn', 'matplotlib', 'seaborn', 'statsmodels', 'dask')

PROBE = '''
import json, sys
from scruples.cli import main
try: rc = main(sys.argv[1:])
except SystemExit as e: rc = e.code
print(json.dumps({'rc': rc, 'modules': sorted({m.split('.')[0] for m in sys.modules})}), file=sys.stderr)
'''


def imported_by(*argv) -> tuple[int, set]:
    "Run `scruples ARGV` in a fresh interpreter: its exit status and the top-level modules it imported."
    env = {'PYTHONPATH': str(REPO), 'PATH': '/usr/bin:/bin', 'HOME': str(Path.home()), 'HF_HUB_OFFLINE': '1'}
    p = subprocess.run([sys.executable, '-c', PROBE, *argv], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    res = json.loads(p.stderr.strip().splitlines()[-1])
    return res['rc'], set(res['modules'])


@pytest.mark.parametrize('argv', [['--help'], ['best', '--help'], ['data', 'stats', '--help'], ['mcm', 'score', '--help'], ['bogus']])
def test_help_imports_no_heavy_library(argv):
    rc, mods = imported_by(*argv)
    assert rc in (0, 2)
    assert not mods & set(HEAVY), f'`scruples {" ".join(argv)}` imports {sorted(mods & set(HEAVY))}: import them inside the command that uses them'


def test_best_imports_no_deep_learning_library(tmp_path):
    f = tmp_path/'counts.json'
    f.write_text('[[3, 1, 0], [0, 4, 1], [2, 2, 1], [5, 0, 0], [1, 1, 3], [0, 0, 5]]')
    rc, mods = imported_by('best', str(f), '--samples', '200', '--bootstrap', '0', '--metric', 'accuracy')
    assert rc == 0
    assert {'numpy', 'scipy'} <= mods  # it did compute
    assert not mods & set(DEEP), f'`scruples best` imports {sorted(mods & set(DEEP))}'
