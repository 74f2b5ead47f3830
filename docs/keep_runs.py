"""Keep the executed paper notebooks of the last full reproduction beside its figures (`figures/runs/`).

`make reproduce` runs this after a full run (not after `SMOKE=1`): every `_runs/full/<name>.ipynb` is copied to
`figures/runs/<name>.ipynb` (committed with `figures/`), so `make docs` shows the full run's outputs without
re-running it. Outputs are kept, but machine paths are scrubbed (the checkout -> relative paths, data, venv and
temp folders -> `<data>/`, `<packages>/`, `<tmp>/`: `docs/build.py`'s `scrub`), terminal colours removed, widget
state and widget views dropped (a progress bar is dropped, a widget leaves a short note), papermill's metadata
keeps only the parameters, times and versions, and `metadata.scruples` says which commit ran it (`scruples
reproduce` stamps it; a run without a stamp gets this checkout's commit and whether it had uncommitted changes).
A notebook that is a smoke run or holds an error output is refused. Kept runs of notebooks that no longer exist
in `nbs/papers/` are removed. Prints each file's size and the total.

Run from the repository root: `python docs/keep_runs.py [RUNS_DIR] [DEST_DIR]`.
"""
import importlib.util, json, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).absolute().parent.parent
_spec = importlib.util.spec_from_file_location('docs_build', ROOT/'docs'/'build.py')
build = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(build)

def git_state():
    "The commit this checkout is at and whether tracked files differ from it (as `scruples.reproduce.git_state`)."
    def git(*args):
        r = subprocess.run(['git', '-C', str(ROOT), *args], capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else None
    commit = git('rev-parse', 'HEAD')
    # the code's state: figures/ aside, which the runs themselves write
    status = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)figures') if commit else None
    return {'commit': commit, 'dirty': None if status is None else bool(status)}

def clean_output(o):
    o = build.run_leftover(dict(o))  # progress bars dropped, a widget's repr replaced by a note
    if o is None: return None
    if o.get('output_type') == 'stream': o['text'] = build.scrub(build.strip_ansi(build._cell_text(o.get('text'))))
    if 'data' in o:
        data = {k: v for k, v in o['data'].items() if 'jupyter.widget' not in k}
        if not data: return None
        for k in list(data):
            if k.startswith('text/'): data[k] = build.scrub(build.strip_ansi(build._cell_text(data[k])), html_escaped=k == 'text/html')
        o['data'] = data
    return o

def clean(nb):
    "A copy of an executed notebook fit to commit (see the module's docstring)."
    nb = json.loads(json.dumps(nb))
    nb['metadata'].pop('widgets', None)
    if not (nb['metadata'].get('scruples') or {}).get('commit'):  # a run made before runs were stamped
        nb['metadata']['scruples'] = {**git_state(), 'stamped': 'when kept (the run itself recorded no commit)'}
    pm = nb['metadata'].get('papermill') or {}
    keep = {k: pm[k] for k in ('start_time', 'end_time', 'duration', 'version', 'exception') if k in pm}
    keep['parameters'] = {k: build.scrub(v) if isinstance(v, str) else v for k, v in (pm.get('parameters') or {}).items()}
    keep['input_path'] = build.scrub(pm.get('input_path', ''))
    nb['metadata']['papermill'] = keep
    for c in nb['cells']:
        c.get('metadata', {}).pop('papermill', None)
        c.get('metadata', {}).pop('execution', None)
        if c['cell_type'] == 'code':
            if 'injected-parameters' in c.get('metadata', {}).get('tags', []): c['source'] = build.scrub(build._cell_text(c['source']))
            c['outputs'] = [o for o in map(clean_output, c.get('outputs', [])) if o is not None]
    return nb

def keep_runs(runs=ROOT/'_runs'/'full', dest=build.KEPT_RUNS):
    runs, dest = Path(runs), Path(dest)
    files = sorted(runs.glob('*.ipynb'))
    if not files: sys.exit(f'docs/keep_runs.py: no executed notebooks in {runs} (run `make reproduce` first)')
    dest.mkdir(parents=True, exist_ok=True)
    for f in files:
        nb = json.loads(f.read_text(encoding='utf-8'))
        if (nb['metadata'].get('papermill') or {}).get('parameters', {}).get('smoke'):
            sys.exit(f'docs/keep_runs.py: {f} is a smoke run, not a full reproduction: not kept')
        errs = build.error_outputs(nb)
        if errs: sys.exit(f'docs/keep_runs.py: {f} holds errors, not kept:\n  ' + '\n  '.join(errs))
        (dest/f.name).write_text(json.dumps(clean(nb), indent=1, ensure_ascii=False) + '\n', encoding='utf-8')
    papers = {p.name for p in (ROOT/'nbs'/'papers').glob('*.ipynb')}
    for old in dest.glob('*.ipynb'):
        if old.name not in papers: old.unlink(); print(f'docs/keep_runs.py: removed {old.name} (no such paper notebook)')
    total = 0
    for f in sorted(dest.glob('*.ipynb')):
        total += f.stat().st_size
        print(f'docs/keep_runs.py: {f.relative_to(ROOT) if f.is_relative_to(ROOT) else f}  {f.stat().st_size/1e3:,.0f} kB')
    print(f'docs/keep_runs.py: {len(files)} runs kept in {dest}, {total/1e6:.2f} MB in all')

if __name__ == '__main__':
    keep_runs(*sys.argv[1:3])
