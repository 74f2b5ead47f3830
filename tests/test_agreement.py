"""Agreement beyond the notebook's cells: Fleiss' kappa from every vote against statsmodels, ordinal alpha against the
`krippendorff` package, and the bootstrap intervals (issue 29: ordered classes, unequal votes, intervals)."""
import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from scruples.agreement import agreement_interval, agreement_report, fleiss_kappa, fleiss_kappa_spread, krippendorff_alpha
from scruples.annotations import AnnotatedData


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(2, 7), st.integers(3, 30), st.integers(0, 2**31 - 1))
def test_fleiss_every_vote_is_fleiss_with_equal_votes(k, m, n, seed):
    "With the same number of votes per item, unequal='all' is statsmodels' Fleiss kappa."
    c = np.random.default_rng(seed).multinomial(m, np.random.default_rng(seed + 1).dirichlet(np.ones(k)), size=n)
    if (c.sum(0) == c.sum()).any(): return  # one class only: kappa undefined
    assert fleiss_kappa(c, unequal='all') == pytest.approx(sm_fleiss(c, method='fleiss'), abs=1e-12)


def test_fleiss_every_vote_uses_every_vote():
    "Unequal votes: 'all' is one number (no seed), 'subsample' varies with the seed; both within the spread's range or near it."
    rng = np.random.default_rng(0)
    c = np.stack([rng.multinomial(n, [0.7, 0.2, 0.1]) for n in rng.integers(2, 9, size=300)])
    assert fleiss_kappa(c, unequal='all') == fleiss_kappa(c, unequal='all')
    draws = {round(fleiss_kappa(c, seed=s), 6) for s in range(5)}
    assert len(draws) > 1
    mean, lo, hi = fleiss_kappa_spread(c, n=30, seed=1)
    assert lo <= mean <= hi and abs(fleiss_kappa(c, unequal='all') - mean) < 0.1


@pytest.mark.parametrize('level', ['nominal', 'ordinal', 'interval'])
def test_alpha_levels_match_the_krippendorff_package(level):
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 5, size=80)
    resp = np.where(rng.random((6, 80)) < 0.6, truth + rng.choice([-1, 0, 0, 1], size=(6, 80)), np.nan).clip(0, 4)
    ours = krippendorff_alpha(resp, level=level)
    assert ours == pytest.approx(krippendorff.alpha(resp, value_domain=list(range(5)), level_of_measurement=level), abs=1e-12)
    counts = np.stack([np.bincount(col[~np.isnan(col)].astype(int), minlength=5) for col in resp.T])
    assert krippendorff_alpha(counts, counts=True, level=level) == pytest.approx(ours, abs=1e-12)  # counts suffice at every level


def test_ordinal_alpha_beats_nominal_on_near_misses():
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 5, size=200)
    resp = (truth + rng.choice([-1, 0, 1], size=(4, 200), p=[0.25, 0.5, 0.25])).clip(0, 4).astype(float)
    assert krippendorff_alpha(resp, level='ordinal') > krippendorff_alpha(resp) + 0.15


def test_report_gives_intervals_and_ordinal_alpha_when_asked():
    rng = np.random.default_rng(2)
    c = np.stack([rng.multinomial(n, [0.8, 0.1, 0.05, 0.05]) for n in rng.integers(2, 9, size=150)])
    d = AnnotatedData(items=[f'i{i}' for i in range(150)], counts=c, classes=('a', 'b', 'c', 'd'))
    plain = agreement_report(d, methods=()).set_index('metric')
    assert 'krippendorff_alpha_ordinal' not in plain.index and plain.loc['krippendorff_alpha', 'lo'] != plain.loc['krippendorff_alpha', 'lo']  # NaN
    rep = agreement_report(d, methods=(), ordered=True, n_boot=40, seed=1).set_index('metric')
    for m in ('krippendorff_alpha', 'krippendorff_alpha_ordinal', 'fleiss_kappa'):
        assert rep.loc[m, 'lo'] < rep.loc[m, 'value'] < rep.loc[m, 'hi'], m
    assert rep.loc['fleiss_kappa', 'value'] == pytest.approx(fleiss_kappa(c, unequal='all'))
    assert agreement_interval(d, n_boot=40, seed=1) == agreement_interval(d, n_boot=40, seed=1)
