"""Tests of scruples.topics: LDA topics of the Dilemmas' actions (paper section 5.2, Tables 12 and 14)."""
import re

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from scipy.special import digamma, gammaln
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from scruples.data import read_dilemmas
from scruples.topics import (PAPER_TOP_WORDS, TopicModel, best_k, dilemma_actions, fit_topics, heldout_splits,
                             match_topics, plot_perplexity, plot_topics, text_perplexity, top_words, topic_perplexity,
                             topic_proportions, topic_vectorizer, topic_words)

FEW = settings(max_examples=25, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

FRUIT = 'apple banana cherry grape lemon mango peach pear plum melon'.split()
TOOLS = 'hammer drill wrench chisel pliers sander clamp ruler shovel rake'.split()


def planted(n=200, words=6, seed=0):
    "Texts drawn from one of two disjoint vocabularies, and which one."
    rng = np.random.default_rng(seed)
    src = rng.integers(0, 2, n)
    return [' '.join(rng.choice([FRUIT, TOOLS][s], words)) for s in src], src


TEXTS, SOURCES = planted()


def dilemmas_frame(pairs, source='real'):
    "A minimal Dilemmas-like frame from ((id, text), (id, text)) pairs."
    df = pd.DataFrame([{'action_1_id': a[0], 'action_1': a[1], 'action_2_id': b[0], 'action_2': b[1]} for a, b in pairs])
    df.attrs['source'] = source
    return df


# ================================================================ the actions

def test_dilemma_actions_order_unique_and_source():
    d1 = dilemmas_frame([(('a', 'asking x'), ('b', 'telling y')), (('b', 'telling y'), ('c', 'going z'))])
    d2 = dilemmas_frame([(('c', 'going z'), ('d', 'paying w'))], source='synthetic')
    everything = dilemma_actions([d1, d2], unique=False)
    assert list(everything.index) == ['a', 'b', 'b', 'c', 'c', 'd']
    assert list(everything) == ['asking x', 'telling y', 'telling y', 'going z', 'going z', 'paying w']
    distinct = dilemma_actions({'dev': d1, 'test': d2})
    assert list(distinct.index) == ['a', 'b', 'c', 'd'] and distinct.index.name == 'action_id'
    assert distinct.attrs['source'] == 'real+synthetic'
    assert list(dilemma_actions(d1)) == ['asking x', 'telling y', 'going z']


def test_dilemma_actions_rejects_conflicts_and_other_frames():
    with pytest.raises(ValueError, match="'b' has two different descriptions"):
        dilemma_actions(dilemmas_frame([(('a', 'x'), ('b', 'y')), (('b', 'z'), ('c', 'w'))]))
    with pytest.raises(ValueError, match='no column'):
        dilemma_actions(pd.DataFrame({'text': ['x']}))
    with pytest.raises(ValueError, match='no Dilemmas frames'):
        dilemma_actions([])


def test_real_actions_and_vocabulary(real_data_dir):
    frames = [read_dilemmas(real_data_dir/'dilemmas'/f'{s}.scruples-dilemmas.jsonl') for s in ('dev', 'test')]
    actions = dilemma_actions(frames)
    assert len(dilemma_actions(frames, unique=False)) == 9400
    assert len(actions) == 4701 and actions.attrs['source'] == 'real'
    vocab = topic_vectorizer().fit(actions).vocabulary_
    assert len(vocab) == 2037
    assert {'gf', 'ex', 'don', 'wanting', 'girlfriend'} <= set(vocab)  # words of the paper's Table 14
    assert not set(vocab) & {'the', 'to', 'my', 'i', 'a', 's', 't'}


# ================================================================ the vectorizer settings

def test_vectorizer_drops_stop_words_short_tokens_and_rare_words():
    texts = ['The cat and I sat on a mat', 'a cat sat', 'x y z dog', "don't go, cat!"]
    words = set(topic_vectorizer().fit(texts).vocabulary_)
    assert words == {'cat', 'sat'}  # 'mat', 'dog', 'don' occur in one text only; 'x', 't' are 1 character
    assert set(topic_vectorizer(min_df=1).fit(texts).vocabulary_) == {'cat', 'sat', 'mat', 'dog', 'don'}
    m = fit_topics(texts, 2, max_iter=2)
    assert set(m.words) == {'cat', 'sat'}


@FEW
@given(st.lists(st.lists(st.sampled_from(['the', 'and', 'of', 'a', 'i', 'x', 'cat', 'dog', 'Cat', 'go', 'ox',
                                          'mango', 'b2', 'it', 'we', 'bird']), min_size=0, max_size=6),
                min_size=2, max_size=12),
       st.integers(1, 3))
def test_vocabulary_matches_the_settings(docs, min_df):
    "The fitted vocabulary is exactly the lowercased 2+ character non-stop words found in >= min_df texts."
    texts = [' '.join(d) for d in docs]
    df = {}
    for t in texts:
        for w in set(re.findall(r'\b\w\w+\b', t.lower())) - ENGLISH_STOP_WORDS: df[w] = df.get(w, 0) + 1
    expected = {w for w, n in df.items() if n >= min_df}
    if not expected:
        with pytest.raises(ValueError, match='no words left'): fit_topics(texts, 2, min_df=min_df, max_iter=1)
    else:
        assert set(fit_topics(texts, 2, min_df=min_df, max_iter=1).words) == expected


# ================================================================ fitting, seeds, bad input

def test_same_seed_same_topics_other_seed_other_topics():
    a = fit_topics(TEXTS, 3, seed=7, max_iter=5)
    b = fit_topics(TEXTS, 3, seed=7, max_iter=5)
    c = fit_topics(TEXTS, 3, seed=8, max_iter=5)
    np.testing.assert_array_equal(a.lda.components_, b.lda.components_)
    assert not np.allclose(a.lda.components_, c.lda.components_)
    g1 = fit_topics(TEXTS, 3, seed=np.random.default_rng(3), max_iter=5)
    g2 = fit_topics(TEXTS, 3, seed=np.random.default_rng(3), max_iter=5)
    np.testing.assert_array_equal(g1.lda.components_, g2.lda.components_)


def test_paper_settings_and_overrides_reach_the_lda():
    m = fit_topics(TEXTS, 4, seed=1, max_iter=3, doc_topic_prior=0.5)
    assert isinstance(m, TopicModel) and m.n_topics == 4
    assert m.lda.learning_method == 'batch' and m.lda.random_state == 1 and m.lda.max_iter == 3
    assert m.lda.doc_topic_prior == 0.5
    assert m.vectorizer.stop_words == 'english' and m.vectorizer.min_df == 2


def test_planted_topics_are_recovered():
    m = fit_topics(TEXTS, 2, seed=0)
    tops = [set(col) for col in top_words(m, 10).T.to_numpy()]
    assert sorted(map(sorted, tops)) == sorted([sorted(FRUIT), sorted(TOOLS)])
    main = m.transform(TEXTS).argmax(1)
    agree = (main == SOURCES).mean()
    assert agree in (0.0, 1.0)  # each text's main topic is its source (up to the topics' order)
    props = topic_proportions(m, pd.Series(TEXTS[:5], index=list('abcde')))
    assert list(props.index) == list('abcde') and (props.n_words == 6).all()
    assert (props[[1, 2]].max(axis=1) > 0.8).all()


@pytest.mark.parametrize('k', [0, -1, 2.5, True, '3'])
def test_bad_number_of_topics(k):
    with pytest.raises(ValueError, match='integer >= 1'): fit_topics(TEXTS, k)


def test_bad_texts():
    with pytest.raises(ValueError, match='no texts'): fit_topics([])
    with pytest.raises(ValueError, match='no texts'): fit_topics(pd.Series([], dtype=object))
    with pytest.raises(TypeError, match='not a single string'): fit_topics('apple banana')
    with pytest.raises(TypeError, match=r"texts\['b'\] is float"): fit_topics(pd.Series(['apple pear', np.nan], index=['a', 'b']))
    with pytest.raises(ValueError, match='no words left'):
        fit_topics(['the and of it', 'it is what it is', 'to be or not to be', 'I a x'])
    with pytest.raises(ValueError, match='min_df=2'): fit_topics(['apple pear', 'hammer drill'])


def test_transform_rows_are_distributions_unknown_words_uniform():
    m = fit_topics(TEXTS, 3, seed=0, max_iter=5)
    p = m.transform(TEXTS[:20] + ['qqq zzz', ''])
    np.testing.assert_allclose(p.sum(1), 1)
    np.testing.assert_allclose(p[-2:], 1 / 3)
    assert topic_proportions(m, ['qqq', 'apple pear']).n_words.tolist() == [0, 2]


# ================================================================ top words

def test_top_words_shape_and_order_by_weight():
    m = fit_topics(TEXTS, 3, seed=0, max_iter=5)
    tw = topic_words(m, 7)
    assert list(tw.columns) == ['topic', 'rank', 'word', 'weight'] and len(tw) == 21
    for t, d in tw.groupby('topic'):
        assert d['rank'].tolist() == list(range(1, 8))
        assert (np.diff(d.weight) <= 0).all()
        row = m.topic_word[t - 1]
        np.testing.assert_allclose(d.weight, np.sort(row)[::-1][:7])
        assert d.word.tolist() == [m.words[i] for i in np.argsort(-row, kind='stable')[:7]]
    wide = top_words(m, 7)
    assert wide.shape == (7, 3) and list(wide.columns) == [1, 2, 3] and list(wide.index) == list(range(1, 8))
    assert wide[2].tolist() == tw[tw.topic == 2].word.tolist()
    assert top_words(m, 1000).shape == (len(m.words), 3)
    with pytest.raises(ValueError, match='at least 1'): topic_words(m, 0)


def test_paper_table_and_matching():
    assert PAPER_TOP_WORDS.shape == (25, 5) and list(PAPER_TOP_WORDS.columns) == [1, 2, 3, 4, 5]
    assert PAPER_TOP_WORDS.loc[1].tolist() == ['wanting', 'gf', 'telling', 'going', 'friend']  # Table 12, first row
    assert PAPER_TOP_WORDS[5].head(5).tolist() == ['friend', 'getting', 'girl', 'upset', 'ex']
    shuffled = PAPER_TOP_WORDS[[4, 5, 1, 3, 2]].set_axis([1, 2, 3, 4, 5], axis=1)
    m = match_topics(shuffled)
    assert dict(zip(m.their_topic, m.our_topic)) == {1: 3, 2: 5, 3: 4, 4: 1, 5: 2}
    assert (m.shared == 25).all()
    partial = pd.DataFrame({1: ['friend', 'girl', 'zzz'], 2: ['gf', 'parents', 'yyy']})
    m = match_topics(partial)
    got = dict(zip(m.our_topic, m.their_topic))
    assert got == {1: 5, 2: 2} and m.set_index('our_topic').loc[2, 'shared_words'] == 'gf, parents'


# ================================================================ perplexity and the number of topics

def test_heldout_splits_keep_copies_together():
    texts = [f'apple {w}' for w in FRUIT] * 3 + TEXTS[:40]
    for tr, te in heldout_splits(texts, test_size=0.3, n_splits=3, seed=0):
        assert not {texts[i] for i in tr} & {texts[i] for i in te}
        assert len(tr) + len(te) == len(texts)
    a = heldout_splits(texts, seed=5); b = heldout_splits(texts, seed=5)
    np.testing.assert_array_equal(a[0][1], b[0][1])
    with pytest.raises(ValueError, match='test_size'): heldout_splits(texts, test_size=1.0)
    with pytest.raises(ValueError, match='2 distinct'): heldout_splits(['same'] * 4)


def test_text_perplexity_matches_sklearn_and_the_per_text_bound():
    m = fit_topics(TEXTS[:150], 3, seed=0, max_iter=5)
    held = TEXTS[150:]
    X = m.counts(held)
    got = text_perplexity(m, held)
    np.testing.assert_allclose(got['perplexity'], m.lda.perplexity(X), rtol=1e-10)
    # the per-text part of the bound, computed here from its definition
    try: gamma = m.lda.transform(X, normalize=False)  # scikit-learn >= 1.5
    except TypeError: gamma = m.lda._unnormalized_transform(X)
    e_theta = digamma(gamma) - digamma(gamma.sum(1, keepdims=True))
    lam = m.lda.components_
    e_beta = digamma(lam) - digamma(lam.sum(1, keepdims=True))
    Xd, alpha, k = X.toarray(), m.lda.doc_topic_prior_, m.n_topics
    words = sum(Xd[d, w] * np.log(np.exp(e_theta[d] + e_beta[:, w]).sum())
                for d in range(Xd.shape[0]) for w in np.flatnonzero(Xd[d]))
    theta = ((alpha - gamma) * e_theta).sum() + (gammaln(gamma) - gammaln(alpha)).sum() \
        + (gammaln(alpha * k) - gammaln(gamma.sum(1))).sum()
    np.testing.assert_allclose(got['doc_perplexity'], np.exp(-(words + theta) / Xd.sum()), rtol=1e-8)
    assert got['doc_perplexity'] < got['perplexity'] and got['n_tokens'] == Xd.sum()
    with pytest.raises(ValueError, match='none of the'): text_perplexity(m, ['qqq', 'zzz'])


def test_topic_perplexity_table():
    df = topic_perplexity(TEXTS, ks=[3, 1, 2, 2], n_splits=2, n_jobs=1, max_iter=5)
    assert list(df.columns) == ['split', 'k', 'train_perplexity', 'heldout_perplexity', 'doc_perplexity', 'seconds',
                                'n_train', 'n_heldout', 'n_words', 'heldout_tokens']
    assert df.split.tolist() == [0, 0, 0, 1, 1, 1] and df.k.tolist() == [1, 2, 3, 1, 2, 3]
    assert (df[['train_perplexity', 'heldout_perplexity', 'doc_perplexity', 'seconds']] > 0).all().all()
    assert (df.n_train + df.n_heldout == len(TEXTS)).all()
    # planted two-topic texts: two topics predict held-out words far better than one
    assert best_k(df) == 2 and df.query('k == 2').doc_perplexity.max() < 0.8 * df.query('k == 1').doc_perplexity.min()
    # the same table whatever the number of processes
    par = topic_perplexity(TEXTS, ks=[3, 1, 2, 2], n_splits=2, n_jobs=2, max_iter=5)
    pd.testing.assert_frame_equal(df.drop(columns='seconds'), par.drop(columns='seconds'))


def test_topic_perplexity_vocabulary_from_the_training_part_only():
    # pairs of distinct texts sharing a rare word: the word counts only when both texts are in the training part
    texts = [f'{w} rare{j} ' + ('left' if i else 'right') for j, w in enumerate(FRUIT + TOOLS) for i in (0, 1)] + TEXTS[:60]
    df = topic_perplexity(texts, ks=[2], test_size=0.3, n_splits=3, seed=1, n_jobs=1, max_iter=3)
    for (tr, te), row in zip(heldout_splits(texts, 0.3, 3, seed=1), df.itertuples()):
        train, held = [texts[i] for i in tr], [texts[i] for i in te]
        vocab = set(topic_vectorizer().fit(train).vocabulary_)
        assert row.n_words == len(vocab) < len(topic_vectorizer().fit(texts).vocabulary_)
        m = fit_topics(train, 2, seed=1, max_iter=3)
        assert set(m.words) == vocab
        rare_held = {w for t in held for w in t.split() if w.startswith('rare')}
        rare_train = {w for t in train for w in t.split() if w.startswith('rare')}
        assert not (rare_held - rare_train) & vocab  # a word seen in held-out texts only is unknown to the model
        np.testing.assert_allclose(row.doc_perplexity, text_perplexity(m, held)['doc_perplexity'], rtol=1e-10)
        np.testing.assert_allclose(row.train_perplexity, m.lda.bound_, rtol=1e-10)


def test_topic_perplexity_bad_input():
    with pytest.raises(ValueError, match='no numbers of topics'): topic_perplexity(TEXTS, ks=[])
    with pytest.raises(ValueError, match='integer >= 1'): topic_perplexity(TEXTS, ks=[0, 2])
    with pytest.raises(ValueError, match='n_splits'): topic_perplexity(TEXTS, ks=[2], n_splits=0)
    with pytest.raises(ValueError, match='no texts'): topic_perplexity([], ks=[2])


# ================================================================ figures

def test_figures():
    m = fit_topics(TEXTS, 3, seed=0, max_iter=5)
    fig = plot_topics(m, n=4, ncols=2)
    visible = [a for a in fig.axes if a.get_visible()]
    assert len(visible) == 3
    assert [t.get_text() for t in visible[0].get_yticklabels()] == top_words(m, 4)[1].tolist()
    plt.close(fig)
    df = topic_perplexity(TEXTS, ks=[1, 2, 3], n_jobs=1, max_iter=3)
    fig = plot_perplexity(df)
    ax = fig.axes[0]
    assert ax.get_yscale() == 'log' and any(f'best k = {best_k(df)}' in t.get_text() for t in ax.texts)
    plt.close(fig)
