"""Undo numpy broadcasting in the backward pass (HIPS autograd's `unbroadcast`)."""
from __future__ import annotations

import numpy as np


def unbroadcast(g: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, tuple[int, ...]]:
    """Sum `g` back to `shape` ("sum to size") and say which axes were summed.

    g: a gradient of the broadcast shape; shape: the shape of the input that was broadcast.
    Leading axes that broadcasting added are summed away, then every axis where `shape` has
    size 1 and `g` does not is summed keeping its dimension. Returns (gradient of `shape`, the
    summed axes numbered in `g`'s shape); the axes are () when nothing changed.
    Raises ValueError when `g` cannot have been broadcast from `shape`.
    """
    g_shape = np.shape(g)
    if g_shape == tuple(shape):
        return g, ()
    lead = len(g_shape) - len(shape)
    if lead < 0:
        raise ValueError(f"cannot unbroadcast shape {g_shape} to {tuple(shape)}")
    kept = tuple(lead + i for i, n in enumerate(shape) if n == 1 and g_shape[lead + i] != 1)
    axes = tuple(range(lead)) + kept
    out = np.sum(g, axis=axes, keepdims=True) if axes else g
    return np.reshape(out, shape), axes
