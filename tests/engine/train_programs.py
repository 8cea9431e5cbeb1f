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


# Seed 000_83dd1fd5d418f184.txt: three interleaved spirals and a 64-unit ReLU layer (spirals
# seed 0, the weights randn(..., std=0.5) seeds 0 and 1), and XOR with 4 tanh units and a tanh
# output trained on the squared error toward (-1, 1, 1, -1). The presets of the same names
# (server/presets.json, train-spirals and train-xor-tanh) hold the same text.
SPIRALS = """X, y = spirals(100, 3, seed=0)
W1 = randn(2, 64, seed=0, std=0.5)
b1 = zeros(64)
W2 = randn(64, 3, seed=1, std=0.5)
b2 = zeros(3)
h = relu(X @ W1 + b1)
z = h @ W2 + b2
L = cross_entropy(z, y)
"""
XOR_TANH = """X, y = xor()
t = const([[-1.0], [1.0], [1.0], [-1.0]])
W1 = randn(2, 4, seed=0)
b1 = zeros(4)
W2 = randn(4, 1, seed=1)
b2 = zeros(1)
h = tanh(X @ W1 + b1)
out = tanh(h @ W2 + b2)
L = mse(out, t)
"""


# A regression net (mse through a ReLU layer) that diverges at lr 1000: its loss is first
# infinite at iteration 4, in PyTorch float64 too (tests/engine/test_train_warnings.py).
REGRESSION = """X = const([[1.0, 2.0], [-1.0, 0.5], [0.3, -2.0]])
y = const([1.0, -1.0, 0.5])
W = [[0.5, -0.2, 0.1], [0.3, 0.4, -0.6]]
v = [1.0, -1.0, 0.5]
h = relu(X @ W)
L = mean((h @ v - y) ** 2)
"""
