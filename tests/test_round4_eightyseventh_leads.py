"""Issue 39, the eighty-seventh pass (on 7bc835d against 30be0f4): three regressions of the last stop's rules. An item's
number beside a yes/no question's answers (`Tweet_No` beside `Tweet_Yes`) was read as a class's votes (exit 0, a
ceiling of 1.0); ids named for a job, an attempt or an upload that are the items gave way to a text they share (their
hint, pasted, merged 15 items into 5); a column that rotates the items over the annotators (a Latin square's `group`,
a `display_order`) was offered before the item's real part where that part is named for an occasion (`edit`)."""

import json

import numpy as np
import pandas as pd
import pytest
from cli_run import hint_then_read, reads_as, said


@pytest.mark.parametrize('no,yes,other', [('Tweet_No', 'Tweet_Yes', 'Tweet_Unsure'), ('Item_No', 'Item_Yes', 'Item_Maybe'),
                                          ('TweetNo', 'TweetYes', 'TweetUnsure')])
def test_an_items_number_beside_its_yes_is_the_items_number_not_a_class(tmp_path, no, yes, other):
    """`Tweet_No,Tweet_Yes,Tweet_Unsure` with `Tweet_No` the tweets' numbers 1000, 1001, ..: read as the votes of a
    class `Tweet_No` (12,123 votes), and `best` printed accuracy 1.0 [1.0, 1.0]. Numbers that rise by one down the rows
    are the items' numbers: refused, naming `--id` with the other two columns as the counts."""
    rng = np.random.default_rng(60)
    c = rng.multinomial(5, [0.6, 0.4], 12)
    pd.DataFrame({no: np.arange(1000, 1012), yes: c[:, 0], other: c[:, 1]}).to_csv(tmp_path / 'w.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'w.csv')
    assert rc != 0 and f'--id {no}, --counts {yes},{other}' in out, out
    reads_as(tmp_path / 'w.csv', ['--id', no, '--counts', f'{yes},{other}'], f'12 items; wide: 12 items, classes {yes}/{other}')
    rc, out = said('best', tmp_path / 'w.csv', '--id', no, '--counts', f'{yes},{other}', '--bootstrap', '0', '--json',
                   joined=False)
    got = json.loads(out)
    assert rc == 0 and got['examples'] == 12 and got['estimates'][0]['estimate'] < 0.95, got  # (was 1.0 of 12,123)


def test_a_questions_number_beside_an_id_is_left_out(tmp_path):
    "`id,question_no,question_yes,question_other`: `question_no` (1-12) was read as a class of 78 votes beside 60."
    rng = np.random.default_rng(61)
    c = rng.multinomial(5, [0.5, 0.5], 12)
    pd.DataFrame({'id': [f'q{i}' for i in range(12)], 'question_no': np.arange(1, 13), 'question_yes': c[:, 0],
                  'question_other': c[:, 1]}).to_csv(tmp_path / 'q.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'q.csv')
    assert rc != 0 and '--counts question_yes,question_other' in out, out
    reads_as(tmp_path / 'q.csv', ['--counts', 'question_yes,question_other'], 'columns not read: question_no')


def test_a_yes_no_questions_counts_stay_its_classes(tmp_path):
    "Control: `claim_id,claim_yes,claim_no` of counts (the eighty-fourth pass): two classes, read bare."
    rng = np.random.default_rng(62)
    c = rng.multinomial(5, [0.7, 0.3], 10)
    pd.DataFrame({'claim_id': [f'c{i}' for i in range(10)], 'claim_yes': c[:, 0], 'claim_no': c[:, 1]}).to_csv(
        tmp_path / 'c.csv', index=False)
    reads_as(tmp_path / 'c.csv', [], '10 items; wide: 10 items, classes claim_yes/claim_no')


@pytest.mark.parametrize('text,ids,who', [('title', 'job_id', 'worker'), ('prompt', 'job_id', 'annotator'),
                                          ('question', 'attempt_id', None), ('text', 'upload_id', None)])
def test_ids_named_for_a_job_an_attempt_or_an_upload_stay_the_items(tmp_path, text, ids, who):
    """Job postings under 5 titles (`title,job_id,worker,label`), a model's completions of 5 prompts, students' attempts
    at 4 questions, memes uploaded with 5 captions: the last stop's rule let ids named for a rerun give way to the text
    they split, and the hint, pasted, merged the 15-20 items into 4-5. Only a pass's, batch's, wave's, crawl's or
    retry's ids give way: split items keep each item's votes apart, merged ones mix them."""
    rng = np.random.default_rng(63)
    rows = [{text: f'{text} {t}', ids: f'{ids[:3]}-{t}-{j}', **({who: f'w{3 * j + k}'} if who else {}),
             'label': rng.choice(['a', 'b'])} for t in range(5) for j in range(3) for k in range(3)]  # (no annotator
    # sees a text twice: nine annotators, each the same three of every text's ids)
    hint_then_read(tmp_path / 'j.csv', rows, ids, '15 items, 45 votes')


@pytest.mark.parametrize('part,design', [('edit', 'group'), ('version', 'display_order'), ('timestamp', 'block'),
                                         ('session', 'screen')])
def test_an_items_part_named_for_an_occasion_is_offered_before_a_counterbalancing_column(tmp_path, part, design):
    """`image_id,edit,annotator,group,label` (each image's edits, a Latin square's `group` rotating them over the
    annotators): after `--long --item image_id` the repeats refusal offered `--item image_id,group` first, and its
    paste read the right totals with every item mixing three edits. A column named for a design's rotation is named
    last."""
    rng = np.random.default_rng(64)
    rows = [{'image_id': f'img{i}', part: f'{part}{e}', 'annotator': f'a{k}', design: (e + k) % 3,
             'label': rng.choice(['real', 'fake'])} for i in range(5) for e in range(3) for k in range(3)]
    pd.DataFrame(rows).to_csv(tmp_path / 'e.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'e.csv', '--long', '--item', 'image_id')
    other = out.find(f'--item image_id,{design}')
    assert rc != 0 and (other < 0 or out.index(f'--item image_id,{part}') < other), out
    reads_as(tmp_path / 'e.csv', ['--long', '--item', f'image_id,{part}'], '15 items, 45 votes by 3 annotators')


def test_the_refusals_hint_of_an_items_number_pastes(tmp_path):
    "The `--id` hint above, as the user pastes it from the refusal, reads the two classes."
    rng = np.random.default_rng(65)
    c = rng.multinomial(4, [0.5, 0.5], 8)
    pd.DataFrame({'Post_No': np.arange(1, 9), 'Post_Yes': c[:, 0], 'Post_Unsure': c[:, 1]}).to_csv(
        tmp_path / 'p.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'p.csv')
    flags = [w for part in out.split("the items' numbers: ")[1].split(';')[0].split(', ') for w in part.split()]
    assert rc != 0 and flags == ['--id', 'Post_No', '--counts', 'Post_Yes,Post_Unsure'], out
    reads_as(tmp_path / 'p.csv', flags, '8 items; wide: 8 items, classes Post_Yes/Post_Unsure')


def test_two_yes_no_questions_side_by_side_are_refused_naming_each(tmp_path):
    """`tweet_id,toxic_yes,toxic_no,sarcastic_yes,sarcastic_no` (each annotator answered both questions) was read as
    four classes: every vote counted twice, the two questions mixed (both versions, exit 0). Refused, naming each
    question's `--counts`; each, pasted, reads that question's votes."""
    rng = np.random.default_rng(66)
    t, s = rng.multinomial(5, [0.3, 0.7], 10), rng.multinomial(5, [0.6, 0.4], 10)
    pd.DataFrame({'tweet_id': [f't{i}' for i in range(10)], 'toxic_yes': t[:, 0], 'toxic_no': t[:, 1],
                  'sarcastic_yes': s[:, 0], 'sarcastic_no': s[:, 1]}).to_csv(tmp_path / 't.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 't.csv')
    assert rc != 0 and '--counts toxic_yes,toxic_no or --counts sarcastic_yes,sarcastic_no' in out, out
    reads_as(tmp_path / 't.csv', ['--counts', 'toxic_yes,toxic_no'], '10 items; wide: 10 items, classes toxic_yes/toxic_no')


def test_a_four_point_yes_no_scale_is_one_question(tmp_path):
    "Control: `definitely_yes,probably_yes,probably_no,definitely_no` is one question's scale: read bare."
    c = np.random.default_rng(67).multinomial(6, [0.2, 0.3, 0.3, 0.2], 12)
    pd.DataFrame(c, columns=['definitely_yes', 'probably_yes', 'probably_no', 'definitely_no']).assign(
        id=[f'q{i}' for i in range(12)]).to_csv(tmp_path / 's.csv', index=False)
    reads_as(tmp_path / 's.csv', [], '12 items; wide: 12 items, classes definitely_yes/probably_yes/probably_no')


# --- the eighty-eighth pass (on this stop's mends) --------------------------------------------------------------------

@pytest.mark.parametrize('order', ['shuffled', 'falling', 'gaps', 'shuffled_small'])
def test_an_items_number_in_any_order_beside_its_yes_is_not_a_class(tmp_path, order):
    """The mend above caught only numbers rising by one: shuffled (1011, 1001, ..), falling, gapped (4, 6, 16, ..) or a
    shuffled 1-12 were still read as a class of up to 12,129 votes. Distinct numbers that run one way down 8 rows or
    more, cover one range in any order, or pass three times every row's other votes are the items' numbers."""
    rng = np.random.default_rng(70)
    n = {'shuffled': rng.permutation(np.arange(1000, 1012)), 'falling': np.arange(1011, 999, -1),
         'gaps': np.sort(rng.choice(60, 12, replace=False)) + 1, 'shuffled_small': rng.permutation(np.arange(1, 13))}[order]
    c = rng.multinomial(5, [0.5, 0.5], 12)
    pd.DataFrame({'Tweet_No': n, 'Tweet_Yes': c[:, 0], 'Tweet_Unsure': c[:, 1]}).to_csv(tmp_path / 'w.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'w.csv')
    assert rc != 0 and '--id Tweet_No, --counts Tweet_Yes,Tweet_Unsure' in out, out


@pytest.mark.parametrize('n', [5, 6, 7])
def test_a_pilots_no_counts_that_happen_to_rise_stay_votes(tmp_path, n):
    """The eighty-eighth pass: a pilot of 5-7 items whose `Tweet_No` votes happen to run 1, 2, 3, .. (the totals varying)
    was refused by the mend above, and two of its three readings dropped the votes: on fewer than 8 rows such counts
    stay a class."""
    rng = np.random.default_rng(71)
    pd.DataFrame({'Tweet_Yes': rng.integers(1, 7, n), 'Tweet_No': np.arange(1, n + 1)}).to_csv(tmp_path / 'p.csv',
                                                                                            index=False)
    reads_as(tmp_path / 'p.csv', [], f'{n} items; wide: {n} items, classes Tweet_Yes/Tweet_No')


def test_three_yes_no_questions_are_each_named(tmp_path):
    "The eighty-eighth pass: three questions side by side: the refusal said every vote counts 3 times, named two."
    rng = np.random.default_rng(72)
    cols = {}
    for q in ('toxic', 'sarcastic', 'funny'):
        c = rng.multinomial(4, [0.5, 0.5], 10)
        cols |= {f'{q}_yes': c[:, 0], f'{q}_no': c[:, 1]}
    pd.DataFrame(cols).to_csv(tmp_path / 't.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 't.csv')
    assert rc != 0 and all(f'--counts {q}_yes,{q}_no' in out for q in ('toxic', 'sarcastic', 'funny')), out


def test_a_fourth_column_that_sets_the_repeats_apart_is_offered(tmp_path):
    """The eighty-eighth pass: `doc_id,block,order,position,slot` (a document's blocks, three columns of each
    annotator's shuffles): `block`, the real part and named for a design, was cut from the three offered."""
    rng = np.random.default_rng(73)
    rows = []
    for d in range(5):
        for k in range(3):
            shuffles = [rng.permutation(3) + 1 for _ in range(3)]
            rows += [{'doc_id': f'doc{d}', 'block': b + 1, 'order': int(shuffles[0][b]), 'position': int(shuffles[1][b]),
                      'slot': int(shuffles[2][b]), 'annotator': f'a{k}', 'label': rng.choice(['rel', 'irr'])}
                     for b in range(3)]
    pd.DataFrame(rows).to_csv(tmp_path / 'b.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'b.csv', '--long', '--item', 'doc_id')
    assert rc != 0 and '--item doc_id,block' in out, out
