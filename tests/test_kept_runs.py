"""The paper pages show runs of the code as it is: each kept run (`figures/runs/NAME.ipynb`, written by `make reproduce`
through docs/keep_runs.py) has the code cells of its notebook (`nbs/papers/NAME.ipynb`), says which commit ran it, and
holds no run leftovers (progress bars, widget reprs).

When a paper notebook is edited, this fails until `make reproduce` runs again (it refreshes every kept run). Runs
under pytest (`make test`) and as a script (`python tests/test_kept_runs.py`: one line per stale run, naming the code
cells that differ; exit 1 if any).
"""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location('docs_build', ROOT/'docs'/'build.py')
build = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(build)
PAPERS, KEPT = ROOT/'nbs'/'papers', build.KEPT_RUNS


def stale_runs(papers: Path = PAPERS, kept: Path = KEPT) -> list[str]:
    "Every paper notebook whose kept run is missing, or ran other code than the notebook holds now."
    found = []
    for nb in sorted(papers.glob('[0-9]*.ipynb')):
        run = kept/nb.name
        if not run.exists():
            where = run.relative_to(ROOT) if run.is_relative_to(ROOT) else run
            found.append(f'{where}: no kept run of nbs/papers/{nb.name}')
            continue
        src, ran = (json.loads(p.read_text(encoding='utf-8')) for p in (nb, run))
        diff = build.code_differences(src, ran)
        if diff:
            n_code = len(build._code_sources(src))
            commit, _ = build.run_commit(ran)
            ran_at = commit[:10] if commit else 'no commit recorded'
            found.append(f'nbs/papers/{nb.name}: {len(diff)} of its {n_code} code cells differ from its kept run '
                         f'(code cells {", ".join(map(str, diff))}; the run: {ran_at}): '
                         '`make reproduce` refreshes it')
    return found


def unstamped_runs(kept: Path = KEPT) -> list[str]:
    "Kept runs that do not say which commit ran them."
    return [f'{p.relative_to(ROOT)}: no commit recorded (metadata.scruples.commit): `make reproduce` stamps it'
            for p in sorted(kept.glob('*.ipynb')) if not build.run_commit(json.loads(p.read_text(encoding='utf-8')))[0]]


def leftovers(kept: Path = KEPT) -> list[str]:
    "Outputs of kept runs that are run leftovers: progress bars, the repr of a widget."
    found = []
    for p in sorted(kept.glob('*.ipynb')):
        for i, c in enumerate(json.loads(p.read_text(encoding='utf-8'))['cells']):
            for o in c.get('outputs', []):
                kept_o = build.run_leftover(o)
                if kept_o is None or kept_o != o:
                    text = build._cell_text(o.get('text') or (o.get('data') or {}).get('text/plain'))
                    found.append(f'{p.relative_to(ROOT)} cell {i}: a run leftover: {text.strip()[:60]!r}')
    return found


def test_kept_runs_show_the_code_as_it_is(): assert not stale_runs(), '\n'.join(stale_runs())
def test_kept_runs_say_which_commit_ran_them(): assert not unstamped_runs(), '\n'.join(unstamped_runs())
def test_kept_runs_hold_no_leftovers(): assert not leftovers(), '\n'.join(leftovers())


def test_the_checks_can_fail(tmp_path):
    papers, kept = tmp_path/'papers', tmp_path/'runs'
    papers.mkdir(); kept.mkdir()
    def nb(path, *codes, meta=None, outputs=()):
        cells = [{'cell_type': 'markdown', 'source': '# T', 'metadata': {}}]
        cells += [{'cell_type': 'code', 'source': s, 'metadata': {}, 'outputs': list(outputs)} for s in codes]
        path.write_text(json.dumps({'cells': cells, 'metadata': meta or {}}))
    nb(papers/'01_a.ipynb', 'x = 1', 'y = 2;')
    nb(kept/'01_a.ipynb', 'x = 1', 'y = 2', meta={'scruples': {'commit': 'a'*40, 'dirty': False}})
    nb(papers/'02_b.ipynb', 'z = 3')
    [stale, missing] = stale_runs(papers, kept)
    assert '01_a.ipynb: 1 of its 2 code cells differ' in stale and 'code cells 2;' in stale and 'aaaaaaaaaa' in stale
    assert 'no kept run of nbs/papers/02_b.ipynb' in missing
    nb(kept/'01_a.ipynb', 'x = 1', 'y = 2;')
    assert len(stale_runs(papers, kept)) == 1
    bar = {'output_type': 'display_data', 'metadata': {},
           'data': {'text/plain': 'epoch 1/3:   0%|          | 0/59 [00:00<?, ?it/s]'}}
    widget = {'output_type': 'display_data', 'metadata': {}, 'data': {'text/plain': "VBox(children=(Text(value='')"}}
    table = {'output_type': 'display_data', 'metadata': {}, 'data': {'text/plain': '   a  b\n0  1  2'}}
    assert build.run_leftover(bar) is None and build.run_leftover(widget)['data']['text/plain'] == build.WIDGET_NOTE
    assert build.run_leftover(table) == table
    stream = {'output_type': 'stream', 'name': 'stderr',
              'text': 'x:  50%|#    | 1/2 [00:01<00:01]\rx: 100%|##| 2/2 [00:02<00:00]\ndone\n'}
    assert build.run_leftover(stream)['text'] == 'done\n'


if __name__ == '__main__':
    lines = stale_runs() + unstamped_runs() + leftovers()
    for line in lines: print(line)
    print(f'{len(lines)} finding(s)')
    sys.exit(1 if lines else 0)
