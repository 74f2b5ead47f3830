"""Summarize a GPU grid of `scripts/models_gpu_grid.py` into the committed results table.

  python scripts/models_gpu_summary.py RESULTS_DIR figures/models_dilemmas_grid_<device>.csv

RESULTS_DIR holds the driver's results.json and logits.npz. Test macro F1 and calibrated cross-entropy (temperature
fitted on each run's held-out fifth of dev) come from `scruples.evaluation.score_predictions` with 1000 bootstrap resamples.
The logits are copied beside the CSV (<name>_logits.npz) so the paper notebook can build ensembles and figures.
"""
import json, shutil, sys
from pathlib import Path
import numpy as np, pandas as pd
from scipy.special import softmax
from scruples.data import label_counts
from scruples.corpus import load_dilemmas
from scruples.evaluation import score_predictions
from scruples.model_runs import encoder_label

def main(src, dest):
    src, dest = Path(src), Path(dest)
    recs = json.loads((src / 'results.json').read_text()); Z = np.load(src / 'logits.npz')
    dev, test = load_dilemmas('dev', synthetic=False), load_dilemmas('test', synthetic=False)
    Yd, Yt = label_counts(dev), label_counts(test)
    rows = []
    for r in recs:
        n, h, c = r['name'], r['history'], r['config']
        va = Z[f'{n}/val_idx']
        e = score_predictions(softmax(Z[f'{n}/test'], 1), Yt, proba_cal=softmax(Z[f'{n}/val'], 1), counts_cal=Yd[va], n_boot=1000, seed=0)
        rows.append({'device': r['device'], 'name': n, 'recipe': r['recipe'], 'likelihood': r['likelihood'], 'seed': r['seed'],
                     **{k: c.get(k) for k in ('lr', 'layer_decay', 'weight_decay', 'warmup', 'batch_size', 'epochs', 'patience', 'average_top', 'rdrop', 'dirichlet_scale')},
                     'epochs_run': h['epoch'][-1], 'best_epoch': h['best_epoch'], 'averaged': h.get('averaged', False),
                     'heldout_xentropy': min(h['heldout']), 'test_f1': e.f1, 'test_f1_lo': e.f1_lo, 'test_f1_hi': e.f1_hi,
                     'test_xentropy': e.xentropy, 'test_xentropy_lo': e.xentropy_lo, 'test_xentropy_hi': e.xentropy_hi,
                     # the encoder the run recorded (its model folder); none recorded: empty, never the default's name
                     'encoder': encoder_label(r['encoder']) if r.get('encoder') else None,
                     'n_train': r['n_train'], 'n_val': r['n_val'], 'n_test': r['n_test'], 'fit_seconds': r['fit_seconds'],
                     'train_pairs_per_s': r['n_train'] * h['epoch'][-1] / r['fit_seconds'], 'test_pairs_per_s': r['n_test'] / r['predict_seconds']})
    df = pd.DataFrame(rows).sort_values(['recipe', 'likelihood', 'seed'])
    dest.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(dest, index=False, float_format='%.6g')
    shutil.copy(src / 'logits.npz', dest.with_name(dest.stem + '_logits.npz'))
    return df

if __name__ == '__main__':
    df = main(*sys.argv[1:3])
    print(df.groupby(['recipe', 'likelihood'])[['test_f1', 'test_xentropy']].agg(['mean', 'std']).round(3))
