"""Issue 39, the lead's own finds of stop 61 (silent wrong): an LDA argument overriding the seed, Table 8's CPU rows
naming MiniLM whatever encoder was trained. ("Not YTA" read as AUTHOR: tests/test_extraction_seams.py.)"""
import pandas as pd
import pytest

from scruples.model_runs import add_model_rows, encoder_label, table8
from scruples.reproduce import Comparison
from scruples.topics import fit_topics, topic_perplexity

TEXTS = ['apple banana cherry dog', 'banana cherry dog egg', 'cherry dog egg fig', 'apple cherry egg', 'banana dog fig'] * 4


@pytest.mark.parametrize('kw', [{'random_state': 3}, {'n_components': 3}])
def test_lda_arguments_that_would_override_seed_or_n_topics_are_refused(kw):
    """Silent wrong: `fit_topics(texts, seed=0, random_state=3)` fitted with random_state 3 (the LDA keyword won over
    `seed`); now refused, naming the parameter to use. The same for `topic_perplexity`."""
    with pytest.raises(TypeError, match='instead of'):
        fit_topics(TEXTS, 2, **kw)
    with pytest.raises(TypeError, match='instead of'):
        topic_perplexity(TEXTS, ks=[2], n_jobs=1, **kw)


def test_other_lda_arguments_still_reach_lda():
    assert fit_topics(TEXTS, 2, doc_topic_prior=0.5).lda.doc_topic_prior == 0.5


def _cpu(encoder):
    row = dict(likelihood='dirichlet', seed=0, epochs=3, f1=0.5, f1_lo=0.4, f1_hi=0.6, xentropy=1.0, xentropy_lo=0.9,
               xentropy_hi=1.1)
    return pd.DataFrame([row if encoder is None else row | {'encoder': encoder}])


def test_table8_names_the_encoder_the_cpu_runs_trained():
    """Silent wrong: `cpu_runs(..., model='bert-base-uncased')` then `table8` said 'ours CPU, MiniLM + dirichlet'; the
    runs now record their encoder and the tables name it."""
    assert encoder_label(None) == 'MiniLM' and encoder_label('sentence-transformers/all-MiniLM-L6-v2') == 'MiniLM'
    assert encoder_label('/models/bert-base-uncased/') == 'bert-base-uncased'
    t8 = table8(_cpu('bert-base-uncased'))
    assert t8.model.iloc[-1] == 'ours CPU, bert-base-uncased + dirichlet, 1 seed, 3 epochs'
    assert 'MiniLM' not in table8(_cpu(None)).model.iloc[-1]  # an older table without the column: not guessed
    cmp = add_model_rows(Comparison('06_models'), _cpu('roberta-base'), 'real')
    assert [r['quantity'] for r in cmp.rows] == [f'roberta-base + dirichlet (CPU, 1 seed) test {m}'
                                                 for m in ('macro F1', 'xentropy')]
