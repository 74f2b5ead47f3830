"""Sizes of the package's exported cells: where a unit is too long for a newcomer to read in one go.

Every `#| export` (or `#|export`) code cell of `nbs/*.ipynb` (the module notebooks, not `nbs/papers` or `nbs/guides`)
is one unit of the package as a reader meets it. This prints how many there are, the median and longest cell in lines,
the mean number of top-level definitions (`def`, `async def`, `class`) per exported cell, the longest cells (notebook,
cell id, lines, first definition), and the longest single definitions (decorators included). It reads the notebooks
and changes nothing; split a long cell in its notebook (one unit per cell, methods of a long class in later cells with
fastcore's `@patch`), then run `nbdev_export`. `--nbs` measures another tree's notebooks (e.g. an older commit's).

    python scripts/cell_sizes.py [--top 15] [--nbs nbs]
"""
import argparse
import ast
import json
import re
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPORT_RE = re.compile(r'^\s*#\|\s*export\s*$')


def _source(cell):
    "The text of a notebook cell (nbformat keeps it as one string or a list of lines)."
    src = cell.get('source', '')
    return ''.join(src) if isinstance(src, list) else src


def _defs(src):
    "[(name, lines)] of the top-level `def`, `async def` and `class` statements of a cell (magics skipped)."
    code = '\n'.join('' if l.lstrip().startswith(('%', '!')) else l for l in src.splitlines())
    try: tree = ast.parse(code)
    except SyntaxError: return []
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return [(n.name, n.end_lineno - min([n.lineno] + [d.lineno for d in n.decorator_list]) + 1)
            for n in tree.body if isinstance(n, kinds)]


def exported_cells(nbs=ROOT/'nbs'):
    "[(notebook name, cell id, lines, [(definition, lines)])] for every exported code cell of `nbs/*.ipynb`."
    rows = []
    for nb in sorted(Path(nbs).glob('*.ipynb')):
        for cell in json.loads(nb.read_text(encoding='utf-8'))['cells']:
            if cell.get('cell_type') != 'code': continue
            src = _source(cell)
            if not any(EXPORT_RE.match(l) for l in src.splitlines()): continue
            rows.append((nb.name, cell.get('id', '?'), len(src.splitlines()), _defs(src)))
    return rows


def report(rows, top=15):
    "The summary lines: counts, median and max lines, definitions per cell, the `top` longest cells."
    sizes = [n for _, _, n, _ in rows]
    ndefs = [len(d) for *_, d in rows]
    out = [f'{len(rows)} exported cells in {len({nb for nb, *_ in rows})} notebooks, {sum(sizes)} lines',
           f'lines per cell: median {statistics.median(sizes):g}, max {max(sizes)}; '
           f'over 100 lines: {sum(n > 100 for n in sizes)}, over 120: {sum(n > 120 for n in sizes)}',
           f'top-level definitions per exported cell: {sum(ndefs) / len(rows):.2f} '
           f'(cells with more than one: {sum(n > 1 for n in ndefs)})',
           f'longest {top}:']
    for nb, cid, n, defs in sorted(rows, key=lambda r: -r[2])[:top]:
        first = defs[0][0] if defs else '-'
        more = f' (+{len(defs) - 1} more)' if len(defs) > 1 else ''
        out.append(f'  {n:5d}  nbs/{nb} cell {cid}: {first}{more}')
    units = sorted(((n, name, nb, cid) for nb, cid, _, defs in rows for name, n in defs), reverse=True)
    out.append(f'longest {top} definitions (a function or class, decorators included):')
    out += [f'  {n:5d}  {name} (nbs/{nb} cell {cid})' for n, name, nb, cid in units[:top]]
    return out


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--top', type=int, default=15, help='longest cells to list')
    ap.add_argument('--nbs', type=Path, default=ROOT/'nbs', help='folder of the module notebooks')
    a = ap.parse_args()
    print('\n'.join(report(exported_cells(a.nbs), a.top)))
