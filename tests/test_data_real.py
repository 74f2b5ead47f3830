"""Regression tests on the real Scruples files (dilemmas dev/test, label counts): sizes, sums, published figures."""
import numpy as np
import pandas as pd
import pytest

import scruples.data as sd
import scruples.fetch as sf
import scruples.dirichlet as sdir
import scruples.synthetic as ssyn
import scruples.corpus as scorp

DILEMMA_SIZES = {'dev': 2340, 'test': 2360}


@pytest.fixture(scope='module')
def dilemmas(real_data_dir):
    return {s: sd.read_dilemmas(real_data_dir/'dilemmas'/f'{s}.scruples-dilemmas.jsonl') for s in DILEMMA_SIZES}


@pytest.fixture(scope='module')
def anecdote_counts(real_data_dir):
    return sd.read_label_counts(real_data_dir/'label-counts'/'dev.scruples-anecdotes_label-counts.json')


@pytest.fixture(scope='module')
def dilemma_counts(real_data_dir):
    return sd.read_label_counts(real_data_dir/'label-counts'/'dev.scruples-dilemmas_label-counts.json')


def macro_f1(y_true, y_pred, classes=(0, 1)) -> float:
    "Macro-averaged F1, written out (scikit-learn is not a dependency)."
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    f1 = []
    for c in classes:
        tp = np.sum((y_pred == c) & (y_true == c))
        fp = np.sum((y_pred == c) & (y_true != c))
        fn = np.sum((y_pred != c) & (y_true == c))
        f1.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
    return float(np.mean(f1))


def test_macro_f1_helper():
    assert macro_f1([0, 1, 1, 0], [0, 1, 1, 0]) == 1.0
    # class 0: tp 1 fp 1 fn 0 -> 2/3; class 1: tp 1 fp 0 fn 1 -> 2/3
    assert macro_f1([0, 1, 1], [0, 0, 1]) == pytest.approx(2 / 3)


@pytest.mark.parametrize('split', sorted(DILEMMA_SIZES))
def test_dilemmas_shape_columns_dtypes(dilemmas, split, real_data_dir):
    df = dilemmas[split]
    assert len(df) == DILEMMA_SIZES[split]
    assert tuple(df.columns) == sd.DILEMMAS_COLUMNS
    for c in ('gold_1', 'gold_2', 'gold_label'): assert df[c].dtype == np.int64, c
    for c in ('human_1', 'human_2', 'human_label'): assert str(df[c].dtype) == 'Int64', c
    assert df['controversial'].dtype == bool
    for c in ('id', 'action_1_id', 'action_1', 'action_2_id', 'action_2'):
        assert df[c].map(type).eq(str).all() and df[c].str.len().gt(0).all(), c
    assert df['id'].is_unique
    assert df.attrs == {'source': 'real', 'path': str(real_data_dir/'dilemmas'/f'{split}.scruples-dilemmas.jsonl')}
    assert not df.isna().any().any()


@pytest.mark.parametrize('split', sorted(DILEMMA_SIZES))
def test_dilemmas_internal_consistency(dilemmas, split):
    df = dilemmas[split]
    gold = sd.label_counts(df)
    human = sd.label_counts(df, 'human')
    assert gold.shape == human.shape == (len(df), 2)
    assert (gold.sum(1) == 5).all() and (human.sum(1) == 5).all()
    assert (df['gold_label'].to_numpy() == gold.argmax(1)).all()
    assert (df['human_label'].to_numpy(dtype=np.int64) == human.argmax(1)).all()
    assert (df['controversial'].to_numpy() == (gold.min(1) > 0)).all()
    assert set(df['gold_label']) == {0, 1}


def test_dilemmas_file_lines_match_rows(dilemmas, real_data_dir):
    for split, df in dilemmas.items():
        lines = (real_data_dir/'dilemmas'/f'{split}.scruples-dilemmas.jsonl').read_text(encoding='utf-8').splitlines()
        assert sum(1 for l in lines if l.strip()) == len(df)


@pytest.mark.parametrize('split,expected', [('dev', 0.807), ('test', 0.804)])
def test_human_macro_f1_matches_paper(dilemmas, split, expected):
    "Paper Table 8: human performance, human_perf_label scored against gold_label (checks the labels are kept right)."
    df = dilemmas[split]
    f1 = macro_f1(df['gold_label'].to_numpy(), df['human_label'].to_numpy(dtype=np.int64))
    assert round(f1, 3) == expected
    # and swapping the two labels would not give the same figure
    assert round(macro_f1(df['gold_label'].to_numpy(), 1 - df['human_label'].to_numpy(dtype=np.int64)), 3) != expected


def test_anecdote_label_counts(anecdote_counts, real_data_dir):
    df = anecdote_counts
    assert df.shape == (2500, 5)
    assert tuple(df.columns) == sd.ANECDOTES_CLASSES
    assert (df.dtypes == np.int64).all()
    assert int(df.to_numpy().sum()) == 52433
    assert (df.to_numpy() >= 0).all() and (df.to_numpy().sum(1) >= 1).all()
    assert df.attrs['source'] == 'real-label-counts'
    assert df.attrs['path'] == str(real_data_dir/'label-counts'/'dev.scruples-anecdotes_label-counts.json')


def test_dilemma_label_counts_equal_dev_gold(dilemma_counts, dilemmas):
    df = dilemma_counts
    assert df.shape == (2340, 2)
    assert tuple(df.columns) == sd.DILEMMAS_CLASSES
    assert (df.dtypes == np.int64).all()
    assert int(df.to_numpy().sum()) == 11700
    np.testing.assert_array_equal(df.to_numpy(), sd.label_counts(dilemmas['dev']))
    np.testing.assert_array_equal(sd.label_counts(df), df.to_numpy())


def test_label_frequencies_match_table2(anecdote_counts):
    t2 = scorp.label_frequencies(anecdote_counts)
    assert list(t2.index) == list(sd.ANECDOTES_CLASSES)
    assert int(t2['votes'].sum()) == 52433
    assert t2['frequency'].sum() == pytest.approx(1.0)
    paper = {'author': .298, 'other': .544, 'everybody': .048, 'nobody': .089, 'info': .021}
    assert ssyn.TABLE2_FREQUENCIES == paper
    for c, f in paper.items(): assert abs(t2.loc[c, 'frequency'] - f) < 0.0005, c
    assert t2.attrs['source'] == 'real-label-counts'


def test_dilemma_label_frequencies(dilemma_counts, dilemmas):
    a = scorp.label_frequencies(dilemma_counts)
    b = scorp.label_frequencies(dilemmas['dev'])
    assert list(a.index) == list(sd.DILEMMAS_CLASSES) == list(b.index)
    np.testing.assert_array_equal(a['votes'].to_numpy(), b['votes'].to_numpy())


def test_priors_reproduce_from_real_counts(anecdote_counts, dilemma_counts):
    c = anecdote_counts.to_numpy()
    np.testing.assert_allclose(sdir.dirichlet_multinomial_mle(c), ssyn.ANECDOTES_PRIOR_MLE, rtol=1e-3)
    constrained = sdir.dirichlet_multinomial_mle(c, mean=list(ssyn.TABLE2_FREQUENCIES.values()))
    np.testing.assert_allclose(constrained, ssyn.ANECDOTES_PRIOR, rtol=1e-3)
    assert constrained.sum() == pytest.approx(ssyn.ANECDOTES_PRIOR_CONCENTRATION, rel=1e-3)
    np.testing.assert_allclose(sdir.dirichlet_multinomial_mle(dilemma_counts.to_numpy()), ssyn.DILEMMAS_PRIOR, rtol=1e-3)


def test_annotation_quantiles_match_real_totals(anecdote_counts):
    totals = anecdote_counts.to_numpy().sum(1)
    q = np.array(ssyn.ANNOTATIONS_QUANTILES, dtype=float)
    assert (np.diff(q[:, 0]) > 0).all() and (np.diff(q[:, 1]) >= 0).all()
    np.testing.assert_allclose(np.percentile(totals, q[:, 0]), q[:, 1], rtol=1e-3, atol=0.06)
    assert np.median(totals) == 8


def test_locate_finds_the_real_files(real_data_dir):
    loc = sf.locate(real_data_dir)
    assert list(loc.columns) == ['kind', 'split', 'path']
    found = {(r.kind, r.split): r.path for r in loc.itertuples() if isinstance(r.path, str)}
    assert found == {
        ('dilemmas', 'dev'): str(real_data_dir/'dilemmas'/'dev.scruples-dilemmas.jsonl'),
        ('dilemmas', 'test'): str(real_data_dir/'dilemmas'/'test.scruples-dilemmas.jsonl'),
        ('anecdotes-label-counts', 'dev'): str(real_data_dir/'label-counts'/'dev.scruples-anecdotes_label-counts.json'),
        ('dilemmas-label-counts', 'dev'): str(real_data_dir/'label-counts'/'dev.scruples-dilemmas_label-counts.json'),
    }


def test_load_functions_prefer_real_data(real_data_dir, dilemmas, anecdote_counts):
    d = scorp.load_dilemmas('dev', data_dir=real_data_dir)
    assert d.attrs['source'] == 'real'
    pd.testing.assert_frame_equal(d, dilemmas['dev'])
    a = scorp.load_anecdotes('dev', data_dir=real_data_dir, synthetic=False)
    assert a.attrs['source'] == 'real-label-counts'
    assert tuple(a.columns) == sd.ANECDOTES_COLUMNS and len(a) == 2500
    np.testing.assert_array_equal(sd.label_counts(a), anecdote_counts.to_numpy())
    assert a['text'].isna().all()
    # no real anecdotes test split here: the default falls back to synthetic, synthetic=False refuses
    assert scorp.load_anecdotes('test', data_dir=real_data_dir, n=20).attrs['source'] == 'synthetic'
    with pytest.raises(FileNotFoundError): scorp.load_anecdotes('test', data_dir=real_data_dir, synthetic=False)


def test_dilemmas_table1_on_real_data(dilemmas):
    t = scorp.dilemmas_table1(dilemmas)
    assert list(t.index) == ['dev', 'test', 'total']
    assert t['instances'].tolist() == [2340, 2360, 4700]
    assert t['annotations'].tolist() == [11700, 11800, 23500]
    assert t['human_annotations'].tolist() == [11700, 11800, 23500]
    assert t['source'].tolist() == ['real', 'real', 'real']
    assert (t.loc['total', 'types'] <= t.loc['dev', 'types'] + t.loc['test', 'types'])
    assert t.loc['total', 'types'] >= max(t.loc['dev', 'types'], t.loc['test', 'types'])
    assert t.loc['total', 'tokens'] == t.loc['dev', 'tokens'] + t.loc['test', 'tokens']
