"""Tests of scruples.likelihoods: the losses against direct numpy/scipy formulas, gradients, limits and
relations between the losses, recovery of known Dirichlet parameters, the uncertainty split, bad inputs."""
import itertools
import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st
from scipy import special, stats

from scruples.data import label_counts
from scruples.dirichlet import dirichlet_multinomial_mle
from scruples.corpus import load_dilemmas
from scruples.likelihoods import (CountsLoss, DirichletMultinomialLoss, HardLoss, SoftLoss, check_logits_counts,
                                  dirichlet_mean, dirichlet_multinomial_nll, dirichlet_uncertainty, fit_constant_logits,
                                  log_multinomial_coefficient, log_rising_factorial, plot_class_probability)

LOSSES = (HardLoss, SoftLoss, CountsLoss, DirichletMultinomialLoss)
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def case(seed, n=40, k=5, max_count=30, scale=3.0):
    "Random float64 logits in [-scale, scale] and integer counts with at least one annotation per example."
    rng = np.random.default_rng(seed)
    z = rng.uniform(-scale, scale, size=(n, k))
    c = rng.integers(0, max_count + 1, size=(n, k))
    c[c.sum(1) == 0, rng.integers(k)] = 1
    return z, c


# ---- direct references, in numpy/scipy --------------------------------------------------------------------------

def log_softmax(z): return z - special.logsumexp(z, axis=1, keepdims=True)

def ref_hard(z, c): return -log_softmax(z)[np.arange(len(z)), c.argmax(1)]

def ref_soft(z, c): return -(c / c.sum(1, keepdims=True) * log_softmax(z)).sum(1)

def ref_counts(z, c): return -(c * log_softmax(z)).sum(1)

def ref_dm(z, c):
    "Exact DM negative log-likelihood written with gammaln (fine for moderate alpha, where nothing cancels)."
    a, n = np.exp(z), c.sum(1)
    return -(special.gammaln(n + 1) - special.gammaln(c + 1).sum(1) + special.gammaln(a.sum(1)) - special.gammaln(n + a.sum(1))
             + (special.gammaln(c + a) - special.gammaln(a)).sum(1))

REFERENCES = {HardLoss: ref_hard, SoftLoss: ref_soft, CountsLoss: ref_counts, DirichletMultinomialLoss: ref_dm}

def per_example(L, z, c, **kw):
    return L(reduction='none', **kw)(torch.as_tensor(z, dtype=torch.float64), torch.as_tensor(c)).numpy()

def exact_log_rising(x, n):
    "sum_{k<n} log(x + k), added without rounding error."
    return math.fsum(np.log(x + np.arange(n))) if n else 0.0


# ---- each loss against its formula ------------------------------------------------------------------------------

@pytest.mark.parametrize('L', LOSSES)
@pytest.mark.parametrize('seed', range(3))
def test_loss_matches_formula(L, seed):
    z, c = case(seed)
    np.testing.assert_allclose(per_example(L, z, c), REFERENCES[L](z, c), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('L', LOSSES)
def test_counts_may_be_int_float_or_numpy_and_float32_works(L):
    z, c = case(10, n=20)
    z64 = torch.tensor(z)
    ref = L()(z64, torch.tensor(c))
    for counts in (torch.tensor(c, dtype=torch.float64), torch.tensor(c, dtype=torch.int32), c, c.tolist()):
        torch.testing.assert_close(L()(z64, counts), ref)
    v32 = L()(z64.float(), torch.tensor(c))
    assert v32.dtype == torch.float32
    assert abs(v32.item() - ref.item()) <= 1e-5 * abs(ref.item())


def test_scipy_dirichlet_multinomial_agrees():
    if not hasattr(stats, 'dirichlet_multinomial'): pytest.skip('scipy < 1.11 has no dirichlet_multinomial')
    z, c = case(3, n=30, max_count=50)
    ours = per_example(DirichletMultinomialLoss, z, c)
    np.testing.assert_allclose(ours, -stats.dirichlet_multinomial.logpmf(c, np.exp(z), c.sum(1)), rtol=1e-12)
    # counts up to a million (moderate alpha, where scipy's plain gammaln is accurate)
    rng = np.random.default_rng(4)
    big = rng.integers(0, 10**6 + 1, size=(10, 4)); z = rng.uniform(-5, 5, size=(10, 4))
    ours = per_example(DirichletMultinomialLoss, z, big)
    assert np.isfinite(ours).all()
    # values near 100 are differences of terms near log N! ~ 3e7: both sides keep about 1e-8 absolute
    np.testing.assert_allclose(ours, -stats.dirichlet_multinomial.logpmf(big, np.exp(z), big.sum(1)), rtol=1e-9)
    for i in (0, 1):  # and ours against an exactly summed value
        a, y = np.exp(z[i]), big[i]
        exact = (sum(exact_log_rising(a[j], y[j]) - exact_log_rising(1.0, y[j]) for j in range(4))
                 - exact_log_rising(a.sum(), y.sum()) + exact_log_rising(1.0, y.sum()))
        assert abs(ours[i] + exact) < 1e-8


def test_dm_stable_at_extreme_logits_and_thousands_of_votes():
    "Logits in [-30, 30], counts in the thousands: against an exactly summed reference, in float64 and float32."
    rng = np.random.default_rng(5)
    z = rng.uniform(-30, 30, size=(8, 3)); z[0] = [30, 30, 30]; z[1] = [-30, -30, -30]
    c = rng.integers(0, 3000, size=(8, 3))
    a = np.exp(z)
    exact = np.array([sum(exact_log_rising(a[i, j], c[i, j]) for j in range(3)) - exact_log_rising(a[i].sum(), c[i].sum())
                      + math.lgamma(c[i].sum() + 1) - sum(math.lgamma(v + 1) for v in c[i]) for i in range(8)])
    ours = per_example(DirichletMultinomialLoss, z, c)
    np.testing.assert_allclose(ours, -exact, rtol=1e-12, atol=1e-9)
    ours32 = DirichletMultinomialLoss(reduction='none')(torch.tensor(z, dtype=torch.float32), torch.tensor(c)).numpy()
    np.testing.assert_allclose(ours32, -exact, rtol=1e-5, atol=1e-2)
    zt = torch.tensor(z, requires_grad=True)
    DirichletMultinomialLoss()(zt, torch.tensor(c)).backward()
    assert torch.isfinite(zt.grad).all()


@pytest.mark.parametrize('x', [1e-13, 0.3, 9.999, 10.0, 10.001, 250.0, 1e6, 1e13])
@pytest.mark.parametrize('n', [0, 1, 5, 1000, 20000])
def test_log_rising_factorial_exact(x, n):
    exact = exact_log_rising(x, n)
    ours = log_rising_factorial(torch.tensor(x, dtype=torch.float64), n).item()
    assert abs(ours - exact) <= 1e-13 * max(1.0, abs(exact))
    ours32 = log_rising_factorial(torch.tensor(x, dtype=torch.float32), n).item()
    assert abs(ours32 - exact) <= 1e-6 * max(1.0, abs(exact))


# ---- gradients ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('L', LOSSES)
def test_gradients_match_finite_differences(L):
    z, c = case(6, n=6, k=4, max_count=12)
    z[0] = [25.0, 24.0, -25.0, 10.0]  # include extreme and Stirling-branch logits
    zt = torch.tensor(z, requires_grad=True)
    ct = torch.tensor(c)
    assert torch.autograd.gradcheck(lambda z: L()(z, ct), (zt,))
    assert torch.autograd.gradcheck(lambda z: L(reduction='none')(z, ct), (zt,))


# ---- relations between the losses --------------------------------------------------------------------------------

def test_unanimous_hard_equals_soft_equals_counts_over_n():
    z, _ = case(7, n=30)
    rng = np.random.default_rng(7)
    n = rng.integers(1, 50, size=30)
    c = np.zeros((30, 5), dtype=np.int64); c[np.arange(30), rng.integers(0, 5, size=30)] = n
    hard, soft, cnt = (per_example(L, z, c) for L in (HardLoss, SoftLoss, CountsLoss))
    np.testing.assert_allclose(hard, soft, rtol=1e-13)
    np.testing.assert_allclose(cnt / n, soft, rtol=1e-13)


def test_dilemmas_counts_is_five_times_soft():
    df = load_dilemmas('dev')  # real when found, else synthetic: both have five gold annotations per dilemma
    c = label_counts(df)
    assert (c.sum(1) == 5).all()
    z = torch.randn(len(c), 2, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    torch.testing.assert_close(CountsLoss()(z, c), 5 * SoftLoss()(z, c))
    unanimous = torch.as_tensor(c.min(1) == 0)
    torch.testing.assert_close(HardLoss(reduction='none')(z, c)[unanimous], SoftLoss(reduction='none')(z, c)[unanimous])


def test_hard_ties_go_to_the_first_class():
    z = torch.tensor([[0.0, 1.0, 2.0], [3.0, 1.0, 0.0]], dtype=torch.float64)
    c = torch.tensor([[0, 4, 4], [2, 2, 2]])
    logp = torch.log_softmax(z, -1)
    torch.testing.assert_close(HardLoss(reduction='none')(z, c), -logp[[0, 1], [1, 0]])


def test_dm_with_one_annotation_is_categorical():
    z, _ = case(8, n=25)
    c = np.eye(5, dtype=np.int64)[np.random.default_rng(8).integers(0, 5, size=25)]
    np.testing.assert_allclose(per_example(DirichletMultinomialLoss, z, c), ref_hard(z, c), rtol=1e-12)


def test_dm_tends_to_multinomial_at_large_concentration():
    z, c = case(9, n=10, max_count=200)
    limit = ref_counts(z, c) - (special.gammaln(c.sum(1) + 1) - special.gammaln(c + 1).sum(1))
    np.testing.assert_allclose(per_example(DirichletMultinomialLoss, z + 30, c), limit, rtol=1e-9)
    gaps = [np.abs(per_example(DirichletMultinomialLoss, z + s, c) - limit).max() for s in (2, 6, 10, 14)]
    assert all(a > b for a, b in zip(gaps, gaps[1:]))


def test_dm_full_false_drops_the_coefficient():
    z, c = case(11)
    np.testing.assert_allclose(per_example(DirichletMultinomialLoss, z, c, full=False),
                               per_example(DirichletMultinomialLoss, z, c) + log_multinomial_coefficient(c).numpy(), rtol=1e-12)


@pytest.mark.parametrize('logits', [[0.7, -0.4, 1.2], [-20.0, 3.0, 25.0], [12.0, 12.0, 12.0]])
def test_dm_pmf_sums_to_one(logits):
    N = 7
    all_counts = torch.tensor([(a, b, N - a - b) for a in range(N + 1) for b in range(N + 1 - a)])
    z = torch.tensor([logits], dtype=torch.float64).expand(len(all_counts), -1)
    assert abs(torch.exp(-dirichlet_multinomial_nll(z, all_counts.double())).sum().item() - 1) < 1e-12


# ---- known parameters are recovered, and minimize the loss --------------------------------------------------------

def test_dm_expected_loss_is_minimal_at_the_truth_exactly():
    "Over all count vectors (N = 6, k = 3), E_truth[-log q] - E_truth[-log truth] is a KL divergence: > 0 off the truth."
    N = 6
    ys = torch.tensor([(a, b, N - a - b) for a in range(N + 1) for b in range(N + 1 - a)], dtype=torch.float64)
    truth = torch.tensor([0.3, -0.5, 1.0], dtype=torch.float64)
    nll = lambda z: dirichlet_multinomial_nll(z.expand(len(ys), -1), ys)
    p = torch.exp(-nll(truth))
    at_truth = (p * nll(truth)).sum()
    rng = np.random.default_rng(12)
    for _ in range(20):
        other = truth + torch.tensor(rng.normal(0, 0.3, size=3))
        assert (p * nll(other)).sum() > at_truth


def test_dm_recovers_known_parameters_from_simulated_data():
    "p_i ~ Dir(alpha_true), Y_i ~ Mult(N_i, p_i); fitting shared logits from a wrong start recovers log alpha_true."
    rng = np.random.default_rng(13)
    alpha_true = np.array([0.8, 2.5, 0.4])
    n = 4000
    totals = 1 + rng.poisson(8, size=n)
    counts = rng.multinomial(totals, rng.dirichlet(alpha_true, size=n))
    fit = fit_constant_logits(DirichletMultinomialLoss(), counts, init=[2.0, -1.0, 1.5])
    # tolerance from n: the asymptotic standard errors, the inverse Hessian of the summed NLL at the fit
    c = torch.tensor(counts, dtype=torch.float64)
    total = lambda z: DirichletMultinomialLoss(reduction='sum')(z.expand(n, -1), c)
    se = torch.linalg.inv(torch.autograd.functional.hessian(total, fit)).diagonal().sqrt().numpy()
    assert (se < 0.06).all()  # informative: n = 4000 pins each log alpha to a few hundredths
    assert (np.abs(fit.numpy() - np.log(alpha_true)) < 4 * se).all(), (fit, np.log(alpha_true), se)
    np.testing.assert_allclose(fit.exp().numpy(), dirichlet_multinomial_mle(counts), rtol=1e-3)  # same MLE as the data module
    # the truth beats parameters perturbed by a few standard errors, in every direction
    z_true = torch.tensor(np.log(alpha_true))
    at_truth = total(z_true)
    for j, sign in itertools.product(range(3), (-1, 1)):
        assert total(z_true + sign * 0.3 * torch.eye(3, dtype=torch.float64)[j]) > at_truth
    assert total(fit) <= at_truth


@pytest.mark.parametrize('L, closed_form', [
    (SoftLoss, lambda c: (c / c.sum(1, keepdims=True)).mean(0)),
    (CountsLoss, lambda c: c.sum(0) / c.sum()),
    (HardLoss, lambda c: np.bincount(c.argmax(1), minlength=c.shape[1]) / len(c))])
def test_constant_fit_has_its_closed_form(L, closed_form):
    _, c = case(14, n=300, k=3)
    np.testing.assert_allclose(torch.softmax(fit_constant_logits(L(), c), 0).numpy(), closed_form(c), atol=1e-6)


# ---- the Dirichlet head's mean and uncertainties ------------------------------------------------------------------

def test_dirichlet_mean_is_softmax():
    z, _ = case(15)
    zt = torch.tensor(z)
    torch.testing.assert_close(dirichlet_mean(zt), torch.softmax(zt, -1))
    np.testing.assert_allclose(dirichlet_mean(zt).numpy(), np.array([stats.dirichlet.mean(a) for a in np.exp(z)]), rtol=1e-13)
    torch.testing.assert_close(dirichlet_mean(zt + 7.0), dirichlet_mean(zt))


@pytest.mark.parametrize('alpha', [[0.4, 2.0, 1.1], [0.05, 0.05], [30.0, 5.0, 1.0, 0.5]])
def test_dirichlet_uncertainty_against_monte_carlo_and_scipy(alpha):
    alpha = np.array(alpha)
    u = dirichlet_uncertainty(np.log(alpha)[None]).iloc[0]
    p = np.random.default_rng(16).dirichlet(alpha, size=200_000)
    p = p[np.isfinite(p).all(1)]
    h = -special.xlogy(p, p).sum(1)
    assert abs(u.expected_entropy - h.mean()) < 4 * h.std() / np.sqrt(len(h))
    m = alpha / alpha.sum()
    assert abs(u.predictive_entropy - stats.entropy(m)) < 1e-12
    assert abs(u.mutual_information - (stats.entropy(m) - h.mean())) < 4 * h.std() / np.sqrt(len(h)) + 1e-12
    k = len(alpha)
    np.testing.assert_allclose(u[[f'mean_{j}' for j in range(k)]].to_numpy(float), stats.dirichlet.mean(alpha), rtol=1e-12)
    np.testing.assert_allclose(u[[f'sd_{j}' for j in range(k)]].to_numpy(float), np.sqrt(stats.dirichlet.var(alpha)), rtol=1e-12)
    assert u.concentration == pytest.approx(alpha.sum(), rel=1e-14)


def test_dirichlet_uncertainty_columns_and_large_concentration():
    u = dirichlet_uncertainty(torch.tensor([[0.0, 0.0], [30.0, 30.0]]), classes=('action_1', 'action_2'))
    assert list(u.columns) == ['mean_action_1', 'mean_action_2', 'sd_action_1', 'sd_action_2', 'concentration',
                               'predictive_entropy', 'expected_entropy', 'mutual_information']
    a = 2 * math.exp(30)
    assert u.mutual_information[1] == pytest.approx(1 / (2 * a), rel=1e-6, abs=0)  # (k - 1) / (2A), not rounding noise
    # where the plain formulas are still accurate (alpha >= 10: the series branch), they agree
    alpha = np.array([[12.0, 30.0, 70.0], [10.0, 10.5, 400.0]])
    m, A = alpha / alpha.sum(1, keepdims=True), alpha.sum(1)
    plain = stats.entropy(m, axis=1) + (m * (special.digamma(alpha + 1) - special.digamma(A + 1)[:, None])).sum(1)
    np.testing.assert_allclose(dirichlet_uncertainty(np.log(alpha)).mutual_information, plain, rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match='3 class names for 2 classes'): dirichlet_uncertainty(np.zeros((1, 2)), classes='abc')


# ---- reductions and bad inputs -------------------------------------------------------------------------------------

@pytest.mark.parametrize('L', LOSSES)
def test_reductions(L):
    z, c = case(17, n=12)
    zt, ct = torch.tensor(z), torch.tensor(c)
    none = L(reduction='none')(zt, ct)
    assert none.shape == (12,)
    torch.testing.assert_close(L(reduction='sum')(zt, ct), none.sum())
    torch.testing.assert_close(L()(zt, ct), none.mean())
    with pytest.raises(ValueError, match='reduction must be one of'): L(reduction='batchmean')


@pytest.mark.parametrize('L', LOSSES)
@pytest.mark.parametrize('logits, counts, error, match', [
    (torch.zeros(3, 2), torch.ones(3, 4), ValueError, r'same shape .* got \(3, 2\) and \(3, 4\)'),
    (torch.zeros(3, 2), torch.ones(2, 2), ValueError, 'same shape'),
    (torch.zeros(2, 3, 2), torch.ones(2, 3, 2), ValueError, 'must be 2-d'),
    (torch.zeros(2, 2), torch.tensor([[1, -2], [0, 3]]), ValueError, r'non-negative, got counts\[0, 1\] = -2'),
    (torch.zeros(2, 2), torch.tensor([[1.0, float('nan')], [0, 3]]), ValueError, 'finite'),
    (torch.zeros(2, 2, dtype=torch.long), torch.ones(2, 2), TypeError, 'floating point'),
    (np.zeros((2, 2)), torch.ones(2, 2), TypeError, 'torch.Tensor')])
def test_bad_inputs_raise(L, logits, counts, error, match):
    with pytest.raises(error, match=match): L()(logits, counts)


@pytest.mark.parametrize('L', (HardLoss, SoftLoss))
def test_rows_without_annotations_are_refused_by_hard_and_soft(L):
    with pytest.raises(ValueError, match=r'SoftLoss|HardLoss') as e:
        L()(torch.zeros(4, 2), torch.tensor([[1, 0], [0, 0], [2, 2], [0, 0]]))
    assert 'rows with zero counts: [1, 3]' in str(e.value)


@pytest.mark.parametrize('L', (CountsLoss, DirichletMultinomialLoss))
def test_rows_without_annotations_cost_nothing_for_counts_and_dm(L):
    z = torch.randn(2, 3, dtype=torch.float64)
    assert L(reduction='none')(z, torch.zeros(2, 3)).abs().max().item() == 0.0


# ---- properties ------------------------------------------------------------------------------------------------------

counts_rows = st.integers(1, 6).flatmap(lambda k: st.tuples(
    st.lists(st.lists(st.floats(-30, 30), min_size=k, max_size=k), min_size=1, max_size=8),
    st.lists(st.lists(st.integers(0, 5000), min_size=k, max_size=k), min_size=1, max_size=8)))

def _pair(data):
    z, c = data
    n = min(len(z), len(c))
    z, c = torch.tensor(z[:n], dtype=torch.float64), torch.tensor(c[:n])
    c[c.sum(1) == 0, 0] = 1
    return z, c


@FAST
@given(counts_rows)
def test_losses_are_non_negative(data):
    z, c = _pair(data)
    for L in LOSSES:  # cross-entropies of probabilities <= 1; the DM value is -log of a pmf
        assert (L(reduction='none')(z, c) >= -1e-9).all(), L.__name__


@FAST
@given(counts_rows, st.floats(-20, 20))
def test_softmax_losses_ignore_a_shift_of_the_logits(data, shift):
    z, c = _pair(data)
    for L in (HardLoss, SoftLoss, CountsLoss):
        torch.testing.assert_close(L(reduction='none')(z + shift, c), L(reduction='none')(z, c), rtol=1e-9, atol=1e-8)


@FAST
@given(counts_rows, st.integers(2, 50))
def test_soft_ignores_scaling_the_counts_and_counts_is_linear(data, factor):
    z, c = _pair(data)
    torch.testing.assert_close(SoftLoss(reduction='none')(z, factor * c), SoftLoss(reduction='none')(z, c))
    torch.testing.assert_close(CountsLoss(reduction='none')(z, factor * c), factor * CountsLoss(reduction='none')(z, c))


@FAST
@given(st.lists(st.floats(-30, 30), min_size=2, max_size=6))
def test_uncertainty_identities(logits):
    u = dirichlet_uncertainty(np.array([logits])).iloc[0]
    k = len(logits)
    assert -1e-12 <= u.expected_entropy <= u.predictive_entropy + 1e-12
    assert u.mutual_information >= 0
    assert u.predictive_entropy <= math.log(k) + 1e-12
    assert abs(u.expected_entropy + u.mutual_information - u.predictive_entropy) < 1e-9


# ---- plot ------------------------------------------------------------------------------------------------------------

def test_plot_class_probability_draws_the_beta_marginal():
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    alpha = np.array([5.98, 0.95])
    fig = plot_class_probability(alpha, 1, 'action 2')
    ax = fig.axes[0]
    x, y = ax.lines[0].get_data()
    np.testing.assert_allclose(y, stats.beta(0.95, 5.98).pdf(x))
    assert np.trapezoid(y, x) == pytest.approx(1, abs=0.01)
    assert ax.lines[1].get_xdata()[0] == pytest.approx(0.95 / (5.98 + 0.95))  # the mean
    assert 'action 2' in ax.get_xlabel()
    plot_class_probability(alpha, 0, ax=ax, label='other class')
    assert len(ax.lines) == 4
    with pytest.raises(ValueError, match='positive'): plot_class_probability([1.0, 0.0], 0)
    plt.close('all')


def test_check_logits_counts_converts_counts():
    z = torch.zeros(2, 3, dtype=torch.float32)
    _, c = check_logits_counts(z, np.array([[1, 2, 3], [0, 0, 1]]))
    assert c.dtype == torch.float32 and not c.requires_grad


# issue 22 item 8: float32 logits where exp overflows (>= 89) or underflows (<= -104) gave NaN
@pytest.mark.parametrize('z', [89.0, 100.0, 300.0, -120.0, -300.0])
def test_dirichlet_loss_finite_at_extreme_float32_logits(z):
    logits = torch.tensor([[z, 0.0], [z, z], [0.0, z]], requires_grad=True)
    counts = torch.tensor([[3, 2], [1, 4], [0, 5]])
    loss = DirichletMultinomialLoss(reduction='none')(logits, counts)
    loss.sum().backward()
    assert torch.isfinite(loss).all() and torch.isfinite(logits.grad).all()
    ref = DirichletMultinomialLoss(reduction='none')(logits.detach().double(), counts)
    np.testing.assert_allclose(loss.detach().double().numpy(), ref.numpy(), rtol=1e-5, atol=1e-3)


@given(st.floats(-400, 400), st.floats(0, 5000))
@FAST
def test_log_rising_factorial_of_log_matches_exp_form(log_x, n):
    from scruples.likelihoods import log_rising_factorial_of_log
    got = log_rising_factorial_of_log(torch.tensor(log_x, dtype=torch.float64), n).item()
    assert math.isfinite(got)
    if -30 < log_x < 30:
        want = log_rising_factorial(torch.tensor(math.exp(log_x), dtype=torch.float64), n).item()
        assert abs(got - want) <= 1e-9 * (1 + abs(want))


# issue 22 item 8: dirichlet_multinomial_mle returned its start value [1, 1] on counts without information
@pytest.mark.parametrize('counts, message', [(np.zeros((0, 2)), 'empty'), (np.zeros((3, 2)), 'no annotations'),
                                             (np.array([[3], [2]]), 'at least 2 classes'), (np.array([[1, np.nan]]), 'row 0')])
def test_dirichlet_mle_refuses_uninformative_counts(counts, message):
    with pytest.raises(ValueError, match=message): dirichlet_multinomial_mle(counts)
