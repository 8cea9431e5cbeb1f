"""The full Hessian and its largest eigenvalue, from forward-over-reverse passes over the
backward graph (engine/trace/hvp.py plans them; engine/trace/forward_mode.py carries tangents).

The full Hessian (`# hessian: full`, at most hvp.MAX_HESSIAN_INPUTS scalar inputs) is one
forward-over-reverse pass per scalar input, a column each; its largest eigenvalue in magnitude
(`# hessian: power_iteration N`) is N steps of power iteration, v ← H v / ‖H v‖, each one
forward-over-reverse pass, with the Rayleigh quotient vᵀ H v of each step as the estimate.
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.trace import forward_mode
from gradwalk.engine.trace.limits import Limits
from gradwalk.engine.trace.values import number

POWER_SEED = 0   # power iteration starts from a seeded random unit vector (numpy's default_rng)


def inner(tracer, plan):
    """A tracer whose program holds the backward graph `plan.backward` (engine/trace/hvp.py's
    Plan; the trace itself in hvp mode), compiled by the trace's own class."""
    if plan.vector is not None:
        return tracer
    # the backward graph was built within the trace's limits; its passes run on the trace's
    # clock (each carry checks the deadline every 1,024 nodes)
    made = type(tracer)(plan.backward.program, plan.backward.program.last,
                        Limits(max_nodes=10 ** 9, max_flops=10 ** 12,
                               max_response_bytes=10 ** 12, max_total_elements=10 ** 9))
    made.deadline = tracer.deadline
    made.zero_terms = True   # hvp.py's convention: a zero direction contributes nothing
    return made


def _hvp(inner, plan, direction: np.ndarray) -> np.ndarray:
    """H v for a flat v over the leaves' elements (leaf order), by forward over reverse."""
    given, start = {}, 0
    for name, i in inner.program.leaves.items():
        like = inner.values[i]
        size = int(np.size(like))
        part = direction[start:start + size]
        start += size
        given[i] = float(part[0]) if type(like) is float else \
            part.reshape(np.shape(like)).astype(np.result_type(like))
    tangents = forward_mode.carry(inner, given)
    parts = []
    for name, i in inner.program.leaves.items():
        t = tangents[plan.backward.grads[name]]
        parts.append(np.zeros(int(np.size(inner.values[i]))) if t is None else
                     np.ravel(np.asarray(t, dtype=np.float64)))
    return np.concatenate(parts) if parts else np.zeros(0)


def element_names(inner) -> list[str]:
    """Each scalar input's name: `a`, `W[0,1]`."""
    names = []
    for name, i in inner.program.leaves.items():
        shape = np.shape(inner.values[i])
        if not shape:
            names.append(name)
        else:
            names.extend(f"{name}[{','.join(map(str, ix))}]" for ix in np.ndindex(*shape))
    return names


def hessian(inner, plan) -> dict:
    """{"leaves": each scalar input's name, "matrix": H (n × n, H[r][c] = ∂²L/∂x_r∂x_c),
    "passes": n} by one forward-over-reverse pass per scalar input (a column each)."""
    names = element_names(inner)
    n = len(names)
    columns = [_hvp(inner, plan, np.eye(n)[k]) for k in range(n)]
    matrix = np.stack(columns, axis=1) if columns else np.zeros((0, 0))
    return {"leaves": names, "matrix": [[number(x) for x in row] for row in matrix.tolist()],
            "passes": n}


def power_iteration(inner, plan, steps: int) -> dict:
    """The largest-magnitude eigenvalue of H by power iteration: v ← H v / ‖H v‖ from a
    seeded random unit vector, `estimates` the Rayleigh quotient vᵀ H v at each step
    (Golub & Van Loan, Matrix Computations, 4th ed., §8.2.1). Stops early when H v = 0."""
    names = element_names(inner)
    v = np.random.default_rng(POWER_SEED).standard_normal(len(names))
    v /= np.linalg.norm(v) or 1.0
    estimates = []
    for _ in range(steps):
        w = _hvp(inner, plan, v)
        estimates.append(float(v @ w))
        norm = float(np.linalg.norm(w))
        if not norm > 0 or not np.isfinite(norm):
            break
        v = w / norm
    return {"steps": len(estimates), "estimates": [number(x) for x in estimates],
            "value": number(estimates[-1]) if estimates else 0.0,
            "vector": {name: number(x) for name, x in zip(names, v.tolist())}}
