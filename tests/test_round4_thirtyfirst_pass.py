"""Round 4, the thirty-first hostile pass: failing tests for the defects found (issue 39)."""
from __future__ import annotations

import numpy as np
import pytest

from scruples.judgments import extract_label


@pytest.mark.parametrize('body, want', [
    ('Not YTA, ESH', 'EVERYBODY'),
    ('Not YTA, NAH', 'NOBODY'),
    ("You're not YTA. ESH.", 'EVERYBODY'),
    ('Not YTA; everyone sucks here.', 'EVERYBODY'),
])
def test_negated_yta_then_stated_verdict(body, want):
    """SILENT WRONG / DATA MIXED, `judgments.extract_label` (the `_NOT_BEFORE` change): "Not YTA, ESH" says that
    everybody sucks, yet the negated YTA is turned into the OTHER verdict (NTA) and, being first, decides the comment:
    OTHER for EVERYBODY ("Not YTA, NAH": OTHER for NOBODY). The negation states only what the verdict is not; the
    verdict the comment states next ("ESH") should decide, as it does for "Not ESH, NTA"."""
    assert extract_label(body) == want


def test_make_model_param_outside_space_not_silently_ignored():
    """SILENT WRONG (argument accepted and ignored), `baselines.make_model(params=...)`: a hyper-parameter that is not a
    point of `SPACES[model][task]` is dropped without a word. `make_model('MultiNB', 'texts', params={...,
    'class_weight': 'balanced'})` trains the same unweighted MultinomialNB (predict_proba identical to the run without
    it, max difference 0.0) although the package balances a NB through `balanced`/`SampleBalanced` (tune's
    class_weight). Right: refused (naming the parameter) or applied (the probabilities change)."""
    import pandas as pd

    from scruples.baselines import make_model

    p = {'strip_accents': None, 'lowercase': True, 'stop_words': None, 'ngram_low': 1, 'ngram_extra': 0, 'analyzer': 'word',
             'max_df': 1.0, 'min_df': 0.0, 'alpha': 1.0}
    X = pd.Series(['good kind nice', 'good nice', 'kind good', 'bad mean', 'good mean', 'nice bad', 'good good', 'kind'])
    y = np.array([0, 0, 0, 1, 0, 0, 0, 0])
    plain = make_model('MultiNB', 'texts', params=p, n_classes=2).fit(X, y).predict_proba(X)
    try:
        m = make_model('MultiNB', 'texts', params={**p, 'class_weight': 'balanced'}, n_classes=2)
    except (ValueError, TypeError):
        return  # refused: right
    weighted = m.fit(X, y).predict_proba(X)
    assert np.abs(plain - weighted).max() > 1e-6, 'class_weight in params was accepted and ignored'


def test_dilemma_metrics_range_index_frame_matched_by_index(real_data_dir):
    """DATA MIXED, `bridge.dilemma_metrics(probs, dilemmas)`: a frame of probabilities is matched to the dilemmas "by its
    index where that names them", but not when its index is 0..n-1: predictions made on `dev` (index 0..199, each
    row's own dilemma) scored against the same dilemmas shuffled (`dev.sample(frac=1)`, index a permutation of
    0..199) are paired by position, each dilemma getting another's probabilities: accuracy 0.49 for 1.0 (macro F1
    0.49 for 1.0). Right: matched by the index, or refused as `metrics.in_order_of` refuses this very case ("its index
    is 0..n-1 in order, and the items are the same numbers in another order: positions or items?")."""
    import pandas as pd

    from scruples.bridge import dilemma_metrics
    from scruples.corpus import load_dilemmas

    dev = load_dilemmas('dev').head(200).reset_index(drop=True)
    p1 = np.where(dev.gold_label.to_numpy() == 0, .8, .2)
    probs = pd.DataFrame({'action_1': p1, 'action_2': 1 - p1}, index=dev.index)
    assert dilemma_metrics(probs, dev)['accuracy'] == 1.0
    shuffled = dev.sample(frac=1, random_state=0)
    try:
        got = dilemma_metrics(probs, shuffled)
    except ValueError:
        return  # refused as ambiguous (positions or items?), as `metrics.in_order_of` refuses it: right too
    assert got['accuracy'] == pytest.approx(1.0), got


def test_evaluate_counts_frame_in_other_order_beside_range_index_examples():
    """DATA MIXED, `evaluation.evaluate(model, X_test, counts_test)` (`_counts_for`): with examples X indexed 0..n-1 in
    order (a table read by pandas) the counts are paired by position, even when `counts_test` is a frame whose index
    names the same items 0..n-1 in another order (`counts.loc[perm]`, `.sample(frac=1)`): each example is scored
    against another item's votes, macro F1 0.533 for 0.967 (xentropy 0.888 for 0.497). Right: matched by the index
    (as the same frames in the other roles are) or refused as ambiguous, as `metrics.in_order_of` refuses
    "0..n-1 in order beside the same numbers in another order"."""
    import pandas as pd

    from scruples.evaluation import evaluate

    rng, n = np.random.default_rng(0), 60
    C = pd.DataFrame([rng.multinomial(5, [.8, .2] if i % 2 else [.2, .8]) for i in range(n)], columns=['a', 'b'])
    X = pd.DataFrame({'x': [i % 2 for i in range(n)]})
    model = lambda X: np.where(X.x.to_numpy()[:, None] == 1, [.8, .2], [.2, .8])
    kw = {'proba_cal': np.tile([[.8, .2], [.2, .8]], (15, 1)), 'counts_cal': C.iloc[:30].to_numpy(), 'n_boot': 0}
    right = evaluate(model, X, C, **kw)
    try:
        got = evaluate(model, X, C.loc[rng.permutation(n)], **kw)
    except ValueError:
        return  # refused: right too
    assert got['f1'] == pytest.approx(right['f1']) and got['xentropy'] == pytest.approx(right['xentropy']), \
        (got['f1'], right['f1'])


def test_with_context_series_matched_by_index():
    """DATA MIXED, `baselines.with_context(texts, contexts)`: two Series keyed by item id are zipped by position, so a
    contexts Series in another order gives each text another item's context: texts a, b, c with contexts keyed c, a,
    b get 'text one ctx_ctxc' (c's context on a's text) for 'text one ctx_ctxa'. The package matches a Series by its
    index elsewhere (`in_order_of`, "as pandas aligns"); right: matched by index (or refused when the ids differ)."""
    import pandas as pd

    from scruples.baselines import with_context

    t = pd.Series(['text one', 'text two', 'text three'], index=['a', 'b', 'c'])
    c = pd.Series(['ctxc', 'ctxa', 'ctxb'], index=['c', 'a', 'b'])
    try:
        got = with_context(t, c)
    except ValueError:
        return  # refused: right too
    assert got == ['text one ctx_ctxa', 'text two ctx_ctxb', 'text three ctx_ctxc']


def test_best_by_seed_with_npmle_js_and_no_bootstrap_is_refused(tmp_path):
    """SILENT WRONG (a flag accepted and ignored), `scruples best --by ... --bootstrap 0 --metric js --seed 7`: with
    every group's prior (and the pooled one) the NPMLE, js is exact (no posterior samples) and nothing in the run is
    random, yet `--seed` is accepted and changes nothing (the tables for --seed 1 and --seed 7 are identical), where
    `--samples 500` in the same run is refused ("the prior chosen ... is the NPMLE, under which js is exact") and
    `_best_seed` refuses a --seed with nothing random. Right: refused, as --samples is (or the seed used)."""
    import pandas as pd
    from cli_run import scruples

    rng, rows = np.random.default_rng(0), []
    anns = [f'a{j}' for j in range(8)] + [f'b{j}' for j in range(8)]
    for i in range(200):
        p = .5 if i % 2 == 0 else (.01 if i % 4 == 1 else .99)
        rows += [(f'it{i}', a, ['yes', 'no'][rng.random() < p]) for a in anns]
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(tmp_path/'long.csv', index=False)
    pd.DataFrame({'annotator': anns, 'group': ['a'] * 8 + ['b'] * 8}).to_csv(tmp_path/'ann.csv', index=False)
    base = ('best', tmp_path/'long.csv', '--by', 'group', '--annotators', tmp_path/'ann.csv', '--bootstrap', '0',
            '--metric', 'js')
    samples = scruples(*base, '--samples', '500')
    assert samples.returncode != 0 and 'NPMLE' in samples.stderr  # the premise: every prior here is the NPMLE
    one, seven = scruples(*base, '--seed', '1'), scruples(*base, '--seed', '7')
    if one.returncode != 0 and seven.returncode != 0:
        return  # refused: right
    assert one.stdout != seven.stdout, '--seed accepted and ignored: js is exact under the NPMLE, no bootstrap'


def test_fit_scale_series_and_frame_matched_by_index():
    """DATA MIXED, `bridge.fit_scale(diff, counts)` (a sibling of the 29th pass's fix, which matched the counts'
    columns by name): a Series of score differences and a frame of votes keyed by the same dilemma ids are paired by
    position, so the frame in another row order (`counts.sample(frac=1)`) pairs each dilemma's difference with
    another's votes: k = -0.050 for 1.800. Right: matched by the index, as pandas aligns (or refused)."""
    import pandas as pd

    from scruples.bridge import fit_scale

    rng, n = np.random.default_rng(0), 200
    d = rng.normal(0, 1, n)
    c1 = rng.binomial(5, 1 / (1 + np.exp(-2 * d)))
    ids = [f'd{i}' for i in range(n)]
    diff = pd.Series(d, index=ids)
    counts = pd.DataFrame({'action_1': c1, 'action_2': 5 - c1}, index=ids)
    right = fit_scale(diff, counts)
    try:
        got = fit_scale(diff, counts.sample(frac=1, random_state=0))
    except ValueError:
        return  # refused: right too
    assert got == pytest.approx(right, rel=1e-6), (got, right)


def test_text_classifier_fit_counts_frame_matched_to_texts_by_index():
    """DATA MIXED, `baselines.TextClassifier.fit(X, y)` (via `make_model`): texts in a Series keyed by item id and their
    label counts in a frame keyed by the same ids in another row order are paired by position, each text trained on
    another item's votes: P(pos | 'good nice') = 0.590 for 0.998. `evaluation.evaluate` matches the same counts to the
    same texts by index (`_counts_for`, as pandas aligns); right: matched by index here too (or refused)."""
    import pandas as pd

    from scruples.baselines import make_model

    p = {'strip_accents': None, 'lowercase': True, 'stop_words': None, 'ngram_low': 1, 'ngram_extra': 0, 'analyzer': 'word',
             'max_df': 1.0, 'min_df': 0.0, 'alpha': 1.0}
    n = 40
    ids = [f'i{k}' for k in range(n)]
    X = pd.Series(['good nice kind' if k % 2 else 'bad mean rude' for k in range(n)], index=ids)
    Y = pd.DataFrame({'pos': [5 if k % 2 else 0 for k in range(n)], 'neg': [0 if k % 2 else 5 for k in range(n)]},
                     index=ids)
    new = pd.Series(['good nice'])
    right = make_model('MultiNB', 'texts', params=p, n_classes=2).fit(X, Y).predict_proba(new)
    try:
        got = make_model('MultiNB', 'texts', params=p, n_classes=2).fit(X, Y.sample(frac=1, random_state=1))
    except ValueError:
        return  # refused: right too
    assert np.allclose(got.predict_proba(new), right), (got.predict_proba(new), right)


def test_pair_baseline_fit_counts_frame_matched_to_dilemmas_by_index(real_data_dir):
    """DATA MIXED, `baselines.PairBaseline.fit(dilemmas, counts)` (via `make_model('MultiNB', 'dilemmas')`), the same
    as TextClassifier's: a frame of votes keyed by the dilemmas' index, in another row order, is paired with the
    dilemmas by position (the columns are matched by name, `pair_columns`, the rows not): the predictions on five
    dilemmas move by up to 0.996. Right: the rows matched by index (or refused)."""
    import pandas as pd

    from scruples.baselines import make_model
    from scruples.corpus import label_counts, load_dilemmas

    dev = load_dilemmas('dev').head(300)
    dev.index = [f'x{i}' for i in range(300)]
    C = pd.DataFrame(label_counts(dev), index=dev.index, columns=['action_1', 'action_2'])
    p = {'strip_accents': None, 'lowercase': True, 'stop_words': None, 'ngram_low': 1, 'ngram_extra': 0, 'analyzer': 'word',
             'max_df': 1.0, 'min_df': 0.0, 'alpha': 1.0}
    right = make_model('MultiNB', 'dilemmas', params=p).fit(dev, C).predict_proba(dev.head(5))
    try:
        m = make_model('MultiNB', 'dilemmas', params=p).fit(dev, C.sample(frac=1, random_state=0))
    except ValueError:
        return  # refused: right too
    assert np.allclose(m.predict_proba(dev.head(5)), right)


def test_verb_table_series_matched_by_index():
    """DATA MIXED, `verbs.verb_table(verbs_1, verbs_2, labels)`: three Series keyed by pair id are zipped by position,
    so labels in another order are given to other pairs: with 'kill' the worse action of all six pairs, the labels
    Series reversed (`lab[::-1]`, same ids) makes 'kill' better 6 times, worse 0 (LR 0.0 for inf). Right: matched by
    index, as pandas aligns (or refused)."""
    import pandas as pd

    from scruples.verbs import verb_table

    ids = list('abcdef')
    v1 = pd.Series(['kill'] * 3 + ['help'] * 3, index=ids)
    v2 = pd.Series(['help'] * 3 + ['kill'] * 3, index=ids)
    lab = pd.Series([0, 0, 0, 1, 1, 1], index=ids)
    right = verb_table(v1, v2, lab).set_index('verb')
    assert right.loc['kill', 'worse'] == 6
    try:
        got = verb_table(v1, v2, lab[::-1]).set_index('verb')
    except ValueError:
        return  # refused: right too
    assert got.loc['kill', 'worse'] == 6, got
