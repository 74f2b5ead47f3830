"""Leads left by earlier passes and found by the forty-seventh (issue 39): each test failed before its fix."""
import json

import numpy as np
import pandas as pd
import pytest
from cli_run import scruples

from scruples.annotations import read_annotated
from scruples.evaluation import evaluate
from scruples.metrics import rows_in_order_of


@pytest.mark.parametrize('cmd', [['best'], ['plan'], ['score', 'PRED'], ['agree']])
def test_json_errors_say_why_on_stdout(tmp_path, cmd):
    """A script reading `--json` got an empty stdout on bad input (the one line on stderr, exit status 1), so
    `json.loads` failed with no reason: the error is on stdout too, as JSON, and stderr keeps its line."""
    bad = tmp_path / 'bad.csv'
    bad.write_text('id,yes,no\na,1,x\n')
    pred = tmp_path / 'p.csv'
    pred.write_text('id,yes,no\na,.5,.5\n')
    args = [str(pred) if a == 'PRED' else a for a in cmd]
    r = scruples(*args, str(bad), '--json')
    assert r.returncode == 1, (r.stdout, r.stderr)
    got = json.loads(r.stdout)
    assert got['exit_status'] == 1 and 'bad.csv' in got['error'], got
    assert r.stderr.strip().startswith('scruples: error: ') and got['error'] in r.stderr
    r = scruples(*args, str(bad))  # without --json: stdout stays empty
    assert r.returncode == 1 and r.stdout == ''


# --- pairing left open by the forty-fifth and forty-sixth passes ------------------------------------------------------

CL = ['yes', 'no']


def _table(ids):
    "Items `ids`, every other one voted yes by all five, text t{id}."
    yes = np.arange(len(ids)) % 2 == 0
    return pd.DataFrame({'id': ids, 'text': [f't{i}' for i in ids], 'yes': np.where(yes, 5, 0),
                         'no': np.where(yes, 0, 5)})


class _Perfect:
    "Right on every item, reading its text."
    classes_ = np.array(['no', 'yes'])

    def __init__(self, df):
        self.truth = dict(zip(df.text, df.yes > 0))

    def predict_proba(self, X):
        return np.array([[.01, .99] if self.truth[t] else [.99, .01] for t in X['text']])


def _f1(df, X, y):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return float(evaluate(_Perfect(df), X, y, n_boot=0)['f1'])


def test_row_numbers_beside_ids_that_are_those_numbers_are_asked():
    """Counts indexed by ids ('id', a named index) that are 0..n-1 in another order than their rows, beside examples
    without an id column whose unnamed index holds row numbers (in order, sampled, or a subset), were matched row
    number to id: a perfect model scored 0.5. Row numbers or ids? Asked; each advice followed scores it right."""
    n = 12
    df = _table(list(np.random.default_rng(5).permutation(n)))
    y = df.set_index('id')[CL]
    perm = np.random.default_rng(1).permutation(n)
    for X in (df[['text']], df[['text']].iloc[perm], df[['text']].iloc[perm[:8]]):
        with pytest.raises(ValueError, match=r'row numbers or ids\?'):
            _f1(df, X, y)
        with pytest.raises(ValueError, match=r'row numbers or ids\?'):
            rows_in_order_of(y, X)
    assert _f1(df, df[['text']], y.reset_index(drop=True)) == 1.0  # by position, as the advice says
    assert _f1(df, df[['id', 'text']].iloc[perm], y) == 1.0  # X with its column of ids
    assert _f1(df, df.set_index('id')[['text']].iloc[perm].rename_axis(None).rename_axis('id'), y) == 1.0
    ok = _table(list(range(n)))  # ids that are the row numbers, in order: asked too (the same as counts sorted by id
    with pytest.raises(ValueError, match=r'row numbers or ids\?'):  # since, which by label pair wrongly: the
        _f1(ok, ok[['text']].iloc[perm], ok.set_index('id')[CL])  # fifty-first pass)
    assert _f1(ok, ok[['id', 'text']].iloc[perm], ok.set_index('id')[CL]) == 1.0  # with its ids: matched
    with pytest.raises(ValueError, match=r'row numbers or ids\?'):  # counts sorted by id beside shuffled row labels
        _f1(df, df[['text']].iloc[perm], y.sort_index())
    assert _f1(df, df[['text']], read_annotated(df)) == 1.0  # an AnnotatedData beside X in its order: by position


def test_a_named_index_of_another_name_holding_the_ids_is_asked():
    """X indexed by `user_id` (numbers 1..n in another order than the items' ids 1..n) was matched on it beside an
    AnnotatedData or counts indexed `id`: a perfect model scored 0.5. Asked, as the same numbers in a column are; X
    indexed by the data's own id column beside a `user_id` column was refused instead of matched on its index."""
    n = 12
    df = _table(list(range(1, n + 1)))
    df['user_id'] = np.random.default_rng(3).permutation(n) + 1
    d = read_annotated(df[['id', 'text'] + CL])
    X = df.drop(columns='id').set_index('user_id')
    for y in (d, df.set_index('id')[CL]):
        with pytest.raises(ValueError, match=r"its index 'user_id' holds numbers that are ids .* author_id"):
            _f1(df, X, y)
        assert _f1(df, X.reset_index(drop=True), y) == 1.0  # the advice: by position
        assert _f1(df, df.set_index('id').sample(frac=1, random_state=2), y) == 1.0  # on its index, named as the ids
    assert _f1(df, df.set_index('user_id').rename_axis('id'), df.set_index('id')[CL]) < 1  # told it is: as asked


def test_counts_indexed_by_whole_floats_are_matched_on_an_int_id_column():
    """Counts whose index is 1.0, 2.0 (a gap made the ids float) beside X holding the ids as ints were paired by
    position beside a `post_id` column (0.667 for a perfect model) and refused beside an `id` column: ids read as the
    readers read them, matched."""
    n = 12
    df = _table(list(range(1, n + 1)))
    y = df.set_index('id')[CL]
    y.index = y.index.astype(float)
    perm = np.random.default_rng(1).permutation(n)
    X = df.iloc[perm].reset_index(drop=True)
    assert _f1(df, X, y) == 1.0
    with pytest.raises(ValueError, match=r'an author_id'):  # numbers in another order in a post_id: asked, as for ints
        _f1(df, X.rename(columns={'id': 'post_id'}), y)
    assert _f1(df, X.rename(columns={'id': 'post_id'}), y.rename_axis('post_id')) == 1.0
    Xf = X.assign(id=X['id'].astype(float))  # floats on both sides: matched as written
    assert _f1(df, Xf, y) == 1.0


# --- the forty-seventh pass (agree, mcm, --json, readers; on d111f08) ------------------------------------------------

def test_an_action_not_utf8_is_one_line_not_a_traceback():
    """`scruples mcm score $'caf\\xe9'` (a Latin-1 argument) ended in the tokenizer's traceback: one line, exit 1, and
    the JSON error; the API's texts check refuses a lone surrogate alike."""
    import subprocess
    import sys

    from cli_run import CLI, cli_env

    from scruples.core import check_texts

    r = subprocess.run([sys.executable, '-c', CLI, 'mcm', 'score', b'caf\xe9', '--json'], check=False, capture_output=True,
                       env=cli_env(), timeout=300)
    err = r.stderr.decode()
    assert r.returncode == 1 and 'Traceback' not in err and 'not UTF-8 text' in err and 'byte 0xe9' in err, err
    assert json.loads(r.stdout)['exit_status'] == 1
    with pytest.raises(ValueError, match=r"texts\[1\] is not UTF-8 text .*a lone surrogate U\+D800"):
        check_texts(['ok', 'x\ud800'])
    assert check_texts(['café', 'naïve']) == ['café', 'naïve']


def test_a_saved_direction_of_another_dimension_or_not_one_is_refused_naming_it(tmp_path):
    """A saved direction of 768-d embeddings (a file of before names were saved) loaded with the default 384-d encoder
    failed at scoring with numpy's 'operands could not be broadcast'; parts that disagree loaded; a file that is not an
    .npz got numpy's advice to allow pickle; nearest(n=-1) and transform(n_components=0) returned odd arrays."""
    import warnings

    from scruples.bridge import LearnedDirection
    from scruples.mcm import MoralDirection, default_direction

    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        d0 = default_direction()
        z = {k: v for k, v in np.load(d0.save(tmp_path / 'mini')).items() if k != 'encoder'}
        rng = np.random.default_rng(0)
        z.update(components=rng.normal(size=(65, 768)), mean=rng.normal(size=768), embeddings=rng.normal(size=(65, 768)))
        np.savez(tmp_path / 'old.npz', **z)
        d = MoralDirection.load(tmp_path / 'old')
        for f in (lambda: d.score(['smile']), lambda: d.nearest('smile')):
            with pytest.raises(ValueError, match=r"768-dimensional embeddings, and the encoder '.*' gives "
                                                 r"384-dimensional ones: give the encoder it was fitted with"):
                f()
        np.savez(tmp_path / 'parts.npz', **(z | {'mean': np.zeros(100)}))
        with pytest.raises(ValueError, match=r'parts.npz: not a saved MoralDirection \(its parts disagree'):
            MoralDirection.load(tmp_path / 'parts.npz')
        (tmp_path / 'junk.npz').write_text('hello')
        np.save(tmp_path / 'one.npy', np.zeros(3))
        raw = (tmp_path / 'mini.npz').read_bytes()
        (tmp_path / 'cut.npz').write_bytes(raw[:len(raw) // 2])
        for name, kind in (('junk.npz', MoralDirection), ('one.npy', MoralDirection), ('cut.npz', MoralDirection),
                           ('junk.npz', LearnedDirection)):
            with pytest.raises(ValueError, match=rf'{name}: not a saved {kind.__name__} \(') as e:
                kind.load(tmp_path / name)
            assert 'pickle' not in str(e.value)
        with pytest.raises(ValueError, match='n must be a positive integer'):
            d0.nearest('murder', n=-1)
        for m in (0, 66, 1.5):
            with pytest.raises(ValueError, match=r'n_components must be an integer from 1 to 65'):
                d0.transform(['smile'], n_components=m)
        assert d0.transform(['smile'], n_components=65).shape == (1, 65)


def _agree(tmp_path, rows, annotators=None, *flags):
    f = tmp_path / 'votes.csv'
    f.write_text('item,annotator,label\n' + ''.join(f'{i},{a},{lab}\n' for i, a, lab in rows))
    extra = []
    if annotators:
        g = tmp_path / 'ann.csv'
        g.write_text('annotator,team\n' + ''.join(f'{a},{t}\n' for a, t in annotators))
        extra = ['--by', 'team', '--annotators', str(g)]
    r = scruples('agree', str(f), '--json', *extra, *flags)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), r.stderr


def test_agree_gives_no_interval_from_fewer_items_than_the_groups_table(tmp_path):
    """`agree --bootstrap` printed a 95% interval for alpha and kappa from 4 items (alpha -0.257 [-0.375, -0.222]) where
    its own --by table's `all` row, of the same votes, says 'fewer than 10: no interval': one rule, both tables."""
    votes = [(i, a, lab) for i, labs in enumerate(['yyn', 'nny', 'yny', 'nyn']) for a, lab in zip('abc', labs)]
    got, _ = _agree(tmp_path, votes, [('a', 't1'), ('b', 't1'), ('c', 't2')], '--bootstrap', '50')
    overall = {r['metric']: r for r in got['overall']}
    for m in ('krippendorff_alpha', 'fleiss_kappa'):
        assert overall[m]['lo'] is None and overall[m]['hi'] is None, overall[m]
    notes = got['overall_notes']
    assert 'krippendorff_alpha: 4 items with 2 or more votes (fewer than 10): no interval' in notes, notes
    assert not any('95% bootstrap interval' in n for n in notes), notes  # none given: none said
    assert all(r['alpha_lo'] is None for r in got['within'])
    many = [(i, a, lab) for i in range(12) for a, lab in zip('abc', ['yyn', 'nny', 'yny'][i % 3])]
    got, _ = _agree(tmp_path, many, None, '--bootstrap', '50')
    assert {r['metric']: r for r in got['overall']}['krippendorff_alpha']['lo'] is not None


def test_agree_with_repeats_says_alpha_does_not_pair_a_persons_labels(tmp_path):
    """With --repeats all, a group row said `items_2plus 2` and 'no item with 2 or more votes' beside a Fleiss kappa:
    alpha pairs persons (a person's repeats are one value), kappa counts every label; both said."""
    rows = [(1, 'a', 'yes'), (1, 'a', 'no'), (2, 'a', 'no'), (2, 'a', 'no'), (3, 'b', 'yes'), (3, 'c', 'no'),
            (4, 'b', 'yes'), (4, 'c', 'yes')]
    got, _ = _agree(tmp_path, rows, [('a', 'x'), ('b', 'x'), ('c', 'y')], '--repeats', 'all', '--bootstrap', '0')
    x = next(r for r in got['within'] if r['group'] == 'x')
    assert x['note'].startswith("no item with votes of 2 or more annotators (a person's repeated labels are not "
                                'paired: items_2plus and kappa count them)') and x['items_2plus'] == 2, x
    assert any(n.startswith('krippendorff_alpha pairs the labels of different annotators only')
               for n in got['overall_notes']), got['overall_notes']


def test_json_usage_errors_are_json_too_and_the_epilog_says_which_status(tmp_path):
    """A usage error argparse finds (`--metric foo`) under --json wrote nothing on stdout; the epilog said every usage
    error exits 2 where an option that does not fit the data exits 1."""
    f = tmp_path / 'c.csv'
    f.write_text('id,yes,no\na,3,1\nb,1,3\n')
    r = scruples('best', '--json', str(f), '--metric', 'foo')
    assert r.returncode == 2 and "invalid choice: 'foo'" in r.stderr
    got = json.loads(r.stdout)
    assert got['exit_status'] == 2 and got['error'].startswith("argument --metric: invalid choice: 'foo'")
    r = scruples('best', str(f), '--metric', 'foo')
    assert r.returncode == 2 and r.stdout == ''
    r = scruples('--help')
    assert 'options that do not fit the data read, exit with status 1' in ' '.join(r.stdout.split())


def test_a_tab_separated_csv_is_read_as_tsv(tmp_path):
    """A TSV saved as .csv (a common export) was refused with a message about count columns, never saying tabs;
    semicolons were detected. Read as tab-separated, said, the same as the .tsv."""
    body = 'id\ttext\tyes\tno\na\thello, world\t3\t1\nb\tbye\t1\t3\nc\tx\t2\t2\n'
    for name in ('t.csv', 't.tsv'):
        (tmp_path / name).write_text(body)
    a, b = (scruples('best', str(tmp_path / n), '--json', '--bootstrap', '0', '--samples', '100') for n in ('t.csv', 't.tsv'))
    assert a.returncode == 0 == b.returncode, a.stderr
    ja, jb = json.loads(a.stdout), json.loads(b.stdout)
    assert 'tab-separated (the first line has tabs and no ,)' in ja['read']
    assert ja['estimates'] == jb['estimates'] and ja['examples'] == 3


def test_a_tiny_alpha_is_not_printed_as_zero(tmp_path):
    """Unanimous items fit a Dirichlet of alpha 4e-09: printed `prior alpha = [0.0, 0.0, 0.0]` (a Dirichlet that
    cannot be), and the prior choice's z as '-20504.2 s.e.'."""
    from scruples.best import alpha_shown

    f = tmp_path / 'u.csv'
    f.write_text('a,b,c\n' + '5,0,0\n' * 10 + '0,5,0\n' * 10 + '0,0,5\n' * 5)
    r = scruples('best', str(f), '--bootstrap', '0', '--samples', '100')
    out = ' '.join(r.stdout.split())
    assert r.returncode == 0 and 'prior alpha = [4.12e-09, 4.12e-09, 2.06e-09]' in out, r.stdout
    assert 'nearly the same on every item' in out and '20504' not in out, out
    assert alpha_shown([1.0220171, 0.0004123456, 0.0, 3]) == [1.022017, 0.000412, 0.0, 3.0]


# --- the forty-eighth pass (pairing, on 53d6397) -----------------------------------------------------------------------

def test_x_indexed_by_the_data_id_beside_an_ID_column_is_matched_on_its_index():
    """X = df.set_index('id') beside a column `ID` (1..n) was matched on `ID` (found in any case) before its index
    named as the data's ids: a perfect model 0.25. The index named exactly as the ids first; a float index read as
    the reader reads ids (it was refused, 'write them alike in both files', beside counts keyed by ints)."""
    n = 8
    df = _table(list(np.random.default_rng(2).permutation(n) + 1))
    d = read_annotated(df)
    for col in ('ID', 'Id'):
        X = df.assign(**{col: range(1, n + 1)}).set_index('id')
        assert _f1(df, X, d) == 1.0 and _f1(df, X.sample(frac=1, random_state=1), d) == 1.0
    Xf = df.assign(id=df['id'].astype(float)).set_index('id').sample(frac=1, random_state=3)
    assert _f1(df, Xf, d) == 1.0 and _f1(df, Xf, df.set_index('id')[CL]) == 1.0


def test_two_level_ids_are_matched_by_level_name():
    """Counts indexed (thread, comment) beside X indexed (comment, thread) were matched tuple to tuple: (1, 2) took
    (2, 1)'s votes (0.25), in evaluate, score_predictions and the soft metrics alike. Matched by level name."""
    from scruples.evaluation import score_predictions
    from scruples.metrics import xentropy

    pairs = [(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (2, 3), (3, 2)]
    df = _table(list(range(8))).drop(columns='id')
    df['thread'], df['comment'] = [p[0] for p in pairs], [p[1] for p in pairs]
    counts = df.set_index(['thread', 'comment'])[CL]
    X = df.set_index(['comment', 'thread'])
    assert _f1(df, X, counts) == 1.0 and _f1(df, X, read_annotated(df, id=['thread', 'comment'])) == 1.0
    P = pd.DataFrame(_Perfect(df).predict_proba(df)[:, ::-1], index=X.index, columns=CL)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert float(score_predictions(P, counts, n_boot=0)['f1']) == 1.0
    assert xentropy(counts, P) == pytest.approx(xentropy(counts, P.to_numpy()))
    with pytest.raises(ValueError, match='which level is which'):
        xentropy(counts, P.rename_axis(['a', 'b']))


def test_more_layouts_where_row_numbers_or_other_numbers_would_be_taken_for_ids():
    """Counts under an unnamed index of ids beside X indexed by `author_id` (the same numbers, other rows) were matched
    on it; whole-float ids escaped the question (3.0 is no digit string); ids 1..n escaped the row-numbers question (it
    asked only for 0..n-1), and its advice (`counts.loc[X.index]`) then mis-paired: each asked, the advice followed
    scores right."""
    n = 8
    df = _table(list(np.random.default_rng(4).permutation(n) + 101))
    df['author_id'] = np.random.default_rng(6).permutation(df['id'].to_numpy())
    ids = df['id'].tolist()
    X = df.drop(columns='id').set_index('author_id')
    with pytest.raises(ValueError, match=r"its index 'author_id' holds numbers that are ids .*an unnamed index"):
        _f1(df, X, pd.DataFrame(df[CL].to_numpy(), index=ids, columns=CL))
    assert _f1(df, X, pd.DataFrame(df[CL].to_numpy(), index=pd.Index(ids, name='author_id'), columns=CL)) < 1  # named
    assert _f1(df, df.set_index('id'), pd.DataFrame(df[CL].to_numpy(), index=ids, columns=CL)) == 1.0  # `id`: ids
    yf = df.set_index('id')[CL]
    yf.index = yf.index.astype(float)
    with pytest.raises(ValueError, match=r'an author_id'):
        _f1(df, X.set_axis(X.index.astype(float)), yf)
    df1 = _table(list(np.random.default_rng(5).permutation(n) + 1))  # ids 1..n, X 5 sampled rows (row numbers)
    y1 = df1.set_index('id')[CL]
    X1 = df1.drop(columns='id').sample(5, random_state=3)
    assert 0 not in set(X1.index)  # row numbers below n, none 0: ids 1..n alike
    with pytest.raises(ValueError, match=r'row numbers or ids\?'):
        _f1(df1, X1, y1)
    for Xs in (X1, df1.drop(columns='id').sort_values('text', ascending=False)):
        assert _f1(df1, Xs, y1.reset_index(drop=True).loc[Xs.index]) == 1.0  # the advice, followed


# --- the forty-ninth pass (pairing, on the forty-eighth's fixes) ------------------------------------------------------

def test_text_ids_beside_row_numbers_and_the_split_advice():
    """Counts built from an AnnotatedData's own fields (`pd.DataFrame(d.counts, index=d.items)`: ids '3', '0', ...
    written as text, unnamed) beside X = df[['text']] (row numbers) were matched row number to id: 0.5. Asked now; and
    the row-numbers question's advice (`y.reset_index(drop=True).loc[X.index]`) mis-paired a test split (its row
    numbers are the whole frame's): the advice is by position where the two were taken together, which scores right."""
    n = 12
    df = _table([3, 0, 5, 1, 4, 2, 9, 11, 6, 10, 8, 7])
    d = read_annotated(df)
    C = pd.DataFrame(d.counts, index=d.items, columns=list(d.classes))
    with pytest.raises(ValueError, match=r'row numbers or ids\?'):
        _f1(df, df[['text']], C)
    assert _f1(df, df[['text']], C.reset_index(drop=True)) == 1.0
    test = df.iloc[: n // 2].sample(frac=1, random_state=0)
    X, y = test[['text']], test.set_index('id')[CL]
    with pytest.raises(ValueError, match=r'row numbers or ids\?') as e:
        _f1(df, X, y)
    assert 'X_test.reset_index(drop=True) beside counts_test.reset_index(drop=True)' in str(e.value)
    assert _f1(df, X.reset_index(drop=True), y.reset_index(drop=True)) == 1.0


def test_unnamed_levels_are_matched_on_the_columns_holding_them_or_asked():
    """Counts under an unnamed (thread, comment) index beside X holding `thread` and `comment` columns, shuffled and
    reset, were paired by position (0.31); levels named on one side only were matched tuple to tuple, each (1, 2) with
    (2, 1) (0.49): matched on the columns that hold the tuples, or asked where two orders of them fit."""
    rng = np.random.default_rng(0)
    df = _table(list(range(8))).drop(columns='id')
    df['thread'], df['comment'] = [1, 1, 1, 2, 2, 3, 3, 4], [10, 11, 12, 10, 13, 11, 14, 15]  # no pair reads both ways
    counts = df.set_index(['thread', 'comment'])[CL].rename_axis([None, None])
    X = df.iloc[rng.permutation(8)].reset_index(drop=True)
    assert _f1(df, X, counts) == 1.0
    sym = df.assign(thread=[1, 1, 2, 2, 1, 3, 2, 3], comment=[1, 2, 1, 2, 3, 1, 3, 2])  # (1, 2) and (2, 1) both items
    c2 = sym.set_index(['thread', 'comment'])[CL]
    for y, Xs in ((c2.rename_axis([None, None]), sym.iloc[rng.permutation(8)].reset_index(drop=True)),
                  (c2.rename_axis([None, None]), sym.set_index(['comment', 'thread'])),
                  (c2, sym.set_index(['comment', 'thread']).rename_axis([None, None]))):
        with pytest.raises(ValueError, match=r'which (level is which|hold them)\?'):
            _f1(sym, Xs, y)
    assert _f1(sym, sym.iloc[rng.permutation(8)].reset_index(drop=True), c2) == 1.0  # named: on the columns
    assert _f1(sym, sym.set_index(['comment', 'thread']).rename_axis(
        ['Comment', 'Thread']), c2) == 1.0  # named alike but for case: by name


def test_a_float_id_column_is_matched_to_counts_keyed_by_ints():
    """X's `id` column of whole floats (816.0, a merge with a gap) beside counts indexed by int ids was refused
    ('write them alike in both files'), where the same ids as X's index, or beside an AnnotatedData, were matched."""
    df = _table([816, 17, 5, 42, 99, 3])
    X = df.assign(id=df['id'].astype(float)).sample(frac=1, random_state=2)
    assert _f1(df, X, df.set_index('id')[CL]) == 1.0
    assert _f1(df, X.reset_index(drop=True), df.set_index('id')[CL]) == 1.0


# --- the fiftieth pass (pairing, on 7d9d13f) ---------------------------------------------------------------------------

def _shuffled(n=12):
    "A frame of items whose ids are 0..n-1 in another order than their rows, shuffled (row labels 0..n-1 permuted)."
    df = _table([3, 0, 5, 1, 4, 2, 9, 11, 6, 10, 8, 7][:n])
    return df, df.sample(frac=1, random_state=4)


def test_row_labels_are_not_matched_to_ids_in_any_function():
    """Predictions indexed by a shuffled frame's row labels beside counts keyed by the ids (an AnnotatedData, a named
    index) were matched row label to id in `score_predictions`, `xentropy`, `total_variation` (a perfect model 0.31,
    cross-entropy 2.77 for 0.93); `evaluate(model, sh.set_index('id'), sh[['yes','no']])` too: asked now."""
    import warnings

    from scruples.evaluation import score_predictions
    from scruples.metrics import total_variation, xentropy

    df, sh = _shuffled()
    m = _Perfect(df)
    P = pd.DataFrame(m.predict_proba(sh), index=sh.index, columns=m.classes_)
    for counts in (read_annotated(df), df.set_index('id')[CL], sh.set_index('id')[CL]):
        for f in (lambda c=counts: score_predictions(P, c, n_boot=0), lambda c=counts: xentropy(c, P),
                  lambda c=counts: total_variation(c, P)):
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                with pytest.raises(ValueError, match=r'row labels or ids\?'):
                    f()
    Pid = P.set_axis(pd.Index(sh['id'].to_numpy(), name='id'))  # the predictions keyed by the ids: matched
    assert xentropy(df.set_index('id')[CL], Pid) == pytest.approx(xentropy(sh[['no', 'yes']].to_numpy(), P.to_numpy()))
    with pytest.raises(ValueError, match=r'row labels or ids\?'):
        _f1(df, sh.set_index('id'), sh[CL])
    assert _f1(df, sh.set_index('id'), sh[['no', 'yes']].to_numpy()) == 1.0  # the advice: by position (the model's order)


def test_one_frames_rows_on_both_sides_are_paired_and_soft_metrics_align_once():
    """`evaluate(model, sh, sh[['yes','no']])` (one shuffled frame's rows on both sides, ids 0..n-1 in other rows of its
    `id` column) is asked (row labels or ids?), and both pieces of its advice mis-paired (0.31): each is now said with
    the case it is right in, and followed so, scores right; `soft_metrics` refused predictions already in the counts'
    order ('y_true has none (an array)'): it aligned, then aligned again against the bare counts."""
    from scruples.softmetrics import soft_metrics

    df, sh = _shuffled()
    with pytest.raises(ValueError, match=r'row labels or ids\?') as e:
        _f1(df, sh, sh[CL])
    assert 'if it holds the row labels of X_test (both taken from one frame), leave the id column out' in str(e.value)
    assert _f1(df, sh.drop(columns='id'), sh[CL]) == 1.0  # row labels: as advised
    assert _f1(df, sh.drop(columns='id'), sh[CL].sample(frac=1, random_state=5)) == 1.0  # in another order too
    assert _f1(df, sh, df.set_index('id')[CL].rename_axis('id')) == 1.0  # ids: named as the column
    named = sh.rename_axis('row')
    assert _f1(df, named, named[CL]) == 1.0  # the same ids named alike, in the same order: paired
    m = _Perfect(df)
    P = pd.DataFrame(m.predict_proba(sh), index=sh.index, columns=m.classes_)
    got = soft_metrics(sh[['no', 'yes']], P)
    assert got['accuracy'] == 1.0 and got == soft_metrics(sh[['no', 'yes']].to_numpy(), P.to_numpy())
