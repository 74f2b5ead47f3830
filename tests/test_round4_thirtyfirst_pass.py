"""Round 4, the thirty-first hostile pass: failing tests for the defects found (issue 39)."""
from __future__ import annotations

import numpy as np
import pytest

from scruples.judgments import extract_label


@pytest.mark.parametrize('body, want', [
    ('Not YTA, ESH', 'EVERYBODY'),
    ('Not YTA, NAH', 'NOBODY'),
    ("You're not YTA. ESH.", 'EVERYBODY'),
    ('Not YTA; everyone sucks here.', 'EVERYBODY'),
])
def test_negated_yta_then_stated_verdict(body, want):
    """SILENT WRONG / DATA MIXED, `judgments.extract_label` (the `_NOT_BEFORE` change): "Not YTA, ESH" says that
    everybody sucks, yet the negated YTA is turned into the OTHER verdict (NTA) and, being first, decides the comment:
    OTHER for EVERYBODY ("Not YTA, NAH": OTHER for NOBODY). The negation states only what the verdict is not; the
    verdict the comment states next ("ESH") should decide, as it does for "Not ESH, NTA"."""
    assert extract_label(body) == want
