"""Which checks a test run skipped and why: one line per reason, from pytest's JUnit XML (`make test` prints it last).

Run: `python scripts/skip_report.py _runs/skips-test.xml [LABEL]`. A reason that names a missing system tool says the
command that installs it (tests/test_docs_site.py: `make sysdeps`). Prints nothing when the file is missing (the
pytest step did not run); exits 0 either way: skipping is reported, not judged, here.
"""
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path


def skips(xml_path) -> Counter:
    "(test file, reason) -> how many tests skipped for it."
    out = Counter()
    for case in ET.parse(xml_path).getroot().iter('testcase'):
        for sk in case.findall('skipped'):
            reason = (sk.get('message') or sk.text or '').strip()
            reason = reason.removeprefix('Skipped: ').splitlines()[0] if reason else 'no reason given'
            where = (case.get('classname') or '').split('.')
            where = '/'.join(w for w in where if not w[:1].isupper()) + '.py' if where[0] else '?'
            out[(where, reason)] += 1
    return out


def report(xml_path, label='pytest') -> str:
    found = skips(xml_path)
    if not found: return f'{label}: no check skipped'
    n = sum(found.values())
    s = lambda k: 's' if k != 1 else ''
    lines = [f'{label}: {n} check{s(n)} skipped, for {len(found)} reason{s(len(found))}:']
    lines += [f'  {k:4d} x {where}: {reason}' for (where, reason), k in sorted(found.items(), key=lambda kv: -kv[1])]
    return '\n'.join(lines)


if __name__ == '__main__':
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path('_runs/skips-test.xml')
    if path.is_file(): print(report(path, sys.argv[2] if len(sys.argv) > 2 else 'pytest'))
