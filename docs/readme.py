"""Write README.md from nbs/index.ipynb without Quarto (nbdev_readme needs it).

Markdown cells are copied, code cells become fenced Python, text and table outputs are kept, hidden
cells and `#|` directives are dropped, and links are rebased to the repository root (`../figures/x` -> `figures/x`,
`guides/x.ipynb` -> `nbs/guides/x.ipynb`).
The home page's "What is here" table is generated from the notebooks (`what_is_here`): one row per module notebook
(`nbs/NN_name.ipynb`, its `#| default_exp` module), guide and paper notebook, each with the summary under its title
(the `> ...` quote its page shows). `python docs/readme.py` writes it into nbs/index.ipynb, then README.md.
Run from the repository root: `python docs/readme.py` (`--check` exits 1 when the table or README.md is stale;
tests/test_structure.py checks both).
"""
import json, re, sys
from pathlib import Path

NBS = Path(__file__).absolute().parent.parent/'nbs'
TABLE_HEAD = '| notebook | module | what |\n|---|---|---|'

def _summary(nb) -> str:
    "The `> ...` quote under a notebook's `# Title`, its lines joined (what the notebook's page shows under the title)."
    for c in nb.get('cells', []):
        if c.get('cell_type') != 'markdown': continue
        m = re.search(r'^# .+\n+((?:>.*\n?)+)', _text(c['source']), re.M)
        if m: return ' '.join(l.lstrip('>').strip() for l in m.group(1).splitlines()).strip()
    return ''

def notebook_rows(nbs=NBS) -> list:
    "(name, module, summary) of every module notebook (by number), then the guides, then the paper notebooks."
    rows = []
    for group, pattern in (('', '[0-9]*.ipynb'), ('guides/', 'guides/*.ipynb'), ('papers/', 'papers/[0-9]*.ipynb')):
        for f in sorted(Path(nbs).glob(pattern)):
            nb = json.loads(f.read_text(encoding='utf-8'))
            mod = next((m.group(1) for c in nb['cells'] if c['cell_type'] == 'code'
                        for m in [re.search(r'^#\|\s*default_exp\s+([\w.]+)', _text(c['source']), re.M)] if m), None)
            rows.append((group + f.stem, f'scruples.{mod}' if mod else '', _summary(nb)))
    return rows

def what_is_here(nbs=NBS) -> str:
    "The markdown table of every notebook: name (the guides linked), module, summary."
    def cell(s): return s.replace('|', '\\|')
    lines = [TABLE_HEAD]
    for name, mod, summary in notebook_rows(nbs):
        shown = f'[`{name}`]({name}.ipynb)' if name.startswith('guides/') else f'`{name}`'
        lines.append(f"| {shown} | {f'`{mod}`' if mod else ''} | {cell(summary)} |")
    return '\n'.join(lines)

_TABLE_RE = re.compile(re.escape(TABLE_HEAD) + r'(?:\n\|.*)*')

def sync_index(nb_path=NBS/'index.ipynb', write=True) -> bool:
    "Put the generated table in place of the one in nbs/index.ipynb; whether it was stale (written when `write`)."
    path = Path(nb_path)
    nb = json.loads(path.read_text(encoding='utf-8'))
    cells = [c for c in nb['cells'] if c['cell_type'] == 'markdown' and TABLE_HEAD in _text(c['source'])]
    if len(cells) != 1:
        raise SystemExit(f'{path}: expected one markdown cell with the table of notebooks ({TABLE_HEAD!r})')
    old = _text(cells[0]['source'])
    new = _TABLE_RE.sub(lambda m: what_is_here(path.parent), old, count=1)
    if new == old: return False
    if write:
        cells[0]['source'] = new.splitlines(keepends=True)
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + '\n', encoding='utf-8')
    return True

def _text(src): return ''.join(src) if isinstance(src, list) else src

def render(nb_path='nbs/index.ipynb') -> str:
    nb = json.loads(Path(nb_path).read_text(encoding='utf-8'))
    parts = []
    for cell in nb['cells']:
        src = _text(cell['source'])
        directives = [d.strip() for d in re.findall(r'^#\|\s*(.*)$', src, re.M)]
        if any(d in ('hide', 'include: false') for d in directives): continue
        src = re.sub(r'^#\|.*\n?', '', src, flags=re.M).strip()
        if cell['cell_type'] == 'markdown':
            src = src.replace('](../figures/', '](figures/')
            # links to notebooks (`guides/x.ipynb`), relative to nbs/ in the notebook: from the root in the README
            parts.append(re.sub(r'\]\((?![a-z][a-z0-9+.-]*:|/|#|\.\./)([^)\s]+\.ipynb)', r'](nbs/\1', src))
            if not parts[:-1]: parts.append('<!-- generated from nbs/index.ipynb by docs/readme.py: edit the notebook, not this file -->')
        elif cell['cell_type'] == 'code' and src:
            parts.append(f'```python\n{src}\n```')
            for out in cell.get('outputs', []):
                data = out.get('data', {})
                if out.get('output_type') == 'stream': parts.append('```\n' + _text(out['text']).rstrip() + '\n```')
                elif 'text/markdown' in data: parts.append(_text(data['text/markdown']).strip())
                elif 'text/plain' in data: parts.append('```\n' + _text(data['text/plain']).rstrip() + '\n```')
    return '\n\n'.join(parts) + '\n'

if __name__ == '__main__':
    if '--check' in sys.argv:
        if sync_index(write=False):
            sys.exit('the table of notebooks in nbs/index.ipynb is stale: run `python docs/readme.py`')
        if Path('README.md').read_text(encoding='utf-8') != render():
            sys.exit('README.md is not what nbs/index.ipynb says: run `python docs/readme.py`')
    else:
        if sync_index(): print('docs/readme.py: nbs/index.ipynb: the table of notebooks regenerated')
        Path('README.md').write_text(render(), encoding='utf-8')
