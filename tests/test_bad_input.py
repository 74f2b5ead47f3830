"""Regression tests for issue 10: each defect a hostile test found, pinned (one or more tests per item)."""
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from scruples import data as sd
from scruples.cli import main
from scruples.core import ScruplesDataError, ScruplesError
from scruples.dirichlet import DirichletFitWarning, dirichlet_multinomial_mle

REPO = Path(__file__).resolve().parents[1]


def dilemma(id='d1', gold=(4, 1), label=None, controversial=None, human=None, human_label=None):
    rec = {'id': id, 'actions': [{'id': 'a1', 'description': 'x'}, {'id': 'a2', 'description': 'y'}],
           'gold_annotations': list(gold), 'gold_label': int(gold[1] > gold[0]) if label is None else label,
           'controversial': min(gold) > 0 if controversial is None else controversial}
    if human is not None:
        rec.update(human_perf_annotations=list(human), human_perf_label=int(human[1] > human[0]) if human_label is None else human_label)
    return rec


def write_jsonl(path: Path, recs) -> Path:
    path.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    return path


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def one_error_line(err: str, *parts):
    "stderr is exactly one 'scruples: error: ...' line holding every part, and no traceback."
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith('scruples: error: '), err
    assert 'Traceback' not in err
    for p in parts: assert str(p) in lines[0], (p, lines[0])


# --- 1. a reader that was quadratic in the file size ----------------------------------------------------------------

def test_label_counts_reader_is_linear(tmp_path):
    "1 MB of counts took 21 s before the fix (newlines counted from the start for every item); now both sizes take well under a second per MB."
    def timed(n):
        p = tmp_path/f'x{n}.json'
        p.write_text('[\n' + '[3,2],\n' * (n - 1) + '[3,2]\n]\n')
        t0 = time.perf_counter(); df = sd.read_label_counts(p); dt = time.perf_counter() - t0
        assert len(df) == n
        return dt
    small, big = timed(50_000), timed(400_000)  # 0.35 MB and 2.8 MB
    assert big < 20  # quadratic: ~150 s on this machine
    assert big < 30 * max(small, 0.01)  # 8x the input: linear is ~8x, quadratic ~64x (slack for a noisy machine)


def test_error_line_is_right_far_into_the_file(tmp_path):
    p = tmp_path/'x.json'
    p.write_text("[\n" + "[3,2],\n" * 9999 + "[3,\"two\"]\n]\n")
    with pytest.raises(ScruplesDataError) as ei: sd.read_label_counts(p)
    assert ei.value.line == 10_001 and ei.value.field == 'counts[9999][1]'


# --- 2. counts of 2**63 or more ----------------------------------------------------------------------------------------

@pytest.mark.parametrize('value', [2**63, 2**64 + 5, 10**30])
def test_counts_json_beyond_int64(capsys, tmp_path, value):
    p = tmp_path/'c.json'
    p.write_text(f'[\n[1, 2],\n[{value}, 1]\n]\n')
    with pytest.raises(ScruplesDataError) as ei: sd.read_label_counts(p)
    assert (ei.value.line, ei.value.field) == (3, 'counts[1][0]') and 'below 2**63' in str(ei.value)
    rc, out, err = run(capsys, 'data', 'validate', p)
    assert rc == 1 and 'c.json:3' in out and 'Traceback' not in err


def test_dilemma_counts_beyond_int64(capsys, tmp_path):
    p = write_jsonl(tmp_path/'x.scruples-dilemmas.jsonl', [dilemma(), dilemma('d2', gold=(2**63, 1))])
    with pytest.raises(ScruplesDataError) as ei: sd.read_dilemmas(p)
    assert (ei.value.line, ei.value.field) == (2, 'gold_annotations[0]')
    rc, _, err = run(capsys, 'best', p, '--bootstrap', '0', '--samples', '10')
    assert rc == 1; one_error_line(err, 'x.scruples-dilemmas.jsonl:2', 'gold_annotations[0]')


def test_sum_of_counts_beyond_int64(tmp_path):
    p = write_jsonl(tmp_path/'x.scruples-dilemmas.jsonl', [dilemma(gold=(2**63 - 1, 3))])
    with pytest.raises(ScruplesDataError, match=r'x.scruples-dilemmas.jsonl:1: field .gold_annotations.: expected counts whose sum'):
        sd.read_dilemmas(p)


# --- 3. a fit that does not converge was reported as a result -----------------------------------------------------

def test_non_converging_fit_warns():
    with pytest.warns(DirichletFitWarning, match=r'did not converge.*ABNORMAL.*exceed 2\*\*53'):
        dirichlet_multinomial_mle(np.array([[2**60, 3], [3, 2], [1, 4]]))
    from scruples.best import fit_dirichlet_prior
    with pytest.warns(DirichletFitWarning): fit_dirichlet_prior(np.array([[2**60, 3], [3, 2], [1, 4]]))


def test_converging_fits_do_not_warn():
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter('error', DirichletFitWarning)
        for k in (2, 3, 5):
            for conc in (0.1, 1.0, 50.0, 1e4):  # 1e4: no overdispersion, the likelihood is flat at the bound (not a failure)
                c = rng.multinomial(rng.integers(1, 10, 300), rng.dirichlet(np.full(k, conc), 300))
                dirichlet_multinomial_mle(c[c.sum(1) > 0])


def test_cli_best_fails_on_a_fit_that_does_not_converge(capsys, tmp_path):
    "The issue's file gave 'alpha = [1.0, 1.0]' (the optimizer's start) and exit 0."
    p = write_jsonl(tmp_path/'x.scruples-dilemmas.jsonl', [dilemma(gold=(2**60, 3)), dilemma('d2', gold=(3, 2))])
    rc, out, err = run(capsys, 'best', p, '--bootstrap', '0', '--samples', '10')
    assert rc == 1 and out == ''
    one_error_line(err, 'x.scruples-dilemmas.jsonl', 'did not converge', 'no estimates reported')


# --- 4. deep nesting ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('name,reader', [('x.json', sd.read_label_counts), ('x.json', lambda p: sd.read_count_lists(p)),
                                         ('x.scruples-dilemmas.jsonl', sd.read_dilemmas), ('x.scruples-anecdotes.jsonl', sd.read_anecdotes)])
def test_deep_nesting(tmp_path, name, reader):
    p = tmp_path/name
    p.write_text('[' * 100_000 + ']' * 100_000 if name.endswith('.json') else '{"id": ' + '[' * 100_000 + ']' * 100_000 + '}\n')
    with pytest.raises(ScruplesDataError, match=r'x\.\S*:1: record: expected JSON nested less deeply'): reader(p)


def test_deep_nesting_cli(capsys, tmp_path):
    p = tmp_path/'x.json'
    p.write_text('[' * 100_000 + ']' * 100_000)
    rc, out, err = run(capsys, 'data', 'validate', p)
    assert rc == 1 and 'nested less deeply' in out and err == ''


# --- 5. OS errors escaped main() -------------------------------------------------------------------------------------

def test_folder_as_input(capsys, tmp_path):
    d = tmp_path/'counts.csv'; d.mkdir()
    for argv in (['best', d], ['mcm', 'user-study', d], ['verbs', d]):
        rc, out, err = run(capsys, *argv)
        assert rc == 1 and out == ''; one_error_line(err, d, 'folder')
    rc, out, err = run(capsys, 'data', 'validate', tmp_path/'x.json')  # missing: reported in the table
    assert rc == 1 and 'no such file' in out


def test_existing_file_as_output_folder(capsys, tmp_path):
    f = tmp_path/'taken'; f.write_text('mine')
    rc, out, err = run(capsys, 'data', 'fetch', '--dest', f, '--url', 'anecdotes=http://127.0.0.1:9/a.tar.gz', '--which', 'anecdotes')
    assert rc == 1; one_error_line(err, f)
    rc, out, err = run(capsys, 'reproduce', '--out', f, '--fig-dir', tmp_path/'figs', '--notebooks', '01')
    assert rc == 1; one_error_line(err, f, 'not a folder')
    assert not (tmp_path/'figs').exists() and f.read_text() == 'mine'  # nothing written


def test_unreadable_file(capsys, tmp_path, monkeypatch):
    p = tmp_path/'c.json'; p.write_text('[[1, 2]]')
    real_open = Path.open
    def deny(self, *a, **k):
        if self == p: raise PermissionError(13, 'Permission denied', str(self))
        return real_open(self, *a, **k)
    monkeypatch.setattr(Path, 'open', deny)
    rc, out, err = run(capsys, 'best', p)
    assert rc == 1; one_error_line(err, f'{p}: permission denied')
    rc, out, err = run(capsys, 'data', 'validate', p)
    assert rc == 1 and 'permission denied' in out


@pytest.mark.skipif(hasattr(os, 'geteuid') and os.geteuid() == 0, reason='root reads any file')
def test_unreadable_file_for_real(capsys, tmp_path):
    p = tmp_path/'c.json'; p.write_text('[[1, 2]]'); p.chmod(0)
    rc, out, err = run(capsys, 'best', p)
    assert rc == 1; one_error_line(err, p)


@pytest.mark.parametrize('content', ['[1, 2]', '{"anecdotes.tar.gz": 3}', '"x"', '{"a": {"sha256": 5}}', '{', '\xff'])
def test_malformed_checksums(capsys, tmp_path, content):
    (tmp_path/'checksums.json').write_text(content, encoding='latin-1')
    rc, out, err = run(capsys, 'data', 'fetch', '--dest', tmp_path, '--which', 'anecdotes', '--no-progress',
                       '--url', 'anecdotes=http://127.0.0.1:9/a.tar.gz')
    assert rc == 1; one_error_line(err, tmp_path/'checksums.json', 'corrupt')


def test_broken_pipe_exits_quietly(tmp_path):
    "`scruples ... --json | head -1`: exit 141 (128 + SIGPIPE, as a shell reports for `yes | head -1`), nothing on stderr."
    names = [str(tmp_path/f'missing-{i:05d}.json') for i in range(3000)]  # > 64 KiB of output: more than a pipe holds
    code = 'import sys; from scruples.cli import main; sys.exit(main())'
    p = subprocess.Popen([sys.executable, '-c', code, 'data', 'validate', '--json', *names], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env={**os.environ, 'PYTHONPATH': str(REPO)})
    first = p.stdout.readline(); p.stdout.close()
    err = p.stderr.read().decode(); rc = p.wait(timeout=120)
    assert first.strip() == b'[' and rc == 141 and err == '', (rc, err)


# --- 6. a huge count in a user-study CSV ------------------------------------------------------------------------------

@pytest.mark.parametrize('yes', ['100000000000000000000000', '-3', '1.5', '²', 'x', ''])
def test_user_study_bad_count(capsys, tmp_path, yes):
    p = tmp_path/'study.csv'; p.write_text(f'Action,Yes,No\nsmile,4,3\nkill,{yes},3\n')
    from scruples.mcm import load_user_study
    with pytest.raises(ScruplesDataError) as ei: load_user_study(regional=p)
    assert (ei.value.path, ei.value.line, ei.value.field) == (str(p), 3, 'Yes')
    rc, out, err = run(capsys, 'mcm', 'user-study', p)
    assert rc == 1; one_error_line(err, f'{p}:3', 'Yes')


# --- 7. verbs --alpha out of (0, 1) -----------------------------------------------------------------------------------

@pytest.mark.parametrize('alpha', ['2', '-1', 'nan', '0', '1', 'inf', 'x'])
def test_verbs_alpha_range(capsys, tmp_path, alpha):
    p = write_jsonl(tmp_path/'x.scruples-dilemmas.jsonl', [dilemma()])
    with pytest.raises(SystemExit) as ei: main(['verbs', str(p), '--alpha', alpha])
    assert ei.value.code == 2
    assert 'argument --alpha: expected a number strictly between 0 and 1' in capsys.readouterr().err


# --- 8. a single string where texts are expected ---------------------------------------------------------------------

def test_single_string_is_not_a_list_of_texts():
    from scruples.mcm import score_actions
    from scruples.verbs import RootVerbs, verb_table
    from scruples.bridge import base_form
    with pytest.raises(TypeError, match='actions must be a list of strings, not a single string'): score_actions('smile')
    with pytest.raises(TypeError, match='not a single string'): RootVerbs(nlp=object())('smile')
    with pytest.raises(TypeError, match='not a single string'): verb_table('kill', ['help'], [0])
    with pytest.raises(TypeError, match='not a single string'): base_form('smiling')


# --- 9. labels that contradict the counts -----------------------------------------------------------------------------

@pytest.mark.parametrize('rec,field', [
    (dilemma(gold=(4, 1), label=1), 'gold_label'),
    (dilemma(gold=(0, 5), controversial=True), 'controversial'),
    (dilemma(gold=(2, 3), controversial=False), 'controversial'),
    (dilemma(gold=(2, 3), human=(4, 1), human_label=1), 'human_perf_label'),
], ids=['gold_label', 'unanimous-controversial', 'split-not-controversial', 'human_label'])
def test_labels_must_agree_with_counts(capsys, tmp_path, rec, field):
    p = write_jsonl(tmp_path/'x.scruples-dilemmas.jsonl', [dilemma('d0'), rec])
    with pytest.raises(ScruplesDataError) as ei: sd.read_dilemmas(p)
    assert (ei.value.line, ei.value.field) == (2, field)
    rc, out, _ = run(capsys, 'data', 'validate', p)
    assert rc == 1 and f"x.scruples-dilemmas.jsonl:2: field '{field}'" in out


def test_ties_accept_either_label(tmp_path):
    p = write_jsonl(tmp_path/'x.scruples-dilemmas.jsonl', [dilemma('a', (2, 2), 0), dilemma('b', (2, 2), 1), dilemma('c', (0, 0), 1)])
    assert sd.read_dilemmas(p).gold_label.tolist() == [0, 1, 1]


def test_real_files_hold_the_invariants(real_data_dir):
    for split in ('dev', 'test'):
        df = sd.read_dilemmas(real_data_dir/'dilemmas'/f'{split}.scruples-dilemmas.jsonl')  # raises on any violation
        assert df.id.is_unique and len(df) > 2000
        assert (df.gold_label == (df.gold_2 > df.gold_1)).all()
        assert (df.controversial == (df[['gold_1', 'gold_2']].min(axis=1) > 0)).all()


# --- also: duplicate ids, temporary copies, messages about internals, empty summaries --------------------------------

def test_duplicate_ids(tmp_path):
    p = write_jsonl(tmp_path/'x.scruples-dilemmas.jsonl', [dilemma('a'), dilemma('b'), dilemma('a')])
    with pytest.raises(ScruplesDataError, match=r"x.scruples-dilemmas.jsonl:3: field 'id': expected a unique id \(line 1 has the same one\)"):
        sd.read_dilemmas(p)


def test_user_study_error_names_the_users_file(capsys, tmp_path):
    p = tmp_path/'my study.csv'; p.write_text('Action,Yes\nsmile,3\n')
    rc, _, err = run(capsys, 'mcm', 'user-study', p)
    assert rc == 1; one_error_line(err, f'{p}:1', 'a header Action,Yes,No')
    assert 'tmp' not in err.replace(str(tmp_path), '')  # no temporary copy named
    q = tmp_path/'q.csv'; q.write_text('action,question\nkill,Should I?\n')
    p.write_text('Action,Yes,No\nsmile,3,1\n')
    rc, _, err = run(capsys, 'mcm', 'user-study', p, '--questions', q)
    assert rc == 1; one_error_line(err, q, 'a question for every action of my study.csv', 'smile')


def test_user_facing_messages_for_bad_options(capsys):
    for argv, msg in [(['data', 'stats', '--synthetic-size', '0'], "argument --synthetic-size: expected an integer from 1 to 10,000,000, got '0'"),
                      (['data', 'fetch', '--url', 'anecdotes'], "argument --url: expected NAME=URL"),
                      (['data', 'fetch', '--url', '=http://x'], "argument --url: expected NAME=URL"),
                      (['best', 'x.json', '--samples', '0'], 'argument --samples: expected an integer from 1 to'),
                      (['best', 'x.json', '--bootstrap', '-1'], 'argument --bootstrap: expected 0 (no interval) or an integer from 10 to'),
                      (['data', 'stats', '--seed', '-5'], 'argument --seed: expected an integer >= 0')]:
        with pytest.raises(SystemExit) as ei: main(argv)
        assert ei.value.code == 2 and msg in capsys.readouterr().err


def test_failed_reproduce_leaves_no_summary(capsys, tmp_path, monkeypatch):
    import papermill
    def fail(*a, **k): raise RuntimeError('kernel died')
    monkeypatch.setattr(papermill, 'execute_notebook', fail)
    figs = tmp_path/'figs'
    rc, out, err = run(capsys, 'reproduce', '--smoke', '--out', tmp_path/'runs', '--fig-dir', figs, '--notebooks', '01', '--kernel', 'python3')
    assert rc == 1 and 'no summary written' in err and 'kernel died' in err and 'Traceback' not in err
    assert not (figs/'summary.md').exists() and not (figs/'summary.csv').exists()


def test_unknown_kernel_writes_nothing(capsys, tmp_path):
    rc, _, err = run(capsys, 'reproduce', '--out', tmp_path/'o', '--fig-dir', tmp_path/'f', '--kernel', 'no-such-kernel', '--notebooks', '01')
    assert rc == 1; one_error_line(err, "no Jupyter kernel named 'no-such-kernel'")
    assert list(tmp_path.iterdir()) == []
