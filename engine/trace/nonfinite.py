"""Why a value or adjoint stopped being finite: the one-line explanation that goes with
`first_non_finite` in the `done` event (docs/trace-format.md).

Called once per trace at most, on the first non-finite number, so it may look at the values
with numpy at leisure. The inputs of the first non-finite value are finite (it is the first),
so a NaN or an infinity comes from the op itself: its domain (log, sqrt, a fractional power of
a negative number), a division by zero, or float64's range (about 1.8e308).
"""
from __future__ import annotations

import numpy as np

# Where the usual slopes blow up, said next to the backward explanation.
SLOPES = {"sqrt": ": √x' = 1/(2√x) is infinite at x = 0",
          "log": ": log' = 1/x is infinite at x = 0",
          "div": ": the slope 1/y is infinite at y = 0",
          "pow": ": x^(p-1) is infinite at x = 0 when p < 1"}
OVERFLOW = "overflow: a number passed float64's largest (about 1.8e308)"


def _any(mask) -> bool:
    return bool(np.any(mask))


def forward(op: str, xs: list, out) -> str:
    """Why `op` over the finite inputs `xs` gave a non-finite `out`."""
    x = np.asarray(xs[0], dtype=np.float64) if xs else np.float64(0)
    with np.errstate(all="ignore"):
        if op == "log":
            return "log of a negative number (NaN)" if _any(x < 0) else "log of 0 (-Infinity)"
        if op == "sqrt" and _any(x < 0):
            return "square root of a negative number (NaN)"
        if op == "div" and len(xs) == 2:
            y = np.asarray(xs[1], dtype=np.float64)
            if _any((x == 0) & (y == 0)):
                return "0/0 (NaN)"
            if _any(y == 0):
                return "division by zero (±Infinity)"
        if op == "pow" and len(xs) == 2:
            y = np.asarray(xs[1], dtype=np.float64)
            if _any((x < 0) & (y != np.round(y))):
                return "a negative number to a fractional power (NaN)"
            if _any((x == 0) & (y < 0)):
                return "0 to a negative power (Infinity)"
    if _any(np.isnan(np.asarray(out, dtype=np.float64))):
        return f"{op} is undefined at these inputs (NaN)"
    return OVERFLOW


def backward(op: str, local, contribution, after) -> str:
    """Why an adjoint stopped being finite on a backward edge through `op`: its local
    derivative (None when not elementwise), what the edge sent, and the sum."""
    def bad(v):
        return v is not None and not np.all(np.isfinite(np.asarray(v, dtype=np.float64)))

    if bad(local):
        return f"the slope of {op} is infinite or undefined here" + SLOPES.get(op, "")
    if bad(contribution):
        if _any(np.isnan(np.asarray(contribution, dtype=np.float64))):
            return "the gradient sent back is NaN (0 × Infinity, or an undefined slope)"
        return "overflow: the gradient sent back passed float64's largest (about 1.8e308)"
    return "overflow when adding the contributions (+=) to the adjoint"
