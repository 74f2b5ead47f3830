"""The thirty-sixth pass's leads (issue 39): each test failed before its fix.

1. A moral direction fitted with an encoder that names no model (a plain function) scored, and loaded, with any other
   function: the check compared their type's name, 'function'. Such an encoder is now only itself (`same_encoder`).
7. `MoralDirection.load` of a file saved before the encoder's name was (no `encoder` in it) raised a numpy KeyError.
"""

import numpy as np
import pandas as pd
import pytest

from toy_encoder import Enc

from scruples import mcm


def test_unnamed_encoder_is_only_itself(tmp_path):
    "A direction fitted with one plain function scored with another (set_params, d.encoder =, load) as the same model."
    from scruples.bridge import LearnedDirection

    e1, e2 = Enc('toy', seed=0), Enc('toy2', seed=1)
    f1, f2 = (lambda t: e1(t)), (lambda t: e2(t))
    d = mcm.MoralDirection(f1).fit()
    d.score(['smile'])  # its own function scores it
    p = d.save(tmp_path / 'd.npz')
    with pytest.raises(ValueError, match='names no model'):
        d.set_params(encoder=f2).score(['smile'])
    with pytest.warns(UserWarning, match='named no model'):  # nothing can tell the two apart: said, not silent
        loaded = mcm.MoralDirection.load(p, encoder=f2)
    with pytest.raises(ValueError, match='names no model'):  # from then on only that object is it
        loaded.set_params(encoder=f1).score(['smile'])
    with pytest.raises(ValueError, match="fitted with the encoder 'function'"):  # a named encoder: refused as before
        mcm.MoralDirection.load(p, encoder=Enc('toy'))
    x = np.random.default_rng(0).normal(size=(20, 16))
    c = np.random.default_rng(1).integers(1, 5, size=(20, 2))
    ld = LearnedDirection(f1, cv=2, Cs=(1.0,), n_jobs=1).fit_arrays(x, c)
    ld.score(['smile'])
    ld.encoder = f2
    with pytest.raises(ValueError, match='names no model'):
        ld.score(['smile'])
    assert mcm.same_encoder(Enc('toy'), Enc('toy')) and not mcm.same_encoder(f1, f2) and mcm.same_encoder(f1, f1)


def test_moral_direction_loads_a_file_without_encoder_name(tmp_path):
    "MoralDirection.load of a file saved before the encoder name was saved raised KeyError: 'encoder is not a file'."
    p = mcm.MoralDirection(Enc('toy')).fit().save(tmp_path / 'new.npz')
    z = dict(np.load(p))
    z.pop('encoder')
    np.savez(tmp_path / 'old.npz', **z)
    d = mcm.MoralDirection.load(tmp_path / 'old.npz', encoder=Enc('toy'))
    np.testing.assert_allclose(d.score(['smile', 'kill people']),
                               mcm.MoralDirection.load(p, encoder=Enc('toy')).score(['smile', 'kill people']))
