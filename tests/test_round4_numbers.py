"""Issue 39, numbers a user cannot trust: the Jensen-Shannon divergence of nearly equal distributions (NaN, an upper
bound of inf), the collapse warning of a model whose calibrated probabilities are flat, and `score` without the collapse
warning `analyze` gives. Each test failed on the code before the fix."""
from pathlib import Path

import numpy as np
import pandas as pd

import cli_run
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

ROOT = Path(__file__).resolve().parents[1]


def scruples(*argv, timeout=600):
    "`scruples ARGV` as a user runs it (a subprocess; this checkout first on the path)."
    return cli_run.scruples(*argv, timeout=timeout)


def write_gold_and_shares(folder, n=60, seed=0):
    "Gold counts of n items (3 classes) and a predictions file of exactly their shares of the votes."
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 6, (n, 3))
    c[:, 0] += 1
    ids = [f'i{i}' for i in range(n)]
    pd.DataFrame({'id': ids, 'a': c[:, 0], 'b': c[:, 1], 'c': c[:, 2]}).to_csv(folder/'gold.csv', index=False)
    s = c / c.sum(1, keepdims=True)
    pd.DataFrame({'id': ids, 'a': s[:, 0], 'b': s[:, 1], 'c': s[:, 2]}).to_csv(folder/'pred.csv', index=False)
    return folder/'pred.csv', folder/'gold.csv', c


@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, (4, 3), elements=st.floats(0.01, 1.0)), st.floats(0, 1e-9), st.integers(0, 2**32 - 1))
def test_js_divergence_of_nearly_equal_distributions_is_finite_and_not_negative(w, eps, seed):
    "Nearly equal distributions: a finite, non-negative divergence equal to scipy's squared distance where that is finite."
    from scipy.spatial.distance import jensenshannon
    from scruples.softmetrics import js_divergence
    t = w / w.sum(1, keepdims=True)
    p = np.abs(t + np.random.default_rng(seed).normal(0, eps, t.shape))
    p /= p.sum(1, keepdims=True)
    d = js_divergence(t, p, per_example=True)
    assert np.isfinite(d).all() and (d >= 0).all() and (d < 1e-6).all(), d
    with np.errstate(invalid='ignore'):
        ref = jensenshannon(t, p, base=2, axis=1) ** 2
    ok = np.isfinite(ref)
    np.testing.assert_allclose(d[ok], ref[ok], atol=1e-15)


def test_score_of_predictions_equal_to_the_shares_gives_a_finite_js_and_interval(tmp_path):
    "`scruples score` of predictions equal to the vote shares: JS 0 with a finite interval (it printed '-' and inf)."
    pred, gold, _ = write_gold_and_shares(tmp_path)
    r = scruples('score', str(pred), str(gold), '--json', '--bootstrap', '50', '--ceiling-bootstrap', '10',
                 '--samples', '200')
    assert r.returncode == 0, r.stderr
    import json
    js = {m['metric']: m for m in json.loads(r.stdout)['metrics']}['js']
    assert js['model'] is not None and js['model_hi'] is not None, js
    assert 0 <= js['model_lo'] <= js['model'] <= js['model_hi'] < 1e-6, js


def test_score_warns_of_a_collapsed_model_as_analyze_does(tmp_path):
    "A model predicting one class for every item: `scruples score` says so (it said nothing; analyze did)."
    _, gold, c = write_gold_and_shares(tmp_path)
    n = len(c)
    a = np.linspace(0.5, 0.9, n)
    pd.DataFrame({'id': [f'i{i}' for i in range(n)], 'a': a, 'b': (1 - a) / 2, 'c': (1 - a) / 2}).to_csv(
        tmp_path/'one.csv', index=False)
    r = scruples('score', str(tmp_path/'one.csv'), str(gold), '--bootstrap', '20', '--ceiling-bootstrap', '10',
                 '--samples', '200')
    assert r.returncode == 0, r.stderr
    assert "warning: one predicts 'a' for 100% of the 60 scored items" in r.stderr, r.stderr


def test_a_model_flattened_to_uniform_is_not_said_to_predict_the_first_class():
    "Calibrated probabilities flattened to uniform are ties: no \"predicts 'yes' for 100%\" (the argmax of ties said so)."
    from scruples.guide import model_warnings
    flat = np.full((30, 2), 0.5)
    flat[:, 0] += 1e-12  # what a huge temperature leaves: ties within rounding
    w = model_warnings({}, {'MiniLM': flat}, ['yes', 'no'])
    assert not any("predicts 'yes'" in s for s in w.says), list(w.says)
    assert list(w.kind) == ['no class predicted'], list(w.kind)


def test_analyze_and_score_warn_by_one_function():
    "The guide's model_warnings and score_against_ceiling give the same sentence for the same probabilities."
    from scruples.evaluation import score_against_ceiling
    from scruples.guide import model_warnings
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 4, (40, 2)) + [[1, 0]]
    p = np.c_[np.linspace(0.6, 0.9, 40), np.linspace(0.4, 0.1, 40)]
    res = score_against_ceiling(p, counts, hard=True, n_boot=0, ceiling_boot=10, n_samples=100, classes=['yes', 'no'],
                                name='M')
    from scruples.metrics import hard_labels
    w = model_warnings({}, {'M': p}, ['yes', 'no'], y_true=hard_labels(counts))  # the labels score warns against
    assert [x['says'] for x in res.attrs['warnings']] == list(w.says) and len(w) == 1


def test_a_model_right_on_skewed_items_is_not_said_to_have_collapsed(tmp_path):
    """Lead, stop 57: 57 of 60 items are 'a' by majority vote and the model predicts each item's majority vote (macro
    F1 1). `score` (and analyze, by `model_warnings`) said "predicts 'a' for 95% ...: it has (nearly) collapsed to one
    class, so its macro F1 says little beyond the Prior's", a warning contradicting the score. A model predicting 'a'
    for the three other items too is still named."""
    n = 60
    y = np.r_[np.zeros(n - 3, int), 1, 2, 1]
    counts = np.eye(3, dtype=int)[y] * 3 + 1 - np.eye(3, dtype=int)[y]  # 3 votes for the label, 1 for each other
    ids = [f'i{i}' for i in range(n)]
    pd.DataFrame(counts, columns=['a', 'b', 'c']).assign(id=ids).to_csv(tmp_path/'gold.csv', index=False)
    for name, pred in (('right', y), ('one', np.zeros(n, int))):
        p = np.eye(3)[pred] * 0.7 + 0.1
        pd.DataFrame(p, columns=['a', 'b', 'c']).assign(id=ids).to_csv(tmp_path/f'{name}.csv', index=False)
    r = scruples('score', str(tmp_path/'right.csv'), str(tmp_path/'gold.csv'), '--bootstrap', '20',
                 '--ceiling-bootstrap', '10', '--samples', '200')
    assert r.returncode == 0, r.stderr
    assert 'collapsed' not in r.stdout + r.stderr, r.stderr
    r = scruples('score', str(tmp_path/'one.csv'), str(tmp_path/'gold.csv'), '--bootstrap', '20',
                 '--ceiling-bootstrap', '10', '--samples', '200')
    assert r.returncode == 0, r.stderr
    assert ("warning: one predicts 'a' for 100% of the 60 scored items, and for 3 of the 3 items whose majority vote "
            'is another class') in ' '.join(r.stderr.split()), r.stderr


def test_the_number_of_traits_is_chosen_among_converged_fits_only():
    "Two L-BFGS iterations: the 1- and 2-trait fits do not converge; the 1-trait fit has the lowest BIC and was chosen."
    import warnings
    from scruples.traits import compare_traits, lsat6
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        tab = compare_traits(lsat6(), max_traits=2, max_iter=2)
    assert tab.converged.tolist() == [True, False, False]
    assert tab.attrs['chosen'] == 0 and tab.chosen.tolist() == [True, False, False]
    assert 'did not converge' in tab.attrs['note']


def test_annotators_with_an_answer_is_never_negative():
    "The guide subtracted the silent annotators from those with an answer (-764 on a real dataset): a count now."
    import pandas as pd
    from scruples.traits import degenerate, n_answering
    Y = np.full((800, 6), np.nan)
    Y[:36] = np.random.default_rng(0).integers(0, 2, (36, 6))
    Y = pd.DataFrame(Y)
    old = int(Y.notna().any(axis=1).sum()) - len(degenerate(Y.to_numpy())['respondents'])  # what the guide reported
    assert old < 0
    assert n_answering(Y.to_numpy()) == 36
