"""Issue 39, the fifty-second hostile pass (on b74bd82): items that are positions (an unnamed index 0..n-1 in order, data
read without ids) beside labels that are those numbers in another order were matched label to position on one side of
the pairing only (a perfect model scored 0.31-0.49) where the labels were ids; text ids beside an id column in another order were paired by
position; an index named `PostID` was matched on X's `id` column rather than its `post_id`."""

import numpy as np
import pandas as pd
import pytest

from scruples import metrics as M
from scruples.annotations import read_annotated
from scruples.evaluation import evaluate, score_predictions
from scruples.softmetrics import soft_metrics

V = ["yes", "no"]


class Perfect:
    "Reads each text's class from its first word, with probability 0.99."

    classes_ = np.array(["no", "yes"])

    def fit(self, X, y=None):
        return self

    def predict_proba(self, X):
        y = np.array([1 if str(s).startswith("yes") else 0 for s in X["text"]])
        return np.c_[np.where(y == 0, 0.99, 0.01), np.where(y == 1, 0.99, 0.01)]


def frame(ids, seed=0):
    ids = list(ids)
    lab = np.random.default_rng(seed).integers(0, 2, len(ids))
    lab[0], lab[1] = 0, 1
    yes = np.where(lab == 1, 4, 1)
    return pd.DataFrame(
        {
            "id": ids,
            "text": [("yes" if v else "no") + f"-{i}" for i, v in enumerate(lab)],
            "yes": yes,
            "no": 5 - yes,
        }
    )


def f1(X, counts):
    return evaluate(Perfect(), X, counts, n_boot=0)["f1"]


PERM = [int(v) for v in np.random.default_rng(3).permutation(12)]


@pytest.mark.parametrize("ids", [PERM, list(range(12))])
def test_predictions_by_id_beside_counts_by_position_are_asked(ids):
    "The mirror of the refused (predictions by position, counts by id): counts read with a RangeIndex, predictions by id."
    df = frame(ids).sample(frac=1, random_state=1).reset_index(drop=True)
    P = Perfect().predict_proba(df)
    proba = pd.DataFrame(
        P, index=pd.Index(df["id"], name="id"), columns=Perfect.classes_
    )
    counts = df[V]
    for call in (
        lambda: score_predictions(proba, counts, n_boot=0),
        lambda: M.xentropy(counts, proba),
        lambda: soft_metrics(counts, proba),
        lambda: score_predictions(proba, read_annotated(counts), n_boot=0),
    ):
        with pytest.raises(ValueError, match="positions or ids"):
            call()
    # the advice for rows in the same order: by position
    assert (
        score_predictions(proba.reset_index(drop=True), counts, n_boot=0)["f1"] == 1.0
    )


def test_row_labels_beside_a_plain_index_are_matched_by_label_as_pandas_aligns():
    "A frame's row labels, sampled or sorted since, beside the frame's plain index: by label (the twelfth pass's case)."
    df = frame(range(100, 112))
    sh = df.sample(frac=1, random_state=1)
    proba = pd.DataFrame(
        Perfect().predict_proba(sh), index=sh.index, columns=Perfect.classes_
    )
    assert score_predictions(proba, df[V], n_boot=0)["f1"] == 1.0
    assert f1(df, sh[V]) == 1.0


def test_calibration_probabilities_by_id_beside_calibration_counts_by_position_are_asked():
    m = Perfect()
    df = frame(PERM).sample(frac=1, random_state=1).reset_index(drop=True)
    cal = frame(PERM, seed=7).sample(frac=1, random_state=2).reset_index(drop=True)
    proba_cal = pd.DataFrame(
        m.predict_proba(cal), index=pd.Index(cal["id"], name="id"), columns=m.classes_
    )
    with pytest.raises(ValueError, match="positions or ids"):
        score_predictions(
            m.predict_proba(df),
            df[["no", "yes"]].to_numpy(),
            proba_cal=proba_cal,
            counts_cal=cal[V],
            n_boot=0,
        )


@pytest.mark.parametrize("ids", [list(range(12)), PERM])
def test_text_ids_are_matched_on_the_id_column(ids):
    "Counts keyed by an AnnotatedData's items (text), in id order, beside examples whose id column is in another order."
    df = frame(ids)
    d = read_annotated(df)
    counts = pd.DataFrame(d.counts, index=d.items, columns=d.classes)
    sh = df.sample(frac=1, random_state=1)
    for X in (sh.reset_index(drop=True), sh, sh.iloc[:7]):
        assert (
            f1(X, counts.loc[[str(v) for v in X["id"]]] if len(X) < len(df) else counts)
            == 1.0
        )


def test_data_read_without_ids_is_positions_beside_a_shuffled_frame():
    df = frame(PERM)
    d0 = read_annotated(df[V])  # no id column: its items are the file's positions
    sh = df.sample(frac=1, random_state=2)
    with pytest.raises(ValueError, match="positions or items") as e:
        f1(sh, d0)
    assert "rename_axis" not in str(e.value)  # no index to rename on an AnnotatedData
    assert f1(df, d0) == 1.0  # in its order: by position


@pytest.mark.parametrize("index_name", ["PostID", "postId", "Post-ID"])
def test_an_index_spelled_otherwise_is_matched_on_its_column(index_name):
    rng = np.random.default_rng(4)
    df = frame([int(v) for v in rng.permutation(12)])  # `id`: another numbering
    df["post_id"] = rng.permutation(12)
    sh = df.sample(frac=1, random_state=1)
    counts = df.set_index("post_id")[V].rename_axis(index_name)
    assert f1(sh, counts) == 1.0
