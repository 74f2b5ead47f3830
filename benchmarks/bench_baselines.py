"""Benchmark: evaluated points per second of the cached tuner against scikit-learn's plain GridSearchCV.

Both score the same grid of Dilemmas Logistic points from the paper's search space (Appendix F.3) by 4-fold
cross-validation on the same folds of the dev pairs (real when found, else synthetic), with 2 worker processes.
GridSearchCV refits CountVectorizer + TfidfTransformer + the pair ranker on every fold of every point; ours
vectorizes each tokenization setting once (per worker process) and only filters, re-weights and fits per point.
Also times a TPE run (`tune`) of the same budget. Checks that both give the same cross-validated scores.
Usage: python benchmarks/bench_baselines.py [--n-jobs 2] [--small]
"""
import argparse, itertools, time

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import GridSearchCV

from scruples.baselines import cv_score, make_model, make_task, tune
from scruples.data import label_counts
from scruples.corpus import load_dilemmas
from scruples.metrics import hard_labels

BASE = dict(strip_accents=None, lowercase=True, stop_words=None, max_df=1.0, min_df=0.0, use_idf=True, sublinear_tf=False, class_weight=None)


def grid(small: bool):
    axes = dict(analyzer=['word', 'char_wb'], ngram_extra=[0, 1], binary=[True, False], norm=['l2', None], C=[0.01, 1.0])
    if small: axes = dict(analyzer=['word', 'char_wb'], ngram_extra=[0, 1], binary=[True], norm=['l2'], C=[0.01, 1.0])
    return [{**BASE, 'ngram_low': 1, **dict(zip(axes, vals))} for vals in itertools.product(*axes.values())]


def sk_grid(points):
    "The same points as GridSearchCV parameter grids of the PairRanker pipeline."
    out = []
    for p in points:
        est = make_model('Logistic', 'dilemmas', p)
        out.append({k: [v] for k, v in est.get_params().items() if k.startswith(('featurizer__countvectorizer__', 'featurizer__tfidftransformer__', 'scorer__'))
                    and not hasattr(v, 'get_params')})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--n-jobs', type=int, default=2); ap.add_argument('--small', action='store_true')
    args = ap.parse_args()
    dev = load_dilemmas('dev'); c = label_counts(dev)
    task = make_task(dev, c, 'dilemmas', n_folds=4, seed=0)
    points = grid(args.small)
    print(f'{len(dev)} dev pairs ({dev.attrs["source"]}), {len(points)} grid points, 4 folds, {args.n_jobs} jobs')

    t0 = time.perf_counter()
    res = Parallel(n_jobs=args.n_jobs, backend='loky', max_nbytes=None)(delayed(cv_score)(task, 'Logistic', p, False, 'hard', 0) for p in points)
    t_ours = time.perf_counter() - t0
    ours = np.array([r[0] for r in res])

    t0 = time.perf_counter()
    gs = GridSearchCV(make_model('Logistic', 'dilemmas', points[0]), sk_grid(points), cv=task.folds, scoring='neg_log_loss',
                      n_jobs=args.n_jobs, refit=False).fit(dev, hard_labels(c))
    t_ref = time.perf_counter() - t0
    ref = -gs.cv_results_['mean_test_score']  # mean over folds of the per-fold log loss (equal folds up to one example)

    t0 = time.perf_counter()
    tune('Logistic', dev, c, 'dilemmas', budget=len(points), batch_size=8, n_jobs=args.n_jobs, seed=0, progress=False)
    t_tpe = time.perf_counter() - t0

    print(f'cached grid (scruples.baselines): {len(points) / t_ours:.2f} points/s ({t_ours:.1f} s)')
    print(f'GridSearchCV (refits the vectorizer per fold): {len(points) / t_ref:.2f} points/s ({t_ref:.1f} s)')
    print(f'TPE tune, same budget (paper space, incl. char n-grams up to 7): {len(points) / t_tpe:.2f} points/s ({t_tpe:.1f} s)')
    print(f'largest |CV cross-entropy difference| ours vs GridSearchCV: {np.abs(ours - ref).max():.2e} '
          '(pooled vs per-fold mean of the log loss)')
    print(f'speed-up, same grid (GridSearchCV time / ours): {t_ref / t_ours:.1f}x')


if __name__ == '__main__':
    main()
