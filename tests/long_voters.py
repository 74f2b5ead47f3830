"""A long-form table of twelve voters the annotator-table tests join to: annotators 1-6 copy each item's truth (alpha
1 among them), 7-12 answer at random, on 30 items."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from scruples.annotations import AnnotatedData, read_annotated


def long12(tmp_path: Path) -> AnnotatedData:
    "Writes `tmp_path / 'long.csv'` (item, annotator 1-12, label yes/no) and returns it read."
    rng = np.random.default_rng(1)
    rows = []
    for i in range(30):
        truth = rng.choice(['yes', 'no'])
        rows += [(f'i{i}', a, truth if a <= 6 else rng.choice(['yes', 'no'])) for a in range(1, 13)]
    pd.DataFrame(rows, columns=['item', 'annotator', 'label']).to_csv(tmp_path / 'long.csv', index=False)
    return read_annotated(tmp_path / 'long.csv')
