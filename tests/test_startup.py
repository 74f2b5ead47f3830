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
print(json.dumps({'rc': rc, 'modules': sorted({m.split('.')[0] for m in sys.modules}), 'all': sorted(sys.modules)}), file=sys.stderr)
'''


def probe(*argv) -> dict:
    "Run `scruples ARGV` in a fresh interpreter: its exit status (`rc`), the top-level modules it imported (`modules`) and all of them (`all`)."
    env = {'PYTHONPATH': str(REPO), 'PATH': '/usr/bin:/bin', 'HOME': str(Path.home()), 'HF_HUB_OFFLINE': '1'}
    p = subprocess.run([sys.executable, '-c', PROBE, *argv], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    return json.loads(p.stderr.strip().splitlines()[-1])


def imported_by(*argv) -> tuple[int, set]:
    "Run `scruples ARGV` in a fresh interpreter: its exit status and the top-level modules it imported."
    res = probe(*argv)
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


# --- issue 23: `scruples best` on a small counts file starts in about 0.3 s: pandas (0.25 s) only where a format needs it -----

COUNTS = '[[3, 1, 0], [0, 4, 1], [2, 2, 1], [5, 0, 0], [1, 1, 3], [0, 0, 5]]'


@pytest.mark.parametrize('name, content, argv', [
    ('counts.json', COUNTS, []),
    ('counts.json', COUNTS, ['--json']),
    ('dev.scruples-dilemmas_label-counts.json', '[[4, 1], [2, 3], [0, 5]]', ['--metric', 'accuracy', 'xentropy']),
    ('counts.json', COUNTS, ['--labels', 'LABELS']),
])
def test_best_on_a_counts_file_imports_no_pandas(tmp_path, name, content, argv):
    (tmp_path/name).write_text(content)
    (tmp_path/'labels.json').write_text('[0, 1, 0, 0, 2, 2]')
    argv = [str(tmp_path/'labels.json') if a == 'LABELS' else a for a in argv]
    res = probe('best', str(tmp_path/name), '--samples', '200', '--bootstrap', '10', *argv)
    mods = set(res['modules'])
    assert res['rc'] == 0 and {'numpy', 'scipy'} <= mods  # it did compute
    assert not mods & {'pandas', 'pyarrow', *DEEP}, f'`scruples best` on {name} imports {sorted(mods & {"pandas", "pyarrow", *DEEP})}'


def fresh_modules(*names) -> set:
    "All modules a fresh interpreter holds after importing `names`."
    code = f'import sys, {", ".join(names)}; print(" ".join(sorted(sys.modules)))'
    p = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, cwd=REPO, timeout=120,
                       env={'PYTHONPATH': str(REPO), 'PATH': '/usr/bin:/bin', 'HOME': str(Path.home())})
    assert p.returncode == 0, p.stderr
    return set(p.stdout.split())


def test_best_modules_import_pandas_only_where_used():
    "Importing the modules on the `best` path loads no pandas; metrics and the readers load no scipy.optimize (the calibration imports it)."
    mods = fresh_modules('scruples.data', 'scruples.annotations', 'scruples.metrics', 'scruples.best', 'scruples.cli')
    assert 'pandas' not in mods and 'pyarrow' not in mods
    assert 'scipy.optimize' not in fresh_modules('scruples.data', 'scruples.annotations', 'scruples.metrics')


def test_best_on_a_counts_file_imports_no_scipy_optimize(tmp_path):
    (tmp_path/'counts.json').write_text(COUNTS)
    res = probe('best', str(tmp_path/'counts.json'), '--samples', '200', '--bootstrap', '0')
    assert res['rc'] == 0 and 'scipy.optimize' not in res['all']


def test_every_public_signature_evaluates():
    "The docs evaluate type hints (`signature(eval_str=True)`): a module that defers pandas must still resolve `pd.DataFrame`."
    import importlib, inspect, pkgutil
    import scruples
    bad = []
    for m in pkgutil.iter_modules(scruples.__path__):
        if m.name.startswith('_'): continue
        mod = importlib.import_module(f'scruples.{m.name}')
        for name in getattr(mod, '__all__', []):
            obj = getattr(mod, name)
            members = [v for k, v in vars(obj).items() if callable(v) and not k.startswith('_')] if inspect.isclass(obj) else []
            for t in [obj, *members]:
                if not callable(t): continue
                try: inspect.signature(t, eval_str=True)
                except (ValueError, TypeError): pass  # builtins without a signature: the docs skip them too
                except Exception as e: bad.append(f'scruples.{m.name}.{getattr(t, "__qualname__", name)}: {type(e).__name__}: {e}')
    assert not bad, '\n'.join(bad)


def test_agree_on_counts_imports_no_scikit_learn(tmp_path):
    """`scruples agree` on counts alone (no annotators) loads no scikit-learn (0.3 s of its 1.5 s start-up): it uses none.
    Nor statsmodels and scipy.stats (issue 43): Fleiss' kappa is computed as statsmodels computes it (the notebook's
    tests compare them), without the 0.3-0.5 s of their import."""
    f = tmp_path/'counts.json'
    f.write_text(COUNTS)
    res = probe('agree', str(f), '--bootstrap', '20')
    mods = set(res['modules'])
    assert res['rc'] == 0
    assert 'krippendorff' in mods  # it did compute
    assert not mods & {'torch', 'transformers', 'sklearn', 'crowdkit', 'matplotlib', 'statsmodels'}, sorted(mods)
    assert 'scipy.stats' not in res['all']


def test_score_imports_no_scipy_stats(tmp_path):
    """`scruples score` loaded scipy.stats (0.4 s of its start, issue 43) for one function, `entropy` (the KL
    divergence): KL is scipy's sum of `rel_entr` now (the notebook compares it with `entropy` to 1e-12). (scipy.optimize,
    0.15 s, stays: the calibration's temperature is fitted with it.)"""
    (tmp_path/'gold.csv').write_text('id,yes,no\na,3,1\nb,2,2\nc,4,0\nd,1,3\ne,0,4\n')
    (tmp_path/'pred.csv').write_text('id,yes,no\na,0.7,0.3\nb,0.5,0.5\nc,0.9,0.1\nd,0.2,0.8\ne,0.1,0.9\n')
    res = probe('score', str(tmp_path/'pred.csv'), str(tmp_path/'gold.csv'), '--counts', 'yes,no', '--bootstrap', '20')
    assert res['rc'] == 0
    assert 'scipy.special' in res['all']  # it did compute
    assert not {'scipy.stats', 'statsmodels'} & set(res['all']), sorted(res['all'])
