"""Issue 39, the eighty-eighth pass (on d104814 against 7bc835d): what it found and the last stop left. Questions side by
side read as one set of classes, every vote counted once a question, where their answers are not yes/no (true/false,
agree/disagree, Y/N, pos/neg), a question has a third answer, an annotator skipped one, the table is a pilot of four
rows, or the first question differs from the others; a one-hot pattern's hint, pasted, took `item_id` for an
annotator's column; a scale's steps (`definitely_yes,probably_yes,..`) were offered as annotators; a leave-out hint kept
a class's percentages as its votes; a Latin square's `list` was hinted as the item beside the items' `word`; a class
whose name holds a comma could not be given."""

import json

import numpy as np
import pandas as pd
import pytest
from cli_run import hint_then_read, reads_as, said


def _questions(path, answers, n=12, votes=3, skip=(), seed=0, third=None, third_rows=()):
    """Questions side by side, one per entry (question, (yes, no)) of `answers`, each annotator answering each: columns `{q}_{yes}`, `{q}_{no}` (and `{q}_{third}` on `third_rows`); `skip`: (question
    index, row) where one annotator skipped that question."""
    rng = np.random.default_rng(seed)
    cols = {'tweet_id': [f't{i}' for i in range(n)]}
    for qi, (q, (yes, no)) in enumerate(answers):
        c = rng.multinomial(votes, [0.5, 0.3, 0.2] if third else [0.6, 0.4], n)
        if not third:
            c = np.c_[c, np.zeros(n, int)]
        c[[r for r in range(n) if r not in third_rows], 0] += c[[r for r in range(n) if r not in third_rows], 2]
        c[[r for r in range(n) if r not in third_rows], 2] = 0
        for qq, r in skip:
            if qq == qi:
                c[r, 0 if c[r, 0] else 1] -= 1
        cols[f'{q}_{yes}'], cols[f'{q}_{no}'] = c[:, 0], c[:, 1]
        if third:
            cols[f'{q}_{third}'] = c[:, 2]
    pd.DataFrame(cols).to_csv(path, index=False)
    return cols


@pytest.mark.parametrize('yes,no', [('true', 'false'), ('agree', 'disagree'), ('Y', 'N'), ('pos', 'neg')])
def test_questions_of_any_two_answers_are_refused_one_counts_each(tmp_path, yes, no):
    """`q1_true,q1_false,q2_true,q2_false`, `clear_agree,..`, `toxic_Y,toxic_N,..`: read silently as four classes,
    every vote counted twice (the rule knew yes/no only). Refused naming each question's `--counts`; each pasted reads
    that question's votes alone."""
    _questions(tmp_path / 'q.csv', [('toxic', (yes, no)), ('sarcastic', (yes, no))])
    rc, out = said('data', 'validate', tmp_path / 'q.csv')
    assert rc != 0 and f'--counts toxic_{yes},toxic_{no} or --counts sarcastic_{yes},sarcastic_{no}' in out, out
    reads_as(tmp_path / 'q.csv', ['--counts', f'sarcastic_{yes},sarcastic_{no}'],
             f'12 items; wide: 12 items, classes sarcastic_{yes}/sarcastic_{no}')


def test_a_yes_no_question_beside_a_sentiment_question_is_refused(tmp_path):
    "`toxic_yes,toxic_no,sentiment_pos,sentiment_neg`: one yes/no pair only, read as four classes."
    _questions(tmp_path / 'q.csv', [('toxic', ('yes', 'no')), ('sentiment', ('pos', 'neg'))])
    rc, out = said('data', 'validate', tmp_path / 'q.csv')
    assert rc != 0 and '--counts toxic_yes,toxic_no or --counts sentiment_pos,sentiment_neg' in out, out


@pytest.mark.parametrize('rows', [(3,), (1, 4, 7)])
def test_a_questions_third_answer_is_its_own_and_named(tmp_path, rows):
    """`toxic_yes,toxic_no,toxic_unsure,sarcastic_..`: an unsure vote on one row gave a hint, pasted, that dropped the
    unsure column and its votes; on three rows the question check failed and six classes were read, every vote
    counted twice. The question's every answer is its own and in its hint."""
    cols = _questions(tmp_path / 'q.csv', [('toxic', ('yes', 'no')), ('sarcastic', ('yes', 'no'))], third='unsure',
                      third_rows=rows)
    rc, out = said('data', 'validate', tmp_path / 'q.csv')
    assert rc != 0 and '--counts toxic_yes,toxic_no,toxic_unsure or --counts sarcastic_yes,sarcastic_no,sarcastic_unsure' in out, out
    reads_as(tmp_path / 'q.csv', ['--counts', 'toxic_yes,toxic_no,toxic_unsure'],
             '12 items; wide: 12 items, classes toxic_yes/toxic_no/toxic_unsure')
    rc, out = said('data', 'validate', tmp_path / 'q.csv', '--counts', 'toxic_yes,toxic_no,toxic_unsure', '--json',
                   joined=False)
    assert rc == 0 and json.loads(out)[0]['votes'] == sum(sum(cols[f'toxic_{a}']) for a in ('yes', 'no', 'unsure')), out


def test_questions_with_a_skipped_answer_and_three_questions_are_each_named(tmp_path):
    """Two of 12 rows with one annotator's answer skipped in the first question (83% of rows alike, under the 90%
    asked), three questions compared with the first only: read as six classes. Any two questions alike on three rows
    in four are refused, every question named."""
    _questions(tmp_path / 'q.csv', [('toxic', ('yes', 'no')), ('sarcastic', ('yes', 'no')),
                                    ('offensive', ('yes', 'no'))], skip=[(0, 2), (0, 9)])
    rc, out = said('data', 'validate', tmp_path / 'q.csv')
    assert rc != 0 and 'would count 3 times' in out and (
        '--counts toxic_yes,toxic_no or --counts sarcastic_yes,sarcastic_no or --counts offensive_yes,offensive_no'
        in out), out


def test_a_pilot_of_four_rows_of_two_questions_is_refused(tmp_path):
    "Two yes/no questions on four rows (a pilot): under the five rows asked, read as four classes."
    _questions(tmp_path / 'q.csv', [('toxic', ('yes', 'no')), ('sarcastic', ('yes', 'no'))], n=4)
    rc, out = said('data', 'validate', tmp_path / 'q.csv')
    assert rc != 0 and '--counts toxic_yes,toxic_no or --counts sarcastic_yes,sarcastic_no' in out, out


@pytest.mark.parametrize('names,n,votes', [
    (['definitely_yes', 'probably_yes', 'probably_no', 'definitely_no'], 6, 2),  # (offered as two annotators' one-hot)
    (['definitely_yes', 'probably_yes', 'probably_no', 'definitely_no'], 4, 4),
    (['strongly_agree', 'strongly_disagree', 'somewhat_agree', 'somewhat_disagree'], 12, 4),
    (['sentiment_pos', 'sentiment_neg', 'sentiment_neutral'], 12, 3),
])
def test_a_scale_and_one_questions_answers_stay_its_classes(tmp_path, names, n, votes):
    "Controls: one question's scale, or its three answers, are its classes, read bare (not questions, not annotators)."
    rng = np.random.default_rng(len(names) + n)
    c = rng.multinomial(votes, [1 / len(names)] * len(names), n)
    pd.DataFrame({'item_id': [f'q{i}' for i in range(n)], **dict(zip(names, c.T))}).to_csv(tmp_path / 's.csv',
                                                                                            index=False)
    reads_as(tmp_path / 's.csv', [], f'{n} items; wide: {n} items, classes {"/".join(names)}')


def test_a_one_hot_patterns_hint_pasted_leaves_the_id_column_out(tmp_path):
    """`item_id,a1_yes,a1_no,a2_yes,..`: the hint `--annotator-columns '{annotator}_{label}'`, pasted, failed: the
    pattern matched `item_id` (annotator `item`, label `id`), 'both the item id and an annotator column'. A column whose
    annotator has no other label, and whose label no other annotator, is no annotator's."""
    rng = np.random.default_rng(5)
    rows = {'item_id': [f'i{i}' for i in range(10)]}
    for a in ('a1', 'a2', 'a3'):
        yes = rng.integers(0, 2, 10)
        rows[f'{a}_yes'], rows[f'{a}_no'] = yes, 1 - yes
    pd.DataFrame(rows).to_csv(tmp_path / 'h.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'h.csv')
    assert rc != 0 and "--annotator-columns '{annotator}_{label}'" in out, out
    reads_as(tmp_path / 'h.csv', ['--annotator-columns', '{annotator}_{label}'],
             '10 items; annotators: 10 items, 30 votes by 3 annotators, classes no/yes')


def test_a_leave_out_hint_leaves_the_percentages_out(tmp_path):
    """`tweet_id,toxic_yes,toxic_no,toxic_yes_pct,toxic_no_pct`: the hint said leave the counts out (the percentages
    add up to 100 on every row), and pasted read 100 votes an item. A share's column is not a class's votes."""
    rng = np.random.default_rng(6)
    c = rng.multinomial(5, [0.4, 0.6], 12)
    pct = np.round(100 * c[:, 0] / 5).astype(int)
    pd.DataFrame({'tweet_id': [f't{i}' for i in range(12)], 'toxic_yes': c[:, 0], 'toxic_no': c[:, 1],
                  'toxic_yes_pct': pct, 'toxic_no_pct': 100 - pct}).to_csv(tmp_path / 'p.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'p.csv')
    assert rc != 0 and 'leave them out: --counts toxic_yes,toxic_no;' in out, out
    rc, out = said('data', 'validate', tmp_path / 'p.csv', '--counts', 'toxic_yes,toxic_no', '--json', joined=False)
    assert rc == 0 and json.loads(out)[0]['votes'] == 60, out


def test_a_latin_squares_list_is_not_hinted_as_the_item(tmp_path):
    """`participant,list,word,label` (a word list study, each participant given one list): hinted `--item list`, which
    pasted refused with repeats and offered neither `word` nor `list,word`. The words are the items."""
    rows = [{'participant': f'p{p}', 'list': f'L{p % 2}', 'word': f'word{w}', 'label': ['new', 'old'][(p + w) % 2]}
            for p in range(8) for w in range(12) if w % 2 == p % 2 or w < 4]
    hint_then_read(tmp_path / 'w.csv', rows, 'word', 'long: 12 items')


def test_a_class_with_a_comma_in_its_name_is_given_in_quotes(tmp_path):
    """`"yes, sure",no`: `--classes` and `--counts` split at every comma, so the class could not be named (the
    eighty-seventh pass). A name in double quotes, as a CSV writes it, is one name."""
    (tmp_path / 'c.csv').write_text('id,"yes, sure",no\na,2,1\nb,0,3\nc,1,1\n')
    for flag in ('--classes', '--counts'):
        reads_as(tmp_path / 'c.csv', [flag, 'no,"yes, sure"'], '3 items; wide: 3 items, classes no/yes, sure')


def test_a_scales_steps_are_not_offered_as_annotators(tmp_path):
    """`item_id,definitely_yes,probably_yes,probably_no,definitely_no` of two votes an item, one `definitely_*` and one
    `probably_*` on each row: refused as two annotators' one-hot labels (`definitely`, `probably`). A scale's steps
    are no people: read as the scale's four classes."""
    rng = np.random.default_rng(8)
    d, p = rng.integers(0, 2, 6), rng.integers(0, 2, 6)
    pd.DataFrame({'item_id': [f'q{i}' for i in range(6)], 'definitely_yes': d, 'probably_yes': p, 'probably_no': 1 - p,
                  'definitely_no': 1 - d}).to_csv(tmp_path / 's.csv', index=False)
    out = reads_as(tmp_path / 's.csv', [], '6 items; wide: 6 items, classes definitely_yes/probably_yes/probably_no/')
    assert 'annotator' not in out, out


@pytest.mark.parametrize('case', ['two sheets', 'a typo', 'a repeated id'])
def test_an_items_number_with_one_value_twice_is_still_no_class(tmp_path, case):
    """The eighty-ninth pass: `claim_no` 1-6 on two sheets pasted one below the other, `Tweet_No` 1-12 with 7 typed twice,
    `Item_No` 1001-1012 with one id repeated: read as a class's votes (101, 117, 12,127 votes; exit 0) once the
    numbers had to be distinct on every row. Numbers that rise by one on 8 rows or more are the items' numbers."""
    no = {'two sheets': [*range(1, 7), *range(1, 7)], 'a typo': [1, 2, 3, 4, 5, 6, 7, 7, 9, 10, 11, 12],
          'a repeated id': [1001, 1002, 1003, 1004, 1005, 1005, 1007, 1008, 1009, 1010, 1011, 1012]}[case]
    rng = np.random.default_rng(9)
    c = np.array([rng.multinomial(n, [0.6, 0.4]) for n in rng.integers(3, 8, 12)])  # (3-7 votes an item)
    pd.DataFrame({'Tweet_No': no, 'Tweet_Yes': c[:, 0], 'Tweet_Unsure': c[:, 1]}).to_csv(tmp_path / 'w.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'w.csv')
    assert rc != 0 and "'Tweet_No'" in out and '--counts Tweet_Yes,Tweet_Unsure' in out, out


def _no_votes(path, no, yes, unsure=None, ids=None):
    cols = {**({'tweet_id': [f't{i}' for i in range(len(no))]} if ids else {}), 'Tweet_Yes': yes, 'Tweet_No': no}
    if unsure is not None:
        cols['Tweet_Unsure'] = unsure
    pd.DataFrame(cols).to_csv(path, index=False)
    return sum(no) + sum(yes) + (sum(unsure) if unsure is not None else 0)


@pytest.mark.parametrize('case', ['a crowd saying no', 'beside ids', 'sorted, 14 raters', 'one range by chance'])
def test_a_questions_no_votes_stay_votes(tmp_path, case):
    """The eighty-ninth pass: a `_No` column that holds the answer no's votes, refused as the items' numbers (PREV read
    each right): 70-100 raters an item, most saying no (each row's no above three times the others); no votes of 30-60
    beside a `tweet_id`; a sheet sorted by the no votes of 14 raters an item (one 13); no votes 3-10 once each on 8
    rows. The first hint of three columns left the no votes out: 42 of 452 votes read."""
    rng = np.random.default_rng(10)
    if case == 'a crowd saying no':
        n = rng.integers(70, 101, 6)
        yes = rng.integers(5, 16, 6)
        no, unsure, ids = n - yes, None, False
    elif case == 'beside ids':
        no, yes, unsure = rng.permutation(np.arange(30, 61, 3))[:10], rng.integers(0, 5, 10), rng.integers(0, 4, 10)
        ids = True
    elif case == 'sorted, 14 raters':
        no = np.arange(12, 3, -1)
        unsure = rng.integers(0, 2, 9)
        yes, ids = 14 - no - unsure - (np.arange(9) == 4), False
    else:
        no, yes, unsure, ids = rng.permutation(np.arange(3, 11)), rng.integers(0, 6, 8), None, False
    votes = _no_votes(tmp_path / 'v.csv', list(no), list(yes), None if unsure is None else list(unsure), ids)
    rc, out = said('data', 'validate', tmp_path / 'v.csv', '--json', joined=False)
    assert rc == 0, out
    got = json.loads(out)[0]
    assert got['votes'] == votes and 'Tweet_No' in got['read'], got


def test_an_items_number_beside_its_yes_names_the_id_first_and_never_leaves_the_no_out(tmp_path):
    """`Tweet_No` of 101-106 shuffled beside `Tweet_Yes,Tweet_Unsure`: refused naming the items' numbers first and the
    answer's votes second, not leaving the column out (where it holds the no votes, that drops the majority)."""
    c = np.random.default_rng(11).multinomial(5, [0.6, 0.4], 6)
    pd.DataFrame({'Tweet_No': [104, 101, 106, 102, 105, 103], 'Tweet_Yes': c[:, 0], 'Tweet_Unsure': c[:, 1]}).to_csv(
        tmp_path / 'w.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'w.csv')
    assert rc != 0 and 'leave' not in out, out
    assert out.index('--id Tweet_No, --counts Tweet_Yes,Tweet_Unsure') < out.index(
        'say so, --counts Tweet_No,Tweet_Yes,Tweet_Unsure'), out
    reads_as(tmp_path / 'w.csv', ['--id', 'Tweet_No', '--counts', 'Tweet_Yes,Tweet_Unsure'], '6 items; wide: 6 items')
