"""Tests of scruples.models: the likelihood switch, the training loop (resume, averaging, R-Drop), the wrapper's contracts,
the search, and a real-data regression of the committed GPU grid. Models are tiny slices trained for one or two epochs on CPU."""
import json, subprocess, sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings, strategies as st

from scruples import models as M
from scruples.data import label_counts
from scruples.corpus import load_dilemmas
from scruples.evaluation import evaluate, score_predictions

REPO = Path(__file__).resolve().parents[1]
GRID = REPO / 'figures' / 'models_dilemmas_grid_nvidia-h100.csv'

@pytest.fixture(scope='module')
def dilemmas():
    d = load_dilemmas('dev')  # real when found, else synthetic: the contracts hold for both
    return d.iloc[:64].reset_index(drop=True)

@pytest.fixture(scope='module')
def fitted(dilemmas):
    clf = M.TransformerClassifier(likelihood='dirichlet', epochs=1, batch_size=8, max_length=24, progress=False, seed=0)
    return clf.fit(dilemmas.iloc[:32], label_counts(dilemmas.iloc[:32]))

def test_likelihood_switch_uses_the_likelihoods_module():
    from scruples import likelihoods as L
    assert M.LIKELIHOODS == {'hard': L.HardLoss, 'soft': L.SoftLoss, 'counts': L.CountsLoss, 'dirichlet': L.DirichletMultinomialLoss}
    with pytest.raises(ValueError, match='likelihood must be one of'): M.TransformerClassifier(likelihood='mse')

def test_bad_inputs():
    with pytest.raises(TypeError): M.as_pairs('ab')
    with pytest.raises(ValueError): M.as_pairs([['a']])
    with pytest.raises(ValueError, match='task'): M.TransformerClassifier(task='regression')
    clf = M.TransformerClassifier(epochs=1, progress=False)
    with pytest.raises(ValueError, match='counts must be'): clf.fit([('a', 'b'), ('c', 'd')], np.ones((3, 2)))
    with pytest.raises(ValueError, match='2 label counts'): clf.fit([('a', 'b'), ('c', 'd')], np.ones((2, 3)))
    with pytest.raises(TypeError): clf.fit('a text', np.ones((1, 2)))

@given(st.integers(2, 500), st.floats(0.01, 0.99), st.integers(0, 2**31))
@settings(max_examples=50, deadline=None)
def test_holdout_split_partitions(n, frac, seed):
    tr, va = M.holdout_split(n, frac, seed)
    assert len(np.intersect1d(tr, va)) == 0 and len(tr) + len(va) == n and len(tr) >= 1 and len(va) >= 1
    assert np.array_equal(np.sort(np.concatenate([tr, va])), np.arange(n))

def test_layerwise_groups_cover_every_parameter():
    _, enc = M.load_encoder()
    model = M.EncoderScorer(enc)
    groups = M.param_groups(model, M.TrainConfig(lr=1.0, layer_decay=0.5, weight_decay=0.3))
    assert sum(len(g['params']) for g in groups) == len(list(model.parameters()))
    n = enc.config.num_hidden_layers
    assert sorted({g['lr'] for g in groups}) == [0.5 ** k for k in range(n + 1, -1, -1)]
    for g in groups:  # no decay on 1-d parameters (biases, LayerNorm, the offset)
        if any(p.ndim < 2 for p in g['params']): assert g['weight_decay'] == 0

def test_wrapper_contracts(fitted, dilemmas):
    X = dilemmas.iloc[40:56]
    p = fitted.predict_proba(X)
    assert p.shape == (16, 2) and np.allclose(p.sum(1), 1)
    swapped = X.rename(columns={'action_1': 'action_2', 'action_2': 'action_1'})
    assert np.allclose(fitted.predict_proba(swapped), p[:, ::-1], atol=1e-5)  # antisymmetric by construction
    z = fitted.decision_function(X)
    u = fitted.uncertainty(X)
    assert np.allclose(u['mean_0'], torch.softmax(torch.tensor(z), -1)[:, 0].numpy(), atol=1e-6)
    assert (u['expected_entropy'] >= 0).all() and (u['mutual_information'] >= 0).all()
    assert np.allclose(u['predictive_entropy'], u['expected_entropy'] + u['mutual_information'], atol=1e-6)
    # evaluation.evaluate scores the wrapper unchanged
    e = evaluate(fitted, X, label_counts(X), dilemmas.iloc[56:64], label_counts(dilemmas.iloc[56:64]), n_boot=20)
    assert 0 <= e.f1 <= 1 and e.xentropy > 0 and e.calibration == 'held-out'

def test_save_load_roundtrip(fitted, dilemmas, tmp_path):
    fitted.save(tmp_path / 'm')
    assert not list((tmp_path / 'm').glob('*.bin')) and (tmp_path / 'm' / 'model.safetensors').exists()
    again = M.TransformerClassifier.load(tmp_path / 'm')
    X = dilemmas.iloc[40:48]
    assert np.allclose(again.predict_proba(X), fitted.predict_proba(X), atol=1e-6)

def test_checkpoints_and_resume(dilemmas, tmp_path):
    "Every epoch writes safetensors + JSON; resuming a finished 2-epoch run with a 3-epoch budget trains exactly one more epoch."
    X, Y = dilemmas.iloc[:16], label_counts(dilemmas.iloc[:16])
    kw = dict(likelihood='soft', batch_size=8, max_length=16, progress=False, seed=3, average_top=2, rdrop=0.5)
    ck = tmp_path / 'ck'
    full = M.TransformerClassifier(epochs=2, checkpoint_dir=ck, **kw).fit(X, Y)
    state = json.loads((ck / 'state.json').read_text())
    assert state['epoch'] == 1 and (ck / 'last.safetensors').exists() and (ck / 'optimizer.safetensors').exists()
    assert (ck / 'model.safetensors').exists() and not list(ck.glob('*.bin')) and not list(ck.glob('*.pt'))
    more = M.TransformerClassifier(epochs=3, checkpoint_dir=ck, **kw).fit(X, Y, resume=True)
    assert more.history_['epoch'] == [1, 2, 3]
    assert np.allclose(more.history_['heldout'][:2], full.history_['heldout'])

def test_anecdotes_five_way_on_synthetic():
    from scruples.corpus import load_anecdotes
    a = load_anecdotes('dev', synthetic=True, n=40)
    clf = M.TransformerClassifier(likelihood='counts', task='classes', epochs=1, batch_size=8, max_length=32, progress=False)
    clf.fit(a.iloc[:30], label_counts(a.iloc[:30]))
    p = clf.predict_proba(a.iloc[30:])
    assert p.shape == (10, 5) and np.allclose(p.sum(1), 1)
    with pytest.raises(ValueError, match='no texts'): M.anecdote_texts(a.assign(text=None))

def test_search_smoke(dilemmas):
    X, Y = M.as_pairs(list(zip(dilemmas.action_1, dilemmas.action_2))), label_counts(dilemmas)
    study = M.search(X[:16], Y[:16], X[16:24], Y[16:24], n_trials=2, sampler='tpe', seed=0,
                     space={'lr': (1e-5, 1e-3, 'log')}, epochs=1, batch_size=8, max_length=16, progress=False)
    assert len(study.trials) == 2 and np.isfinite(study.best_value)

def test_training_path_needs_no_analysis_stack():
    """The GPU machine has torch, transformers, numpy, scikit-learn only: scruples.models imports without spaCy, matplotlib,
    seaborn, optuna or statsmodels. (pandas still comes in through scruples.likelihoods' top-level import; the GPU driver
    stubs it: see scripts/models_gpu_grid.py.)"""
    code = ("import sys, types, builtins\n"
            "real = builtins.__import__\n"
            "def guard(name, *a, **k):\n"
            "    if name.split('.')[0] in ('spacy', 'matplotlib', 'seaborn', 'optuna', 'statsmodels'): raise ImportError(name)\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = guard\n"
            "import scruples.models as M\n"
            "print('ok', 'pandas' in sys.modules)\n")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr[-1500:]

def test_gpu_grid_regression(real_data_dir):
    "The committed GPU grid: 5 seeds per likelihood, and its numbers recompute from its logits."
    df = pd.read_csv(GRID)
    hot = df[df.recipe == 'hot']
    assert hot.groupby('likelihood').seed.nunique().to_dict() == {'counts': 5, 'dirichlet': 5, 'hard': 5, 'soft': 5}
    Z = np.load(GRID.with_name(GRID.stem + '_logits.npz'))
    dev, test = load_dilemmas('dev', data_dir=real_data_dir), load_dilemmas('test', data_dir=real_data_dir)
    r = hot.iloc[0]
    va = Z[f'{r["name"]}/val_idx']
    from scipy.special import softmax
    e = score_predictions(softmax(Z[f'{r["name"]}/test'], 1), label_counts(test), proba_cal=softmax(Z[f'{r["name"]}/val'], 1),
                          counts_cal=label_counts(dev)[va], n_boot=0)
    assert abs(e.f1 - r.test_f1) < 1e-5 and abs(e.xentropy - r.test_xentropy) < 1e-5
    assert hot.test_xentropy.max() < 0.693  # every run beats the prior


# ---- issue 18: early stopping counts epochs without improvement (it trained patience + 1 of them)
def test_early_stopping_unit():
    es, ran = M.EarlyStopping(patience=3), []
    for e, s in enumerate([5.0, 4.0, 4.0, 4.5, 4.1, 3.0], 1):
        if es.stop: break
        es.update(s, e); ran.append(e)
    assert ran == [1, 2, 3, 4, 5] and es.best_epoch == 2 and es.bad == 3

def test_patience_stops_after_patience_epochs_without_improvement(dilemmas):
    "lr = 0: the held-out score never changes after epoch 1, so patience 1 trains exactly 2 epochs (the old loop: 3)."
    X, Y = dilemmas.iloc[:16], label_counts(dilemmas.iloc[:16])
    clf = M.TransformerClassifier(likelihood='soft', lr=0.0, epochs=5, patience=1, batch_size=8, max_length=16,
                                  progress=False, average_top=1).fit(X, Y)
    assert clf.history_['epoch'] == [1, 2] and clf.history_['best_epoch'] == 1


# ---- issue 22 item 4: checkpoints belong to one run
def test_fresh_fit_clears_a_previous_runs_checkpoints(dilemmas, tmp_path):
    from safetensors.torch import load_file
    X, Y = dilemmas.iloc[:16], label_counts(dilemmas.iloc[:16])
    kw = dict(likelihood='soft', batch_size=8, max_length=16, progress=False, average_top=2, checkpoint_dir=tmp_path / 'ck')
    M.TransformerClassifier(epochs=2, seed=1, lr=1e-3, **kw).fit(X, Y)
    assert {p.name for p in (tmp_path / 'ck').glob('top_*')} == {'top_1.safetensors', 'top_2.safetensors'}
    second = M.TransformerClassifier(epochs=1, seed=2, lr=3e-4, **kw).fit(X, Y)
    assert [p.name for p in (tmp_path / 'ck').glob('top_*')] == ['top_1.safetensors']
    on_disk = load_file(str(tmp_path / 'ck' / 'top_1.safetensors'))
    now = second.model_.state_dict()
    assert all(torch.equal(on_disk[k], now[k].cpu()) for k in on_disk)  # this run's epoch 1, not the first run's
    assert json.loads((tmp_path / 'ck' / 'state.json').read_text())['config']['lr'] == 3e-4

def test_resume_refuses_another_run(dilemmas, tmp_path):
    X, Y = dilemmas.iloc[:16], label_counts(dilemmas.iloc[:16])
    kw = dict(likelihood='soft', batch_size=8, max_length=16, progress=False, checkpoint_dir=tmp_path / 'ck', epochs=1)
    M.TransformerClassifier(seed=1, **kw).fit(X, Y)
    for change, what in [({'likelihood': 'hard'}, 'likelihood'), ({'seed': 2}, 'seed'), ({'lr': 5e-5}, 'lr')]:
        with pytest.raises(ValueError, match=f'cannot resume.*{what}: stored'):
            M.TransformerClassifier(**{**kw, 'seed': 1, **change}).fit(X, Y, resume=True)
    with pytest.raises(ValueError, match='n_train: stored'):
        M.TransformerClassifier(seed=1, **kw).fit(dilemmas.iloc[:20], label_counts(dilemmas.iloc[:20]), resume=True)


# ---- issue 22 item 18: inputs validated before any model is loaded or trained
@pytest.fixture
def no_training(monkeypatch):
    def boom(*a, **k): raise AssertionError('training started')
    monkeypatch.setattr(M, 'train_model', boom)

def test_not_fitted_is_sklearns_error(dilemmas):
    from sklearn.exceptions import NotFittedError
    clf = M.TransformerClassifier()
    for call in (clf.predict_proba, clf.predict, clf.decision_function):
        with pytest.raises(NotFittedError): call(dilemmas.iloc[:2])

@pytest.mark.parametrize('make_counts, message', [
    (lambda c: c + 0.5, 'integers'),
    (lambda c: c.astype(str), 'dtype'),
    (lambda c: c[:, :1], 'pairs need 2'),
    (lambda c: -c, 'non-negative'),
    (lambda c: c * 0, 'no annotations'),
])
def test_bad_counts_rejected_before_training(dilemmas, no_training, make_counts, message):
    X = dilemmas.iloc[:6]
    with pytest.raises((ValueError, TypeError), match=message):
        M.TransformerClassifier(likelihood='soft').fit(X, make_counts(label_counts(X)))

def test_bad_validation_data_and_one_class_rejected_before_training(dilemmas, no_training):
    X = dilemmas.iloc[:6]
    with pytest.raises(ValueError, match='counts_val must be'):
        M.TransformerClassifier().fit(X, label_counts(X), dilemmas.iloc[6:8], label_counts(dilemmas.iloc[6:9]))
    with pytest.raises(ValueError, match='both X_val and counts_val'):
        M.TransformerClassifier().fit(X, label_counts(X), dilemmas.iloc[6:8])
    with pytest.raises(ValueError, match='n_classes >= 2'):
        M.TransformerClassifier(task='classes').fit(['a', 'b', 'c', 'd'], [[1], [2], [3], [1]])

def test_bad_model_path_named(dilemmas, no_training, tmp_path):
    X = dilemmas.iloc[:6]
    with pytest.raises(FileNotFoundError, match='no_such_model'):
        M.TransformerClassifier(model=tmp_path / 'no_such_model').fit(X, label_counts(X))
    (tmp_path / 'empty_model').mkdir()
    with pytest.raises(OSError, match='empty_model'):
        M.TransformerClassifier(model=tmp_path / 'empty_model').fit(X, label_counts(X))

@pytest.mark.parametrize('bad', [{'patience': 0}, {'epochs': 1.5}, {'batch_size': 0}, {'warmup': 2.0}, {'grad_accum': 64}])
def test_train_config_rejects_bad_knobs(bad):
    with pytest.raises(ValueError, match='TrainConfig'): M.TransformerClassifier(**bad)


# ---- issue 22 item 8: the held-out score's calibrator on degenerate logits (TemperatureCalibrator lives in metrics)
def test_temperature_calibrator_degenerate_logits():
    from scruples.metrics import TemperatureCalibrator
    y = np.array([[1, 0], [0, 1], [2, 1]])
    with pytest.raises(ValueError, match='finite; row 1'): TemperatureCalibrator().fit(np.array([[0, 1], [np.nan, 0], [1, 1.]]), y)
    flat = TemperatureCalibrator().fit(np.zeros((3, 2)), y)
    assert flat.temperature_ == 1.0 and flat.smoothing_ == 0.0
    const = TemperatureCalibrator(smooth=False).fit(np.full((3, 2), 4.0), y)
    assert const.temperature_ == 1.0 and np.allclose(const.predict_proba(np.ones((2, 2))), 0.5)
