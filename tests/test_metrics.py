"""Tests of scruples.metrics: label validation, cross-entropy, F1/accuracy, total variation, temperature scaling."""
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from scipy.special import log_softmax, softmax
from sklearn.metrics import confusion_matrix, f1_score

from scruples.metrics import (TemperatureCalibrator, accuracy, check_counts, confusion_matrices, f1_from_confusion,
                              hard_labels, macro_f1, soft_labels, total_variation, xentropy)

PROPS = settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=15, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def counts_and_probs(draw, min_k=2, max_k=5, max_n=12):
    "Random (counts (n, k), probabilities (n, k)) pairs: counts with no all-zero row, probabilities on the simplex."
    k = draw(st.integers(min_k, max_k))
    n = draw(st.integers(1, max_n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 6, size=(n, k))
    c[np.arange(n), rng.integers(0, k, n)] += 1  # at least one vote per example
    p = rng.dirichlet(np.full(k, draw(st.sampled_from([0.2, 1.0, 5.0]))), n)
    p = np.maximum(p, 1e-12); p /= p.sum(1, keepdims=True)
    return c, p


# ---------------------------------------------------------------- check_counts, soft_labels, hard_labels

BAD_COUNTS = {
    'negative': ([[3, -1], [0, 2]], 'non-negative'),
    'non-integer': ([[2.5, 1], [0, 2]], 'integers'),
    'nan': ([[np.nan, 1], [0, 2]], 'finite'),
    'inf': ([[np.inf, 1], [0, 2]], 'finite'),
    'minus inf': ([[1, 1], [-np.inf, 2]], 'finite'),
    'ragged (list)': ([[1, 2], [3]], None),  # numpy itself refuses to build the array
    'ragged (object array)': (np.array([[1, 2], [3]], dtype=object), 'ragged'),
    '1-D': ([1, 2, 3], '2-D'),
    'single class': ([[3], [2]], 'n_classes >= 2'),
    '3-D': (np.ones((2, 2, 2)), '2-D'),
    'all-zero row': ([[1, 2], [0, 0], [3, 0]], 'example 1'),
    'empty': (np.zeros((0, 3)), 'empty'),
    'empty list': ([], '2-D'),
    'strings': ([['a', 'b']], None),
}


@pytest.mark.parametrize('fn', [check_counts, soft_labels, hard_labels], ids=lambda f: f.__name__)
@pytest.mark.parametrize('name', list(BAD_COUNTS))
def test_bad_counts_raise_value_error(fn, name):
    counts, msg = BAD_COUNTS[name]
    with pytest.raises(ValueError, match=msg):
        fn(counts)


def test_check_counts_accepts_valid_and_returns_float64():
    c = check_counts([[3, 0], [1, 1]])
    assert c.dtype == np.float64 and c.shape == (2, 2)
    np.testing.assert_array_equal(check_counts(np.array([[3.0, 0.0], [1.0, 1.0]])), c)  # integral floats are fine
    np.testing.assert_array_equal(check_counts([[1, 1], [0, 0]], allow_zero_rows=True), [[1, 1], [0, 0]])


def test_zero_row_message_names_the_first_unannotated_example():
    with pytest.raises(ValueError, match='example 2 has no annotations'):
        check_counts([[1, 0], [0, 1], [0, 0], [0, 0]])


@given(counts_and_probs())
@PROPS
def test_soft_labels_are_normalized_counts(cp):
    c, _ = cp
    s = soft_labels(c)
    np.testing.assert_allclose(s.sum(1), 1.0)
    np.testing.assert_allclose(s * c.sum(1, keepdims=True), c)
    np.testing.assert_allclose(soft_labels(7 * c), s)


def test_hard_labels_majority_and_ties_go_to_first_class():
    np.testing.assert_array_equal(hard_labels([[1, 3, 0], [2, 2, 1], [0, 1, 1], [5, 0, 0]]), [1, 0, 1, 0])


# ---------------------------------------------------------------- xentropy

def test_xentropy_soft_labels_from_counts_by_hand():
    counts = [[3, 1], [0, 2]]
    p = [[0.5, 0.5], [0.2, 0.8]]
    want = [-(0.75 * np.log(0.5) + 0.25 * np.log(0.5)), -np.log(0.8)]
    np.testing.assert_allclose(xentropy(counts, p, per_example=True), want)
    assert xentropy(counts, p) == pytest.approx(np.mean(want))
    assert isinstance(xentropy(counts, p), float)


def test_xentropy_hard_labels_by_hand_and_equal_to_one_hot_counts():
    p = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8], [0.3, 0.4, 0.3]])
    y = np.array([0, 2, 1])
    want = -np.log([0.7, 0.8, 0.4])
    np.testing.assert_allclose(xentropy(y, p, per_example=True), want)
    assert xentropy(y, p) == pytest.approx(want.mean())
    assert xentropy(np.eye(3, dtype=int)[y], p) == pytest.approx(want.mean())
    assert xentropy(list(y), p.tolist()) == pytest.approx(want.mean())


@given(counts_and_probs())
@PROPS
def test_xentropy_per_example_mean_scale_invariance_and_gibbs(cp):
    c, p = cp
    per = xentropy(c, p, per_example=True)
    assert per.shape == (len(c),)
    assert xentropy(c, p) == pytest.approx(per.mean())
    assert xentropy(3 * c, p) == pytest.approx(xentropy(c, p))  # soft labels: only the shares matter
    # Gibbs' inequality: the soft labels themselves are the best prediction of the soft labels
    assert xentropy(c, soft_labels(c)) <= xentropy(c, p) + 1e-12


def test_xentropy_zero_probability_for_unchosen_class_costs_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter('error')  # no divide-by-zero or invalid-value warnings either
        assert xentropy([[4, 0]], [[1.0, 0.0]]) == 0.0
        np.testing.assert_array_equal(xentropy([[2, 0, 1]], [[0.5, 0.0, 0.5]], per_example=True), [np.log(2)])
        assert xentropy(np.array([1]), [[0.0, 1.0]]) == 0.0


def test_xentropy_is_infinite_when_a_chosen_class_has_zero_probability():
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert xentropy([[1, 1]], [[1.0, 0.0]]) == np.inf
        assert xentropy(np.array([1]), [[1.0, 0.0]]) == np.inf
        per = xentropy([[1, 1], [1, 0]], [[1.0, 0.0], [1.0, 0.0]], per_example=True)
    assert per[0] == np.inf and per[1] == 0.0


@pytest.mark.parametrize('y_true, y_prob, msg', [
    ([[1, 0, 0], [0, 1, 0]], [[0.5, 0.5], [0.5, 0.5]], 'classes'),           # counts k=3, predictions k=2
    ([[1, 0], [0, 1], [1, 1]], [[0.5, 0.5], [0.5, 0.5]], '3 labels but 2'),   # counts length 3, predictions 2
    (np.array([0, 1, 1]), [[0.5, 0.5], [0.5, 0.5]], '3 labels but 2'),        # hard labels length 3
    (np.array([0]), [[0.5, 0.5], [0.5, 0.5]], '1 labels but 2'),              # hard labels too short
    (np.array([0, 2]), [[0.5, 0.5], [0.5, 0.5]], r'\[0, 2\)'),                # hard label out of range
    (np.array([0, -1]), [[0.5, 0.5], [0.5, 0.5]], r'\[0, 2\)'),               # negative hard label
    (np.array([0.0, 1.0]), [[0.5, 0.5], [0.5, 0.5]], 'integers'),             # float hard labels
    ([[1, 0], [0, 1]], [[0.6, 0.6], [0.5, 0.5]], 'sum to 1'),                 # not a distribution
    ([[1, 0], [0, 1]], [[1.5, -0.5], [0.5, 0.5]], 'non-negative'),
    ([[1, 0]], [0.5, 0.5], 'shape'),                                          # 1-D predictions
    ([[1, 0], [0, 0]], [[0.5, 0.5], [0.5, 0.5]], 'example 1'),                # unannotated example
])
def test_xentropy_bad_inputs_raise(y_true, y_prob, msg):
    with pytest.raises(ValueError, match=msg):
        xentropy(y_true, y_prob)


# ---------------------------------------------------------------- confusion matrices, macro F1, accuracy

@st.composite
def labels_and_predictions(draw, batch=False):
    "Random label/prediction vectors; small k and n so that classes are often missing from one side or both."
    k = draw(st.integers(2, 6))
    n = draw(st.integers(1, 30))
    y = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    s = draw(st.integers(1, 4)) if batch else None
    shape = (n,) if s is None else (s, n)
    pred = np.array(draw(st.lists(st.integers(0, k - 1), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))).reshape(shape)
    return np.array(y), pred, k


def sk_macro_f1(y, p):
    return f1_score(y, p, average='macro', zero_division=0)


@given(labels_and_predictions())
@PROPS
def test_macro_f1_matches_sklearn(ypk):
    y, p, k = ypk
    want = sk_macro_f1(y, p)
    assert float(macro_f1(y, p)) == pytest.approx(want, abs=1e-12)
    assert float(macro_f1(y, p, k=k)) == pytest.approx(want, abs=1e-12)      # unused classes are not averaged in
    assert float(macro_f1(y, p, k=k + 2)) == pytest.approx(want, abs=1e-12)


@given(labels_and_predictions(batch=True))
@PROPS
def test_macro_f1_and_accuracy_vectorized_over_samples(ypk):
    y, P, k = ypk
    f = macro_f1(y, P, k=k)
    assert f.shape == (len(P),)
    np.testing.assert_allclose(f, [sk_macro_f1(y, p) for p in P], atol=1e-12)
    np.testing.assert_allclose(accuracy(y, P), [(p == y).mean() for p in P])


def test_macro_f1_classes_missing_from_labels_or_predictions():
    y = np.array([0, 0, 1, 1])
    p_extra = np.array([0, 2, 1, 1])   # class 2 predicted, never a label: F1 0 and counted
    p_missing = np.array([0, 0, 0, 0])  # class 1 a label, never predicted: F1 0 and counted
    for p in (p_extra, p_missing):
        assert float(macro_f1(y, p)) == pytest.approx(sk_macro_f1(y, p))
    assert float(macro_f1(y, p_extra)) == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert float(macro_f1(y, p_missing)) == pytest.approx((2 / 3 + 0) / 2)
    assert float(macro_f1(y, y)) == 1.0


def test_accuracy_by_hand():
    assert accuracy([0, 1, 2, 1], [0, 1, 1, 1]) == 0.75
    np.testing.assert_allclose(accuracy([0, 1], [[0, 1], [1, 1], [1, 0]]), [1.0, 0.5, 0.0])


@given(labels_and_predictions(batch=True))
@PROPS
def test_confusion_matrices_match_sklearn_and_batch(ypk):
    y, P, k = ypk
    cms = confusion_matrices(y, P, k)
    assert cms.shape == (len(P), k, k)
    for p, cm in zip(P, cms):
        np.testing.assert_array_equal(cm, confusion_matrix(y, p, labels=range(k)))
        np.testing.assert_array_equal(confusion_matrices(y, p, k), cm)
    np.testing.assert_allclose(f1_from_confusion(cms), [sk_macro_f1(y, p) for p in P], atol=1e-12)


@given(labels_and_predictions(batch=True), st.integers(0, 2**32 - 1))
@PROPS
def test_confusion_matrix_weights_equal_duplicating_rows(ypk, seed):
    y, P, k = ypk
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 4, len(y))
    w[rng.integers(len(y))] += 1  # at least one row kept: no rows at all is refused (an empty input has no confusion matrix)
    dup = np.repeat(np.arange(len(y)), w)
    np.testing.assert_array_equal(confusion_matrices(y, P, k, weights=w), confusion_matrices(y[dup], P[:, dup], k))
    np.testing.assert_array_equal(confusion_matrices(y, P[0], k, weights=w), confusion_matrices(y[dup], P[0, dup], k))
    np.testing.assert_array_equal(confusion_matrices(y, P, k, weights=np.ones(len(y))), confusion_matrices(y, P, k))
    np.testing.assert_allclose(confusion_matrices(y, P, k, weights=0.5 * w), 0.5 * confusion_matrices(y, P, k, weights=w))


# ---------------------------------------------------------------- total variation

@given(counts_and_probs(), st.integers(0, 2**32 - 1))
@PROPS
def test_total_variation_bounds_identity_and_symmetry(cp, seed):
    c, p = cp
    tv = total_variation(c, p, per_example=True)
    assert tv.shape == (len(c),) and (tv >= 0).all() and (tv <= 1 + 1e-12).all()
    assert total_variation(c, p) == pytest.approx(tv.mean())
    assert total_variation(c, soft_labels(c)) == pytest.approx(0.0, abs=1e-12)
    rng = np.random.default_rng(seed)
    d = rng.integers(0, 6, size=c.shape); d[np.arange(len(d)), rng.integers(0, c.shape[1], len(d))] += 1
    np.testing.assert_allclose(total_variation(c, soft_labels(d), per_example=True),
                               total_variation(d, soft_labels(c), per_example=True), atol=1e-12)


def test_total_variation_by_hand_and_extremes():
    assert total_variation([[1, 0]], [[0.0, 1.0]]) == 1.0  # disjoint supports
    assert total_variation([[3, 1]], [[0.5, 0.5]]) == pytest.approx(0.25)
    hard = total_variation(np.array([0, 2]), [[0.7, 0.3, 0.0], [0.2, 0.3, 0.5]], per_example=True)
    np.testing.assert_allclose(hard, [0.3, 0.5])  # against a hard label: 1 - p[label]
    with pytest.raises(ValueError):
        total_variation([[1, 0]], [[0.7, 0.7]])


# ---------------------------------------------------------------- TemperatureCalibrator

def _log_t_standard_error(z, t, n_votes):
    "Asymptotic standard error of log T from the curvature of the total log-likelihood (n_votes per example)."
    ce = lambda lt: -(t * log_softmax(z / np.exp(lt), axis=1)).sum(1).mean()
    return ce, (lambda lt, h=1e-3: 1 / np.sqrt(n_votes * len(z) * (ce(lt + h) - 2 * ce(lt) + ce(lt - h)) / h**2))


@pytest.mark.parametrize('labels', ['counts', 'hard'])
def test_temperature_calibrator_recovers_known_temperature(labels):
    rng = np.random.default_rng(11)
    n, k, T0 = 4000, 4, 2.5
    z = rng.normal(scale=3.0, size=(n, k))
    p = softmax(z / T0, axis=1)
    if labels == 'counts': y, m = rng.multinomial(20, p), 20
    else: y, m = (rng.random((n, 1)) > p.cumsum(1)).sum(1), 1  # one categorical draw per example
    cal = TemperatureCalibrator(smooth=False).fit(z, y)
    t = soft_labels(y) if labels == 'counts' else np.eye(k)[y]
    _, se = _log_t_standard_error(z, t, m)
    se_log_t = se(np.log(T0))
    assert se_log_t < 0.05  # the data pin the temperature down to a few percent, so the check means something
    assert abs(np.log(cal.temperature_) - np.log(T0)) < 4 * se_log_t
    assert cal.smoothing_ == 0.0
    # the model is well specified: smoothing toward uniform should be (nearly) useless
    sm = TemperatureCalibrator().fit(z, y)
    assert sm.smoothing_ < 0.03
    assert sm.score(z, y) <= cal.score(z, y) + 1e-12


def test_temperature_calibrator_fit_returns_self_and_minimizes_xentropy():
    rng = np.random.default_rng(3)
    z = rng.normal(scale=2.0, size=(300, 3))
    y = (rng.random((300, 1)) > softmax(z / 0.7, axis=1).cumsum(1)).sum(1)  # informative: an interior optimum
    cal = TemperatureCalibrator(smooth=False)
    assert cal.fit(z, y) is cal
    assert 0.3 < cal.temperature_ < 3  # an interior optimum, not a bound of the search
    best = xentropy(y, softmax(z / cal.temperature_, axis=1))
    for f in (0.9, 1.1):
        assert best <= xentropy(y, softmax(z / (f * cal.temperature_), axis=1)) + 1e-12


@pytest.mark.parametrize('labels', ['hard', 'counts'])
def test_smoothing_makes_anti_informative_model_exactly_uniform(labels):
    rng = np.random.default_rng(5)
    k, n = 3, 500
    if labels == 'hard':
        y = rng.integers(0, k, n); z = -5.0 * np.eye(k)[y]  # confidently wrong about every example
    else:
        y = rng.multinomial(6, np.full(k, 1 / k), size=n); y[y.sum(1) == 0, 0] = 1
        z = -5.0 * soft_labels(y)
    cal = TemperatureCalibrator().fit(z, y)
    assert cal.smoothing_ == 1.0
    np.testing.assert_allclose(cal.predict_proba(z), np.full((n, k), 1 / k), rtol=0, atol=1e-15)
    assert cal.score(z, y) == pytest.approx(np.log(k), rel=1e-12, abs=1e-12)


@given(st.integers(2, 5), st.integers(5, 60), st.floats(0.01, 20), st.integers(0, 2**32 - 1))
@FEW
def test_smoothed_score_never_worse_than_uniform_on_fitted_split(k, n, scale, seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(scale=scale, size=(n, k))
    y = rng.integers(0, k, n)  # unrelated to the logits
    cal = TemperatureCalibrator().fit(z, y)
    assert cal.score(z, y) <= np.log(k) + 1e-9
    assert 0.0 <= cal.smoothing_ <= 1.0
    assert cal.bounds[0] <= cal.temperature_ <= cal.bounds[1] * (1 + 1e-9)


@given(st.integers(2, 6), st.floats(0.01, 1000), st.integers(0, 2**32 - 1), st.booleans())
@FEW
def test_predict_proba_rows_sum_to_one(k, scale, seed, smooth):
    rng = np.random.default_rng(seed)
    z = rng.normal(scale=scale, size=(50, k)); y = rng.integers(0, k, 50)
    cal = TemperatureCalibrator(smooth=smooth).fit(z, y)
    new = rng.normal(scale=scale, size=(20, k))
    p = cal.predict_proba(new)
    assert p.shape == (20, k) and np.isfinite(p).all() and (p >= 0).all()
    np.testing.assert_allclose(p.sum(1), 1.0, atol=1e-12)


# issue 22 item 8: labels outside [0, k) and length-1 inputs were scored (broadcast) instead of refused
@pytest.mark.parametrize('call, msg', [
    (lambda: macro_f1([0, 0, 1], [2, 0, 1], k=2), r'y_pred\[0\] is 2'),           # was 0.667
    (lambda: macro_f1([0, 3, 1], [1, 0, 1], k=2), r'y_true\[1\] is 3'),
    (lambda: macro_f1([0, 1], [0, -1]), 'non-negative'),
    (lambda: accuracy([0, 1, 1], [1]), '3 labels but 1'),                         # was 0.667
    (lambda: accuracy([0], [0, 1, 1]), '1 labels but 3'),
    (lambda: accuracy([0, 1], [0, 2], k=2), r'\[0, 2\)'),
    (lambda: accuracy([], []), 'empty'),
    (lambda: macro_f1([0, 1], [[0, 1, 1]]), '2 labels but 3'),
    (lambda: confusion_matrices([0, 1], [1, 2], 2), r'\[0, 2\)'),
    (lambda: confusion_matrices([0, 1], [1, 1], 2, weights=[1.0]), 'weights'),
    (lambda: total_variation([[1, 2]], [[.5, .5]] * 3), '1 labels but 3'),        # was broadcast
    (lambda: total_variation(np.array([0, 1, 1]), [[.5, .5]]), '3 labels but 1'),
    (lambda: total_variation([[1, 2]], [[np.nan, np.nan]]), 'finite'),
    (lambda: xentropy([[1, 2]], [[.5, .5]] * 3), '1 labels but 3'),
    (lambda: f1_from_confusion(np.ones((2, 3))), 'square'),
])
def test_metrics_refuse_out_of_range_and_mismatched_inputs(call, msg):
    with pytest.raises(ValueError, match=msg): call()


def test_every_metric_matches_tables_by_their_names():
    """Issue 39's leftover of the eleventh pass: the metric functions took DataFrames and Series by position, so
    predictions kept in another row or column order were scored against other items and classes. Each equals the
    same metric on arrays put in order by hand, for a shuffled frame and for a Series of labels."""
    from scruples import softmetrics as sm
    from scruples.metrics import accuracy, in_order_of, macro_f1, total_variation, xentropy

    rng = np.random.default_rng(3)
    ids, classes = [f'q{i}' for i in range(30)], ['yes', 'no', 'unsure']
    counts = pd.DataFrame(rng.multinomial(5, [0.5, 0.3, 0.2], 30), index=ids, columns=classes)
    p = pd.DataFrame(rng.dirichlet([1, 1, 1], 30), index=ids, columns=classes)
    shuffled = p.iloc[rng.permutation(30)][['unsure', 'yes', 'no']]
    c, a = counts.to_numpy(), p.to_numpy()
    for f in (xentropy, total_variation, sm.kl_divergence, sm.js_divergence, sm.manhattan_distance,
              sm.wasserstein_distance, sm.expected_calibration_error):
        assert np.isclose(f(counts, shuffled), f(c, a)), f.__name__
    pd.testing.assert_frame_equal(sm.calibration_bins(counts, shuffled), sm.calibration_bins(c, a))
    assert sm.soft_metrics(counts, shuffled) == sm.soft_metrics(c, a)
    y, yp = pd.Series(c.argmax(1), index=ids), pd.Series(a.argmax(1), index=ids)
    perm = rng.permutation(30)
    assert accuracy(y, yp.iloc[perm]) == accuracy(c.argmax(1), a.argmax(1))
    assert macro_f1(y, yp.iloc[perm], k=3) == macro_f1(c.argmax(1), a.argmax(1), k=3)
    # hard labels beside a frame: its rows matched; the labels index its own columns (a Series names no classes)
    assert np.isclose(xentropy(y, shuffled), xentropy(c.argmax(1), shuffled.loc[ids].to_numpy()))
    with pytest.raises(ValueError, match='not the items'):
        xentropy(counts, shuffled.rename(index={'q3': 'zz'}))
    with pytest.raises(ValueError, match='in its index twice'):
        xentropy(counts, shuffled.rename(index={'q3': 'q4'}))
    assert np.isclose(xentropy(counts, p.reset_index(drop=True)), xentropy(c, a))  # a frame made from an array: positions
    assert in_order_of(a, counts) is a  # an array is taken as it is
