"""A toy sentence encoder for the tests of the moral directions: deterministic, named, no model to load."""
import hashlib

import numpy as np


class Enc:
    "A deterministic encoder of `dim` numbers a text, named `name` (`model_name`, as SentenceEncoder's)."

    def __init__(self, name, seed=0, dim=16):
        self.model_name, self.seed, self.dim = name, seed, dim

    def __call__(self, texts):
        return np.array([np.random.default_rng(int(hashlib.md5(f'{self.seed}{t.lower()}'.encode()).hexdigest(), 16)
                                               % 2**32).normal(size=self.dim) for t in texts])
