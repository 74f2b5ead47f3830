"""Issue 39, the seventieth hostile pass (on a5ebbe5, `score`, `plan`, `agree`): ids `7` and `007` in one file were two
items (`agree` on 200 items read 258, alpha 0.201 against 0.178: silent), while `7` and `7.0` were refused; `score`
advised `--classes ...,loss,epoch,seed` of a wide gold, which fails pasted; `plan --figure` onto a figure of `score
--figures` said scruples did not write it; `agree --by group` without the column or `--annotators` said only "(free:
none)"; the help said `plan` takes `--bootstrap` alone; `score --cal` of items whose votes are in another file did not
name `--cal-gold`."""

import numpy as np
import pandas as pd
import pytest
from cli_run import said

from scruples.annotations import read_annotated


def _run(*argv):
    "A command's exit status and all it printed, its lines joined (`cli_run.said`)."
    return said(*argv)


def _long(path, n=60, pad=False):
    rng = np.random.default_rng(5)
    rows = []
    for i in range(n):
        p = rng.dirichlet([2, 2, 1])
        for a in rng.choice(6, size=rng.integers(2, 5), replace=False):
            rows.append((i, f'a{a}', ['yes', 'no', 'unsure'][rng.choice(3, p=p)]))
    d = pd.DataFrame(rows, columns=['item', 'annotator', 'label'])
    if pad:
        d['item'] = [f'{v:03d}' if j % 5 == 0 else str(v) for j, v in enumerate(d['item'])]
    d.to_csv(path, index=False)


def test_ids_written_with_and_without_leading_zeros_are_refused(tmp_path):
    _long(tmp_path / 'pad.csv', pad=True)
    rc, out = _run('agree', str(tmp_path / 'pad.csv'), '--bootstrap', '0')
    assert rc != 0 and 'one number written two ways (leading zeros' in out, out
    pd.DataFrame({'id': ['1', '2', '3', '001'], 'yes': [1, 2, 0, 3], 'no': [2, 1, 3, 0]}).to_csv(tmp_path / 'w.csv',
                                                                                               index=False)
    with pytest.raises(Exception, match="'1' and '001' are one number written two ways"):
        read_annotated(tmp_path / 'w.csv')
    pd.DataFrame({'id': ['001', '002', '010'], 'yes': [1, 2, 0], 'no': [2, 1, 3]}).to_csv(tmp_path / 'z.csv',
                                                                                        index=False)
    assert read_annotated(tmp_path / 'z.csv').items == ['001', '002', '010']  # one spelling each: as written


def _gold_and_predictions(tmp_path, n=60):
    rng = np.random.default_rng(1)
    p = rng.dirichlet([1, 1, 1], size=n)
    c = np.array([rng.multinomial(v, q) for v, q in zip(rng.integers(3, 8, size=n), p)])
    g = pd.DataFrame({'id': np.arange(1, n + 1), 'yes': c[:, 0], 'no': c[:, 1], 'unsure': c[:, 2]})
    g.to_csv(tmp_path / 'gold.csv', index=False)
    pr = np.exp(np.log(p + 0.05) + rng.normal(0, 0.7, size=p.shape))
    pr /= pr.sum(1, keepdims=True)
    pred = pd.DataFrame({'id': g.id, 'yes': pr[:, 0], 'no': pr[:, 1], 'unsure': pr[:, 2]})
    return g, pred


def test_score_of_a_wide_gold_does_not_advise_classes_of_a_models_other_columns(tmp_path):
    g, pred = _gold_and_predictions(tmp_path)
    pred.assign(loss=0.5, epoch=3, seed=42).to_csv(tmp_path / 'p.csv', index=False)
    rc, out = _run('score', str(tmp_path / 'p.csv'), str(tmp_path / 'gold.csv'), '--bootstrap', '0', '--samples', '50')
    assert rc != 0 and 'leave it out of the file' in out and '--classes' not in out, out
    long = g.melt(id_vars='id', var_name='label', value_name='n')  # one vote a row: a class no one chose is unread
    long = long.loc[long.index.repeat(long.n)].drop(columns='n')
    long['annotator'] = long.groupby('id').cumcount()
    long.rename(columns={'id': 'item'}).to_csv(tmp_path / 'long.csv', index=False)
    rc, out = _run('score', str(tmp_path / 'p.csv'), str(tmp_path / 'long.csv'), '--bootstrap', '0', '--samples', '50')
    assert rc != 0 and '--classes' in out, out  # there it may be a class no one voted for


def test_score_with_cal_items_of_another_gold_names_cal_gold(tmp_path):
    g, pred = _gold_and_predictions(tmp_path, n=80)
    g.iloc[:40].to_csv(tmp_path / 'ga.csv', index=False)
    g.iloc[40:].to_csv(tmp_path / 'gb.csv', index=False)
    pred.iloc[:40].to_csv(tmp_path / 'pa.csv', index=False)
    pred.iloc[40:].to_csv(tmp_path / 'pb.csv', index=False)
    rc, out = _run('score', str(tmp_path / 'pb.csv'), str(tmp_path / 'gb.csv'), '--cal', str(tmp_path / 'pa.csv'),
                   '--bootstrap', '0', '--samples', '50')
    assert rc != 0 and '--cal-gold FILE' in out, out
    rc, out = _run('score', str(tmp_path / 'pb.csv'), str(tmp_path / 'gb.csv'), '--cal', str(tmp_path / 'pa.csv'),
                   '--cal-gold', str(tmp_path / 'ga.csv'), '--bootstrap', '0', '--samples', '50')
    assert rc == 0, out


def test_agree_by_a_column_the_file_lacks_names_annotators(tmp_path):
    _long(tmp_path / 'l.csv')
    rc, out = _run('agree', str(tmp_path / 'l.csv'), '--by', 'group', '--bootstrap', '0')
    assert rc != 0 and "has no column 'group'" in out and '--annotators FILE' in out, out


def test_plan_help_says_bootstrap_goes_with_difference():
    _, out = _run('plan', '--help')
    assert 'only with --difference' in out and 'analyze and plan, which take' not in out, out


def test_a_figure_of_score_figures_is_refused_as_a_folders_not_a_users(tmp_path):
    _, pred = _gold_and_predictions(tmp_path)
    pred.to_csv(tmp_path / 'p.csv', index=False)
    rc, out = _run('score', str(tmp_path / 'p.csv'), str(tmp_path / 'gold.csv'), '--bootstrap', '0', '--samples', '50',
                   '--figures', str(tmp_path / 'figs'))
    assert rc == 0, out
    before = (tmp_path / 'figs' / 'reliability.png').read_bytes()
    rc, out = _run('plan', str(tmp_path / 'gold.csv'), '--votes', '1,3', '--figure', str(tmp_path / 'figs' /
                                                                                       'reliability.png'))
    assert rc != 0 and 'score --figures' in out, out
    assert (tmp_path / 'figs' / 'reliability.png').read_bytes() == before
