"""`scruples ARGV` as a user runs it: one subprocess helper for the tests that meet the package as a command."""
from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = 'import sys; from scruples.cli import main; sys.exit(main())'


def cli_env(**extra) -> dict:
    "The environment a command runs in: this checkout first on the path (unless PYTHONPATH says otherwise), offline."
    return os.environ.copy() | {'PYTHONPATH': os.environ.get('PYTHONPATH') or str(ROOT), 'HF_HUB_OFFLINE': '1'} | extra


def scruples(*argv, timeout=300, cwd=None, env: dict|None=None) -> subprocess.CompletedProcess:
    """`scruples ARGV` in its own process, its output captured; `env` adds variables to `cli_env()`. The process is
    forked from a server that has imported numpy, pandas, scipy and crowd-kit (below), or a new interpreter where a fork cannot
    give it the environment asked for."""
    argv, env = [str(a) for a in argv], cli_env(**(env or {}))
    server = _fork_server(env)
    if server is not None and not server.shadowed(cwd): return server.run(argv, env, cwd, timeout)
    return subprocess.run([sys.executable, '-c', CLI, *argv], capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=cwd)


def said(*argv, joined: bool = True, **kw) -> tuple[int, str]:
    """`scruples ARGV`'s exit status and all it printed (stdout, where `data validate` prints its refusal, then stderr):
    `joined`, its wrapped lines joined by single spaces, so a phrase is found across a line break. `kw` as `scruples`."""
    r = scruples(*argv, **kw)
    out = r.stdout + r.stderr
    return r.returncode, ' '.join(out.split()) if joined else out

def hinted_flags(out: str) -> list[str]:
    "The flags a refusal's hint (`... say --long, --item X, --label Y, got ...`, joined by `said`) tells the user to paste."
    return [w for part in out.split('say ')[1].split(', got')[0].split(', ') for w in part.split()]  # (`--item a,b`)

def refused_hint(path, *argv) -> tuple[list[str], str]:
    "`scruples data validate PATH ARGV` refused: the flags its hint tells the user to paste (`hinted_flags`), and all it printed."
    rc, out = said('data', 'validate', path, *argv)
    assert rc != 0, out
    return hinted_flags(out), out

def reads_as(path, flags, expect: str) -> str:
    "`scruples data validate PATH FLAGS` reads the file, printing `expect` (`12 items, 36 votes by 3 annotators`)."
    rc, out = said('data', 'validate', path, *flags)
    assert rc == 0 and expect in out, (flags, out)
    return out

def hint_then_read(path, rows, item: str, expect: str) -> str:
    """`rows` (dicts or a DataFrame) written to PATH as a CSV: `scruples data validate PATH` refuses, its hint starts
    `--long --item ITEM`, and the hint pasted reads the file, printing `expect` (`reads_as`)."""
    import pandas as pd

    pd.DataFrame(rows).to_csv(path, index=False)
    flags, out = refused_hint(path)
    assert flags[:3] == ['--long', '--item', item], out
    return reads_as(path, flags, expect)

def in_process(*argv) -> tuple[int, str, str]:
    "`scruples ARGV` in this process (a test may replace a function inside it): (exit status, stdout, stderr)."
    import contextlib
    import io

    from scruples.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()



def in_this_process(*argv) -> subprocess.CompletedProcess:
    """`scruples ARGV` in this process, answered as `scruples` answers (returncode, stdout, stderr), for the commands that
    load a model before they compute: `mcm` loads the sentence encoder and fits the moral direction on the 65 actions of
    Table 5 (about 7 s of CPU), `verbs` loads spaCy (about 3 s). In this process each is made once (`mcm.get_encoder`,
    `mcm.default_direction`, the verbs' parser) and shared by every later call, where a subprocess made them again for
    each call (issue 43)."""
    rc, out, err = in_process(*argv)
    return subprocess.CompletedProcess(['scruples', *map(str, argv)], rc, out, err)


def mcm(*argv) -> subprocess.CompletedProcess:
    "`scruples mcm ARGV` in this process (`in_this_process`): one encoder and one fitted direction for every call."
    return in_this_process('mcm', *argv)

# --- a fork server: the command's process without the interpreter's start -------------------------------------------
# Each `scruples(...)` call starts a new process, but not a new interpreter: a server per test process (started on the
# first call) has imported the libraries the commands load (numpy, pandas, scipy: about 0.5 s of every start;
# crowd-kit, 1.3 s of `agree`'s) and the package's own modules (`PRELOAD_OWN`, 0.1-0.2 s of each call: the reader's
# module alone is 0.07 s) and forks a child per call. The child is the command's own process: its argv, working folder,
# environment, stdin (/dev/null), stdout and stderr (files the caller reads), exit status, its threads joined and atexit
# handlers run as an interpreter ends. The scruples package is the one a new interpreter would import: a server serves
# one PYTHONPATH (it imported the package from that path, started in an empty folder of its own), a call with another
# path gets a server of its own, and a call whose working folder holds a `scruples` of its own (a new interpreter would
# import that one) goes to a real interpreter. What a fork cannot give a call goes to a real interpreter instead: an
# environment whose interpreter-start variables (PYTHON*, locale, thread counts) differ from the server's.
# SCRUPLES_TEST_FORK=0 runs every call in a real interpreter; test_cli_run.py checks the child's process contract and
# compares the two ways on each command. What a fork shares with its server is the hash seed: runs from one server hash
# strings alike (a test of string order sets PYTHONHASHSEED, which sends it to real interpreters).
PRELOAD = ('numpy', 'pandas', 'scipy.special', 'scipy.stats', 'scipy.optimize', 'crowdkit.aggregation')
PRELOAD_OWN = ('scruples.cli', 'scruples.options', 'scruples.core', 'scruples.annotations', 'scruples.data',
               'scruples.best', 'scruples.priors', 'scruples.metrics', 'scruples.agreement', 'scruples.plan')
_START_KEYS = ('PYTHON', 'LC_', 'LANG', 'OMP_', 'OPENBLAS', 'MKL_', 'NPY_', 'KMP_', 'GOTO', 'VECLIB', 'NUMEXPR')

SERVER = r'''
import json, os, sys, time
reply = os.fdopen(os.dup(1), 'w', buffering=1)
null = os.open(os.devnull, os.O_RDWR)
os.dup2(null, 1)
for name in sys.argv[1:]:
    try: __import__(name)
    except Exception:  # (a package that does not import from this path: none of it left half-imported)
        for m in [m for m in sys.modules if m.split('.')[0] == name.split('.')[0]]: del sys.modules[m]
BASE = [p for p in sys.path if p != '']


def child(req):
    rc = 1
    try:
        os.dup2(null, 0)
        for fd, path in ((1, req['out']), (2, req['err'])):
            f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600); os.dup2(f, fd); os.close(f)
        reply.close(); os.close(null)
        os.environ.clear(); os.environ.update(req['env'])
        os.chdir(req['cwd'])
        sys.path[:] = [''] + [p for p in req['env'].get('PYTHONPATH', '').split(os.pathsep) if p] + BASE
        sys.argv = ['-c', *req['argv']]
        enc = dict(encoding=sys.stdout.encoding, closefd=False)
        sys.stdin = sys.__stdin__ = open(0, 'r', encoding=sys.stdin.encoding, closefd=False)
        sys.stdout = sys.__stdout__ = open(1, 'w', errors=sys.stdout.errors, **enc)
        sys.stderr = sys.__stderr__ = open(2, 'w', errors='backslashreplace', buffering=1, **enc)
        import tempfile, types
        tempfile.tempdir = None
        if 'numpy' in sys.modules: sys.modules['numpy'].random.seed()  # a fresh process seeds its own global stream
        main = types.ModuleType('__main__'); main.__builtins__ = __builtins__; sys.modules['__main__'] = main
        try:
            exec(compile(req['code'], '<string>', 'exec'), main.__dict__); rc = 0
        except SystemExit as e:
            if e.code is None: rc = 0
            elif isinstance(e.code, int): rc = e.code & 0xff
            else: print(e.code, file=sys.stderr); rc = 1
        except KeyboardInterrupt:
            import signal, traceback
            traceback.print_exc(); sys.stderr.flush(); signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        except BaseException:
            sys.excepthook(*sys.exc_info()); rc = 1
        import atexit, threading
        threading._shutdown()
        atexit._run_exitfuncs()
    except BaseException:
        import traceback; traceback.print_exc()
    finally:
        for s in (sys.stdout, sys.stderr):
            try: s.flush()
            except Exception: pass
        os._exit(rc)


for line in sys.stdin:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0: child(req)
    deadline, status = time.monotonic() + req['timeout'], None
    while True:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done: status = os.waitstatus_to_exitcode(st); break
        if time.monotonic() > deadline:
            os.kill(pid, 9); os.waitpid(pid, 0); break
        time.sleep(0.003)
    reply.write(json.dumps({'rc': status}) + '\n')
'''


class _ForkServer:
    "One server per test process (see above): `run` answers like `subprocess.run(..., capture_output=True, text=True)`."
    def __init__(self, path: str):
        import tempfile
        self.path, self.env = path, {k: v for k, v in cli_env().items() if k != 'PYTHONPATH'}
        self.tmp = tempfile.mkdtemp(prefix='scruples-fork-')  # its folder: no `scruples` in it shadows the path's
        self.proc = subprocess.Popen([sys.executable, '-c', SERVER, *PRELOAD, *PRELOAD_OWN], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=self.env | {'PYTHONPATH': path},
                                     cwd=self.tmp)
        self.lock = threading.Lock()
        atexit.register(self.close)

    def close(self):
        import shutil
        if self.proc.poll() is None: self.proc.stdin.close(); self.proc.wait(timeout=30)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def serves(self, env: dict) -> bool:
        "Whether a fork gives a process this environment: the server's interpreter-start variables and path."
        return self.proc.poll() is None and _start_vars(env) == _start_vars(self.env) and env.get('PYTHONPATH',
                                                                                                 '') == self.path

    def shadowed(self, cwd) -> bool:
        """Whether a new interpreter in `cwd` would import a `scruples` there (`python -c` puts '' first), not the one
        the server imported from its path."""
        here = Path(cwd if cwd is not None else os.getcwd()).resolve()
        if not ((here/'scruples').exists() or (here/'scruples.py').exists()):
            return False
        first = next((Path(p).resolve() for p in self.path.split(os.pathsep) if p and (Path(p)/'scruples').exists()),
                     None)
        return here != first

    def run(self, argv: list, env: dict, cwd, timeout, code: str = CLI) -> subprocess.CompletedProcess:
        "`python -c CODE ARGV` (the command by default) in a child forked from the server."
        with self.lock: return self._run(argv, env, cwd, timeout, code)

    def _run(self, argv, env, cwd, timeout, code) -> subprocess.CompletedProcess:
        import json
        import locale
        out, err = os.path.join(self.tmp, 'out'), os.path.join(self.tmp, 'err')
        cwd = os.path.abspath(cwd) if cwd is not None else os.getcwd()
        if not os.path.isdir(cwd): raise FileNotFoundError(2, 'No such file or directory', cwd)  # as subprocess.run
        req = {'argv': argv, 'env': env, 'cwd': cwd, 'timeout': timeout, 'out': out, 'err': err, 'code': code}
        self.proc.stdin.write(json.dumps(req) + '\n'); self.proc.stdin.flush()
        rc = json.loads(self.proc.stdout.readline())['rc']
        cmd = [sys.executable, '-c', code, *argv]
        texts = [Path(p).read_bytes().decode(locale.getpreferredencoding(False)).replace('\r\n', '\n').replace('\r', '\n')
                 for p in (out, err)]
        if rc is None: raise subprocess.TimeoutExpired(cmd, timeout, output=texts[0], stderr=texts[1])
        return subprocess.CompletedProcess(cmd, rc, *texts)


_servers: dict[str, _ForkServer] = {}  # by PYTHONPATH


def _start_vars(env: dict) -> dict:
    "The interpreter-start variables of an environment (PYTHONPATH aside: a child takes its path from the request)."
    return {k: v for k, v in env.items() if k.startswith(_START_KEYS) and k != 'PYTHONPATH'}


def _fork_server(env: dict) -> _ForkServer|None:
    """This process's fork server when it can run a command in `env`, else None (a real interpreter runs it). A call
    that sets interpreter-start variables of its own goes to a real interpreter; when this process's own environment
    has changed them since the server started (importing scikit-learn sets KMP_INIT_AT_FORK and KMP_DUPLICATE_LIB_OK
    in it), the server starts again with them, rather than every later call going to a new interpreter."""
    if os.environ.get('SCRUPLES_TEST_FORK', '1').strip() == '0' or not hasattr(os, 'fork'): return None
    path = env.get('PYTHONPATH', '')
    server = _servers.get(path)
    if server is not None and server.serves(env): return server
    if _start_vars(env) != _start_vars(cli_env()): return None
    if server is not None: server.close()
    while len(_servers) >= 3: _servers.pop(next(iter(_servers))).close()  # (the oldest path's)
    _servers[path] = _ForkServer(path)
    return _servers[path]


def run_by(folder, command: str, by: str, values, *flags) -> subprocess.CompletedProcess:
    """`scruples COMMAND long.csv --by BY --annotators ann.csv --bootstrap 0` on simulated votes of four annotators in two
    groups, the annotators' BY column set to `values` (written into `folder`)."""
    from scruples.perspectives import simulate_perspectives

    folder = Path(folder)
    long, ann = simulate_perspectives(n_items=30, groups={'a': 2, 'b': 2}, seed=1)
    long.to_csv(folder/'long.csv', index=False)
    ann.assign(**{by: values}).to_csv(folder/'ann.csv', index=False)
    return scruples(command, folder/'long.csv', '--by', by, '--annotators', folder/'ann.csv', '--bootstrap', '0', *flags)


def shuffled_votes(tmp_path):
    """A long table of 60 items, 4 labels each by 7 annotators, 3 classes (`votes.csv`), and the same rows in another
    order (`shuffled.csv`): for tests that the numbers do not depend on the rows' order."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(5)
    rows = [(f'it{i:03d}', a, rng.choice(['yes', 'no', 'maybe'], p=[.5, .3, .2]))
            for i in range(60) for a in rng.choice(list('abcdefg'), 4, replace=False)]
    d = pd.DataFrame(rows, columns=['item', 'annotator', 'label'])
    d.to_csv(tmp_path / 'votes.csv', index=False)
    d.sample(frac=1, random_state=2).to_csv(tmp_path / 'shuffled.csv', index=False)
    return d


def gold_votes(rng, n: int = 30):
    """Counts of `n` items over yes/no/maybe (5 votes each, Dirichlet-multinomial drawn from `rng`) with an `id` column
    1..n: the gold table several round-4 tests write; `rng` goes on to draw what the test draws next."""
    import pandas as pd

    gold = pd.DataFrame([rng.multinomial(5, q) for q in rng.dirichlet([1, 1, 1], n)], columns=['yes', 'no', 'maybe'])
    gold.insert(0, 'id', range(1, n + 1))
    return gold
