"""benchmarks/run_all.py reads each benchmark's printed lines: a change of format must not drop a goal from its table."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]/'benchmarks'))
import run_all  # noqa: E402

# one line (or two) of each benchmark's output, as printed on 2026-11-24
SAMPLES = {
    'readers': ['  GOAL counts CSV: read_counts (validating) / pandas.read_csv = 1.98x (goal <= 2x: met)'],
    'models': ['training  pairs/s: ours     28.6   Trainer     26.7   ratio 1.07x (goal >= 1.00x); CPU s ours 17.7 Trainer 18.6, CPU ratio 1.05x',
               'inference pairs/s: ours    148.3   Trainer     78.6   ratio 1.89x (goal: keep > 1x)',
               'machine limit: 160 GFLOPS training matmul, 160 fp32 (measured); MiniLM 21.2 MFLOPs per token forward, 14.2 tokens '
               'per text (padded): training at most 600 texts/s, ours 78 (13% of the limit); inference at most 1800 texts/s, ours 1040 (58%)'],
    'traits': ['2 traits, 1000 x 20, N(0, 1) weights (the default problem): wall 0.14 s, CPU 0.14 s (goal <= 0.5 s: met in CPU time); '
               'rule error 0.0012 vs a dense 121 x 121 rule (goal <= 0.01: met)',
               '  speed-up x3100; log-lik gain +0.283',
               '1-trait fit, LSAT-6 1000 x 5: 0.94 ms CPU (0.94 ms wall, newton), 8.6x the issue-time reference (8.10 ms CPU) (a stretch); log-lik -2466.6534 vs -2466.6534',
               '  girth:   131.6 ms  log-lik -2466.6534 | girth/ours CPU x139 (goal >= 10x: met); max |w diff| 0.0001'],
    'dirichlet': ['speed-up (reference time / ours): median 2.5x, min 0.2x, max 44.7x, geometric mean 2.9x',
                  'relative log-likelihood difference (ours - reference) / (1 + |ll|) where the reference converged: min -1.48e-13, max 1.45e-06  (goal: min >= -1e-9)'],
    'best': ['speed-up (reference / ours): 29x'],
    'verbs': ['speed-up (reference / ours): 71x'],
    'baselines': ['speed-up, same grid (GridSearchCV time / ours): 3.3x'],
    'encoder': ['ratio (ours / best sentence-transformers): 1.26x'],
    'extraction': ['speed-up 1 -> 2 workers (wall clock): 1.84x (2 files); one file split in parts: 1.78x'],
    'agreement': ['GLAD: crowd-kit 1.08 s, ours 0.023 s; labels differ on 0 of 300 items; speed-up (reference / ours): 46x',
                  'MACE: crowd-kit 0.46 s, ours 0.013 s; labels differ on 0 of 300 items; speed-up (reference / ours): 36x'],
    'analyze_memory': ['memory: analyze --finetune no on 10,000 items x 5 votes: 949 s, peak resident 1,154 MB (GOAL <= 1024 MB: NOT met)'],
}
EXPECTED = {'agreement': 2, 'analyze_memory': 1, 'readers': 1, 'models': 3, 'traits': 4, 'dirichlet': 2, 'best': 1, 'verbs': 1, 'baselines': 1, 'encoder': 1, 'extraction': 1}


@pytest.mark.parametrize('name', sorted(SAMPLES))
def test_every_goal_line_becomes_a_row_with_its_verdict(name):
    rows = run_all.parse(name, '\n'.join(SAMPLES[name]) + '\n')
    assert len(rows) == EXPECTED[name], rows
    assert all(r[3].endswith(('met', 'NOT met')) and r[2] for r in rows), rows


def test_the_one_trait_row_is_the_issue_goal_against_girth():
    rows = run_all.parse('traits', '\n'.join(SAMPLES['traits']) + '\n')
    one = [r for r in rows if r[1].startswith('1-trait')]
    assert one == [('traits', '1-trait LSAT-6 1000 x 5: girth / ours (CPU)', '139x', '>= 10x met')]


def test_every_benchmark_has_samples():
    assert set(SAMPLES) == set(run_all.BENCHMARKS)
