"""Leads left by the forty-first pass and found beside them (issue 39): each test failed before its fix."""
import numpy as np
import pandas as pd
import pytest
from cli_run import scruples

from scruples import metrics, softmetrics
from scruples.annotations import AnnotatedData


def _data(rows):
    return AnnotatedData(items=['a', 'b', 'c'], counts=np.array(rows), classes=('yes', 'no'))


@pytest.mark.parametrize('f', [metrics.xentropy, metrics.total_variation, softmetrics.kl_divergence,
                               softmetrics.js_divergence])
def test_a_soft_metric_names_the_item_of_an_all_zero_row(f):
    """An AnnotatedData (or a frame of counts keyed by ids) with an item nobody labelled was refused naming only its
    position ('example 2'): the item is named too. KL and JS of an AnnotatedData crashed ('got shape ()')."""
    d = _data([[5, 0], [0, 5], [0, 0]])
    p = pd.DataFrame([[.9, .1], [.2, .8], [.5, .5]], index=['a', 'b', 'c'], columns=['yes', 'no'])
    for y in (d, pd.DataFrame(d.counts, index=d.items, columns=list(d.classes))):
        with pytest.raises(ValueError, match=r"example 2 \(item 'c'\) has no annotations"):
            f(y, p)
    with pytest.raises(ValueError, match=r'example 2 has no annotations'):  # an array: its positions are all it has
        f(d.counts, p.to_numpy())
    d = _data([[5, 0], [0, 5], [1, 1]])  # an AnnotatedData is scored as its counts, matched to the table by its items
    assert f(d, p.iloc[::-1]) == pytest.approx(f(d.counts, p.to_numpy()))


def test_a_dirichlet_fitted_at_its_bound_says_only_its_shares_count(tmp_path):
    """`best` on votes that vary no more than multinomial noise printed `prior alpha = [485165195.40979, ...]`, a number
    set by where the fit stopped, as if it were the prior: the line says the fit ran to its bound and gives the shares."""
    f = tmp_path / 'flat.csv'
    f.write_text('id,yes,no\na,2,2\nb,3,1\nc,1,3\nd,2,2\n')
    for cmd in ('best', 'plan'):
        r = scruples(cmd, str(f))
        assert r.returncode == 0, r.stderr
        out = ' '.join(r.stdout.split())  # the text as read, whatever the wrapping
        assert 'the fit ran to its bound' in out and 'only its shares [0.5, 0.5] count' in out, r.stdout
    f.write_text('id,yes,no\na,5,0\nb,3,1\nc,0,4\nd,2,2\ne,1,3\nf,4,0\ng,0,5\n')  # variation: alpha as it is
    r = scruples('best', str(f))
    out = ' '.join(r.stdout.split())
    assert 'prior alpha = [0.4' in out and 'its bound' not in out, r.stdout
