"""The data helpers' recipes: small classification data sets, made the same on every run.

Each returns (X, y): X the inputs, float64 of shape (N, 2); y the class indices 0, 1, ...,
float64 of shape (N,) (every value of a program is a float tensor; cross_entropy reads the
indices back as integers). The language writes them `X, y = xor()` (engine/parse_data.py);
docs/trace-format.md, "Data helpers", repeats each recipe.
"""
from __future__ import annotations

import numpy as np


def xor() -> tuple[np.ndarray, np.ndarray]:
    """The four points of XOR and their labels, in the order of seed 003
    (../shared/seeds/003_70db1bc89ad395af.txt, "A network to train"):
    X = [[0, 0], [0, 1], [1, 0], [1, 1]] (4, 2), y = [0, 1, 1, 0] (4,)."""
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    return X, np.array([0.0, 1.0, 1.0, 0.0])
