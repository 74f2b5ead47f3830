"""The thirty-fourth pass's leads, the Moral Choice Machine and evaluation (issue 39): each test failed before its fix.

1. `mcm.MoralDirection.load(path)` without an encoder took a direction fitted with another encoder and scored it with
   the default all-MiniLM-L6-v2 (any encoder of the same width passed the shape check): the fitting encoder's name was
   read from the file and only compared with an encoder passed.
2. `mcm.score_actions(actions, encoder=B, direction=dA)` took the bias from B and the score from dA's encoder A, in one
   table that named neither; `user_study_table` and `user_study_correlations` the same.
3. `evaluation.evaluate`, `score_predictions` and `score_against_ceiling` paired an array with a frame by position
   although the frame's index was 0..n-1 in another order (a frame sampled or sorted): the mirror of the case
   `metrics.rows_in_order_of` refuses (positions or items?).
4. (Noticed while fixing 1.) `bridge.LearnedDirection.save` did not store the encoder at all, so `load(path)` scored a
   direction learned on another encoder's embeddings with the default, as 1 did.
"""
import warnings

import numpy as np
import pandas as pd
import pytest

from toy_encoder import Enc


def test_a_loaded_direction_scores_only_with_the_encoder_it_was_fitted_with(tmp_path):
    """`load(path)` without an encoder read the fitting encoder's name ('my-other-384d-encoder') and scored with the
    default MiniLM, no warning: [-0.011 -0.018] for [0.047 -0.418]. Refused now, at `load` and at every score."""
    from scruples import mcm

    enc = Enc('my-other-384d-encoder', dim=384)
    d = mcm.MoralDirection(enc).fit()
    p = d.save(tmp_path / 'dirA.npz')
    with pytest.raises(ValueError, match=r"fitted with the encoder 'my-other-384d-encoder'.*encoder="):
        mcm.MoralDirection.load(p)
    again = mcm.MoralDirection.load(p, Enc('my-other-384d-encoder', dim=384))  # the same model: the same scores
    np.testing.assert_allclose(again.score(['kill people', 'smile']), d.score(['kill people', 'smile']), atol=1e-12)
    assert again.encoder_name_ == 'my-other-384d-encoder'
    again.set_params(encoder=None)  # the default encoder set afterwards: refused where it would score
    for way in (lambda: again.score(['smile']), lambda: again.nearest('smile'),
                lambda: mcm.score_actions(['smile'], direction=again)):
        with pytest.raises(ValueError, match='my-other-384d-encoder'):
            way()
    # a direction fitted with the default encoder loads without one (the default is its encoder)
    default = mcm.MoralDirection(Enc(mcm.DEFAULT_MODEL)).fit().save(tmp_path / 'default.npz')
    assert mcm.MoralDirection.load(default).encoder_name_ == mcm.DEFAULT_MODEL


def test_score_actions_takes_one_encoder_and_names_it():
    """`score_actions(encoder=B, direction=dA)` gave B's bias beside A's score in one table. Refused now (another model
    name); an encoder of the same name (the model loaded twice) is the direction's, and the table names it."""
    from scruples import mcm

    A, B = Enc('encA', 1), Enc('encB', 2)
    dA = mcm.MoralDirection(A).fit()
    with pytest.raises(ValueError, match=r"'encB'.*'encA'"):
        mcm.score_actions(['kill people', 'smile'], encoder=B, direction=dA)
    with pytest.raises(ValueError, match=r"'encB'.*'encA'"):
        mcm.user_study_table(encoder=B, direction=dA)
    with pytest.raises(ValueError, match=r"'encB'.*'encA'"):
        mcm.user_study_correlations(dA, B)
    same = mcm.score_actions(['kill people', 'smile'], encoder=Enc('encA', 1), direction=dA)
    one = mcm.score_actions(['kill people', 'smile'], direction=dA)
    pd.testing.assert_frame_equal(same, one)
    assert one.attrs['encoder'] == 'encA'
    np.testing.assert_allclose(one.bias, mcm.mcm_bias(['kill people', 'smile'], A))
    assert mcm.score_actions(['smile'], encoder=B).attrs['encoder'] == 'encB'
    assert mcm.user_study_table(direction=dA).attrs['encoder'] == 'encA'


def _api():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    n = 200
    X = rng.normal(size=(n, 4))
    p = np.exp(X @ rng.normal(size=(4, 3)))
    p /= p.sum(1, keepdims=True)
    c = np.array([rng.multinomial(5, q) for q in p])
    return LogisticRegression().fit(X[:100], c[:100].argmax(1)), X[100:], c[100:], p[100:]


def test_an_array_beside_a_frame_numbered_in_another_order_is_refused():
    """X an array beside counts whose index is 0..n-1 shuffled (`.sample()`): f1 0.414 for 0.676, no warning; X such a
    frame beside counts an array: f1 0.385. Refused now (positions or items?) in every way in; in order, by position."""
    from scruples.evaluation import evaluate, score_against_ceiling, score_predictions
    from scruples.metrics import in_order_of, rows_in_order_of, xentropy

    warnings.simplefilter('ignore')
    m, X, c, p = _api()
    cols = ['a', 'b', 'c']
    shuffled_c = pd.DataFrame(c, columns=cols).sample(frac=1, random_state=0)
    shuffled_X = pd.DataFrame(X).sample(frac=1, random_state=1)
    shuffled_p = pd.DataFrame(p, columns=cols).sample(frac=1, random_state=2)
    for way, who in ((lambda: evaluate(m, X, shuffled_c, n_boot=0), 'counts_test'),
                     (lambda: evaluate(m, shuffled_X, c, n_boot=0), 'X_test'),
                     (lambda: score_predictions(p, shuffled_c, n_boot=0), 'counts'),
                     (lambda: score_predictions(shuffled_p, c, n_boot=0), 'proba'),
                     (lambda: score_against_ceiling(p, shuffled_c, n_boot=0, ceiling_boot=0, n_samples=200), 'counts'),
                     (lambda: rows_in_order_of(c, shuffled_X, 'counts', 'X'), 'X'),
                     (lambda: rows_in_order_of(shuffled_c, X, 'counts', 'X'), 'counts'),
                     (lambda: in_order_of(p, shuffled_c, 'proba', 'counts'), 'counts'),
                     (lambda: xentropy(shuffled_c, p), 'y_true')):
        with pytest.raises(ValueError, match=rf'{who}: its index is 0\.\.99 in another order.*positions or items'):
            way()
    # in order (a table made from an array), or arrays on both sides: by position, as before
    right = evaluate(m, X, c, n_boot=0)
    for got in (evaluate(m, pd.DataFrame(X), pd.DataFrame(c, columns=[0, 1, 2]), n_boot=0),
                evaluate(m, X, pd.DataFrame(c, columns=[0, 1, 2]), n_boot=0),
                evaluate(m, shuffled_X.reset_index(drop=True), c[shuffled_X.index], n_boot=0)):
        assert got['f1'] == pytest.approx(right['f1']) and got['xentropy'] == pytest.approx(right['xentropy'])
    s = score_predictions(p, c, n_boot=0)
    assert score_predictions(p, pd.DataFrame(c, columns=cols), n_boot=0)['f1'] == pytest.approx(s['f1'])
    # the same rows in another order on both sides, keyed by the same numbers: matched by index
    assert score_predictions(shuffled_p, pd.DataFrame(c, columns=cols), n_boot=0)['f1'] == pytest.approx(s['f1'])
    # a named index is the items' ids, not row numbers: an array beside it is taken by position, as documented
    named = pd.DataFrame(c, columns=cols).sample(frac=1, random_state=0).rename_axis('item')
    assert score_predictions(p[named.index], named, n_boot=0)['f1'] == pytest.approx(s['f1'])


def test_the_rule_in_tunes_fixed_baselines_and_the_packages_own_pairings():
    """`baselines.tune` of Prior, Sample and Length (`_tune_fixed`) never matched y to X: an array of texts beside votes
    whose index is 0..n-1 shuffled was fitted by position, silently; refused now, as `make_task` refuses it. The
    package's own pairings of a sampled frame with arrays in its order (the refit of `tune`, `PairBaseline.fit` of a
    Dilemmas frame's own votes, `aggregate_agreement`'s truth beside numeric item ids) are not refused."""
    from scruples.agreement import aggregate_agreement
    from scruples.baselines import make_model, tune

    warnings.simplefilter('ignore')
    rng, n = np.random.default_rng(0), 40
    texts = pd.Series([' '.join(['word'] * (1 + i % 7)) for i in range(n)])
    votes = pd.DataFrame({'yes': rng.integers(0, 5, n), 'no': 0}).assign(no=lambda d: 5 - d.yes)
    shuffled = votes.sample(frac=1, random_state=0)
    with pytest.raises(ValueError, match=r'y: its index is 0\.\.39 in another order.*positions or items'):
        tune('Prior', texts.to_numpy(), shuffled, n_jobs=1, progress=False)
    assert tune('Prior', texts, votes, n_jobs=1, progress=False).oof_proba.shape == (n, 2)  # in order: by position
    pairs = pd.DataFrame({'action_1': [f'do thing {i}' for i in range(n)], 'action_2': [f'say the word {i}' for i in range(n)],
                          'gold_1': votes.yes, 'gold_2': votes.no}).sample(frac=1, random_state=2)
    y = pairs[['gold_1', 'gold_2']].set_axis(['action_1', 'action_2'], axis=1)  # the same index: by index
    for m, kw in (('Length', {}), ('MultiNB', {'budget': 2, 'batch_size': 2})):  # _tune_fixed, _refit_best
        assert tune(m, pairs, y, n_jobs=1, progress=False, **kw).oof_proba.shape == (n, 2)
    p = {'strip_accents': None, 'lowercase': True, 'stop_words': None, 'ngram_low': 1, 'ngram_extra': 0,
         'analyzer': 'word', 'max_df': 1.0, 'min_df': 0.0, 'alpha': 1.0}
    assert make_model('MultiNB', 'dilemmas', params=p).fit(pairs).predict_proba(pairs.head(3)).shape == (3, 2)
    table = pd.DataFrame({'item': ['2', '0', '1'], 'majority': ['a', 'b', 'a'], 'mv': ['a', 'b', 'b']})
    assert aggregate_agreement(table, ['a', 'b', 'a']).set_index('method').accuracy.tolist() == pytest.approx([1, 2 / 3])


def test_a_loaded_learned_direction_scores_only_with_the_encoder_it_was_fitted_with(tmp_path):
    """`LearnedDirection.save` wrote no encoder name: `load(path)` scored a direction learned on another encoder with
    the default MiniLM, without a word. The name is saved and the rule is `MoralDirection.load`'s; a file of before
    (no name in it) loads as it did."""
    from scruples.bridge import LearnedDirection

    enc, rng = Enc('my-other-encoder', dim=16), np.random.default_rng(4)
    x = rng.normal(size=(60, 16))
    c1 = rng.binomial(5, 1 / (1 + np.exp(-x[:, 0])))
    ld = LearnedDirection(enc, Cs=(0.1, 1.0), cv=2).fit_arrays(x, np.column_stack([c1, 5 - c1]))
    p = ld.save(tmp_path / 'learned')
    with pytest.raises(ValueError, match=r"fitted with the encoder 'my-other-encoder'.*LearnedDirection\.load"):
        LearnedDirection.load(p)
    same = LearnedDirection.load(p, Enc('my-other-encoder', dim=16))  # the same model loaded again: no warning
    np.testing.assert_allclose(same.score(['smile', 'kill']), ld.score(['smile', 'kill']))
    with pytest.raises(ValueError, match="fitted with the encoder 'my-other-encoder', and its encoder is 'another'"):
        LearnedDirection.load(p, Enc('another', dim=16))
    ld.encoder = None  # the encoder dropped after the fit: scoring would take the default
    with pytest.raises(ValueError, match='my-other-encoder'):
        ld.score(['smile'])
    with np.load(p) as z:  # a file saved before the name was: loads, and scores with what it is given
        np.savez(tmp_path / 'old.npz', **{k: z[k] for k in z.files if k != 'encoder'})
    old = LearnedDirection.load(tmp_path / 'old.npz', enc)
    np.testing.assert_allclose(old.score(['smile']), same.score(['smile']))
