"""Fifth hostile pass (round 4): flags accepted and silently ignored (every flag must change the result or be refused)."""
import json
import subprocess
import sys
from pathlib import Path

SCRUPLES = [str(Path(sys.executable).parent / 'scruples')]


def _run(*args, cwd):
    return subprocess.run(SCRUPLES + [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=300)


def _gold(tmp_path):
    rows = ['id,a,b,c'] + [f'i{k},{k % 3},{(k * 7) % 4},{(k * 5) % 3 + 1}' for k in range(30)]
    (tmp_path / 'g.csv').write_text('\n'.join(rows) + '\n')
    return tmp_path / 'g.csv'


def test_best_samples_without_a_sampled_metric_is_refused(tmp_path):
    """wrong: `best --metric xentropy --samples 50` exits 0 with output byte-identical to no --samples (flag accepted and ignored)."""
    g = _gold(tmp_path)
    plain = _run('best', g, '--bootstrap', '0', '--json', '--metric', 'xentropy', cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    given = _run('best', g, '--bootstrap', '0', '--json', '--metric', 'xentropy', '--samples', '50', cwd=tmp_path)
    assert given.returncode != 0 or given.stdout != plain.stdout, (
        '--samples was accepted and changed nothing: it must be refused when no metric is sampled')


def test_score_tolerance_with_hard_predictions_is_refused(tmp_path):
    """wrong: `score --tolerance 0.3` on a predicted-label file exits 0 and every number is as without it (only echoed)."""
    (tmp_path / 'g.csv').write_text('id,x,y\na,2,0\nb,0,2\nc,1,2\n')
    (tmp_path / 'p.csv').write_text('id,label\na,x\nb,y\nc,x\n')
    plain = _run('score', 'p.csv', 'g.csv', '--bootstrap', '0', '--json', cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    given = _run('score', 'p.csv', 'g.csv', '--bootstrap', '0', '--json', '--tolerance', '0.3', cwd=tmp_path)
    if given.returncode != 0:
        return
    a, b = json.loads(plain.stdout), json.loads(given.stdout)
    a.pop('tolerance'), b.pop('tolerance')
    assert a != b, '--tolerance was accepted on hard predictions and changed nothing: it must be refused'


def test_agree_seed_without_bootstrap_is_refused(tmp_path):
    """wrong: `agree --bootstrap 0 --seed 7` exits 0 with output byte-identical to --seed 0 (flag accepted and ignored)."""
    (tmp_path / 'l.csv').write_text('item,annotator,label\n1,a,x\n1,b,y\n1,c,x\n2,a,y\n2,b,y\n2,c,y\n'
                                    '3,a,x\n3,b,x\n3,c,y\n4,a,z\n4,b,x\n4,c,x\n')
    plain = _run('agree', 'l.csv', '--bootstrap', '0', '--json', cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    given = _run('agree', 'l.csv', '--bootstrap', '0', '--json', '--seed', '7', cwd=tmp_path)
    assert given.returncode != 0 or given.stdout != plain.stdout, (
        '--seed was accepted with --bootstrap 0 and changed nothing: it must be refused')
