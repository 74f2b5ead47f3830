"""Issue 39, the seventy-eighth stop: a long Likert table whose items are numbered (`number,rater,rating`, found by the
seventy-seventh pass, old too) was told `--counts number,rating`, which read its 24 votes as 24 wide items of classes
`number` and `rating`, silently. An annotator column beside a label of numbers is the long form, and a column named as
a count whose values the annotators share is its items."""

import numpy as np
import pandas as pd
import pytest
from cli_run import hinted_flags, reads_as, refused_hint, said


def _votes(n_items=8, n_people=3, seed=0, labels=(1, 2, 3, 4, 5)):
    rng = np.random.default_rng(seed)
    return [(i, k, rng.choice(labels)) for i in range(n_items) for k in range(n_people)]


def _hint_then_paste(path, expect_flags, expect):
    flags, out = refused_hint(path)
    assert all(f in ' '.join(flags) for f in expect_flags), out
    reads_as(path, flags, expect)


@pytest.mark.parametrize('item,who,label', [('number', 'rater', 'rating'), ('num', 'coder', 'judgment'),
                                            ('count', 'worker', 'response')])
def test_a_likert_table_with_numbered_items_is_the_long_form(tmp_path, item, who, label):
    rows = [{item: i + 1, who: f'a{k}', label: lab, 'age': 30 + k} for i, k, lab in _votes()]  # (an age: not one)
    pd.DataFrame(rows).to_csv(tmp_path / 'l.csv', index=False)
    _hint_then_paste(tmp_path / 'l.csv', ['--long', f'--item {item}', f'--label {label}'],
                     '8 items, 24 votes by 3 annotators')


def test_a_count_each_annotator_has_one_of_is_not_the_item(tmp_path):
    "Control: `count` (each rater's number of tasks, one value a rater) is named as a count but is not the items."
    rows = [{'rater': f'a{k}', 'rating': lab, 'count': 10 + k, 'age': 30 + k} for i, k, lab in _votes()]
    pd.DataFrame(rows).to_csv(tmp_path / 'h.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'h.csv')
    assert rc != 0 and '--item ITEM' in out and '--annotator rater' in out, out


# --- the seventy-eighth pass (on f3f825f, the long hint's item chosen in one place) ----------------------------------

def _words(n):
    return [f'w{i}' for i in range(n)]


def test_a_word_column_beside_no_annotators_column_is_not_offered_as_the_item(tmp_path):
    """jsPsych's `subject` (the participants) beside `target` (the stimuli, a word of NOT_COUNT_WORDS): `--item subject`
    was pasted and read 5 items with no annotators, silently (truth: 20 items by 5 subjects). A column of words beside
    no column named for annotators may be theirs: the hint asks."""
    rng = np.random.default_rng(3)
    rows = [{'subject': f'S{k}', 'trial_index': t, 'target': _words(20)[s], 'label': rng.choice(['word', 'nonword'])}
            for k in range(5) for t, s in enumerate(rng.choice(20, 12, replace=False))]
    pd.DataFrame(rows).to_csv(tmp_path / 's.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 's.csv')
    assert rc != 0 and '--item ITEM' in out, out  # neither the subjects nor the trial's place
    rc, out = said('data', 'validate', tmp_path / 's.csv', '--long', '--item', 'target', '--annotator', 'subject')
    assert rc == 0 and f'{pd.DataFrame(rows).target.nunique()} items, 60 votes by 5 annotators' in out, out


@pytest.mark.parametrize('place,text,who', [('idx', 'sentence', 'worker'), ('index', 'text', 'annotator')])
def test_each_annotators_own_row_number_is_not_the_item(tmp_path, place, text, who):
    """pandas' concat of each annotator's file keeps each file's row number (`idx` 0-14 per worker, each its own 15 of
    24 sentences): `--item idx` read 15 items, silently. A column within whose values the item's text changes is not
    the items: the text is offered."""
    rng = np.random.default_rng(3)
    rows = [{place: j, text: f'the {_words(24)[s]} sentence.', who: f'w{k}', 'label': rng.choice(['pos', 'neg'])}
            for k in range(4) for j, s in enumerate(rng.choice(24, 15, replace=False))]
    frame = pd.DataFrame(rows)
    frame.to_csv(tmp_path / 'c.csv', index=False)
    _hint_then_paste(tmp_path / 'c.csv', ['--long', f'--item {text}'],
                     f'{frame[text].nunique()} items, 60 votes by 4 annotators')


@pytest.mark.parametrize('name,ids', [('post_id', lambda i: i), ('segment_id', lambda i: f'x{i}')])
def test_items_of_one_vote_each_under_an_items_name_are_offered(tmp_path, name, ids):
    """One coder, or items annotated once: `--item post_id` was offered before f3f825f and read right; the rule against
    each row's own id (an annotation's) left a placeholder. Under an item's name, and where no column repeats, such a
    column is the items."""
    rng = np.random.default_rng(4)
    rows = [{name: ids(i), 'coder': 'me', 'label': rng.choice(['spam', 'ham'])} for i in range(20)]
    pd.DataFrame(rows).to_csv(tmp_path / 'o.csv', index=False)
    _hint_then_paste(tmp_path / 'o.csv', ['--long', f'--item {name}'], '20 items, 20 votes')


@pytest.mark.parametrize('item,ann', [('item_id', 'worker'), ('num', 'annotator_id')])
def test_a_repeated_id_of_a_table_read_as_wide_names_the_long_form(tmp_path, item, ann):
    """An all-numeric long table (`item_id,worker,label`) was read as wide and refused on its repeated ids, with no
    word of the long form; `annotator_id` taken for the ids (beside items numbered `num`) was refused so too. The
    refusal names the long form."""
    rng = np.random.default_rng(5)
    rows = [{item: i, ann: int(k) + 1 if ann == 'worker' else f'a{k}', 'label': int(rng.integers(2))}
            for i in range(20) for k in rng.choice(6, 3, replace=False)]
    pd.DataFrame(rows).sample(frac=1, random_state=0).to_csv(tmp_path / 'n.csv', index=False)
    flags = ['--long', f'--item {item}'] + ([f'--annotator {ann}'] if ann != 'annotator_id' else [])
    rc, out = said('data', 'validate', tmp_path / 'n.csv')
    assert rc != 0 and all(f in out for f in flags), out
    rc, out = said('data', 'validate', tmp_path / 'n.csv', '--long', '--item', item, '--annotator', ann)
    assert rc == 0 and '20 items, 60 votes by 6 annotators' in out, out


def test_an_item_of_two_columns_is_offered_whole(tmp_path):
    """Turns of conversations (`conversation_id,turn`): the hint named `conversation_id` alone, the paste was refused
    on repeats and its `--repeats all` read 6 items (truth: 24). The annotators label an item on several rows: the
    column that sets those rows apart is part of the item."""
    rng = np.random.default_rng(6)
    rows = [{'conversation_id': f'c{c}', 'turn': t, 'annotator': f'a{k}', 'label': rng.choice(['safe', 'unsafe'])}
            for c in range(6) for t in range(4) for k in rng.choice(3, 2, replace=False)]
    pd.DataFrame(rows).to_csv(tmp_path / 't.csv', index=False)
    _hint_then_paste(tmp_path / 't.csv', ['--long', '--item conversation_id,turn'], '24 items, 48 votes by 3 annotators')


def test_an_item_judged_again_in_a_second_session_is_not_split_by_its_session(tmp_path):
    "Control: a test-retest design (`session` 1, 2) repeats each judgment: the session is no part of the item."
    rng = np.random.default_rng(7)
    rows = [{'post': f'p{i}', 'session': s, 'annotator': f'a{k}', 'label': rng.choice(['yes', 'no'])}
            for i in range(10) for k in range(3) for s in (1, 2)]
    pd.DataFrame(rows).to_csv(tmp_path / 'r.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'r.csv')
    assert rc != 0 and 'session' not in ' '.join(hinted_flags(out)), out


@pytest.mark.parametrize('code', ['stim_code', 'item_code'])
def test_a_stimulus_code_is_an_id_not_a_class_of_counts(tmp_path, code):
    """An all-numeric long table (`subject_id,trial_index,stim_code,resp`) was read as wide, the stimulus codes
    (100-139) summed as votes: 90 items, 11,009 votes (truth: 37 items, 90 votes). A column named as a code is an id:
    the table is refused, and the long flags read it."""
    rng = np.random.default_rng(8)
    rows = [{'subject_id': f'sub{k:02d}', 'trial_index': t, code: 100 + int(s), 'resp': int(rng.integers(1, 4))}
            for k in range(6) for t, s in enumerate(rng.choice(40, 15, replace=False))]
    frame = pd.DataFrame(rows)
    frame.to_csv(tmp_path / 'p.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'p.csv')
    assert rc != 0, out
    rc, out = said('data', 'validate', tmp_path / 'p.csv', '--long', '--item', code, '--annotator', 'subject_id',
                   '--label', 'resp')
    assert rc == 0 and f'{frame[code].nunique()} items, 90 votes by 6 annotators' in out, out


# --- the seventy-ninth pass (on 8954e15, the rules above): each of them had read some table silently wrong -----------

def test_a_raters_own_text_is_not_the_items_text(tmp_path):
    """`rationale_text` (each rater's own words, one a row) was taken for the item's text: the true `example_id`, within
    which it changes, was passed over and the rationale offered as the items (30 items of one vote; truth 10)."""
    rng = np.random.default_rng(9)
    rows = [{'example_id': f'ex{i}', 'annotator': f'A{k}', 'label': rng.choice(['yes', 'no']),
             'rationale_text': ' '.join(rng.choice(['bad', 'dog', 'the', 'over', 'cat', 'ran'], 4))}
            for i in range(10) for k in range(3)]
    pd.DataFrame(rows).to_csv(tmp_path / 'r.csv', index=False)
    _hint_then_paste(tmp_path / 'r.csv', ['--long', '--item example_id'], '10 items, 30 votes by 3 annotators')


@pytest.mark.parametrize('when', ['block', 'condition', 'confidence'])
def test_an_item_judged_twice_is_not_split_by_what_sets_the_two_apart(tmp_path, when):
    """A test-retest design (each item judged twice by each annotator, `block` 1, 2): the column setting the two
    judgments apart was added to the item (`--item item_id,block`: 20 items, silently). Only a column named for an
    item's part is added; the paste's refusal asks what a repeat means."""
    rng = np.random.default_rng(10)
    rows = [{'item_id': f'i{i}', 'annotator': f'A{k}', when: w, 'label': rng.choice(['yes', 'no'])}
            for i in range(10) for k in range(4) for w in ((1, 2) if when != 'confidence' else ('high', 'low'))]
    pd.DataFrame(rows).to_csv(tmp_path / 'b.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'b.csv')
    assert rc != 0 and when not in ' '.join(hinted_flags(out)), out


@pytest.mark.parametrize('count', ['count', 'votes'])
def test_a_summary_of_each_annotators_labels_is_not_read_as_numbered_items(tmp_path, count):
    """`annotator,label,count` (groupby(['annotator', 'label']).size()) has no items: `--item count` was offered and read
    5 items. Numbered items only where an annotator gives a label on several rows; the pivot's advice stays."""
    rng = np.random.default_rng(11)
    rows = [{'annotator': f'A{k}', 'label': lab, count: int(n)} for k in range(5)
            for lab, n in zip(('yes', 'no', 'maybe'), rng.permutation([2, 3, 5]))]  # (each rater's 10, split)
    pd.DataFrame(rows).to_csv(tmp_path / 's.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 's.csv')
    assert rc != 0 and f'--item {count}' not in out and 'pivot it' in out, out


def test_a_label_column_not_named_so_is_never_part_of_the_item(tmp_path):
    "Multi-label rows (`text_id,annotator,emotion`, a row per chosen emotion): `--item text_id,emotion` was offered."
    rng = np.random.default_rng(12)
    rows = [{'text_id': f't{i}', 'annotator': f'A{k}', 'emotion': e} for i in range(10) for k in range(3)
            for e in rng.choice(['joy', 'sadness', 'anger', 'fear'], 2, replace=False)]
    pd.DataFrame(rows).to_csv(tmp_path / 'm.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'm.csv')
    assert rc != 0 and 'emotion' not in ' '.join(hinted_flags(out)).split('--item')[-1].split('--')[0], out


@pytest.mark.parametrize('item,extra', [('headline', 'confidence'), ('word', 'rt')])
def test_anonymous_votes_beside_an_items_column_of_words_offer_it(tmp_path, item, extra):
    """Votes with no annotator column (`headline,label,confidence`): the rule against offering a word column beside no
    annotators' column (jsPsych's `subject`) left a placeholder where f3f825f offered `--item headline`."""
    rng = np.random.default_rng(13)
    rows = [{item: f'the {w} thing', 'label': rng.choice(['a', 'b']), extra: int(rng.integers(1, 999))}
            for w in ('cat', 'dog', 'car', 'tree', 'sun', 'moon') for _ in range(4)]
    pd.DataFrame(rows).to_csv(tmp_path / 'h.csv', index=False)
    _hint_then_paste(tmp_path / 'h.csv', ['--long', f'--item {item}'], '6 items, 24 votes')


# --- the eightieth pass (on b95ef76): each of its rules again read some table silently wrong --------------------------

@pytest.mark.parametrize('item,other', [('email_subject', 'sender_domain'), ('pid', 'category')])
def test_anonymous_votes_on_items_named_with_a_participants_word_offer_them(tmp_path, item, other):
    """`email_subject` (a mail's subject line) and `pid` (a product's id) were left out as names of a study's
    participants: the hint named `sender_domain`, whose paste read 3 items (truth 8). Only a name of participants alone
    (`subject`, `subject_id`) is left out."""
    rng = np.random.default_rng(14)
    rows = [{item: f'Re: thing {i}', other: f'group{i % 3}', 'label': rng.choice(['ham', 'spam'])}
            for i in range(8) for _ in range(3)]
    pd.DataFrame(rows).to_csv(tmp_path / 'a.csv', index=False)
    _hint_then_paste(tmp_path / 'a.csv', ['--long', f'--item {item}'], '8 items, 24 votes')


def test_a_votes_mostly_blank_note_is_not_the_items_text(tmp_path):
    """`comment_text`, a rater's note left blank on most rows, looked like a text that repeats: the true `post_id` was
    passed over. An item's text is on nine rows in ten or more."""
    rng = np.random.default_rng(15)
    rows = [{'post_id': f't3_{i:04d}', 'worker_id': f'w{k}', 'label': rng.choice(['YTA', 'NTA']),
             'comment_text': rng.choice(['unclear', 'sarcasm', 'funny', ''])} for i in range(12) for k in range(3)]
    pd.DataFrame(rows).to_csv(tmp_path / 'n.csv', index=False)
    _hint_then_paste(tmp_path / 'n.csv', ['--long', '--item post_id', '--annotator worker_id'],
                     '12 items, 36 votes by 3 annotators')


def test_a_wide_table_with_a_repeated_id_and_a_gold_label_is_not_told_the_long_form(tmp_path):
    "Counts of classes beside a gold label (`id,gold_label,e,n,c`), one id twice: refused as before, no long hint."
    rng = np.random.default_rng(16)
    rows = [{'id': f'pair{i}', 'label': int(rng.integers(3)), **dict(zip('enc', rng.multinomial(5, [.4, .3, .3])))}
            for i in range(9)]
    pd.DataFrame(rows + rows[:1]).to_csv(tmp_path / 'w.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'w.csv')
    assert rc != 0 and 'a unique id' in out and '--long' not in out, out


@pytest.mark.parametrize('shown', ['page', 'section'])
def test_an_item_shown_on_two_pages_is_not_split_by_its_page(tmp_path, shown):
    "A survey that shows each stimulus on two pages: the page was added to the item (16 items, silently; truth 8)."
    rng = np.random.default_rng(17)
    rows = [{'stimulus_id': f'st{i}', 'participant': f'P{k}', shown: p, 'response': rng.choice(['moral', 'immoral'])}
            for i in range(8) for k in range(4) for p in (1, 2)]
    pd.DataFrame(rows).to_csv(tmp_path / 'p.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'p.csv')
    assert rc != 0 and shown not in ' '.join(hinted_flags(out)), out


def test_a_weekly_summary_whose_counts_go_with_one_label_is_not_numbered_items(tmp_path):
    "`week,annotator,label,n` where each count goes with one label: `--item n` was offered (9 items, silently)."
    rows = [{'week': w, 'annotator': f'w{k}', 'label': lab, 'n': 3 * w + j + 3} for w in (1, 2, 3) for k in range(3)
            for j, lab in enumerate(('neg', 'neu', 'pos'))]
    pd.DataFrame(rows).to_csv(tmp_path / 's.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 's.csv')
    assert rc != 0 and '--item n' not in out and 'pivot it' in out, out


def test_a_documents_sentences_numbered_are_parts_of_the_item(tmp_path):
    "`doc_id,sentence_no`: `sentence` read as an item's text (a name of texts) made the documents' ids fail the hint."
    rng = np.random.default_rng(18)
    rows = [{'doc_id': f'D{d:03d}', 'sentence_no': s, 'coder': c, 'label': rng.choice(['claim', 'none'])}
            for d in range(4) for s in range(4) for c in ('ann', 'bob')]
    pd.DataFrame(rows).to_csv(tmp_path / 'd.csv', index=False)
    _hint_then_paste(tmp_path / 'd.csv', ['--long', '--item doc_id,sentence_no'], '16 items, 32 votes by 2 annotators')
