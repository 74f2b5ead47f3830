"""Sixth hostile pass (issue 39): `agree`, `plan`, the perspectives (`--by`) and `verbs` as a user meets them. Each test
runs the CLI as a user does (a subprocess) or the API, and asserts the right behaviour; each failed on the code it was
written against."""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_run import mcm, scruples

ROOT = Path(__file__).resolve().parents[1]


def _long(tmp_path, n_items=30, n_ann=8, per_item=5, seed=1) -> Path:
    "A long-form table: item, annotator, label (three classes), five votes per item from eight annotators."
    rng, rows = np.random.default_rng(seed), []
    anns = [f'a{i}' for i in range(n_ann)]
    for it in range(n_items):
        p = rng.dirichlet([1, 1, 1])
        for a in rng.choice(anns, per_item, replace=False):
            rows.append({'item': f'i{it:02d}', 'annotator': a, 'label': ['yes', 'no', 'maybe'][rng.choice(3, p=p)]})
    path = tmp_path/'long.csv'
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


# --- DATA MIXED: an annotator group named 'all' (the name of the pooled row) ---------------------------------------

@pytest.fixture
def group_all(tmp_path):
    "Annotators a0-a2 in a group called 'all', a3-a7 in 'some'."
    long = _long(tmp_path)
    ann = tmp_path/'annotators.csv'
    pd.DataFrame({'annotator': [f'a{i}' for i in range(8)], 'team': ['all'] * 3 + ['some'] * 5}).to_csv(ann, index=False)
    return long, ann


@pytest.mark.parametrize('command', [['agree', '--bootstrap', '0'], ['best', '--bootstrap', '0', '--samples', '200'],
                                     ['plan', '--votes', '3']])
def test_a_group_named_all_is_not_the_pooled_row(group_all, command):
    "A group whose name is 'all' was reported as the pooled votes (twice), and its own numbers were lost: refused."
    long, ann = group_all
    r = scruples(command[0], long, '--by', 'team', '--annotators', ann, *command[1:])
    assert r.returncode == 1, r.stdout
    assert "'all'" in r.stderr and 'team' in r.stderr, r.stderr


def test_a_group_named_all_through_the_api(group_all):
    "The library functions take groups from the user too: a group 'all' is refused there as well."
    from scruples.annotations import read_annotated
    from scruples.core import ScruplesError
    from scruples.perspectives import best_by_group, group_agreement

    long, _ = group_all
    d = read_annotated(long, 'long')
    groups = np.array(['all' if a in ('a0', 'a1', 'a2') else 'some' for a in d.annotators], dtype=object)
    with pytest.raises(ScruplesError, match="'all'"):
        group_agreement(d, groups, n_boot=0)
    with pytest.raises(ScruplesError, match="'all'"):
        best_by_group(d, groups, metrics=['xentropy'], n_boot=0)


def _split_table(path, rng, n_test: int, n: int = 30):
    "A counts table of n items (5 votes each, classes a, b, c) with a split column: the first n_test test, the rest dev."
    c = rng.multinomial(5, [0.5, 0.3, 0.2], size=n)
    pd.DataFrame({'id': range(n), 'a': c[:, 0], 'b': c[:, 1], 'c': c[:, 2],
                  'split': ['test'] * n_test + ['dev'] * (n - n_test)}).to_csv(path, index=False)


# --- SILENT WRONG: agree on a table with a split used only its test items, and said 30 items --------------------------

def test_agree_says_which_items_of_a_split_table_it_uses(tmp_path):
    "`agree` on a table with a split column scored only the test items while the read line said every item; the line "
    "now says so (as best's does) and --on picks the items."
    path = tmp_path/'votes.csv'
    _split_table(path, np.random.default_rng(0), n_test=10)
    r = scruples('agree', path, '--bootstrap', '0', '--json')
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    n = {o['metric']: o['value'] for o in out['overall']}['n_items']
    assert n == 10 and 'using the 10 test items' in out['read'], out['read']
    r = scruples('agree', path, '--bootstrap', '0', '--json', '--on', 'all')
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert {o['metric']: o['value'] for o in out['overall']}['n_items'] == 30


# --- SILENT WRONG: plan's numbers for 5 votes changed with the other --votes asked for ------------------------------

def test_plan_numbers_for_a_vote_count_do_not_depend_on_the_others(tmp_path):
    "`plan --votes 5` and `plan --votes 1,5` gave different estimates and intervals for 5 votes with the same seed."
    long = _long(tmp_path)

    def rows(votes):
        r = scruples('plan', long, '--votes', votes, '--json')
        assert r.returncode == 0, r.stderr
        return [x for x in json.loads(r.stdout)['rows'] if x['votes'] == 5]

    assert rows('5') == rows('1,3,5') == rows('5,10')


def test_plan_ceiling_api_rows_are_per_vote_count():
    "The API as well: plan_ceiling's row for 5 votes is the same whatever other votes are planned."
    from scruples.plan import plan_ceiling

    a = plan_ceiling(np.array([1.0, 0.8, 1.2]), votes=[5], n_items=50, n_sims=200, seed=3)
    b = plan_ceiling(np.array([1.0, 0.8, 1.2]), votes=[1, 3, 5], n_items=50, n_sims=200, seed=3)
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b[b.votes == 5].reset_index(drop=True))


# --- FLAG IGNORED: verbs --alpha with --all --------------------------------------------------------------------------

def test_verbs_alpha_with_all_is_refused(tmp_path):
    "`verbs --all --alpha 0.01` listed every verb, exactly as without --alpha: the flag changed nothing; refused."
    r = scruples('verbs', tmp_path/'none.scruples-dilemmas.jsonl', '--all', '--alpha', '0.01')
    assert r.returncode == 1 and '--alpha' in r.stderr and '--all' in r.stderr, r.stderr


# --- DATA MIXED: best --labels on the long form, paired by position with the items' first appearance ---------------

def test_best_labels_with_the_long_form_are_refused(tmp_path):
    "A long form sorted by annotator (as an export per annotator is) and labels in item-id order: --labels paired them by "
    "position with the items in the order they first appear, and the oracle's accuracy fell from 0.74 to 0.39 without "
    "a word; refused (the long form has no row per item to pair a label with)."
    long = _long(tmp_path)
    d = pd.read_csv(long).sort_values(['annotator', 'item'], kind='stable')
    d.to_csv(long, index=False)
    classes = sorted(d.label.unique())
    y = pd.crosstab(d.item, d.label)[classes].to_numpy().argmax(1)  # the majority, in item-id order
    (tmp_path/'y.json').write_text(json.dumps([int(v) for v in y]))
    r = scruples('best', long, '--labels', tmp_path/'y.json', '--bootstrap', '0', '--samples', '200',
                 '--metric', 'accuracy')
    assert r.returncode == 1 and '--labels' in r.stderr and 'per judgment' in r.stderr, (r.stdout, r.stderr)
    wide = tmp_path/'wide.csv'
    pd.crosstab(d.item, d.label)[classes].reset_index().rename(columns={'item': 'id'}).to_csv(wide, index=False)
    r = scruples('best', wide, '--labels', tmp_path/'y.json', '--bootstrap', '0', '--samples', '200', '--json',
                 '--metric', 'accuracy')
    assert r.returncode == 0, r.stderr  # the wide form: a row per item, paired as the help says


# --- SILENT WRONG: best/plan --by's pooled row on a split table was not `best`'s / `plan`'s number ------------------

@pytest.fixture
def split_long(tmp_path):
    "The long form with a split column (half the items test) and an annotators table."
    long = _long(tmp_path)
    d = pd.read_csv(long)
    d['split'] = ['test' if int(i[1:]) < 15 else 'dev' for i in d.item]
    d.to_csv(long, index=False)
    ann = tmp_path/'annotators.csv'
    pd.DataFrame({'annotator': [f'a{i}' for i in range(8)], 'gender': ['m', 'f'] * 4}).to_csv(ann, index=False)
    return long, ann


def test_best_by_pooled_row_is_best_on_a_split_table(split_long):
    "`best --by`'s pooled row fitted its prior on the test items alone, `best` on every item: two pooled ceilings of the "
    "same items (0.7924 against 0.7731); each group's prior is now chosen on every item read, as `best`'s."
    long, ann = split_long
    argv = ['--json', '--bootstrap', '30', '--samples', '300', '--metric', 'accuracy', 'xentropy']
    r = scruples('best', long, *argv)
    assert r.returncode == 0, r.stderr
    plain = {e['metric']: (e['estimate'], e['ci_low'], e['ci_high']) for e in json.loads(r.stdout)['estimates']}
    r = scruples('best', long, '--by', 'gender', '--annotators', ann, *argv)
    assert r.returncode == 0, r.stderr
    pooled = {e['metric']: (e['estimate'], e['ci_low'], e['ci_high'])
              for e in json.loads(r.stdout)['ceilings'] if e['group'] == 'all'}
    assert pooled == plain


def test_plan_by_pooled_row_is_plan_on_a_split_table(split_long):
    "The same for `plan --by`: its pooled row is `plan`'s."
    long, ann = split_long
    r = scruples('plan', long, '--votes', '3', '--json')
    assert r.returncode == 0, r.stderr
    plain = [(x['metric'], x['estimate'], x['ci_low'], x['ci_high']) for x in json.loads(r.stdout)['rows']]
    r = scruples('plan', long, '--votes', '3', '--json', '--by', 'gender', '--annotators', ann)
    assert r.returncode == 0, r.stderr
    pooled = [(x['metric'], x['estimate'], x['ci_low'], x['ci_high']) for x in json.loads(r.stdout)['rows']
              if x['group'] == 'all']
    assert pooled == plain


@pytest.mark.parametrize('command', [['best', '--bootstrap', '0', '--samples', '200', '--metric', 'accuracy'],
                                     ['plan', '--votes', '3']])
def test_by_read_line_says_which_items(split_long, command):
    "`best --by` and `plan --by` on a split table used its 15 test items while their read line said 30 items and no "
    "more; it now says which items, in the command line's words (--on test), in the text and in the JSON."
    long, ann = split_long
    r = scruples(command[0], long, '--by', 'gender', '--annotators', ann, *command[1:])
    assert r.returncode == 0 and 'using the 15 test items' in ' '.join(r.stdout.split()), r.stdout
    r = scruples(command[0], long, '--by', 'gender', '--annotators', ann, *command[1:], '--json')
    read = json.loads(r.stdout)['read']
    assert 'using the 15 test items' in read and '--on test' in read and 'on= ' not in read, read


def test_analyze_refuses_a_group_named_all_before_it_runs(group_all, tmp_path):
    "`analyze --by` with a group 'all': refused at once, naming the attribute (it ran the guide, which stopped there)."
    long, ann = group_all
    r = scruples('analyze', long, '--by', 'team', '--annotators', ann, '--out', tmp_path/'out', '--finetune', 'no',
                 '--bootstrap', '20', timeout=120)
    assert r.returncode == 1 and "group named 'all'" in r.stderr and 'Papermill' not in r.stderr, r.stderr


def test_agree_by_pooled_row_is_every_vote(tmp_path):
    "`agree --by` with two annotators missing from the annotators table: its 'all' row left them out (6 annotators, 113 "
    "votes, alpha 0.24) beside 'agreement (all votes)' (150 votes, alpha 0.27) and `best --by`'s 'all' (every vote); "
    "'all' is now every annotator in both."
    long = _long(tmp_path)
    ann = tmp_path/'annotators.csv'
    pd.DataFrame({'annotator': [f'a{i}' for i in range(6)], 'gender': ['m', 'f'] * 3}).to_csv(ann, index=False)
    r = scruples('agree', long, '--by', 'gender', '--annotators', ann, '--bootstrap', '0', '--json')
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    overall = {o['metric']: o['value'] for o in out['overall']}
    pooled = next(w for w in out['within'] if w['group'] == 'all')
    assert pooled['votes'] == overall['n_annotations'] == 150 and pooled['annotators'] == 8
    assert abs(pooled['alpha'] - overall['krippendorff_alpha']) < 1e-9


# --- SILENT WRONG: score --on all --cal: the temperature fitted on dev items it then scored, said 'held-out' ----------

def test_score_on_all_with_cal_is_refused(tmp_path):
    "`score --on all --cal dev.csv` on a table with a split fitted the temperature on the dev items and scored every "
    "item, dev ones too, under 'calibration: held-out'; refused as --on dev is."
    rng = np.random.default_rng(2)
    gold = tmp_path/'gold.csv'
    _split_table(gold, rng, n_test=15)
    p = rng.dirichlet([1, 1, 1], 30)
    pred = pd.DataFrame({'id': range(30), 'a': p[:, 0], 'b': p[:, 1], 'c': p[:, 2]})
    pred.to_csv(tmp_path/'all.csv', index=False)
    pred[15:].to_csv(tmp_path/'dev.csv', index=False)
    r = scruples('score', tmp_path/'all.csv', gold, '--on', 'all', '--cal', tmp_path/'dev.csv', '--bootstrap', '0',
                 '--samples', '100', '--ceiling-bootstrap', '0')
    assert r.returncode == 1 and '--on all' in r.stderr and 'dev items' in r.stderr, (r.stdout, r.stderr)


def test_score_cal_gold_without_cal_is_refused(tmp_path):
    "`score --cal-gold FILE` without --cal was accepted and changed nothing (the temperature fitted in-sample)."
    rng = np.random.default_rng(2)
    c = rng.multinomial(5, [0.5, 0.3, 0.2], size=20)
    gold = tmp_path/'gold.csv'
    pd.DataFrame({'id': range(20), 'a': c[:, 0], 'b': c[:, 1], 'c': c[:, 2]}).to_csv(gold, index=False)
    p = rng.dirichlet([1, 1, 1], 20)
    pd.DataFrame({'id': range(20), 'a': p[:, 0], 'b': p[:, 1], 'c': p[:, 2]}).to_csv(tmp_path/'p.csv', index=False)
    r = scruples('score', tmp_path/'p.csv', gold, '--cal-gold', gold, '--bootstrap', '0', '--samples', '100',
                 '--ceiling-bootstrap', '0')
    assert r.returncode == 1 and '--cal-gold' in r.stderr and '--cal' in r.stderr, (r.stdout, r.stderr)


# --- SILENT WRONG: the annotator-aware model's gain over 'the others' majority' where an item has no other vote -------

def _sparse(tmp_path, lone_from):
    "200 items, 3 classes (10/20/70%), six annotators: three votes on items before `lone_from`, one vote after."
    from scruples.annotations import read_annotated

    rng, rows = np.random.default_rng(0), []
    for i in range(200):
        for a in rng.choice(6, 3 if i < lone_from else 1, replace=False):
            rows.append((f'i{i:03d}', f'a{a}', ['x', 'y', 'z'][rng.choice(3, p=[0.1, 0.2, 0.7])]))
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(tmp_path/'sparse.csv', index=False)
    d = read_annotated(tmp_path/'sparse.csv', 'long')
    return d, rng.normal(size=(d.n_items, 8))


def test_annotator_model_gain_without_other_votes(tmp_path):
    "Test items with one vote each: 'the majority of the others' was the first class (10% of the votes), its error 0.90, "
    "and the verdict declared a gain of 0.51 for the annotator-aware model (worse than text-only); now no comparison."
    from scruples.perspective_models import annotator_model_scores

    d, E = _sparse(tmp_path, lone_from=100)
    _, s = annotator_model_scores(E, d, np.arange(100), np.arange(100, 200), n_boot=20, seed=0)
    assert not s['gain_shown'] and s['verdict'].startswith('no comparison') and np.isnan(s['error_majority']), s


def test_annotator_model_majority_error_counts_only_votes_with_others(tmp_path):
    "Half the test items with one vote: the others' majority's error is over the votes whose item has other votes."
    from scruples.annotations import majority_vote
    from scruples.perspective_models import annotator_model_scores

    d, E = _sparse(tmp_path, lone_from=150)
    test = np.arange(100, 200)
    _, s = annotator_model_scores(E, d, np.arange(100), test, n_boot=20, seed=0)
    a, i = np.nonzero(~np.isnan(d.responses[:, test]))  # the test votes: annotator, item, label
    i = test[i]
    y = d.responses[a, i].astype(np.int64)
    others = d.counts[i] - np.eye(3, dtype=np.int64)[y]
    ok = others.sum(1) > 0
    mv = majority_vote(others[ok], ties='first').labels
    want = np.mean([(mv[a[ok] == j] != y[ok][a[ok] == j]).mean() for j in range(6) if (a[ok] == j).any()])
    assert abs(s['error_majority'] - want) < 1e-12 and s['test_votes'] == ok.sum() and s['test_votes_alone'] == 50


# --- FLAG IGNORED: mcm score --mode raw gave bare's numbers (the actions were cleaned before the raw embedding) -------

def test_mcm_score_raw_mode_embeds_the_text_as_given(tmp_path):
    "`mcm score --mode raw 'Killing people!'` scored 'Killing people' exactly as --mode bare: raw is the text as given."
    def score(mode):
        r = mcm('score', '--mode', mode, '--json', '--', 'Killing people!', 'smile')
        assert r.returncode == 0, r.stderr
        return {x['action']: x['score'] for x in json.loads(r.stdout)}

    raw, bare = score('raw'), score('bare')
    # (eighth pass: a raw row is named by the text as given, the text its score embedded; forty-second: every row is
    # named as typed, the text scored in `scored_as`)
    assert raw['Killing people!'] != bare['Killing people!'] and raw['smile'] == bare['smile']


def test_wasserstein_without_ordered_names_the_flag_once(tmp_path):
    "The message said 'say so with --ordered (--ordered)'."
    p = tmp_path/'c.csv'
    p.write_text('a,b,c\n1,2,0\n0,3,1\n2,2,1\n')
    r = scruples('best', p, '--metric', 'wasserstein', '--bootstrap', '0')
    assert r.returncode == 1 and '--ordered' in r.stderr and '(--ordered)' not in r.stderr, r.stderr


def test_between_groups_intervals_do_not_depend_on_row_order(tmp_path):
    "One row moved to the top of the file (the same votes, the same item order): the groups first appeared in another "
    "order and `agree --by`'s between-groups intervals changed (20 vs 40: 0.143-0.571 became 0.143-0.627)."
    long = _long(tmp_path)
    d = pd.read_csv(long)
    ann = tmp_path/'annotators.csv'
    pd.DataFrame({'annotator': [f'a{i}' for i in range(8)], 'age': [20, 30, 40, 50] * 2}).to_csv(ann, index=False)
    first = d.item.iloc[0]
    j = d.index[(d.item == first) & (d.annotator != d.annotator.iloc[0])][0]  # another annotator of the first item
    moved = tmp_path/'moved.csv'
    pd.concat([d.loc[[j]], d.drop(j)]).to_csv(moved, index=False)

    def between(path):
        r = scruples('agree', path, '--by', 'age', '--annotators', ann, '--bootstrap', '50', '--json')
        assert r.returncode == 0, r.stderr
        return {tuple(sorted((b['group_a'], b['group_b']))): (b['differ_lo'], b['differ_hi'])
                for b in json.loads(r.stdout)['between']}

    assert between(long) == between(moved)


def test_group_soft_models_do_not_depend_on_group_order(tmp_path):
    "The same votes with the groups first appearing in another order: each group's soft-label model was fitted from "
    "another draw of the one shared stream, so its cross-entropies changed."
    from scruples.annotations import read_annotated
    from scruples.perspective_models import group_soft_models

    long = _long(tmp_path, n_items=60)
    d = pd.read_csv(long)
    j = d.index[(d.item == d.item.iloc[0]) & (d.annotator != d.annotator.iloc[0])][0]
    moved = tmp_path/'moved.csv'
    pd.concat([d.loc[[j]], d.drop(j)]).to_csv(moved, index=False)
    E = np.random.default_rng(0).normal(size=(60, 6))
    side = {f'a{i}': ['left', 'right'][i % 2] for i in range(8)}

    def table(path):
        data = read_annotated(path, 'long')
        g = np.array([side[a] for a in data.annotators], dtype=object)
        return group_soft_models(E, data, g, np.arange(40), np.arange(40, 60), seed=0).set_index(
            ['trained_on', 'scored_against']).xentropy.sort_index()

    a, b = table(long), table(moved)
    pd.testing.assert_series_equal(a, b)
