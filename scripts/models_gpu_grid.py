"""Run a grid of (recipe, likelihood, seed) fine-tunes of `scruples.models` and write per-run held-out and test logits.

Needs only torch, transformers, numpy, scikit-learn (scipy): copy scruples/{__init__,likelihoods,metrics,models}.py,
this script, the jobs file, the two Dilemmas jsonl files and the MiniLM folder (weights as fp16 safetensors, 45 MB)
into one folder on the GPU machine. Usage (the grid of figures/models_dilemmas_grid_nvidia-h100.csv):
  python models_gpu_grid.py --data DIR --model DIR --out OUT --jobs models_gpu_jobs.json --workers 10 --budget 400
Each finished run writes WORK/runs/<name>.json and .npz; after each, OUT/results.json and OUT/logits.npz bundle them all
(held-out and test logits). Then, here: python scripts/models_gpu_summary.py OUT figures/models_dilemmas_grid_<device>.csv
"""
import argparse, json, os, sys, time, types, traceback
from pathlib import Path
import multiprocessing as mp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try: import pandas  # noqa: F401  scruples.likelihoods imports pandas at the top, for dirichlet_uncertainty only
except ImportError: sys.modules['pandas'] = types.ModuleType('pandas')  # not used on the training path

def read_jsonl(path):
    rows = [json.loads(l) for l in open(path)]
    X = [[r['actions'][0]['description'], r['actions'][1]['description']] for r in rows]
    return X, [r['gold_annotations'] for r in rows]

def work(args):
    job, data, model, out, limit, deadline = args
    if time.time() > deadline: return job['name'], 'skipped (deadline)'
    import numpy as np, torch
    from scruples import models as M
    name = job['name']
    if (Path(out) / 'runs' / f'{name}.json').exists(): return name, 'done before'
    try:
        X, Y = read_jsonl(Path(data) / 'dev.scruples-dilemmas.jsonl')
        Xt, Yt = read_jsonl(Path(data) / 'test.scruples-dilemmas.jsonl')
        X, Y, Xt, Yt = M.as_pairs(X), np.array(Y), M.as_pairs(Xt), np.array(Yt)
        if limit: X, Y, Xt, Yt = X[:limit], Y[:limit], Xt[:limit], Yt[:limit]
        tr, va = M.holdout_split(len(X), 0.2, seed=job.get('split_seed', 0))
        clf = M.TransformerClassifier(model=model, task='pairs', **{'progress': False, **job['config']})
        t0 = time.perf_counter()
        clf.fit(X[tr], Y[tr], X[va], Y[va])
        fit_s = time.perf_counter() - t0
        t1 = time.perf_counter(); zt = clf.decision_function(Xt); pred_s = time.perf_counter() - t1
        np.savez(Path(out) / 'runs' / f'{name}.npz', val=clf.val_logits_, test=zt, val_idx=va)
        rec = dict(job, history=clf.history_, fit_seconds=fit_s, predict_seconds=pred_s, n_train=len(tr), n_val=len(va),
                   n_test=len(Xt), temperature=clf.calibrator_.temperature_, encoder=Path(str(model).rstrip('/')).name,
                   device=torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'cpu')
        (Path(out) / 'runs' / f'{name}.json').write_text(json.dumps(rec))
        return name, f'ok {fit_s:.0f}s val {min(clf.history_["heldout"]):.4f}'
    except Exception:
        return name, 'FAILED ' + traceback.format_exc()[-2000:]

def bundle(runs: Path, out: Path):
    "All finished runs in two files (the device returns at most 8): results.json and logits.npz."
    import numpy as np
    recs, arrays = [], {}
    for f in sorted(runs.glob('*.json')):
        recs.append(json.loads(f.read_text()))
        with np.load(f.with_suffix('.npz')) as z:
            for k in z.files: arrays[f'{f.stem}/{k}'] = z[k]
    (out / 'results.json').write_text(json.dumps(recs))
    np.savez_compressed(out / 'logits.npz', **arrays)

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--data'); ap.add_argument('--model'); ap.add_argument('--out'); ap.add_argument('--jobs')
    ap.add_argument('--workers', type=int, default=4); ap.add_argument('--limit', type=int, default=0)
    ap.add_argument('--work', default='/tmp/scruples_runs'); ap.add_argument('--budget', type=float, default=1e9)
    a = ap.parse_args()
    (Path(a.work) / 'runs').mkdir(parents=True, exist_ok=True); Path(a.out).mkdir(parents=True, exist_ok=True)
    jobs = json.loads(Path(a.jobs).read_text())
    t0 = time.time()
    ctx = mp.get_context('spawn')
    with ctx.Pool(a.workers) as pool:
        for name, msg in pool.imap_unordered(work, [(j, a.data, a.model, a.work, a.limit, t0 + a.budget) for j in jobs]):
            print(f'[{time.time() - t0:6.0f}s] {name}: {msg}', flush=True)
            bundle(Path(a.work) / 'runs', Path(a.out))


