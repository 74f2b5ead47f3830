"""Installing the package prints no setuptools warning boxes: every data folder of the package is declared
(`Package would be ignored` named each one undeclared), and the licence is an SPDX expression where setuptools wants
one. Builds a wheel of a copy of the tracked package files with `python -m build --wheel --no-isolation`."""
import shutil, subprocess, sys, zipfile

import pytest

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALARMS = ('Package would be ignored', 'is absent from the `packages` configuration',
          'License classifiers are deprecated', 'SetuptoolsDeprecationWarning')


def test_wheel_builds_without_setuptools_warnings(tmp_path):
    pytest.importorskip('build')
    try: files = subprocess.run(['git', 'ls-files', '--cached', '--others', '--exclude-standard'], cwd=ROOT, check=True,
                                capture_output=True, text=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError): pytest.skip('not a git checkout (or no git)')
    src = tmp_path/'src'
    for f in files:
        if (f.startswith('scruples/') or '/' not in f or f == 'nbs/guides/your_data.ipynb') and (ROOT/f).is_file():
            (src/f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT/f, src/f)
    r = subprocess.run([sys.executable, '-m', 'build', '--wheel', '--no-isolation', '--outdir', str(tmp_path/'dist'),
                        str(src)], capture_output=True, text=True)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-3000:]
    alarms = [line.strip() for line in out.splitlines() if any(a in line for a in ALARMS)]
    assert not alarms, 'setuptools warned while building the wheel:\n' + '\n'.join(alarms)
    whl, = (tmp_path/'dist').glob('scruples-*.whl')
    names = zipfile.ZipFile(whl).namelist()
    data = [f'scruples/{d}/' for d in ('published', 'reference/mcm', 'guide_data', 'extraction_data')]
    missing = [d for d in data if not any(n.startswith(d) for n in names)]
    assert not missing, f'data folders missing from the wheel: {missing}'
