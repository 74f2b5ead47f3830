"""Issue 39, the fifty-sixth hostile pass (on 71e7fb0): a swapped binary model on data 96% one class was never warned of
its class order (f1 0.0, silent), and was told it had collapsed, where its one predicted class is the other's column; a
frame's row labels under an index named `index` or `Unnamed: 0` were read as ids and paired by position (0.66); an id
column of the examples holding none of the items was passed over (by position); a crosstab by post and annotator was read as one item per annotator; a long
frame indexed by its items was refused; the votes given where the predictions go crashed."""

import warnings

import numpy as np
import pandas as pd
import pytest
from perfect_model import V, f1, frame

from scruples import metrics
from scruples.annotations import read_annotated
from scruples.evaluation import (
    ClassOrderWarning,
    class_order_warning,
    prediction_warnings,
    score_predictions,
)


@pytest.mark.parametrize('share', [0.90, 0.97, 0.985])
def test_a_swapped_model_on_data_mostly_of_one_class_is_warned(share):
    rng = np.random.default_rng(1)
    n = 400
    y = (rng.random(n) > share).astype(int)  # 1: yes, the rare class
    y[:3] = 1
    yes = np.where(y == 1, 4, 1)
    d = read_annotated(pd.DataFrame({'id': range(n), 'no': 5 - yes, 'yes': yes}))  # classes in file order: no, yes
    p = np.c_[np.where(y == 1, 0.99, 0.01), np.where(y == 1, 0.01, 0.99)]  # a perfect model's columns yes, no
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        f = score_predictions(p, d, n_boot=0)['f1']
    assert f < 0.1 and any(issubclass(x.category, ClassOrderWarning) for x in w)
    kinds = [x['kind'] for x in prediction_warnings(p, d.classes, 'm', y_true=y)]
    assert kinds == ['class order']  # its one class is the other's column: not "collapsed"
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        assert score_predictions(p[:, ::-1], d, n_boot=0)['f1'] == 1.0
    assert not any(issubclass(x.category, ClassOrderWarning) for x in w)


def test_a_model_of_the_majority_class_is_collapsed_not_swapped():
    rng = np.random.default_rng(2)
    y = (rng.random(500) > 0.96).astype(int)
    pred = np.zeros(500, int)
    pred[:4] = 1  # the votes' majority class nearly always, a few others
    assert class_order_warning(pred, y, ['no', 'yes']) is None
    p = np.eye(2)[pred] * 0.98 + 0.01
    assert [x['kind'] for x in prediction_warnings(p, ['no', 'yes'], 'm', y_true=y)] == ['collapsed']
    for k in (2, 3):
        y3 = rng.choice(k, 600, p=[0.96] + [0.04 / (k - 1)] * (k - 1))
        assert class_order_warning(np.full(600, 1), y3, list('abc')[:k]) is None  # one class predicted


@pytest.mark.parametrize('name', ['index', 'Unnamed: 0', 'level_0'])
def test_an_index_named_by_pandas_holds_row_labels(name):
    df = frame(range(101, 113))
    d = read_annotated(df.sample(frac=1, random_state=7)[V].rename_axis(name))
    assert "the frame's row labels" in d.report and f1(df, d) == 1.0


def test_an_id_column_holding_none_of_the_items_is_refused():
    df = frame(range(101, 113))
    d = read_annotated(df.assign(post=[f'p{i}' for i in range(12)])[['post', *V]], id='post')
    with pytest.raises(ValueError, match='holds none of the ids'):
        f1(df, d)  # its `id` holds 101..112, the items p0..p11
    assert f1(df.assign(post=[f'p{i}' for i in range(12)]).sample(frac=1, random_state=1), d) == 1.0


def test_a_crosstab_by_annotator_and_a_long_frame_indexed_by_its_items():
    long = pd.DataFrame({'post': [7, 7, 7, 9, 9, 12], 'annotator': list('abcabc'), 'label': list('yynynn')})
    with pytest.raises(ValueError, match="names annotators.*item='post', annotator='annotator'"):
        read_annotated(pd.crosstab([long.post, long.annotator], long.label))
    for kw in ({}, {'form': 'long'}):
        d = read_annotated(long.set_index('post'), **kw)
        assert d.items == ['7', '9', '12'] and d.counts.tolist() == [[1, 2], [1, 1], [1, 0]]
        d = read_annotated(long.set_index(['post', 'annotator']), **kw)
        assert d.items == ['7', '9', '12'] and d.counts.tolist() == [[1, 2], [1, 1], [1, 0]] and len(d.annotators) == 3
    ct = pd.crosstab(long.post, long.label)
    with pytest.raises(ValueError, match=r"majority vote\?\): name the count columns, counts='n,y'"):
        read_annotated(ct.assign(label=np.where(ct.y >= ct.n, 'y', 'n')))


def test_the_votes_where_the_predictions_go_are_said_swapped():
    d = read_annotated(frame(range(12))[['id', *V]])
    p = pd.DataFrame(np.full((12, 2), 0.5), columns=V, index=pd.Index(list(d.items), name='id'))
    with pytest.raises(ValueError, match='arguments swapped'):
        metrics.xentropy(p, d)


def test_score_chooses_the_ceilings_prior_on_every_item_of_the_gold_with_or_without_a_split_column(tmp_path):
    import json

    from cli_run import scruples

    rng = np.random.default_rng(5)
    n = 40
    p = rng.dirichlet([1.4, 1.8, 0.9], n)
    votes = np.array([rng.multinomial(5, q) for q in p])
    gold = pd.DataFrame({'id': range(n), 'yes': votes[:, 0], 'no': votes[:, 1], 'unsure': votes[:, 2]})
    gold.to_csv(tmp_path / 'gold.csv', index=False)
    gold.assign(split=['test'] * 10 + ['dev'] * 30).to_csv(tmp_path / 'gold_split.csv', index=False)
    proba = pd.DataFrame(rng.dirichlet([2, 2, 2], n), columns=['yes', 'no', 'unsure']).assign(id=range(n))
    proba.iloc[:10].to_csv(tmp_path / 'pred.csv', index=False)
    proba.iloc[10:].to_csv(tmp_path / 'cal.csv', index=False)
    got = {}
    for g in ('gold.csv', 'gold_split.csv'):
        r = scruples('score', tmp_path / 'pred.csv', tmp_path / g, '--cal', tmp_path / 'cal.csv', '--json', '--bootstrap', 50)
        assert r.returncode == 0, r.stderr
        got[g] = json.loads(r.stdout)
    assert got['gold.csv']['alpha'] == got['gold_split.csv']['alpha']  # chosen on the 40 items, not the 10 scored
    assert 'fitted on 40 items' in json.dumps(got['gold.csv'])


def test_agree_by_a_column_of_the_long_file_says_it_is_read(tmp_path):
    from cli_run import scruples

    rng = np.random.default_rng(1)
    rows = [(i, f'a{a}', rng.choice(['yes', 'no']), 'g1' if a < 2 else 'g2', 30 + a) for i in range(20) for a in range(4)]
    pd.DataFrame(rows, columns=['item', 'annotator', 'label', 'group', 'age']).to_csv(tmp_path / 'long.csv', index=False)
    r = scruples('agree', tmp_path / 'long.csv', '--long', '--by', 'group')
    assert r.returncode == 0, r.stderr
    read = r.stdout.split('annotators:')[0]
    assert 'columns not read: age' in ' '.join(read.split()) and 'group: the annotators' in ' '.join(read.split())


@pytest.mark.parametrize('name', ['index', 'level_0', 'Unnamed: 0'])
def test_predictions_with_pandas_row_labels_beside_their_ids(tmp_path, name):
    from cli_run import scruples

    g = pd.DataFrame({'item': [f'q{i}' for i in range(12)], 'yes': [4, 1] * 6, 'no': [1, 4] * 6})
    g.to_csv(tmp_path / 'gold.csv', index=False)
    p = pd.DataFrame({'item': g.item, 'yes': [0.9, 0.1] * 6, 'no': [0.1, 0.9] * 6}).sample(frac=1, random_state=1)
    p.reset_index(names=name).to_csv(tmp_path / 'p.csv', index=False)
    r = scruples('score', tmp_path / 'p.csv', tmp_path / 'gold.csv', '--bootstrap', 0, '--json')
    assert r.returncode == 0, r.stderr
    import json

    assert {m['metric']: m['model'] for m in json.loads(r.stdout)['metrics']}['accuracy'] == 1.0


def test_rare_classes_swapped_under_a_majority_predicted_right_are_warned():
    n = 300
    y = np.zeros(n, int)
    y[:6], y[6:12] = 1, 2  # 288 ok, 6 rude, 6 mean
    counts = np.ones((n, 3), int)
    counts[np.arange(n), y] += 4
    right = np.full((n, 3), 0.05)
    right[np.arange(n), y] = 0.9
    swapped = right[:, [0, 2, 1]]  # the rude and mean columns swapped
    assert [w['kind'] for w in prediction_warnings(swapped, ['ok', 'rude', 'mean'], y_true=y)] == ['class order']
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        assert score_predictions(swapped, counts, n_boot=0)['f1'] < 0.5
    assert any(issubclass(x.category, ClassOrderWarning) for x in w)


def test_a_model_collapsed_to_a_rare_class_is_collapsed_and_a_models_named_classes_leave_no_order_to_doubt():
    classes = ['author', 'other', 'everybody', 'nobody', 'info']
    rng = np.random.default_rng(3)
    y = np.zeros(60, int)
    y[:6] = 1
    pred = np.full(60, 4)
    pred[rng.choice(60, 3, replace=False)] = 1  # 'info' for 57 of 60 items, whose majority is author or other
    p = np.full((60, 5), 0.1)
    p[np.arange(60), pred] = 0.6
    assert [w['kind'] for w in prediction_warnings(p, classes, y_true=y)] == ['collapsed']
    y2, p2 = np.zeros(40, int), np.tile([0.2, 0.8], (40, 1))  # every item 'no'; the model 'yes' on 39 of 40
    p2[0] = [0.8, 0.2]
    assert [w['kind'] for w in prediction_warnings(p2, ['no', 'yes'], y_true=y2)] == ['collapsed']
    swapped = np.eye(5)[np.where(np.arange(60) < 6, 4, 1)] * 0.9 + 0.02  # 'info' on the other items, 'other' on author
    counts = pd.DataFrame(np.eye(5, dtype=int)[y] * 3 + 1, columns=classes)
    for given in (swapped, pd.DataFrame(swapped, columns=classes)):  # columns a user named by position: weighed too
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            score_predictions(given, counts, n_boot=0)
        assert any(issubclass(x.category, ClassOrderWarning) for x in w)

    class Named:  # a model whose own classes_ name its columns: matched by name in `evaluate`, no order to doubt
        classes_ = np.array(classes)

        def predict_proba(self, X):
            return swapped

    from scruples.evaluation import evaluate

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        evaluate(Named(), pd.DataFrame({'text': range(60)}), counts, n_boot=0)
    assert not any(issubclass(x.category, ClassOrderWarning) for x in w)
