"""The thirty-seventh fixer's leads (issue 39): each test failed before its fix."""
import json

import numpy as np
import pandas as pd
from cli_run import in_this_process, scruples


def _dilemma(i, a1, a2, lab):
    return {'id': f'd{i}', 'actions': [{'id': f'a{i}', 'description': a1}, {'id': f'b{i}', 'description': a2}],
            'gold_annotations': [4, 1] if lab == 0 else [1, 4], 'gold_label': lab, 'human_perf_annotations': [3, 2],
            'human_perf_label': 0, 'controversial': True}


def test_verbs_take_no_number_as_a_root_verb(tmp_path):
    """A root of digits ('12345') was counted as a root verb, in the table and in Holm's m."""
    from scruples.verbs import RootVerbs

    assert RootVerbs()(['12345', '2024', 'lying to my mom', "I'm 3"]) == [None, None, 'lying', "'m"]
    pairs = [('lying to my mom', 'asking for help', 0), ('asking my boss', 'lying to him', 1)] * 20
    pairs += [('12345', 'asking my dad', 1)]
    f = tmp_path / 'dev.scruples-dilemmas.jsonl'
    f.write_text(''.join(json.dumps(_dilemma(i, *p)) + '\n' for i, p in enumerate(pairs)))
    r = in_this_process('verbs', f, '--samples', '500', '--all', '--json')
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert {row['verb'] for row in d['rows']} == {'lying', 'asking'} and d['pairs_dropped'] == 1, d


def test_verbs_read_full_width_letters_as_the_verb():
    """A verb in full-width letters ('ｓｔｅａｌ') was a verb of its own, not 'steal' (no NFKC before parsing)."""
    from scruples.verbs import RootVerbs

    got = RootVerbs()(['ｓｔｅａｌｉｎｇ a car', 'stealing a car', 'ﬁnding a job', 'finding a job'])
    assert got == ['stealing', 'stealing', 'finding', 'finding'], got


def test_plan_json_notes_carry_the_priors_warning(tmp_path):
    """`plan --json` without --by left the prior's warning (a concentration of 1e9) out of `notes`: stderr only."""
    rng = np.random.default_rng(7)
    f = tmp_path / 'pilot.json'
    f.write_text(json.dumps([[int(x) for x in rng.multinomial(4, [.5, .3, .2])] for _ in range(150)]))
    r = scruples('plan', f, '--votes', '1,3', '--json')
    assert r.returncode == 0, r.stderr
    assert 'note: the fitted prior concentration' in r.stderr, r.stderr
    notes = json.loads(r.stdout)['notes']
    assert any(n.startswith('the fitted prior concentration') for n in notes), notes
    assert len(notes) == r.stderr.count('note: '), (notes, r.stderr)


def test_verbs_note_calls_the_bound_above_1_no_p_value(tmp_path):
    """`verbs --samples 20`: the note called m/(N+1) = 2.9 'the smallest Holm-corrected p', which is capped at 1."""
    pairs = [(f'verb{i}ing my mom', 'asking for help', i % 2) for i in range(60)]
    f = tmp_path / 'dev.scruples-dilemmas.jsonl'
    f.write_text(''.join(json.dumps(_dilemma(i, *p)) + '\n' for i, p in enumerate(pairs)))
    r = in_this_process('verbs', f, '--samples', '20')
    assert r.returncode == 0, r.stderr
    note = ' '.join(r.stderr.split())
    assert 'Holm-corrected p of' not in note and '61/21 = 2.9 > 0.05' in note and 'capped at 1' in note, note
    assert 'no verb can pass' in note and 'use --samples 1,220 at least' in note, note


def test_analyze_refuses_a_split_without_train_items_before_the_run(tmp_path):
    """A split column with 0 train items was refused only after papermill had run the guide up to its split cell."""
    rows = [f'i{i},{i % 4},{3 - i % 4},{"dev" if i < 10 else "test"}' for i in range(20)]
    (tmp_path / 'v.csv').write_text('id,a,b,split\n' + '\n'.join(rows) + '\n')
    r = scruples('analyze', tmp_path / 'v.csv', '--text', '', '--out', tmp_path / 'out', timeout=600)
    assert r.returncode != 0
    said = ' '.join(r.stderr.split())
    assert 'the split column has 0 train and 10 test items; the guide needs 2 or more of each' in said, said
    assert 'the guide failed' not in said and not (tmp_path / 'out').exists(), said


def test_analyze_traits_note_says_the_items_taken(tmp_path):
    """`--param trait_items=1000` on 16 items: the traits note said 'the 1000 most-annotated items' (16 taken)."""
    rng = np.random.default_rng(0)
    rows = [f'i{i},{a},{"xy"[rng.integers(2)]}' for i in range(16) for a in 'ABCD']
    (tmp_path / 'long.csv').write_text('item,annotator,label\n' + '\n'.join(rows) + '\n')
    r = scruples('analyze', tmp_path / 'long.csv', '--out', tmp_path / 'out', '--bootstrap', '10', '--param',
                 'trait_items=1000', '--param', 'min_trait_questions=2', '--param', 'best_samples=200', timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    s = pd.read_csv(tmp_path / 'out' / 'summary.csv')
    note = s[(s.section == 'traits') & (s.quantity == 'questions (items) taken')].note.tolist()
    assert note and note[0].startswith('all 16 items (trait_items=1000)'), note


def test_score_says_how_to_score_a_predictions_file_of_every_split(tmp_path):
    """`score ALL GOLD` (GOLD with a split column, ALL with every split's items) was refused without a word of how to
    score it ('30 predicted ids are not scored items'), though `analyze --predictions` takes such a file."""
    rng = np.random.default_rng(0)
    c, p, ids = rng.multinomial(5, [0.6, 0.4], 60), rng.dirichlet([1, 1], 60), [f'q{i}' for i in range(60)]
    pd.DataFrame({'id': ids, 'split': ['dev'] * 30 + ['test'] * 30, 'yes': c[:, 0], 'no': c[:, 1]}).to_csv(
        tmp_path / 'gold.csv', index=False)
    pd.DataFrame({'id': ids, 'yes': p[:, 0], 'no': p[:, 1]}).to_csv(tmp_path / 'all.csv', index=False)
    pd.DataFrame({'id': ids[30:], 'yes': p[30:, 0], 'no': p[30:, 1]}).to_csv(tmp_path / 'test.csv', index=False)
    fast = ('--bootstrap', '0', '--samples', '200', '--ceiling-bootstrap', '10')
    r = scruples('score', 'all.csv', 'gold.csv', *fast, cwd=tmp_path)
    said = ' '.join(r.stderr.split())
    assert r.returncode == 1 and '30 predicted ids are not scored items of gold.csv' in said, said
    assert 'they are 30 dev items of gold.csv' in said and 'give a file of the test items only' in said, said
    assert 'scruples analyze gold.csv --predictions' in said, said
    r = scruples('score', 'test.csv', 'gold.csv', '--cal', 'all.csv', *fast, cwd=tmp_path)
    said = ' '.join(r.stderr.split())
    assert r.returncode == 1 and 'they are 30 test items of gold.csv' in said, said
    assert 'give a --cal file of the dev items only' in said, said



class _ByLength:
    "A stand-in for `TransformerClassifier` (no encoder): each pair's probabilities from its actions' lengths."

    def __init__(self, likelihood, seed=0, **kw):
        self.model = None

    def fit(self, X, y, X_val, y_val):
        self.history_ = {'epoch': [1], 'best_epoch': 1, 'heldout': [0.7]}
        return self

    def predict_proba(self, X):
        a = (X.action_1.str.len().to_numpy() % 7 + 1.0) / (X.action_2.str.len().to_numpy() % 5 + 1.0)
        return np.column_stack([a / (1 + a), 1 / (1 + a)])


def test_cpu_runs_take_shuffled_positions(monkeypatch):
    """`cpu_runs` refused a shuffled `scored` (every test row, in another order): `test.iloc[scored]` kept the labels
    0..n-1 in another order beside an array of counts, which the metrics refuse as 'positions or items?'."""
    import sys
    import types

    from scruples.corpus import load_dilemmas
    from scruples.data import label_counts
    from scruples.evaluation import evaluate
    from scruples.model_runs import cpu_runs

    monkeypatch.setitem(sys.modules, 'scruples.models',
                        types.SimpleNamespace(LIKELIHOODS=('soft',), TransformerClassifier=_ByLength))
    d_dev, d_test = load_dilemmas('dev', synthetic=True, n=40), load_dilemmas('test', synthetic=True, n=20)
    c_dev, c_test = label_counts(d_dev), label_counts(d_test)
    scored = np.random.default_rng(0).permutation(20)
    cpu, _ = cpu_runs(d_dev, d_test, c_dev, c_test, np.arange(24), np.arange(24, 40), scored, n_boot=0)
    e = evaluate(_ByLength('soft'), d_test, c_test, d_dev.iloc[24:40], c_dev[24:40], n_boot=0)
    assert abs(cpu.f1[0] - e.f1) < 1e-12 and abs(cpu.xentropy[0] - e.xentropy) < 1e-9, (cpu, e)


def _team_votes(tmp_path):
    "24 annotators in two teams on 40 items, and two with one vote each (no kappa); the same rows in two orders."
    rng = np.random.default_rng(0)
    rows = [(f'i{i}', f'w{a}', rng.choice(['yes', 'no']), 'A' if a % 2 else 'B')
            for i in range(40) for a in range(24) if rng.random() < 0.6]
    rows += [('i0', 'w90', 'yes', 'A'), ('i1', 'w85', 'no', 'B')]
    df = pd.DataFrame(rows, columns=['item', 'annotator', 'label', 'team'])
    paths = tmp_path / 'a.csv', tmp_path / 'b.csv'
    df.to_csv(paths[0], index=False)
    df.sample(frac=1, random_state=1).to_csv(paths[1], index=False)
    return paths


def test_agree_by_lists_the_annotators_without_a_kappa_in_one_order_and_kappas_do_not_move(tmp_path):
    """`agree --by` listed the annotators without a kappa in the file's row order ('w90, w85'; shuffled rows: 'w85,
    w90'), and an annotator's mean kappa with its own group read 0.0 or -5.55e-17 with the rows in another order."""
    outs, tables = [], []
    for f in _team_votes(tmp_path):
        args = (f, '--long', '--item', 'item', '--annotator', 'annotator', '--label', 'label', '--by', 'team')
        r = scruples('agree', *args)
        assert r.returncode == 0, r.stderr
        outs.append(next(line for line in r.stdout.splitlines() if 'shown (' in line))
        j = scruples('agree', *args, '--json')
        assert j.returncode == 0, j.stderr
        tables.append(pd.DataFrame(json.loads(j.stdout)['annotators']).set_index('annotator').sort_index())
    assert outs[0] == outs[1] and 'shown (w85, w90)' in outs[0], outs
    for col in ('kappa_own', 'kappa_other'):
        np.testing.assert_array_equal(tables[0][col].to_numpy(), tables[1][col].to_numpy())
