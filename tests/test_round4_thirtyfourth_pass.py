"""The thirty-fourth pass's leads (issue 39): each test failed before its fix.

1. `plan` with 6 or more classes: where the vote patterns were too many to enumerate (6 classes at 10 votes: 3,003),
   `vote_types` drew a pool of 2,170 items from the prior and every simulated dataset was resampled from it: the
   column's accuracy and macro F1 carried the pool's Monte Carlo error (about 0.01, in no interval), its
   cross-entropy moved with the seed (1.1993 beside the exact 1.2111) under a note saying it stays the same for every
   number of votes, and only `--json`'s `exact: false` said the patterns were drawn.
2. `plan --by` (`perspectives.plan_by_group`) ran each group's plan under `warnings.simplefilter('ignore')` and kept
   only its rows: a group's prior fit not to trust (a concentration of 1e9) and its prior check were never said, as
   `best --by` says them since the thirty-second pass.
3. `verbs` took a root of punctuation ('...', '!') as a root verb (in the table, in Holm's m), while the drop note
   counted only the blank action; `--json` printed a bare list of rows, without the pairs' counts.
"""
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from cli_run import in_this_process, scruples

SIX = np.array([0.44, 0.51, 0.51, 0.50, 0.50, 0.47])  # the tester's six-class pilot's prior


def _exact_scores(monkeypatch, alpha, votes):
    "The exact expected per-item accuracy and Manhattan distance over every vote pattern (the quadrature budget lifted)."
    import scruples.plan as plan_mod

    monkeypatch.setattr(plan_mod, '_QUADRATURE_BUDGET', 1e12)
    c, w, exact = plan_mod.vote_types(alpha, votes)
    assert exact
    v = plan_mod._type_values(alpha, c)
    return float(w @ v['q'][np.arange(len(c)), v['y']]), float(w @ v['manhattan']), float(w @ v['xentropy'])


def test_plan_draws_each_items_pattern_and_keeps_cross_entropy_exact(monkeypatch):
    """6 classes at 10 votes: the estimates were over a pool of 2,170 drawn patterns (accuracy off by about 0.01 with
    the seed, cross-entropy 1.1993-1.2143 for the exact 1.2111); each dataset's items are now drawn from the prior."""
    from scruples.plan import plan_ceiling

    got = [plan_ceiling(SIX, votes=(1, 10), n_items=300, seed=s) for s in range(3)]
    xe = {float(x) for g in got for x in g[g.metric == 'xentropy'].estimate}
    assert len(xe) == 1, xe  # one number for every votes and every seed: the prior's expected entropy
    with monkeypatch.context() as m:
        acc, man, xent = _exact_scores(m, SIX, 10)
    assert xe.pop() == pytest.approx(xent, abs=1e-12)
    for g in got:
        ten = g[g.votes == 10].set_index('metric')
        assert abs(ten.estimate['accuracy'] - acc) < 0.003, (ten.estimate['accuracy'], acc)  # the mean of 2,000 datasets
        assert abs(ten.estimate['manhattan'] - man) < 0.001, (ten.estimate['manhattan'], man)
        assert not ten.exact.any() and (ten.drawn == 2000 * 300).all() and (ten.patterns <= 3003).all()
        one = g[g.votes == 1]
        assert one.exact.all() and (one.drawn == 0).all()


def test_plan_says_which_columns_drew_their_patterns(tmp_path):
    "The text said nothing of the drawn column (only --json's exact: false), and its xentropy contradicted the note."
    rng = np.random.default_rng(1)
    p = rng.dirichlet([0.5] * 6, size=300)
    pd.DataFrame([rng.multinomial(5, q) for q in p], columns=[f'c{i}' for i in range(6)]).to_csv(tmp_path / 'six.csv',
                                                                                                   index=False)
    r = scruples('plan', tmp_path / 'six.csv', '--votes', '1,10', '--json')
    assert r.returncode == 0, r.stderr
    rows = pd.DataFrame(json.loads(r.stdout)['rows'])
    xe = rows[rows.metric == 'xentropy'].estimate
    assert xe.nunique() == 1, xe  # 1.2111 and 1.1993
    assert rows.groupby('votes').exact.first().to_dict() == {1: True, 10: False}
    assert rows.groupby('votes').drawn.first().to_dict() == {1: 0, 10: 600_000}
    r = scruples('plan', tmp_path / 'six.csv', '--votes', '1,10')
    text = ' '.join(r.stdout.split())
    assert 'patterns drawn at 10 votes' in text and '600,000 items drawn' in text and 'xentropy is exact' in text
    assert 'xentropy stays the same for every number of votes' in text


def _two_teams(folder):
    "The tester's long file: team 'noise' labels from one shared distribution (a prior concentration of 1e9)."
    rng, rows = np.random.default_rng(7), []
    for it in range(150):
        p = rng.dirichlet([0.3] * 3)
        for a in range(4):
            rows.append(dict(item=f'i{it:03d}', annotator=f'x{a}', label='ABC'[rng.choice(3, p=[.5, .3, .2])],
                             team='noise'))
        for a in range(4):
            rows.append(dict(item=f'i{it:03d}', annotator=f'y{a}', label='ABC'[rng.choice(3, p=p)], team='real'))
    pd.DataFrame(rows).to_csv(folder / 'long.csv', index=False)
    return folder / 'long.csv'


def test_plan_by_group_keeps_each_groups_warnings_and_check(tmp_path):
    """plan_by_group ignored every warning and dropped plan's attrs: the 'noise' group's prior (concentration 9.7e8,
    the counts no more varied than multinomial noise) was planned as any other, silently; plan --by printed nothing."""
    from scruples.annotations import read_annotated
    from scruples.perspectives import plan_by_group

    path = _two_teams(tmp_path)
    data = read_annotated(path, 'long')
    groups = np.array(['noise' if a.startswith('x') else 'real' for a in data.annotators])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        res = plan_by_group(data, groups, votes=(1, 3))
    said = [str(w.message) for w in caught]
    assert any(s.startswith("group 'noise': ") and 'concentration' in s for s in said), said
    assert not any("group 'real'" in s for s in said), said
    assert 'concentration' in res.attrs['warnings']['noise'][0] and res.attrs['warnings']['real'] == []
    assert res[res.group == 'noise'].note.str.contains('concentration').all()
    assert (res[res.group == 'real'].note == '').all()
    assert set(res.attrs['check']) == {'all', 'noise', 'real'} and 'posterior predictive check' in res.attrs['check']['real']
    assert set(res.check.dropna()) <= {'good', 'poor'} and set(res.prior.dropna()) <= {'dirichlet', 'npmle'}
    assert res.attrs['prior']['noise'] in ('dirichlet', 'npmle') and len(res.attrs['alpha']['real']) == 3
    # the command: on stderr as `best --by` says them, and in --json as `best --by --json` has them
    r = scruples('plan', path, '--long', '--by', 'team', '--votes', '1,3')
    assert r.returncode == 0, r.stderr
    assert 'note: noise: the fitted prior concentration' in r.stderr and 'real:' not in r.stderr
    out = ' '.join(r.stdout.split())
    assert all(f'prior of {g}: ' in out for g in ('all', 'noise', 'real')), out[-800:]
    r = scruples('plan', path, '--long', '--by', 'team', '--votes', '1,3', '--json')
    d = json.loads(r.stdout)
    assert 'concentration' in d['warnings']['noise'][0] and d['warnings']['real'] == []
    assert set(d['checks']) == {'all', 'noise', 'real'}
    assert {row['check'] for row in d['rows']} <= {'good', 'poor'}


def _dilemma(i, a1, a2, lab):
    return {'id': f'p{i}', 'actions': [{'id': f'a{i}', 'description': a1}, {'id': f'b{i}', 'description': a2}],
            'gold_annotations': [4, 1] if lab == 0 else [1, 4], 'gold_label': lab, 'human_perf_annotations': [3, 2],
            'human_perf_label': 0, 'controversial': True}


def test_verbs_take_a_root_of_punctuation_as_no_root_verb(tmp_path):
    """'...' and '!!' gave the root 'verbs' '...' (LR inf) and '!', in the table and in Holm's m, while the drop note
    counted only the blank action; a contraction root ('m of "I'm ...", as the Dilemmas have it) stays a verb."""
    from scruples.verbs import RootVerbs

    got = RootVerbs()(['...', '!!', '   ', '$$$', "telling an ex I'm asexual", 'lying to my mom'])
    assert got == [None, None, None, None, "'m", 'lying'], got
    pairs = [('lying to my mom', 'asking for help', 0), ('asking my boss', 'lying to him', 1)] * 20
    pairs += [('lying to my dad', '...', 0), ('   ', 'helping a friend', 1), ('!!', 'asking my dad', 1)]
    f = tmp_path / 'dev.scruples-dilemmas.jsonl'
    f.write_text(''.join(json.dumps(_dilemma(i, *p)) + '\n' for i, p in enumerate(pairs)))
    r = in_this_process('verbs', f, '--samples', '500', '--all', '--json')
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert isinstance(d, dict), d  # a bare list of rows, without the counts
    verbs = {row['verb'] for row in d['rows']}
    assert verbs == {'lying', 'asking'}, verbs  # '...' and '!' were verbs
    assert (d['pairs'], d['pairs_used'], d['pairs_dropped'], d['verbs']) == (43, 40, 3, 2)
    assert d['permutations'] == 500 and d['alpha'] is None and '3 of 43 pairs left out' in d['note']
    r = in_this_process('verbs', f, '--samples', '500', '--all')
    assert '43 pairs (3 without a root verb on both actions left out' in ' '.join(r.stdout.split())
    assert not any(line.split()[:1] in (['...'], ['!']) for line in r.stdout.splitlines())
