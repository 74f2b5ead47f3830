"""The fortieth hostile pass (issue 39): each test failed before its fix."""
import json

import numpy as np
import pandas as pd
import pytest

from cli_run import scruples


def _gold(tmp_path, n=60, seed=1):
    "Homogeneous votes (one shared label distribution): a prior of huge concentration, a ceiling interval of width 0."
    rng = np.random.default_rng(seed)
    c = rng.multinomial(5, [.5, .3, .2], size=n)
    ids = [f'p{i}' for i in range(n)]
    pd.DataFrame(c, columns=['yes', 'no', 'unsure']).assign(id=ids)[['id', 'yes', 'no', 'unsure']].to_csv(
        tmp_path / 'gold.csv', index=False)
    pd.DataFrame((c + .5) / 6.5, columns=['yes', 'no', 'unsure']).assign(id=ids)[['id', 'yes', 'no', 'unsure']].to_csv(
        tmp_path / 'pred.csv', index=False)
    return tmp_path / 'gold.csv', tmp_path / 'pred.csv'


def test_score_says_which_interval_the_ceilings_are(tmp_path):
    """`scruples score` printed the ceiling's accuracy/macro-F1 interval (posterior draws of the oracle's score on these
    items) under the footnote 'intervals: 95% bootstrap over the items', and judged its overlap with the model's item
    bootstrap as if they were of one kind."""
    gold, pred = _gold(tmp_path)
    r = scruples('score', pred, gold, '--bootstrap', 100, '--ceiling-bootstrap', 50, '--samples', 500)
    assert r.returncode == 0, r.stderr
    text = ' '.join(r.stdout.split())
    assert 'intervals: 95% bootstrap over the items' not in text
    assert "the model's a bootstrap over the items" in text and 'posterior draws' in text, text
    acc = [n for n in r.stderr.splitlines() if 'pred: accuracy' in n]
    assert acc and 'two kinds of interval' in acc[0], r.stderr
    xe = [n for n in r.stderr.splitlines() if 'pred: cross-entropy' in n]  # both bootstraps: no such words
    assert xe and 'two kinds' not in xe[0]
    j = scruples('score', pred, gold, '--bootstrap', 100, '--ceiling-bootstrap', 50, '--samples', 500, '--json')
    assert 'posterior draws' in json.loads(j.stdout)['intervals']


def test_above_ceiling_names_the_two_kinds_of_interval_of_a_hard_metric():
    from scruples.guide import above_ceiling

    ceiling = pd.DataFrame({'estimate': [.7, .9], 'ci_low': [.7, .85], 'ci_high': [.7, .95]},
                           index=['macro_f1', 'xentropy'])
    res = {'m': {'f1': .8, 'f1_lo': .6, 'f1_hi': .9, 'xentropy': .95, 'xentropy_lo': .9, 'xentropy_hi': 1.0}}
    said = above_ceiling(res, ceiling).set_index('metric').says
    assert 'two kinds of interval' in said['macro_f1'] and 'the intervals overlap: it may be chance' in said['macro_f1']


def test_analyze_prints_best_notes_and_no_pointer_to_absent_warnings(tmp_path):
    """`scruples analyze` said 'see the warnings below' of skewed classes with no model (no warnings follow), and left
    out the prior's concentration note that best/score/plan print; the ceiling rows' note did not
    say what lo, hi are."""
    gold, _ = _gold(tmp_path)
    r = scruples('analyze', gold, '--out', tmp_path / 'an', '--json', timeout=600)
    assert r.returncode == 0, r.stderr
    assert 'concentration' in r.stderr, r.stderr
    rows = json.loads(r.stdout)  # still the list of summary rows: the notes are rows of section 'notes'
    assert isinstance(rows, list) and any(x['section'] == 'notes' and 'concentration' in x['note'] for x in rows)
    skewed = [x for x in rows if x['quantity'] == 'skewed classes']
    assert skewed and 'warnings below' not in skewed[0]['note']
    ceil = {x['quantity']: x['note'] for x in rows if x['section'] == 'ceiling'}
    assert 'posterior draws' in ceil['BEST accuracy (all items)'] and 'bootstrap over the items' in ceil[
        'BEST cross-entropy (all items)']


def _hash_encoder(texts):
    import hashlib

    return np.array([np.frombuffer(hashlib.sha256(s.lower().encode()).digest(), np.uint8)[:16].astype(float) - 128
                     for s in texts])


class LearnedThing:
    "A direction of another kind than the paper's PCA one (as `bridge.LearnedDirection`): score(actions, mode, ...)."
    encoder = staticmethod(_hash_encoder)

    def score(self, actions, mode='questions', questions=None):
        return _hash_encoder(list(actions))[:, 0] + (0.5 if mode == 'raw' else 0.0)


def test_user_study_tables_label_a_direction_by_its_kind():
    """`user_study_table` / `user_study_correlations` called any direction 'moral direction (PCA)' and put the paper's
    BERT-large PCA r beside it (a learned direction too); `user_study_table` took no label."""
    from scruples import mcm

    for t in (mcm.user_study_table(direction=LearnedThing()), mcm.user_study_correlations(LearnedThing())):
        rows = t[t.score != 'cosine bias (templates)']
        assert set(rows.score) == {'LearnedThing'} and rows.published_r.isna().all(), t
        assert t.loc[t.score == 'cosine bias (templates)', 'published_r'].notna().all()  # the bias: the paper's measure
    t = mcm.user_study_table(direction=LearnedThing(), label='learned direction (mine)')
    assert 'learned direction (mine)' in set(t.score)
    pca = mcm.user_study_table(direction=mcm.MoralDirection(_hash_encoder).fit())
    rows = pca[pca.score != 'cosine bias (templates)']
    assert set(rows.score) == {'moral direction (PCA)'} and rows.published_r.notna().all()


def test_mcm_user_study_and_score_name_the_encoder_and_the_published_model():
    """`scruples mcm user-study` (text, --json) lost which encoder made our r and which model the published r is;
    `mcm score --json` named no encoder."""
    from cli_run import mcm
    from scruples.mcm import mcm_file

    study = mcm_file('user_study_regional.csv')
    j, t = mcm('user-study', study, '--json'), mcm('user-study', study)
    assert j.returncode == 0 and t.returncode == 0, j.stderr + t.stderr
    recs = json.loads(j.stdout)
    assert all(r['encoder'] == 'all-MiniLM-L6-v2' and r['published_model'].startswith('BERT-large') for r in recs)
    text = ' '.join(t.stdout.split())
    assert 'all-MiniLM-L6-v2' in text and 'BERT-large' in text, t.stdout
    s = mcm('score', '--json', '--', 'smile')
    assert s.returncode == 0 and json.loads(s.stdout)[0]['encoder'] == 'all-MiniLM-L6-v2', s.stdout + s.stderr
    assert 'encoder: all-MiniLM-L6-v2' in mcm('score', '--', 'smile').stdout


@pytest.mark.parametrize('col', ['ID', 'item', 'Item'])
def test_score_reads_the_predictions_id_column_by_the_gold_readers_rule(tmp_path, col):
    """The gold reader takes `id`, else `item`, in any case; the predictions reader only `id`: predictions with a header
    `ID,yes,no,unsure` were refused, the same file read fine as gold."""
    gold, pred = _gold(tmp_path)
    p = pd.read_csv(pred).rename(columns={'id': col}).sample(frac=1, random_state=0)  # shuffled: matched by id
    p.to_csv(tmp_path / 'p.csv', index=False)
    q = ('--bootstrap', 20, '--ceiling-bootstrap', 10, '--samples', 200, '--json')
    a, b = scruples('score', tmp_path / 'p.csv', gold, *q), scruples('score', pred, gold, *q)
    assert a.returncode == 0 and b.returncode == 0, a.stderr
    assert json.loads(a.stdout)['metrics'] == json.loads(b.stdout)['metrics']


def test_a_text_column_in_the_predictions_is_not_advised_as_a_class(tmp_path):
    "A `text` column beside the probabilities was answered 'give every class, --classes yes,no,unsure,text'."
    gold, pred = _gold(tmp_path)
    pd.read_csv(pred).assign(text='hello').to_csv(tmp_path / 'p.csv', index=False)
    r = scruples('score', tmp_path / 'p.csv', gold)
    assert r.returncode == 1 and 'yes,no,unsure,text' not in r.stderr and 'leave it out' in r.stderr, r.stderr


def test_score_against_ceiling_hints_set_index_for_an_id_column_of_the_probabilities():
    "The id column in the counts got the set_index hint; the same column in the probabilities did not."
    from scruples.annotations import AnnotatedData
    from scruples.evaluation import score_against_ceiling

    c = np.random.default_rng(1).multinomial(5, [.5, .3, .2], size=30)
    ids = [f'p{i}' for i in range(30)]
    ad = AnnotatedData(items=ids, counts=c, classes=('yes', 'no', 'unsure'))
    P = pd.DataFrame((c + .5) / 6.5, columns=['yes', 'no', 'unsure']).assign(id=ids)[['id', 'yes', 'no', 'unsure']]
    with pytest.raises(ValueError, match=r"proba: its column 'id' looks like the item ids.*proba\.set_index\('id'\)"):
        score_against_ceiling(P, ad, n_boot=10, ceiling_boot=10, n_samples=100)


def test_ties_random_with_no_hard_metric_is_refused_by_the_api_and_said_by_best(tmp_path):
    """`best(..., ties='random')` with only soft metrics accepted the flag and changed nothing (as `--samples` there is
    refused); `scruples best --ties random --metric xentropy` printed 'ties: random' as if it shaped the estimate: it
    labels the per-class support table only, and now says so."""
    from scruples.annotations import read_annotated
    from scruples.best import best
    from scruples.perspectives import best_by_group, simulate_perspectives

    c = np.random.default_rng(1).multinomial(5, [.5, .3, .2], size=30)
    with pytest.raises(ValueError, match="ties='random'.*it would change nothing"):
        best(c, metrics='xentropy', ties='random', n_boot=10)
    assert best(c, metrics=['xentropy', 'accuracy'], ties='random', n_boot=10, n_samples=100).shape[0] == 2
    assert best(c, metrics='xentropy', ties='drop', n_boot=10).n_examples.iloc[0] < 30  # drop: fewer items scored
    long, ann = simulate_perspectives(n_items=20, groups={'a': 3, 'b': 3}, seed=2)
    long.to_csv(tmp_path / 'l.csv', index=False)
    data = read_annotated(tmp_path / 'l.csv')
    groups = ann.set_index('annotator').group.reindex(data.annotators).to_numpy()
    with pytest.raises(ValueError, match="ties='random'"):  # once, not a NaN row per group
        best_by_group(data, groups, metrics=['kl'], ties='random', n_boot=0)
    gold, _ = _gold(tmp_path)
    r = scruples('best', gold, '--ties', 'random', '--metric', 'xentropy')
    assert r.returncode == 0 and 'no metric asked for scores against a gold label' in ' '.join(r.stdout.split())


def test_json_notes_are_a_list_and_renormalized_rows_say_how_far_off(tmp_path):
    """`verbs --json` had `note` and (sometimes) `notes`, `extract --json` only `note`: each now has `notes`, a list
    (the old `note` kept); rows off 1 by 1e-10 were said to sum to 1 'only within 0.001'."""
    from cli_run import in_process

    from scruples.dumps import GOLD_DIR

    rc, out, err = in_process('extract', GOLD_DIR / 'RS_sample.zst', GOLD_DIR / 'RC_sample.zst', '--out',
                              tmp_path / 'ex', '--workers', '1', '--no-progress', '--json')
    got = json.loads(out)
    assert rc == 0 and got['notes'] == [got['note']] and 'too few for the dev' in got['notes'][0], err
    pairs = [('lying to my mom', 'asking for help', 0), ('asking my boss', 'lying to him', 1)] * 20
    f = tmp_path / 'dev.scruples-dilemmas.jsonl'
    f.write_text(''.join(json.dumps({'id': f'p{i}', 'actions': [{'id': f'a{i}', 'description': a1},
                                                                 {'id': f'b{i}', 'description': a2}],
                                     'gold_annotations': [4, 1] if lab == 0 else [1, 4], 'gold_label': lab,
                                     'human_perf_annotations': [3, 2], 'human_perf_label': 0, 'controversial': True})
                         + '\n' for i, (a1, a2, lab) in enumerate(pairs)))
    rc, out, err = in_process('verbs', f, '--samples', '20', '--json')  # too few to pass: a note
    d = json.loads(out)
    assert rc == 0 and isinstance(d['notes'], list) and any('permutations' in n for n in d['notes']), d
    gold, pred = _gold(tmp_path)
    p = pd.read_csv(pred)
    p[['yes', 'no', 'unsure']] = p[['yes', 'no', 'unsure']].round(10)
    p.to_csv(tmp_path / 'p.csv', index=False)
    r = scruples('score', tmp_path / 'p.csv', gold, '--bootstrap', 20, '--ceiling-bootstrap', 10, '--samples', 200)
    text = ' '.join(r.stdout.split())
    assert r.returncode == 0 and 'only within 0.001' not in text and 'off 1 by at most' in text, r.stdout + r.stderr
