"""Issue 39, the eighty-first stop. A wide table whose items are numbered in a column named as a number
(`number,agree,disagree`, `item_number,...`, `Question No.,...`; old, listed as not mended at the last stops) read the
numbers as one more class's votes: 20 items numbered 1-20 gave a class `number` of 210 votes, silently. A column named
for an item's number is its id (`item_number`, `QuestionNo`, `post_nr`; not a part's `sentence_no`), and a bare
`number`, `num`, `nr` or `#` beside the votes is refused with the flags that read it as the ids."""

import shlex

import numpy as np
import pandas as pd
import pytest
from cli_run import hint_then_read, reads_as, refused_hint, said

from scruples.annotations import read_annotated


def _wide(path, name, n=20, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({name: np.arange(1, n + 1), 'agree': rng.integers(1, 6, n), 'disagree': rng.integers(0, 6, n)})
    df.to_csv(path, index=False)
    return df


@pytest.mark.parametrize('name', ['item_number', 'Item No.', 'QuestionNo', 'post_nr', 'case_number', 'itemNum'])
def test_a_column_named_for_an_items_number_is_its_id(tmp_path, name):
    df = _wide(tmp_path / 'w.csv', name)
    d = read_annotated(tmp_path / 'w.csv')
    assert list(d.classes) == ['agree', 'disagree']
    assert list(d.items) == [str(i) for i in df[name]]
    assert np.array_equal(d.counts, df[['agree', 'disagree']].to_numpy())
    rc, out = said('data', 'validate', tmp_path / 'w.csv')
    assert rc == 0 and 'classes agree/disagree' in out and f'id column {name}' in out, out


@pytest.mark.parametrize('name', ['number', 'num', 'nr', '#', 'Nr.'])
def test_a_bare_number_column_beside_votes_is_refused_with_the_flags_that_read_its_ids(tmp_path, name):
    df = _wide(tmp_path / 'w.csv', name)
    rc, out = said('data', 'validate', tmp_path / 'w.csv')
    assert rc != 0 and f'--id {shlex.quote(name)}' in out, out
    flags = shlex.split(out[out.index('--id '):].split(';')[0].replace(', --', ' --'))
    rc, out = said('data', 'validate', tmp_path / 'w.csv', *flags)
    assert rc == 0 and '20 items' in out and 'classes agree/disagree' in out and f'id column {name}' in out, out
    d = read_annotated(tmp_path / 'w.csv', id=name, counts='agree,disagree')
    assert np.array_equal(d.counts, df[['agree', 'disagree']].to_numpy())


def test_a_class_named_number_whose_votes_complete_each_item_is_read(tmp_path):
    """Control: a class `number` among entity types, five annotators an item (the columns add up to 5 on every row):
    votes, read as before."""
    rng = np.random.default_rng(1)
    a = rng.integers(0, 3, 12)
    b = rng.integers(0, 3, 12)
    df = pd.DataFrame({'id': [f'x{i}' for i in range(12)], 'person': a, 'number': b, 'date': 5 - a - b})
    df.to_csv(tmp_path / 'e.csv', index=False)
    d = read_annotated(tmp_path / 'e.csv')
    assert list(d.classes) == ['person', 'number', 'date']


def test_a_class_no_beside_yes_is_read_whatever_its_numbers(tmp_path):
    "Control: `no` alone is a class of yes/no (votes that vary by item, even 1-20 on 20 items), never the ids."
    rng = np.random.default_rng(2)
    df = pd.DataFrame({'id': [f'p{i}' for i in range(20)], 'yes': rng.integers(0, 4, 20), 'no': np.arange(1, 21)})
    df.to_csv(tmp_path / 'y.csv', index=False)
    d = read_annotated(tmp_path / 'y.csv')
    assert list(d.classes) == ['yes', 'no'] and list(d.items) == list(df['id'])


# --- the eighty-first pass (on b8466c2): regressions of the eightieth stop's rules, and two old silent reads ---------

@pytest.mark.parametrize('item,part,values', [('doc_id', 'page', [1, 2, 3]),
                                              ('paper_id', 'section', ['intro', 'method', 'results']),
                                              ('story_id', 'part', ['beginning', 'middle', 'end'])])
def test_a_documents_parts_under_a_name_that_may_be_a_surveys_are_offered_by_the_repeats_refusal(tmp_path, item, part,
                                                                                               values):
    """`doc_id,page` (a page of each PDF classified): the eightieth stop left `page`, `section`, `part` out of an item's
    parts (a survey's second page shows the same item again), and the paste of `--item doc_id` was refused, naming only
    `--repeats` (which merges the pages). A name cannot tell the two apart; the repeats' refusal now names both
    readings.
    (`story_id,part`: `part` alone was offered, 3 items.)"""
    rng = np.random.default_rng(20)
    rows = [{item: f'd{d}', part: v, 'annotator': f'w{k}', 'label': rng.choice(['a', 'b'])}
            for d in range(5) for v in values for k in range(3)]
    pd.DataFrame(rows).to_csv(tmp_path / 'p.csv', index=False)
    flags, out = refused_hint(tmp_path / 'p.csv')
    assert flags[:3] == ['--long', '--item', item], out
    rc, out = said('data', 'validate', tmp_path / 'p.csv', *flags)
    assert rc != 0 and '--repeats first, all or drop' in out and f'--item {item},{part}' in out, out
    reads_as(tmp_path / 'p.csv', [*flags[:1], '--item', f'{item},{part}'], '15 items, 45 votes by 3 annotators')


def test_an_item_shown_again_on_a_second_page_is_still_offered_both_readings(tmp_path):
    "Control: a stimulus shown on pages 2 and 7 (a retest): the hint's item is the stimulus, `--repeats` named first."
    rng = np.random.default_rng(21)
    rows = [{'stimulus_id': f's{s}', 'page': p, 'participant': f'P{k}', 'response': rng.choice(['moral', 'immoral'])}
            for k in range(4) for s in range(8) for p in (2, 7)]
    pd.DataFrame(rows).to_csv(tmp_path / 'r.csv', index=False)
    flags, out = refused_hint(tmp_path / 'r.csv')
    assert flags[:3] == ['--long', '--item', 'stimulus_id'], out
    rc, out = said('data', 'validate', tmp_path / 'r.csv', *flags)
    assert rc != 0 and out.index('--repeats first') < out.index('--item stimulus_id,page'), out


@pytest.mark.parametrize('people', ['subject_number', 'sub'])
def test_anonymous_votes_beside_a_participants_column_with_a_number_tag_offer_the_words(tmp_path, people):
    """`subject_number,word,label` and BIDS' `sub,word,label` (no annotators' column): `--item subject_number` was
    offered and read the 6 participants as the items (truth: 10 words, 60 votes)."""
    rng = np.random.default_rng(22)
    rows = [{people: f'sub-{k:02d}', 'word': w, 'label': rng.choice(['word', 'nonword'])}
            for k in range(6)
            for w in ['apple', 'chair', 'river', 'glove', 'plim', 'drob', 'tasp', 'house', 'cloud', 'vrin']]
    hint_then_read(tmp_path / 's.csv', rows, 'word', '10 items, 60 votes')


@pytest.mark.parametrize('case', ['agree', 'dropout'])
def test_numbered_items_whose_raters_all_agree_or_some_rated_alone_are_offered(tmp_path, case):
    """`number,rater,label` of a pilot where the raters all agree, or where 3 of 10 items were rated by one rater: the
    placeholder `--item ITEM` (its paste fails) where b95ef76 offered `--item number`."""
    rng = np.random.default_rng(23)
    rows = []
    for i in range(1, 11):
        lab = rng.choice(['yes', 'no'])
        for r in ('r1', 'r2', 'r3') if case == 'agree' or i > 3 else ('r1',):
            rows.append({'number': i, 'rater': r, 'label': lab if case == 'agree' else rng.choice(['yes', 'no'])})
    pd.DataFrame(rows).to_csv(tmp_path / 'n.csv', index=False)
    flags, out = refused_hint(tmp_path / 'n.csv')
    assert '--item number' in ' '.join(flags), out
    reads_as(tmp_path / 'n.csv', flags, f'10 items, {len(rows)} votes by 3 annotators')


@pytest.mark.parametrize('row,item', [('idx', 'question_id'), ('Unnamed: 0', 'text_id'), ('idx', 'post_id')])
def test_each_annotators_row_number_beside_an_items_id_is_not_offered(tmp_path, row, item):
    """`idx,question_id,worker_id,label` (pandas' concat of each worker's file): `--item idx` was offered and its paste
    read 12 items of 36 votes, each mixing three questions (the counts even matched). A column named for no item that
    crosses one named for an item's id (each row number holds several questions, each question several row numbers) is
    not the items."""
    rng = np.random.default_rng(24)
    rows = [{row: j, item: f'q{q:03d}', 'worker_id': f'w{k}', 'label': rng.choice(['neg', 'neu', 'pos'])}
            for k in range(3) for j, q in enumerate(rng.permutation(12))]
    hint_then_read(tmp_path / 'i.csv', rows, item, '12 items, 36 votes by 3 annotators')


@pytest.mark.parametrize('item,group', [('email_id', 'folder'), ('utterance_id', 'speaker'), ('post_id', 'subreddit')])
def test_anonymous_votes_offer_the_column_nested_in_the_one_first_found(tmp_path, item, group):
    """Old (b95ef76 too): anonymous votes on mails within folders: `--item folder` read 2 items of 24 votes (truth 8). A
    column named as an item's id, of more values nested in one named for no item, each on several rows, is the items."""
    rng = np.random.default_rng(25)
    rows = [{group: f'g{i % 2}', item: f'{item[:4]}-{i}', 'label': rng.choice(['ok', 'bad'])}
            for i in range(8) for _ in range(3)]
    hint_then_read(tmp_path / 'a.csv', rows, item, '8 items, 24 votes')


@pytest.mark.parametrize('item,nested', [('url', 'crawl_batch'), ('movie', 'review_round'), ('channel', 'session_id')])
def test_anonymous_votes_are_not_split_by_a_studys_rounds_nested_in_the_items(tmp_path, item, nested):
    """The eighty-third pass: the rule above, on names alone, split each `url` by its `crawl_batch` and each `movie` by
    its `review_round` (20 items read for 10, silently): a column named for a study's batch, round or session is never
    offered in place of the items (a chat's `session_id` within a `channel` is read by channel, as before)."""
    rng = np.random.default_rng(26)
    rows = [{item: f'{item}{i}', nested: f'{item}{i}-{r}', 'label': rng.choice(['ok', 'bad'])}
            for i in range(10) for r in range(2) for _ in range(3)]
    hint_then_read(tmp_path / 'b.csv', rows, item, '10 items, 60 votes')


# --- the eighty-second pass (on this stop's mends) --------------------------------------------------------------------

@pytest.mark.parametrize('item,who,label', [('item_number', 'worker_id', 'answer'),
                                            ('QuestionNo', 'WorkerId', 'Answer'), ('item_id', 'worker_id', 'answer')])
def test_one_label_column_beside_an_items_number_and_the_annotators_ids_names_the_long_form(tmp_path, item, who, label):
    """`item_number,worker_id,answer`: with `item_number` an id, `answer` was the one count column left and the refusal
    named no form (b8466c2's hint, `--item item_number`, read it right); `item_id,worker_id,answer` never had one."""
    rng = np.random.default_rng(30)
    rows = [{item: i, who: f'W{k}', label: rng.choice(['A', 'B', 'C'])} for i in range(1, 11) for k in range(3)]
    hint_then_read(tmp_path / 'q.csv', rows, item, '10 items, 30 votes by 3 annotators')


@pytest.mark.parametrize('case', ['evidence', 'rounds', 'title'])
def test_anonymous_votes_on_an_items_id_are_not_split_by_a_column_nested_in_it(tmp_path, case):
    """The mend above offered a nested column of more values instead of the one first found, also where that one is
    named as an item's id: each vote's cited evidence within a `claim_id`, an item's two collection rounds, a post's
    title edited midway (20 or 11 items read for 10, silently). Only a column named for no item gives way."""
    rng = np.random.default_rng(31)
    rows = []
    for i in range(10):
        for v in range(4):
            extra = {'evidence': f'c{i}_s{v % 2}', 'rounds': f'r{i}_{v // 2}',
                     'title': f'T{i}' + ('!' if i == 3 and v > 1 else '')}[case]
            item = {'evidence': 'claim_id', 'rounds': 'item_id', 'title': 'post_id'}[case]
            other = {'evidence': 'evidence_sentence_id', 'rounds': 'round_id', 'title': 'title'}[case]
            rows.append({item: f'x{i}', other: extra, 'label': rng.choice(['yes', 'no'])})
    df = pd.DataFrame(rows)
    df.to_csv(tmp_path / 'n.csv', index=False)
    flags, out = refused_hint(tmp_path / 'n.csv')
    assert flags[:3] == ['--long', '--item', df.columns[0]], out
    reads_as(tmp_path / 'n.csv', flags, '10 items, 40 votes')


@pytest.mark.parametrize('cls,ids', [('NUM', 'token_id'), ('number', 'span_id'), ('NUM', None)])
def test_a_class_named_num_or_number_whose_votes_repeat_is_read(tmp_path, cls, ids):
    """Universal POS tags' `NUM`, entity types' `number`: votes that vary by item, beside a `token_id` or none. The rule
    above refused them (b8466c2 read them): a bare `number` is the items' numbers only beside no id column, its whole
    numbers distinct on every row."""
    rng = np.random.default_rng(32)
    n = 12
    df = pd.DataFrame({'NOUN': rng.integers(0, 4, n), 'VERB': rng.integers(0, 4, n), cls: rng.integers(0, 3, n)})
    df['NOUN'] += 1  # every item has a vote
    if ids:
        df.insert(0, ids, [f't{i}' for i in range(n)])
    df.to_csv(tmp_path / 'p.csv', index=False)
    d = read_annotated(tmp_path / 'p.csv')
    assert cls in d.classes and d.counts.sum() == df[['NOUN', 'VERB', cls]].to_numpy().sum()


@pytest.mark.parametrize('name', ['Item #', 'Item#'])
def test_an_item_hash_column_is_the_ids(tmp_path, name):
    "`Item #,pos,neg` was read as three classes (132 votes for 54): `#` is an item's number as `No.` is."
    df = _wide(tmp_path / 'w.csv', name)
    d = read_annotated(tmp_path / 'w.csv')
    assert list(d.classes) == ['agree', 'disagree'] and d.counts.sum() == df[['agree', 'disagree']].to_numpy().sum()


def test_a_row_number_beside_an_id_column_is_not_a_class(tmp_path):
    """The eighty-third pass (old): `item_id,number,yes,no` with `number` running 1-20 read a class of 210 votes. Beside
    an id column, a bare `number` running one by one is the rows' numbering: refused, the count columns named."""
    df = _wide(tmp_path / 'w.csv', 'number')
    df.insert(0, 'item_id', [f'i{i}' for i in range(len(df))])
    df.to_csv(tmp_path / 'w.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'w.csv')
    assert rc != 0 and '--counts agree,disagree' in out and '--id' not in out, out
