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
    """wrong: `best --metric xentropy --samples 50` exited 0 with output byte-identical to no --samples (flag accepted and
    ignored); so did `--metric js --samples 50` where the NPMLE was chosen (js is then exact)."""
    g = _gold(tmp_path)
    plain = _run('best', g, '--bootstrap', '0', '--json', '--metric', 'xentropy', cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    given = _run('best', g, '--bootstrap', '0', '--json', '--metric', 'xentropy', '--samples', '50', cwd=tmp_path)
    assert given.returncode == 1 and '--samples 50' in given.stderr and 'leave out --samples' in given.stderr, given.stderr
    sampled = _run('best', g, '--bootstrap', '0', '--json', '--metric', 'js', '--samples', '50', cwd=tmp_path)
    assert sampled.returncode == 0 and sampled.stdout != _run('best', g, '--bootstrap', '0', '--json', '--metric', 'js',
                                                              cwd=tmp_path).stdout  # the Dirichlet: js is sampled
    import numpy as np
    rng = np.random.default_rng(0)  # two camps: the NPMLE is chosen, under which js is an exact sum
    p = np.where((rng.random(600) < 0.7)[:, None], [0.92, 0.08], [0.15, 0.85])
    c = np.array([rng.multinomial(rng.integers(1, 8), q) for q in p])
    (tmp_path / 'camps.csv').write_text('a,b\n' + ''.join(f'{x},{y}\n' for x, y in c[c.sum(1) > 0]))
    exact = _run('best', 'camps.csv', '--bootstrap', '0', '--metric', 'js', '--samples', '50', cwd=tmp_path)
    assert exact.returncode == 1 and 'NPMLE' in exact.stderr and 'leave out --samples' in exact.stderr, exact.stderr
    both = _run('best', 'camps.csv', '--bootstrap', '0', '--metric', 'js', 'accuracy', '--samples', '50', cwd=tmp_path)
    assert both.returncode == 0, both.stderr


def test_score_tolerance_with_hard_predictions_is_refused(tmp_path):
    """wrong: `score --tolerance 0.3` on a predicted-label file exited 0 and every number was as without it (only echoed)."""
    (tmp_path / 'g.csv').write_text('id,x,y\na,2,0\nb,0,2\nc,1,2\n')
    (tmp_path / 'p.csv').write_text('id,label\na,x\nb,y\nc,x\n')
    (tmp_path / 'pp.csv').write_text('id,x,y\na,0.7,0.3\nb,0.2,0.8\nc,0.5,0.52\n')  # a row summing to 1.02
    plain = _run('score', 'p.csv', 'g.csv', '--bootstrap', '0', '--json', cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    given = _run('score', 'p.csv', 'g.csv', '--bootstrap', '0', '--json', '--tolerance', '0.3', cwd=tmp_path)
    assert given.returncode == 1 and '--tolerance 0.3' in given.stderr and 'predicted labels' in given.stderr, given.stderr
    assert _run('score', 'pp.csv', 'g.csv', '--bootstrap', '0', cwd=tmp_path).returncode == 1  # beyond 0.001: refused
    probs = _run('score', 'pp.csv', 'g.csv', '--bootstrap', '0', '--json', '--tolerance', '0.05', cwd=tmp_path)
    assert probs.returncode == 0 and json.loads(probs.stdout)['tolerance'] == 0.05, probs.stderr


def test_agree_seed_moves_the_subsampled_kappa_without_a_bootstrap(tmp_path):
    """Reported as ignored (`agree --bootstrap 0 --seed 7` byte-identical to --seed 0 with 3 votes on every item): there
    nothing is drawn; with unequal votes per item the subsampled Fleiss' kappa draws, and the seed moves it."""
    rng = __import__('numpy').random.default_rng(1)
    rows = ['item,annotator,label'] + [f'{i},a{a},{rng.choice(["x", "y", "z"])}' for i in range(30)
                                       for a in range(rng.integers(2, 7))]
    (tmp_path / 'l.csv').write_text('\n'.join(rows) + '\n')
    plain = _run('agree', 'l.csv', '--bootstrap', '0', '--json', cwd=tmp_path)
    given = _run('agree', 'l.csv', '--bootstrap', '0', '--json', '--seed', '7', cwd=tmp_path)
    assert plain.returncode == given.returncode == 0 and plain.stdout != given.stdout, given.stderr
