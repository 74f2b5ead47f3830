"""Fourteenth hostile pass: what a new user meets that the thirteen earlier passes did not try. Each test runs the CLI as
a user does (a subprocess) or the API, asserts the right behaviour against a truth computed apart, and failed on the code
it was written against."""
import json

import numpy as np
import pandas as pd
import pytest

from cli_run import scruples

from scruples import metrics, softmetrics


# --- DATA MIXING: a predictions frame whose columns share no name with the classes ('Other', 'Author' for author,
# --- other; 'p_other', 'p_author') was paired with the classes by position, in silence: the other-probabilities
# --- scored as author's. `scruples score` refuses these files; the API now does too ------------------------------

@pytest.fixture
def counts_and_proba():
    rng = np.random.default_rng(0)
    idx = pd.Index([f'i{i}' for i in range(40)], name='id')
    counts = pd.DataFrame(rng.multinomial(5, [.7, .3], size=40), columns=['author', 'other'], index=idx)
    proba = pd.DataFrame(rng.dirichlet([4, 1], size=40), columns=['author', 'other'], index=idx)
    return counts, proba


@pytest.mark.parametrize('names', [['Other', 'Author'], ['p_other', 'p_author']])
@pytest.mark.parametrize('fn', [metrics.xentropy, metrics.total_variation, softmetrics.js_divergence])
def test_probability_columns_named_apart_from_the_classes_are_refused(counts_and_proba, names, fn):
    counts, proba = counts_and_proba
    swapped = proba[['other', 'author']].set_axis(names, axis=1)  # other's column first, named apart
    with pytest.raises(ValueError, match='none of the classes'):
        fn(counts, swapped)
    assert fn(counts, proba[['other', 'author']]) == pytest.approx(fn(counts.to_numpy(), proba.to_numpy()))
    # a table made from an array, and counts read without class names, still pair by position
    assert fn(counts, pd.DataFrame(proba.to_numpy(), index=proba.index)) == pytest.approx(
        fn(counts.to_numpy(), proba.to_numpy()))
    assert fn(pd.DataFrame(counts.to_numpy()), proba.reset_index(drop=True)) == pytest.approx(
        fn(counts.to_numpy(), proba.to_numpy()))


# --- SILENT WRONG: with --repeats all, `agree --by` listed the pseudo-annotator A#2 (A's repeated labels) as a person
# --- of its own: A's row held only A's first labels (50 of 65 votes), A's leave-one-out majority counted A's own
# --- repeats as 'the others', and A's kappa with its own group averaged in A's kappa with itself (A vs A#2) -----------

def test_agree_per_annotator_rows_are_people_with_all_their_votes(tmp_path):
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(1)
    rows = []
    for i in range(60):
        for a in 'ABCDEF':
            if rng.random() < 0.7:
                rows.append((f'i{i}', a, rng.choice(['yes', 'no'], p=[.7, .3])))
        if i % 3 == 0:
            rows.append((f'i{i}', 'A', rng.choice(['yes', 'no'])))
        if i % 5 == 0:
            rows.append((f'i{i}', 'B', rng.choice(['yes', 'no'])))
    d = pd.DataFrame(rows, columns=['item', 'annotator', 'label'])
    d.to_csv(tmp_path / 'long.csv', index=False)
    pd.DataFrame({'annotator': list('ABCDEF'), 'gender': list('mmffxx')}).to_csv(tmp_path / 'anns.csv', index=False)
    r = scruples('agree', tmp_path / 'long.csv', '--repeats', 'all', '--by', 'gender', '--annotators',
                 tmp_path / 'anns.csv', '--bootstrap', 0, '--json')
    assert r.returncode == 0, r.stderr
    table = pd.DataFrame(json.loads(r.stdout)['annotators']).set_index('annotator')
    assert sorted(table.index) == list('ABCDEF')  # no A#2, B#2 rows
    assert table.votes.to_dict() == d.groupby('annotator').size().to_dict()
    for who in 'AB':  # leave-one-out: each of A's votes against the majority of the other people (ties left out)
        agree, n, items = 0, 0, set()
        for _, v in d[d.annotator == who].iterrows():
            o = d[(d.item == v['item']) & (d.annotator != who)].label.value_counts()
            if len(o) and (len(o) == 1 or o.iloc[0] > o.iloc[1]):
                agree, n = agree + (o.index[0] == v.label), n + 1
                items.add(v['item'])
        assert table.loc[who, 'agree_loo'] == pytest.approx(agree / n)
        assert table.loc[who, 'loo_items'] == len(items)  # items, not votes (the thirtieth pass)
    first = d.drop_duplicates(['item', 'annotator']).pivot(index='item', columns='annotator', values='label')
    both = first[['A', 'B']].dropna()
    assert table.loc['A', 'pairs_own'] == 1  # B only: not A itself (A#2), not B twice (B#2)
    assert table.loc['A', 'kappa_own'] == pytest.approx(cohen_kappa_score(both.A, both.B))


# --- GUARD on one way in: `scruples analyze --ordered` (and analyze(ordered=True)) refuses labels whose order the file
# --- does not give (high/low/mid: a scale of the alphabet) and a group of classes that are not neighbours (low,high of
# --- low < mid < high); papermill's -p ordered True ran the whole guide with both (ordinal alpha and Wasserstein on
# --- high < low < mid); -p by ATTR -p annotators FILE without that column ran every model and stopped at the end ----

@pytest.fixture
def scale(tmp_path):
    rng = np.random.default_rng(0)
    words = 'good bad kind rude late early help hurt gift lie'.split()
    rows = [(f'q{i}', a, rng.choice(['low', 'mid', 'high']), ' '.join(rng.choice(words, 8)))
            for i in range(24) for a in 'ABCD']
    d = pd.DataFrame(rows, columns=['item', 'annotator', 'label', 'text'])
    d['text'] = d.groupby('item').text.transform('first')
    d.to_csv(tmp_path / 'long.csv', index=False)
    pd.DataFrame({'annotator': list('ABCD'), 'age': [20, 30, 40, 50]}).to_csv(tmp_path / 'anns.csv', index=False)
    return tmp_path


@pytest.mark.parametrize('params, flags, said', [
    (['ordered', 'True', 'classes', 'low,mid,high', 'group', 'X=low,high'],
     ['--ordered', '--classes', 'low,mid,high', '--group', 'X=low,high'], 'mid lies between them'),
    (['ordered', 'True'], ['--ordered'], 'a scale of the alphabet'),  # high < low < mid: sorted by name
    (['by', 'country', 'annotators', 'anns.csv'], ['--by', 'country', '--annotators', 'anns.csv'],
     "no column 'country' to group by"),
])
def test_papermill_meets_the_guards_of_analyze_on_the_scale_and_groups(scale, params, flags, said):
    import subprocess
    import sys

    from cli_run import ROOT, cli_env
    argv = [x for k, v in zip(params[::2], params[1::2]) for x in ('-p', k, v)]
    r = scruples('analyze', 'long.csv', *flags, '--out', scale / 'out', '--kernel', 'no-such-kernel', cwd=scale)
    assert r.returncode != 0 and 'no Jupyter kernel' not in r.stderr, r.stderr  # the command refuses it
    r = subprocess.run([sys.executable, '-m', 'papermill', str(ROOT / 'nbs' / 'guides' / 'your_data.ipynb'),
                        str(scale / 'run.ipynb'), '-p', 'data_file', 'long.csv', '-p', 'out_dir', 'pm', *argv,
                        '-p', 'baselines', 'Prior', '-p', 'likelihoods', 'hard', '-p', 'finetune', 'no', '-p', 'budget',
                        '1', '-p', 'n_boot', '10', '-p', 'best_samples', '10', '-k', 'python3', '--no-progress-bar'],
                       capture_output=True, text=True, timeout=900, env=cli_env(), cwd=scale)
    assert r.returncode != 0 and said in r.stderr + r.stdout, (r.stdout + r.stderr)[-3000:]
    assert not list((scale / 'pm').glob('*.csv')) and not list((scale / 'pm').glob('*.png'))  # before any result


# --- SILENT WRONG (counts): the join line said '8 of 8 voters joined' where 6 people voted (A#2, B#2 counted as voters),
# --- and under --on test it counted an annotator who voted only on train items, beside n_annotators 5 --------------

def test_the_join_line_counts_the_people_who_voted_on_these_items(tmp_path):
    rng = np.random.default_rng(1)
    rows = [(f'i{i}', a, rng.choice(['yes', 'no']), 'test' if i % 2 else 'train')
            for i in range(40) for a in 'ABCDEF' if not (a == 'F' and i % 2)]  # F votes on train items only
    rows += [(f'i{i}', 'A', 'yes', 'test' if i % 2 else 'train') for i in range(0, 40, 3)]  # A's repeated labels
    pd.DataFrame(rows, columns=['item', 'annotator', 'label', 'split']).to_csv(tmp_path / 'long.csv', index=False)
    pd.DataFrame({'annotator': list('ABCDEF'), 'g': list('mmffxx')}).to_csv(tmp_path / 'anns.csv', index=False)
    for on, people in (('test', 5), ('all', 6)):
        r = scruples('agree', tmp_path / 'long.csv', '--split', 'split', '--on', on, '--repeats', 'all', '--by', 'g',
                     '--annotators', tmp_path / 'anns.csv', '--bootstrap', 0, '--json')
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        assert {x['metric']: x['value'] for x in out['overall']}['n_annotators'] == people
        assert out['joined'].startswith(f'annotators: {people} of {people} voters joined'), out['joined']


# --- best --by --json wrote each group's prior alpha as a string of 4-digit numbers ('88.28,182.4'); `best --json`
# --- writes a list of numbers ---------------------------------------------------------------------------------------

def test_best_by_json_writes_each_groups_alpha_as_numbers(tmp_path):
    rng = np.random.default_rng(2)
    rows = [(f'i{i}', a, rng.choice(['yes', 'no'], p=[.7, .3])) for i in range(40) for a in 'ABCD']
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(tmp_path / 'long.csv', index=False)
    pd.DataFrame({'annotator': list('ABCD'), 'g': list('mmff')}).to_csv(tmp_path / 'anns.csv', index=False)
    r = scruples('best', tmp_path / 'long.csv', '--by', 'g', '--annotators', tmp_path / 'anns.csv', '--samples', 200,
                 '--bootstrap', 0, '--json')
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)['ceilings']
    pooled = json.loads(scruples('best', tmp_path / 'long.csv', '--samples', 200, '--bootstrap', 0, '--json').stdout)
    for x in rows:
        assert isinstance(x['alpha'], list) and all(isinstance(a, float) for a in x['alpha']), x
    assert next(x for x in rows if x['group'] == 'all')['alpha'] == pooled['alpha']


# --- MESSAGE: with an annotator named 'A#2' in the file, A's repeated labels become annotator 'A#2#', while the read
# --- line said 'the second label of annotator A is annotator A#2' (another person's name) ---------------------------

def test_the_read_line_names_the_pseudo_annotator_when_the_file_has_one_of_that_name(tmp_path):
    rows = [(f'i{i}', a, 'yes' if (i + len(a)) % 3 else 'no') for i in range(12) for a in ('A', 'B', 'A#2')]
    rows += [('i0', 'A', 'no'), ('i1', 'A', 'yes')]
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(tmp_path / 'long.csv', index=False)
    r = scruples('agree', tmp_path / 'long.csv', '--repeats', 'all', '--bootstrap', 0, '--json')
    assert r.returncode == 0, r.stderr
    read = json.loads(r.stdout)['read']
    assert 'A#2 is an annotator of the file: the repeated labels of A are annotator A#2#' in read, read


# --- GUARD (late): `scruples best --group X=low,nosuch` (or high=low,mid, a group named as a class left out) is
# --- refused at once; `scruples analyze` and analyze(group=...) took them and started the notebook, which stopped there

@pytest.mark.parametrize('argv, said', [(['--group', 'X=low,nosuch'], "no class 'nosuch'"),
                                        (['--param', 'group=X=low,nosuch'], "no class 'nosuch'"),
                                        (['--group', 'high=low,mid'], 'the name of a class left out of every group')])
def test_analyze_refuses_groups_best_refuses_before_the_run(tmp_path, argv, said):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.multinomial(5, [.4, .3, .3], size=24), columns=['low', 'mid', 'high'])
    df.insert(0, 'text', [f'text {i}' for i in range(24)])
    df.to_csv(tmp_path / 'd.csv', index=False)
    group = argv[1].removeprefix('group=')
    r = scruples('best', tmp_path / 'd.csv', '--group', group, '--samples', 100, '--bootstrap', 0)
    assert r.returncode != 0 and said in r.stderr, r.stderr
    r = scruples('analyze', tmp_path / 'd.csv', *argv, '--out', tmp_path / 'out', '--kernel', 'no-such-kernel')
    assert r.returncode != 0 and said in r.stderr, r.stderr


# --- DATA MIXING: with --repeats all, an annotators table with a row 'A#2' (a person of the user's, with no vote in
# --- this file) took A's repeated labels (the pseudo-annotator A#2): A's 15 repeats were counted in A#2's group, as a
# --- person of it ('f': 3 annotators, 99 votes; 'm': 104 votes where A and B cast 119). The row has no vote: refused -

def test_a_table_row_named_as_a_pseudo_annotator_does_not_take_its_votes(tmp_path):
    from scruples.annotations import read_annotated
    from scruples.perspectives import join_annotators, read_annotators

    rng = np.random.default_rng(1)
    rows = [(f'i{i}', a, rng.choice(['yes', 'no'])) for i in range(30) for a in 'ABCD']
    rows += [(f'i{i}', 'A', 'yes') for i in range(0, 30, 2)]  # A's repeated labels: the pseudo-annotator A#2
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(tmp_path / 'long.csv', index=False)
    pd.DataFrame({'annotator': ['A', 'B', 'C', 'D', 'A#2'], 'g': list('mmffx')}).to_csv(tmp_path / 'anns.csv',
                                                                                       index=False)
    r = scruples('agree', tmp_path / 'long.csv', '--repeats', 'all', '--by', 'g', '--annotators', tmp_path / 'anns.csv',
                 '--bootstrap', 0)
    assert r.returncode != 0 and "have no vote in" in r.stderr and "'A#2'" in r.stderr, r.stderr
    d = read_annotated(tmp_path / 'long.csv', repeats='all')
    j = join_annotators(d, read_annotators(tmp_path / 'anns.csv'), extra='ignore')
    assert j.attributes.loc['A#2', 'g'] == 'm' and j.without_votes == ['A#2']  # A's repeats: A's group


# --- MESSAGE (API): groups keyed by the people of the file (a dict or Series: A, B, ...) were refused with --repeats
# --- all: '6 ids for 8 annotators ... give each annotator once', the pseudo-annotators A#2, B#2 no user can know.
# --- The CLI joins A#2 as A; the API now does the same -------------------------------------------------------------

def test_groups_keyed_by_people_cover_their_repeated_labels():
    from scruples.annotations import read_annotated
    from scruples.perspectives import check_groups, group_agreement
    import tempfile
    from pathlib import Path

    rows = [(f'i{i}', a, 'yes' if (i * (ord(a) - 60)) % 3 else 'no') for i in range(20) for a in 'ABCD']
    rows += [(f'i{i}', 'A', 'no') for i in range(0, 20, 4)]
    with tempfile.TemporaryDirectory() as t:
        pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(Path(t) / 'l.csv', index=False)
        d = read_annotated(Path(t) / 'l.csv', repeats='all')
    people = {'A': 'm', 'B': 'm', 'C': 'f', 'D': 'f'}
    for given in (people, pd.Series(people)):
        g = check_groups(d, given)
        assert dict(zip(d.annotators, g)) == people | {'A#2': 'm'}
    w = group_agreement(d, pd.Series(people), n_boot=0).set_index('group')
    assert w.loc['m', 'votes'] == 45 and w.loc['m', 'annotators'] == 2 and w.loc['f', 'votes'] == 40


# --- SILENT WRONG (papermill): -p ordered false reached the notebook as the text 'false' (papermill reads only True and
# --- False as booleans), and the notebook took it for true: ordinal agreement and the Wasserstein ceiling on classes
# --- the user said were not ordered (`scruples analyze --param ordered=false` reads it as False) ---------------------

def test_papermill_ordered_as_lowercase_text_is_refused(scale):
    import subprocess
    import sys

    from cli_run import ROOT, cli_env
    r = subprocess.run([sys.executable, '-m', 'papermill', str(ROOT / 'nbs' / 'guides' / 'your_data.ipynb'),
                        str(scale / 'run.ipynb'), '-p', 'data_file', 'long.csv', '-p', 'out_dir', 'pm', '-p', 'classes',
                        'low,mid,high', '-p', 'ordered', 'false', '-p', 'baselines', 'Prior', '-p', 'likelihoods', 'hard',
                        '-p', 'finetune', 'no', '-p', 'budget', '1', '-p', 'n_boot', '10', '-p', 'best_samples', '10',
                        '-k', 'python3', '--no-progress-bar'],
                       capture_output=True, text=True, timeout=900, env=cli_env(), cwd=scale)
    assert r.returncode != 0 and "ordered='false': expected True or False" in r.stderr + r.stdout, \
        (r.stdout + r.stderr)[-3000:]
    assert not list((scale / 'pm').glob('*.csv'))


# --- SILENT WRONG (figure): with --repeats all the guide's kappa heatmap drew a row and a column for each pseudo-annotator
# --- (A#2: A's repeated labels) beside A, titled "pairwise agreement of 8 annotators" where 6 people voted --------------

def test_the_kappa_heatmap_draws_people_not_pseudo_annotators(tmp_path):
    import matplotlib
    matplotlib.use('Agg')
    from scruples.annotations import read_annotated
    from scruples.perspectives import join_annotators, kappa_heatmap, perspectives, read_annotators

    rng = np.random.default_rng(3)
    rows = [(f'i{i}', a, rng.choice(['yes', 'no'])) for i in range(60) for a in 'ABCDEF' if rng.random() < 0.8]
    rows += [(f'i{i}', a, rng.choice(['yes', 'no'])) for i in range(0, 60, 3) for a in 'AB']  # A and B label again
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(tmp_path / 'long.csv', index=False)
    pd.DataFrame({'annotator': list('ABCDEF'), 'gender': list('mmffxx')}).to_csv(tmp_path / 'anns.csv', index=False)
    data = read_annotated(tmp_path / 'long.csv', repeats='all')
    assert len(data.annotators) == 8 and sorted(data.people()) == list('ABCDEF')
    p = perspectives(data, join_annotators(data, read_annotators(tmp_path / 'anns.csv')), 'gender', n_boot=0)
    fig = kappa_heatmap(p.kappa, p.groups, p.annotators)
    ax = fig.axes[0]
    assert ax.get_title() == 'pairwise agreement of 6 annotators, by group'
    assert sorted(t.get_text() for t in ax.get_yticklabels()) == list('ABCDEF')
