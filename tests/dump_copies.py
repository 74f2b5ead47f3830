"""Bigger dump files for the extraction tests: the shipped sample's comments copied with fresh ids (a run of seconds
instead of milliseconds, the same kinds of records). One helper for the test modules that need one."""
import json
from pathlib import Path

import zstandard

from scruples.dumps import GOLD_DIR, open_dump


def copied_comments(folder: Path, copies: int, files: int = 1) -> list[Path]:
    "The sample's comments `copies` times (ids suffixed k0, k1, ...) in `files` zstd files: RC_big.zst, or RC_1.zst, ..."
    with open_dump(GOLD_DIR/'RC_sample.zst') as f: recs = [json.loads(l) for l in f.read().splitlines() if l.strip()]
    out = [json.dumps(dict(r, id=f"{r['id']}k{k}")) for k in range(copies) for r in recs]
    names = ['RC_big.zst'] if files == 1 else [f'RC_{i + 1}.zst' for i in range(files)]
    paths, step = [], -(-len(out) // files)
    for i, name in enumerate(names):
        chunk = out[i * step:(i + 1) * step]
        (folder/name).write_bytes(zstandard.ZstdCompressor().compress(('\n'.join(chunk) + '\n').encode()))
        paths.append(folder/name)
    return paths
