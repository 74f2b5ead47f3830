"""The leftovers the ninth hostile pass's note named (issue 39), mended: each test failed on the code before its fix."""
from cli_run import in_process as _cli


def test_score_refuses_a_figures_folder_with_a_users_file_before_scoring(split_gold, monkeypatch):
    """`score --figures DIR` where DIR holds the user's reliability.png: refused, as before, but before the scoring and
    its bootstraps (minutes on a large file), not after them."""
    import scruples.evaluation as ev
    t = split_gold
    figs = t/'figs'; figs.mkdir()
    (figs/'reliability.png').write_bytes(b'mine')
    scored = []
    real = ev.score_against_ceiling
    monkeypatch.setattr(ev, 'score_against_ceiling', lambda *a, **k: scored.append(1) or real(*a, **k))
    rc, out, err = _cli('score', t/'test.csv', t/'gold.csv', '--figures', figs, '--bootstrap', '0',
                        '--ceiling-bootstrap', '0', '--samples', '200')
    assert rc == 1 and 'reliability.png' in err, (rc, out, err)
    assert not scored  # the old code scored every item first
    assert (figs/'reliability.png').read_bytes() == b'mine'
    rc, out, err = _cli('score', t/'test.csv', t/'gold.csv', '--figures', t/'fresh', '--bootstrap', '0',
                        '--ceiling-bootstrap', '0', '--samples', '200')
    assert rc == 0 and scored and (t/'fresh'/'reliability.png').is_file(), err
