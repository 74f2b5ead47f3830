"""What a reader meets in the prose: names of the package that exist, no history or hand-written counts in the pages
(CHANGELOG.md holds the history), a CLI page that lists every command, valid package metadata, a Makefile pattern that
names real functions, JupyterLab saves that leave notebooks clean, and lines a reader can read.

Runs under pytest (`make test`) and as a script (`python tests/test_reader_path.py`: prints every finding, exit 1 if
any).
"""
from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NBS, LIB = ROOT/'nbs', ROOT/'scruples'

NAME_RE = re.compile(r'(?<![\w./-])scruples(?:\.[A-Za-z_]\w*)+')
_PROSE_IN_CODE = re.compile(r'#.*$|"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\n]*"|\'[^\'\n]*\'', re.M)


def notebooks() -> list[Path]:
    return [p for p in sorted(NBS.rglob('*.ipynb')) if '.ipynb_checkpoints' not in p.parts]


def prose(nb: Path):
    "(cell index, text) of what a reader reads in a notebook: markdown, and comments, docstrings and strings of code."
    for i, c in enumerate(json.loads(nb.read_text(encoding='utf-8'))['cells']):
        src = ''.join(c['source'])
        if c['cell_type'] == 'code': src = '\n'.join(m.group(0) for m in _PROSE_IN_CODE.finditer(src))
        yield i, src


def resolves(name: str) -> bool:
    "Whether `scruples.a.b.c` names a module of the package or an attribute reached from one."
    parts = name.split('.')
    for k in range(len(parts), 0, -1):
        try: obj = importlib.import_module('.'.join(parts[:k]))
        except ImportError: continue
        try:
            for p in parts[k:]: obj = getattr(obj, p)
        except AttributeError: return False
        return True
    return False


def wrong_names(root: Path = ROOT) -> list[str]:
    "Every `scruples.x.y` in the notebooks' prose and the README that names nothing (moved or renamed code)."
    found, texts = [], [(f'{nb.relative_to(root)} cell {i}', t) for nb in notebooks() for i, t in prose(nb)]
    texts.append(('README.md', (root/'README.md').read_text(encoding='utf-8')))
    for where, text in texts:
        for name in sorted({m.group(0).rstrip('.') for m in NAME_RE.finditer(text)}):
            if not resolves(name): found.append(f'{where}: {name} does not exist (where does it live now?)')
    return found


HISTORY = [(re.compile(r'(?<!scikit-learn )(?<!sklearn )\bissues? #?\d+', re.I),
            'an issue number (history goes to CHANGELOG.md)'),
           (re.compile(r'\bmigration\b|\bearlier wrapper\b|\bthe old (function|keyword|wrapper|name)', re.I),
            'a migration note (CHANGELOG.md holds them)'),
           (re.compile(r'\b(about|some|roughly) [\d,]+ lines\b|\b\d+ public names\b', re.I),
            'a hand-written count of lines or names (it drifts: say why the module is long, not how long)'),
           (re.compile(r'\(later work\)|\bnot yet implemented\b', re.I), 'a promise of later work')]


def history_in_pages() -> list[str]:
    "Issue numbers, migration notes, self-counts and promises in the notebooks' markdown (what the docs show)."
    found = []
    for nb in notebooks():
        for i, c in enumerate(json.loads(nb.read_text(encoding='utf-8'))['cells']):
            text = ''.join(c['source']) if c['cell_type'] == 'markdown' else ''
            for rx, why in HISTORY:
                for m in rx.finditer(text):
                    around = text[max(0, m.start()-40):m.end()+30]
                    found.append(f'{nb.relative_to(ROOT)} cell {i}: {why}: ...{around!r}...')
    return found


def cli_commands() -> list[str]:
    "Every command of the `scruples` command line, with its subcommands: ['data locate', ..., 'best', ...]."
    from scruples.cli import parser
    import argparse
    def walk(p, prefix):
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs: return [prefix.strip()]
        return [c for a in subs for name, q in a.choices.items() for c in walk(q, f'{prefix} {name}')]
    return walk(parser(), '')


def cli_page_table() -> str:
    "The command table of nbs/99_cli.ipynb (the markdown before the first exported cell)."
    cells = json.loads((NBS/'99_cli.ipynb').read_text(encoding='utf-8'))['cells']
    return '\n'.join(''.join(c['source']) for c in cells[:4] if c['cell_type'] == 'markdown')


def missing_cli_commands() -> list[str]:
    table = cli_page_table()
    return [f'nbs/99_cli.ipynb: the command table has no row for `scruples {c}`' for c in cli_commands()
            if not re.search(rf'^\| `scruples {re.escape(c)}\b', table, re.M)]


def nodata_pattern_names() -> list[str]:
    "The functions the Makefile's NODATA_PAT names (`name\\(`)."
    line = next(l for l in (ROOT/'Makefile').read_text().splitlines() if l.startswith('NODATA_PAT'))
    return re.findall(r'(\w+)\\\(', line)


def stale_nodata_names() -> list[str]:
    defined = {m.group(1) for py in LIB.glob('*.py')
               for m in re.finditer(r'^def (\w+)\(', py.read_text(encoding='utf-8'), re.M)}
    return [f'Makefile: NODATA_PAT names {n}(), which no module of the package defines' for n in nodata_pattern_names()
            if n not in defined]


MAX_LINE, MAX_LONG_SHARE = 120, 0.02


def long_line_share(lib: Path = LIB) -> tuple[int, int]:
    "(lines over MAX_LINE characters, all lines) of the package's modules (`_modidx.py`, generated, aside)."
    long = total = 0
    for py in sorted(lib.glob('*.py')):
        if py.name == '_modidx.py': continue
        for line in py.read_text(encoding='utf-8').splitlines():
            total += 1; long += len(line) > MAX_LINE
    return long, total


# ----------------------------------------------------------------------------------------------------- tests
def test_names_in_prose_exist(): assert not wrong_names(), '\n'.join(wrong_names())
def test_no_history_in_pages(): assert not history_in_pages(), '\n'.join(history_in_pages())
def test_cli_page_lists_every_command(): assert not missing_cli_commands(), '\n'.join(missing_cli_commands())
def test_nodata_pattern_names_real_functions(): assert not stale_nodata_names(), '\n'.join(stale_nodata_names())


def test_long_lines_at_most_two_percent():
    long, total = long_line_share()
    assert long <= MAX_LONG_SHARE*total, (f'{long} of {total} lines of scruples/*.py ({long/total:.1%}) are over '
                                          f'{MAX_LINE} characters, more than {MAX_LONG_SHARE:.0%}: '
                                          '`python scripts/long_lines.py` lists them')


def test_the_checks_can_fail():
    "Each finder flags a planted fault."
    assert resolves('scruples.core.SPACY_MODEL') and resolves('scruples.fetch')
    assert resolves('scruples.dirichlet.dirichlet_multinomial_mle')
    assert not resolves('scruples.verbs.SPACY_MODEL') and not resolves('scruples.data.dirichlet_multinomial_mle')
    assert not resolves('scruples.nosuchmodule.x')
    assert [m.group(0) for m in NAME_RE.finditer('see `scruples.data.fetch`, scruples.core. and pkg/scruples.x')] == \
           ['scruples.data.fetch', 'scruples.core']
    flagged = [why for rx, why in HISTORY for t in ('used until issue 23', '*Migration from the earlier wrapper:*',
               '(about 500 lines, 23 public names)', 'need trained models (later work)') if rx.search(t)]
    assert len(flagged) == 4, flagged
    assert not any(rx.search('scikit-learn issue #20032 and 500 lines of code') for rx, _ in HISTORY)
    assert 'analyze' in cli_commands() and 'data locate' in cli_commands()


def test_setup_classifiers_are_trove_classifiers():
    "setup.py's classifiers have the form PyPI accepts (`Development Status :: 4 - Beta`, not `3 - Beta`)."
    out = subprocess.run([sys.executable, 'setup.py', '--classifiers'], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    status = [l for l in out.splitlines() if l.startswith('Development Status')]
    valid = ['1 - Planning', '2 - Pre-Alpha', '3 - Alpha', '4 - Beta', '5 - Production/Stable', '6 - Mature',
             '7 - Inactive']
    assert len(status) == 1 and status[0].split(' :: ')[1] in valid, status


def test_jupyterlab_save_leaves_notebooks_unchanged(tmp_path):
    """`make lab` saves through nbdev's pre-save hook: the kernel and cell metadata JupyterLab writes into a notebook
    it opened are cleaned away before the file is written, so the file (and `git status`) stays as it was."""
    nbformat = pytest.importorskip('nbformat')
    from nbdev.clean import clean_jupyter
    assert re.search(r'^jupyter_hooks\s*=\s*True', (ROOT/'settings.ini').read_text(), re.M), \
        'the hook runs only with jupyter_hooks = True'
    assert '--ContentsManager.pre_save_hook=nbdev.clean.clean_jupyter' in (ROOT/'Makefile').read_text()
    import shutil
    shutil.copy(ROOT/'settings.ini', tmp_path/'settings.ini')  # the hook reads it; it also writes nbs/.last_checked
    for rel in ('index.ipynb', 'guides/your_data.ipynb', 'papers/01_dataset_statistics.ipynb'):
        text = (NBS/rel).read_text(encoding='utf-8')
        path = tmp_path/'nbs'/rel
        path.parent.mkdir(parents=True, exist_ok=True); path.write_text(text, encoding='utf-8')
        nb = nbformat.reads(text, as_version=4)
        nb.metadata['kernelspec'] = {'display_name': 'Python 3 (ipykernel)', 'language': 'python', 'name': 'python3'}
        nb.metadata['language_info'] = {'name': 'python', 'version': '3.11.2', 'pygments_lexer': 'ipython3'}
        for c in nb.cells: c.metadata['jp-MarkdownHeadingCollapsed'] = True
        assert nbformat.writes(nb) + '\n' != text
        model = {'type': 'notebook', 'content': nb}
        clean_jupyter(path=str(path), model=model, contents_manager=None)  # what the server calls before it writes
        saved = nbformat.writes(model['content'])
        assert saved + ('' if saved.endswith('\n') else '\n') == text, \
            f'nbs/{rel}: saving from JupyterLab changes the file'


if __name__ == '__main__':
    n = 0
    for check in (wrong_names, history_in_pages, missing_cli_commands, stale_nodata_names):
        for line in check(): print(f'{check.__name__}: {line}'); n += 1
    long, total = long_line_share()
    print(f'long lines: {long} of {total} lines of scruples/*.py ({long/total:.1%}) over {MAX_LINE} characters '
          f'(at most {MAX_LONG_SHARE:.0%} allowed)')
    n += long > MAX_LONG_SHARE*total
    print(f'{n} finding(s)')
    sys.exit(1 if n else 0)
