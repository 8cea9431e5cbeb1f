"""The seeds' training programs as gradwalk text, their weights written as literals.

Seed 003_70db1bc89ad395af.txt ("A network to train"): XOR, 2 inputs, 4 ReLU units, 2 logits,
22 weights drawn by Python's random.seed(s) then random.uniform(-1, 1) in the order W1 (4x2
row-major), b1 (4), W2 (2x4 row-major), b2 (2); mean cross-entropy over the 4 examples.
"""
from __future__ import annotations

import random

XOR_X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
XOR_Y = [0, 1, 1, 0]


def seed003_weights(seed: int) -> dict[str, list]:
    random.seed(seed)
    w = [random.uniform(-1, 1) for _ in range(22)]
    return {"W1": [w[0:2], w[2:4], w[4:6], w[6:8]], "b1": w[8:12],
            "W2": [w[12:16], w[16:20]], "b2": w[20:22]}


def seed003_xor(seed: int = 1) -> str:
    """The 2-4-2 ReLU network of seed 003 on XOR, as a program (h = relu(X W1ᵀ + b1))."""
    w = seed003_weights(seed)
    return (f"X = const({XOR_X!r})\n"
            + "".join(f"{k} = {v!r}\n" for k, v in w.items())
            + "h = relu(X @ W1.T + b1)\nz = h @ W2.T + b2\n"
            f"L = cross_entropy(z, {XOR_Y!r})\n")
