"""The guide notebook (`nbs/guides/your_data.ipynb`) run through `scruples analyze` on datasets made here: 3 classes in
the wide form (texts and counts) and 2 classes in the long form (items, annotators, labels, texts). One run per form,
shared by the tests of this module; small sizes (40 items, 1 epoch, tiny budgets)."""
import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scruples.cli import main

# The guide reads no Scruples data: CI runs it in its first leg only, not again in the no-data leg (make test-nodata).
pytestmark = pytest.mark.skipif(os.environ.get('CI') == 'true' and os.environ.get('SCRUPLES_NO_SHARED') == '1',
                                reason='the guide reads no Scruples data: it runs in the first CI leg')

SMALL = ['--epochs', '1', '--max-items', '40', '--param', 'budget=2', '--param', 'n_boot=20', '--param', 'best_samples=200',
         '--param', 'baselines=Prior,Logistic', '--param', 'trait_items=6']
NO_MODELS = ['--max-items', '40', '--param', 'n_boot=20', '--param', 'best_samples=200']  # no texts: the models' options
# (--epochs, budget=, baselines=) are refused, as they would do nothing
SMALL_WIDE = SMALL[:-2]  # wide counts without annotator ids: no latent traits, so trait_items= is refused (it did nothing)
WORDS = {'good': ['helped', 'thanked', 'shared', 'comforted'], 'bad': ['lied to', 'insulted', 'ignored', 'cheated'],
         'meh': ['called', 'visited', 'emailed', 'met']}
LIKELIHOODS = ('hard', 'soft', 'counts', 'dirichlet')


def make_items(classes, n, seed):
    "n texts whose verb says their class, and a true class per item."
    rng = np.random.default_rng(seed)
    truth = rng.integers(len(classes), size=n)
    whom = ['my sister', 'a neighbour', 'my boss', 'an old friend', 'the new tenant']
    texts = [f'I {rng.choice(WORDS[list(WORDS)[t]])} {rng.choice(whom)} {i % 7} times this week.' for i, t in enumerate(truth)]
    return texts, truth


def run_cli(*argv):
    "`scruples ARGV` in-process, its output captured (capsys is function-scoped; these runs are shared by the module)."
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope='module')
def wide3(tmp_path_factory):
    "3 classes, wide: id, text and one count column per class (3-6 votes per item)."
    d = tmp_path_factory.mktemp('wide3')
    classes = ['fine', 'wrong', 'unsure']
    texts, truth = make_items(classes, 48, seed=1)
    rng = np.random.default_rng(2)
    rows = []
    for i, (t, y) in enumerate(zip(texts, truth)):
        n = rng.integers(3, 7)
        c = np.bincount(np.where(rng.random(n) < 0.7, y, rng.integers(3, size=n)), minlength=3)
        rows.append({'post': f'p{i}', 'text': t, **dict(zip(classes, c.tolist()))})
    pd.DataFrame(rows)[['post', 'text', 'wrong', 'fine', 'unsure']].to_csv(d/'votes.csv', index=False)  # count columns out of order
    return (*run_cli('analyze', str(d/'votes.csv'), '--counts', 'fine,wrong,unsure', '--id', 'post', '--out', str(d/'out'), *SMALL_WIDE), d/'out')


@pytest.fixture(scope='module')
def long2(tmp_path_factory):
    "2 classes, long: item, rater, verdict, text (12 raters, 4-6 judgments per item)."
    d = tmp_path_factory.mktemp('long2')
    texts, truth = make_items(['ok', 'not ok'], 44, seed=3)
    rng = np.random.default_rng(4)
    skill = rng.uniform(0.55, 0.95, 12)
    rows = []
    for i, (t, y) in enumerate(zip(texts, truth)):
        y = min(int(y), 1)
        for a in rng.choice(12, size=rng.integers(4, 7), replace=False):
            lab = y if rng.random() < skill[a] else 1 - y
            rows.append({'item': f'q{i}', 'rater': f'r{a}', 'verdict': ['ok', 'not ok'][lab], 'text': t})
    pd.DataFrame(rows).to_csv(d/'judgments.csv', index=False)
    return (*run_cli('analyze', str(d/'judgments.csv'), '--long', '--annotator', 'rater', '--label', 'verdict', '--text', 'text',
                     '--out', str(d/'out'), '--json', *SMALL, '--param', 'likelihoods=counts,dirichlet'), d/'out')  # all four: wide3


def summary_of(run):
    rc, out, err, folder = run
    assert rc == 0, err[-3000:]
    return pd.read_csv(folder/'summary.csv')


@pytest.mark.parametrize('which', ['wide3', 'long2'])
def test_guide_writes_the_notebook_figures_and_a_tidy_summary(request, which):
    run = request.getfixturevalue(which)
    s = summary_of(run)
    folder = run[3]
    assert list(s.columns) == ['section', 'quantity', 'value', 'lo', 'hi', 'note']
    assert (folder/'your_data.ipynb').is_file()
    nb = json.loads((folder/'your_data.ipynb').read_text())
    assert not [o for c in nb['cells'] for o in c.get('outputs', []) if o.get('output_type') == 'error']
    for fig in ('models_vs_ceiling.png', 'reliability.png', 'uncertainty.png'): assert (folder/fig).stat().st_size > 1000
    assert {'data', 'agreement', 'ceiling', 'models', 'soft metrics', 'uncertainty'} <= set(s.section)
    assert not s.quantity.str.contains('failed').any(), s[s.quantity.str.contains('failed')].to_string()
    q = s.set_index('quantity')
    k = 3 if which == 'wide3' else 2
    assert q.loc['classes', 'value'] == k and q.loc['items', 'value'] == 40  # --max-items 40 of 48 / 44
    for lik in (LIKELIHOODS if which == 'wide3' else ('counts', 'dirichlet')):
        assert 0 <= q.loc[f'MiniLM ({lik}): macro F1', 'value'] <= 1
        assert 0 < q.loc[f'MiniLM ({lik}): cross-entropy', 'value'] < 2 * np.log(k)
    for base in ('Prior', 'Logistic'): assert np.isfinite(q.loc[f'{base}: cross-entropy', 'value'])
    ceil = s[s.section == 'ceiling']
    # six metrics (accuracy, macro F1, cross-entropy, KL, JS, Manhattan), all items and test items
    assert len(ceil) == 12 and (ceil.lo <= ceil.value + 1e-9).all() and (ceil.value <= ceil.hi + 1e-9).all()
    models = s[(s.section == 'models') & s.quantity.str.endswith('macro F1')]
    assert (models.lo <= models.value + 1e-9).all() and (models.value <= models.hi + 1e-9).all()


def test_guide_wide_keeps_class_names_and_has_no_annotator_sections(wide3):
    s = summary_of(wide3)
    assert [q.split(': ')[1] for q in s.quantity if q.startswith('share of votes')] == ['fine', 'wrong', 'unsure']
    assert 'traits' not in set(s.section) and not s.quantity.str.contains('dawid_skene').any()
    assert 'annotators' not in set(s.quantity)


def test_analyze_prints_one_line_per_quantity_with_its_interval(wide3):
    """Issue 40: the text output is the summary by section, each quantity on one line with its value and [lo, hi], within
    100 columns, notes whole (the old output printed two pandas blocks: lo/hi/notes 150 lines below, notes cut at 40)."""
    def _number(x):  # as the text prints a value: a whole number whole, else 4 significant digits
        return f'{int(x)}' if float(x).is_integer() else f'{x:.4g}'
    rc, out, err, folder = wide3
    s = summary_of(wide3)
    lines = out.splitlines()
    assert max(map(len, lines)) <= 100 and 'notes cut' not in out
    assert [l[3:-3] for l in lines if l.startswith('== ')] == list(dict.fromkeys(s.section))  # every section, in order
    flat = ' '.join(out.split())
    for r in s.itertuples():
        line = ' '.join(f'{r.quantity} {_number(r.value)}'.split())
        if r.lo == r.lo and r.hi == r.hi:
            line += f' [{_number(r.lo)}, {_number(r.hi)}]'
        assert line in flat, line  # the value and its interval on the quantity's line
        if isinstance(r.note, str):
            assert ' '.join(r.note.split()) in flat, r.note  # the note whole


def test_guide_long_aggregates_and_fits_traits(long2):
    s = summary_of(long2)
    q = s.set_index('quantity')
    assert q.loc['annotators', 'value'] == 12
    for m in ('dawid_skene', 'mace', 'glad'): assert 0 <= q.loc[f'{m}: agreement with the majority vote', 'value'] <= 1
    assert 'traits chosen by BIC' in q.index and 'traits' in set(s.section)
    assert [r for r in json.loads(long2[1]) if r['quantity'] == 'items'][0]['value'] == 40  # --json prints the rows


@pytest.mark.parametrize('which', ['wide3', 'long2'])
def test_guide_calibrates_on_held_out_items_only(request, which):
    "Every model is calibrated on held-out items (out-of-fold or the transformer's held-out part): no in-sample warning."
    run = request.getfixturevalue(which)
    summary_of(run)
    text = (run[3]/'your_data.ipynb').read_text()
    assert 'InSampleCalibrationWarning' not in text and 'in-sample' not in text


def test_guide_is_parameterized_for_papermill_and_skipped_by_nbdev_test():
    "papermill finds its parameters (defaults: the shipped dataset); nbdev_test skips it (run here instead)."
    from pathlib import Path
    from papermill.inspection import inspect_notebook
    nb = Path(__file__).resolve().parents[1]/'nbs'/'guides'/'your_data.ipynb'
    params = inspect_notebook(str(nb))
    assert {'data_file', 'form', 'text_col', 'count_cols', 'item_col', 'annotator_col', 'label_col', 'max_items', 'epochs', 'out_dir'} <= set(params)
    assert params['data_file']['default'] == "''" and params['epochs']['inferred_type_name'] == 'int'
    assert (nb.parent/'.notest').is_file()


# --- the guide's outputs agree with summary.csv ------------------------------------------------------------------

def notebook_text(run):
    "Every stream output of the executed guide notebook, joined."
    nb = json.loads((run[3]/'your_data.ipynb').read_text())
    return ''.join(''.join(o.get('text', '')) for c in nb['cells'] for o in c.get('outputs', []) if o.get('output_type') == 'stream')


@pytest.mark.parametrize('which', ['wide3', 'long2'])
def test_guide_reliability_legend_shows_the_summary_ece(request, which):
    "The reliability diagram draws the calibrated probabilities in 10 bins: each transformer's ECE in its legend is summary.csv's."
    run = request.getfixturevalue(which)
    q = summary_of(run).set_index('quantity')
    legend = [l for l in notebook_text(run).splitlines() if l.startswith('legend: ')]
    assert len(legend) == 1, legend
    for lik in (LIKELIHOODS if which == 'wide3' else ('counts', 'dirichlet')):
        assert f"{lik} (ECE {q.loc[f'MiniLM ({lik}): expected calibration error', 'value']:.3f})" in legend[0], legend[0]


@pytest.mark.parametrize('which', ['wide3', 'long2'])
def test_guide_says_when_a_model_beats_the_best_estimate(request, which):
    "A model scoring better than the BEST estimate of the test items is named in the output and in its summary note; no other is."
    run = request.getfixturevalue(which)
    s = summary_of(run)
    q, text = s.set_index('quantity'), notebook_text(run)
    for metric, sign in (('macro F1', 1), ('cross-entropy', -1)):
        best = q.loc[f'BEST {metric} (test items)', 'value']
        for r in s[(s.section == 'models') & s.quantity.str.endswith(': ' + metric)].itertuples():
            beats = sign * (r.value - best) > 0
            assert beats == ('better than the BEST estimate' in r.note), (r.quantity, r.value, best, r.note)
            model = r.quantity.rsplit(': ', 1)[0]
            assert beats == (f"{model}: {metric} {r.value:.3f}" in text), (r.quantity, r.value, best)
    assert ('Better than the BEST estimate' in text) == ('No model is better' not in text)


# --- the guide ships with the package ----------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def test_guide_notebook_ships_in_the_wheel(tmp_path):
    """An sdist of the tracked files, then a wheel built from it, carry the guide notebook byte for byte, and an installed
    `scruples.guide` finds that copy away from any checkout (the setup.py build step copies nbs/guides/your_data.ipynb)."""
    import shutil
    import subprocess
    import sys
    import zipfile
    pytest.importorskip('build')
    try: files = subprocess.run(['git', 'ls-files', '--cached', '--others', '--exclude-standard'], cwd=ROOT, check=True,
                                capture_output=True, text=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError): pytest.skip('not a git checkout')
    src = tmp_path/'src'
    for f in files:  # the package's own files: what an sdist needs, nothing from nbs/ but what MANIFEST.in names
        if (f.startswith('scruples/') or '/' not in f) and (ROOT/f).is_file():
            (src/f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT/f, src/f)
    (src/'nbs'/'guides').mkdir(parents=True)
    shutil.copy2(ROOT/'nbs'/'guides'/'your_data.ipynb', src/'nbs'/'guides'/'your_data.ipynb')
    r = subprocess.run([sys.executable, '-m', 'build', '--no-isolation', '--outdir', str(tmp_path/'dist'), str(src)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    whl, = (tmp_path/'dist').glob('scruples-*.whl')  # built from the sdist, so MANIFEST.in carried the notebook
    with zipfile.ZipFile(whl) as z:
        assert z.read('scruples/guide_data/your_data.ipynb') == (ROOT/'nbs'/'guides'/'your_data.ipynb').read_bytes()
        z.extractall(tmp_path/'site')
    away = tmp_path/'elsewhere'
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'} | {'PYTHONPATH': str(tmp_path/'site')}
    r = subprocess.run([sys.executable, '-c', 'import scruples.guide as g; print(g.__file__); print(g.guide_notebook())'],
                       cwd=away, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    mod, nb = r.stdout.split()
    assert Path(mod).is_relative_to(tmp_path/'site') and Path(nb) == tmp_path/'site'/'scruples'/'guide_data'/'your_data.ipynb'


def test_guide_notebook_in_a_checkout_is_the_source(tmp_path):
    "A checkout has no copy in the package: it runs nbs/guides/your_data.ipynb itself; no notebook at all is a named error."
    from scruples.guide import guide_notebook
    assert guide_notebook() == ROOT/'nbs'/'guides'/'your_data.ipynb'
    assert not (ROOT/'scruples'/'guide_data'/'your_data.ipynb').exists()
    with pytest.raises(FileNotFoundError, match='neither installed with scruples'): guide_notebook(tmp_path)


# --- bad input: errors before any kernel starts ------------------------------------------------------------------

@pytest.fixture
def no_kernel(monkeypatch):
    import papermill
    monkeypatch.setattr(papermill, 'execute_notebook', lambda *a, **k: pytest.fail('the notebook ran before the input was checked'))


def write_wide_and_long(d, n=12):
    "A wide file (id, text, yes, no) and its long form (item, annotator, label)."
    wide = pd.DataFrame({'id': [f'i{i}' for i in range(n)], 'text': [f'text {i}' for i in range(n)],
                         'yes': [i % 3 + 1 for i in range(n)], 'no': [(i + 1) % 2 for i in range(n)]})
    wide.to_csv(d/'wide.csv', index=False)
    rows = [(r.id, f'a{j}', lab) for r in wide.itertuples() for j, lab in enumerate(['yes'] * r.yes + ['no'] * r.no)]
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(d/'long.csv', index=False)
    return wide


def test_analyze_wide_and_long_tallies_must_agree(tmp_path, no_kernel):
    "A long form whose tally of an item is not the wide counts: the first such item, with both tallies, before any kernel."
    write_wide_and_long(tmp_path)
    long = pd.read_csv(tmp_path/'long.csv')
    long.loc[long.index[(long.item == 'i5') & (long.label == 'yes')][0], 'label'] = 'no'  # i5: yes 3, no 0 in the wide file
    long.to_csv(tmp_path/'long_bad.csv', index=False)
    rc, out, err = run_cli('analyze', str(tmp_path/'wide.csv'), '--id', 'id', '--annotations', str(tmp_path/'long_bad.csv'), '--out', str(tmp_path/'o'))
    assert rc == 1 and out == '', err
    assert "disagree on 1 of 12 items; the first, item 'i5': wide counts yes 3, no 0, long tally yes 2, no 1" in err, err
    assert 'wide.csv' in err and 'long_bad.csv' in err


def test_analyze_typed_column_names_must_exist(tmp_path, no_kernel):
    "A column name typed on the command line must be in the file (the error names file, column and the columns present); an untyped default may be absent."
    from scruples.guide import guide_parameters
    (tmp_path/'l.csv').write_text('item,label\n' + ''.join(f'q{i},{"ab"[i % 2]}\nq{i},a\n' for i in range(10)))
    for typed in (['--annotator', 'annotator'], ['--text', 'text']):
        rc, out, err = run_cli('analyze', str(tmp_path/'l.csv'), '--long', *typed, '--out', str(tmp_path/'o'))
        col = typed[1]
        assert rc == 1 and f"l.csv:1: field '{col}': expected a column named '{col}'" in err and 'columns: item, label' in err, err
    got = guide_parameters(tmp_path/'l.csv', form='long')  # untyped: anonymous votes, no texts
    assert (got['annotator_col'], got['text_col']) == ('', '')
    write_wide_and_long(tmp_path)
    rc, out, err = run_cli('analyze', str(tmp_path/'wide.csv'), '--id', 'id', '--text', 'text', '--annotations', str(tmp_path/'long.csv'),
                           '--annotator', 'rater', '--out', str(tmp_path/'o'))
    assert rc == 1 and "long.csv:1: field 'rater': expected a column named 'rater'" in err and 'columns: item, annotator, label' in err, err


# --- analyze touches only what it writes (issue 28) --------------------------------------------------------------

def run_exe(*argv, timeout=300):
    "`scruples ARGV` as a user runs it: a subprocess of the installed console script (this checkout on PYTHONPATH)."
    import shutil
    import subprocess
    import sys
    exe = Path(sys.executable).with_name('scruples')
    exe = str(exe) if exe.is_file() else shutil.which('scruples')
    if not exe: pytest.skip('the scruples console script is not installed')
    env = os.environ.copy() | {'PYTHONPATH': str(ROOT) + os.pathsep + os.environ.get('PYTHONPATH', '')}
    r = subprocess.run([exe, *argv], capture_output=True, text=True, timeout=timeout, env=env)
    return r.returncode, r.stdout, r.stderr


def snapshot(folder):
    "Every file under `folder` and its bytes."
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(Path(folder).rglob('*')) if p.is_file()}


def test_analyze_keeps_an_input_named_summary_csv_inside_out(tmp_path):
    "An input named summary.csv inside --out: refused before any work, the file as it was (it used to be deleted first)."
    write_wide_and_long(tmp_path)
    out = tmp_path/'o'; out.mkdir()
    (out/'summary.csv').write_bytes((tmp_path/'wide.csv').read_bytes())
    before = snapshot(out)
    rc, _, err = run_exe('analyze', str(out/'summary.csv'), '--id', 'id', '--out', str(out))
    assert rc == 1 and 'summary.csv' in err and 'Traceback' not in err, err
    assert snapshot(out) == before


def test_analyze_with_a_mistyped_kernel_deletes_nothing(tmp_path):
    "A previous run's files (its manifest) and the user's files stay as they were when --kernel names no kernel."
    from scruples.guide import commit_run, prepare_out
    write_wide_and_long(tmp_path)
    out = tmp_path/'o'
    run, prev = prepare_out(out)
    for name in ('summary.csv', 'your_data.ipynb', 'models_vs_ceiling.png'): (run/name).write_text(name)
    commit_run(out, run, prev)
    (out/'mine.txt').write_text('mine')
    before = snapshot(out)
    rc, _, err = run_exe('analyze', str(tmp_path/'wide.csv'), '--id', 'id', '--out', str(out), '--kernel', 'pyhton3')
    assert rc == 1 and "no Jupyter kernel named 'pyhton3'" in err, err
    assert snapshot(out) == before


@pytest.mark.parametrize('argv, says', [
    (['--param', 'max_items=2'], 'max_items=2: expected'),
    (['--max-items', '8', '--param', 'n_boot=0'], 'n_boot=0: expected'),
    (['--param', 'epoch=2'], 'epoch=2: not a parameter of the guide notebook'),
    (['--param', 'test_share=1.5'], 'test_share=1.5: expected from'),
    (['--long', '--counts', 'yes,no'], ': --counts does not apply to the long form'),
    (['--long', '--id', 'id'], ': --id does not apply to the long form'),
    (['--long', '--annotations', 'missing.csv'], '--annotations FILE adds annotator ids to a wide table'),
    (['--wide', '--label', 'verdict'], ': --label does not apply to the wide form'),
    (['--wide', '--item', 'post'], ': --item does not apply to the wide form'),
    (['--label', 'verdict'], "field 'item': expected a column named 'item'"),  # a label column says long: its item column is missing
])
def test_analyze_checks_parameters_and_options_before_writing(tmp_path, argv, says):
    "Parameters meet the notebook's guards and options of the other form are errors, before --out is even created."
    write_wide_and_long(tmp_path)
    data = tmp_path/('long.csv' if '--long' in argv else 'wide.csv')
    rc, _, err = run_exe('analyze', str(data), '--out', str(tmp_path/'o'), *argv)
    assert rc == 1 and says in err and 'Traceback' not in err, err
    assert not (tmp_path/'o').exists()


def test_analyze_no_text_column_is_not_a_count_column(tmp_path, no_kernel):
    "--text '' means no texts: the text column is left out of the counts (it used to become a count column)."
    write_wide_and_long(tmp_path)
    from scruples.guide import guide_parameters
    p = guide_parameters(tmp_path/'wide.csv', text='', id='id')
    assert (p['text_col'], p['count_cols']) == ('', 'yes,no')


def test_analyze_rerun_replaces_the_previous_run_as_a_whole(wide3):
    "A rerun without texts into the same --out: the first run's model figures go, the user's files stay, the manifest lists the run."
    from scruples.guide import MANIFEST
    rc, out, err, folder = wide3
    assert rc == 0, err[-3000:]
    assert (folder/'models_vs_ceiling.png').is_file() and (folder/MANIFEST).is_file()
    (folder/'notes.txt').write_text('mine')
    src = folder.parent/'votes.csv'
    rc, out, err = run_exe('analyze', str(src), '--counts', 'fine,wrong,unsure', '--id', 'post', '--text', '', '--out', str(folder),
                           *NO_MODELS)
    assert rc == 0, err[-3000:]
    names = sorted(p.name for p in folder.iterdir())
    assert not [n for n in names if n.endswith('.png') and n not in ('aggregation.png', 'plan.png')], names  # no model figures left
    assert 'notes.txt' in names and not [n for n in names if n.startswith('.analyze-run-')], names
    assert sorted(json.loads((folder/MANIFEST).read_text())['files']) == sorted(n for n in names if n != 'notes.txt')
    s = pd.read_csv(folder/'summary.csv')
    assert 'models' not in set(s.section) and s.set_index('quantity').loc['classes', 'value'] == 3
    assert 'models_vs_ceiling.png' not in notebook_text((rc, out, err, folder))  # the notebook lists this run's figures only


# --- a dataset as they come (issue 29) ---------------------------------------------------------------------------

LEVELS5 = ['not_abusive', 'mild', 'moderate', 'strong', 'very_strong']
REPLY = {0: ['thanks for the help', 'can you play some music', 'what is the weather', 'ok that works', 'tell me a joke'],
         1: ['that was a dumb answer', 'you are kind of useless', 'ugh, stop it'],
         2: ['you are an idiot', 'shut up you fool'], 3: ['you stupid worthless bot', 'i hate you, moron'],
         4: ['you pathetic piece of garbage', 'you disgusting brainless trash']}
TURNS = ['Here is the forecast.', 'I could not find that.', 'Your timer is set.', 'Did you mean the city centre?', 'Sorry, say again?']


def make_issue_dataset(folder, n=3000, n_annotators=12, seed=29):
    """A dataset like the issue's: n replies in context, 5 ordered levels (about 80% of the votes in the first), 2-8 votes
    each as one set of one-hot columns per annotator (Annotator3_2: did annotator 3 choose level 2; '1, 1' where an annotator
    labelled an item twice), items named by two columns (conversation, turn) and official train / validation / test splits
    as a column. Returns the file."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(5, size=n, p=[0.8, 0.08, 0.05, 0.04, 0.03])
    rel = rng.uniform(0.6, 0.95, n_annotators)
    cols = {f'Annotator{a + 1}_{j}': [''] * n for a in range(n_annotators) for j in range(5)}
    for i, t in enumerate(truth):
        for a in rng.choice(n_annotators, size=rng.integers(2, 9), replace=False):
            labs = [t if rng.random() < rel[a] else int(np.clip(t + rng.choice([-1, 1]), 0, 4))
                    for _ in range(2 if rng.random() < 0.03 else 1)]  # now and then a repeat
            for j in range(5): cols[f'Annotator{a + 1}_{j}'][i] = ', '.join('1' if l == j else '0' for l in labs)
    texts = [f'{rng.choice(REPLY[t])} {i % 97}' for i, t in enumerate(truth)]
    split = rng.choice(['train', 'validation', 'test'], size=n, p=[0.7, 0.15, 0.15])
    df = pd.DataFrame({'conv_id': [f'c{i // 3}' for i in range(n)], 'turn': [i % 3 for i in range(n)], 'split': split,
                       'context': rng.choice(TURNS, size=n), 'text': texts, **cols})
    path = Path(folder)/'abuse.csv'
    df.to_csv(path, index=False)
    return path


ISSUE_ARGS = ['--annotator-columns', 'Annotator{annotator}_{label}', '--id', 'conv_id,turn', '--split', 'split', '--context', 'context',
              '--classes', ','.join(map(str, range(5))), '--repeats', 'first', '--param', 'ordered=true',
              '--param', 'group=abusive=2,3,4; not_abusive=0,1']

TINY = ['--epochs', '1', '--param', 'budget=2', '--param', 'n_boot=20', '--param', 'best_samples=200', '--param', 'baselines=Prior,Logistic',
        '--param', 'trait_items=6']
FROZEN = [*TINY[2:], '--finetune', 'no']  # TINY with the frozen encoder (no epochs): the other guide runs fine-tune


@pytest.fixture(scope='module')
def shipped_default(shipped_guide_run):
    """The guide as it ships: no data file (the replies dataset, wide with its long form, its split and context), small sizes
    (conftest's SHIPPED_GUIDE_PARAMS): the session's one run of it in place (`shipped_guide_run`, also test_clean_run's)."""
    run = shipped_guide_run
    assert run['error'] is None, run['error']
    return 0, '', '', run['out']


@pytest.fixture(scope='module')
def shipped_annotators(tmp_path_factory):
    "The second shipped dataset: one column per annotator, read with the data's split and context, every item (400)."
    from scruples.guide import shipped_dataset
    d = tmp_path_factory.mktemp('annotators')
    out = d/'out'
    wide = pd.read_csv(shipped_dataset('wide'))  # a model's predictions of the dev and test items: smoothed shares of their votes
    wide = wide[wide.split != 'train']
    p = (wide[['fine', 'rude', 'abusive']].to_numpy() + 1.0) / (wide[['fine', 'rude', 'abusive']].to_numpy().sum(1, keepdims=True) + 3)
    pd.DataFrame(p, columns=['fine', 'rude', 'abusive']).assign(id=wide.id.to_numpy()).to_csv(d/'pred.csv', index=False)
    return (*run_cli('analyze', str(shipped_dataset('annotators')), '--annotator-columns', 'A*', '--split', 'split', '--context', 'context',
                     '--classes', 'fine,rude,abusive', '--out', str(out), '--predictions', str(d/'pred.csv'), *FROZEN,
                     '--param', 'likelihoods=soft'), out)


def test_guide_on_the_shipped_dataset_uses_its_split_context_groups_and_order(shipped_default):
    s = summary_of(shipped_default)
    q = s.set_index('quantity')
    assert q.loc['items', 'value'] == 120 and 'max_items=120' in q.loc['items', 'note']  # a cap is recorded
    assert q.loc['items in the file', 'value'] == 400
    tr = q.loc['training / dev / test items']
    assert "data's own split" in tr.note and tr.value + tr.lo + tr.hi == 120
    for name in ("Krippendorff's alpha (nominal)", "Krippendorff's alpha (ordinal)", "Fleiss' kappa (every vote)"):
        assert q.loc[name, 'lo'] <= q.loc[name, 'value'] <= q.loc[name, 'hi'], name
    assert "Krippendorff's alpha (nominal) [grouped]" in q.index and 'BEST macro F1 (test items) [grouped]' in q.index
    assert 'MiniLM (dirichlet): macro F1 [grouped]' in q.index and 'Logistic (balanced): macro F1' in q.index  # skewed: balanced too
    assert q.loc['skewed classes', 'value'] == 1
    text = notebook_text(shipped_default)
    assert 'shipped dataset are simulated' in text
    assert 'questions left after dropping' in q.index
    ceil = s[s.section == 'ceiling']  # the ceiling's rows say how many posterior samples and resamples made them
    assert len(ceil) and ceil.note.str.contains('; 200 posterior samples, 20 resamples', regex=False).all(), ceil.note


def test_guide_on_annotator_columns_reads_every_item_and_says_nothing_simulated(shipped_annotators):
    s = summary_of(shipped_annotators)
    q = s.set_index('quantity')
    assert q.loc['items', 'value'] == 400 and q.loc['items', 'note'] == 'every item of the file' and q.loc['annotators', 'value'] == 15
    assert "data's own split" in q.loc['training / dev / test items', 'note']
    assert "Krippendorff's alpha (ordinal)" not in q.index  # not asked: nominal only
    nb = json.loads((shipped_annotators[3]/'your_data.ipynb').read_text())
    shown = ''.join(''.join(o.get('text', '')) + json.dumps(o.get('data', {})) for c in nb['cells'] for o in c.get('outputs', []))
    assert 'simulated' not in shown.lower() and 'This run is on your data' in shown


def test_guide_warns_about_every_model_at_the_priors_macro_f1(shipped_default, shipped_annotators):
    "A model whose macro F1 is the Prior's (one class for every test item) is named in the warnings; so is one worse than the Prior."
    for run in (shipped_default, shipped_annotators):
        s = summary_of(run)
        q = s.set_index('quantity')
        warned = set(s[s.section == 'warnings'].quantity)
        for tag in ('', ' [grouped]'):
            if f'Prior: macro F1{tag}' not in q.index: continue
            prior_f1, prior_xe = q.loc[f'Prior: macro F1{tag}', 'value'], q.loc[f'Prior: cross-entropy{tag}', 'value']
            for r in s[(s.section == 'models') & s.quantity.str.endswith(f': macro F1{tag}')].itertuples():
                model = r.quantity[:-len(f': macro F1{tag}')]
                if model == 'Prior': continue
                if r.value <= prior_f1 + 1e-12: assert f'{model}{tag}: collapsed' in warned, (model, tag, warned)
                if q.loc[f'{model}: cross-entropy{tag}', 'value'] > prior_xe: assert f'{model}{tag}: worse than the Prior' in warned


@pytest.mark.skipif(os.environ.get('SCRUPLES_GUIDE_FULL') != '1', reason='the issue-size run takes long: SCRUPLES_GUIDE_FULL=1 runs it')
@pytest.mark.parametrize('n', [4185])
def test_guide_on_a_dataset_as_the_issue_at_full_size(tmp_path, n):
    issue_run_checks(tmp_path, n, ['--epochs', '1', '--param', 'likelihoods=soft,dirichlet', '--param', 'budget=4'])


def test_guide_on_a_dataset_as_the_issue_small(tmp_path):
    "The issue's shape at a small size: one command, its splits, every item, the grouped task beside the 5-level one."
    issue_run_checks(tmp_path, 360, [*FROZEN, '--param', 'likelihoods=soft'])


def issue_run_checks(tmp_path, n, extra):
    data = make_issue_dataset(tmp_path, n=n)
    rc, out, err = run_exe('analyze', str(data), *ISSUE_ARGS, '--out', str(tmp_path/'out'), *extra, timeout=7200)
    assert rc == 0, err[-3000:]
    s = pd.read_csv(tmp_path/'out'/'summary.csv')
    q = s.set_index('quantity')
    assert q.loc['items', 'value'] == n and q.loc['items', 'note'] == 'every item of the file' and q.loc['classes', 'value'] == 5
    splits = pd.read_csv(data).split.value_counts()
    tr = q.loc['training / dev / test items']
    assert (tr.value, tr.lo, tr.hi) == (splits['train'], splits['validation'], splits['test']) and "data's own split" in tr.note
    assert q.loc["Krippendorff's alpha (ordinal)", 'value'] > q.loc["Krippendorff's alpha (nominal)", 'value']
    assert [c for c in q.index if c.startswith('share of votes') and c.endswith('[grouped]')] == \
        ['share of votes: not_abusive [grouped]', 'share of votes: abusive [grouped]']
    for m in ('BEST macro F1 (test items) [grouped]', 'Logistic: macro F1 [grouped]', 'MiniLM (soft): macro F1 [grouped]'): assert m in q.index, m
    said = out + err  # the read line counts the repeats
    assert 'repeated labels' in said and 'repeats=first' in said, said[:2000]


def test_guide_scores_a_predictions_file_against_the_ceiling(shipped_annotators):
    "--predictions: its metrics beside the BEST ceiling of the test items, calibrated on its dev items, in summary.csv."
    q = summary_of(shipped_annotators).set_index('quantity')
    for m in ('macro F1', 'cross-entropy', 'KL divergence', 'Jensen-Shannon divergence', 'Manhattan distance'):
        r = q.loc[f'pred.csv: {m}']
        assert r.section == 'predictions file' and r.lo <= r.value <= r.hi, m
        assert '80 test items; calibration held-out (80 dev items)' in r.note and 'BEST ceiling' in r.note, r.note
    assert 'BEST Jensen-Shannon divergence (test items)' in q.index and 'BEST Manhattan distance (test items)' in q.index
    assert 'BEST ceiling' in q.loc['MiniLM (soft): KL divergence', 'note']
    assert (q.section == 'plan').sum() >= 12 and 'BEST macro F1 with 10 votes per item' in q.index
    assert (shipped_annotators[3]/'plan.png').is_file()


def test_guide_shows_the_predictions_step_on_a_baseline(shipped_default):
    "No predictions file: one is written from a baseline, scored through the same function, and the command line printed."
    q = summary_of(shipped_default).set_index('quantity')
    assert 'predictions_demo.csv: macro F1' in q.index and 'held-out' in q.loc['predictions_demo.csv: macro F1', 'note']
    assert 'BEST Wasserstein distance (test items)' in q.index  # the shipped levels are ordered
    text = notebook_text(shipped_default)
    assert 'scruples score' in text and 'predictions_demo_dev.csv' in text and 'written from the Logistic baseline' in text
    assert (shipped_default[3]/'predictions_demo.csv').is_file()


def test_the_printed_score_command_runs_in_the_output_folder_and_agrees(shipped_default):
    """Issue 39: the printed `scruples score` command's paths pointed into the deleted `.analyze-run-*` folder. Run as
    printed, in the output folder, it reads the files there and gives the model's numbers of summary.csv."""
    import shlex
    out = shipped_default[3]
    lines = [l.strip() for l in notebook_text(shipped_default).splitlines() if l.strip().startswith('scruples score ')]
    assert len(lines) == 1 and '.analyze-run-' not in lines[0] and '/' not in lines[0], lines
    argv = [a for a in shlex.split(lines[0])[2:]]
    r = subprocess.run([sys.executable, '-c', 'import sys; from scruples.cli import main; sys.exit(main())', 'score',
                        *argv, '--json'], capture_output=True, text=True, cwd=out, timeout=600,
                       env=os.environ | {'HF_HUB_OFFLINE': '1'})
    assert r.returncode == 0, r.stderr[-2000:]
    rows = {m['metric']: m for m in json.loads(r.stdout)['metrics']}
    q = summary_of(shipped_default)
    q = q[q.section == 'predictions file'].set_index('quantity').value
    for m, name in (('accuracy', 'accuracy'), ('macro_f1', 'macro F1')):
        assert abs(q[f'predictions_demo.csv: {name}'] - rows[m]['model']) < 1e-3, (m, q, rows)


@pytest.mark.parametrize('change, says', [
    (lambda df: df[df.id != 'i3'], "1 of the 12 items of"),
    (lambda df: df.assign(maybe=0.0), 'not a class: maybe'),
])
def test_analyze_refuses_a_predictions_file_before_writing(tmp_path, no_kernel, change, says):
    "A predictions file without a prediction for a scored item, or with a column that is no class: refused, nothing written."
    wide = write_wide_and_long(tmp_path)
    change(pd.DataFrame({'id': wide.id, 'yes': 0.6, 'no': 0.4})).to_csv(tmp_path/'pred.csv', index=False)
    rc, out, err = run_cli('analyze', str(tmp_path/'wide.csv'), '--id', 'id', '--predictions', str(tmp_path/'pred.csv'), '--out', str(tmp_path/'o'))
    assert rc == 1 and says in err and 'pred.csv' in err and 'Traceback' not in err, err
    assert not (tmp_path/'o').exists()


def test_every_soft_metric_of_a_model_has_its_interval(shipped_default):
    "Stop 57: a model's Wasserstein distance (ordered classes) was the one soft metric printed without an interval."
    s = summary_of(shipped_default)
    soft = s[(s.section == 'soft metrics') & ~s.quantity.str.contains('expected calibration')]
    w = soft[soft.quantity.str.contains('Wasserstein')]
    assert len(w) >= 2, list(soft.quantity)
    assert (soft.lo.notna() & soft.hi.notna()).all(), soft[soft.lo.isna()].quantity.tolist()
    assert ((soft.lo <= soft.value + 1e-12) & (soft.value <= soft.hi + 1e-12)).all()
