"""Lines of the package over 120 characters, by the notebook cell they come from: where a wrapping pass has work.

tests/test_reader_path.py fails when more than 2% of the lines of scruples/*.py are longer than 120 characters. This
lists them, grouped by source cell (`nbs/NOTEBOOK.ipynb` and the cell id of nbdev's `# %%` marker), longest cells
first, with the share of the package. It changes nothing: wrap the lines in the notebook, then `nbdev_export`.

    python scripts/long_lines.py [--max 120] [--top 30]
"""
import argparse
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELL_RE = re.compile(r'^# %% (\S+\.ipynb)(?: #(\S+))?')


def long_lines(lib=ROOT/'scruples', limit=120):
    "({(notebook, cell id): [(module line, length)]}, lines over `limit`, all lines) of the package's modules."
    by_cell, n_long, total = defaultdict(list), 0, 0
    for py in sorted(Path(lib).glob('*.py')):
        if py.name == '_modidx.py': continue
        cell = (py.name, '')
        for i, line in enumerate(py.read_text(encoding='utf-8').splitlines(), 1):
            m = CELL_RE.match(line)
            if m: cell = (Path(m.group(1)).name, m.group(2) or '')
            total += 1
            if len(line) > limit:
                n_long += 1; by_cell[cell].append((f'{py.name}:{i}', len(line)))
    return by_cell, n_long, total


if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--max', type=int, default=120, help='longest line allowed')
    ap.add_argument('--top', type=int, default=30, help='cells to list')
    a = ap.parse_args()
    by_cell, n_long, total = long_lines(limit=a.max)
    print(f'{n_long} of {total} lines ({n_long / total:.1%}) are over {a.max} characters, in {len(by_cell)} cells; '
          f'at most {int(0.02 * total)} (2%) pass tests/test_reader_path.py')
    for (nb, cid), lines in sorted(by_cell.items(), key=lambda kv: -len(kv[1]))[:a.top]:
        print(f'  nbs/{nb} cell {cid or "?"}: {len(lines)} long lines (longest {max(n for _, n in lines)}; '
              f'{", ".join(w for w, _ in lines[:3])}{", ..." if len(lines) > 3 else ""})')
