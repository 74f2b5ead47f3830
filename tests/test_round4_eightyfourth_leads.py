"""Issue 39, the eighty-fourth pass (on 30be0f4 against b8466c2): four regressions of the eighty-first stop's rules and
one silent read by a pasted reading. Each table here was read right by b8466c2, bare or by its pasted hint, and by
30be0f4 was read wrong by its own pasted hint (or refused naming nothing to paste)."""

import numpy as np
import pandas as pd
import pytest
from cli_run import hint_then_read, reads_as, refused_hint, said

from scruples.annotations import read_annotated


@pytest.mark.parametrize('run', ['job_id', 'task_id', 'pass_id', 'batch_id'])
def test_anonymous_votes_on_urls_are_not_split_by_a_runs_id_nested_in_them(tmp_path, run):
    """`url,job_id,label` (each url labelled in two jobs, three votes each; no annotators' column): `--item job_id` was
    offered and read 16 items for 8, silently. A column nested in the items replaces them only when named as an item's
    id or text by an item's word (`email_id` in a `folder`), never a work unit's or a run's."""
    rng = np.random.default_rng(40)
    rows = [{'url': f'https://x.org/{i}', run: f'{i}-{k}', 'label': rng.choice(['yes', 'no'])}
            for i in range(8) for k in range(2) for _ in range(3)]
    hint_then_read(tmp_path / 'u.csv', rows, 'url', '8 items, 48 votes')


def test_a_url_in_several_task_lists_is_still_the_item(tmp_path):
    """`url,task_id,annotator,label` (Prolific task lists of five urls, each url in two lists, two annotators a list):
    `url` crosses `task_id`, named for an item's id, and was left out; `--item task_id` was offered and its paste refused
    every annotator's five rows of a list as repeats, naming nothing else. An id whose annotators label each of its
    values on more rows than the column's is not what makes the column no item."""
    rng = np.random.default_rng(41)
    rows = []
    for t in range(4):
        for a in range(2):
            for u in [(t + j) % 10 for j in range(0, 10, 2)]:  # each url in two lists
                rows.append({'url': f'https://x.org/{u}', 'task_id': f'T{t}', 'annotator': f'ann{t}{a}',
                             'label': rng.choice(['reliable', 'unreliable'])})
    df = pd.DataFrame(rows)
    hint_then_read(tmp_path / 't.csv', df, 'url', f'{df.url.nunique()} items, {len(df)} votes by 8 annotators')


def test_each_annotators_row_number_beside_a_question_id_is_still_not_offered(tmp_path):
    "Control of the mend above: `idx` (each annotator's row number) crosses `question_id`, whose pairs do not repeat."
    rng = np.random.default_rng(42)
    rows = [{'idx': j, 'question_id': f'q{q:03d}', 'worker_id': f'w{k}', 'label': rng.choice(['neg', 'pos'])}
            for k in range(3) for j, q in enumerate(rng.permutation(12))]
    pd.DataFrame(rows).to_csv(tmp_path / 'i.csv', index=False)
    flags, out = refused_hint(tmp_path / 'i.csv')
    assert flags[:3] == ['--long', '--item', 'question_id'], out


@pytest.mark.parametrize('item', ['claim', 'post', 'image'])
def test_a_yes_no_class_named_for_the_items_is_a_class_not_their_number(tmp_path, item):
    """`claim_id,claim_yes,claim_no` (the counts of a yes/no question): `claim_no` was taken for the claims' number (an
    item's word and `no`), the id was then ambiguous and the table refused with nothing to paste. Beside its `yes` it is
    the question's other answer."""
    rng = np.random.default_rng(43)
    yes = rng.integers(0, 6, 10)
    df = pd.DataFrame({f'{item}_id': [f'c{i}' for i in range(10)], f'{item}_yes': yes, f'{item}_no': 5 - yes})
    df.to_csv(tmp_path / 'w.csv', index=False)
    d = read_annotated(tmp_path / 'w.csv')
    assert list(d.classes) == [f'{item}_yes', f'{item}_no'] and list(d.items) == list(df[f'{item}_id'])
    assert np.array_equal(d.counts, df[[f'{item}_yes', f'{item}_no']].to_numpy())


def test_an_items_number_beside_no_yes_class_is_still_its_id(tmp_path):
    "Control: `item_no,agree,disagree`: the items' numbers (no `item_yes` beside it)."
    rng = np.random.default_rng(44)
    df = pd.DataFrame({'item_no': np.arange(1, 13), 'agree': rng.integers(1, 5, 12), 'disagree': rng.integers(0, 5, 12)})
    df.to_csv(tmp_path / 'n.csv', index=False)
    d = read_annotated(tmp_path / 'n.csv')
    assert list(d.classes) == ['agree', 'disagree'] and list(d.items) == [str(i) for i in df.item_no]


def _pages(path, extra, seed):
    rng = np.random.default_rng(seed)
    rows = [{'doc_id': f'D{d}', 'annotator': a, 'label': rng.choice(['pos', 'neg', 'neu']), **extra(d, a, k)}
            for d in range(5) for a in ('ann1', 'ann2', 'ann3') for k in range(2)]
    pd.DataFrame(rows).to_csv(path, index=False)


def test_the_repeats_refusal_offers_the_pages_before_a_pass_that_mixes_them(tmp_path):
    """`doc_id,annotator,label,pass_no,page`: every annotator labels both pages of a document, one of them in the other
    order. `pass_no` and `page` both set each repeat's rows apart with two values; `--item doc_id,pass_no` (the first
    column) was offered alone and read 10 items of 30 votes, each mixing the two pages, silently. Every such column is
    named, one named for a judgment's occasion (a pass, a session, a time) after the others. (Leaving those out, as the
    first mend did, lost a video's `time`, a diary's `date`, a debate's `round`: the eighty-fifth pass.)"""
    _pages(tmp_path / 'p.csv', lambda d, a, k: {'pass_no': (k + (a == 'ann2')) % 2 + 1, 'page': k + 1}, 45)
    rc, out = said('data', 'validate', tmp_path / 'p.csv', '--long', '--item', 'doc_id')
    assert rc != 0 and out.index('--item doc_id,page') < out.index('--item doc_id,pass_no'), out
    reads_as(tmp_path / 'p.csv', ['--long', '--item', 'doc_id,page'], '10 items, 30 votes by 3 annotators')


@pytest.mark.parametrize('part', ['time', 'date', 'round', 'session'])
def test_a_part_named_for_an_occasion_is_still_offered_after_the_repeats(tmp_path, part):
    """A video's `time` segments, a diary's `date`s, a debate's `round`s are parts; a retest's `session` is not: a name
    cannot tell, the refusal names the repeats' policy first and the reading by the column after it."""
    _pages(tmp_path / 'r.csv', lambda d, a, k: {part: ['00:00', '00:10'][k] if part == 'time' else k + 1}, 46)
    rc, out = said('data', 'validate', tmp_path / 'r.csv', '--long', '--item', 'doc_id')
    assert rc != 0 and out.index('--repeats first, all or drop') < out.index(f'--item doc_id,{part}'), out
    reads_as(tmp_path / 'r.csv', ['--long', '--item', f'doc_id,{part}'], '10 items, 30 votes by 3 annotators')


def test_two_columns_that_each_read_the_pages_are_both_named(tmp_path):
    "Where two columns of no occasion's name both set the repeats apart (`page`, `side`), the refusal names both."
    _pages(tmp_path / 's.csv', lambda d, a, k: {'page': k + 1, 'side': ['left', 'right'][(k + (a == 'ann2')) % 2]}, 47)
    rc, out = said('data', 'validate', tmp_path / 's.csv', '--long', '--item', 'doc_id')
    assert rc != 0 and '--item doc_id,page' in out and '--item doc_id,side' in out, out


@pytest.mark.parametrize('item,run', [('prompt', 'batch_id'), ('sentence', 'pass_id'), ('text', 'crawl_id')])
def test_a_runs_ids_taken_for_the_items_give_way_to_the_items_they_split(tmp_path, item, run):
    """Old (b8466c2 too): `sentence,pass_id,label` (each sentence labelled in two passes; no annotators' column): the
    wide read's id `pass_id` was offered and read 16 items for 8, silently. Ids named for a rerun (`RERUN_WORDS`) that
    split most values of a column named for items or their texts, each id within one, give way to that column."""
    rng = np.random.default_rng(48)
    rows = [{item: f'{item} number {i}', run: f'{i}-{k}', 'label': rng.choice(['yes', 'no'])}
            for i in range(8) for k in range(2) for _ in range(3)]
    hint_then_read(tmp_path / 'r.csv', rows, item, '8 items, 48 votes')


def test_a_comments_id_under_a_posts_title_stays_the_item(tmp_path):
    "Control: `post_title,comment_id,label`: comment ids, named for no run, split the posts: the comments are the items."
    rng = np.random.default_rng(49)
    rows = [{'post_title': f'Post {p}', 'comment_id': f'c{p}{j}', 'label': rng.choice(['civil', 'toxic'])}
            for p in range(4) for j in range(3) for _ in range(3)]
    hint_then_read(tmp_path / 'c.csv', rows, 'comment_id', '12 items, 36 votes')


@pytest.mark.parametrize('who', [None, 'annotator'])
def test_a_prompts_runs_each_a_models_response_stay_the_items(tmp_path, who):
    """The eighty-fifth pass: `prompt,run_id[,annotator],label`, each run a model's response to the prompt, was offered
    `--item prompt` by the first mend (4 items for 12, silently without annotators): a `run` is no rerun's word."""
    rng = np.random.default_rng(50)
    rows = [{'prompt': f'Prompt {p}', 'run_id': f'r{p}{j}', **({who: f'a{k}'} if who else {}),
             'label': rng.choice(['good', 'bad'])} for p in range(4) for j in range(3) for k in range(3)]
    hint_then_read(tmp_path / 'p.csv', rows, 'run_id', '12 items, 36 votes')


@pytest.mark.parametrize('outer,inner', [('video_id', 'clip_id'), ('video', 'frame_id'), ('folder', 'file_id')])
def test_anonymous_votes_on_clips_in_videos_offer_the_clips(tmp_path, outer, inner):
    """The eighty-fifth pass: the first mend required an item's word of the nested column and read `video_id,clip_id`
    by the videos (4 items for 16, silently): a nested id named for no run stays the items."""
    rng = np.random.default_rng(51)
    rows = [{outer: f'v{v}', inner: f'v{v}-c{c}', 'label': rng.choice(['action', 'still'])}
            for v in range(4) for c in range(4) for _ in range(3)]
    hint_then_read(tmp_path / 'v.csv', rows, inner, '16 items, 48 votes')


@pytest.mark.parametrize('outer', ['subject', 'model'])
def test_anonymous_votes_on_runs_nested_in_subjects_or_models_offer_the_runs(tmp_path, outer):
    """The eighty-sixth pass: BIDS' `subject,run_id,label` (each run a scan rated for artifacts) and `model,run_id,label`
    (each run a model's response) were read by the subjects or models (4 items for 12, silently) once a run's word
    vetoed the nested column: a `run_id` may be the items."""
    rng = np.random.default_rng(52)
    rows = [{outer: f'{outer}-{s:02d}', 'run_id': f'{outer}-{s:02d}_run-{r}', 'label': rng.choice(['clean', 'artifact'])}
            for s in range(4) for r in range(3) for _ in range(3)]
    hint_then_read(tmp_path / 'b.csv', rows, 'run_id', '12 items, 36 votes')


def test_a_sentences_position_is_offered_before_a_counterbalancing_list(tmp_path):
    """The eighty-sixth pass: `sentence_id,position,participant,list,label` (a Latin square's `list` rotating the
    positions): the first mend named `list` first (`position` an occasion's word) and its paste mixed four positions in
    every item, right in totals. A position, a time, a round are named by their values, as before."""
    rng = np.random.default_rng(53)
    rows = [{'sentence_id': f's{s}', 'position': p, 'participant': f'P{k}', 'list': f'L{(p + k) % 4}',
             'label': rng.choice(['ok', 'odd'])} for s in range(6) for p in range(4) for k in range(4)]
    pd.DataFrame(rows).to_csv(tmp_path / 'l.csv', index=False)
    rc, out = said('data', 'validate', tmp_path / 'l.csv', '--long', '--item', 'sentence_id', '--annotator',
                   'participant')
    other = out.find('--item sentence_id,list')  # (named after it, or not at all)
    assert rc != 0 and (other < 0 or out.index('--item sentence_id,position') < other), out
    reads_as(tmp_path / 'l.csv', ['--long', '--item', 'sentence_id,position', '--annotator', 'participant'],
             '24 items, 96 votes by 4 annotators')
