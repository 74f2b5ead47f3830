"""Eleventh hostile pass (issue 39): inputs and combinations the ten earlier passes did not try. Each test runs the CLI
as a user does (a subprocess) or the API, asserts the right behaviour against a truth computed apart (plain pandas /
numpy), and failed on the code it was written against."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_run import scruples

from scruples.annotations import read_annotated
from scruples.core import ScruplesDataError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def votes(tmp_path):
    "A wide table of 30 items: an id and count columns yes, no, unsure (each column's votes distinct from the others')."
    rng = np.random.default_rng(0)
    c = np.array([rng.multinomial(5, p) for p in rng.dirichlet([1, 1, 1], size=30)])
    df = pd.DataFrame(c, columns=['yes', 'no', 'unsure']).assign(no=lambda d: d.no + 3)  # 'no' has more votes
    df.insert(0, 'id', [f'q{i}' for i in range(30)])
    df.to_csv(tmp_path/'votes.csv', index=False)
    return tmp_path/'votes.csv', df


# --- MIXED: --counts yes,no,unsure --classes no,yes,unsure named the 'yes' column's votes class 'no' (classes were
# --- given to the count columns by position): every number of class 'no' was of the votes for 'yes', and a predictions
# --- file's 'no' column was scored against them ------------------------------------------------------------------

def test_classes_naming_another_count_column_are_refused_api(votes):
    path, df = votes
    with pytest.raises(ScruplesDataError, match="count column 'yes'"):
        read_annotated(path, counts='yes,no,unsure', classes='no,yes,unsure')
    with pytest.raises(ScruplesDataError, match="count column 'no'"):
        read_annotated(path, counts='yes,no', classes='no,maybe')  # one class of another column's name: mixed too
    d = read_annotated(path, counts='yes,no,unsure', classes='Yes,No,Unsure')  # renamed in place: the same votes
    assert d.classes == ('Yes', 'No', 'Unsure') and (d.counts == df[['yes', 'no', 'unsure']].to_numpy()).all()
    d = read_annotated(path, classes='no,yes,unsure')  # classes alone pick the columns by name, in their order
    assert (d.counts == df[['no', 'yes', 'unsure']].to_numpy()).all()


def test_classes_naming_another_count_column_are_refused_cli(votes):
    path, df = votes
    r = scruples('best', path, '--counts', 'yes,no,unsure', '--classes', 'no,yes,unsure', '--bootstrap', '0',
                 '--samples', '200')
    assert r.returncode != 0 and "count column 'yes'" in r.stderr and '--classes' in r.stderr, r.stdout + r.stderr
