"""Twelfth hostile pass (issue 39): what a new user meets that the eleven earlier passes did not try. Each test runs the
CLI as a user does (a subprocess) or the API, asserts the right behaviour against a truth computed apart, and failed on
the code it was written against."""
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from cli_run import scruples

from scruples.best import best
from scruples.priors import choose_prior


def _votes_near_the_choice(seed=0):
    "106 items of 3 classes whose held-out comparison of the two priors is near its threshold (2 s.e.)."
    rng = np.random.default_rng(seed)
    n = rng.integers(30, 120)
    mix = rng.random()
    p = np.where(rng.random((n, 1)) < mix, rng.dirichlet([1, 1, 1]), rng.dirichlet([1, 1, 1]))
    p = 0.6 * p + 0.4 * rng.dirichlet([2, 2, 2], size=n)
    return np.array([rng.multinomial(rng.integers(3, 7), q) for q in p])


# --- SILENT WRONG: the prior 'auto' chose (NPMLE or Dirichlet) depended on the order of the classes: the held-out split
# --- and the NPMLE's support points were drawn in the columns' order, so the same votes with the count columns in another
# --- order (or another --classes) got another prior and another ceiling of a metric no class order changes (cross-
# --- entropy 0.8123 with columns a,b,c, 0.8227 with b,a,c) -----------------------------------------------------------

def test_prior_choice_is_the_same_for_any_order_of_the_classes_api():
    c = _votes_near_the_choice()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        kinds = {perm: choose_prior(c[:, perm]).prior.kind for perm in itertools.permutations(range(3))}
        assert len(set(kinds.values())) == 1, kinds
        est = {perm: tuple(best(c[:, perm], ['xentropy', 'kl', 'manhattan'], n_boot=0, check=False).estimate.round(12))
               for perm in itertools.permutations(range(3))}
    assert len(set(est.values())) == 1, est
    for kind in ('npmle', 'dirichlet'):  # the fitted prior comes back in the caller's class order
        pr = choose_prior(c[:, [1, 0, 2]], kind).prior
        ref = choose_prior(c, kind).prior
        assert np.allclose(pr.alpha, ref.alpha[[1, 0, 2]])
        if kind == 'npmle':
            a = pr.points[np.lexsort(pr.points.T[::-1])]
            b = ref.points[:, [1, 0, 2]][np.lexsort(ref.points[:, [1, 0, 2]].T[::-1])]
            assert np.allclose(a, b)


def test_prior_choice_is_the_same_for_any_order_of_the_columns_cli(tmp_path):
    c = _votes_near_the_choice()
    df = pd.DataFrame(c, columns=['a', 'b', 'c']).assign(id=[f'i{j}' for j in range(len(c))])
    df[['id', 'a', 'b', 'c']].to_csv(tmp_path/'abc.csv', index=False)
    df[['id', 'b', 'a', 'c']].to_csv(tmp_path/'bac.csv', index=False)
    got = []
    for f in ('abc.csv', 'bac.csv'):
        r = scruples('best', tmp_path/f, '--metric', 'xentropy', 'manhattan', '--bootstrap', '20', '--json')
        assert r.returncode == 0, r.stderr
        import json
        out = json.loads(r.stdout)
        got.append((out['prior'], [(e['estimate'], e['ci_low'], e['ci_high']) for e in out['estimates']]))
    assert got[0] == got[1], got


# --- MESSAGE (late failure): analyze on a wide table of counts with --by ATTR ran the whole notebook (minutes, a
# --- transformer's fine-tunes) and stopped in its last section: 'grouping annotators needs annotator ids' -----------

@pytest.fixture
def wide(tmp_path):
    rng = np.random.default_rng(0)
    n = 24
    words = 'good bad kind rude late early help hurt gift lie'.split()
    c = np.array([rng.multinomial(5, p) for p in rng.dirichlet([1, 1, 1], n)])
    df = pd.DataFrame(c, columns=['yes', 'no', 'unsure'])
    df.insert(0, 'text', [' '.join(rng.choice(words, 8)) for _ in range(n)])
    df.insert(0, 'id', [f'q{i}' for i in range(n)])
    df.to_csv(tmp_path/'d.csv', index=False)
    df.assign(split=['train'] * 12 + ['dev'] * 4 + ['test'] * 8).to_csv(tmp_path/'ds.csv', index=False)
    return tmp_path


def _analyze(folder, *argv):
    "analyze with a kernel that does not exist: every check of the inputs runs, no notebook does."
    return scruples('analyze', *argv, '--out', folder/'out', '--kernel', 'no-such-kernel', cwd=folder)


def test_analyze_by_without_annotator_ids_is_refused_before_the_run(wide):
    r = _analyze(wide, 'd.csv', '--by', 'grp')
    assert r.returncode != 0 and 'needs annotator ids' in r.stderr and '--by grp' in r.stderr, r.stderr
    assert not (wide/'out').exists()


# --- SILENT (a parameter taken and unused): analyze --param test_share= with a split column (the data's own split is
# --- the test), --param transformer_minutes= with --finetune yes/no (only 'auto' weighs them), and the models' options
# --- (--epochs, --finetune, baselines=, budget=) without a text column (no model is trained) ran as if not given ----

@pytest.mark.parametrize('argv, said', [
    (('ds.csv', '--param', 'test_share=0.5'), 'test_share= (0.5) does nothing with a split column'),
    (('d.csv', '--param', 'transformer_minutes=3', '--finetune', 'yes'), 'transformer_minutes= (3.0) does nothing'),
    (('d.csv', '--text', '', '--epochs', '2'), '--epochs (2): the models\' option does nothing without a text column'),
    (('d.csv', '--text', '', '--param', 'baselines=Prior', '--param', 'budget=2'), 'do nothing without a text column'),
])
def test_analyze_parameters_the_run_would_not_use_are_refused(wide, argv, said):
    r = _analyze(wide, *argv)
    assert r.returncode != 0 and said in r.stderr, r.stderr


@pytest.mark.parametrize('argv', [('d.csv', '--param', 'test_share=0.5'), ('d.csv', '--param', 'transformer_minutes=3'),
                                  ('d.csv', '--text', ''), ('ds.csv', '--epochs', '2')])
def test_analyze_parameters_the_run_uses_still_pass(wide, argv):
    r = _analyze(wide, *argv)
    assert r.returncode != 0 and 'no Jupyter kernel named' in r.stderr, r.stderr


# --- MESSAGE (and loss through the API): --labels <(...) (a pipe) lost its first 64 bytes to the look at the file's head
# --- (JSON list or lines?) before it was read again: 60 labels were 'expected at least one label, got none' (or, longer,
# --- a count of labels short by the first ones); read_labels without n_examples returned the labels less the first --

def test_labels_from_a_pipe_are_refused_naming_why(tmp_path):
    import shlex
    import subprocess
    import sys
    from cli_run import CLI, cli_env
    rng = np.random.default_rng(0)
    c = np.array([rng.multinomial(5, p) for p in rng.dirichlet([1, 1, 1], size=60)])
    pd.DataFrame(c, columns=['yes', 'no', 'unsure']).to_csv(tmp_path/'v.csv', index=False)
    cmd = (f'{shlex.quote(sys.executable)} -c {shlex.quote(CLI)} best {shlex.quote(str(tmp_path/"v.csv"))} --metric '
           "xentropy --bootstrap 0 --labels <(for i in $(seq 0 59); do echo $((i % 3)); done)")
    r = subprocess.run(['bash', '-c', cmd], capture_output=True, text=True, timeout=300, env=cli_env())
    assert r.returncode != 0 and 'not a regular file' in r.stderr and 'write the labels to a file' in r.stderr, r.stderr
    (tmp_path/'lab.txt').write_text(''.join(f'{i % 3}\n' for i in range(60)))  # the same labels in a file: read
    r = scruples('best', tmp_path/'v.csv', '--metric', 'xentropy', '--bootstrap', '0', '--labels', tmp_path/'lab.txt')
    assert r.returncode == 0 and 'lab.txt' in r.stdout, r.stderr


# --- CRASH / SILENT (API): guide_parameters and analyze given the notebook's own names of what they set (text_col='',
# --- split_col=, reading=, as the notebook's parameters cell lists them) crashed with "GuideParameters() got multiple
# --- values for keyword argument 'text_col'"; out_dir= was taken and overwritten by analyze's own folder, silently --

@pytest.mark.parametrize('kw, said', [({'text_col': ''}, 'text_col=: the notebook sets it from text='),
                                      ({'split_col': 'split'}, 'from split='),
                                      ({'out_dir': 'elsewhere'}, "out_dir=: the notebook sets it from analyze's out"),
                                      ({'reading': '{}'}, 'reading=: the notebook sets it')])
def test_guide_parameters_refuse_the_notebooks_names_of_what_they_set(wide, kw, said):
    from scruples.guide import analyze, guide_parameters
    with pytest.raises(ValueError, match=said):
        guide_parameters(wide/'d.csv', **kw)
    with pytest.raises(ValueError, match=said):
        analyze(wide/'d.csv', wide/'out', **kw)
    assert not (wide/'out').exists()
    assert guide_parameters(wide/'d.csv', text='')['text_col'] == ''  # the keyword itself: read as before


# --- SILENT (papermill's -p): the guide notebook run by papermill itself skipped every guard of `scruples analyze`:
# --- -p n_boot 5 ran with 5 resamples, -p finetune no -p epochs 2 ignored the epochs, -p by grp on a wide table ran the
# --- whole notebook and stopped in its last section; the notebook now checks its run parameters before any model runs

@pytest.mark.parametrize('params, said', [(['n_boot', '5'], 'n_boot=5: expected from 10'),
                                          (['finetune', 'no', 'epochs', '2'], "does nothing with finetune='no'"),
                                          (['by', 'grp'], 'grouping annotators needs annotator ids')])
def test_papermill_parameters_meet_the_guards_of_analyze(wide, params, said):
    import subprocess
    import sys
    from cli_run import ROOT, cli_env
    ps = [x for k, v in zip(params[::2], params[1::2]) for x in ('-p', k, v)]
    r = subprocess.run([sys.executable, '-m', 'papermill', str(ROOT/'nbs'/'guides'/'your_data.ipynb'), str(wide/'run.ipynb'),
                        '-p', 'data_file', str(wide/'d.csv'), '-p', 'out_dir', str(wide/'pm'), *ps, '-k', 'python3',
                        '--no-progress-bar'], capture_output=True, text=True, timeout=900, env=cli_env(), cwd=wide)
    assert r.returncode != 0 and said in r.stderr + r.stdout, (r.stdout + r.stderr)[-3000:]
    assert not list((wide/'pm').glob('*.csv')) and not list((wide/'pm').glob('*.png'))  # stopped before any result


# --- MESSAGE (late failure): analyze --param plan_difference=2 (or 0, 1) ran every model and stopped in the plan near
# --- the notebook's end (plan: 'difference must be in (0, 1)'); transformer_minutes=-1 was taken (never fine-tune) ----

@pytest.mark.parametrize('param, said', [('plan_difference=2', 'plan_difference=2.0: expected strictly between 0 and 1'),
                                         ('plan_difference=1', 'plan_difference=1.0: expected strictly between 0 and 1'),
                                         ('transformer_minutes=-1', 'transformer_minutes=-1.0: expected at least 0')])
def test_analyze_plan_difference_and_minutes_are_checked_before_the_run(wide, param, said):
    r = _analyze(wide, 'd.csv', '--param', param)
    assert r.returncode != 0 and said in r.stderr, r.stderr
    r = _analyze(wide, 'd.csv', '--param', 'plan_difference=0.1', '--param', 'transformer_minutes=0.5')
    assert r.returncode != 0 and 'no Jupyter kernel named' in r.stderr, r.stderr


# --- MIXING: score_predictions / score_against_ceiling took a predictions frame whose index is a permutation of the
# --- counts' own RangeIndex (the user sorted it by confidence, or sampled it) by position: each item was scored against
# --- another's probabilities (macro F1 0.314 where the truth, the frames aligned as pandas aligns them, is 0.909) -----

def test_predictions_sorted_are_aligned_to_counts_without_ids():
    from scruples.annotations import AnnotatedData
    from scruples.evaluation import score_against_ceiling, score_predictions
    rng = np.random.default_rng(0)
    n = 200
    c = np.array([rng.multinomial(5, p) for p in rng.dirichlet([1, 1, 1], n)])
    counts = pd.DataFrame(c, columns=['yes', 'no', 'unsure'])
    p = 0.7 * c / c.sum(1, keepdims=True) + 0.3 * rng.dirichlet([1, 1, 1], n)
    proba = pd.DataFrame(p, columns=['yes', 'no', 'unsure'])
    truth = score_predictions(p, c, n_boot=0)  # arrays, in one order: the truth
    s = proba.sort_values('yes')  # sorted by confidence: its index says which item each row is
    assert s.reindex(counts.index).to_numpy().tolist() == p.tolist()  # as pandas aligns it
    assert score_predictions(s, counts, n_boot=0).f1 == pytest.approx(truth.f1)
    assert score_against_ceiling(s, counts, n_boot=0).loc['macro_f1', 'model'] == pytest.approx(truth.f1)
    d = AnnotatedData(items=None, counts=c, classes=('yes', 'no', 'unsure'))  # items numbered from 0
    assert score_predictions(s, d, n_boot=0).f1 == pytest.approx(truth.f1)
    sub = counts.iloc[50:100]  # a slice keeps its labels 50..99
    assert score_predictions(proba.iloc[50:100].sample(frac=1, random_state=2), sub, n_boot=0).f1 == \
        pytest.approx(score_predictions(p[50:100], c[50:100], n_boot=0).f1)
    # a frame made from an array (index 0..49, not the slice's labels) is still paired by position
    assert score_predictions(pd.DataFrame(p[50:100], columns=['yes', 'no', 'unsure']), sub, n_boot=0).f1 == \
        pytest.approx(score_predictions(p[50:100], c[50:100], n_boot=0).f1)


# --- MESSAGE: a Prolific export as --annotators ('Participant id') was refused with 'or name it', and the command line
# --- has no way to name it (--id is the data's item id): the message now says to rename it, naming the column --------

def test_annotators_table_without_an_id_column_says_how_to_fix_it(tmp_path):
    rows = [('s1', 'a1', 'Male'), ('s2', 'a2', 'Female'), ('s3', 'a3', 'Male'), ('s4', 'a4', 'Female')]
    pd.DataFrame(rows, columns=['Submission id', 'Participant id', 'Sex']).to_csv(tmp_path/'prolific.csv', index=False)
    long = [(f'q{i}', a, 'yes' if (i + j) % 3 else 'no') for i in range(12) for j, a in enumerate(['a1', 'a2', 'a3', 'a4'])]
    pd.DataFrame(long, columns=['item', 'annotator', 'label']).to_csv(tmp_path/'long.csv', index=False)
    r = scruples('agree', tmp_path/'long.csv', '--by', 'Sex', '--annotators', tmp_path/'prolific.csv', '--bootstrap', '0')
    assert r.returncode == 0 and 'within each group (by Sex)' in r.stdout, r.stderr  # Prolific's own spelling: read
    pd.DataFrame(rows, columns=['Submission id', 'Participant name', 'Sex']).to_csv(tmp_path/'prolific.csv', index=False)
    r = scruples('agree', tmp_path/'long.csv', '--by', 'Sex', '--annotators', tmp_path/'prolific.csv', '--bootstrap', '0')
    assert r.returncode != 0 and "rename yours to annotator, e.g. 'Participant name'" in r.stderr, r.stderr
    assert 'or name it' not in r.stderr
    t = pd.read_csv(tmp_path/'prolific.csv').rename(columns={'Participant name': 'annotator'})
    t.to_csv(tmp_path/'prolific.csv', index=False)  # renamed as the message says: read
    r = scruples('agree', tmp_path/'long.csv', '--by', 'Sex', '--annotators', tmp_path/'prolific.csv', '--bootstrap', '0')
    assert r.returncode == 0 and 'within each group (by Sex)' in r.stdout, r.stderr


# --- MESSAGE: a CSV saved for Excel with its hint line (sep=; or sep=,) was refused as 'a header of distinct names, got
# --- sep=,' (the line quoted as it was split, not as the file has it); the line names the delimiter and is no row -----

@pytest.mark.parametrize('body, sep', [('sep=;\r\nid;yes;no\r\nq1;2;1\r\nq2;0;3\r\nq3;1;1\r\n', ';'),
                                       ('sep=,\nid,yes,no\nq1,2,1\nq2,0,3\nq3,"1",1\n', ',')])
def test_a_csv_with_excels_sep_line_is_read_by_it(tmp_path, body, sep):
    (tmp_path/'x.csv').write_bytes(body.encode())
    r = scruples('data', 'validate', tmp_path/'x.csv')
    assert r.returncode == 0 and f'its first line, sep={sep}, says so' in ' '.join(r.stdout.split()), r.stdout + r.stderr
    from scruples.annotations import read_annotated
    d = read_annotated(tmp_path/'x.csv')
    assert list(d.items) == ['q1', 'q2', 'q3'] and d.counts.tolist() == [[2, 1], [0, 3], [1, 1]]
    (tmp_path/'y.csv').write_bytes(body.replace('q1;2;1', 'q1;2;x').replace('q1,2,1', 'q1,2,x').encode())
    r = scruples('data', 'validate', tmp_path/'y.csv')
    assert r.returncode != 0 and 'y.csv:3' in r.stdout + r.stderr  # lines as the file numbers them


# --- MIXING: best(read_annotated(...), y_true=Series keyed by item id) paired the labels with the items by position: the
# --- eleventh pass matched a Series beside a counts DataFrame by index, but what read_annotated returns was turned into
# --- its array first (accuracy 0.369 where the labels, in the items' order, give 0.678) -----------------------------

def test_gold_labels_keyed_by_item_are_matched_to_annotated_data():
    from scruples.annotations import AnnotatedData
    rng = np.random.default_rng(0)
    c = np.array([rng.multinomial(5, p) for p in rng.dirichlet([1, 1, 1], size=60)])
    d = AnnotatedData(items=[f'q{i}' for i in range(60)], counts=c, classes=('yes', 'no', 'unsure'))
    y = pd.Series(c.argmax(1), index=list(d.items))
    truth = best(c, ['accuracy', 'macro_f1'], y_true=c.argmax(1), n_boot=0, check=False).estimate
    got = best(d, ['accuracy', 'macro_f1'], y_true=y.sample(frac=1, random_state=3), n_boot=0, check=False).estimate
    assert got.tolist() == pytest.approx(truth.tolist())
    with pytest.raises(ValueError, match='10 of them have no row'):
        best(d, ['accuracy'], y_true=y.iloc[:50], n_boot=0, check=False)
    with pytest.raises(ValueError, match="item 'q0' is in its index twice"):
        best(d, ['accuracy'], y_true=pd.concat([y.iloc[1:], y.iloc[:1], y.iloc[:1]]).iloc[1:], n_boot=0, check=False)
    # a Series made from a list (a RangeIndex) pairs by position, as an array does
    assert best(d, ['accuracy'], y_true=pd.Series(c.argmax(1)), n_boot=0, check=False).estimate.iloc[0] == \
        pytest.approx(truth.iloc[0])


# --- MIXING: evaluate(model, X_test, counts_test) with both frames labelled by item (X_test sampled or sorted: another
# --- order) paired the model's probabilities (in X_test's order) with the counts by position: macro F1 0.319 where the
# --- examples aligned to their items give 0.909 -----------------------------------------------------------------------

def test_evaluate_aligns_counts_to_labelled_examples():
    from scruples.evaluation import evaluate
    rng = np.random.default_rng(0)
    n = 200
    c = np.array([rng.multinomial(5, p) for p in rng.dirichlet([1, 1, 1], n)])
    counts = pd.DataFrame(c, columns=['yes', 'no', 'unsure'], index=[f'i{j}' for j in range(n)])
    p = 0.7 * c / c.sum(1, keepdims=True) + 0.3 * rng.dirichlet([1, 1, 1], n)
    X = pd.DataFrame({'f0': p[:, 0], 'f1': p[:, 1], 'f2': p[:, 2]}, index=counts.index)
    model = lambda X: X[['f0', 'f1', 'f2']].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        truth = evaluate(model, X, counts, n_boot=0)
        shuffled = X.sample(frac=1, random_state=1)
        assert evaluate(model, shuffled, counts, n_boot=0).f1 == pytest.approx(truth.f1)
        held, test = shuffled.iloc[:50], shuffled.iloc[50:]  # calibration items held out (scored ones are refused)
        assert evaluate(model, test, counts.drop(held.index), X_cal=held, counts_cal=counts.loc[held.index[::-1]],
                        n_boot=0).xentropy == pytest.approx(
            evaluate(model, X.loc[test.index], counts.loc[test.index], X_cal=X.loc[held.index],
                     counts_cal=counts.loc[held.index], n_boot=0).xentropy)
        with pytest.raises(ValueError, match='counts_test: its index is not the items of X_test'):
            evaluate(model, X.iloc[:150], counts.iloc[50:], n_boot=0)
        assert evaluate(model, X.reset_index(drop=True), counts, n_boot=0).f1 == pytest.approx(truth.f1)  # positions
