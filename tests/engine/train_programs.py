"""The seeds' training programs as gradwalk text, their weights written as literals.

Seed 003_70db1bc89ad395af.txt ("A network to train"): XOR, 2 inputs, 4 ReLU units, 2 logits,
22 weights drawn by Python's random.seed(s) then random.uniform(-1, 1) in the order W1 (4x2
row-major), b1 (4), W2 (2x4 row-major), b2 (2); mean cross-entropy over the 4 examples.
"""
from __future__ import annotations

import json
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



# seed 003's XOR program as written, its data, `def forward(ps):` and `loss =
# forward(params)`; one line differs: params is the list of the numbers its random line draws
# (the imports and the class are left out)
LOOP_XOR = """X = [(0, 0), (0, 1), (1, 0), (1, 1)]
Y = [0, 1, 1, 0]                          # XOR: class 1 when exactly one input is 1
params = {params}

def forward(ps):                          # works on Values and on torch tensors alike
    W1, b1, W2, b2 = ps[0:8], ps[8:12], ps[12:20], ps[20:22]
    total = 0
    for (x0, x1), y in zip(X, Y):
        hid = [(W1[2*i] * x0 + W1[2*i + 1] * x1 + b1[i]).relu() for i in range(4)]
        z = [sum((W2[4*j + i] * hid[i] for i in range(4)), b2[j]) for j in range(2)]
        total = total + ((z[0].exp() + z[1].exp()).log() - z[y])  # cross-entropy
    return total * 0.25                   # mean over the 4 examples

loss = forward(params)
"""


def seed003_loop_xor(seed: int = 1) -> str:
    """The same network as seed003_xor(seed), written as the seed writes it (LOOP_XOR): one
    list of the 22 weights, scalars, loops, a list comprehension and `def forward`."""
    random.seed(seed)
    return LOOP_XOR.format(params=json.dumps([random.uniform(-1, 1) for _ in range(22)]))

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
