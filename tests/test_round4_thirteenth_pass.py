"""Thirteenth hostile pass (issue 39): what a new user meets that the twelve earlier passes did not try. Each test runs the
CLI as a user does (a subprocess) or the API, asserts the right behaviour against a truth computed apart, and failed on
the code it was written against."""
import warnings

import numpy as np
import pandas as pd
import pytest

from cli_run import scruples

from scruples import metrics, softmetrics
from scruples.evaluation import evaluate, score_predictions


# --- SILENT WRONG: a table made from an array (pd.DataFrame(proba): columns 0..k-1, unnamed) was matched to counts whose
# --- classes are those numbers in another order ('1','0': a 0/1 task whose file lists 1 first) by name, reordering the
# --- probabilities: the array scored 0.286 nats, the same numbers as pd.DataFrame 1.795. Rows had the same ambiguity
# --- refused already; columns are now refused the same way --------------------------------------------------------

def test_columns_made_from_an_array_are_not_silently_matched_to_numbered_classes_in_another_order():
    counts = pd.DataFrame([[3, 0], [0, 3], [2, 1]], columns=['1', '0'])
    p = np.array([[.9, .1], [.1, .9], [.6, .4]])
    for f in (metrics.xentropy, softmetrics.kl_divergence, softmetrics.expected_calibration_error):
        f(counts, p)
        with pytest.raises(ValueError, match='positions or class names'):
            f(counts, pd.DataFrame(p))
    with pytest.raises(ValueError, match='positions or class names'):
        score_predictions(pd.DataFrame(p), counts, n_boot=0)
    named = pd.DataFrame(p[:, ::-1], columns=pd.Index([0, 1], name='class'))  # named: class names, matched
    assert metrics.xentropy(counts, named) == pytest.approx(metrics.xentropy(counts, p))
    assert metrics.xentropy(counts.iloc[:, ::-1], pd.DataFrame(p[:, ::-1])) == pytest.approx(metrics.xentropy(counts, p))


# --- SILENT WRONG: evaluate(model, X, counts, proba_cal=frame, counts_cal=frame) took proba_cal by position, ignoring
# --- its column and row names (score_predictions matched them): the temperature was fitted on other classes' or other
# --- items' probabilities (cross-entropy 1.099 = log 3 for 0.879) ------------------------------------------------------

def _eval_data():
    rng = np.random.default_rng(0)
    n, cls = 60, ['a', 'b', 'c']
    P, Pc = rng.dirichlet([1, 1, 1], n), rng.dirichlet([1, 1, 1], n)
    C = np.array([rng.multinomial(5, p) for p in P])
    Cc = np.array([rng.multinomial(5, p) for p in Pc])

    class M:
        classes_ = np.array(cls)

        def predict_proba(self, X):
            return P[np.asarray(X).ravel()]

    return M(), pd.DataFrame({'i': np.arange(n)}), pd.DataFrame(C, columns=cls), P, Pc, pd.DataFrame(Cc, columns=cls)


def test_evaluate_matches_proba_cal_to_counts_cal_by_names():
    model, X, counts, P, Pc, ccal = _eval_data()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        truth = evaluate(model, X, counts, proba_cal=Pc, counts_cal=ccal, n_boot=0).xentropy
        pcal = pd.DataFrame(Pc, columns=list(ccal.columns))
        got = evaluate(model, X, counts, proba_cal=pcal[['c', 'a', 'b']], counts_cal=ccal, n_boot=0).xentropy
        ids = [f'i{j}' for j in range(len(Pc))]
        shuffled = pcal.set_axis(ids).sample(frac=1, random_state=1)
        got_rows = evaluate(model, X, counts, proba_cal=shuffled, counts_cal=ccal.set_axis(ids), n_boot=0).xentropy
        via_scores = score_predictions(P, counts, shuffled, ccal.set_axis(ids), n_boot=0).xentropy
    assert got == pytest.approx(truth) and got_rows == pytest.approx(truth) and via_scores == pytest.approx(truth)


# --- LOSS of a flag / CRASH after the whole run: analyze(file, out, annotators=...) in Python (and papermill's -p
# --- annotators) without by= took the annotators table and read it nowhere (`scruples analyze` refuses it); with by=, a
# --- relative path was passed as it was to the notebook, which runs in a folder of its own: the perspectives section,
# --- after every model had run, could not find it ----------------------------------------------------------------

def _long_with_annotators(folder):
    rng = np.random.default_rng(5)
    anns = [f'w{i}' for i in range(8)]
    rows = [(f'item{it}', a, rng.choice(['yes', 'no'])) for it in range(30) for a in rng.choice(anns, 4, replace=False)]
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(folder / 'long.csv', index=False)
    pd.DataFrame({'annotator': anns, 'grp': ['x', 'y'] * 4}).to_csv(folder / 'anns.csv', index=False)


def test_guide_parameters_refuse_annotators_without_by_and_resolve_the_table(tmp_path, monkeypatch):
    from scruples.annotations import read_annotated
    from scruples.guide import check_run, guide_parameters

    _long_with_annotators(tmp_path)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match='which attribute to group by'):
        guide_parameters('long.csv', annotators='anns.csv', text='')
    with pytest.raises(ValueError, match="no column 'country'"):
        guide_parameters('long.csv', annotators='anns.csv', by='country', text='')
    p = guide_parameters('long.csv', annotators='anns.csv', by='grp', text='')
    assert p['annotators'] == str((tmp_path / 'anns.csv').resolve())
    with pytest.raises(ValueError, match='which attribute to group by'):  # papermill -p annotators, no -p by
        check_run({'annotators': 'anns.csv', 'by': ''}, read_annotated('long.csv', text=''))
