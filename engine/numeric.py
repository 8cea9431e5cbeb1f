"""Central differences: the numerical reference for every gradient the engine computes."""
from __future__ import annotations

import numpy as np

from gradwalk.engine.parse import Program
from gradwalk.engine.trace.forward import evaluate
from gradwalk.engine.trace.limits import Limits


def forward_value(program: Program, output: int, leaves: dict[int, np.ndarray]) -> np.ndarray:
    """The output's value with some leaves replaced (leaf index -> value). Raises ProgramError."""
    values: list = [None] * len(program.nodes)
    with np.errstate(all="ignore"):
        for n in program.nodes:
            values[n.index] = leaves[n.index] if n.index in leaves else \
                evaluate(n, values, Limits().max_elements)
    return values[output]


def central_differences(program: Program, output: int, eps: float = 1e-6) -> dict[str, np.ndarray]:
    """d sum(output) / d leaf for every leaf, by (f(x + eps) - f(x - eps)) / (2 eps) per element.

    Costs 2 forward passes per leaf element; the truncation error is O(eps^2) times the third
    derivative, the rounding error about 1e-16 |f| / eps.
    """
    grads = {}
    for name, i in program.leaves.items():
        base = np.array(program.nodes[i].literal, dtype=np.float64)
        grad = np.zeros_like(base)
        for k in np.ndindex(base.shape):
            up, down = base.copy(), base.copy()
            up[k] += eps
            down[k] -= eps
            f_up = np.sum(forward_value(program, output, {i: up}))
            f_down = np.sum(forward_value(program, output, {i: down}))
            grad[k] = (f_up - f_down) / (2 * eps)
        grads[name] = grad
    return grads
