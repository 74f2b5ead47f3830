"""BEST with a prior chosen to fit the data (issue 41): on votes from non-Dirichlet item distributions the ceiling lands
on the true oracle score and its interval covers it; on Dirichlet votes nothing changes; the result says which prior and
what the posterior predictive check found."""

import numpy as np
import pytest

from scruples.best import HARD_METRICS, best, best_estimates, oracle_scores, simulate_items
from scruples.priors import Prior, check_prior, choose_prior


def _study(scenario, n_sims, seed, prior='auto', n=1500, votes=(3, 7), k=3):
    "Per dataset: (true, estimate, ci_low, ci_high) of accuracy and macro F1, and the prior chosen."
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_sims):
        p, c = simulate_items(scenario, n, k, rng, votes)
        true = oracle_scores(p, c)
        r = best(c, metrics=HARD_METRICS, n_samples=400, n_boot=80, seed=int(rng.integers(2**31)), prior=prior,
                 check=False)
        out.append(({m: (true[m], *r.loc[m, ['estimate', 'ci_low', 'ci_high']]) for m in HARD_METRICS},
                    r.attrs['prior']))
    return out


@pytest.mark.parametrize('scenario,k', [('three kinds', 3), ('camps', 2)])
def test_ceiling_lands_on_the_truth_and_covers_it_without_a_dirichlet(scenario, k):
    runs = _study(scenario, n_sims=5, seed={'three kinds': 1, 'camps': 2}[scenario], k=k)
    assert all(chosen == 'npmle' for _, chosen in runs)
    for m in HARD_METRICS:
        rows = np.array([r[m] for r, _ in runs])  # true, estimate, lo, hi
        err = np.abs(rows[:, 1] - rows[:, 0]).mean()
        covered = ((rows[:, 2] <= rows[:, 0]) & (rows[:, 0] <= rows[:, 3])).mean()
        assert err <= 0.02, (scenario, m, err)
        assert covered >= 0.8, (scenario, m, covered)  # 5 datasets: >= 90% coverage shows as 4 or 5 of 5


def test_the_single_dirichlet_misses_two_camps():
    "The defect of issue 41: the paper's prior puts the ceiling far from the truth on two camps."
    runs = _study('camps', n_sims=2, seed=2, prior='dirichlet', k=2)
    err = np.mean([abs(r['accuracy'][1] - r['accuracy'][0]) for r, _ in runs])
    assert err > 0.03, err


def test_auto_keeps_the_dirichlet_and_its_estimates_on_dirichlet_votes():
    rng = np.random.default_rng(5)
    for _ in range(3):
        p, c = simulate_items('dirichlet', 1200, 3, rng, (1, 10))
        auto = best(c, n_samples=300, n_boot=20, seed=1)
        paper = best(c, n_samples=300, n_boot=20, seed=1, prior='dirichlet')
        assert auto.attrs['prior'] == 'dirichlet', auto.attrs['prior_reason']
        np.testing.assert_array_equal(auto.to_numpy(dtype=float), paper.to_numpy(dtype=float))


def test_the_result_says_which_prior_and_what_the_check_found():
    rng = np.random.default_rng(3)
    _, c = simulate_items('camps', 1500, 3, rng, (5, 10))
    res = best_estimates(c, metrics='accuracy', n_samples=200, n_boot=0)
    rows, alpha, vote = res  # unpacks as before
    assert res.prior.prior.kind == 'npmle' and 'held-out' in res.prior.reason
    assert res.check.verdict == 'good' and 'posterior predictive check' in res.check.line()
    assert len(alpha) == 3 and rows[0]['metric'] == 'accuracy'
    framed = best(c, metrics='accuracy', n_samples=200, n_boot=0)
    assert framed.attrs['prior'] == 'npmle' and framed.attrs['check_verdict'] == 'good'
    assert best(c, metrics='accuracy', n_samples=200, n_boot=0, check=False).attrs['check'] == ''


def test_the_check_flags_a_prior_that_does_not_fit():
    rng = np.random.default_rng(4)
    _, c = simulate_items('three kinds', 2000, 3, rng, (5, 10))
    alpha = choose_prior(c, 'dirichlet').prior.alpha
    poor = check_prior(Prior('dirichlet', alpha), c)
    assert poor.verdict == 'poor' and 'poorly' in poor.line(), poor
    assert check_prior(choose_prior(c, 'npmle').prior, c).verdict == 'good'


def test_bad_prior_choices_are_refused():
    c = np.array([[3, 1], [0, 4], [2, 2]] * 5)
    with pytest.raises(ValueError, match='prior must be one of'):
        best(c, prior='beta', n_boot=0, n_samples=10)
    with pytest.raises(ValueError, match="not 'npmle'"):
        best(c, alpha=[1.0, 1.0], prior='npmle', n_boot=0, n_samples=10)


def test_npmle_soft_metrics_are_exact_sums_and_the_interval_holds_the_estimate():
    rng = np.random.default_rng(6)
    _, c = simulate_items('three kinds', 800, 3, rng, (3, 7))
    ms = ['xentropy', 'manhattan', 'js', 'kl', 'wasserstein']
    fixed = best(c, metrics=ms, ordered=True, n_boot=40, prior='npmle', refit=False)
    assert (fixed.std_error == 0).all()  # held fixed: the exact sums, no correction
    res = best(c, metrics=ms, ordered=True, n_boot=40, prior='npmle')
    assert ((res.ci_low <= res.estimate) & (res.estimate <= res.ci_high)).all(), res
    # refitted: the sums corrected by the refits' bias, the correction's Monte Carlo error its standard error
    assert (res.std_error > 0).all() and (res.estimate >= fixed.estimate).all(), (res, fixed)
    assert 'corrected by their bootstrap bias' in res.attrs['prior_reason']


def _soft_truth(c, p):
    t = c / c.sum(1, keepdims=True)
    kl = (np.where(t > 0, t * np.log(np.where(t > 0, t, 1) / p), 0)).sum(1).mean()
    return {'kl': float(kl), 'manhattan': float(np.abs(t - p).sum(1).mean())}


def test_soft_intervals_cover_the_oracle_score_on_these_items():
    """The soft metrics' target is the oracle's score on the items scored (knowing each p_i), as for the hard metrics:
    the interval adds the posterior spread of that score to the bootstrap's. A bootstrap over items alone measured the
    spread of a mean of posterior expectations, and covered KL and Manhattan far less often than its level (100 items
    of 6 votes from Dirichlet(3, 2, 1): 11 and 11 of 15 under the Dirichlet, 3 and 5 of 15 under the NPMLE, whose
    plug-in was optimistic by 0.02); the NPMLE's estimate is now corrected by its refits' bias."""
    covered, bias = {'dirichlet': [], 'npmle': []}, []
    for prior, reps, n_boot in (('dirichlet', 20, 100), ('npmle', 5, 60)):
        for rep in range(reps):
            rng = np.random.default_rng(200 + rep)
            p = rng.dirichlet([3, 2, 1], size=100)
            c = np.stack([rng.multinomial(6, q) for q in p])
            r = best(c, metrics=['kl', 'manhattan'], n_boot=n_boot, seed=rep, check=False, prior=prior)
            tr = _soft_truth(c, p)
            covered[prior] += [r.loc[m, 'ci_low'] <= tr[m] <= r.loc[m, 'ci_high'] for m in tr]
            if prior == 'npmle':
                bias.append(r.loc['kl', 'estimate'] - tr['kl'])
    assert np.mean(covered['dirichlet']) >= 0.9, covered
    assert np.mean(covered['npmle']) >= 0.8, covered
    assert np.mean(bias) > -0.012, bias


# --- the prior of a test split is chosen on every item of the file ---------------------------------------------------

def _cli(*args):
    import json, subprocess, sys
    r = subprocess.run([sys.executable, '-m', 'scruples.cli', *map(str, args)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr + r.stdout
    return json.loads(r.stdout)


def test_best_and_plan_on_the_test_split_choose_the_prior_on_every_item():
    """80 test items of the shipped replies alone keep the Dirichlet (1.3 s.e.); all 400 choose the NPMLE: `best` and
    `plan` on the test split (the default with a split column) use the prior chosen on every item of the file, and say so."""
    from importlib.resources import files
    f = files('scruples').joinpath('guide_data', 'replies_wide.csv')
    opts = ['--split', 'split', '--classes', 'fine,rude,abusive', '--text', 'text', '--json']
    on_test = _cli('best', f, *opts, '--samples', '500', '--bootstrap', '20')
    assert on_test['examples'] == 80 and on_test['prior'] == 'npmle', on_test['prior_reason']
    assert 'chosen and fitted on 400 items' in on_test['prior_reason']
    planned = _cli('plan', f, *opts, '--votes', '3')
    assert planned['pilot_items'] == 80 and planned['prior'] == 'npmle'
    assert 'chosen and fitted on 400 items' in planned['prior_reason']
    whole = _cli('best', f, *opts, '--on', 'all', '--samples', '500', '--bootstrap', '20')
    assert 'chosen and fitted on' not in whole['prior_reason']  # every item used: the prior is theirs already
    # the API: the same prior as choosing it on every item and giving it
    from scruples.annotations import read_annotated
    d = read_annotated(f, counts='fine,rude,abusive', text='text', split='split')
    test = np.flatnonzero(np.asarray(d.splits) == 'test')
    chosen = choose_prior(d.counts, seed=0).prior
    a = best(d.counts[test], n_samples=300, n_boot=10, prior_counts=d.counts)
    b = best(d.counts[test], n_samples=300, n_boot=10, prior=chosen)
    assert np.allclose(a.to_numpy(dtype=float), b.to_numpy(dtype=float))


@pytest.mark.parametrize('scenario,prior', [('dirichlet', 'dirichlet'), ('mixture', 'auto')])
def test_hard_intervals_cover_the_oracle_score_on_the_data(scenario, prior):
    """Accuracy's and macro F1's intervals come from the posterior draws of the oracle's score on these items (the
    quantity the estimate averages), so they cover the true oracle's score on the data at about their level. The old
    interval resampled the items' *expected* score and covered it in 50-65% of Dirichlet datasets (issue 41)."""
    rng = np.random.default_rng(5)
    hits = {m: [] for m in HARD_METRICS}
    for _ in range(20):
        p, c = simulate_items(scenario, 600, 3, rng, (1, 10))
        true = oracle_scores(p, c)
        r = best(c, metrics=HARD_METRICS, n_samples=600, n_boot=40, seed=int(rng.integers(2**31)), prior=prior,
                 check=False)
        for m in HARD_METRICS:
            lo, est, hi = r.loc[m, ['ci_low', 'estimate', 'ci_high']]
            assert lo <= est <= hi
            hits[m].append(lo <= true[m] <= hi)
    for m in HARD_METRICS:
        assert np.mean(hits[m]) >= 0.85, (m, np.mean(hits[m]))  # 20 datasets: 95% coverage shows as 17-20 of 20


# --- a class that is no item's most likely one (the argmax regions' likelihood-ratio test) ----------------------------

@pytest.mark.parametrize('scenario,k,seed', [('three kinds', 5, 11), ('camps', 3, 13), ('camps', 3, 15)])
def test_macro_f1_lands_on_the_truth_where_some_class_is_no_items_argmax(scenario, k, seed):
    """Three kinds of item over five classes (no item most likely class 2 or 3) and two camps over three (none class 2):
    the true oracle's F1 on those classes is 0, but the NPMLE kept 0.1-1% of its mass in their argmax regions and gave
    them an F1 of about 0.25: macro F1 +0.04 to +0.06 (interval missing the truth). `drop_regions` empties a region the
    data do not need (likelihood-ratio test), in the fit and in each bootstrap refit."""
    rng = np.random.default_rng(seed)
    errors, covered = [], []
    for _ in range(3):
        p, c = simulate_items(scenario, 1500, k, rng, (1, 10))
        true = oracle_scores(p, c)['macro_f1']
        r = best(c, metrics='macro_f1', n_samples=400, n_boot=40, seed=int(rng.integers(2**31)), check=False)
        assert r.attrs['prior'] == 'npmle'
        lo, est, hi = r.loc['macro_f1', ['ci_low', 'estimate', 'ci_high']]
        errors.append(est - true)
        covered.append(lo <= true <= hi)
    assert np.abs(errors).max() <= 0.02, errors
    assert np.mean(covered) >= 2 / 3, (errors, covered)


def test_the_region_test_keeps_every_region_with_real_mass():
    "On a mixture of Dirichlets every class is the argmax of many items: the test empties nothing, the fit is as before."
    from scruples.priors import fit_npmle
    rng = np.random.default_rng(13)
    for k in (2, 3, 5):
        _, c = simulate_items('mixture', 1500, k, rng, (1, 10))
        pr, plain = fit_npmle(c), fit_npmle(c, regions=False)
        np.testing.assert_array_equal(pr.weights, plain.weights)
        np.testing.assert_array_equal(pr.free, plain.weights)
        assert not (pr.region_lr < 3.84).any(), pr.region_lr  # nan: a region too heavy to test
        assert 'likelihood-ratio' not in pr.describe()


# --- support points tied between classes (the grid's boundaries, tied vote patterns) ---------------------------------

def test_a_support_point_tied_between_classes_counts_half_for_each():
    """The NPMLE's support holds points on the boundary between two argmax regions (1 in 7 of the 5-class grid; the shares
    of tied vote patterns): the oracle of (0.5, 0.5) is right half the time. The old code gave every tie to the first
    class, the class the majority vote's ties go to, so the ceiling's accuracy of items of two votes from (0.5, 0.5) was
    0.75, not 0.5; on mixtures over five classes the accuracy rose by about 0.01 (issue 41). (The interval's refits take
    the argmax the same way: the BEST notebook tests `_hard_draws`.)"""
    c = np.random.default_rng(0).multinomial(2, [0.5, 0.5], 2000)
    tie = Prior('npmle', np.ones(2), np.array([[0.5, 0.5], [0.9, 0.1]]), np.array([1.0, 1e-9]))
    r = best(c, metrics=HARD_METRICS, n_samples=2000, n_boot=20, prior=tie, check=False, seed=1)
    lo, est, hi = r.loc['accuracy', ['ci_low', 'estimate', 'ci_high']]
    assert abs(est - 0.5) < 0.02 and lo <= est <= hi < 0.6, (lo, est, hi)


def test_npmle_intervals_refit_once_per_resample_for_every_metric(monkeypatch):
    """Issue 41 (speed): accuracy, macro F1 and cross-entropy each drew their own resamples and refitted the NPMLE to
    each, three times the EM work of one interval's resamples (best on 1,500 items x 3 classes, idle: 6.5 s -> 4.2 s;
    100,000 items: 14.8 s -> 11.8 s, the posterior draws the rest). The refits are now shared; a metric's numbers still
    do not depend on the other metrics asked for."""
    import scruples.best as sb
    rng = np.random.default_rng(4)
    _, c = simulate_items('three kinds', 500, 3, rng, (1, 10))
    calls = []
    real = sb.refit_weights
    monkeypatch.setattr(sb, 'refit_weights', lambda pr, lik, mult, **k: calls.append(len(mult)) or real(pr, lik, mult, **k))
    full = best(c, n_boot=20, n_samples=300, check=False)
    assert full.attrs['prior'] == 'npmle' and calls == [20], calls  # one batch of 20 refits, for the three metrics
    for ms in (['macro_f1'], ['xentropy', 'accuracy']):
        part = best(c, ms, n_boot=20, n_samples=300, check=False)
        assert part.to_numpy().tolist() == full.loc[ms].to_numpy().tolist()


def test_npmle_refits_fit_each_resample_as_the_data_were_fitted():
    """Issue 41 (coverage): the bootstrap refits warm-started EM at the fitted weights and took 30 steps, so they barely
    left the fit and the interval missed the prior's own estimation error (mixture, 3 classes, 20 datasets: 80% coverage;
    95% with refits from scratch). Each resample's weights are now fitted as `fit_npmle` fits the data's: EM from
    uniform weights (one batch of matrix products over the resamples), then the argmax regions tested again. Checked
    against that fit done one resample at a time, and the spread of the refits against the warm-started one's."""
    from scruples.priors import argmax_shares, fit_npmle, pattern_likelihoods, refit_weights
    rng = np.random.default_rng(0)
    _, c = simulate_items('mixture', 1500, 3, rng, (1, 10))
    pr = fit_npmle(c)
    pat, inv = np.unique(c, axis=0, return_inverse=True)
    lik = pattern_likelihoods(pr, pat)
    mult = np.array([np.bincount(inv.ravel(), weights=np.bincount(rng.integers(0, 1500, 1500), minlength=1500),
                                 minlength=len(pat)) for _ in range(12)])
    got = refit_weights(pr, lik, mult)
    for m, w in zip(mult[:4], got):  # one batch = one resample at a time, to EM's precision: a row stops where its
        # gain falls below the tolerance, and the last bits of one row's products and a batch's differ (by BLAS's
        # kernel and threads), so a row may take one step more: 5.5e-6 seen on one BLAS thread, 9e-7 on two
        assert np.abs(w - refit_weights(pr, lik, m[None])[0]).max() < 5e-5
    plain = refit_weights(pr._replace(free=None), lik, mult[:4])  # without the region test: fit_npmle's EM itself
    for m, w in zip(mult[:4], plain):
        one = fit_npmle(np.repeat(pat, m.astype(int), axis=0), points=pr.points, alpha=pr.alpha, prune=0, regions=False)
        for f in (lambda pts: pts, argmax_shares):  # the mean distribution and the mass of each argmax region; both
            # stop where the log-likelihood gains less than 1e-6 per item, and agree to about that (4e-4 seen once)
            assert np.abs(w @ f(pr.points) - one.weights @ f(one.points)).max() < 1e-3
    warm = refit_weights(pr, lik, mult, max_iter=30, warm=True)  # 30 EM steps from the fitted weights
    top = argmax_shares(pr.points)
    spread = lambda w: (w @ top).std(0).sum()  # how far the refits' argmax masses move between resamples
    assert spread(got) > spread(warm)


def test_pattern_resamples_are_the_examples_bootstrap_summed_per_pattern():
    """Issue 43 (speed): the refits drew n multiplicities per resample (one per example) and summed them per vote
    pattern; they now draw the patterns' multiplicities directly, Multinomial(n, freq / n): the same distribution
    (the multinomial's sums over groups), O(patterns) a resample (best on 100,000 items: 12.0 s -> 9.2 s). Checked
    against the examples' bootstrap: the mean, variance and covariance of each pattern's multiplicity."""
    import scruples.best as sb
    freq = np.array([50.0, 30.0, 15.0, 5.0])
    inv = np.repeat(np.arange(4), freq.astype(int))
    rng = np.random.default_rng(0)
    ours = np.asarray(list(sb._pattern_resamples(freq, 20000, rng)))
    items = np.array([np.bincount(inv, weights=w, minlength=4) for w in sb._resamples(100, 20000, rng)])
    n, p = freq.sum(), freq / freq.sum()
    for m in (ours, items):
        assert m.shape == (20000, 4) and (m.sum(1) == n).all()
        np.testing.assert_allclose(m.mean(0), freq, rtol=0.02)
        np.testing.assert_allclose(np.cov(m.T), n * (np.diag(p) - np.outer(p, p)), atol=0.6)
    big = sb._pattern_resamples(freq, sb._BATCH_ELEMENTS, rng)  # past the batch size: one resample at a time
    assert not isinstance(big, np.ndarray) and next(big).sum() == n


def test_npmle_intervals_cover_the_truth_where_the_prior_is_biased():
    """Issue 41 (coverage): on three kinds of item over two classes (a split kind of 0.4 / 0.6 beside the border between
    the classes) the NPMLE's ceiling sits about 0.01 above the true oracle's score, one standard deviation of the
    estimate, and resampling the items does not see it (every refit carries it): the refitted draws covered the truth in
    10 of these 12 datasets (75-80% in the larger study). The interval now adds how far the score moves among priors the
    votes fit within a calibrated likelihood-ratio threshold (`_profile_interval`): 11 of 12 here. Its walk now settles
    at each lambda (`PROFILE_TOL`): with ten fixed steps it lagged, and covered 0.85 of 40 datasets in the study; 0.95
    now."""
    rng = np.random.default_rng(41)
    hits = {m: [] for m in HARD_METRICS}
    for _ in range(12):
        p, c = simulate_items('three kinds', 1500, 2, rng, (1, 10))
        true = oracle_scores(p, c)
        r = best(c, metrics=HARD_METRICS, n_samples=1000, n_boot=100, seed=int(rng.integers(2**31)), check=False)
        assert r.attrs['prior'] == 'npmle'
        for m in HARD_METRICS:
            lo, est, hi = r.loc[m, ['ci_low', 'estimate', 'ci_high']]
            assert lo <= est <= hi and abs(est - true[m]) <= 0.03
            hits[m].append(lo <= true[m] <= hi)
    for m in HARD_METRICS:
        assert np.mean(hits[m]) >= 11 / 12, (m, hits[m])


def test_where_the_votes_cannot_tell_the_priors_apart_the_interval_spans_both():
    """A mixture of two Dirichlets over two classes, 600 items: `auto` keeps the single Dirichlet where the NPMLE
    predicts held-out votes better by less than 2 standard errors, and the Dirichlet's accuracy interval alone (no
    profile: the prior's shape held fixed) covered the true oracle's score in about 60% of such datasets (14 of 24). The
    interval now spans the NPMLE's too, and covers it; the estimate stays the Dirichlet's."""
    from scruples.best import UNDECIDED_NOTE

    hits, alone = {m: [] for m in HARD_METRICS}, {m: [] for m in HARD_METRICS}
    for seed in (3, 4, 5, 7, 9, 15):  # the first six seeds where `auto` keeps the Dirichlet with the NPMLE ahead
        p, c = simulate_items('mixture', 600, 2, np.random.default_rng(seed))
        true = oracle_scores(p, c)
        auto, paper = (best(c, HARD_METRICS, n_samples=600, n_boot=40, seed=seed, prior=pr, check=False)
                       for pr in ('auto', 'dirichlet'))
        assert auto.attrs['prior'] == 'dirichlet' and UNDECIDED_NOTE in auto.attrs['prior_reason'], auto.attrs
        np.testing.assert_array_equal(auto.estimate.to_numpy(), paper.estimate.to_numpy())
        assert (auto.ci_low <= paper.ci_low).all() and (auto.ci_high >= paper.ci_high).all()
        for m in HARD_METRICS:
            hits[m].append(auto.loc[m, 'ci_low'] <= true[m] <= auto.loc[m, 'ci_high'])
            alone[m].append(paper.loc[m, 'ci_low'] <= true[m] <= paper.loc[m, 'ci_high'])
    for m in HARD_METRICS:
        assert np.mean(hits[m]) >= 5 / 6, (m, hits[m])
    assert np.mean(alone['accuracy']) < np.mean(hits['accuracy']), alone  # what the rule is for
