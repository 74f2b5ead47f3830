"""The shape of the house: no module imports a private name of another, no notebook imports from a higher-numbered
module, every relative link and image of the notebooks resolves, and no committed output shows a machine path.

Runs under pytest (`make test`) and as a script (`python tests/test_structure.py`: prints every finding, exit 1 if any).
"""
from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

ROOT = Path(__file__).resolve().parents[1]
NBS, LIB = ROOT/'nbs', ROOT/'scruples'

# `from scruples.x import a, b` / `from .x import a` / `import scruples.x` / `from scruples import x`
_FROM = re.compile(r'^\s*from\s+(?:scruples\.|\.)(\w+)\s+import\s+(\([^)]*\)|[^\n#]+)', re.M)
_IMPORT_MOD = re.compile(r'^\s*import\s+scruples\.(\w+)', re.M)
_FROM_PKG = re.compile(r'^\s*from\s+(?:scruples|\.)\s+import\s+(\([^)]*\)|[^\n#]+)', re.M)


def _rel(p: Path) -> str:
    try: return str(p.relative_to(ROOT))
    except ValueError: return p.name


def _names(clause: str) -> list[str]:
    "Imported names of an import clause, without aliases: 'a as b, _c' -> ['a', '_c']."
    clause = clause.strip().strip('()').replace('\\\n', ' ')
    return [p.split(' as ')[0].strip() for p in clause.replace('\n', ' ').split(',') if p.strip()]


def code_cells(nb: Path) -> list[tuple[int, str]]:
    "(index, source) of every code cell of a notebook."
    cells = json.loads(nb.read_text(encoding='utf-8'))['cells']
    return [(i, ''.join(c['source'])) for i, c in enumerate(cells) if c['cell_type'] == 'code']


def module_numbers(nbs: Path = NBS) -> dict[str, tuple[int, str]]:
    "Module name -> (number, notebook) from each numbered notebook's `#| default_exp` (any set of notebooks)."
    out = {}
    for nb in sorted(nbs.glob('[0-9]*.ipynb')):
        for _, src in code_cells(nb):
            m = re.search(r'^#\|\s*default_exp\s+([\w.]+)', src, re.M)
            if m: out[m.group(1)] = (int(re.match(r'\d+', nb.name).group()), nb.name); break
    return out


def imports_of(src: str) -> list[tuple[str, list[str]]]:
    "(module, names) of every scruples import in `src` (names empty for `import scruples.x`)."
    out = [(m.group(1), _names(m.group(2))) for m in _FROM.finditer(src)]
    out += [(m.group(1), []) for m in _IMPORT_MOD.finditer(src)]
    out += [(n, []) for m in _FROM_PKG.finditer(src) for n in _names(m.group(1))]
    return out


def private_imports(lib: Path = LIB) -> list[str]:
    "Every place a scruples module imports a private name of another scruples module (or reaches for `mod._name`)."
    found = []
    mods = {p.stem for p in lib.glob('*.py')}
    for py in sorted(lib.glob('*.py')):
        if py.name.startswith('_'): continue
        src = py.read_text(encoding='utf-8')
        for mod, names in imports_of(src):
            for n in names:
                if n.startswith('_') and mod != py.stem:
                    found.append(f'scruples/{py.name}: imports private {n} from scruples.{mod}')
        tree = ast.parse(src)
        for node in ast.walk(tree):  # `from . import core` then `core._x`
            if (isinstance(node, ast.Attribute) and node.attr.startswith('_') and not node.attr.startswith('__')
                    and isinstance(node.value, ast.Name) and node.value.id in mods and node.value.id != py.stem):
                found.append(f'scruples/{py.name}:{node.lineno}: uses private {node.value.id}.{node.attr}')
    return found


def private_imports_in_tests(root: Path = ROOT) -> list[str]:
    "Every test, benchmark, script or notebook that imports a private name of a scruples module (a notebook may use its own)."
    found = []
    for py in sorted([*root.glob('tests/*.py'), *root.glob('benchmarks/*.py'), *root.glob('scripts/*.py'), *root.glob('docs/*.py')]):
        for mod, names in imports_of(py.read_text(encoding='utf-8')):
            found += [f'{py.relative_to(root)}: imports private {n} from scruples.{mod}' for n in names if n.startswith('_')]
    for nb in sorted((root/'nbs').rglob('*.ipynb')):
        if '.ipynb_checkpoints' in nb.parts: continue
        cells = code_cells(nb)
        own = next((m.group(1) for _, src in cells if (m := re.search(r'^#\|\s*default_exp\s+([\w.]+)', src, re.M))), None)
        for i, src in cells:
            for mod, names in imports_of(src):
                found += [f'{_rel(nb)} cell {i}: imports private {n} from scruples.{mod}' for n in names if n.startswith('_') and mod != own]
    return found


# (notebook, module) -> why the notebook may import from a higher-numbered module. Keep this empty: each entry is a debt.
ALLOWED_UPWARD: dict = {}  # (notebook, module) -> why a notebook may import from a higher number: none today


def upward_imports(nbs: Path = NBS, allowed=ALLOWED_UPWARD) -> list[str]:
    "Every numbered notebook that imports from a module of a higher-numbered notebook."
    numbers, found = module_numbers(nbs), []
    for nb in sorted(nbs.glob('[0-9]*.ipynb')):
        own = int(re.match(r'\d+', nb.name).group())
        for i, src in code_cells(nb):
            for mod, _ in imports_of(src):
                if mod in numbers and numbers[mod][0] > own and (nb.name, mod) not in allowed:
                    found.append(f'nbs/{nb.name} cell {i}: imports scruples.{mod} ({numbers[mod][1]})')
    return found


def upward_imports_lib(lib: Path = LIB, nbs: Path = NBS) -> list[str]:
    "The same rule on the exported package: module -> module imports point to lower numbers only."
    numbers, found = module_numbers(nbs), []
    for py in sorted(lib.glob('*.py')):
        if py.stem not in numbers: continue
        for mod, _ in imports_of(py.read_text(encoding='utf-8')):
            if mod in numbers and numbers[mod][0] > numbers[py.stem][0]:
                found.append(f'scruples/{py.name}: imports scruples.{mod} ({numbers[mod][1]} > {numbers[py.stem][1]})')
    return found


_MD_LINK = re.compile(r'!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
_HTML_REF = re.compile(r'<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*["\']([^"\']+)["\']', re.I)


def broken_links(nbs: Path = NBS) -> list[str]:
    "Every relative link or image in the markdown of nbs/**/*.ipynb that does not point to an existing file."
    found = []
    for nb in sorted(nbs.rglob('*.ipynb')):
        if '.ipynb_checkpoints' in nb.parts: continue
        cells = json.loads(nb.read_text(encoding='utf-8'))['cells']
        for i, c in enumerate(cells):
            if c['cell_type'] != 'markdown': continue
            src = ''.join(c['source'])
            for target in _MD_LINK.findall(src) + _HTML_REF.findall(src):
                u = urlparse(target)
                if u.scheme or u.netloc or target.startswith(('#', '/', 'mailto:')): continue
                path = unquote(u.path)
                if not path: continue
                if not (nb.parent/path).exists():
                    found.append(f'{_rel(nb)} cell {i}: {target} (no {(nb.parent/path).resolve()})')
    return found


_MACHINE = re.compile(r'(?<![\w.])/(?:work|home|root)/')


def machine_paths(nbs: Path = NBS) -> list[str]:
    "Every committed notebook output that shows a machine path (/work/, /home/, /root/)."
    found = []
    for nb in sorted(nbs.rglob('*.ipynb')):
        if '.ipynb_checkpoints' in nb.parts: continue
        cells = json.loads(nb.read_text(encoding='utf-8'))['cells']
        for i, c in enumerate(cells):
            for out in c.get('outputs', []):
                text = json.dumps({k: v for k, v in out.items() if k != 'data'} | {
                    'data': {k: v for k, v in out.get('data', {}).items() if not k.startswith('image/')}})
                m = _MACHINE.search(text.replace('\\n', '\n'))
                if m: found.append(f'{_rel(nb)} cell {i}: ...{text[max(0, m.start()-40):m.start()+60]}...')
    return found


_SHOWN = re.compile(r'^#\|\s*(?:export|exports|exporti|exec_doc)\b|^#\|\s*eval:\s*false', re.M | re.I)


def mixed_import_cells(nbs: Path = NBS) -> list[str]:
    """Module-notebook cells that hold an import beside other code. nbdev runs every cell with an import while it
    builds the docs (to render `show_doc`), alone, without the cells before it: such a cell fails there on a name
    defined earlier (the imports belong in a cell of their own)."""
    out = []
    for nb in sorted(nbs.glob('[0-9]*.ipynb')):
        for i, src in code_cells(nb):
            if _SHOWN.search(src) or 'nbdev_export()' in src: continue
            try: tree = ast.parse('\n'.join('' if l.lstrip().startswith(('%', '!')) else l for l in src.splitlines()))
            except SyntaxError: continue
            nodes = list(ast.walk(tree))
            if any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in nodes) and any(isinstance(n, (ast.Expr, ast.Assign)) for n in nodes):
                out.append(f'{_rel(nb)} cell {i}: an import beside other code ({src.strip().splitlines()[0][:60]!r})')
    return out


_NUMBERED = re.compile(r'^(#{1,6})\s+(\d+)[.)]\s', re.M)
_HEADING = re.compile(r'^(#{1,6})\s', re.M)


def heading_numbers(nbs: Path = NBS) -> list[str]:
    """Every numbered markdown heading (`## 5. Models`) that does not follow its predecessor: under one parent heading,
    the numbers of one level run 1, 2, 3, ... (an unnumbered heading between them, `## Summary`, breaks nothing)."""
    found = []
    for nb in sorted(nbs.rglob('*.ipynb')):
        if '.ipynb_checkpoints' in nb.parts: continue
        last = {}  # heading level -> the last number seen under the current parent
        for i, c in enumerate(json.loads(nb.read_text(encoding='utf-8'))['cells']):
            if c['cell_type'] != 'markdown': continue
            src = re.sub(r'```.*?```', '', ''.join(c['source']), flags=re.S)  # headings only, not code blocks
            for line in src.splitlines():
                h = _HEADING.match(line)
                if not h: continue
                level = len(h.group(1))
                for deeper in [k for k in last if k > level]: del last[deeper]
                m = _NUMBERED.match(line)
                if not m: continue
                n, want = int(m.group(2)), last.get(level, 0) + 1
                if n != want:
                    found.append(f'{_rel(nb)} cell {i}: {line.strip()!r} follows number {want - 1} (expected {want})')
                last[level] = n
    return found


def _readme_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location('docs_readme', ROOT/'docs'/'readme.py')
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m


def notebooks_table(root: Path = ROOT) -> list[str]:
    """The home page's and README's "What is here" table against the notebooks (docs/readme.py generates it): every
    notebook that is missing from it, and a stale table (`python docs/readme.py` regenerates both)."""
    readme = _readme_module()
    found = []
    index = json.loads((root/'nbs'/'index.ipynb').read_text(encoding='utf-8'))
    text = '\n'.join(''.join(c['source']) for c in index['cells'] if c['cell_type'] == 'markdown')
    for where, body in (('nbs/index.ipynb', text), ('README.md', (root/'README.md').read_text(encoding='utf-8'))):
        for name, mod, _ in readme.notebook_rows(root/'nbs'):
            if f'`{name}`' not in body:
                found.append(f'{where}: {name} ({mod or "no module"}) is not in the table of notebooks')
    if readme.what_is_here(root/'nbs') not in text:
        found.append('nbs/index.ipynb: the table of notebooks is stale (summaries or notebooks changed): '
                     'run `python docs/readme.py`')
    return found


_SYSTEM_INSTALL = re.compile(r'\b(?:apt-get|apt|dnf|yum|brew|npm|snap)\s+(?:-\S+\s+)*install\b|\bapt-get\s+update\b')


def makefile_targets(text: str) -> dict[str, tuple[list[str], list[str]]]:
    "target -> (prerequisites, recipe lines) of a Makefile's explicit rules (continuation lines joined)."
    rules, cur = {}, None
    for line in text.replace('\\\n', ' ').splitlines():
        m = re.match(r'^([\w.-]+)\s*:(?!=)\s*([^=#]*)$', line)
        if m and not line.startswith('\t'):
            cur = m.group(1); rules[cur] = (m.group(2).split(), []); continue
        if line.startswith('\t') and cur: rules[cur][1].append(line)
        elif line.strip() and not line.startswith('#'): cur = None
    return rules


def system_installs(root: Path = ROOT) -> list[str]:
    """`make test` installs nothing on the system: only the `sysdeps` target runs a system package manager, no test
    target depends on it (directly or not), and CI calls it itself before `make test`."""
    rules, found = makefile_targets((root/'Makefile').read_text(encoding='utf-8')), []
    for target, (_, recipe) in rules.items():
        if target != 'sysdeps' and any(_SYSTEM_INSTALL.search(l) for l in recipe):
            found.append(f'Makefile: {target} installs system packages (only `make sysdeps` may)')
    for top in ('test', 'test-nodata'):
        seen, todo = set(), [top]
        while todo:
            t = todo.pop()
            if t in seen: continue
            seen.add(t)
            deps, recipe = rules.get(t, ([], []))
            steps = [w for l in recipe if 'timed_steps' in l for w in re.findall(r'\b([\w-]+)\b', l) if w in rules]
            todo += deps + steps
        if 'sysdeps' in seen:
            found.append(f'Makefile: `make {top}` runs sysdeps (it must install nothing on the system)')
    ci = root/'.ci'/'run'
    if ci.is_file():
        lines = ci.read_text(encoding='utf-8').splitlines()
        at = lambda cmd: next((i for i, l in enumerate(lines) if re.match(rf'\s*make {cmd}\s*$', l)), None)
        if at('sysdeps') is None or at('test') is None or at('sysdeps') > at('test'):
            found.append('.ci/run: `make sysdeps` must run before `make test` '
                         '(the browser check fails under CI without it)')
    return found


CHECKS = (private_imports, private_imports_in_tests, upward_imports, upward_imports_lib, broken_links, machine_paths,
          mixed_import_cells, heading_numbers, notebooks_table, system_installs)


def test_no_private_imports_across_modules(): assert not private_imports(), '\n'.join(private_imports())
def test_tests_use_public_names(): assert not private_imports_in_tests(), '\n'.join(private_imports_in_tests())
def test_notebooks_import_only_lower_numbers(): assert not upward_imports(), '\n'.join(upward_imports())
def test_modules_import_only_lower_numbers(): assert not upward_imports_lib(), '\n'.join(upward_imports_lib())
def test_relative_links_resolve(): assert not broken_links(), '\n'.join(broken_links())
def test_no_machine_paths_in_outputs(): assert not machine_paths(), '\n'.join(machine_paths())
def test_imports_in_cells_of_their_own(): assert not mixed_import_cells(), '\n'.join(mixed_import_cells())
def test_numbered_headings_are_consecutive(): assert not heading_numbers(), '\n'.join(heading_numbers())
def test_notebooks_table_lists_every_notebook(): assert not notebooks_table(), '\n'.join(notebooks_table())
def test_make_test_installs_nothing_on_the_system(): assert not system_installs(), '\n'.join(system_installs())


def test_the_checks_can_fail(tmp_path):
    "Each check finds a planted fault in a small fake house (so a silent pass means a clean house)."
    nbs, lib = tmp_path/'nbs', tmp_path/'scruples'
    nbs.mkdir(); lib.mkdir()
    def nb(name, *cells, md=()):
        cs = [{'cell_type': 'code', 'source': s, 'outputs': [], 'metadata': {}} for s in cells]
        cs += [{'cell_type': 'markdown', 'source': s, 'metadata': {}} for s in md]
        (nbs/name).write_text(json.dumps({'cells': cs}))
    nb('00_low.ipynb', '#| default_exp low\ndef _x(): pass', 'import os\nx = os.sep', '#| export\nimport os\nx = 1', 'import os')
    nb('10_high.ipynb', '#| default_exp high\nfrom scruples.low import _x')
    nb('05_mid.ipynb', '#| default_exp mid\nfrom scruples.high import y', md=['![fig](missing.png) [ok](00_low.ipynb)',
       '## 1. One\n### 1. Sub\n### 2. Sub', '```\n## 9. in a code block\n```\n## Between\n## 2. Two', '## 4. Four'])
    (lib/'low.py').write_text('def _x(): pass\n')
    (lib/'high.py').write_text('from .low import (a,\n    _x)\n')
    (lib/'mid.py').write_text('from . import low\nlow._x()\nfrom .high import y\n')
    assert module_numbers(nbs) == {'low': (0, '00_low.ipynb'), 'mid': (5, '05_mid.ipynb'), 'high': (10, '10_high.ipynb')}
    assert len(private_imports(lib)) == 2
    assert private_imports_in_tests(tmp_path) == ['10_high.ipynb cell 0: imports private _x from scruples.low']
    assert upward_imports(nbs) == ['nbs/05_mid.ipynb cell 0: imports scruples.high (10_high.ipynb)']
    assert upward_imports(nbs, allowed={('05_mid.ipynb', 'high'): 'why'}) == []
    assert len(upward_imports_lib(lib, nbs)) == 1
    assert [f.split(': ')[1].split(' ')[0] for f in broken_links(nbs)] == ['missing.png']
    assert [f.split(':')[0] for f in mixed_import_cells(nbs)] == ['00_low.ipynb cell 1']
    want = ["05_mid.ipynb cell 4: '## 4. Four' follows number 2 (expected 3)"]
    assert heading_numbers(nbs) == want, heading_numbers(nbs)
    (tmp_path/'README.md').write_text('# x')
    nb('index.ipynb', md=['## What is here\n\n' + _readme_module().TABLE_HEAD + '\n| `00_low` | `scruples.low` | x |'])
    table = notebooks_table(tmp_path)
    assert any('05_mid' in f and 'nbs/index.ipynb' in f for f in table) and any('stale' in f for f in table), table
    (tmp_path/'Makefile').write_text('test: venv sysdeps\n\techo ok\nsysdeps:\n\tapt-get install -y x\n'
                                     'docs: venv\n\tnpm install mathjax@3\nvenv:\n\ttrue\n')
    (tmp_path/'.ci').mkdir(); (tmp_path/'.ci'/'run').write_text('make test\nmake sysdeps\n')
    assert len(system_installs(tmp_path)) == 3, system_installs(tmp_path)
    assert _MACHINE.search('see /work/main/x') and _MACHINE.search("'/root/.cache'") and not _MACHINE.search('a/work/b')


if __name__ == '__main__':
    n = 0
    for check in CHECKS:
        for line in check(): print(f'{check.__name__}: {line}'); n += 1
    print(f'{n} finding(s)')
    sys.exit(1 if n else 0)
