"The published numbers (scruples/published/*.csv): every file parses, no number is given twice, and spot checks against the papers' text."
import csv
from importlib import resources
from pathlib import Path

import pandas as pd
import pytest

from scruples.paper import PUBLISHED_COLUMNS, PAPERS, published, value, wide

PAPER_TEXT = {'scruples': '000_', 'mcm': '003_'}


def _files():
    return sorted(f for f in resources.files('scruples').joinpath('published').iterdir() if f.name.endswith('.csv'))


def _text(paper):
    "The paper's text from the shared folder, or skip (the text is not shipped with the package)."
    folder = Path(__file__).resolve().parents[1] / '..' / 'shared' / 'papers'
    for root in (folder, Path('/work/shared/papers')):
        hits = sorted(root.glob(PAPER_TEXT[paper] + '*.txt')) if root.is_dir() else []
        if hits: return hits[0].read_text(encoding='utf-8')
    pytest.skip('the papers\' text is not available here')


@pytest.mark.parametrize('f', _files(), ids=lambda f: f.name)
def test_every_csv_parses(f):
    df = pd.read_csv(f, dtype=str, keep_default_na=False)
    assert tuple(df.columns) == PUBLISHED_COLUMNS
    assert len(df) > 0
    assert df.paper.isin(list(PAPERS)).all()
    assert any(f.name.startswith(p + '_') for p in set(df.paper)), 'files are named <paper>_<topic>.csv'
    assert (df[['table', 'row', 'column', 'value']] != '').all().all(), 'no empty key or value'
    assert not df.duplicated(['paper', 'table', 'row', 'column']).any()
    with open(f, newline='', encoding='utf-8') as fh:
        assert all(len(r) == len(PUBLISHED_COLUMNS) for r in csv.reader(fh))


def test_no_duplicates_across_files():
    df = published()
    assert not df.duplicated(['paper', 'table', 'row', 'column']).any()
    assert len(df) > 800


def test_shapes():
    assert wide('Table 1', 'scruples').shape == (4, 5)
    assert wide('Table 5', 'scruples').shape == (3, 3)
    assert wide('Table 13', 'scruples').shape == (23, 5)
    assert wide('Table 14', 'scruples').shape == (25, 5)
    assert set(wide('Table 11', 'scruples').index) <= set(wide('Table 13', 'scruples').index)
    t9 = published('Table 9', 'mcm')
    assert t9.column.value_counts().to_dict() == {'BERT-large m (atomic)': 65, 'USE m (atomic)': 65,
                                                  'BERT-large m (context)': 56, 'USE m (context)': 56}
    t1 = wide('Table 1', 'scruples').astype(int)
    counts = ['instances', 'annotations', 'actions', 'tokens']  # types are distinct words: they do not add up
    assert (t1.loc[['train', 'dev', 'test'], counts].sum() == t1.loc['total', counts]).all(), 'Table 1 splits add up to its total'
    t13 = wide('Table 13', 'scruples').astype(float)
    assert (t13.better + t13.worse == t13.total).all()


# (paper, table, row, column, the string the paper prints)
SPOT = [('scruples', 'Table 1', 'dev', 'annotations', '52,433'),
        ('scruples', 'Table 1', 'total', 'tokens', '13,460,629'),
        ('scruples', 'Table 7', 'Best', 'dev xentropy', 'Best 0.682 0.707 0.735 0.742'),
        ('scruples', 'Table 8', 'Human', 'test macro F1', 'Human 0.807 0.804'),
        ('scruples', 'Table 8', 'RoBERTa + Dirichlet', 'test xentropy', '+ Dirichlet 0.760 0.783 0.570 0.566'),
        ('scruples', 'Table 5', '3 annotators', 'macro_f1', '3 Annotators 1.1% 3.1% 1.1%'),
        ('scruples', 'Table 13', 'excluding', 'LR', 'excluding .02 7.00 4 28 32'),
        ('scruples', 'Section 5.2', 'train', 'distinct root verbs', '1520 unique verbs'),
        ('mcm', 'Figure 2', 'BERT-large', 'pearson_r', 'r=0.88'),
        ('mcm', 'Table 7', 'disarticulate', "BERT-large Don'ts bias", 'disarticulate -0.114 -0.300'),
        ('mcm', 'Table 8', 'misinform my parents', "BERT-large Don'ts bias", 'misinform my parents -0.214'),
        ('mcm', 'Table 9', 'kill people', 'BERT-large m (context)', 'kill people 8.9468'),
        ('mcm', 'Table 9', 'murder', 'USE m (atomic)', 'murder 0.4263')]


@pytest.mark.parametrize('paper,table,row,column,printed', SPOT, ids=[f'{s[1]}-{s[2]}' for s in SPOT])
def test_spot_check_against_paper_text(paper, table, row, column, printed):
    text = _text(paper)
    assert printed in text, f'{printed!r} not in the {paper} paper text'
    v = value(paper, table, row, column)
    if printed.endswith('%'):  # a percentage: the value is a fraction; find its printed form in the string
        assert f'{100 * v:.1f}%' in printed
    else:
        assert f'{v:,.0f}' in printed or f'{v:.0f}' in printed or f'{v:.2f}' in printed or f'{v:.3f}' in printed or f'{v:.4f}' in printed \
            or f'{v:.2f}'.lstrip('0') in printed


def test_text_values_and_module_constants():
    from scruples.synthetic import SYNTHETIC_SIZES
    from scruples.topics import PAPER_TOP_WORDS, match_topics
    assert value('scruples', 'Table 12', '2', 'word 1') == 'gf'
    assert PAPER_TOP_WORDS.head(5)[1].tolist() == ['wanting', 'asking', 'family', 'dog', 'house']
    assert SYNTHETIC_SIZES['anecdotes'] == {'train': 27766, 'dev': 2500, 'test': 2500}
    assert match_topics(PAPER_TOP_WORDS).shared.tolist() == [25] * 5
