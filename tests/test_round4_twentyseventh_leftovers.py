"""The twenty-seventh pass's weaker findings (issue 39), the same kind as its defects: a Series or frame of scores
paired with a table by position where its index and columns name what it belongs to."""
import numpy as np
import pandas as pd
import pytest


def test_bias_correlations_match_a_series_of_scores_to_the_table_by_index():
    """`mcm.bias_correlations(table, scores)` took a Series of scores by position: sorted by score (`s.sort_values()`),
    each verb's score was correlated with another verb's WEAT value. It is matched to the rows by its index."""
    from scruples.mcm import bias_correlations

    rng = np.random.default_rng(0)
    table = pd.DataFrame({'weat': rng.normal(size=30), 'use_bias': rng.normal(size=30)},
                         index=[f'verb{i}' for i in range(30)])
    scores = pd.Series(table.weat.to_numpy() * 2 + rng.normal(0, 0.3, 30), index=table.index)
    ref = bias_correlations(table, scores)
    got = bias_correlations(table, scores.sort_values())
    assert got.pearson_r.tolist() == pytest.approx(ref.pearson_r.tolist()) and ref.pearson_r[0] > 0.9
    assert bias_correlations(table, scores.to_numpy()).pearson_r.tolist() == pytest.approx(ref.pearson_r.tolist())
    with pytest.raises(ValueError, match='index'):
        bias_correlations(table, scores.rename(lambda s: s + 'x'))


def test_dilemma_metrics_match_a_frame_of_probabilities_by_its_names():
    """`bridge.dilemma_metrics(probs, dilemmas)` took a frame of probabilities by position: columns action_2, action_1
    scored the mirror model, and rows in another order other dilemmas' votes. Matched by name now."""
    from scruples.bridge import dilemma_metrics
    from scruples.corpus import load_dilemmas

    d = load_dilemmas('dev', synthetic=True, n=60, seed=1)
    rng = np.random.default_rng(2)
    p1 = np.clip(d.gold_label.to_numpy() * -0.6 + 0.8 + rng.normal(0, 0.1, len(d)), 0.05, 0.95)
    P = pd.DataFrame({'action_1': p1, 'action_2': 1 - p1}, index=d.index)
    ref = dilemma_metrics(P.to_numpy(), d)
    assert dilemma_metrics(P[['action_2', 'action_1']], d) == pytest.approx(ref)
    assert dilemma_metrics(P.iloc[::-1], d) == pytest.approx(ref)


@pytest.mark.parametrize('model', ['Prior', 'Sample', 'Length'])
def test_tune_refuses_a_class_weight_a_model_cannot_use(model):
    """`tune('Sample'/'Length', class_weight='balanced')` ignored the weight without a word (only Prior was documented
    to): the three fit no classifier, so the weight is refused; the guide tries no balanced run of them."""
    from scruples.baselines import tune

    X = pd.DataFrame({'action_1': [f'doing thing {i}' for i in range(40)],
                      'action_2': [f'not doing the other thing {i}' for i in range(40)]})
    C = pd.DataFrame(np.eye(2, dtype=int)[np.arange(40) % 2] * 3, columns=['action_1', 'action_2'])
    with pytest.raises(ValueError, match='no class weight'):
        tune(model, X, C, 'dilemmas', class_weight='balanced', budget=1, n_jobs=1, progress=False)
    assert tune(model, X, C, 'dilemmas', budget=1, n_jobs=1, progress=False).model is not None
