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


def spirals(n: int, classes: int, seed: int, noise: float = 0.2
            ) -> tuple[np.ndarray, np.ndarray]:
    """`classes` interleaved spirals of n points each, classes in order (seed 000's three
    spirals, in the form of CS231n's "Putting it together: Minimal Neural Network Case Study"
    with r starting at 1/n rather than 0): with rng = numpy.random.default_rng(seed) and
    i = numpy.arange(n), for class j = 0, 1, ... in order

        r = (i + 1) / n
        theta = 4 * j + 4 * i / (n - 1) + noise * rng.standard_normal(n)
        points (r * sin(theta), r * cos(theta)), labels j

    so r is never 0 and no two classes share a point. X (n·classes, 2), y (n·classes,).
    n >= 2, classes >= 1, noise >= 0 (the caller checks)."""
    rng = np.random.default_rng(seed)
    i = np.arange(n)
    r = (i + 1) / n
    X = np.empty((n * classes, 2))
    for j in range(classes):
        theta = 4 * j + 4 * i / (n - 1) + noise * rng.standard_normal(n)
        X[j * n:(j + 1) * n] = np.stack([r * np.sin(theta), r * np.cos(theta)], axis=1)
    return X, np.repeat(np.arange(classes, dtype=np.float64), n)


def moons(n: int, seed: int, noise: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaving half circles, n points in all: scikit-learn's make_moons(n,
    shuffle=False, noise=noise), its noise drawn from numpy's default_rng(seed) rather than
    a RandomState (sklearn/datasets/_samples_generator.py). With a = n // 2 points on the
    outer moon (class 0, first) and b = n - a on the inner one (class 1):

        outer = (cos(t), sin(t)),            t = numpy.linspace(0, pi, a)
        inner = (1 - cos(u), 1 - sin(u) - 0.5), u = numpy.linspace(0, pi, b)
        X = [outer; inner] + noise * default_rng(seed).standard_normal((n, 2))

    X (n, 2), y (n,). n >= 2, noise >= 0 (the caller checks)."""
    a = n // 2
    t, u = np.linspace(0, np.pi, a), np.linspace(0, np.pi, n - a)
    X = np.concatenate([np.stack([np.cos(t), np.sin(t)], axis=1),
                        np.stack([1 - np.cos(u), 1 - np.sin(u) - 0.5], axis=1)])
    X = X + noise * np.random.default_rng(seed).standard_normal((n, 2))
    return X, np.concatenate([np.zeros(a), np.ones(n - a)])
