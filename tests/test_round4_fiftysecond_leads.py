"""Issue 39, the fifty-second hostile pass (on b74bd82): items that are positions (an unnamed index 0..n-1 in order, data
read without ids) beside labels that are those numbers in another order were matched label to position on one side of
the pairing only (a perfect model scored 0.31-0.49) where the labels were ids; text ids beside an id column in another order were paired by
position; an index named `PostID` was matched on X's `id` column rather than its `post_id`."""

import numpy as np
import pandas as pd
import pytest
from perfect_model import Perfect, V, f1, frame

from scruples import metrics as M
from scruples.annotations import read_annotated
from scruples.evaluation import score_predictions
from scruples.softmetrics import soft_metrics

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
        c = counts.loc[[str(v) for v in X["id"]]] if len(X) < len(df) else counts
        if ids == list(range(12)) and len(X) == len(df):  # '0'..'n-1' in order: ids, or positions? (leads53 #4)
            with pytest.raises(ValueError, match="ids \\(in id order\\) or positions"):
                f1(X, c)
            c = c.rename_axis("id")  # the advice where they are ids
        assert f1(X, c) == 1.0


def test_the_frame_of_data_read_without_ids_is_asked_beside_an_id_column():
    "leads53 #4: `pd.DataFrame(d0.counts, index=d0.items)` of data read without ids holds positions written as text."
    df = frame(PERM)
    d0 = read_annotated(df[V])
    F0 = pd.DataFrame(d0.counts, index=d0.items, columns=d0.classes)
    with pytest.raises(ValueError, match="or positions"):
        f1(df, F0)
    assert f1(df, F0.reset_index(drop=True)) == 1.0  # the advice where they are positions
    assert f1(df, d0) == 1.0


def test_data_read_from_a_shuffled_frames_vote_columns_holds_row_labels_not_ids():
    "leads53 #1: `read_annotated(sh[V])` took sh's row labels for ids read from an `id` column (0.31 beside X['id'])."
    sh = frame(PERM).sample(frac=1, random_state=1)
    d = read_annotated(sh[V])
    assert d.columns["rows"] and not d.columns["id"] and "row labels" in d.report
    with pytest.raises(ValueError, match="row labels or ids"):
        f1(sh, d)
    with pytest.raises(ValueError, match="row labels or ids"):
        f1(sh.set_index("id"), d)
    P = pd.DataFrame(Perfect().predict_proba(sh), index=pd.Index(sh["id"], name="id"), columns=Perfect.classes_)
    with pytest.raises(ValueError, match="row labels or ids"):
        score_predictions(P, d, n_boot=0)
    assert f1(sh.drop(columns="id"), d) == 1.0  # the advice where they are row labels
    with pytest.raises(ValueError, match="row labels or ids"):  # its id column and its positions both fit too
        f1(sh.reset_index(drop=True), d)
    assert score_predictions(P.set_axis(sh.index), d, n_boot=0)["f1"] == 1.0


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


def test_row_labels_held_as_objects_or_categories_are_asked_beside_ids():
    "leads53 #3: `sh.index.astype(object)` or a CategoricalIndex of row labels skipped 'row labels or ids?' (0.31)."
    df = frame(PERM)
    sh = df.sample(frac=1, random_state=1)
    counts = df.set_index("id")[V]
    P = Perfect().predict_proba(sh)
    for index in (sh.index.astype(object), pd.CategoricalIndex(sh.index)):
        with pytest.raises(ValueError, match="row labels or ids"):
            score_predictions(pd.DataFrame(P, index=index, columns=Perfect.classes_), counts, n_boot=0)


def test_unnamed_whole_float_ids_are_never_row_labels():
    "leads53 #2: unnamed 0.0..11.0 became unnamed ints, matched as row labels or positions (0.31)."
    df = frame(PERM)
    counts = df.set_index("id")[V].set_axis(df["id"].astype(float).to_numpy())
    for X, c in ((df.drop(columns="id"), counts), (df, counts.sort_index())):
        try:
            assert f1(X, c) == 1.0
        except ValueError:
            pass  # asked: fine; a wrong number is not


def test_two_id_columns_spelled_alike_are_asked():
    "leads53 #5: an index `Post_ID` beside columns `PostID` and `post_id` took `post_id` by case alone (0.31)."
    rng = np.random.default_rng(4)
    df = frame([int(v) for v in rng.permutation(12)]).rename(columns={"id": "post_id"})
    df["PostID"] = rng.permutation(12)
    counts = df.set_index("PostID")[V].rename_axis("Post_ID")
    with pytest.raises(ValueError, match="which holds the ids"):
        f1(df.sample(frac=1, random_state=1), counts)


def test_a_superset_beside_positions_is_not_advised_to_pick_rows_by_position():
    "leads53: predictions of every item beside a split's votes under a plain index were told .loc[counts.index] (0.33)."
    df = frame(PERM)
    te = df.iloc[6:]
    P = pd.DataFrame(Perfect().predict_proba(df), index=pd.Index(df["id"], name="id"), columns=Perfect.classes_)
    with pytest.raises(ValueError, match="positions, not ids") as e:
        score_predictions(P, te[V].reset_index(drop=True), n_boot=0)
    assert ".loc[" not in str(e.value)


def test_a_frames_named_index_is_read_as_the_ids_not_as_a_class():
    "leads53: `read_annotated(pd.crosstab(long.post, long.label))` read the post ids as votes of a class `post`."
    long = pd.DataFrame({"post": [7, 7, 7, 9, 9, 12, 12, 12], "label": list("yynynnny")})
    d = read_annotated(pd.crosstab(long.post, long.label))
    assert d.classes == ("n", "y") and d.items == ["7", "9", "12"] and d.counts.tolist() == [[1, 2], [1, 1], [2, 1]]
    g = long.assign(yes=long.label.eq("y").astype(int), no=long.label.eq("n").astype(int)).groupby("post")[V].sum()
    assert read_annotated(g).classes == ("yes", "no")
