"""`scruples.mcm.afinn_ratings` / `afinn_check`: the MCM paper's AFINN check of the Dos and Don'ts (needs the afinn package)."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from scruples.mcm import afinn_check, afinn_ratings, load_dos_donts
from scruples.paper import wide

pytest.importorskip('afinn')


def test_ratings_of_known_and_unknown_words():
    r = afinn_ratings(['hug', 'murder', 'picnic', 'xyzzyverb'])
    assert r.afinn.tolist() == [2.0, -2.0, 0.0, 0.0] and r.in_afinn.tolist() == [True, True, False, False]


def test_check_on_a_made_up_table():
    t = pd.DataFrame({'verb': ['hug', 'love', 'picnic', 'murder', 'kill', 'slur'], 'kind': ['do'] * 3 + ['dont'] * 3,
                      'rank': [1, 2, 3, 1, 2, 3]})
    c = afinn_check(t)
    do, dont = afinn_ratings(t.verb[:3]).afinn.to_numpy(), afinn_ratings(t.verb[3:]).afinn.to_numpy()
    assert c.loc['all verbs', 'Dos mean'] == pytest.approx(do.mean()) and c.loc['all verbs', 'Dos std'] == pytest.approx(do.std())
    assert c.loc['all verbs', 't'] == pytest.approx(stats.ttest_ind(do, dont).statistic)
    assert c.loc['in AFINN', 'Dos n'] == 2  # 'picnic' is not rated
    assert afinn_check(t, top=2).loc['all verbs', 'Dos n'] == 2


@pytest.mark.parametrize('bad,match', [
    (pd.DataFrame({'verb': ['hug'], 'kind': ['do']}), "column 'rank'"),
    (pd.DataFrame({'verb': ['hug', 'love', 'kill'], 'kind': ['do', 'do', 'dont'], 'rank': [1, 2, 1]}), 'too few rated verbs'),
])
def test_bad_tables(bad, match):
    with pytest.raises(ValueError, match=match): afinn_check(bad)


def test_ratings_refuse_a_single_string():
    with pytest.raises((TypeError, ValueError)): afinn_ratings('hug')


def test_reproduces_the_published_check():
    c, paper = afinn_check(load_dos_donts()), wide('Appendix: AFINN', 'mcm')
    for subset in ('all verbs', 'in AFINN'):
        for col in paper.columns:
            if pd.isna(paper.loc[subset, col]): continue
            slip = (subset, col) in {('in AFINN', 'Dos mean'), ('in AFINN', 't')}  # the paper's 2.34 (56/24 = 2.333) and 23.28
            assert abs(c.loc[subset, col] - paper.loc[subset, col]) <= (0.015 if slip else 0.005), (subset, col)
    assert np.isclose(c.loc['in AFINN', 'Dos mean'], 56 / 24)
