"""Latent trait model: published LSAT fit, girth cross-check, brute-force integration, recovery, bad input."""
import itertools, warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from scipy import integrate, stats
from scipy.special import expit

from scruples.traits import (LatentTraitModel, compare_traits, lsat6, margin_fit, n_parameters, quadrature,
                             response_patterns, simulate_responses, calibrate_intercepts, varimax, marginal_loglik)
from scruples.paper import published


@pytest.fixture(scope='module')
def lsat(): return lsat6()


@pytest.fixture(scope='module')
def lsat_fit(lsat): return LatentTraitModel(1).fit(lsat)


def brute_loglik(W, b, Y):
    "Log-likelihood of complete or partly missing binary rows by adaptive scipy integration (d = 1 or 2)."
    d, total = W.shape[1], 0.0
    for y in Y:
        obs = ~np.isnan(y)
        def lik(*z):
            p = expit(W[obs] @ np.array(z) + b[obs])
            return np.prod(np.where(y[obs] == 1, p, 1 - p)) * np.prod(stats.norm.pdf(z))
        if d == 1: val = integrate.quad(lik, -12, 12, epsabs=1e-13, epsrel=1e-11, limit=200)[0]
        else:                                      # trapezoid rule on a fine grid: spectrally accurate here
            g = np.linspace(-9, 9, 801); h = g[1] - g[0]
            z1, z2 = np.meshgrid(g, g, indexing='ij')
            p = expit(z1[..., None] * W[obs, 0] + z2[..., None] * W[obs, 1] + b[obs])
            dens = np.prod(np.where(y[obs] == 1, p, 1 - p), -1) * stats.norm.pdf(z1) * stats.norm.pdf(z2)
            val = dens.sum() * h * h
        total += np.log(val)
    return total


# --- the published fit -------------------------------------------------------------------------------------
def test_lsat_data(lsat):
    assert lsat.shape == (1000, 5)
    assert lsat.mean().round(3).tolist() == [0.924, 0.709, 0.553, 0.763, 0.870]


def test_lsat_matches_ltm(lsat_fit):
    ref = published('LSAT 2PL', 'ltm').set_index(['row', 'column']).value
    assert round(lsat_fit.loglik_, 3) == ref['Model', 'log.Lik']
    assert round(lsat_fit.aic_, 3) == ref['Model', 'AIC']
    assert round(lsat_fit.bic_, 3) == ref['Model', 'BIC']
    w, b = lsat_fit.weights_[:, 0], lsat_fit.intercepts_
    for j in range(5):
        assert abs(w[j] - ref[f'Item {j + 1}', 'Dscrmn']) < 0.003
        assert abs(-b[j] / w[j] - ref[f'Item {j + 1}', 'Dffclt']) < 0.003


def test_lsat_map_scores_at_ltm_parameters(lsat_fit):
    from scruples.traits import map_scores
    ref = published('LSAT 2PL', 'ltm').set_index(['row', 'column']).value
    a = np.array([ref[f'Item {j}', 'Dscrmn'] for j in range(1, 6)])
    dif = np.array([ref[f'Item {j}', 'Dffclt'] for j in range(1, 6)])
    Y = np.array([[0.] * 5, [1.] * 5])
    z, se = map_scores(a[:, None], -a * dif, Y, np.ones_like(Y))
    s = published('LSAT scores', 'ltm').set_index(['row', 'column']).value
    np.testing.assert_allclose([z[0, 0], se[0, 0], z[1, 0], se[1, 0]],
                               [s['00000', 'z1'], s['00000', 'se.z1'], s['11111', 'z1'], s['11111', 'se.z1']], atol=5e-4)


# --- girth -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize('which', ['lsat', 'sim'])
def test_one_trait_agrees_with_girth(lsat, which):
    girth = pytest.importorskip('girth')
    w = np.random.default_rng(5).uniform(0.5, 2.0, (10, 1))          # girth bounds discriminations to be positive
    Y = lsat.to_numpy(float) if which == 'lsat' else simulate_responses(1000, 10, 1, weights=w, seed=5)[0]
    m = LatentTraitModel(1).fit(Y)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        g = girth.twopl_mml(Y.T.astype(int))
    a, dif = g['Discrimination'], g['Difficulty']
    P, f, _ = response_patterns(Y)
    ll_girth = marginal_loglik(a[:, None], -a * dif, P, np.ones_like(P), f, *quadrature(1), grad=False)[0]
    assert m.loglik_ >= ll_girth - 1e-6            # our optimum is at least as high
    assert m.loglik_ - ll_girth < 0.01             # and the same optimum
    np.testing.assert_allclose(m.weights_[:, 0], a, atol=0.01)
    np.testing.assert_allclose(-m.intercepts_ / m.weights_[:, 0], dif, atol=0.02)


# --- exactness: brute-force integration --------------------------------------------------------------------
@pytest.mark.parametrize('d', [1, 2])
def test_quadrature_matches_brute_force(d):
    rng = np.random.default_rng(d)
    W, b = rng.normal(0, 1.2, (4, d)), rng.normal(0, 1, 4)
    Y = np.array(list(itertools.product([0., 1.], repeat=4)))
    Y[3, 1] = np.nan                               # a missing response, marginalized
    P, f, _ = response_patterns(Y)
    M = (~np.isnan(P)).astype(float)
    ours = marginal_loglik(W, b, np.nan_to_num(P), M, f, *quadrature(d), grad=False)[0]
    fine = marginal_loglik(W, b, np.nan_to_num(P), M, f, *quadrature(d, 61, prune=0), grad=False)[0]
    brute = brute_loglik(W, b, Y)
    assert abs(ours - brute) < (1e-7 if d == 1 else 1e-4)     # the default rule (51 x 51 pruned at 1e-6 for d = 2)
    assert abs(fine - brute) < 1e-6                          # a finer rule converges to the brute-force value


def test_fitted_loglik_matches_brute_force():
    Y = simulate_responses(60, 4, 1, seed=2)[0]
    m = LatentTraitModel(1).fit(Y)
    assert abs(m.loglik_ - brute_loglik(m.weights_, m.intercepts_, Y)) < 1e-7
    assert abs(m.score_samples(Y).sum() - m.loglik_) < 1e-8


def test_missing_is_marginalized_not_dropped():
    Y = simulate_responses(200, 5, 1, seed=1)[0]
    m = LatentTraitModel(1).fit(Y)
    Ym = Y.copy(); Ym[0, 2] = np.nan
    both = [Ym[0].copy(), Ym[0].copy()]; both[0][2], both[1][2] = 0, 1
    lp = m.score_samples(np.array([Ym[0], both[0], both[1]]))
    assert np.isclose(np.exp(lp[0]), np.exp(lp[1]) + np.exp(lp[2]), rtol=1e-10)
    mm = LatentTraitModel(1).fit(simulate_responses(300, 6, 1, missing=0.15, seed=0)[0])
    assert np.isfinite(mm.loglik_) and np.isnan(mm.deviance_)


def test_gradient_qmc_and_d4():
    Y = simulate_responses(300, 8, 4, seed=0)[0]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        m = LatentTraitModel(4, n_points=1024).fit(Y)
    assert m.weights_.shape == (8, 4) and np.isfinite(m.loglik_)
    assert np.allclose(np.triu(m.weights_[:4], 1), 0)          # lower-triangular rotation


# --- recovery and model choice ------------------------------------------------------------------------------
@pytest.mark.parametrize('d', [1, 2, 3])
def test_parameter_recovery(d):
    Y, W, b = simulate_responses(1000, 20, d, seed=10 + d)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        m = LatentTraitModel(d).fit(Y)
    G, Gt = m.weights_ @ m.weights_.T, W @ W.T                  # rotation-invariant
    assert np.corrcoef(G.ravel(), Gt.ravel())[0, 1] > 0.9
    assert np.median(np.abs(m.intercepts_ - b)) < 0.25
    assert np.all(np.diag(m.weights_[:d, :d]) >= 0)


def test_bic_picks_the_number_of_traits():
    Y = simulate_responses(1000, 12, 2, seed=4)[0]
    tab = compare_traits(Y, max_traits=3)
    assert tab.n_traits[tab.BIC.idxmin()] == 2
    assert (np.diff(tab.loglik) > -1e-3).all()
    assert tab.pct_D.iloc[0] == 0 and (tab.pct_D.iloc[1:] > 0).all()


def test_margins_and_scores(lsat, lsat_fit):
    one, two = margin_fit(lsat_fit, lsat)
    assert len(two) == 10 and np.allclose(one.observed, one.expected, atol=0.5)
    eap, mp = lsat_fit.transform(lsat), lsat_fit.transform(lsat, 'map')
    assert eap.shape == (1000, 1) and np.corrcoef(eap[:, 0], mp[:, 0])[0, 1] > 0.99
    s = lsat_fit.scores(lsat)
    assert (s.se_z1 > 0).all() and (s.se_z1 < 1).all()


def test_independence_model(lsat):
    m = LatentTraitModel(0).fit(lsat)
    p = lsat.mean().to_numpy()
    assert np.isclose(m.loglik_, 1000 * (p * np.log(p) + (1 - p) * np.log(1 - p)).sum())
    assert m.n_params_ == 5 == n_parameters(5, 0)


def test_varimax_orthogonal():
    W = np.random.default_rng(0).normal(size=(10, 3))
    Wr, R = varimax(W)
    assert np.allclose(R @ R.T, np.eye(3)) and np.allclose(W @ R, Wr)


def test_calibrate_intercepts():
    W = np.array([[1., 0.], [2., 1.]])
    b = calibrate_intercepts([0.3, 0.8], W)
    Y = simulate_responses(200_000, 2, 2, weights=W, intercepts=b, seed=0)[0]
    assert np.allclose(Y.mean(0), [0.3, 0.8], atol=0.005)


# --- bad input ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize('Y,err,msg', [
    ([[0, 2], [1, 0]], ValueError, 'row 0, column 1'),
    ([[0, 1], [1, 1], [0, 1]], ValueError, 'constant'),
    ([[0, 1, 1]], ValueError, 'at least 2 respondents'),
    ([[0, np.nan], [1, np.nan]], ValueError, 'no observed'),
    ('0101', TypeError, 'string'),
    ([0, 1, 1], ValueError, '2-D'),
    ([['a', 'b'], ['c', 'd']], ValueError, 'numeric'),
])
def test_bad_input(Y, err, msg):
    with pytest.raises(err, match=msg): LatentTraitModel(1).fit(Y)


def test_too_many_traits(lsat):
    with pytest.raises(ValueError, match='cannot be identified'): LatentTraitModel(5).fit(lsat)
    with pytest.warns(UserWarning, match='distinct response patterns'):
        LatentTraitModel(1).fit(np.array([[0, 1, 0, 1], [1, 0, 1, 1], [1, 1, 0, 0], [0, 0, 1, 0], [1, 1, 1, 0]], float))
    m = LatentTraitModel(2).fit(lsat)                       # fits, within reason
    with pytest.raises(ValueError, match='expected 5 questions'): m.transform(np.zeros((2, 4)))


# --- properties ----------------------------------------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 60), J=st.integers(2, 6))
def test_patterns_roundtrip_and_permutation_invariance(seed, n, J):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, J)) < 0.5).astype(float)
    Y[rng.random(Y.shape) < 0.1] = np.nan
    P, f, idx = response_patterns(Y)
    assert f.sum() == n
    np.testing.assert_array_equal(np.nan_to_num(P[idx], nan=-1), np.nan_to_num(Y, nan=-1))
    W, b = rng.normal(size=(J, 1)), rng.normal(size=J)
    P2, f2, _ = response_patterns(Y[rng.permutation(n)])
    ll = lambda P, f: marginal_loglik(W, b, np.nan_to_num(P), (~np.isnan(P)).astype(float), f, *quadrature(1), grad=False)[0]
    assert np.isclose(ll(P, f), ll(P2, f2), rtol=1e-12)


@pytest.mark.parametrize('shared', [True, False])
def test_complete_fast_path_matches_masked(shared):
    rng = np.random.default_rng(0)
    Y = (rng.random((50, 5)) < 0.5).astype(float)
    P, f, _ = response_patterns(Y)
    W, b = rng.normal(size=(5, 2)), rng.normal(size=5)
    Z, lw = quadrature(2, 9)
    if not shared: Z, lw = np.repeat(Z[None] * 0.8, len(P), 0), np.repeat(lw[None], len(P), 0)
    fast, masked = marginal_loglik(W, b, P, None, f, Z, lw), marginal_loglik(W, b, P, np.ones_like(P), f, Z, lw)
    for a, m in [(fast[0], masked[0]), (fast[3], masked[3]), (fast[4], masked[4])]: np.testing.assert_allclose(a, m, rtol=1e-12)


# issue 22 items 8 and 18: settings validated; a one-node rule cannot pass its own accuracy check
def test_bad_settings_are_clear_errors():
    with pytest.raises(TypeError, match='n_traits must be an integer >= 0, got 1.5'): LatentTraitModel(n_traits=1.5)
    with pytest.raises(ValueError, match='n_points must be an integer >= 2'): LatentTraitModel(1, n_points=1)
    with pytest.raises(ValueError, match='n_adaptive_points'): LatentTraitModel(1, n_adaptive_points=0)

def test_coarse_rule_is_caught_by_a_different_finer_rule():
    with pytest.warns(UserWarning, match='quadrature rule is off'):
        m = LatentTraitModel(1, n_points=2).fit(lsat6())
    assert m.quadrature_gap_ > 0.01


# issue 23: the default 2-trait rule is accurate to 0.01 in log-likelihood on the default simulated problem
def test_default_two_trait_rule_accurate():
    import warnings
    Y = simulate_responses(1000, 20, 2, seed=3)[0]
    with warnings.catch_warnings():
        warnings.simplefilter('error', UserWarning)  # no 'quadrature rule is off' warning
        m = LatentTraitModel(2).fit(Y)
    P, f, _ = response_patterns(Y)
    dense = marginal_loglik(m.weights_, m.intercepts_, P, None, f, *quadrature(2, 121, prune=0), grad=False)[0]
    assert abs(m.loglik_ - dense) < 0.01 and m.quadrature_gap_ < 0.01
