"""Perspectives (issue 42): `scruples agree --by`, `best --by`, `plan --by` as subprocesses, each number checked against an
independent computation (krippendorff, scikit-learn's cohen_kappa_score, the project's Dirichlet fit); the annotator-aware
model against the majority; hostile input."""

import json

import krippendorff
import numpy as np
import pandas as pd
import pytest
from cli_run import scruples
from sklearn.metrics import cohen_kappa_score

from scruples.best import fit_dirichlet_prior, oracle_xentropy
from scruples.perspective_models import annotator_model_scores, simulate_embedded

CLASSES = ['abusive', 'fine', 'rude']  # the reader's order: sorted by name


def run(*args, ok=True):
    "`scruples ARGS` in a process of its own, forked from the suite's server (`cli_run.scruples`; it was a new interpreter)."
    r = scruples(*args, timeout=600)
    if ok:
        assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope='module')
def groups_data(tmp_path_factory):
    "Two groups of 3 that agree within and differ across on half the items, and a small group of 2 on 8 items."
    rng = np.random.default_rng(42)
    n = 80
    base = rng.integers(3, size=n)
    other = np.where(rng.random(n) < 0.5, (base + 1 + rng.integers(2, size=n)) % 3, base)
    rows = []
    for g, lab, names, items in (('left', base, ['L1', 'L2', 'L3'], range(n)),
                                 ('right', other, ['R1', 'R2', 'R3'], range(n)),
                                 ('small', base, ['S1', 'S2'], range(8))):
        for a in names:
            for i in items:
                y = lab[i] if rng.random() < 0.85 else rng.integers(3)
                rows.append((f'it{i:03d}', a, CLASSES[y], g))
    df = pd.DataFrame(rows, columns=['item', 'annotator', 'label', 'group'])
    d = tmp_path_factory.mktemp('persp')
    df[['item', 'annotator', 'label']].to_csv(d / 'votes.csv', index=False)
    df.to_csv(d / 'votes_group.csv', index=False)
    df[['annotator', 'group']].drop_duplicates().to_csv(d / 'annotators.csv', index=False)
    return d, df


def wide(df):
    "Items x annotators of class codes (NaN: not labelled), built here from the long frame."
    m = df.assign(code=df.label.map(CLASSES.index)).pivot(index='item', columns='annotator', values='code')
    return m.astype(float)


def counts(df):
    return pd.crosstab(df.item, df.label).reindex(columns=CLASSES, fill_value=0).to_numpy()


def majority(df):
    "Untied majority per item of these votes (NaN on a tie)."
    c = pd.crosstab(df.item, df.label).reindex(columns=CLASSES, fill_value=0)
    top = c.eq(c.max(axis=1), axis=0)
    return c.idxmax(axis=1).where(top.sum(axis=1) == 1)


@pytest.fixture(scope='module')
def agree_json(groups_data):
    d, _ = groups_data
    r = run('agree', d / 'votes.csv', '--by', 'group', '--annotators', d / 'annotators.csv', '--bootstrap', '30',
            '--json', '--figure', d / 'kappa.png')
    return json.loads(r.stdout)


def test_agree_within_groups(groups_data, agree_json):
    d, df = groups_data
    w = {r['group']: r for r in agree_json['within']}
    for g in ('left', 'right'):
        m = wide(df[df.group == g]).T.to_numpy()
        a = krippendorff.alpha(reliability_data=m, value_domain=[0, 1, 2], level_of_measurement='nominal')
        assert w[g]['alpha'] == pytest.approx(a, abs=1e-9)
        assert w[g]['alpha_lo'] < w[g]['alpha'] < w[g]['alpha_hi']
        assert w[g]['votes'] == (df.group == g).sum()
        shares = df[df.group == g].label.value_counts(normalize=True)
        assert [w[g][f'share_{c}'] for c in CLASSES] == pytest.approx([shares.get(c, 0) for c in CLASSES])
    pooled = krippendorff.alpha(reliability_data=wide(df).T.to_numpy(), value_domain=[0, 1, 2],
                                level_of_measurement='nominal')
    assert w['all']['alpha'] == pytest.approx(pooled, abs=1e-9)
    assert w['left']['alpha'] > pooled + 0.2 and w['right']['alpha'] > pooled + 0.2  # agree within far more
    assert w['small']['items_2plus'] == 8 and 'no interval' in w['small']['note']  # too small: said
    assert w['small']['alpha_lo'] is None and w['small']['alpha'] is not None
    assert (d / 'kappa.png').stat().st_size > 1000


def test_agree_between_groups(groups_data, agree_json):
    _, df = groups_data
    b = {(r['group_a'], r['group_b']): r for r in agree_json['between']}
    ml, mr = majority(df[df.group == 'left']), majority(df[df.group == 'right'])
    both = ml.notna() & mr.notna()
    r = b[('left', 'right')]
    assert r['items'] == both.sum()
    assert r['majorities_differ'] == pytest.approx((ml[both] != mr[both]).mean(), abs=1e-9)
    assert r['kappa'] == pytest.approx(cohen_kappa_score(ml[both], mr[both]), abs=1e-9)
    assert r['differ_lo'] < r['majorities_differ'] < r['differ_hi'] and r['majorities_differ'] > 0.3
    assert b[('left', 'small')]['items'] <= 8 and 'no interval' in b[('left', 'small')]['note']
    # alpha across groups: each group's majority a coder
    mj = pd.DataFrame({g: majority(df[df.group == g]) for g in ('left', 'right', 'small')})
    codes = mj.apply(lambda s: s.map(lambda v: CLASSES.index(v) if isinstance(v, str) else np.nan)).T.to_numpy(float)
    a = krippendorff.alpha(reliability_data=codes, value_domain=[0, 1, 2], level_of_measurement='nominal')
    assert agree_json['across'][0]['alpha'] == pytest.approx(a, abs=1e-9)


def test_agree_per_annotator(groups_data, agree_json):
    _, df = groups_data
    t = {r['annotator']: r for r in agree_json['annotators']}
    m = wide(df)
    kap = lambda a, b: cohen_kappa_score(m[a][m[a].notna() & m[b].notna()], m[b][m[a].notna() & m[b].notna()],
                                         labels=[0, 1, 2])
    assert t['L1']['kappa_own'] == pytest.approx(np.mean([kap('L1', 'L2'), kap('L1', 'L3')]), abs=1e-9)
    others = ['R1', 'R2', 'R3', 'S1', 'S2']
    assert t['L1']['kappa_other'] == pytest.approx(np.mean([kap('L1', o) for o in others]), abs=1e-9)
    assert t['L1']['pairs_other'] == 5 and t['L1']['votes'] == 80
    assert t['L1']['rate_fine'] == pytest.approx((df[df.annotator == 'L1'].label == 'fine').mean())
    # leave-one-out: L1's label against the untied majority of everyone else
    mo = majority(df[df.annotator != 'L1'])
    own = df[df.annotator == 'L1'].set_index('item').label
    ok = mo.reindex(own.index).notna()
    assert t['L1']['agree_loo'] == pytest.approx((own[ok] == mo.reindex(own.index)[ok]).mean(), abs=1e-9)
    assert t['L1']['loo_items'] == ok.sum()
    assert all(t[a]['kappa_own'] > t[a]['kappa_other'] for a in ('L1', 'L2', 'L3', 'R1', 'R2', 'R3'))


def test_agree_text_and_long_form_attribute(groups_data, agree_json):
    d, _ = groups_data
    txt = run('agree', d / 'votes_group.csv', '--by', 'group', '--bootstrap', '30').stdout
    assert 'within each group (by group)' in txt and 'between groups' in txt and 'per annotator' in txt
    assert 'annotators: 8 of 8 voters joined' in txt and 'note: group small' in txt
    # the attribute as a column of the long form: the same tables as with --annotators FILE
    a = json.loads(run('agree', d / 'votes_group.csv', '--by', 'group', '--bootstrap', '30', '--json').stdout)
    assert a['within'] == agree_json['within'] and a['annotators'] == agree_json['annotators']


def test_best_by_group(groups_data):
    d, df = groups_data
    r = json.loads(run('best', d / 'votes.csv', '--by', 'group', '--annotators', d / 'annotators.csv',
                       '--bootstrap', '20', '--samples', '2000', '--json').stdout)
    rows = {(x['group'], x['metric']): x for x in r['ceilings']}
    for g in ('all', 'left', 'right'):
        c = counts(df if g == 'all' else df[df.group == g])
        alpha = fit_dirichlet_prior(c)  # the project's estimator, on counts built here
        x = rows[(g, 'xentropy')]
        assert x['alpha'] == pytest.approx(alpha, rel=1e-3)  # numbers, as `best --json` writes them
        assert x['estimate'] == pytest.approx(oracle_xentropy(c, alpha), abs=1e-6)
        assert x['items'] == len(c) and x['ci_low'] <= x['estimate'] <= x['ci_high']
    assert rows[('left', 'accuracy')]['estimate'] > rows[('all', 'accuracy')]['estimate']  # a group agrees more
    assert rows[('small', 'accuracy')]['items'] == 8
    # the pooled row is `best` without --by
    plain = json.loads(run('best', d / 'votes.csv', '--bootstrap', '20', '--samples', '2000', '--json').stdout)
    est = {e['metric']: e['estimate'] for e in plain['estimates']}
    assert rows[('all', 'xentropy')]['estimate'] == pytest.approx(est['xentropy'], abs=1e-9)


def test_plan_by_group(groups_data):
    d, _ = groups_data
    r = json.loads(run('plan', d / 'votes.csv', '--by', 'group', '--annotators', d / 'annotators.csv',
                       '--votes', '1,3', '--json').stdout)
    assert {x['group'] for x in r['rows']} == {'all', 'left', 'right', 'small'}
    bad = run('plan', d / 'votes.csv', '--by', 'group', '--annotators', d / 'annotators.csv', '--difference', '0.05',
              ok=False)
    assert bad.returncode == 1 and '--difference' in bad.stderr
    bad = run('plan', d / 'votes.csv', '--by', 'group', '--annotators', d / 'annotators.csv', '--bootstrap', '20',
              ok=False)  # the paired test's resamples: for --difference, planned for the pooled votes only
    assert bad.returncode == 1 and 'leave out --bootstrap or --by' in bad.stderr, bad.stderr


def test_unknown_ids_refused_and_named(groups_data, tmp_path):
    d, _ = groups_data
    (tmp_path / 'ann.csv').write_text('annotator,group\nL1,left\nl2,left\nR9,right\n')
    r = run('agree', d / 'votes.csv', '--by', 'group', '--annotators', tmp_path / 'ann.csv', ok=False)
    assert r.returncode == 1 and "'l2'" in r.stderr and "'R9'" in r.stderr and 'no vote' in r.stderr
    r = run('best', d / 'votes.csv', '--by', 'group', '--annotators', tmp_path / 'ann.csv', ok=False)
    assert r.returncode == 1 and "'R9'" in r.stderr
    r = run('agree', d / 'votes.csv', '--by', 'country', '--annotators', d / 'annotators.csv', ok=False)
    assert r.returncode == 1 and "no attribute 'country'" in r.stderr
    r = run('agree', d / 'votes.csv', '--annotators', d / 'annotators.csv', ok=False)  # a flag that would do nothing
    assert r.returncode == 1 and '--by' in r.stderr


def test_one_group(groups_data, tmp_path):
    d, df = groups_data
    df[['annotator']].drop_duplicates().assign(group='everyone').to_csv(tmp_path / 'one.csv', index=False)
    r = json.loads(run('agree', d / 'votes.csv', '--by', 'group', '--annotators', tmp_path / 'one.csv',
                       '--bootstrap', '0', '--json').stdout)
    assert r['between'] == [] and any('one group' in n for n in r['notes'])
    assert r['across'][0]['alpha'] is None


def test_hundred_annotators_few_items(tmp_path):
    rng = np.random.default_rng(0)
    rows = []
    for i in range(150):
        for a in rng.choice(100, size=4, replace=False):
            rows.append((f'i{i}', f'a{a:03d}', CLASSES[rng.integers(3)]))
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(tmp_path / 'v.csv', index=False)
    pd.DataFrame({'annotator': [f'a{a:03d}' for a in range(100)],
                  'band': [['18-29', '30-49', '50+'][a % 3] for a in range(100)]}).to_csv(tmp_path / 'a.csv',
                                                                                         index=False)
    r = run('agree', tmp_path / 'v.csv', '--by', 'band', '--annotators', tmp_path / 'a.csv', '--bootstrap', '10',
            '--figure', tmp_path / 'k.png')
    out = r.stdout
    assert 'the 10 lowest and 10 highest agreement with the others' in out  # no pair shares 5 items: said
    lines = out.splitlines()  # readable: not a row per annotator (100 here), within 100 columns (tables wrap)
    assert len(lines) < 120 and max(map(len, lines)) <= 100, out
    assert 'share fewer than 5 items with every other' in out  # kappas too few to say: stated
    assert (tmp_path / 'k.png').stat().st_size > 1000


def test_annotator_model_gain_only_where_annotators_differ():
    train, test = np.arange(240), np.arange(240, 320)
    E, d, g = simulate_embedded(n_items=320, differ=True, seed=3)
    _, s = annotator_model_scores(E, d, train, test, groups=g, n_boot=100)
    assert s['gain_shown'] and s['error_model'] < s['error_majority'] and s['gain_lo'] > 0
    assert s['verdict'].startswith('the annotator-aware model predicts')
    E0, d0, g0 = simulate_embedded(n_items=320, differ=False, seed=3)
    _, s0 = annotator_model_scores(E0, d0, train, test, groups=g0, n_boot=100)
    assert not s0['gain_shown'] and s0['verdict'].startswith('no gain')


def test_analyze_by_group(groups_data, tmp_path):
    "The guide's Perspectives section through `scruples analyze --by`: the attribute as a column of the long form."
    _, df = groups_data
    words = {'fine': 'thanks a lot', 'rude': 'go away now', 'abusive': 'you are an idiot'}
    first = df[df.annotator == 'L1'].set_index('item').label
    df = df.assign(text=df.item.map(lambda i: f'{words[first[i]]} {i}'))
    df.to_csv(tmp_path / 'v.csv', index=False)
    run('analyze', tmp_path / 'v.csv', '--by', 'group', '--out', tmp_path / 'out', '--finetune', 'no',
        '--param', 'budget=2', '--param', 'n_boot=20', '--param', 'best_samples=200', '--param', 'baselines=Prior',
        '--param', 'likelihoods=soft', '--param', 'trait_items=6')
    s = pd.read_csv(tmp_path / 'out' / 'summary.csv')
    p = s[s.section == 'perspectives'].set_index('quantity')
    m = wide(df[df.group == 'left']).T.to_numpy()
    a = krippendorff.alpha(reliability_data=m, value_domain=[0, 1, 2], level_of_measurement='nominal')
    assert p.value['alpha within group=left'] == pytest.approx(a, abs=1e-9)
    c = counts(df[df.group == 'right'])
    assert p.value['BEST cross-entropy: group=right'] == pytest.approx(oracle_xentropy(c, fit_dirichlet_prior(c)),
                                                                      abs=1e-6)
    for a in ('L1', 'R3', 'S2'):  # rows per annotator
        assert f'annotator {a}: mean kappa with own group' in p.index
    assert "each annotator's label: gain over the others' majority" in p.index
    assert (tmp_path / 'out' / 'perspectives_kappa.png').is_file()
