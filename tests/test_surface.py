"""The command surface (issue 38): every flag of every command changes the output or is refused with one line (a table of
expectations that fails when a flag is added without an entry); a split column selects the test items in `best`, `plan`
and `score` with no file written by hand; one declaration gives the same help in every command; `analyze` reads its
input once. Also the issue-39/40 defects of the surface: `score --json`'s duplicate `read` key, "1 votes", 100 columns."""
import argparse
import json
import re
from pathlib import Path

import numpy as np
import pytest

from scruples.cli import main, parser
from scruples.options import OPTIONS

# --- small tables ----------------------------------------------------------------------------------------------------

SPLITS = ('train', 'dev', 'test')


def counts_rows(n=36, seed=0):
    "Counts of 3 classes, 4 votes an item (each item its own distribution: a prior to fit), some ties; a split in turn."
    g = np.random.default_rng(seed)
    c = np.array([g.multinomial(4, q) for q in g.dirichlet([1.5, 1, 0.7], size=n)])
    return [(f'i{i}', f'text {i}', *map(int, c[i]), SPLITS[i % 3]) for i in range(n)]


@pytest.fixture(scope='module')
def tables(tmp_path_factory):
    d = tmp_path_factory.mktemp('surface')
    rows = counts_rows()
    head = 'id,text,yes,no,maybe,split\n'
    (d/'s.csv').write_text(head + ''.join(','.join(map(str, r)) + '\n' for r in rows))
    for part in SPLITS:  # the same items, one file a split: what a user had to write by hand before
        (d/f'{part}.csv').write_text('id,text,yes,no,maybe\n' + ''.join(','.join(map(str, r[:-1])) + '\n' for r in rows
                                                                           if r[-1] == part))
    (d/'long.csv').write_text('item,annotator,label\n' + ''.join(
        f'{r[0]},a{j},{c}\n' for r in rows for j, c in enumerate([k for k, m in zip(('yes', 'no', 'maybe'), r[2:5])
                                                                    for _ in range(m)])))
    g = np.random.default_rng(1)
    p = g.dirichlet([2, 2, 2], size=len(rows))

    def preds(name, keep, fix=None):
        lines = ['id,yes,no,maybe']
        for r, q in zip(rows, p):
            if keep(r):
                q = fix(q) if fix else q
                lines.append(f'{r[0]},{q[0]:.6f},{q[1]:.6f},{1 - q[0] - q[1]:.6f}' if not fix else
                             f'{r[0]},{q[0]:.6f},{q[1]:.6f},{q[2]:.6f}')
        (d/name).write_text('\n'.join(lines) + '\n')

    preds('p_test.csv', lambda r: r[-1] == 'test')
    preds('p_dev.csv', lambda r: r[-1] == 'dev')
    preds('p_test_off.csv', lambda r: r[-1] == 'test', fix=lambda q: q * 1.004)  # sums to 1.004: within 0.01 only
    (d/'p_test_labels.csv').write_text('id,guess\n' + ''.join(f'{r[0]},yes\n' for r in rows if r[-1] == 'test'))
    (d/'y.json').write_text(json.dumps([0] * len(rows)))
    return d


def run(capsys, *argv):
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as e:  # usage errors: argparse exits 2
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


# --- every flag of every command --------------------------------------------------------------------------------------

def commands(p=None, path=()):
    "Every command (a leaf of the parser) and its parser."
    p = p or parser()
    subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield ' '.join(path), p
    for a in subs:
        for name, q in a.choices.items():
            yield from commands(q, (*path, name))


def flags(q) -> list[str]:
    return [s for a in q._actions for s in a.option_strings if s.startswith('--') and s != '--help']


FAST = ['--samples', '60', '--bootstrap', '0']
BASE = {  # each command's argv on the small tables (without the flag tried)
    'best': ['{d}/s.csv', *FAST],
    'plan': ['{d}/s.csv', '--votes', '1,3'],
    'score': ['{d}/p_test.csv', '{d}/s.csv', *FAST, '--ceiling-bootstrap', '0'],
    'data validate': ['{d}/s.csv'],
    'analyze': ['{d}/s.csv', '--out', '{d}/out'],
    'agree': ['{d}/s.csv'],
}
READING = {  # the reading flags, the same in every command that reads a table: the argv tried
    '--wide': ('on', 'long.csv', ['--wide']), '--long': ['--long'], '--counts': ['--counts', 'yes,no'], '--id': ['--id', 'text'],
    '--item': ['--item', 'id'], '--annotator': ['--annotator', 'x'], '--label': ['--label', 'x'],
    '--annotator-columns': ['--annotator-columns', 'yes,no'], '--text': ['--text', ''], '--context': ['--context', 'text'],
    '--split': ['--split', ''], '--classes': ['--classes', 'maybe,no,yes'], '--repeats': ['--repeats', 'all'],
}
ANALYSIS = {'--on': ['--on', 'all'], '--group': ['--group', 'yn=yes,no'], '--seed': ['--seed', '3'],
            '--bootstrap': ['--bootstrap', '20'], '--json': ['--json']}
ELSEWHERE = 'covered by'  # an entry ('covered by', 'tests/FILE.py::TEST'): the flag's effect is tested there
EXPECT = {
    'best': READING | ANALYSIS | {'--ordered': ['--ordered'], '--metric': ['--metric', 'kl'], '--ties': ['--ties', 'drop'],
                                  '--labels': ['--labels', '{d}/y.json'], '--samples': ['--samples', '70'],
                                  '--by': (ELSEWHERE, 'tests/test_perspectives.py::test_best_by_group'),
                                  '--annotators': (ELSEWHERE, 'tests/test_perspectives.py::test_best_by_group')},
    'plan': READING | {k: v for k, v in ANALYSIS.items() if k != '--bootstrap'} | {'--votes': ['--votes', '1,5'], '--items': ['--items', '500'],
                                  '--bootstrap': (['{d}/s.csv', '--votes', '3', '--difference', '0.2'], ['--bootstrap', '20']),
                                  '--difference': ['--difference', '0.2'], '--figure': ['--figure', '{d}/plan.png'],
                                  '--by': (ELSEWHERE, 'tests/test_perspectives.py::test_plan_by_group'),
                                  '--annotators': (ELSEWHERE, 'tests/test_perspectives.py::test_plan_by_group')},
    'score': READING | ANALYSIS | {
        '--ordered': ['--ordered'], '--pred-id': ['--pred-id', 'yes'], '--pred-label': ['--pred-label', 'yes'],
        '--tolerance': (['{d}/p_test_off.csv', '{d}/s.csv', *FAST, '--ceiling-bootstrap', '0'], ['--tolerance', '0.01']),
        '--cal': ['--cal', '{d}/p_dev.csv'], '--cal-gold': ['--cal', '{d}/p_dev.csv', '--cal-gold', '{d}/dev.csv'],
        '--figures': ['--figures', '{d}/figs'], '--ceiling-bootstrap': ['--ceiling-bootstrap', '20'],
        '--samples': ['--samples', '70']},
    'data validate': READING | {'--json': ['--json']},
    'analyze': READING | {k: ANALYSIS[k] for k in ('--group', '--seed', '--bootstrap', '--json')} | {
        '--ordered': ['--ordered'], '--epochs': ['--epochs', '2'], '--max-items': ['--max-items', '10'],
        '--finetune': ['--finetune', 'no'], '--annotations': ['--annotations', '{d}/long.csv'],
        '--predictions': ['--predictions', '{d}/p_test.csv'], '--kernel': ['--kernel', 'other'],
        '--param': ['--param', 'budget=3'],
        '--by': (ELSEWHERE, 'tests/test_perspectives.py::test_analyze_by_group'),
        '--annotators': (ELSEWHERE, 'tests/test_perspectives.py::test_analyze_by_group'), '--out': (ELSEWHERE, 'tests/test_guide.py::test_analyze_rerun_replaces_the_previous_run_as_a_whole')},
    'agree': READING | {k: ANALYSIS[k] for k in ('--on', '--seed', '--bootstrap', '--json')} | {
        '--ordered': ['--ordered'],
        '--by': (ELSEWHERE, 'tests/test_perspectives.py::test_agree_within_groups'),
        '--annotators': (ELSEWHERE, 'tests/test_perspectives.py::test_agree_between_groups'),
        '--figure': (ELSEWHERE, 'tests/test_perspectives.py::test_agree_per_annotator')},
    'data locate': {'--json': (ELSEWHERE, 'tests/test_cli.py::test_locate_json'),
                    '--data-dir': (ELSEWHERE, 'tests/test_cli.py::test_locate_json_real')},
    'data fetch': {f: (ELSEWHERE, 'tests/test_fetch.py') for f in ('--json', '--which', '--dest', '--force', '--no-progress',
                                                                   '--url')},
    'data stats': {f: (ELSEWHERE, 'tests/test_cli.py') for f in ('--json', '--data-dir', '--seed', '--synthetic-size')},
    'verbs': {f: (ELSEWHERE, 'tests/test_verbs.py') for f in ('--json', '--samples', '--seed', '--alpha', '--all')},
    'mcm score': {f: (ELSEWHERE, 'tests/test_mcm.py') for f in ('--json', '--mode')},
    'mcm user-study': {f: (ELSEWHERE, 'tests/test_mcm.py') for f in ('--json', '--questions')},
    'reproduce': {f: (ELSEWHERE, 'tests/test_reproduce.py') for f in (
        '--json', '--smoke', '--data-dir', '--seed', '--out', '--fig-dir', '--kernel', '--notebooks', '--jobs')},
    'extract': {f: (ELSEWHERE, 'tests/test_extraction_pipeline.py') for f in (
        '--json', '--posts', '--comments', '--out', '--workers', '--address', '--subreddit', '--min-words', '--min-votes',
        '--dev-size', '--test-size', '--seed', '--no-splits', '--no-progress', '--unescape')},
}


def test_every_flag_has_an_expectation():
    "A new flag without an entry here fails: say how it changes the output (or where that is tested)."
    seen = {cmd: flags(q) for cmd, q in commands()}
    missing = [(c, f) for c, fs in seen.items() for f in fs if f not in EXPECT.get(c, {})]
    stale = [(c, f) for c, fs in EXPECT.items() for f in fs if f not in seen.get(c, ())]
    assert not missing and not stale, (missing, stale)
    for c, fs in EXPECT.items():
        for f, e in fs.items():
            if isinstance(e, tuple) and e[0] == ELSEWHERE:
                file, _, name = e[1].partition('::')
                assert (Path(__file__).parent.parent/file).is_file() and (not name or f'def {name}(' in
                                                                          (Path(__file__).parent.parent/file).read_text()), e


def _fake_analyze(monkeypatch):
    "guide.analyze replaced: it prints what it was handed (the notebook's parameters), so a flag's effect shows."
    import pandas as pd
    import scruples.guide as guide

    def fake(file, out, kernel=None, log=print, **kw):
        got = dict(kw['resolved']) | {'kernel': kernel}
        return pd.DataFrame({'quantity': list(got), 'value': [str(v) for v in got.values()]})

    monkeypatch.setattr(guide, 'analyze', fake)


CASES = [(c, f) for c, fs in EXPECT.items() for f, e in fs.items() if not (isinstance(e, tuple) and e[0] == ELSEWHERE)]
# The output without the flag: one run per command line (on the module's `tables`), shared by every case whose command
# line it is (each case ran it again: 129 runs where 14 are distinct; `analyze` reads its table in a new
# interpreter) (issue 43). The commands are seeded, so a case compares with what its own run would print.
BEFORE: dict[tuple, tuple] = {}


@pytest.mark.parametrize('command, flag', CASES, ids=[f'{c}:{f}' for c, f in CASES])
def test_flag_changes_the_output_or_is_refused(capsys, tables, monkeypatch, command, flag):
    _fake_analyze(monkeypatch)
    e = EXPECT[command][flag]
    if isinstance(e, tuple) and e[0] == 'on':  # ('on', FILE, argv): the command's argv on another table
        base, extra = [a.replace('{d}/s.csv', '{d}/' + e[1]) for a in BASE[command]], e[2]
    else:
        base, extra = e if isinstance(e, tuple) else (BASE[command], e)
    fill = lambda argv: [a.replace('{d}', str(tables)) for a in argv]
    argv = [*command.split(), *fill(base)]
    if tuple(argv) not in BEFORE: BEFORE[tuple(argv)] = run(capsys, *argv)
    before = BEFORE[tuple(argv)]
    after = run(capsys, *argv, *fill(extra))
    if after[0] != 0:  # refused: with one line, never a traceback
        assert after[0] in (1, 2) and 'Traceback' not in after[2], after
        if command == 'data validate':  # its report: a line a file, the error on it
            assert after[0] == 1 and ': error: ' in after[1], after
        elif after[0] == 1:
            assert len(after[2].strip().splitlines()) == 1, after[2]
    else:
        assert before[0] != 0 or after[1] != before[1], f'{command} {flag}: accepted and the output did not change'


# --- the split column selects the items -----------------------------------------------------------------------------

def jrun(capsys, *argv):
    rc, out, err = run(capsys, *argv, '--json')
    assert rc == 0, err
    return json.loads(out)


def test_split_column_gives_the_test_items_ceiling_in_best_plan_and_score(capsys, tables):
    """A split column selects the test items in best, plan and score (no file written by hand); the ceiling's prior is
    chosen on every item of the file (issue 41), so a file of the test items alone gives the same items, another prior."""
    d = tables
    a, b = jrun(capsys, 'best', d/'s.csv', *FAST), jrun(capsys, 'best', d/'test.csv', *FAST)
    assert a['examples'] == b['examples'] == 12 and 'the 12 test items' in a['read']
    assert 'chosen and fitted on 36 items' in a['prior_reason'] and 'chosen and fitted on' not in b['prior_reason']
    c = jrun(capsys, 'best', d/'s.csv', *FAST, '--on', 'all')
    assert c['examples'] == 36 and c['estimates'] != a['estimates'] and 'chosen and fitted on' not in c['prior_reason']
    a, b = jrun(capsys, 'plan', d/'s.csv', '--votes', '1,3'), jrun(capsys, 'plan', d/'test.csv', '--votes', '1,3')
    assert a['pilot_items'] == b['pilot_items'] == 12 and 'chosen and fitted on 36 items' in a['prior_reason']
    fast = [*FAST, '--ceiling-bootstrap', '10']
    a = jrun(capsys, 'score', d/'p_test.csv', d/'s.csv', '--cal', d/'p_dev.csv', *fast)  # one gold file, every split
    b = jrun(capsys, 'score', d/'p_test.csv', d/'test.csv', '--cal', d/'p_dev.csv', '--cal-gold', d/'dev.csv', *fast)
    model = lambda r: [{k: v for k, v in m.items() if not k.startswith(('ceiling', 'gap'))} for m in r['metrics']]
    assert a['items'] == 12 and (a['temperature'], model(a)) == (b['temperature'], model(b))
    assert 'dev items' in a['calibration']


def test_on_without_a_split_column_is_refused_in_one_line(capsys, tables):
    rc, _, err = run(capsys, 'best', tables/'test.csv', '--on', 'dev', *FAST)
    assert rc == 1 and '--on' in err and 'no split column' in err and len(err.strip().splitlines()) == 1


def test_score_json_has_one_read_key(capsys, tables):
    "Issue 39: `score --json` wrote the key `read` twice, so the gold file's read line was lost."
    rc, out, _ = run(capsys, 'score', tables/'p_test.csv', tables/'s.csv', *FAST, '--ceiling-bootstrap', '0', '--json')
    pairs = json.loads(out, object_pairs_hook=lambda kv: [k for k, _ in kv] and dict(kv) | {'_keys': [k for k, _ in kv]})
    assert rc == 0 and pairs['_keys'].count('read') == 1 and pairs['read'].startswith('wide: 36 items')


def test_text_output_within_100_columns_and_no_1_votes(capsys, tables):
    "Issue 40: text output at most 100 columns; issue 39: '1 votes'."
    for argv in (['best', tables/'s.csv', *FAST], ['plan', tables/'s.csv', '--votes', '1,3'],
                 ['score', tables/'p_test.csv', tables/'s.csv', *FAST, '--ceiling-bootstrap', '0'],
                 ['data', 'validate', tables/'s.csv', tables/'long.csv']):
        rc, out, err = run(capsys, *argv)
        assert rc == 0, err
        assert max(map(len, out.splitlines())) <= 100, out
        assert not re.search(r'\b1 votes\b', out), out


def test_best_says_what_std_error_and_the_interval_are(capsys, tables):
    rc, out, _ = run(capsys, 'best', tables/'s.csv', *FAST)
    flat = out.replace('\n  ', ' ')
    assert 'Monte Carlo error' in flat and 'uncertainty of the estimate' in flat


def test_plan_says_why_cross_entropy_does_not_move(capsys, tables):
    rc, out, _ = run(capsys, 'plan', tables/'s.csv', '--votes', '1,3')
    assert rc == 0 and 'xentropy stays the same for every number of votes' in out.replace('\n  ', ' ')


# --- one declaration, one help ---------------------------------------------------------------------------------------

def test_the_same_option_has_the_same_help_in_every_command():
    by = {}
    for cmd, q in commands():
        for a in q._actions:
            for s in a.option_strings:
                by.setdefault(s, {})[cmd] = (a.help, a.metavar, tuple(a.choices or ()))
    for o in OPTIONS:
        for f in (o.consts or [o.flags]):
            seen = {c: h for c, h in by[f].items() if c.split()[-1] in o.commands}
            assert set(o.commands) <= {c.split()[-1] for c in seen}, (f, seen)
            assert len({h for h, *_ in seen.values()}) == 1, (f, seen)
    reading = [o for o in OPTIONS if o.kind == 'reading']
    assert {c for c in {c for o in reading for c in o.commands}} == {'best', 'score', 'plan', 'analyze', 'validate', 'agree'}
    assert 'stderr' not in parser()._subparsers._group_actions[0].choices['best'].format_help()  # the read line: stdout


def test_input_module_knows_no_flags():
    import scruples.annotations as ann
    assert not hasattr(ann, '_FLAGS')
    assert '--' not in ann._opt('repeats')


# --- analyze reads its input once ------------------------------------------------------------------------------------

def test_analyze_reads_the_file_once(capsys, tables, monkeypatch, tmp_path):
    import scruples.annotations as ann
    import scruples.guide as guide
    import scruples.reproduce as rep
    reads, checks = [], []
    real_table, real_check = ann._table, guide.check_predictions
    monkeypatch.setattr(ann, '_table', lambda path, *a, **k: reads.append(str(path)) or real_table(path, *a, **k))
    monkeypatch.setattr(guide, 'check_predictions', lambda *a, **k: checks.append(a) or real_check(*a, **k))
    monkeypatch.setattr(guide, 'check_kernel', lambda name: name)
    seen = {}

    def fake_run(nb, dest, params, kernel, cwd):  # the notebook: what it is handed
        seen.update(params)
        Path(params['out_dir'], 'summary.csv').write_text('section,quantity,value,lo,hi,note\ndata,items,36,,,\n')
        Path(dest).write_text('{}')

    monkeypatch.setattr(rep, 'run_notebook', fake_run)
    import scruples.cli as cli  # the reading runs here, not in a process of its own: the counters above see it
    monkeypatch.setattr(cli, '_in_child', lambda name, *a: getattr(cli, name)(*a))
    rc, out, err = run(capsys, 'analyze', tables/'s.csv', '--out', tmp_path/'o', '--predictions', tables/'p_test.csv',
                       '--group', 'yn=yes,no', '--ordered', '--param', 'seed=2')
    assert rc == 0, err
    # the data once, and the predictions once (the predictions reader uses the same table reader)
    assert sorted(reads) == sorted([str(tables/'s.csv'), str(tables/'p_test.csv')]) and len(checks) == 1
    assert json.loads(seen['reading']) == {'form': 'wide'} and seen['classes'] == ''  # no classes= nobody gave
    assert (seen['group'], seen['ordered'], seen['seed']) == ('yn=yes,no', True, 2)


def test_analyze_param_alias_and_flag_together_are_refused(capsys, tables, tmp_path):
    rc, _, err = run(capsys, 'analyze', tables/'s.csv', '--out', tmp_path/'o', '--seed', '1', '--param', 'seed=2')
    assert rc == 1 and 'give it once, as --seed' in err


def test_no_dict_key_written_twice():
    "ruff's F601 (a dict literal repeating a key: `score --json` wrote `read` twice); also a step of `make test`."
    import shutil, subprocess, sys
    ruff = Path(sys.executable).with_name('ruff')
    ruff = str(ruff) if ruff.is_file() else shutil.which('ruff')
    if not ruff:
        pytest.skip('ruff is not installed (pip install ruff)')
    root = Path(__file__).parent.parent
    r = subprocess.run([ruff, 'check', '--select', 'F601', 'scruples', 'tests'], cwd=root, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_text_none_is_said_as_none(capsys, tables):
    "Issue 39: `--text ''` printed 'text column text'."
    rc, out, err = run(capsys, 'best', tables/'s.csv', '--text', '', *FAST, '--json')
    assert rc == 0, err
    read = json.loads(out)['read']
    assert 'text column text' not in read and 'no text column' in read and 'columns not read: text' in read


def test_annotator_none_travels_to_the_notebook(tmp_path):
    "Issue 39: `--annotator ''` was honoured by the CLI and ignored by the guide notebook: the reading is one value now."
    from scruples.guide import guide_parameters
    from scruples.options import read
    p = tmp_path/'l.csv'
    p.write_text('item,annotator,label\n' + ''.join(f'q{i},r{j},{"ab"[(i + j) % 2]}\n' for i in range(10) for j in range(3)))
    got = guide_parameters(p, annotator='')
    reading = json.loads(got['reading'])
    assert reading['annotator'] == '' and read(p, reading).responses is None  # anonymous votes, as the CLI read them
    assert read(p, {}).responses is not None
