"""Fourteenth hostile pass: what a new user meets that the thirteen earlier passes did not try. Each test runs the CLI as
a user does (a subprocess) or the API, asserts the right behaviour against a truth computed apart, and failed on the code
it was written against."""
import json

import numpy as np
import pandas as pd
import pytest

from cli_run import scruples

from scruples import metrics, softmetrics


# --- DATA MIXING: a predictions frame whose columns share no name with the classes ('Other', 'Author' for author,
# --- other; 'p_other', 'p_author') was paired with the classes by position, in silence: the other-probabilities
# --- scored as author's. `scruples score` refuses these files; the API now does too ------------------------------

@pytest.fixture
def counts_and_proba():
    rng = np.random.default_rng(0)
    idx = pd.Index([f'i{i}' for i in range(40)], name='id')
    counts = pd.DataFrame(rng.multinomial(5, [.7, .3], size=40), columns=['author', 'other'], index=idx)
    proba = pd.DataFrame(rng.dirichlet([4, 1], size=40), columns=['author', 'other'], index=idx)
    return counts, proba


@pytest.mark.parametrize('names', [['Other', 'Author'], ['p_other', 'p_author']])
@pytest.mark.parametrize('fn', [metrics.xentropy, metrics.total_variation, softmetrics.js_divergence])
def test_probability_columns_named_apart_from_the_classes_are_refused(counts_and_proba, names, fn):
    counts, proba = counts_and_proba
    swapped = proba[['other', 'author']].set_axis(names, axis=1)  # other's column first, named apart
    with pytest.raises(ValueError, match='none of the classes'):
        fn(counts, swapped)
    assert fn(counts, proba[['other', 'author']]) == pytest.approx(fn(counts.to_numpy(), proba.to_numpy()))
    # a table made from an array, and counts read without class names, still pair by position
    assert fn(counts, pd.DataFrame(proba.to_numpy(), index=proba.index)) == pytest.approx(
        fn(counts.to_numpy(), proba.to_numpy()))
    assert fn(pd.DataFrame(counts.to_numpy()), proba.reset_index(drop=True)) == pytest.approx(
        fn(counts.to_numpy(), proba.to_numpy()))


# --- SILENT WRONG: with --repeats all, `agree --by` listed the pseudo-annotator A#2 (A's repeated labels) as a person
# --- of its own: A's row held only A's first labels (50 of 65 votes), A's leave-one-out majority counted A's own
# --- repeats as 'the others', and A's kappa with its own group averaged in A's kappa with itself (A vs A#2) -----------

def test_agree_per_annotator_rows_are_people_with_all_their_votes(tmp_path):
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(1)
    rows = []
    for i in range(60):
        for a in 'ABCDEF':
            if rng.random() < 0.7:
                rows.append((f'i{i}', a, rng.choice(['yes', 'no'], p=[.7, .3])))
        if i % 3 == 0:
            rows.append((f'i{i}', 'A', rng.choice(['yes', 'no'])))
        if i % 5 == 0:
            rows.append((f'i{i}', 'B', rng.choice(['yes', 'no'])))
    d = pd.DataFrame(rows, columns=['item', 'annotator', 'label'])
    d.to_csv(tmp_path / 'long.csv', index=False)
    pd.DataFrame({'annotator': list('ABCDEF'), 'gender': list('mmffxx')}).to_csv(tmp_path / 'anns.csv', index=False)
    r = scruples('agree', tmp_path / 'long.csv', '--repeats', 'all', '--by', 'gender', '--annotators',
                 tmp_path / 'anns.csv', '--bootstrap', 0, '--json')
    assert r.returncode == 0, r.stderr
    table = pd.DataFrame(json.loads(r.stdout)['annotators']).set_index('annotator')
    assert sorted(table.index) == list('ABCDEF')  # no A#2, B#2 rows
    assert table.votes.to_dict() == d.groupby('annotator').size().to_dict()
    for who in 'AB':  # leave-one-out: each of A's votes against the majority of the other people (ties left out)
        agree, n = 0, 0
        for _, v in d[d.annotator == who].iterrows():
            o = d[(d.item == v['item']) & (d.annotator != who)].label.value_counts()
            if len(o) and (len(o) == 1 or o.iloc[0] > o.iloc[1]):
                agree, n = agree + (o.index[0] == v.label), n + 1
        assert table.loc[who, 'agree_loo'] == pytest.approx(agree / n)
        assert table.loc[who, 'loo_items'] == n
    first = d.drop_duplicates(['item', 'annotator']).pivot(index='item', columns='annotator', values='label')
    both = first[['A', 'B']].dropna()
    assert table.loc['A', 'pairs_own'] == 1  # B only: not A itself (A#2), not B twice (B#2)
    assert table.loc['A', 'kappa_own'] == pytest.approx(cohen_kappa_score(both.A, both.B))
