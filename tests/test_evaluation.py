"""scruples.evaluation: the in-sample calibration warning, the model's own held-out split, score_predictions = evaluate,
seeded bootstrap, soft-label fields, bad input, and a property: in-sample calibration never scores worse than held-out.
The bootstrap intervals of every metric: one set of resamples (F1's unchanged), NaN without resamples or soft predictions,
and their coverage in a simulation with a known population value."""
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from scruples.evaluation import FIELDS, METRICS, InSampleCalibrationWarning, evaluate, score_predictions
from scruples.metrics import TemperatureCalibrator, xentropy
from scruples.softmetrics import expected_calibration_error, js_divergence, kl_divergence, manhattan_distance


def data(n=80, k=3, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * 2
    p = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    counts = np.stack([rng.multinomial(5, q) for q in p])
    noisy = np.exp(z * 1.7 + rng.normal(size=z.shape))
    return noisy / noisy.sum(1, keepdims=True), counts


class Fixed:
    "A 'model' whose predict_proba returns stored rows by index."
    def __init__(self, p): self.p = p
    def predict_proba(self, idx): return self.p[np.asarray(idx)]


def test_warning_class_and_message():
    assert issubclass(InSampleCalibrationWarning, UserWarning)
    p, c = data()
    with pytest.warns(InSampleCalibrationWarning, match='80 scored examples'):
        r = score_predictions(p, c, n_boot=0)
    assert r.calibration.startswith('in-sample')
    with pytest.warns(InSampleCalibrationWarning):
        evaluate(Fixed(p), np.arange(80), c, n_boot=0)


def test_no_warning_when_held_out_or_hard():
    p, c = data(); pc, cc = data(60, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert score_predictions(p, c, pc, cc, n_boot=0).calibration == 'held-out'
        assert score_predictions(np.eye(3)[p.argmax(1)], c, n_boot=0, hard=True).calibration.startswith('none')


def test_evaluate_equals_score_predictions_and_uses_the_models_own_heldout():
    p, c = data(); pc, cc = data(60, seed=1)
    m = Fixed(np.vstack([p, pc]))
    a = evaluate(m, np.arange(80), c, np.arange(80, 140), cc, n_boot=50, seed=3)
    b = score_predictions(p, c, pc, cc, n_boot=50, seed=3)
    assert a.to_dict() == b.to_dict() and list(a.index) == list(FIELDS)
    m.heldout_proba_, m.heldout_counts_ = pc, cc
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # the model's own held-out split: no in-sample warning
        own = evaluate(m, np.arange(80), c, n_boot=50, seed=3)
    assert own.calibration == "held-out (the model's own)" and own.xentropy == b.xentropy


def test_seeded_bootstrap_and_soft_fields():
    p, c = data(); pc, cc = data(60, seed=1)
    r1, r2 = score_predictions(p, c, pc, cc, n_boot=100, seed=7), score_predictions(p, c, pc, cc, n_boot=100, seed=7)
    assert r1.to_dict() == r2.to_dict()
    assert r1.f1_lo <= r1.f1 <= r1.f1_hi and r1.xentropy_lo <= r1.xentropy <= r1.xentropy_hi
    assert 0 <= r1.js <= 1 and 0 <= r1.manhattan <= 2 and 0 <= r1.ece <= 1 and r1.kl >= 0
    # KL = cross-entropy - entropy of the soft labels
    t = c / c.sum(1, keepdims=True)
    h = -(t * np.log(np.where(t > 0, t, 1))).sum(1).mean()
    assert abs(r1.kl - (r1.xentropy - h)) < 1e-6


def test_bad_input():
    p, c = data(); pc, cc = data(60, seed=1)
    with pytest.raises(ValueError, match='predictions of shape'): score_predictions(p[:10], c)
    with pytest.raises(ValueError, match='counts_cal is required'): score_predictions(p, c, pc)
    with pytest.raises(ValueError, match='without proba_cal'): score_predictions(p, c, counts_cal=cc)
    with pytest.raises(ValueError, match='60 calibration counts but 5'): score_predictions(p, c, pc[:5], cc)
    with pytest.raises(ValueError, match='2 classes, the scored ones 3'): score_predictions(p, c, pc[:, :2] / pc[:, :2].sum(1, keepdims=True), cc[:, :2] + 1)
    with pytest.raises(ValueError, match='sum to 1'): score_predictions(p * 2, c, pc, cc)
    with pytest.raises(ValueError, match='not both'): evaluate(Fixed(p), np.arange(10), c[:10], np.arange(10), c[:10], proba_cal=pc[:10])
    with pytest.raises(ValueError, match=r'\(n, k\) probabilities'): evaluate(lambda X: np.ones(len(X)), np.arange(10), c[:10])


@given(st.integers(2, 5), st.integers(20, 80), st.integers(0, 2**31 - 1))
@settings(max_examples=25, deadline=None)
def test_in_sample_never_worse_than_held_out(k, n, seed):
    """The flattering, as a property: calibrating on the scored split minimizes its cross-entropy over the same family
    (up to a hair: TemperatureCalibrator fits T, then the smoothing given T, not both jointly), and never exceeds log k."""
    p, c = data(n, k, seed); pc, cc = data(40, k, seed + 1)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', InSampleCalibrationWarning)
        ins = score_predictions(p, c, n_boot=0)
    held = score_predictions(p, c, pc, cc, n_boot=0)
    assert ins.xentropy <= held.xentropy + 0.005 and ins.xentropy <= np.log(k) + 1e-6


def test_dataframe_counts_reordered_to_classes_by_name():
    import pandas as pd
    p, c = data()
    m = Fixed(p)
    m.classes_ = np.array(['a', 'b', 'c'], dtype=object)
    idx = np.arange(len(p))
    ref = evaluate(m, idx[40:], c[40:], proba_cal=p[:40], counts_cal=c[:40], n_boot=0)
    shuffled = lambda x: pd.DataFrame(x, columns=['a', 'b', 'c'])[['c', 'a', 'b']]
    got = evaluate(m, idx[40:], shuffled(c[40:]), proba_cal=p[:40], counts_cal=shuffled(c[:40]), n_boot=0)
    np.testing.assert_allclose(got[['f1', 'xentropy']].astype(float), ref[['f1', 'xentropy']].astype(float))
    with pytest.raises(ValueError, match="missing \\['c'\\]"):
        evaluate(m, idx[40:], pd.DataFrame(c[40:], columns=['a', 'b', 'x']), proba_cal=p[:40], counts_cal=c[:40], n_boot=0)


# --- bootstrap intervals of every metric -------------------------------------------------------------------------
def test_fields_each_metric_followed_by_its_interval():
    assert FIELDS[:3 * len(METRICS)] == tuple(f for m in METRICS for f in (m, f'{m}_lo', f'{m}_hi'))
    assert METRICS == ('f1', 'xentropy', 'kl', 'js', 'manhattan', 'ece')
    assert FIELDS[3 * len(METRICS):] == ('temperature', 'smoothing', 'n', 'calibration')


def test_f1_and_xentropy_intervals_unchanged_bit_for_bit():
    "The values of the F1/cross-entropy-only bootstrap (before the other intervals were added), seed 7, 1000 resamples."
    p, c = data(); pc, cc = data(60, seed=1)
    r = score_predictions(p, c, pc, cc, n_boot=1000, seed=7)
    assert (r.f1_lo, r.f1_hi) == (0.6594550547491724, 0.846412121342708)
    assert (r.xentropy_lo, r.xentropy_hi) == (0.5788769964354517, 0.7808113771038006)


def test_every_interval_is_the_percentiles_of_the_same_resamples():
    "Redraw seed 3's resamples by hand and score each from scratch on the fixed calibrated probabilities."
    p, c = data(); pc, cc = data(60, seed=1)
    r = score_predictions(p, c, pc, cc, n_boot=200, seed=3)
    q = TemperatureCalibrator().fit(np.log(np.clip(pc, 1e-12, 1)), cc).predict_proba(np.log(np.clip(p, 1e-12, 1)))
    rng = np.random.default_rng(3)
    idx = [rng.integers(0, len(c), len(c)) for _ in range(200)]
    fns = {'xentropy': xentropy, 'kl': kl_divergence, 'js': js_divergence, 'manhattan': manhattan_distance, 'ece': expected_calibration_error}
    for m, fn in fns.items():
        np.testing.assert_allclose([r[f'{m}_lo'], r[f'{m}_hi']], np.percentile([fn(c[i], q[i]) for i in idx], [2.5, 97.5]), rtol=0, atol=1e-12, err_msg=m)
        assert r[f'{m}_lo'] < r[f'{m}_hi'], m
    for m in METRICS[:-1]: assert r[f'{m}_lo'] <= r[m] <= r[f'{m}_hi'], m


def test_no_intervals_without_resamples_and_no_soft_ones_for_hard_predictions():
    p, c = data(); pc, cc = data(60, seed=1)
    bounds = [f for f in FIELDS if f.endswith(('_lo', '_hi'))]
    assert len(bounds) == 2 * len(METRICS)
    assert np.isnan(score_predictions(p, c, pc, cc, n_boot=0)[bounds].astype(float)).all()
    h = score_predictions(np.eye(3)[p.argmax(1)], c, n_boot=100, seed=5, hard=True)
    s = score_predictions(p, c, pc, cc, n_boot=100, seed=5)
    assert (h.f1_lo, h.f1_hi) == (s.f1_lo, s.f1_hi)  # the same resamples
    assert np.isnan(h[bounds[2:]].astype(float)).all()


def _draw(rng, n, k=3, votes=5):
    "Items with known true vote distributions, their votes, and a model's noisy, over-confident probabilities."
    z = rng.normal(size=(n, k)) * 1.5
    truth = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    counts = rng.multinomial(votes, truth)
    s = np.exp(z * 1.6 + rng.normal(size=z.shape) * 0.7)
    return s / s.sum(1, keepdims=True), counts


def test_interval_coverage_of_the_mean_metrics():
    """200 seeded samples of 200 items from a known population, one fixed calibration split: the 95% percentile
    intervals cover the population value (the same calibrated model on 200,000 items) in roughly 95% of the samples
    (measured: cross-entropy 0.935, KL 0.905, JS 0.92, Manhattan 0.925)."""
    rng = np.random.default_rng(12345)
    pc, cc = _draw(rng, 300)
    cal = TemperatureCalibrator().fit(np.log(np.clip(pc, 1e-12, 1)), cc)
    pp, cp = _draw(rng, 200_000)
    qp = cal.predict_proba(np.log(np.clip(pp, 1e-12, 1)))
    pop = {'xentropy': xentropy(cp, qp), 'kl': kl_divergence(cp, qp), 'js': js_divergence(cp, qp), 'manhattan': manhattan_distance(cp, qp)}
    hits = dict.fromkeys(pop, 0)
    for r in range(200):
        p, c = _draw(np.random.default_rng(r), 200)
        s = score_predictions(p, c, pc, cc, n_boot=500, seed=r)
        assert s.temperature == cal.temperature_  # fitted once, on the calibration split only
        for m in pop: hits[m] += bool(s[f'{m}_lo'] <= pop[m] <= s[f'{m}_hi'])
    cover = {m: h / 200 for m, h in hits.items()}
    assert 0.90 <= cover['xentropy'] <= 0.99, cover
    assert all(0.85 <= v <= 0.99 for v in cover.values()), cover


@pytest.mark.parametrize('n_boot', [-1, 1.5, True, '10', 3])
def test_bad_n_boot_is_a_value_error_that_names_it(n_boot):
    import numpy as np
    from scruples.evaluation import score_predictions
    p = np.array([[0.7, 0.3], [0.2, 0.8], [0.5, 0.5]]); c = np.array([[3, 1], [0, 4], [2, 2]])
    with pytest.raises(ValueError, match='n_boot must be 0 .no interval. or an integer of at least 10'):
        score_predictions(p, c, proba_cal=p, counts_cal=c, n_boot=n_boot)


def test_evaluate_refuses_calibration_examples_that_are_the_scored_ones():
    """The twenty-sixth pass (issue 39): `evaluate(model, X, counts, X_cal=X, counts_cal=counts)` fitted the temperature
    on the scored examples and called it 'held-out'; `scruples score` refuses such items. Examples with ids (a frame's
    index) shared between the two are refused; other examples are calibrated on as before."""
    from scruples.evaluation import evaluate
    rng = np.random.default_rng(0)
    X = pd.DataFrame({'text': [f't{i}' for i in range(40)]}, index=[f'q{i}' for i in range(40)])
    counts = pd.DataFrame(rng.multinomial(5, [0.6, 0.4], 40), index=X.index, columns=['a', 'b'])
    model = lambda x: np.tile([0.7, 0.3], (len(x), 1))
    with pytest.raises(ValueError, match='calibration items are scored items'):
        evaluate(model, X, counts, X_cal=X, counts_cal=counts, n_boot=0)
    with pytest.raises(ValueError, match='20 of the 40 calibration items'):
        evaluate(model, X.iloc[:20], counts.iloc[:20], X_cal=X, counts_cal=counts, n_boot=0)
    held = evaluate(model, X.iloc[:20], counts.iloc[:20], X_cal=X.iloc[20:], counts_cal=counts.iloc[20:], n_boot=0)
    assert held['calibration'] == 'held-out'
