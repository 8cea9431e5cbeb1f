"""`detach(x)` and `stop_gradient(x)`: the value of x, cut off from the graph.

PyTorch's `x.detach()` and JAX's `lax.stop_gradient(x)`: the forward rule is the identity; the
result does not require grad (engine/graph.py's requires_grad is false for CUTS), so the
backward pass sends nothing back through it and x gets gradient only through its other paths.
The vjp row gives zeros and the jvp row zeros too (forward-mode AD stops at a cut as well).
Nothing is saved and nothing is computed: 0 FLOPs both ways.
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.ops.registry import Op, register

CUTS = frozenset({"detach", "stop_gradient"})


def _zeros(g, out, x):
    return np.zeros(np.shape(x), dtype=np.result_type(g, out))


for _name in sorted(CUTS):
    register(Op(
        name=_name, arity=1, forward=lambda x: np.array(x, copy=True),
        vjp=(_zeros,), jvp=lambda dots, out, x: np.zeros(np.shape(out), np.result_type(out)),
        text=f"{_name}({{0}})", partials=("0 (cut: no gradient flows back)",),
        flops=lambda out, x: 0, saves=(), backward_flops=lambda out, x: 0,
    ))
