"""Issue 39, the fifty-ninth hostile pass (on f46f0c7): a refusal's hint named a post's upvotes and timestamp among the
count columns (followed: accuracy 1.0, the timestamp every item's majority); a Prolific export was hinted as a column
per annotator (followed: timestamps as labels); `author_age`, `post_length`, `comment_karma` were classes; a crosstab
of items by annotator was read as classes of annotators."""

import re

import numpy as np
import pandas as pd
import pytest
from cli_run import scruples

from scruples.annotations import read_annotated


def test_a_hint_names_only_the_count_columns_the_reader_would_take(tmp_path):
    rng = np.random.default_rng(5)
    n = 12
    w = pd.DataFrame({'id': [f'p{i}' for i in range(n)], 'title': ['AITA for x'] * n, 'text': ['body'] * n,
                      'yta': rng.integers(0, 5, n), 'nta': rng.integers(1, 5, n),
                      'upvotes': rng.integers(0, 5000, n), 'created_utc': 1600000000 + np.arange(n)})
    w.to_csv(tmp_path / 'w.csv', index=False)
    r = scruples('data', 'validate', tmp_path / 'w.csv')
    out = r.stdout + r.stderr
    assert r.returncode != 0 and '--counts yta,nta,' in out and 'upvotes' not in re.search(r'--counts (\S+)', out)[1]
    assert '--id title' not in out


def test_a_prolific_export_is_hinted_as_the_long_form(tmp_path):
    (tmp_path / 'p.csv').write_text('participant_id,item_id,response,timestamp\n' + ''.join(
        f'p{a},i{i},{"acceptable" if (a + i) % 3 else "unacceptable"},{1700000000 + 4 * i + a}\n'
        for i in range(6) for a in range(3)))
    r = scruples('data', 'validate', tmp_path / 'p.csv')
    out = ' '.join((r.stdout + r.stderr).split())
    assert r.returncode != 0 and '--long, --item item_id, --annotator participant_id, --label response' in out, out
    r = scruples('data', 'validate', tmp_path / 'p.csv', '--long', '--item', 'item_id', '--annotator', 'participant_id',
                 '--label', 'response')
    assert r.returncode == 0 and '6 items' in r.stdout, r.stderr


@pytest.mark.parametrize('column', ['author_age', 'post_length', 'comment_karma', 'Created UTC'])
def test_an_items_numbers_named_in_words_are_no_class(column):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({'id': range(50), 'yes': rng.integers(1, 6, 50), 'no': rng.integers(1, 6, 50)})
    with pytest.raises(ValueError, match="counts='yes,no'"):
        read_annotated(df.assign(**{column: rng.integers(20, 60, 50)}))


def test_a_crosstab_of_items_by_annotator_is_no_table_of_classes():
    long = pd.DataFrame({'post': np.repeat(range(10), 3), 'annotator': np.tile(['a', 'b', 'c'], 10),
                         'label': np.random.default_rng(0).choice(['yes', 'no'], 30)})
    with pytest.raises(ValueError, match='a column per annotator'):
        read_annotated(pd.crosstab(long.post, long.annotator))
    assert read_annotated(pd.crosstab(long.post, long.label)).n_items == 10
