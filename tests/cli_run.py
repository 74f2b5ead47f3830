"""`scruples ARGV` as a user runs it: one subprocess helper for the tests that meet the package as a command."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = 'import sys; from scruples.cli import main; sys.exit(main())'


def cli_env(**extra) -> dict:
    "The environment a command runs in: this checkout first on the path (unless PYTHONPATH says otherwise), offline."
    return os.environ.copy() | {'PYTHONPATH': os.environ.get('PYTHONPATH') or str(ROOT), 'HF_HUB_OFFLINE': '1'} | extra


def scruples(*argv, timeout=300, cwd=None, env: dict|None=None) -> subprocess.CompletedProcess:
    "`scruples ARGV` in a subprocess, its output captured; `env` adds variables to `cli_env()`."
    return subprocess.run([sys.executable, '-c', CLI, *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout, env=cli_env(**(env or {})), cwd=cwd)
