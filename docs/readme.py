"""Write README.md from nbs/index.ipynb without Quarto (nbdev_readme needs it).

Markdown cells are copied, code cells become fenced Python, text and table outputs are kept, hidden
cells and `#|` directives are dropped, and links are rebased to the repository root (`../figures/x` -> `figures/x`,
`guides/x.ipynb` -> `nbs/guides/x.ipynb`).
Run from the repository root: `python docs/readme.py` (`--check` exits 1 when README.md is stale).
"""
import json, re, sys
from pathlib import Path

def _text(src): return ''.join(src) if isinstance(src, list) else src

def render(nb_path='nbs/index.ipynb') -> str:
    nb = json.loads(Path(nb_path).read_text(encoding='utf-8'))
    parts = []
    for cell in nb['cells']:
        src = _text(cell['source'])
        directives = re.findall(r'^#\|\s*(.*)$', src, re.M)
        if any(d.strip() in ('hide', 'include: false') for d in directives): continue
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
    text = render()
    if '--check' in sys.argv:
        if Path('README.md').read_text(encoding='utf-8') != text:
            sys.exit('README.md is not what nbs/index.ipynb says: run `python docs/readme.py`')
    else: Path('README.md').write_text(text, encoding='utf-8')
