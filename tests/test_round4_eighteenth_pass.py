"""Eighteenth hostile pass: numbers a user cannot trust that the earlier passes did not meet. Each test runs the CLI as
a user does (a subprocess) or the API, asserts the right behaviour, and failed on the code it was written against."""
import json

import pytest

from cli_run import scruples


# --- SILENT WRONG (an estimate outside its own interval): plan's estimate is the mean of the simulated datasets' scores
# --- and its interval their central 95%; a rare bad dataset pulls the mean below the quantiles: a nearly unanimous
# --- pilot planned for 5 items printed 'accuracy 0.9949 [0.9950, 1.0000]' (the docstring promised the estimate inside)

def test_plan_estimate_lies_inside_its_interval(tmp_path):
    pilot = tmp_path/'pilot.json'
    pilot.write_text(json.dumps([[5, 0]] * 10 + [[0, 5]] * 9 + [[4, 1]]))
    r = scruples('plan', pilot, '--items', '5', '--votes', '1,3,10', '--json')
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)['rows']
    outside = [(x['votes'], x['metric'], x['estimate'], x['ci_low'], x['ci_high']) for x in rows
               if not x['ci_low'] <= x['estimate'] <= x['ci_high']]
    assert not outside  # [(10, 'accuracy', 0.9949, 0.995, 1.0), (10, 'macro_f1', 0.9933, 0.995, 1.0)]


def test_plan_ceiling_api_estimate_lies_inside_its_interval():
    import numpy as np
    from scruples.plan import plan_ceiling
    for items in (1, 2, 3, 5):
        t = plan_ceiling(np.array([0.03, 0.02]), votes=(2, 3, 10), n_items=items, n_sims=500)
        assert ((t.ci_low <= t.estimate) & (t.estimate <= t.ci_high)).all(), t


# --- UNCLEAR (a note contradicting its numbers): plan says 'xentropy stays the same for every number of votes' (true:
# --- the expected entropy of the items' distributions), yet printed 0.8340, 0.8344, 0.8353, 0.8325 for 1, 3, 5, 10
# --- votes: the means of 2,000 simulated datasets; the estimate is now the exact expectation over the vote patterns

def test_plan_xentropy_is_one_number_for_every_number_of_votes(tmp_path):
    import numpy as np
    rng = np.random.default_rng(1)
    pilot = tmp_path/'pilot.json'
    pilot.write_text(json.dumps(rng.multinomial(5, rng.dirichlet([1.0, 0.9, 1.1], 30)).tolist()))
    r = scruples('plan', pilot, '--votes', '1,3,5,10', '--json')
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    got = [x['estimate'] for x in out['rows'] if x['metric'] == 'xentropy' and x['exact']]
    assert len(got) == 4 and max(got) - min(got) < 1e-9, got  # [0.8340, 0.8344, 0.8353, 0.8325]
    text = scruples('plan', pilot, '--votes', '1,3,5,10')
    assert 'xentropy stays the same for every number of votes' in ' '.join(text.stdout.split())


# --- SILENT WRONG (an estimate outside its own interval): best's accuracy and macro F1 are the mean of the oracle's
# --- scores over posterior draws, the interval their central 95%; nearly unanimous items printed accuracy 0.9995 with
# --- the interval [1.0000, 1.0000] (and a Jensen-Shannon estimate 2e-8 above its bootstrap interval's top)

def test_best_estimate_lies_inside_its_interval(tmp_path):
    counts = tmp_path/'counts.json'
    counts.write_text(json.dumps([[10, 0], [0, 10], [10, 0], [0, 10], [9, 1]]))
    r = scruples('best', counts, '--json', '--metric', 'accuracy', 'macro_f1', 'xentropy', 'js')
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)['estimates']
    outside = [(x['metric'], x['estimate'], x['ci_low'], x['ci_high']) for x in rows
               if not x['ci_low'] <= x['estimate'] <= x['ci_high']]
    assert not outside  # [('accuracy', 0.99946, 1.0, 1.0), ('macro_f1', 0.99946, 1.0, 1.0)]


# --- SILENT WRONG (a number that moves with the class order): ECE scores the top label; calibrated probabilities that
# --- tie at the top (a calibration that mixes in the whole uniform, smoothing 1; a model saying 0.5/0.5) took the
# --- first tied class: one model and one set of votes gave ECE 0.04, 0.06 or 0.02 as --classes ordered the classes

def _uninformative(tmp_path):
    "Votes on 30 items and a model's random probabilities: the in-sample calibration mixes in the whole uniform."
    import numpy as np
    import pandas as pd
    rng, rows = np.random.default_rng(1), []
    for i in range(30):
        share = rng.dirichlet([1, 1, 1])
        for a in rng.choice(8, size=5, replace=False):
            rows.append(dict(item=f'it{i:02d}', annotator=f'w{a}', label=['yes', 'no', 'maybe'][rng.choice(3, p=share)]))
    pd.DataFrame(rows).to_csv(tmp_path/'gold.csv', index=False)
    pred = pd.DataFrame(np.random.default_rng(5).dirichlet([1, 1, 1], size=30), columns=['maybe', 'no', 'yes'])
    pred.insert(0, 'id', [f'it{i:02d}' for i in range(30)])
    pred.to_csv(tmp_path/'pred.csv', index=False)


def test_score_ece_does_not_depend_on_the_class_order(tmp_path):
    _uninformative(tmp_path)
    got = {}
    for order in ('maybe,no,yes', 'no,maybe,yes', 'yes,no,maybe'):
        r = scruples('score', tmp_path/'pred.csv', tmp_path/'gold.csv', '--classes', order, '--json',
                     '--ceiling-bootstrap', '10', '--samples', '300')
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        assert out['smoothing'] == 1.0  # the premise: the calibrated predictions are the uniform distribution
        ece = [m for m in out['metrics'] if m['metric'] == 'ece'][0]
        got[order] = tuple(round(ece[f], 12) for f in ('model', 'model_lo', 'model_hi'))
    assert len(set(got.values())) == 1, got  # ECE 0.04, 0.06, 0.02


def test_ece_of_tied_top_labels_shares_the_credit():
    import numpy as np
    from scruples.softmetrics import calibration_bins, expected_calibration_error
    counts = np.array([[4, 0, 0], [0, 2, 2], [2, 1, 1]])
    p = np.full((3, 3), 1 / 3)
    for c in (counts, counts[:, ::-1]):  # 0.1667 and 0.0833: the share of the first class, against 1/3
        assert expected_calibration_error(c, p) == pytest.approx(0.0, abs=1e-12)
    assert expected_calibration_error(np.array([0, 1, 2]), p) == pytest.approx(0.0, abs=1e-12)  # right 1/3 of the time
    assert calibration_bins(counts, p).accuracy.dropna().tolist() == pytest.approx([1 / 3])


# --- SILENT WRONG (a number that moves with the class order): a model's accuracy and macro F1 took the argmax of its
# --- probabilities, the first class of a tie: a model saying 0.5/0.5 on some items (an LLM's rounded probabilities)
# --- scored accuracy 0.5 with the classes yes,no and 0.4 with no,yes; a tie now counts a share for each tied class

def test_score_accuracy_and_macro_f1_of_tied_predictions_do_not_depend_on_the_class_order(tmp_path):
    import random
    random.seed(3)
    gold, pred = ['id,yes,no'], ['id,yes,no']
    for i in range(40):
        y = random.randint(0, 5)
        r = random.choice([0.5, 0.5, 0.8, 0.2, 0.6])
        gold.append(f'q{i},{y},{5 - y}')
        pred.append(f'q{i},{r},{1 - r:.1f}')
    (tmp_path/'gold.csv').write_text('\n'.join(gold) + '\n')
    (tmp_path/'pred.csv').write_text('\n'.join(pred) + '\n')
    got = {}
    for order in ('yes,no', 'no,yes'):
        r = scruples('score', tmp_path/'pred.csv', tmp_path/'gold.csv', '--classes', order, '--json',
                     '--ceiling-bootstrap', '10', '--samples', '300')
        assert r.returncode == 0, r.stderr
        got[order] = {m['metric']: tuple(round(m[f], 12) for f in ('model', 'model_lo', 'model_hi'))
                      for m in json.loads(r.stdout)['metrics'] if m['metric'] in ('accuracy', 'macro_f1')}
    assert got['yes,no'] == got['no,yes'], got  # accuracy 0.5 and 0.4, macro F1 0.4048 and 0.3985


def test_evaluate_shares_a_tied_prediction():
    import numpy as np
    from scruples.evaluation import score_predictions
    counts = np.array([[3, 0], [3, 0], [2, 1], [1, 2]])
    p = np.array([[0.5, 0.5], [0.5, 0.5], [0.9, 0.1], [0.2, 0.8]])
    a = score_predictions(p, counts, n_boot=0, hard=False)
    b = score_predictions(p[:, ::-1], counts[:, ::-1], n_boot=0, hard=False)
    assert a['f1'] == b['f1']  # the tied rows were right in one order (class 0), wrong in the other
    # a near-tie is the model's own (order-invariant) preference, scored by its argmax as scikit-learn scores it
    from sklearn.metrics import f1_score
    near = p + np.array([[1e-9, -1e-9], [-1e-9, 1e-9], [0, 0], [0, 0]])
    got = score_predictions(near, counts, n_boot=0, hard=False)['f1']
    assert got == pytest.approx(f1_score(counts.argmax(1), near.argmax(1), average='macro'))
    assert got == score_predictions(near[:, ::-1], counts[:, ::-1], n_boot=0, hard=False)['f1']
