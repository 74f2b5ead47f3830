"""Issue 39, the seventy-fourth hostile pass (on 901fdf5: extract, verbs, mcm): one lone surrogate escape (half an
emoji cut off in a title or in the bot's copy of a post) stopped the whole extraction; top-level comments whose
`parent_id` is the post's bare id were dropped as not top-level (their post lost as `no_votes`); `verbs`
gave p 1 for every verb, unexplained, where a file writes every worse action first, and pairs nobody judged (as
`extract` writes them, gold_annotations [0, 0]) were read as "action 1 is worse"."""

import json
import warnings

import pytest
from cli_run import scruples

from scruples.records import parse_comment, parse_post

NOTICE = ('^^^^AUTOMOD  ***This is a copy of the above post. It is a record of the post as originally written, in case '
          'the post is deleted or edited.***\n\n')
TEXT = ('I told my sister that she could not borrow my car for the weekend because she crashed it last time and never '
        'paid for the repairs, and now she is angry with me.')


def _post(pid, title='AITA for not lending my car to my sister?'):
    return {'id': pid, 'title': title, 'selftext': TEXT, 'author': f'op_{pid}', 'created_utc': 1546300800,
            'is_self': True, 'subreddit': 'AmItheAsshole', 'stickied': False, 'distinguished': None, 'edited': False}


def _comment(pid, cid, body, author, bare=False):
    ref = pid if bare else f't3_{pid}'
    return {'id': cid, 'author': author, 'body': body, 'created_utc': 1546300900, 'link_id': ref, 'parent_id': ref,
            'subreddit': 'AmItheAsshole'}


def _write(path, recs):
    path.write_text(''.join(json.dumps(r) + '\n' for r in recs))  # json.dumps writes a lone surrogate as \ud83d


def test_a_lone_surrogate_and_a_bare_parent_id_keep_every_anecdote(tmp_path):
    posts = [_post('q1', 'AITA for saying no to my brother \ud83d?'), _post('q2'), _post('q3')]
    comments = [_comment('q1', 'q1b', NOTICE + TEXT, 'AutoModerator'),
                _comment('q2', 'q2b', NOTICE + TEXT + ' \ud83d', 'AutoModerator'),  # in the bot's copy
                _comment('q3', 'q3b', NOTICE + TEXT, 'AutoModerator', bare=True)]
    for pid in ('q1', 'q2', 'q3'):
        comments += [_comment(pid, f'{pid}c{i}', f'{lab}, she should pay you back.', f'u{pid}{i}', bare=pid == 'q3')
                     for i, lab in enumerate(['NTA', 'NTA', 'YTA'])]
    _write(tmp_path / 'RS_2019-01', posts)
    _write(tmp_path / 'RC_2019-01', comments)
    r = scruples('extract', str(tmp_path / 'RS_2019-01'), str(tmp_path / 'RC_2019-01'), '--out', str(tmp_path / 'out'),
                 '--workers', '1', '--no-progress')
    assert r.returncode == 0, r.stdout + r.stderr
    got = {}
    for line in (tmp_path / 'out' / 'anecdotes.jsonl').read_text().splitlines():
        rec = json.loads(line)
        got[rec['post_id']] = rec
    assert sorted(got) == ['q1', 'q2', 'q3'], sorted(got)
    assert '\ufffd' in got['q1']['title'] and all(sum(g['label_scores'].values()) == 3 for g in got.values()), got


def test_a_bare_parent_id_of_the_post_is_top_level():
    c = parse_comment(_comment('p2', 'p2c0', 'NTA, she should pay you back.', 'u1', bare=True))
    assert c['kind'] == 'vote' and c['post_id'] == 'p2'
    reply = _comment('p2', 'p2c1', 'NTA, she should pay you back.', 'u2', bare=True) | {'parent_id': 'p2c0'}
    assert parse_comment(reply)['reason'] == 'not_top_level'  # a bare comment id: a reply, as before
    assert parse_post(_post('q1', 'half an emoji \ud83d'))['title'] == 'half an emoji \ufffd'


def _pairs(path, worse, better, swap, labels=None):
    recs = []
    for i, (w, b) in enumerate(zip(worse, better)):
        a1, a2 = (b, w) if swap[i] else (w, b)
        g = [0, 0] if labels == 'none' else ([0, 5] if swap[i] else [5, 0])
        k = f'{path.name[0]}{i}'  # ids unique across the files pooled
        acts = [{'id': f'{k}a', 'description': a1}, {'id': f'{k}b', 'description': a2}]
        recs.append({'id': k, 'actions': acts,
                     'gold_annotations': g, 'gold_label': 0 if labels == 'none' else int(swap[i]),
                     'controversial': False})
    path.write_text(''.join(json.dumps(r) + '\n' for r in recs))


WORSE = ['stealing my roommate\'s food', 'yelling at my brother', 'lying to my mom'] * 4
BETTER = ['helping my neighbor', 'cooking for my kids', 'reading to my son', 'sharing my lunch'] * 3


def test_verbs_says_where_the_order_of_a_pairs_actions_goes_with_the_label(tmp_path):
    """Every worse action written first (every label 0): the test holds the count of labels, so no verb can differ from
    chance (every p is 1: in such a file no verb's side differs from its label). Said, with the fix; the same pairs in
    random order find `stealing` (a null flipping each pair instead gave 69% false positives where verbs keep a side
    and action 1 is worse in 80%: the seventy-fifth pass)."""
    _pairs(tmp_path / 'a.scruples-dilemmas.jsonl', WORSE, BETTER, [False] * 12)
    _pairs(tmp_path / 'b.scruples-dilemmas.jsonl', WORSE, BETTER, [i % 2 == 1 for i in range(12)])
    out = {}
    for f in ('a', 'b'):
        r = scruples('verbs', str(tmp_path / f'{f}.scruples-dilemmas.jsonl'), '--all', '--samples', '4000', '--json')
        assert r.returncode == 0, r.stderr
        out[f] = (json.loads(r.stdout), ' '.join(r.stderr.split()))
    said, err = out['a']
    assert 'action 1 is the less ethical in 12 of 12 pairs' in err and 'every p is 1' in err and 'random order' in err
    assert any('12 of 12 pairs' in n for n in said['notes']) and all(x['p'] == 1 for x in said['rows'])
    said, err = out['b']
    assert 'less ethical in' not in err, err
    stealing = next(x for x in said['rows'] if x['verb'] == 'stealing')
    assert stealing['worse'] == 4 and stealing['p'] < 0.2, stealing


def test_permutation_test_warns_where_the_order_goes_with_the_label():
    from scruples.verbs import permutation_test
    v1, v2 = [w.split()[0] for w in WORSE], [b.split()[0] for b in BETTER]
    with pytest.warns(UserWarning, match='12 of 12 pairs'):
        permutation_test(v1, v2, [0] * 12, n_permutations=200, n_jobs=1)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        permutation_test(v1, v2, [0, 1] * 6, n_permutations=200, n_jobs=1)  # half and half: nothing to say


def test_verbs_leaves_out_pairs_nobody_judged_and_says_so(tmp_path):
    _pairs(tmp_path / 'a.scruples-dilemmas.jsonl', WORSE, BETTER, [False] * 12)
    _pairs(tmp_path / 'u.scruples-dilemmas.jsonl', BETTER, WORSE, [False] * 12, labels='none')  # made up: worse first
    r = scruples('verbs', str(tmp_path / 'a.scruples-dilemmas.jsonl'), str(tmp_path / 'u.scruples-dilemmas.jsonl'),
                 '--all', '--samples', '2000', '--json')
    assert r.returncode == 0 and '12 of 24 pairs left out, without annotations' in r.stderr, r.stderr
    out = json.loads(r.stdout)
    assert (out['pairs'], out['pairs_unannotated']) == (12, 12)
    helping = next(x for x in out['rows'] if x['verb'] == 'helping')
    assert (helping['better'], helping['worse']) == (3, 0), helping  # was 3 / 3 with the made-up labels
    r = scruples('verbs', str(tmp_path / 'u.scruples-dilemmas.jsonl'))
    assert r.returncode == 1 and 'none of the 12 pairs has annotations' in r.stderr, r.stderr


def test_mcm_scores_bare_mode_says_it_strips_every_final_mark():
    r = scruples('mcm', 'score', '--help')
    assert "every '.', '?' and '!'" in ' '.join(r.stdout.split())
