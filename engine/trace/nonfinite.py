"""Why a value or adjoint stopped being finite: the one-line explanation that goes with
`first_non_finite` in the `done` event (docs/trace-format.md).

Called once per trace at most, on the first non-finite number, so it may look at the values
with numpy at leisure. The inputs of the first non-finite value are finite (it is the first),
so a NaN or an infinity comes from the op itself: its domain (log, sqrt, a fractional power of
a negative number), a division by zero, or float64's range (about 1.8e308).
"""
from __future__ import annotations

import numpy as np

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


def backward(op: str, local, contribution, after, arg: int = 0, xs: list | None = None) -> str:
    """Why an adjoint stopped being finite on a backward edge through `op`: its local
    derivative (None when not elementwise), what the edge sent, and the sum; `arg` is the
    input's position and `xs` the op's input values (finite: the forward pass was)."""
    def bad(v):
        return v is not None and not np.all(np.isfinite(np.asarray(v, dtype=np.float64)))

    if bad(local):
        return _slope(op, arg, xs or []) or f"the slope of {op} is infinite or undefined here"
    if bad(contribution):
        if _any(np.isnan(np.asarray(contribution, dtype=np.float64))):
            return "the gradient sent back is NaN (0 × Infinity, or an undefined slope)"
        return "overflow: the gradient sent back passed float64's largest (about 1.8e308)"
    return "overflow when adding the contributions (+=) to the adjoint"


def _slope(op: str, arg: int, xs: list) -> str | None:
    """Where the local derivative of the usual ops blows up, by the inputs' values: a pole
    (log at 0), a domain (ln a for a < 0 in ∂(a^b)/∂b, as PyTorch also gives NaN), or
    overflow at an input that is small but not 0 (log(1e-320), 1/1e-200); None for others."""
    if not xs:
        return None
    pole = f"the slope of {op} is infinite here: "
    with np.errstate(all="ignore"):
        x = np.asarray(xs[0], dtype=np.float64)
        y = np.asarray(xs[1], dtype=np.float64) if len(xs) > 1 else None
        if op == "pow" and arg == 1:
            if _any(x < 0):
                return ("the slope of a ** b in b, a^b · ln a, is undefined for a < 0 (ln of a "
                        "negative number is NaN; PyTorch gives NaN too)")
            return pole + "a^b · ln a is infinite at a = 0 (ln 0 = -∞)"
        if op == "pow":
            if _any((x == 0) & (y < 1)):
                return pole + "p·x^(p-1) is infinite at x = 0 when p < 1"
            return _overflow(op, "p·x^(p-1)", "x", x)
        if op in ("log", "sqrt"):
            slope = "log' = 1/x" if op == "log" else "√x' = 1/(2√x)"
            return pole + f"{slope} is infinite at x = 0" if _any(x == 0) else \
                _overflow(op, slope, "x", x)
        if op == "div" and y is not None:
            slope = "1/y" if arg == 0 else "-x/y²"
            return pole + f"{slope} is infinite at y = 0" if _any(y == 0) else \
                _overflow(op, slope, "y", y)
    return None


def _overflow(op: str, slope: str, name: str, v) -> str:
    """The overflow of a slope at a small, non-zero input (its smallest magnitude named)."""
    small = float(np.min(np.abs(v)))
    return (f"overflow, not a division by zero: the slope of {op}, {slope}, passed float64's "
            f"largest (about 1.8e308) at {name} = {small:.3g}, which is small but not 0")
