"Tests of scruples.verbs: root verbs, counts, and the Monte Carlo permutation test."
import itertools, json, subprocess, sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from scruples.verbs import RootVerbs, permutation_test, significant_verbs, verb_table, permuted_labels


@pytest.fixture(scope='module')
def rv(): return RootVerbs()


def test_root_verbs_known_sentences(rv):
    texts = ['telling my mom to stop calling me', 'Not inviting my sister to my wedding',
             'ghosting a friend. She was upset about it.', 'lying to my boss about being sick']
    assert rv(texts) == ['telling', 'inviting', 'ghosting', 'lying']
    assert rv(['', '   ']) == [None, None]


def test_root_verbs_cache_parses_each_text_once(rv, monkeypatch):
    rv(['asking my dad for money'])
    calls = []
    orig = rv.nlp.pipe
    monkeypatch.setattr(rv.nlp, 'pipe', lambda texts, **kw: calls.append(list(texts)) or orig(texts, **kw))
    assert rv(['asking my dad for money'] * 5 + ['yelling at my roommate']) == ['asking'] * 5 + ['yelling']
    assert calls == [['yelling at my roommate']]


def naive_table(v1, v2, labels):
    worse, better = {}, {}
    for a, b, l in zip(v1, v2, labels):
        w, o = (a, b) if l == 0 else (b, a)
        worse[w] = worse.get(w, 0) + 1; better[o] = better.get(o, 0) + 1
    verbs = sorted(set(worse) | set(better))
    return {v: (better.get(v, 0), worse.get(v, 0)) for v in verbs}


def test_verb_table_matches_naive_counts():
    rng = np.random.default_rng(0)
    vocab = np.array(['a', 'b', 'c', 'd', 'e'])
    v1, v2, lab = rng.choice(vocab, 300), rng.choice(vocab, 300), rng.integers(0, 2, 300)
    t = verb_table(v1, v2, lab).set_index('verb')
    for v, (b, w) in naive_table(v1, v2, lab).items():
        assert (t.loc[v, 'better'], t.loc[v, 'worse'], t.loc[v, 'total']) == (b, w, b + w)
        assert t.loc[v, 'LR'] == (w / b if b else np.inf)


def exact_p(v1, v2, labels, verb):
    "Exact two-tailed permutation p-value of one verb, enumerating every relabelling with the same count."
    labels = np.asarray(labels); n, m = len(labels), int((labels == 0).sum())
    def m_stat(lab):
        row = verb_table(v1, v2, lab).set_index('verb').loc[verb]
        return min(row.worse, row.better)
    obs, hits, total = m_stat(labels), 0, 0
    for zeros in itertools.combinations(range(n), m):
        lab = np.ones(n, int); lab[list(zeros)] = 0
        hits += m_stat(lab) <= obs; total += 1
    return hits / total


def test_monte_carlo_p_converges_to_the_exact_permutation_p():
    v1 = ['lying', 'asking', 'lying', 'eating', 'lying', 'asking', 'eating', 'lying', 'asking', 'eating']
    v2 = ['asking', 'eating', 'eating', 'lying', 'asking', 'lying', 'asking', 'asking', 'eating', 'asking']
    lab = [0, 0, 0, 1, 0, 1, 0, 0, 1, 1]
    t = permutation_test(v1, v2, lab, n_permutations=40_000, seed=0).set_index('verb')
    for verb in ('lying', 'asking', 'eating'):
        p = exact_p(v1, v2, lab, verb)
        assert abs(t.loc[verb, 'p'] - p) < 4 * np.sqrt(p * (1 - p) / 40_000) + 1e-4, (verb, t.loc[verb, 'p'], p)


def test_result_independent_of_batch_size_and_threads():
    rng = np.random.default_rng(1)
    vocab = np.array([f'v{i}' for i in range(30)])
    v1, v2, lab = rng.choice(vocab, 800), rng.choice(vocab, 800), rng.integers(0, 2, 800)
    a = permutation_test(v1, v2, lab, n_permutations=2500, seed=7)
    for bs, jobs in ((1, 1), (333, 2), (5000, 3)):
        pd.testing.assert_frame_equal(a, permutation_test(v1, v2, lab, n_permutations=2500, seed=7, batch_size=bs, n_jobs=jobs))
    assert not a.p.equals(permutation_test(v1, v2, lab, n_permutations=2500, seed=8).p)


def test_permuted_labels_have_exactly_the_observed_count():
    l1 = (np.arange(4700) < 2350).astype(float)
    perms = permuted_labels(np.random.SeedSequence(3), 3000, l1)  # float32 keys tie at the cut now and then
    assert (perms.sum(1) == 2350).all()
    assert abs(perms.mean() - 0.5) < 0.01 and 0.45 < perms[:, 0].mean() < 0.55


def test_p_values_uniform_under_random_labels_and_never_zero():
    rng = np.random.default_rng(2)
    vocab = np.array([f'v{i}' for i in range(25)])
    v1, v2 = rng.choice(vocab, 5000), rng.choice(vocab, 5000)
    t = permutation_test(v1, v2, rng.integers(0, 2, 5000), n_permutations=3000, seed=3)
    assert stats.kstest(t.p, 'uniform').pvalue > 0.01
    assert (t.p > 0).all() and (t.p_holm >= t.p).all() and (t.p_holm <= 1).all()
    assert significant_verbs(t).empty


def test_planted_verb_is_found_with_its_direction():
    rng = np.random.default_rng(4)
    vocab = np.array([f'v{i}' for i in range(25)])
    v1, v2 = rng.choice(vocab, 5000), rng.choice(vocab, 5000)
    lab = rng.integers(0, 2, 5000)
    good = 'v3'  # planted to be the MORE ethical action 75% of the time
    keep = rng.random(5000) < 0.75
    lab = np.where((v1 == good) & (v2 != good), np.where(keep, 1, 0), np.where((v2 == good) & (v1 != good), np.where(keep, 0, 1), lab))
    sig = significant_verbs(permutation_test(v1, v2, lab, n_permutations=3000, seed=5))
    assert sig.verb.tolist() == [good] and sig.LR.iloc[0] < 1


@pytest.mark.parametrize('args,msg', [
    ((['a'], ['b', 'c'], [0]), 'one of each per pair'),
    (([], [], []), 'no pairs'),
    ((['a'], ['b'], [2]), 'labels must be 0'),
])
def test_bad_inputs(args, msg):
    with pytest.raises(ValueError, match=msg): permutation_test(*args, n_permutations=10)


def test_zero_permutations_rejected():
    with pytest.raises(ValueError, match='at least 1'): permutation_test(['a'], ['b'], [0], n_permutations=0)


def test_cli_verbs_json(tmp_path):
    rows = [{'id': f'p{i}', 'actions': [{'id': f'a{i}', 'description': d1}, {'id': f'b{i}', 'description': d2}],
             'gold_annotations': [4, 1] if lab == 0 else [1, 4], 'gold_label': lab, 'human_perf_annotations': [3, 2],
             'human_perf_label': 0, 'controversial': True}
            for i, (d1, d2, lab) in enumerate([('lying to my mom', 'asking for help', 0), ('asking my boss', 'lying to him', 1)] * 20)]
    f = tmp_path / 'dev.scruples-dilemmas.jsonl'
    f.write_text('\n'.join(json.dumps(r) for r in rows) + '\n')
    out = subprocess.run([str(Path(sys.executable).parent / 'scruples'), 'verbs', str(f), '--samples', '500', '--all', '--json'],
                         capture_output=True, text=True, check=True)
    res = {r['verb']: r for r in json.loads(out.stdout)['rows']}  # an object: the rows and the pairs' counts
    assert res['lying']['worse'] == 40 and res['asking']['better'] == 40 and res['lying']['p'] < 0.01


# --- issue 22 items 7, 14, 17: `scruples verbs` on pooled, long and verb-less input ---------------------------------
from scruples.cli import main
from scruples.verbs import MAX_ACTION_CHARS


def dilemma(i, a1='lying to my mom', a2='helping a friend', gold=0):
    return json.dumps({'id': f'd{i}', 'actions': [{'id': f'a{i}', 'description': a1}, {'id': f'b{i}', 'description': a2}],
                       'gold_annotations': [3, 2] if gold == 0 else [2, 3], 'gold_label': gold, 'controversial': True})


def run_verbs(capsys, *argv):
    rc = main(['verbs', '--samples', '200', *map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def test_pooled_files_refuse_an_id_seen_twice(capsys, tmp_path):
    a, b = tmp_path/'a.scruples-dilemmas.jsonl', tmp_path/'b.scruples-dilemmas.jsonl'
    a.write_text('\n'.join(dilemma(i) for i in range(5)) + '\n'); b.write_text(dilemma(9) + '\n' + dilemma(3) + '\n')
    rc, _, err = run_verbs(capsys, a, a, a)  # was "15 pairs": the same records pooled three times
    assert rc == 1 and f'{a}:1' in err and 'the same file named twice' in err
    rc, _, err = run_verbs(capsys, a, b)
    assert rc == 1 and f'{b}:2' in err and f'{a}:4 has the same one' in err


def test_a_long_action_is_refused_before_parsing(capsys, tmp_path, monkeypatch):
    import scruples.verbs as sv
    monkeypatch.setattr(sv, 'load_spacy', lambda *a: pytest.fail('spaCy loaded for an input that is refused'))
    f = tmp_path/'long.scruples-dilemmas.jsonl'
    f.write_text(dilemma(0) + '\n' + dilemma(1, a2='x' * (MAX_ACTION_CHARS + 1)) + '\n')
    rc, _, err = run_verbs(capsys, f)  # a 1 MB action took 50 s and 3.5 GB, then a spaCy error naming nothing
    assert rc == 1 and f'{f}:2' in err and 'actions[2].description' in err and 'id d1' in err
    with pytest.raises(ValueError, match='characters'): RootVerbs(nlp=object())(['y' * (MAX_ACTION_CHARS + 1)])


def test_no_root_verbs_is_an_error(capsys, tmp_path):
    f = tmp_path/'blank.scruples-dilemmas.jsonl'
    f.write_text('\n'.join(dilemma(i, a1=' ', a2='') for i in range(5)) + '\n')
    rc, out, err = run_verbs(capsys, f)  # was rc 0, "5 pairs, 0 root verbs" and an empty table
    assert rc == 1 and out == '' and 'none of the 5 pairs has a root verb' in err and str(f) in err
    with pytest.raises(ValueError, match='none of the 2 pairs'): verb_table([None, 'go'], ['go', None], [0, 1])
