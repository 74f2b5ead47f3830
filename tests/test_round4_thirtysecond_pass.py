"""The thirty-second pass's leads (issue 39): each test failed before its fix."""
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from cli_run import scruples


def test_latent_trait_frames_keep_the_fitted_frames_names():
    """A model fitted on a frame returned `scores` indexed 0..n-1 and `irt_parameters` without the questions' names."""
    from scruples.traits import LatentTraitModel, irt_parameters, lsat6

    Y = lsat6()
    Y.index = [f'r{i}' for i in range(len(Y))]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        m = LatentTraitModel(1).fit(Y)
    s = m.scores(Y.iloc[:3])
    assert list(s.index) == ['r0', 'r1', 'r2']
    irt = irt_parameters(m)
    assert list(irt['name']) == list(Y.columns)


def test_verb_table_counts_the_pairs_without_a_root_verb():
    """`verb_table` (and `permutation_test`) dropped the pairs without a root verb on both sides without a count."""
    from scruples.verbs import permutation_test, verb_table

    v1, v2, lab = ['lie', None, 'steal', 'help'], ['help', 'lie', np.nan, 'steal'], [0, 1, 0, 1]
    t = verb_table(v1, v2, lab)
    assert (t.attrs['pairs'], t.attrs['pairs_used'], t.attrs['pairs_dropped']) == (4, 2, 2)
    assert '2 of 4 pairs' in t.attrs['note']
    assert permutation_test(v1, v2, lab, n_permutations=10, n_jobs=1).attrs['pairs_dropped'] == 2


def test_a_grid_without_an_encoder_column_is_not_named_minilm():
    """A saved grid whose CSV records no encoder was labelled 'MiniLM' (the default) in table8, table10 and the rows."""
    from scruples.model_runs import add_model_rows, grid_ensembles, table8, table10
    from scruples.reproduce import Comparison

    rng = np.random.default_rng(0)
    Yd, Yt = rng.multinomial(5, [0.5, 0.5], 30), rng.multinomial(5, [0.5, 0.5], 20)
    grid = pd.DataFrame({'name': [f'hot-dirichlet-{s}' for s in range(2)], 'recipe': 'hot', 'likelihood': 'dirichlet',
                         'seed': [0, 1], 'test_f1': [0.6, 0.62], 'test_xentropy': [0.66, 0.65]})
    fake = {f'{n}/{s}': rng.normal(size=(m, 2)) for n in grid.name for s, m in (('val', 10), ('test', 20))}
    fake.update({f'{n}/val_idx': np.arange(20, 30) for n in grid.name})
    ens = grid_ensembles(grid, fake, Yt, Yd, n_boot=0)
    t8 = table8(pd.DataFrame(), ens)
    rows = add_model_rows(Comparison('x'), pd.DataFrame(), 'real', ens, table10(grid)).frame()
    said = list(t8.model[t8.model.str.startswith('ours GPU')]) + list(rows.quantity)
    assert said and not any('MiniLM' in s for s in said), said
    assert all('encoder not recorded' in s for s in said), said
    named = grid_ensembles(grid.assign(encoder='bert-base'), fake, Yt, Yd, n_boot=0)
    assert 'ours GPU (saved), bert-base + dirichlet, 2-seed ensemble' in list(table8(pd.DataFrame(), named).model)


def _camp_and_even(folder):
    """Long-form votes: a camp of 4 who mostly agree, and 4 whose votes split 2-2 on every item (no variation beyond
    multinomial noise: `best` warns its prior fit is not to trust), with the annotators' table."""
    rng = np.random.default_rng(0)
    rows = []
    for i in range(60):
        truth = rng.integers(2)
        for a in range(4):
            rows.append((f'i{i}', f'c{a}', ['y', 'n'][truth if rng.random() < 0.9 else 1 - truth]))
            rows.append((f'i{i}', f'r{a}', ['y', 'n'][(a + i) % 2]))
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(folder / 'long.csv', index=False)
    pd.DataFrame({'annotator': [f'{p}{a}' for p in 'cr' for a in range(4)], 'group': ['camp'] * 4 + ['even'] * 4}
                 ).to_csv(folder / 'ann.csv', index=False)
    return folder / 'long.csv', folder / 'ann.csv'


def test_best_by_group_says_each_groups_prior_check_and_warnings(tmp_path):
    """`best_by_group` hid `best`'s warnings (a group's prior fit not to trust) and its prior check, group by group."""
    from scruples.annotations import read_annotated
    from scruples.perspectives import best_by_group

    long, _ = _camp_and_even(tmp_path)
    data = read_annotated(long)
    groups = np.array(['camp' if a.startswith('c') else 'even' for a in data.annotators])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        res = best_by_group(data, groups, n_boot=0, n_samples=500)
    assert any("group 'even'" in str(w.message) and 'concentration' in str(w.message) for w in caught)
    assert set(res.attrs['check']) == {'all', 'camp', 'even'} and res.attrs['check_verdict']['even'] == 'poor'
    assert (res[res.group == 'even'].check == 'poor').all()
    assert any('concentration' in n for n in res[res.group == 'even'].note)
    assert res.attrs['warnings']['camp'] == [] and res.attrs['warnings']['even']


def test_best_by_shows_each_groups_prior_check_and_warnings(tmp_path):
    """`scruples best --by` printed no group's prior check and none of `best`'s warnings about a group's prior."""
    long, ann = _camp_and_even(tmp_path)
    r = scruples('best', long, '--by', 'group', '--annotators', ann, '--bootstrap', '0', '--samples', '500')
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    assert 'prior of even: the prior predicts the vote patterns poorly' in out, out
    assert 'note: even: the fitted prior concentration' in out, out
    j = scruples('best', long, '--by', 'group', '--annotators', ann, '--bootstrap', '0', '--samples', '500', '--json')
    got = json.loads(j.stdout)
    assert set(got['checks']) == {'all', 'camp', 'even'} and got['warnings']['even'], got.keys()


def test_pooled_alpha_takes_an_annotators_repeated_label_as_the_same_person(tmp_path):
    """Alpha (`krippendorff_alpha`, `agreement_report`, `group_agreement`) paired A's repeated label (A#2) with A's own."""
    from scruples.agreement import agreement_report, krippendorff_alpha
    from scruples.annotations import read_annotated
    from scruples.perspectives import group_agreement

    rng = np.random.default_rng(1)
    rows = []
    for i in range(200):  # A labels every item twice, the same; B at random: the two persons' labels are unrelated
        a = ['y', 'n'][rng.integers(2)]
        rows += [(f'i{i}', 'A', a), (f'i{i}', 'A', a), (f'i{i}', 'B', ['y', 'n'][rng.integers(2)])]
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(tmp_path / 'v.csv', index=False)
    data = read_annotated(tmp_path / 'v.csv', repeats='all')
    assert sorted(data.annotators) == ['A', 'A#2', 'B']
    assert abs(krippendorff_alpha(data)) < 0.1  # was 0.33: A's agreement with oneself
    rep = agreement_report(data, methods=()).set_index('metric')
    assert abs(rep.loc['krippendorff_alpha', 'value']) < 0.1
    g = group_agreement(data, np.array(['g', 'g', 'g']), n_boot=20).set_index('group')
    assert abs(g.loc['all', 'alpha']) < 0.1 and abs(g.loc['g', 'alpha']) < 0.1
    assert g.loc['all', 'alpha_lo'] < 0 < g.loc['all', 'alpha_hi']
