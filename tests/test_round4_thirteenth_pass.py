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


# --- SILENT WRONG: `best --labels FILE.json` with classes named by numbers (ratings 1, 2, 3) and the labels a JSON list of
# --- those ratings as numbers (json.dumps(df.rating.tolist())) took each number as a class index: rating 1 scored as
# --- class '2', accuracy 0.295 for 0.596. The same labels one per line were refused (a number that is an index and
# --- another class's name); a JSON number now is too -----------------------------------------------------------------

def test_best_labels_json_numbers_that_are_also_other_class_names_are_refused(tmp_path):
    import json

    rng = np.random.default_rng(2)
    c = np.array([rng.multinomial(4, rng.dirichlet([1, 1, 1])) for _ in range(20)])
    pd.DataFrame(c, columns=['1', '2', '3']).to_csv(tmp_path / 'r.csv', index=False)
    ratings = np.minimum(c.argmax(1) + 1, 2)  # ratings 1 and 2 only: every number is also a valid index
    (tmp_path / 'l.json').write_text(json.dumps(ratings.tolist()))
    (tmp_path / 'names.json').write_text(json.dumps([str(v) for v in ratings]))
    args = ('--counts', '1,2,3', '--metric', 'accuracy', '--bootstrap', 0, '--samples', 1000, '--json')
    r = scruples('best', tmp_path / 'r.csv', '--labels', tmp_path / 'l.json', *args)
    assert r.returncode == 1 and 'either a class index or a class name' in r.stderr, (r.stdout, r.stderr)
    ok = scruples('best', tmp_path / 'r.csv', '--labels', tmp_path / 'names.json', *args)
    assert ok.returncode == 0, ok.stderr
    (tmp_path / 'idx.json').write_text(json.dumps((ratings - 1).tolist()))  # 0 is no class's name, 1 is: refused too
    assert scruples('best', tmp_path / 'r.csv', '--labels', tmp_path / 'idx.json', *args).returncode == 1
    bin_ = tmp_path / 'b.csv'  # classes named 0 and 1 in order: a number is the index of the class of its name
    pd.DataFrame(c[:, :2] + 1, columns=['0', '1']).to_csv(bin_, index=False)
    (tmp_path / 'b.json').write_text(json.dumps([0, 1] * 10))
    ok = scruples('best', bin_, '--counts', '0,1', '--labels', tmp_path / 'b.json', *args[2:])
    assert ok.returncode == 0, ok.stderr


# --- MIXING: a counts CSV of two classes written by pandas from an array (pd.DataFrame(c).to_csv(index=False): header
# --- 0,1) was read with its header as an item (votes 0 and 1): 11 items of 10, a vote that no annotator gave. A first
# --- row 0,1 now reads one way only by the options (--counts 0,1: a header; --classes: counts), as 0,1,2 did ----------

def test_a_two_class_csv_written_by_pandas_from_an_array_is_not_read_with_its_header_as_an_item(tmp_path):
    import json

    c = np.random.default_rng(0).integers(1, 4, (10, 2))
    f = tmp_path / 'pd2.csv'
    pd.DataFrame(c).to_csv(f, index=False)
    r = scruples('data', 'validate', f, '--json')
    assert r.returncode != 0 and '--counts 0,1' in r.stdout + r.stderr, (r.stdout, r.stderr)
    r = scruples('data', 'validate', f, '--counts', '0,1', '--json')
    assert r.returncode == 0 and json.loads(r.stdout)[0]['items'] == 10, (r.stdout, r.stderr)
    r = scruples('data', 'validate', f, '--classes', 'a,b', '--json')  # said: the first row is an item
    assert r.returncode == 0 and json.loads(r.stdout)[0]['items'] == 11, (r.stdout, r.stderr)
    from scruples.annotations import read_annotated
    with pytest.raises(Exception, match='reads one way'):
        read_annotated(f)
    assert read_annotated(f, counts='0,1').counts.tolist() == c.tolist()


# --- SILENT WRONG (a count): with --repeats all the second label of annotator A is a pseudo-annotator A#2 of the matrix,
# --- and every count of annotators counted it as a person: `agree` said n_annotators 9 of the read line's 8, and a --by
# --- group 5 annotators of its 4 people (the guide's 'annotators' too) ----------------------------------------------

def test_agree_counts_people_not_the_pseudo_annotators_of_repeated_labels(tmp_path):
    import json

    _long_with_annotators(tmp_path)
    f = tmp_path / 'long.csv'
    d = pd.read_csv(f)
    a = d.annotator.iloc[0]
    extra = pd.DataFrame({'item': [d.item.iloc[0]] * 2, 'annotator': [a, a], 'label': ['yes', 'no']})
    pd.concat([d, extra]).to_csv(f, index=False)  # annotator a labels its first item three times
    r = scruples('agree', f, '--by', 'grp', '--annotators', tmp_path / 'anns.csv', '--repeats', 'all',
                 '--bootstrap', 0, '--json')
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert {x['metric']: x['value'] for x in out['overall']}['n_annotators'] == 8
    groups = pd.read_csv(tmp_path / 'anns.csv').groupby('grp').size().to_dict() | {'all': 8}
    assert {w['group']: w['annotators'] for w in out['within']} == groups


# --- MESSAGE: pandas' default to_csv (and R's write.csv) writes row names as an unnamed first column: refused as 'a
# --- header of distinct, non-empty column names' with nothing saying what the empty name was or what to do ----------

def test_row_names_written_by_pandas_are_named_in_the_refusal(tmp_path):
    f = tmp_path / 'c.csv'
    pd.DataFrame([[1, 2, 3], [2, 1, 0], [0, 3, 1]], columns=['a', 'b', 'c']).to_csv(f)  # index=True: ',a,b,c'
    r = scruples('data', 'validate', f)
    assert r.returncode != 0 and 'index=False' in r.stdout + r.stderr, (r.stdout, r.stderr)
