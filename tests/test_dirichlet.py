"""The Dirichlet-multinomial MLE (`scruples.dirichlet`, issue 23): it needs no scipy.optimize, and on random counts
its answer is finite, inside its bounds and not beaten by any nearby alpha."""
import math
import subprocess
import sys
import warnings

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from scruples.dirichlet import DirichletFitWarning, dirichlet_multinomial_mle, dm_log_likelihood

REPO = Path(__file__).resolve().parents[1]


def exact_ll(counts, alpha) -> float:
    """The summed log-likelihood without the multinomial coefficient, for integer counts, without lgamma's cancellation
    at large alpha: sum_k c_k log(a_k / A) + sum_k sum_{j < c_k} log1p(j / a_k) - sum_{j < n} log1p(j / A)."""
    c, a = np.asarray(counts, dtype=float), np.asarray(alpha, dtype=float)
    n, A = c.sum(1), a.sum()
    ll = (c * np.log(a / A)).sum()
    for j in range(1, int(n.max())):
        ll += ((c > j) * np.log1p(j / a)).sum() - ((n > j) * np.log1p(j / A)).sum()
    return float(ll)


def test_exact_ll_is_the_log_likelihood():
    rng = np.random.default_rng(0)
    c, a = rng.integers(0, 6, (50, 3)), np.array([0.4, 2.0, 1.3])
    assert exact_ll(c, a) == pytest.approx(dm_log_likelihood(c, a, coefficient=False).sum(), rel=1e-12)


def test_import_and_fit_need_no_scipy_optimize():
    "scipy.optimize costs a sizable share of `scruples best`'s start-up: the module and an ordinary fit do not import it."
    probe = ('import sys, numpy as np, scruples.dirichlet as d; assert "scipy.optimize" not in sys.modules, "on import"; '
             'd.dirichlet_multinomial_mle(np.array([[3, 1, 0], [0, 4, 1], [2, 2, 1], [5, 0, 0], [1, 1, 3], [0, 0, 5]])); '
             'd.dirichlet_multinomial_mle(np.array([[3, 1], [2, 2]]), mean=[0.5, 0.5]); '
             'assert "scipy.optimize" not in sys.modules, "on fit"')
    p = subprocess.run([sys.executable, '-c', probe], capture_output=True, text=True, cwd=REPO, timeout=120,
                       env={'PYTHONPATH': str(REPO), 'PATH': '/usr/bin:/bin'})
    assert p.returncode == 0, p.stderr


COUNTS = st.integers(2, 6).flatmap(lambda k: st.lists(st.lists(st.integers(0, 25), min_size=k, max_size=k),
                                                      min_size=1, max_size=40)).filter(lambda rows: sum(map(sum, rows)) > 0)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=COUNTS, seed=st.integers(0, 2**32 - 1))
def test_fit_is_finite_in_bounds_and_locally_optimal(rows, seed):
    c = np.array(rows)
    with warnings.catch_warnings():
        warnings.simplefilter('error', DirichletFitWarning)
        alpha = dirichlet_multinomial_mle(c)
    assert np.isfinite(alpha).all() and (alpha > 0).all()
    th = np.log(alpha)
    assert (th >= -20 - 1e-12).all() and (th <= 20 + 1e-12).all(), th
    ll = exact_ll(c, alpha)
    rng = np.random.default_rng(seed)
    for scale in (1e-3, 0.1, 1.0):  # random directions, kept inside the box: none gains more than rounding
        for _ in range(4):
            th2 = np.clip(th + scale * rng.normal(size=len(th)), -20, 20)
            assert exact_ll(c, np.exp(th2)) <= ll + 1e-9 * (1 + abs(ll)), (th, th2)


@settings(max_examples=60, deadline=None)
@given(rows=COUNTS, data=st.data())
def test_fixed_mean_concentration_is_in_bounds_and_locally_optimal(rows, data):
    c = np.array(rows)
    mean = np.array(data.draw(st.lists(st.floats(0.05, 1.0), min_size=c.shape[1], max_size=c.shape[1])))
    with warnings.catch_warnings():
        warnings.simplefilter('error', DirichletFitWarning)
        alpha = dirichlet_multinomial_mle(c, mean=mean)
    np.testing.assert_allclose(alpha / alpha.sum(), mean / mean.sum(), rtol=1e-12)
    ls = math.log(alpha.sum())
    assert -10 - 1e-9 <= ls <= 20 + 1e-9
    ll = exact_ll(c, alpha)
    for d in (-0.5, -1e-3, 1e-3, 0.5):
        s = math.exp(min(max(ls + d, -10), 20))
        assert exact_ll(c, s * mean / mean.sum()) <= ll + 1e-9 * (1 + abs(ll))


def test_no_overdispersion_stops_at_the_bound_without_warning():
    "One shared p: the likelihood grows with the concentration forever; the fit stops at exp(20) and does not warn."
    rng = np.random.default_rng(2)
    c = rng.multinomial(20, [0.5, 0.3, 0.2], size=400)
    with warnings.catch_warnings():
        warnings.simplefilter('error', DirichletFitWarning)
        alpha = dirichlet_multinomial_mle(c)
    assert np.log(alpha).max() == pytest.approx(20)
    np.testing.assert_allclose(alpha / alpha.sum(), c.sum(0) / c.sum(), atol=0.01)


@pytest.mark.parametrize('mean, message', [([0.5, 0.5, 0.0], 'positive'), ([1.0, 2.0], '3 finite'), ([1.0, np.nan, 1.0], 'finite')])
def test_bad_mean_raises(mean, message):
    with pytest.raises(ValueError, match=message):
        dirichlet_multinomial_mle(np.array([[3, 1, 0], [0, 4, 1]]), mean=mean)


@pytest.mark.parametrize('mean', [None, [1, 1]])
def test_counts_beyond_2_53_always_warn(mean):
    "Found in review: mixed rows with counts of 2**60 returned the starting point [1, 1] without a warning."
    c = np.array([[2**60, 3], [2**59, 2**59], [5, 2**60]], dtype=float)
    with pytest.warns(DirichletFitWarning, match='exceed 2\\*\\*53'):
        dirichlet_multinomial_mle(c, mean=mean)
