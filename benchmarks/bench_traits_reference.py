"""Frozen reference for benchmarks/bench_traits.py: scruples.traits as it was when issue 23 was filed (commit 52a7f0a), unchanged but for the import of as_rng. Not part of the package; the 1-trait goal (>= 10x) is measured against it in the same run."""


# %% ../nbs/42_traits.ipynb #94354618
from __future__ import annotations
import warnings
from itertools import combinations, product
import numpy as np, pandas as pd
from scipy import optimize, stats
from scipy.special import expit, logsumexp
from threadpoolctl import threadpool_limits

from scruples.core import as_rng

# %% auto #0
__all__ = ['response_patterns', 'lsat6', 'quadrature', 'marginal_loglik', 'n_parameters', 'varimax', 'LatentTraitModel',
           'map_scores', 'irt_parameters', 'compare_traits', 'margin_fit', 'simulate_responses', 'calibrate_intercepts',
           'plot_weights', 'plot_scores', 'plot_deviance']

# %% ../nbs/42_traits.ipynb #d67b2fe7
def _check_responses(
    Y,                      # respondents x questions: 0/1 with NaN (or None / pd.NA) for a missing response
    min_respondents=2,      # fewer respondents than this is an error
) -> np.ndarray:            # float array with NaN for missing
    "Validate binary responses; errors say which row and column is wrong."
    if isinstance(Y, str): raise TypeError('responses must be a 2-D array of 0/1, not a string')
    if isinstance(Y, pd.DataFrame): Y = Y.astype('float64').to_numpy()
    try: Y = np.asarray(Y, dtype=float)
    except (TypeError, ValueError) as err: raise ValueError(f'responses must be numeric 0/1 (NaN for missing): {err}') from None
    if Y.ndim != 2: raise ValueError(f'responses must be 2-D (respondents x questions), got shape {Y.shape}')
    n, J = Y.shape
    if J < 1: raise ValueError('responses have no questions (columns)')
    if n < min_respondents: raise ValueError(f'need at least {min_respondents} respondents, got {n}')
    bad = ~np.isnan(Y) & (Y != 0) & (Y != 1)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(f'responses must be 0, 1 or NaN: row {i}, column {j} is {Y[i, j]!r} ({bad.sum()} such values)')
    return Y

def response_patterns(
    Y,                      # respondents x questions of 0/1, NaN for missing
) -> tuple:                 # (patterns: distinct rows with NaN kept, counts: how often each occurs, index: row -> pattern)
    "The distinct response patterns of `Y`, their frequencies and each respondent's pattern."
    Y = _check_responses(Y, min_respondents=1)
    code = np.where(np.isnan(Y), 2, Y).astype(np.int8)
    pats, index, counts = np.unique(code, axis=0, return_inverse=True, return_counts=True)
    pats = np.where(pats == 2, np.nan, pats.astype(float))
    return pats, counts.astype(float), index.ravel()

# %% ../nbs/42_traits.ipynb #0627863e
_LSAT6 = """00000 3;00001 6;00010 2;00011 11;00100 1;00101 1;00110 3;00111 4;01000 1;01001 8;01011 16;01101 3;
01110 2;01111 15;10000 10;10001 29;10010 14;10011 81;10100 3;10101 28;10110 15;10111 80;11000 16;11001 56;
11010 21;11011 173;11100 11;11101 61;11110 28;11111 298"""

def lsat6(
    expand: bool = True,    # True: one row per examinee (1,000 x 5); False: the 30 patterns with a `count` column
) -> pd.DataFrame:
    "LSAT section 6 (Bock and Lieberman 1970; `LSAT` in R's ltm): 1,000 examinees' right/wrong answers to 5 items."
    rows = [r.split() for r in _LSAT6.replace('\n', '').split(';')]
    pats = pd.DataFrame([[int(c) for c in p] for p, _ in rows], columns=[f'Item {j}' for j in range(1, 6)])
    pats['count'] = [int(c) for _, c in rows]
    if not expand: return pats
    return pats.loc[pats.index.repeat(pats['count'])].drop(columns='count').reset_index(drop=True)

# %% ../nbs/42_traits.ipynb #175e5912
_DEFAULT_POINTS = {1: 41, 2: 31, 3: 13}

def quadrature(
    n_traits: int,          # d, the dimension of the latent space
    n_points: int|None = None,  # GH: nodes per dimension (default 41, 31, 13 for d = 1, 2, 3); QMC: total nodes (default 4096)
    rule: str = 'auto',     # 'gh' (product Gauss-Hermite), 'qmc' (scrambled Sobol'), 'auto' (gh for d <= 3)
    seed=0,                 # seed of the Sobol' scrambling
    prune: float = 1e-12,   # GH: drop product nodes whose weight is below `prune` x the largest
) -> tuple:                 # (nodes: n x d, log_weights: n)
    "Nodes and log-weights of a rule for the expectation over a standard normal in `n_traits` dimensions."
    d = int(n_traits)
    if d < 0: raise ValueError(f'n_traits must be >= 0, got {n_traits}')
    if d == 0: return np.zeros((1, 0)), np.zeros(1)
    if rule == 'auto': rule = 'gh' if d <= 3 else 'qmc'
    if rule == 'gh':
        n = n_points or _DEFAULT_POINTS.get(d, 7)
        x, w = np.polynomial.hermite_e.hermegauss(n)
        lw = np.log(w / w.sum())
        nodes = np.array(list(product(x, repeat=d))) if d > 1 else x[:, None]
        logw = np.array([sum(t) for t in product(lw, repeat=d)]) if d > 1 else lw
        if d > 1 and prune:
            keep = logw >= logw.max() + np.log(prune)
            nodes, logw = nodes[keep], logw[keep] - logsumexp(logw[keep])
        return nodes, logw
    if rule == 'qmc':
        n = n_points or 4096
        m = int(np.ceil(np.log2(n)))
        u = stats.qmc.Sobol(d, scramble=True, seed=as_rng(seed)).random_base2(m)
        return stats.norm.ppf(u), np.full(2 ** m, -m * np.log(2))
    raise ValueError(f"rule must be 'auto', 'gh' or 'qmc', got {rule!r}")

# %% ../nbs/42_traits.ipynb #00f8c8a5
def marginal_loglik(
    W: np.ndarray,          # J x d weights
    b: np.ndarray,          # J intercepts
    Y0: np.ndarray,         # P x J responses with missing set to 0
    M: np.ndarray|None,     # P x J mask: 1 where observed (None: nothing missing)
    f: np.ndarray,          # P pattern frequencies
    Z: np.ndarray,          # nodes: Q x d (shared) or P x Q x d (one grid per pattern)
    logw: np.ndarray,       # log-weights: Q or P x Q
    grad: bool = True,      # also return the gradients
):
    "Marginal log-likelihood (total, per pattern, posterior node weights) or (total, per pattern, None, dW, db)."
    eta = Z @ W.T + b
    sp = np.logaddexp(0, eta)
    complete = M is None                                          # no missing responses: M is all ones
    if Z.ndim == 2: L = Y0 @ eta.T - (sp.sum(1) if complete else M @ sp.T) + logw
    elif complete: L = np.einsum('pj,pqj->pq', Y0, eta) - sp.sum(2) + logw
    else: L = np.einsum('pj,pqj->pq', Y0, eta) - np.einsum('pj,pqj->pq', M, sp) + logw
    mx = L.max(1, keepdims=True)
    E = np.exp(L - mx, out=L); s = E.sum(1, keepdims=True)
    ll_p = mx[:, 0] + np.log(s[:, 0])
    if not grad: return f @ ll_p, ll_p, E / s
    A = E * (f[:, None] / s)                                      # frequency x posterior node weight
    if complete and Z.ndim == 3: M = np.ones_like(Y0)
    if Z.ndim == 2:
        G = A.T @ Y0 - (A.sum(0)[:, None] if complete else A.T @ M) * expit(eta)   # Q x J
        gW, gb = G.T @ Z, G.sum(0)
    else:
        G = A[:, :, None] * (Y0[:, None, :] - M[:, None, :] * expit(eta))  # P x Q x J
        gW, gb = np.einsum('pqj,pqd->jd', G, Z), G.sum((0, 1))
    return f @ ll_p, ll_p, None, gW, gb                          # (posterior weights only without grad)

# %% ../nbs/42_traits.ipynb #964a42ec
def n_parameters(n_questions: int, n_traits: int) -> int:
    "Free parameters of the model with lower-triangular weights: J (d + 1) - d (d - 1) / 2."
    return n_questions * (n_traits + 1) - n_traits * (n_traits - 1) // 2

def varimax(
    W: np.ndarray,          # J x d weights
    normalize: bool = True, # Kaiser normalization (rows scaled to unit length while rotating)
    tol: float = 1e-10, max_iter: int = 1000,
) -> tuple:                 # (rotated weights, the orthogonal rotation R with rotated = W @ R)
    "Varimax rotation of a weight matrix (Kaiser 1958)."
    W = np.asarray(W, float); J, d = W.shape
    if d < 2: return W.copy(), np.eye(d)
    h = np.sqrt((W ** 2).sum(1, keepdims=True)) if normalize else np.ones((J, 1))
    h[h == 0] = 1
    A, R, obj = W / h, np.eye(d), 0.0
    for _ in range(max_iter):
        L = A @ R
        u, s, vt = np.linalg.svd(A.T @ (L ** 3 - L * (L ** 2).sum(0) / J))
        R = u @ vt
        if s.sum() < obj * (1 + tol): break
        obj = s.sum()
    return (A @ R) * h, R

# %% ../nbs/42_traits.ipynb #3232a60b
class LatentTraitModel:
    "The logistic latent trait model P(Y_j=1|Z) = sigmoid(w_j . Z + b_j), Z ~ N(0, I_d), by marginal maximum likelihood."
    def __init__(self,
                 n_traits: int = 1,         # d: number of latent traits (0: the independence model)
                 n_points: int|None = None, # nodes per dimension (GH) or in all (QMC); None: `quadrature`'s default
                 rule: str = 'auto',        # 'auto', 'gh' or 'qmc' (see `quadrature`)
                 adaptive: bool = False,    # refit twice with adaptive per-pattern GH grids (d <= 3)
                 n_adaptive_points: int|None = None,  # adaptive nodes per dimension (default 15, 11, 7 for d = 1, 2, 3)
                 n_starts: int|None = None, # optimizer starts, the best kept (default: 1 for d = 1, 3 beyond)
                 tol: float = 1e-8,         # L-BFGS-B gradient tolerance (on the mean log-likelihood)
                 max_iter: int = 2000,      # L-BFGS-B iteration limit per start
                 max_weight: float = 5.0,   # bound on |w_jk| (standardized loading 0.98): at the bound = a Heywood case (warned)
                 seed=0):                   # seed of the random starts and of the QMC rule
        self.n_traits, self.n_points, self.rule, self.adaptive = n_traits, n_points, rule, adaptive
        self.max_weight = max_weight
        self.n_adaptive_points, self.n_starts, self.tol, self.max_iter, self.seed = n_adaptive_points, n_starts, tol, max_iter, seed

    def _prepare(self, Y):
        P, f, index = response_patterns(Y)
        M = (~np.isnan(P)).astype(float)
        return P, np.nan_to_num(P), (None if M.all() else M), f, index

    def _grid(self):
        return quadrature(self.n_traits, self.n_points, self.rule, self.seed)

    def _unpack(self, theta, J, d):
        W = np.zeros((J, d)); W[self._mask] = theta[J:]
        return W, theta[:J]

    def _optimize(self, theta0, Y0, M, f, Z, logw, tol=None):
        J, d, n = Y0.shape[1], self.n_traits, f.sum()
        def fg(theta):
            W, b = self._unpack(theta, J, d)
            ll, _, _, gW, gb = marginal_loglik(W, b, Y0, M, f, Z, logw)
            return -ll / n, -np.r_[gb, gW[self._mask]] / n
        B = self.max_weight
        bounds = [(None, None)] * J + [(-B, B)] * int(self._mask.sum())
        res = optimize.minimize(fg, np.clip(theta0, [-np.inf] * J + [-B] * (len(theta0) - J), [np.inf] * J + [B] * (len(theta0) - J)),
                                jac=True, method='L-BFGS-B', bounds=bounds,
                                options=dict(maxiter=self.max_iter, gtol=tol or self.tol, ftol=1e-15, maxcor=20))
        return res

    def _starts(self, P, M, f, b0):
        J, d = P.shape[1], self.n_traits
        rng = as_rng(self.seed)
        # first start: leading eigenvectors of the (pairwise-complete) correlation matrix, lower-triangularized
        Yf = np.repeat(P, f.astype(int), 0) if np.allclose(f, np.round(f)) else P
        C = pd.DataFrame(Yf).corr().fillna(0).to_numpy() if J > 1 else np.eye(1)
        vals, vecs = np.linalg.eigh(C)
        W0 = 1.7 * vecs[:, ::-1][:, :d] * np.sqrt(np.clip(vals[::-1][:d], 1e-3, None) * 0.5)
        starts = [_lower(W0)]
        n_starts = self.n_starts or (1 if d == 1 else 3)
        for _ in range(n_starts - 1): starts.append(rng.normal(0, 0.7, (J, d)) * self._mask)
        return [np.r_[b0, W[self._mask]] for W in starts]

    def fit(self,
            Y,              # respondents x questions of 0/1, NaN for missing (array or DataFrame)
            y=None):        # ignored (scikit-learn convention)
        "Fit by marginal maximum likelihood; returns self."
        Y = _check_responses(Y)
        P, Y0, M, f, _ = self._prepare(Y)
        n, J = Y.shape; d = int(self.n_traits)
        self.n_respondents_, self.n_questions_ = n, J
        Mo = np.ones_like(P) if M is None else M
        obs = (f[:, None] * Mo).sum(0)
        if (obs == 0).any(): raise ValueError(f'question(s) {np.flatnonzero(obs == 0).tolist()} have no observed responses')
        rate = (f[:, None] * Y0).sum(0) / obs
        const = np.flatnonzero((rate == 0) | (rate == 1))
        if len(const): raise ValueError(f'question(s) {const.tolist()} are constant (every observed response is the same): '
                                        'their intercepts are infinite; drop them before fitting')
        if d < 0: raise ValueError(f'n_traits must be >= 0, got {d}')
        k = n_parameters(J, d)
        if d > 0 and (d >= J or k > 2 ** J - 1):
            raise ValueError(f'{d} traits cannot be identified from {J} questions: the model has {k} free parameters, '
                             f'more than the {2 ** J - 1} free cell probabilities of the saturated model (or d >= J)')
        if d > 0 and k >= len(P): warnings.warn(f'{k} parameters but only {len(P)} distinct response patterns: '
                                                'the fit is likely not identified')
        self._mask = np.tril(np.ones((J, d), bool))
        b0 = np.log(rate / (1 - rate))
        self.n_params_, self.adaptive_ = k, False
        with threadpool_limits(1, 'blas'):   # small matrices: one BLAS thread is faster and does not fight other work
            if d == 0:
                W, b = np.zeros((J, 0)), b0
                self.n_iter_, self.converged_, self.start_logliks_ = 0, True, []
            else: W, b = self._fit_traits(P, Y0, M, f, b0)
            self.weights_, self.intercepts_ = W, b
            self.loglik_ = self._loglik_patterns(P, Y0, M, f)[0]
        self.complete_ = M is None
        sat = f @ np.log(f / f.sum()) if self.complete_ else np.nan
        self.saturated_loglik_ = sat
        self.deviance_ = 2 * (sat - self.loglik_)
        self.df_ = 2 ** J - 1 - k if J <= 60 else np.nan
        self.aic_ = -2 * self.loglik_ + 2 * k
        self.bic_ = -2 * self.loglik_ + k * np.log(n)
        return self

    def _fit_traits(self, P, Y0, M, f, b0):
        "Starts on a coarse rule, the best polished on the full rule, then adaptive rounds where they pay."
        J, d, n = P.shape[1], self.n_traits, f.sum()
        Z, logw = self._grid()
        rule = self.rule if self.rule != 'auto' else ('gh' if d <= 3 else 'qmc')
        coarse = quadrature(d, {1: 21, 2: 11, 3: 7}.get(d) if rule == 'gh' else 1024, rule, self.seed)
        starts = self._starts(P, M, f, b0)
        fits = [self._optimize(t, Y0, M, f, *coarse, tol=max(self.tol, 1e-6)) for t in starts] if len(starts) > 1 else []
        theta = min(fits, key=lambda r: r.fun).x if fits else starts[0]
        best = self._optimize(theta, Y0, M, f, Z, logw)
        self.start_logliks_ = [-r.fun * n for r in fits]
        theta, its, conv, msg = best.x, sum(r.nit for r in fits) + best.nit, best.success, best.message
        if self.adaptive and rule == 'gh':
            for _ in range(2):
                W, b = self._unpack(theta, J, d)
                Za, lwa = _adaptive_grid(W, b, Y0, M, f, Z, logw, self.n_adaptive_points)
                self.adaptive_ = True
                best = self._optimize(theta, Y0, M, f, Za, lwa, tol=max(self.tol, 1e-6))
                theta, its, conv, msg = best.x, its + best.nit, best.success, best.message
        # accuracy of the rule: the log-likelihood at the optimum by a finer fixed rule
        W, b = self._unpack(theta, J, d)
        n_fine = int(1.5 * (self.n_points or _DEFAULT_POINTS.get(d, 7))) if rule == 'gh' else 4 * (self.n_points or 4096)
        Zf, lwf = quadrature(d, n_fine, rule, self.seed + 1 if isinstance(self.seed, int) else 1)
        self.quadrature_gap_ = abs(marginal_loglik(W, b, Y0, M, f, Zf, lwf, grad=False)[0] + best.fun * n)
        if self.quadrature_gap_ > 0.01: warnings.warn(f'the quadrature rule is off by {self.quadrature_gap_:.3g} in log-likelihood '
                                                      '(vs a finer rule): raise n_points (or try adaptive=True)')
        self.n_iter_, self.converged_ = its, conv
        if not conv: warnings.warn(f'L-BFGS-B did not converge: {msg}')
        W, b = self._unpack(theta, J, d)
        at = np.argwhere(np.abs(W) >= self.max_weight * (1 - 1e-6))
        if len(at): warnings.warn(f'weights at the bound max_weight={self.max_weight} for (question, trait) {at.tolist()}: '
                                  'a Heywood case (a question almost determined by the traits); its weight is not identified')
        return W * np.where(np.diag(W[:d, :d]) < 0, -1, 1), b          # non-negative diagonal

    def _loglik_patterns(self, P, Y0, M, f):
        "Log-likelihood at the fitted parameters, by an adaptive rule where the model uses one."
        W, b = self.weights_, self.intercepts_
        Z, logw = quadrature(self.n_traits, self.n_points, self.rule, self.seed)
        if getattr(self, 'adaptive_', False):
            Z, logw = _adaptive_grid(W, b, Y0, M, f, Z, logw, self.n_adaptive_points)
        ll, ll_p, _ = marginal_loglik(W, b, Y0, M, f, Z, logw, grad=False)
        return ll, ll_p

    def _check_fitted(self, Y):
        if not hasattr(self, 'weights_'): raise RuntimeError('fit the model first')
        Y = _check_responses(Y, min_respondents=1)
        if Y.shape[1] != self.n_questions_: raise ValueError(f'expected {self.n_questions_} questions, got {Y.shape[1]}')
        return self._prepare(Y)

    def score_samples(self, Y) -> np.ndarray:
        "Log-likelihood of each respondent (the probability of the answers they gave, missing ones marginalized)."
        P, Y0, M, f, index = self._check_fitted(Y)
        return self._loglik_patterns(P, Y0, M, f)[1][index]

    def score(self, Y, y=None) -> float:
        "Mean log-likelihood per respondent."
        return float(self.score_samples(Y).mean())

    def scores(self,
               Y,                   # respondents x questions
               method: str = 'eap', # 'eap' (posterior mean) or 'map' (posterior mode, Newton's method)
               ) -> pd.DataFrame:   # one row per respondent: z1..zd and se_z1..se_zd
        "Trait scores of respondents with standard errors (posterior SDs for EAP, curvature at the mode for MAP)."
        P, Y0, M, f, index = self._check_fitted(Y)
        d = self.n_traits
        if method == 'eap': mean, sd = _eap(self.weights_, self.intercepts_, Y0, M, f, *self._dense_grid())
        elif method == 'map': mean, sd = map_scores(self.weights_, self.intercepts_, Y0, M)
        else: raise ValueError(f"method must be 'eap' or 'map', got {method!r}")
        cols = [f'z{k + 1}' for k in range(d)]
        return pd.DataFrame(np.c_[mean, sd][index], columns=cols + ['se_' + c for c in cols])

    def _dense_grid(self):
        d = self.n_traits
        return quadrature(d, self.n_points or ({1: 61, 2: 31, 3: 15}.get(d)), self.rule, self.seed)

    def transform(self, Y, method: str = 'eap') -> np.ndarray:
        "Respondents' trait scores (n x d), EAP by default."
        return self.scores(Y, method).iloc[:, :self.n_traits].to_numpy()

    def fit_transform(self, Y, y=None, method: str = 'eap') -> np.ndarray:
        return self.fit(Y).transform(Y, method)

    def expected_margins(self) -> tuple:
        "Model probabilities: P(Y_j = 1) (J) and P(Y_j = 1, Y_k = 1) (J x J)."
        Z, logw = self._dense_grid()
        p = expit(Z @ self.weights_.T + self.intercepts_) * np.exp(logw)[:, None]   # Q x J, weighted
        return p.sum(0), expit(Z @ self.weights_.T + self.intercepts_).T @ p

    def __repr__(self): return f'LatentTraitModel(n_traits={self.n_traits})'

def _lower(W):
    "Rotate W (J x d) so that its top d x d block is lower triangular with a non-negative diagonal."
    d = W.shape[1]
    if d <= 1: return W * (np.sign(W[0]) if W.size and W[0, 0] < 0 else 1)
    q, r = np.linalg.qr(W[:d].T)
    Wl = W @ q
    return Wl * np.where(np.diag(Wl[:d, :d]) < 0, -1, 1)

# %% ../nbs/42_traits.ipynb #160b86b7
def _eap(W, b, Y0, M, f, Z, logw):
    "Posterior means (P x d) and SDs of each pattern's traits."
    _, _, R = marginal_loglik(W, b, Y0, M, f, Z, logw, grad=False)
    if Z.ndim == 2:
        mean = R @ Z
        sd = np.sqrt(np.clip(R @ Z ** 2 - mean ** 2, 0, None))
    else:
        mean = np.einsum('pq,pqd->pd', R, Z)
        sd = np.sqrt(np.clip(np.einsum('pq,pqd->pd', R, Z ** 2) - mean ** 2, 0, None))
    return mean, sd

def _adaptive_grid(W, b, Y0, M, f, Z, logw, n_points=None):
    "Per-pattern GH grids centred at the posterior means, scaled by the posterior covariances."
    d = W.shape[1]
    _, _, R = marginal_loglik(W, b, Y0, M, f, Z, logw, grad=False)
    mu = R @ Z if Z.ndim == 2 else np.einsum('pq,pqd->pd', R, Z)
    Zc = (Z[None] if Z.ndim == 2 else Z) - mu[:, None, :]
    S = np.einsum('pq,pqd,pqe->pde', R, np.broadcast_to(Zc, (len(mu),) + Zc.shape[1:]), np.broadcast_to(Zc, (len(mu),) + Zc.shape[1:]))
    C = np.linalg.cholesky(S + 1e-10 * np.eye(d))
    u, lu = quadrature(d, n_points or {1: 15, 2: 11, 3: 7}[d], 'gh', prune=1e-12)
    Za = mu[:, None, :] + np.einsum('pde,qe->pqd', C, u)
    logdet = np.log(np.diagonal(C, axis1=1, axis2=2)).sum(1)
    lw = lu[None] - 0.5 * (Za ** 2).sum(-1) + 0.5 * (u ** 2).sum(-1)[None] + logdet[:, None]
    return Za, lw

def map_scores(W, b, Y0, M, n_iter=100, tol=1e-10):
    "Posterior modes (P x d) and SEs by Newton's method."
    P, d = len(Y0), W.shape[1]
    M = np.ones_like(Y0) if M is None else M
    z = np.zeros((P, d))
    for _ in range(n_iter):
        s = expit(z @ W.T + b)
        g = (M * (Y0 - s)) @ W - z
        H = -np.einsum('pj,jd,je->pde', M * s * (1 - s), W, W) - np.eye(d)
        step = np.linalg.solve(H, g[..., None])[..., 0]
        z = z - step
        if np.abs(step).max() < tol: break
    s = expit(z @ W.T + b)
    H = -np.einsum('pj,jd,je->pde', M * s * (1 - s), W, W) - np.eye(d)
    return z, np.sqrt(np.diagonal(np.linalg.inv(-H), axis1=1, axis2=2))

# %% ../nbs/42_traits.ipynb #d6d7e3ae
def irt_parameters(model: LatentTraitModel) -> pd.DataFrame:
    "One-trait fit in IRT form: difficulty -b_j / w_j and discrimination w_j of each question."
    if model.n_traits != 1: raise ValueError('IRT parameters are defined for one trait')
    w, b = model.weights_[:, 0], model.intercepts_
    return pd.DataFrame({'difficulty': -b / w, 'discrimination': w})

# %% ../nbs/42_traits.ipynb #ef8f5039
def compare_traits(
    Y,                      # respondents x questions of 0/1
    max_traits: int = 5,    # fit d = 0 .. max_traits (stops early where d can no longer be identified)
    **kwargs,               # passed to `LatentTraitModel`
) -> pd.DataFrame:          # one row per d: loglik, n_params, deviance, df, pct_D, residual_pct, AIC, BIC
    "Fit models with 0..`max_traits` traits and tabulate deviance, %D, AIC and BIC (Figure 8)."
    rows, models = [], {}
    J = np.shape(Y)[1]
    for d in range(max_traits + 1):
        if d > 0 and (d >= J or n_parameters(J, d) > 2 ** J - 1): break
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            m = LatentTraitModel(d, **kwargs).fit(Y)
        models[d] = m
        rows.append(dict(n_traits=d, loglik=m.loglik_, n_params=m.n_params_, deviance=m.deviance_, df=m.df_,
                         AIC=m.aic_, BIC=m.bic_, converged=m.converged_))
    df = pd.DataFrame(rows)
    D0 = df.deviance.iloc[0]
    df.insert(5, 'pct_D', 100 * (1 - df.deviance / D0))
    df.insert(6, 'residual_pct', 100 - df.pct_D)
    df.attrs['models'] = models
    return df

def margin_fit(
    model: LatentTraitModel,
    Y,                      # the responses the model was fit to
) -> tuple:                 # (one-way table, two-way table)
    "Observed vs expected one-way (P(Y_j=1)) and two-way (both answer 1) margins, with chi-square residuals."
    Y = _check_responses(Y, 1); M = ~np.isnan(Y); Y0 = np.nan_to_num(Y)
    p1, p11 = model.expected_margins()
    n_j = M.sum(0)
    one = pd.DataFrame({'question': range(Y.shape[1]), 'n': n_j, 'observed': Y0.sum(0), 'expected': p1 * n_j})
    one['residual'] = (one.observed - one.expected) ** 2 / one.expected + (one.observed - one.expected) ** 2 / (one.n - one.expected)
    rows = []
    for j, k in combinations(range(Y.shape[1]), 2):
        both = M[:, j] & M[:, k]; n = both.sum()
        yj, yk = Y0[both, j], Y0[both, k]
        O = np.array([(yj * yk).sum(), (yj * (1 - yk)).sum(), ((1 - yj) * yk).sum(), ((1 - yj) * (1 - yk)).sum()])
        e11 = p11[j, k]; E = n * np.array([e11, p1[j] - e11, p1[k] - e11, 1 - p1[j] - p1[k] + e11])
        rows.append(dict(question_a=j, question_b=k, n=n, observed_11=O[0], expected_11=E[0],
                         residual=float(((O - E) ** 2 / E).sum())))
    return one, pd.DataFrame(rows)

# %% ../nbs/42_traits.ipynb #d27cd71e
def simulate_responses(
    n_respondents: int = 1000,  # rows
    n_questions: int = 20,      # columns
    n_traits: int = 2,          # d
    weights=None,               # J x d weights (default: N(0, 1) draws)
    intercepts=None,            # J intercepts (default: N(0, 1) draws)
    missing: float = 0.0,       # probability that each response is missing (set to NaN)
    seed=None,
) -> tuple:                     # (Y: n x J with NaN for missing, weights, intercepts)
    "Draw responses from the logistic latent trait model."
    rng = as_rng(seed)
    W = rng.normal(size=(n_questions, n_traits)) if weights is None else np.asarray(weights, float)
    b = rng.normal(size=n_questions) if intercepts is None else np.asarray(intercepts, float)
    Z = rng.normal(size=(n_respondents, W.shape[1]))
    Y = (rng.random((n_respondents, len(b))) < expit(Z @ W.T + b)).astype(float)
    if missing: Y[rng.random(Y.shape) < missing] = np.nan
    return Y, W, b

def calibrate_intercepts(
    rates,                  # J target probabilities P(Y_j = 1), strictly between 0 and 1
    weights,                # J x d weights
) -> np.ndarray:            # J intercepts with E sigmoid(w_j . Z + b_j) = rate_j
    "Intercepts that give each question its marginal rate under the given weights."
    rates, W = np.asarray(rates, float), np.asarray(weights, float)
    if ((rates <= 0) | (rates >= 1)).any(): raise ValueError('rates must lie strictly between 0 and 1')
    Z, logw = quadrature(W.shape[1], {0: None, 1: 61, 2: 31, 3: 15}.get(W.shape[1]))
    v = np.exp(logw)
    out = []
    for r, w in zip(rates, W):
        eta = Z @ w
        out.append(optimize.brentq(lambda b: v @ expit(eta + b) - r, -50, 50, xtol=1e-12))
    return np.array(out)

# %% ../nbs/42_traits.ipynb #330d7970
def plot_weights(model: LatentTraitModel, labels=None, rotate: bool = False, ax=None):
    "Figure 6: the questions placed by their weights on the first two traits (varimax-rotated with `rotate`)."
    import matplotlib.pyplot as plt
    if model.n_traits < 2: raise ValueError('plot_weights needs a model with at least 2 traits')
    W = varimax(model.weights_)[0] if rotate else model.weights_
    if ax is None: _, ax = plt.subplots(figsize=(5, 5))
    ax.axhline(0, c='0.8', lw=1); ax.axvline(0, c='0.8', lw=1)
    ax.scatter(W[:, 0], W[:, 1], s=25)
    for j, (x, y) in enumerate(W[:, :2]):
        ax.annotate(str(labels[j]) if labels is not None else str(j + 1), (x, y), fontsize=8, xytext=(3, 3), textcoords='offset points')
    ax.set(xlabel='weight on trait 1', ylabel='weight on trait 2', title='Questions by their fitted weights')
    return ax.figure

def plot_scores(model: LatentTraitModel, Y, method: str = 'eap', seed=0, ax=None):
    "Figure 7: respondents projected into the latent space (first two traits)."
    import matplotlib.pyplot as plt
    if model.n_traits < 2: raise ValueError('plot_scores needs a model with at least 2 traits')
    z = model.transform(Y, method)
    z = z + as_rng(seed).normal(0, 0.02, z.shape)
    if ax is None: _, ax = plt.subplots(figsize=(5, 5))
    ax.scatter(z[:, 0], z[:, 1], s=6, alpha=0.4)
    ax.set(xlabel='trait 1 score', ylabel='trait 2 score', title=f'Respondents in the latent space ({method.upper()})')
    return ax.figure

def plot_deviance(table: pd.DataFrame):
    "Figure 8: deviance and the residual percentage 100 - %D against the number of traits."
    import matplotlib.pyplot as plt, seaborn as sns
    fig, axes = plt.subplots(1, 2, figsize=(7.5, 3.2))
    sns.lineplot(data=table, x='n_traits', y='deviance', marker='o', ax=axes[0])
    sns.lineplot(data=table, x='n_traits', y='residual_pct', marker='o', ax=axes[1])
    axes[0].set(xlabel='number of traits', ylabel='deviance', title='Deviance')
    axes[1].set(xlabel='number of traits', ylabel='100 - %D', title='Residual deviance (%)')
    for a in axes: a.set_xticks(table.n_traits)
    fig.tight_layout()
    return fig
