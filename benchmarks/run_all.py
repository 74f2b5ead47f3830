"""Every benchmark in benchmarks/, one after another, then one table: each measured ratio beside its goal (issue 23).
Each benchmark runs in its own process (fresh imports, its own threads) and prints as usual; this script reads the
numbers from their output. Ratios are measured within one run of a benchmark against its reference, so they hold on
a busy machine better than times do. Also measured here: the command line's start-up (`scruples --help`, `scruples
best` on a small file: best of `--repeat` fresh processes), and the test loop's times as the last `make test` /
`make test-nodata` recorded them (_runs/times-*.txt; the suite is not run here).
Usage: python benchmarks/run_all.py [--quick] [--only readers models traits ...] [--skip encoder extraction]
"""
from __future__ import annotations

import argparse, datetime, os, re, subprocess, sys, tempfile, time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

# name: (arguments for a full run, arguments for --quick)
BENCHMARKS = {
    'readers':    ([], ['--mb', '2', '--repeat', '1']),
    'models':     ([], ['--pairs', '64', '--test', '128']),
    'traits':     ([], ['--epochs', '1', '--repeats', '1']),
    'best':       ([], ['--samples', '2000', '--ref-samples', '100']),
    'dirichlet':  ([], ['--quick']),
    'verbs':      ([], ['--permutations', '2000', '--ref-permutations', '50']),
    'baselines':  ([], ['--small']),
    'encoder':    ([], ['--rounds', '1', '--template-actions', '50']),
    'extraction': ([], ['--comments', '20000']),
    'analyze_memory': ([], ['--items', '2000']),
    'agreement':  ([], ['--items', '300', '--annotators', '10']),
}
CLI_GOAL_S = 0.3
TEST_GOALS = {'test': 6 * 60, 'both legs': 12 * 60}  # issue 43


def num(s: str) -> float: return float(s.replace(',', ''))


def parse(name: str, out: str) -> list[tuple[str, str, str, str]]:
    "The (benchmark, measure, value, goal) rows read from one benchmark's output; unknown formats give their GOAL lines."
    rows = []
    def find(pattern, fmt, goal, check=None):
        "Each match of `pattern` gives a row: `fmt` is 'measure|value' with the pattern's named groups."
        for m in re.finditer(pattern, out, re.M):
            v = m.groupdict(); what, _, val = fmt.format(**v).rpartition('|')
            ok = '' if check is None else ('met' if check(v) else 'NOT met')
            rows.append((name, what, val, f'{goal} {ok}'.strip()))
    if name == 'readers':
        find(r'GOAL (?P<what>[^:]+): (?P<k>\S+).*?= (?P<r>[\d.]+)x', '{what}: {k} / plain parser|{r}x', '<= 2x', lambda v: num(v['r']) <= 2)
    elif name == 'models':
        find(r'^training .*?ratio (?P<r>[\d.]+)x.*CPU ratio (?P<c>[\d.]+)x', 'training speed vs transformers.Trainer (wall; CPU)|{r}x; {c}x', '>= 1x', lambda v: num(v['r']) >= 1)
        find(r'^inference .*ratio (?P<r>[\d.]+)x', 'inference speed vs Trainer|{r}x', '> 1x (keep)', lambda v: num(v['r']) > 1)
        find(r'training at most (?P<l>\d+) texts/s, ours (?P<o>\d+) \((?P<p>\d+)% of the limit\)',
             'fine-tuning texts/s, share of the matmul limit|{o} ({p}% of {l})', '>= 25%', lambda v: num(v['p']) >= 25)
    elif name == 'analyze_memory':
        find(r'^memory: .*? on (?P<n>[\d,]+) items.*?peak resident (?:of the process tree )?(?P<mb>[\d,]+) MB', 'analyze --finetune no, {n} items: peak resident|{mb} MB',
             '<= 1024 MB', lambda v: num(v['mb']) <= 1024)
    elif name == 'traits':
        find(r'^2 traits, 1000 x 20, N\(0, 1\).*?wall (?P<w>[\d.]+) s, CPU (?P<c>[\d.]+) s', '2-trait 1,000 x 20 default fit, CPU s|{c} s (wall {w})',
             '<= 0.5 s', lambda v: num(v['c']) <= 0.5)
        find(r'rule error (?P<e>[\d.]+) vs a dense', '2-trait default rule: log-lik error|{e}', '<= 0.01', lambda v: num(v['e']) <= 0.01)
        find(r'^1-trait fit, (?P<what>[^:]+):[^\n]*\n\s*girth:.*?girth/ours CPU x(?P<c>[\d,.]+)', '1-trait {what}: girth / ours (CPU)|{c}x',
             '>= 10x', lambda v: num(v['c']) >= 10)
        find(r'speed-up x(?P<r>[\d,.]+); log-lik gain (?P<g>[-+\d.]+)', "2-trait vs the authors' MC + SGD|{r}x (log-lik {g})", '> 1x', lambda v: num(v['r']) > 1)
    elif name == 'dirichlet':
        find(r'^speed-up \(reference time / ours\): median (?P<r>[\d.]+)x.*?geometric mean (?P<g>[\d.]+)x', 'Dirichlet MLE vs scipy L-BFGS-B (median, geo-mean)|{r}x, {g}x',
             '> 1x', lambda v: num(v['g']) > 1)
        find(r'^relative log-likelihood difference .*?min (?P<m>[-+\de.]+), max (?P<x>[-+\de.]+)', 'Dirichlet MLE log-lik vs L-BFGS-B (min, max rel.)|{m}, {x}',
             '>= -1e-9', lambda v: float(v['m']) >= -1e-9)
    elif name in ('best', 'verbs'):
        find(r'^speed-up \(reference / ours\): (?P<r>[\d,.]+)x', 'speed-up vs the reference loop|{r}x', '> 1x (keep)', lambda v: num(v['r']) > 1)
    elif name == 'agreement':
        find(r'^(?P<m>\w+): crowd-kit .*?labels differ on (?P<d>\d+) of .*?\(reference / ours\): (?P<r>[\d,.]+)x', '{m} vs crowd-kit (labels differing: {d})|{r}x',
             '> 1x, same labels', lambda v: num(v['r']) > 1 and v['d'] == '0')
        find(r"^Fleiss' kappa, .*?largest difference over \d+ random tables (?P<d>[\d.e+-]+); speed-up \(reference / ours\): (?P<r>[\d,.]+)x",
             "Fleiss' kappa vs statsmodels, fresh process (largest difference {d})|{r}x", '> 1x, difference <= 1e-12',
             lambda v: num(v['r']) > 1 and float(v['d']) <= 1e-12)
    elif name == 'baselines':
        find(r'^speed-up, same grid .*?: (?P<r>[\d.]+)x', 'tuner vs GridSearchCV|{r}x', '> 1x (keep)', lambda v: num(v['r']) > 1)
    elif name == 'encoder':
        find(r'^ratio \(ours / best sentence-transformers\): (?P<r>[\d.]+)x', 'encoder vs sentence-transformers|{r}x', '>= 1x (keep)', lambda v: num(v['r']) >= 1)
    elif name == 'extraction':
        find(r'^speed-up 1 -> 2 workers \(wall clock\): (?P<r>[\d.]+)x', 'extraction 1 -> 2 workers|{r}x', '> 1x', lambda v: num(v['r']) > 1)
    if not rows:  # a format this script does not know (yet): show its goal lines as they are
        rows = [(name, l.strip()[:70], '', 'see line') for l in out.splitlines() if 'goal' in l.lower()] or [(name, '(no ratio found in its output)', '', '')]
    return rows


def run_benchmark(name: str, quick: bool, timeout: float) -> tuple[list, float]:
    args = BENCHMARKS[name][1 if quick else 0]
    cmd = [sys.executable, str(HERE/f'bench_{name}.py'), *args]
    print(f'\n===== {name}: {" ".join(Path(c).name if i < 2 else c for i, c in enumerate(cmd))}', flush=True)
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout)
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b'').decode() if isinstance(e.stdout, bytes) else (e.stdout or ''), 'timeout'
    dt = time.perf_counter() - t
    print(out.rstrip())
    rows = parse(name, out)
    if rc != 0: rows.append((name, f'FAILED (exit {rc})', '', ''))
    return rows, dt


def cli_startup(repeat: int) -> list:
    "Best of `repeat` fresh `scruples` processes: --help, and best on a 6 x 3 counts file (200 samples, no bootstrap)."
    exe = Path(sys.executable).with_name('scruples')
    base = [str(exe)] if exe.exists() else [sys.executable, '-c', 'import sys; from scruples.cli import main; sys.exit(main())']
    with tempfile.TemporaryDirectory() as d:
        f = Path(d)/'counts.json'; f.write_text('[[3,1,0],[0,4,1],[2,2,1],[5,0,0],[1,1,3],[0,0,5]]')
        rows = []
        for what, argv in [('scruples --help', ['--help']), ('scruples best SMALL.json', ['best', str(f), '--samples', '200', '--bootstrap', '0'])]:
            ts = [_time(base + argv) for _ in range(repeat)]
            py = min(_time([sys.executable, '-c', 'pass']) for _ in range(repeat))
            wall, cpu = min(t[0] for t in ts), min(t[1] for t in ts)
            rows.append(('cli', f'{what} start-up, best of {repeat}', f'{wall:.2f} s (CPU {cpu:.2f}; python alone {py[0]:.2f})',
                         f'<= {CLI_GOAL_S} s {"met" if wall <= CLI_GOAL_S else "NOT met"}'))
    return rows


def _time(cmd) -> tuple[float, float]:
    "Wall-clock and CPU seconds (user + system) of one run of `cmd` in a fresh process."
    import resource
    r0, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True)
    wall, r1 = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def test_times() -> list:
    "The step times the last `make test` / `make test-nodata` left in _runs/ (the suite is too long to run here)."
    rows, total = [], {}
    for leg in ('test', 'test-nodata'):
        f = REPO/'_runs'/f'times-{leg}.txt'
        if not f.exists(): rows.append(('tests', f'make {leg}', 'not measured', 'run it first')); continue
        when = datetime.datetime.fromtimestamp(f.stat().st_mtime).strftime('%Y-%m-%d %H:%M')
        steps = {l.split()[0]: (int(l.split()[1]), l.split()[-1]) for l in f.read_text().splitlines() if l.strip()}
        t, status = steps.get('total', (sum(v[0] for v in steps.values()), '?'))
        total[leg] = t
        detail = ', '.join(f'{k} {v[0]}' for k, v in steps.items() if k != 'total')
        goal = f'<= {TEST_GOALS["test"] // 60} min {"met" if t <= TEST_GOALS["test"] else "NOT met"}' if leg == 'test' else ''
        rows.append(('tests', f'make {leg} ({status}, {when}): {detail}', f'{t / 60:.1f} min', goal))
    if len(total) == 2:
        t = sum(total.values())
        rows.append(('tests', 'both CI legs (without creating the venv)', f'{t / 60:.1f} min',
                     f'<= {TEST_GOALS["both legs"] // 60} min {"met" if t <= TEST_GOALS["both legs"] else "NOT met"}'))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--quick', action='store_true', help='small sizes: a few minutes in all (ratios are noisier)')
    ap.add_argument('--only', nargs='+', choices=[*BENCHMARKS, 'cli', 'tests'], help='run only these')
    ap.add_argument('--skip', nargs='+', default=[], choices=[*BENCHMARKS, 'cli', 'tests'], help='leave these out')
    ap.add_argument('--timeout', type=float, default=1800, help='seconds per benchmark')
    ap.add_argument('--repeat', type=int, default=5, help='fresh processes per start-up measure')
    a = ap.parse_args()
    chosen = [n for n in [*BENCHMARKS, 'cli', 'tests'] if (a.only is None or n in a.only) and n not in a.skip]
    os.environ.setdefault('HF_HUB_OFFLINE', '1')
    rows, took = [], {}
    for name in chosen:
        if name == 'cli': rows += cli_startup(a.repeat)
        elif name == 'tests': rows += test_times()
        else:
            r, took[name] = run_benchmark(name, a.quick, a.timeout); rows += r
    w = max(len(r[1]) for r in rows)
    print(f'\n===== issue 23: each ratio beside its goal ({"--quick" if a.quick else "full"} run, {os.cpu_count()} cores, '
          f'load average {os.getloadavg()[0]:.1f})')
    print(f'{"benchmark":11} {"measure":{w}}  {"value":>26}  goal')
    for b, what, val, goal in rows: print(f'{b:11} {what:{w}}  {val:>26}  {goal}')
    print('seconds per benchmark: ' + ', '.join(f'{k} {v:.0f}' for k, v in took.items()))
    return 1 if any(r[1].startswith('FAILED') for r in rows) else 0


if __name__ == '__main__':
    sys.exit(main())
