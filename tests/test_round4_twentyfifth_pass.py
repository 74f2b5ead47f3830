"""Twenty-fifth hostile pass: numbers checked against independent computations and invariances (plan and score
against Monte Carlo, agree --by per group against each group alone, analyze's summary against the commands), the
options (--ties, --repeats, --ordered, --group) through the commands. Each test runs the API (or the CLI, as a
subprocess) as a user does, asserts the right behaviour, and failed on the code it was written against."""
import json

import numpy as np

from cli_run import scruples


def _dirichlet_votes(n=300, votes=4, alpha=(2.0, 2.0, 2.0), seed=0):
    "Counts drawn exactly from a Dirichlet-multinomial: any sound check of a Dirichlet prior fitted to them passes."
    rng = np.random.default_rng(seed)
    return rng.multinomial(votes, rng.dirichlet(alpha, n))


def test_best_ties_drop_does_not_check_the_prior_on_the_untied_items_alone(tmp_path):
    """SILENT WRONG (a warning contradicting the score). `best --ties drop` fits the prior to every item ("the prior
    still sees them") but runs the posterior predictive check of that prior on the untied items only: items selected
    by their vote pattern (every tied pattern removed), which no prior of all the items predicts. On 300 items drawn
    exactly from a Dirichlet-multinomial, `--ties first` says "the prior predicts the vote patterns (G = 5.6,
    p = 0.97)"; `--ties drop`, the same prior, says "predicts the vote patterns poorly (G = 120.4, p = 0.010 ...): the
    ceiling rests on it and may be off". It should check the prior on the items it was fitted to (the same verdict as
    with --ties first), or at least not call a prior that fits poor."""
    f = tmp_path / 'votes.json'
    f.write_text(json.dumps(_dirichlet_votes().tolist()))
    checks = {}
    for ties in ('first', 'drop'):
        r = scruples('best', f, '--ties', ties, '--bootstrap', '0', '--samples', '500', '--json')
        assert r.returncode == 0, r.stderr
        checks[ties] = json.loads(r.stdout)['check']
    assert 'poorly' not in checks['first'], checks  # the data are the prior's own
    assert 'poorly' not in checks['drop'], checks

