"""`plan` against the defects of issue 39: an estimate inside its own interval (one quantity for both), agreement with
`best` on the pilot, the prior `best` uses (and refuses where `best` refuses), items needed that never rise with votes,
bounded work with many classes, and a difference that cannot be simulated stated instead of aborting."""

import subprocess
import sys
from pathlib import Path
import warnings

import numpy as np
import pytest

from scruples.best import best
from scruples.plan import plan, plan_ceiling, vote_types


def _pilot(n, alpha, votes, seed):
    rng = np.random.default_rng(seed)
    return rng.multinomial(votes, rng.dirichlet(alpha, n))


@pytest.mark.parametrize('n_items,alpha', [(6, [0.5, 0.4, 0.3, 0.2]), (12, [0.3, 0.3]), (40, [1.0, 0.2, 0.2])])
def test_every_estimate_lies_inside_its_own_interval(n_items, alpha):
    res = plan_ceiling(np.array(alpha), votes=(1, 3, 5), n_items=n_items, n_sims=400, seed=1)
    inside = (res.ci_low <= res.estimate) & (res.estimate <= res.ci_high)
    assert inside.all(), res[~inside]


def test_the_plan_at_the_pilots_votes_is_what_best_shows_on_such_datasets():
    "Small pilots: the planned macro F1 is the mean of BEST's estimates on datasets drawn from the prior, not a plug-in."
    alpha, n = np.array([0.6, 0.3, 0.4]), 15
    planned = plan_ceiling(alpha, votes=[3], n_items=n, n_sims=2000, seed=2).set_index('metric')
    rng = np.random.default_rng(3)
    got = [best(rng.multinomial(3, rng.dirichlet(alpha, n)), metrics=['accuracy', 'macro_f1'], alpha=alpha, n_boot=0,
                n_samples=300, check=False)['estimate'] for _ in range(60)]
    for m in ('accuracy', 'macro_f1'):
        mean = float(np.mean([g[m] for g in got]))
        assert abs(planned.estimate[m] - mean) < 0.025, (m, planned.estimate[m], mean)


def test_plan_carries_bests_estimates_on_the_pilot_and_brackets_them():
    c = _pilot(60, [0.8, 0.4, 0.5], 5, 4)
    res = plan(c, votes=[5], n_sims=500)
    on_pilot = best(c, metrics=['xentropy', 'manhattan'], n_boot=0, check=False)
    pilot = dict(res.attrs['pilot'])
    assert pilot['xentropy'] == pytest.approx(on_pilot.loc['xentropy', 'estimate'], abs=1e-12)
    assert pilot['manhattan'] == pytest.approx(on_pilot.loc['manhattan', 'estimate'], abs=1e-12)
    row = res.set_index('metric')
    for m, v in pilot.items():
        assert row.ci_low[m] <= v <= row.ci_high[m], (m, v)
    assert res.attrs['prior'] in ('dirichlet', 'npmle') and res.attrs['check']


def test_plan_refuses_a_pilot_with_one_vote_per_item():
    c = np.eye(2, dtype=int)[np.random.default_rng(0).integers(0, 2, 30)]
    with pytest.raises(ValueError, match='one vote'):
        plan(c)


def test_items_needed_fall_with_votes_far_apart():  # each simulated on its own: noise only between close votes
    c = _pilot(200, [0.9, 0.5, 0.6], 5, 5)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        res = plan(c, votes=(1, 3, 5, 10), difference=0.05, n_sims=200)
    need = res[res.metric == 'macro_f1'].set_index('votes').items_needed.dropna().astype(int)
    assert len(need) >= 2 and need.is_monotonic_decreasing, need


def test_a_difference_that_cannot_be_simulated_is_a_note_not_an_abort():
    c = _pilot(16, [2.0, 0.3, 0.2], 3, 6)
    res = plan(c, votes=(1, 3), difference=0.9, n_sims=200)
    assert res.items_needed.isna().all()
    assert len(res.attrs['notes']) == 2 and all('cannot be simulated' in n for n in res.attrs['notes'])


def test_many_classes_draw_a_bounded_number_of_patterns():
    "300 items x 20 classes took minutes: 20,000 drawn patterns, each an O(k^2) quadrature; now the draws are capped."
    c, w, exact = vote_types(np.full(20, 0.3), 10)
    assert not exact and len(c) <= 500
    assert w.sum() == pytest.approx(1.0)


def test_plan_command_names_the_prior_and_its_check(tmp_path):
    c = _pilot(40, [0.8, 0.4], 5, 7)
    f = tmp_path / 'pilot.csv'
    f.write_text('yes,no\n' + '\n'.join(f'{a},{b}' for a, b in c) + '\n')
    exe = Path(sys.executable).with_name('scruples')  # the console script (cli.py has no __main__ guard)
    out = subprocess.run([str(exe), 'plan', str(f), '--votes', '3,5'],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert 'prior: ' in out.stdout and 'posterior predictive check' in out.stdout
