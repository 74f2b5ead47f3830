"""Tenth hostile pass (issue 39): the Python API as a researcher in Jupyter uses it, and the commands taking annotator
groups. Each test runs the CLI as a user does (a subprocess) or the API, asserts the right behaviour against a truth
computed apart (plain pandas / numpy), and failed on the code it was written against."""
import json
import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_run import run_by, scruples

from scruples.annotations import read_annotated
from scruples.perspectives import join_annotators, simulate_perspectives

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def three_camps(tmp_path):
    "Votes of groups a, b (3 annotators each) and c (2), and the annotators' table."
    long, ann = simulate_perspectives(n_items=40, groups={'a': 3, 'b': 3, 'c': 2}, seed=2)
    long.to_csv(tmp_path/'long.csv', index=False)
    return read_annotated(tmp_path/'long.csv'), ann


# --- SILENT WRONG / MIXED: an annotator's 'mean kappa with other groups' averaged in the annotators of no group (left out
# --- of every group by the join): a1's kappa_other over 5 pairs (b1-b3 and the ungrouped c1, c2) where the other groups
# --- hold 3; and the note said the ungrouped 'share fewer than 5 items with every other' (they share 40) --------------

def _truth_other(kappa, group_of, a):
    "Mean kappa of `a` with the annotators of the other groups (plain pandas): not its own, not those of no group."
    others = [x for x in kappa.index if group_of.get(x) is not None and group_of[x] != group_of[a]]
    return kappa.loc[a, others].mean(), len(others)


def test_kappa_with_other_groups_leaves_out_the_ungrouped(three_camps):
    from scruples.perspectives import perspectives
    data, ann = three_camps
    table = ann.set_index('annotator')
    table = table[table.group != 'c']  # c1, c2: no row, so in no group
    p = perspectives(data, join_annotators(data, table), 'group', n_boot=0)
    group_of = table.group.to_dict()
    t = p.annotators.set_index('annotator')
    for a in group_of:
        want, n = _truth_other(p.kappa, group_of, a)
        assert t.pairs_other[a] == n == 3, (a, t.pairs_other[a])
        assert t.kappa_other[a] == pytest.approx(want)
    assert t.loc[['c1', 'c2'], ['pairs_own', 'pairs_other']].to_numpy().sum() == 0
    assert not any('share fewer than' in n for n in p.notes), p.notes  # they share 40 items with every other


def test_kappa_with_other_groups_a_nan_group_is_no_group(three_camps):
    "Groups given as an array whose missing values are NaN (pandas' reindex): NaN is no group, as None is."
    from scruples.perspectives import annotator_table
    data, ann = three_camps
    g = ann.set_index('annotator').group.where(lambda s: s != 'c').reindex(data.annotators)  # NaN for c1, c2
    with_nan = annotator_table(data, g.to_numpy(dtype=object))
    with_none = annotator_table(data, np.array([None if pd.isna(x) else x for x in g], dtype=object))
    cols = ['kappa_own', 'pairs_own', 'kappa_other', 'pairs_other']
    pd.testing.assert_frame_equal(with_nan[cols], with_none[cols])
    assert with_nan.set_index('annotator').pairs_other['c1'] == 0


# --- DATA SPLIT: one group written in two Unicode forms (NFC 'Québec', NFD 'Québec': a macOS file name, some editors)
# --- was two groups printing the same name, measured apart, with a 'Québec vs Québec' row; 'Ontario' / 'ontario' too ---

def test_by_one_group_in_two_unicode_forms_is_one_group(tmp_path):
    long, ann = simulate_perspectives(n_items=30, groups={'a': 2, 'b': 2}, seed=1)
    long.to_csv(tmp_path/'long.csv', index=False)
    nfc, nfd = unicodedata.normalize('NFC', 'Québec'), unicodedata.normalize('NFD', 'Québec')
    ann.assign(region=[nfc, nfd, 'Ontario', 'Ontario']).to_csv(tmp_path/'ann.csv', index=False)
    r = scruples('agree', tmp_path/'long.csv', '--by', 'region', '--annotators', tmp_path/'ann.csv', '--bootstrap', '0',
                 '--json')
    assert r.returncode == 0, r.stderr
    within = json.loads(r.stdout)['within']
    names = [w['group'] for w in within]
    assert names == ['Ontario', nfc, 'all'], names  # the groups in their names' order
    assert within[1]['annotators'] == 2


@pytest.mark.parametrize('command', ['agree', 'best'])
def test_by_refuses_one_group_written_in_two_cases(tmp_path, command):
    r = run_by(tmp_path, command, 'region', ['Ontario', 'ontario', 'Quebec', 'Quebec'])
    assert r.returncode != 0 and "'Ontario' and 'ontario'" in r.stderr, (r.stdout[-800:], r.stderr)


def test_groups_array_in_two_unicode_forms_is_one_group(three_camps):
    from scruples.perspectives import group_agreement
    data, ann = three_camps
    nfc, nfd = unicodedata.normalize('NFC', 'é'), unicodedata.normalize('NFD', 'é')
    g = np.array([nfc if a.startswith('a') else 'b' if a.startswith('b') else None for a in data.annotators], object)
    mixed = g.copy()
    mixed[1] = nfd
    pd.testing.assert_frame_equal(group_agreement(data, mixed, n_boot=0), group_agreement(data, g, n_boot=0))


# --- DATA MIXED: the annotators table as pandas reads it (pd.read_csv: a RangeIndex 0..n-1, the ids in a column) was
# --- joined by row number: with annotators numbered 0..n-1, each got another's attributes, the line saying '4 of 4 voters
# --- joined (attributes annotator,group)' ------------------------------------------------------------------------------

@pytest.fixture
def numbered_from_0(tmp_path):
    long, ann = simulate_perspectives(n_items=30, groups={'a': 2, 'b': 2}, seed=1, differ=1.0)
    num = {'a1': 2, 'a2': 0, 'b1': 3, 'b2': 1}
    long['annotator'] = long.annotator.map(num)
    ann['annotator'] = ann.annotator.map(num)
    long.to_csv(tmp_path/'long.csv', index=False)
    ann.to_csv(tmp_path/'ann.csv', index=False)
    return read_annotated(tmp_path/'long.csv'), tmp_path/'ann.csv'


def test_join_annotators_reads_the_id_column_of_a_plain_frame(numbered_from_0):
    data, path = numbered_from_0
    table = pd.read_csv(path)  # annotator,group: a RangeIndex 0..3, the ids 2, 0, 3, 1 in a column
    truth = table.set_index('annotator').group.reindex([int(a) for a in data.annotators]).tolist()
    j = join_annotators(data, table)
    assert j.attributes.group.tolist() == truth == ['a', 'a', 'b', 'b']
    assert 'annotator' not in j.attributes.columns


def test_join_annotators_refuses_a_frame_without_ids(numbered_from_0):
    from scruples.core import ScruplesError
    data, path = numbered_from_0
    table = pd.read_csv(path).drop(columns='annotator')  # row numbers only: whose row is whose is unsaid
    with pytest.raises(ScruplesError, match='no annotator ids'):
        join_annotators(data, table)


# --- SILENT WRONG: subset(data, keep) with annotator ids (or group names, or indices) where a mask is asked for:
# --- numpy made every non-empty string True, so 'keep these four' kept every annotator; indices [0, 2, 3, 1] kept 3 ---

@pytest.mark.parametrize('keep', [['a1', 'a2', 'a3', 'b1', 'b2', 'b3', 'c1', 'c2'][::-1],
                                  ['a', 'a', 'a', 'b', 'b', 'b', 'c', 'c'], [0, 2, 3, 1, 4, 5, 6, 7]])
def test_subset_refuses_a_keep_that_is_not_a_mask(three_camps, keep):
    from scruples.perspectives import subset
    data, _ = three_camps
    with pytest.raises(ValueError, match='mask'):
        subset(data, keep)


def test_subset_takes_a_mask_of_bools_or_zeros_and_ones(three_camps):
    from scruples.perspectives import subset
    data, _ = three_camps
    m = np.array([a.startswith('a') for a in data.annotators])
    assert subset(data, m).annotators == subset(data, m.astype(int)).annotators == ['a1', 'a2', 'a3']


# --- DATA MIXED: a table with pandas' nullable dtypes (a 'string' or 'Int64' column, as pd.read_csv(dtype_backend=...)
# --- or .astype('string') make) held pd.NA for no value: the annotators the join left out of every group were measured
# --- as a group named '<NA>' --------------------------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', ['string', 'object'])
def test_pandas_missing_values_are_no_group(three_camps, dtype):
    from scruples.perspectives import annotator_groups, perspectives
    data, ann = three_camps
    table = ann.set_index('annotator').astype({'group': dtype})
    table = table[table.group != 'c']  # c1, c2: reindexed to pd.NA (string) or NaN (object)
    j = join_annotators(data, table)
    assert annotator_groups(j, 'group').tolist() == ['a'] * 3 + ['b'] * 3 + [None, None]
    assert perspectives(data, j, 'group', n_boot=0).within.group.tolist() == ['a', 'b', 'all']
    ages = ann.set_index('annotator').assign(age=pd.array([20, 20, 30, None, 30, 30, None, None], dtype='Int64'))
    assert annotator_groups(join_annotators(data, ages), 'age').tolist() == ['20', '20', '30', None, '30', '30', None,
                                                                              None]


# --- DATA DUPLICATED: take / take_items (some items of a dataset, with their texts and votes) given a boolean mask, as
# --- pandas users select (data.splits == 'test'): numpy read the mask as indices 0 and 1, so the 80 test items of the
# --- guide dataset became 400 copies of items 0 and 1; a fraction 1.5 was item 1 ----------------------------------------

@pytest.fixture(scope='module')
def shipped():
    from scruples.guide import shipped_dataset
    return read_annotated(shipped_dataset('wide'), split='split', context='context', classes='fine,rude,abusive')


@pytest.mark.parametrize('fn', ['options.take', 'guide.take_items'])
def test_take_a_mask_is_the_items_it_marks(shipped, fn):
    import importlib
    mod, name = fn.split('.')
    take = getattr(importlib.import_module(f'scruples.{mod}'), name)
    m = np.asarray(shipped.splits) == 'test'
    truth = [i for i, t in zip(shipped.items, m) if t]  # plain Python
    for mask in (m, list(m), pd.Series(m)):
        t = take(shipped, mask)
        assert t.items == truth and t.n_items == m.sum() == 80
        assert (t.counts == shipped.counts[m]).all() and list(t.texts) == [x for x, k in zip(shipped.texts, m) if k]


@pytest.mark.parametrize('idx, why', [([1.5, 2], 'indices'), ([0, 400], 'indices'), ([-1], 'indices'),
                                      (np.ones(399, bool), 'mask of 399')])
def test_take_refuses_what_is_not_items(shipped, idx, why):
    from scruples.options import take
    with pytest.raises(ValueError, match=why):
        take(shipped, idx)


# --- DATA MIXED: groups keyed by annotator ids 0..n-1 (pandas 3 makes set_index('annotator') of a table sorted by id a
# --- RangeIndex, and pd.Series({0: 'a', 1: 'b'}) too) were paired with data.annotators by position: annotators voting in
# --- another order (2, 0, 3, 1) had each other's groups (alpha within 'a' -0.38 for 0.85; subset kept 2 and 3, not 2 and
# --- 0); a dict of annotator -> group was refused as 'groups of shape ()' -------------------------------------------------

@pytest.fixture
def keyed_0_to_3(numbered_from_0):
    data, path = numbered_from_0
    by = pd.read_csv(path).sort_values('annotator').set_index('annotator').group  # {0: a, 1: b, 2: a, 3: b}
    truth = np.array([by.to_dict()[int(a)] for a in data.annotators], dtype=object)  # plain Python: by id
    return data, by, truth


def test_groups_keyed_by_ids_0_to_n_are_matched_by_id(keyed_0_to_3):
    from scruples.perspectives import group_agreement, subset
    data, by, truth = keyed_0_to_3
    assert data.annotators == ['2', '0', '3', '1']
    right = group_agreement(data, truth, n_boot=0)
    for g in (by, by.to_dict(), {str(k): v for k, v in by.items()}):
        pd.testing.assert_frame_equal(group_agreement(data, g, n_boot=0), right)
    assert subset(data, by == 'a').annotators == [a for a, g in zip(data.annotators, truth) if g == 'a'] == ['2', '0']


def test_groups_on_row_numbers_that_look_like_ids_are_refused(keyed_0_to_3):
    "An unnamed 0..n-1 index over annotators named 0..n-1 in another order: by id or by place? Refused, not guessed."
    from scruples.perspectives import group_agreement
    data, by, truth = keyed_0_to_3
    with pytest.raises(ValueError, match='annotators are named 0'):
        group_agreement(data, by.rename_axis(None), n_boot=0)
    pd.testing.assert_frame_equal(group_agreement(data, pd.Series(truth).to_numpy(), n_boot=0),
                                  group_agreement(data, truth, n_boot=0))  # an array: in data.annotators' order


# --- SILENT WRONG / CRASH: agreement on one group's votes (subset: the same items, the group's votes): items the group
# --- never voted on were counted as tied majorities (majority_ties 10 where no voted item ties), as items (30 for 20) and
# --- in votes per item (mean 2.0 for 3.0); aggregate failed with KeyError 20 (crowd-kit knows only voted items) ---------

@pytest.fixture
def one_group_of_two(tmp_path):
    from scruples.perspectives import subset
    long, _ = simulate_perspectives(n_items=30, groups={'a': 3, 'b': 3}, seed=2)
    long = long[~(long.annotator.str.startswith('a') & (long.item < 'item010'))]  # group a: 20 of the 30 items
    long.to_csv(tmp_path/'long.csv', index=False)
    data = read_annotated(tmp_path/'long.csv')
    return subset(data, np.array([a.startswith('a') for a in data.annotators]))


def test_agreement_report_leaves_out_items_without_votes(one_group_of_two):
    from scruples.agreement import agreement_report
    from scruples.annotations import majority_vote
    d = one_group_of_two
    voted = d.counts[d.counts.sum(1) > 0]  # the truth: the 20 items group a voted on
    assert len(voted) == 20 and (d.counts.sum(1) == 0).sum() == 10
    for methods in ((), ('dawid_skene',)):
        r = agreement_report(d, methods=methods).set_index('metric').value
        assert r['n_items'] == 20 and r['majority_ties'] == majority_vote(voted).n_ties == 0
        assert r['votes_per_item_mean'] == voted.sum(1).mean() == 3.0 and r['votes_per_item_min'] == 3
        assert any('10 items without a vote' in n for n in agreement_report(d, methods=methods).attrs['notes'])


def test_aggregate_gives_no_label_to_items_without_votes(one_group_of_two):
    from scruples.agreement import aggregate
    d = one_group_of_two
    t = aggregate(d, methods=('dawid_skene',))
    none = d.counts.sum(1) == 0
    assert t.item.tolist() == list(d.items)
    assert t.majority[none].isna().all() and t.dawid_skene[none].isna().all() and not t.tied[none].any()
    assert t.majority[~none].notna().all() and t.dawid_skene[~none].notna().all()


# --- MESSAGE: best(data) / plan(data) on what read_annotated returns (as majority_vote and fleiss_kappa take it) said
# --- 'label counts must be a rectangular numeric array (got ragged rows?)'; data.wide() (with its id column) said so too -

def test_best_and_plan_take_the_annotated_data(shipped):
    from scruples.best import best
    from scruples.plan import plan
    kw = dict(n_boot=0, n_samples=200, check=False)
    pd.testing.assert_frame_equal(best(shipped, **kw), best(shipped.counts, **kw))
    pd.testing.assert_frame_equal(plan(shipped, votes=[3], n_sims=10), plan(shipped.counts, votes=[3], n_sims=10))
    with pytest.raises(ValueError, match="non-numbers such as 'item0000' \\(an id or text column"):
        best(shipped.wide(), **kw)


# --- MESSAGE: plan --by for a group without a vote on the items used said 'label counts are empty' (best --by says 'no
# --- votes on these items'), and its votes per item printed as 1.0000, 3.0000 beside that row -------------------------

def test_plan_by_group_without_votes_says_so(three_camps):
    from scruples.perspectives import plan_by_group
    data, _ = three_camps
    g = np.array(['a', 'a', 'a', 'b', 'b', 'b', 'c', 'c'], dtype=object)
    none = subset_without(data, g, 'c')
    r = plan_by_group(none, g, votes=[1, 3])
    assert r[r.group == 'c'].note.tolist() == ['no votes on these items: no plan']
    assert str(r.votes.dtype) == 'Int64' and r[r.group == 'a'].votes.tolist() == [1] * 4 + [3] * 4


def subset_without(data, g, name):
    "The data with the votes of group `name` taken out (its annotators kept, voting on nothing)."
    from dataclasses import replace
    r = data.responses.copy()
    r[g == name] = np.nan
    counts = np.stack([(r == j).sum(0) for j in range(data.n_classes)], 1)
    return replace(data, responses=r, counts=counts)


# --- REFUSED, MESSAGE: an attribute column named in NFD (a macOS export) and --by typed in NFC: 'no attribute 'région':
# --- the annotators have région' (the vote reader takes column names in NFC; the annotators reader did not) -----------

@pytest.mark.parametrize('where', ['annotators', 'long'])
def test_by_an_attribute_named_in_another_unicode_form(tmp_path, where):
    long, ann = simulate_perspectives(n_items=30, groups={'a': 2, 'b': 2}, seed=1)
    nfd, nfc = unicodedata.normalize('NFD', 'région'), unicodedata.normalize('NFC', 'région')
    if where == 'annotators':
        long.to_csv(tmp_path/'long.csv', index=False)
        ann.rename(columns={'group': nfd}).to_csv(tmp_path/'ann.csv', index=False)
        extra = ('--annotators', tmp_path/'ann.csv')
    else:
        long.assign(**{nfd: long.annotator.str[0]}).to_csv(tmp_path/'long.csv', index=False)
        extra = ()
    r = scruples('agree', tmp_path/'long.csv', '--by', nfc, *extra, '--bootstrap', '0', '--json')
    assert r.returncode == 0, r.stderr
    assert [w['annotators'] for w in json.loads(r.stdout)['within']] == [2, 2, 4]


# --- DATA MIXED (figure): kappa_heatmap given the groups keyed by annotator (a Series in another order) labelled rows by
# --- position: b1 and b2 were drawn in the block named 'a' ----------------------------------------------------------------

def test_kappa_heatmap_matches_groups_by_annotator(tmp_path):
    import matplotlib
    matplotlib.use('Agg')
    from scruples.perspectives import kappa_heatmap, pairwise_kappa
    long, ann = simulate_perspectives(n_items=30, groups={'a': 2, 'b': 2}, seed=1)
    long.to_csv(tmp_path/'long.csv', index=False)
    data = read_annotated(tmp_path/'long.csv')
    K, _ = pairwise_kappa(data)
    by = ann.set_index('annotator').group.sort_index(ascending=False)

    def drawn(groups):
        ax = kappa_heatmap(K, groups).axes[0]
        return [t.get_text() for t in ax.get_yticklabels()], [t.get_text() for t in ax.texts]

    assert drawn(by) == drawn(by.reindex(data.annotators).to_numpy()) == (['a1', 'a2', 'b1', 'b2'], ['a', 'b'])


# --- SILENT WRONG (two numbers for one dataset): best's prior ('auto': the NPMLE where it predicts held-out votes better)
# --- was chosen on a held-out split of the items in the file's row order: the same votes in another row order (a shuffled
# --- file, the long form's order of first appearance, a group's votes in best --by) chose another prior and gave another
# --- ceiling (cross-entropy 0.393 for 0.419 here) ------------------------------------------------------------------------

GROUP_B = [[0, 0, 1], [0, 0, 2], [2, 0, 0], [0, 0, 1], [2, 0, 0], [0, 1, 1], [1, 1, 0], [1, 0, 0], [0, 1, 1], [2, 0, 0],
           [0, 0, 2], [0, 0, 2], [0, 2, 0], [0, 0, 1], [2, 0, 0], [0, 1, 0], [2, 0, 0]]  # a group's votes, in a file's order


def test_best_prior_and_ceiling_do_not_depend_on_row_order():
    from scruples.best import best
    c = np.array(GROUP_B)
    orders = [np.arange(len(c)), np.lexsort(c.T), *(np.random.default_rng(p).permutation(len(c)) for p in range(6))]
    got = {(b.attrs['prior'], round(b.loc['xentropy', 'estimate'], 12))
           for o in orders for b in [best(c[o], metrics=['xentropy'], n_boot=0, check=False)]}
    assert len(got) == 1, got  # was {('npmle', 0.392955714720), ('dirichlet', 0.419260646295)}


# --- DATA LOST, SILENT / WRONG COUNT: analyze FILE --annotations LONG left out the long form's items that the wide file
# --- lacks (their votes) with no word, and said '7 annotators' (summary.csv too) where 6 voted on the items analysed -----

@pytest.fixture
def wide_and_longer(tmp_path):
    long, _ = simulate_perspectives(n_items=50, groups={'a': 3, 'b': 3}, seed=4)
    extra = pd.DataFrame([(f'extra{i}', 'z1', 'fine') for i in range(10)] + [(f'extra{i}', 'a1', 'rude') for i in range(10)],
                         columns=['item', 'annotator', 'label'])
    pd.concat([long, extra]).to_csv(tmp_path/'long.csv', index=False)
    w = long.groupby(['item', 'label']).size().unstack(fill_value=0).reset_index().rename(columns={'item': 'id'})
    w['text'] = w.id.map(lambda i: f'text number {i} about something')
    w.to_csv(tmp_path/'wide.csv', index=False)
    return tmp_path/'wide.csv', tmp_path/'long.csv', long


def test_join_annotations_says_what_it_left_out(wide_and_longer):
    from scruples.guide import join_annotations
    wide, longf, long = wide_and_longer
    data = read_annotated(wide)
    j = join_annotations(data, read_annotated(longf, 'long', classes=data.classes), 'wide.csv', 'long.csv')
    assert j.report.endswith('; long.csv: 10 items not in wide.csv left out (20 votes; 1 annotators voted only on them)')
    assert int((~np.isnan(j.responses)).any(1).sum()) == long.annotator.nunique() == 6


def test_analyze_counts_the_annotators_of_the_items_analysed(wide_and_longer, tmp_path):
    wide, longf, long = wide_and_longer
    r = scruples('analyze', wide, '--annotations', longf, '--out', tmp_path/'out', '--text', '', '--bootstrap', '10',
                 '--param', 'best_samples=200', '--param', 'trait_items=6', timeout=600)  # no models: not the point here
    assert r.returncode == 0, r.stderr[-2000:]
    s = pd.read_csv(tmp_path/'out'/'summary.csv')
    row = s[(s.section == 'data') & (s.quantity == 'annotators')].iloc[0]
    assert row.value == long.annotator.nunique() == 6 and 'voted only on others' in row.note
    nb = (tmp_path/'out'/'your_data.ipynb').read_text()
    assert '10 items not in' in nb and '20 votes' in nb
