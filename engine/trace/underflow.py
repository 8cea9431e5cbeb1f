"""Underflow: a number below the float type's smallest normal number, which is no longer
exact, marked as NaN and infinity are (`first_non_finite`, docs/trace-format.md).

float64 keeps 15-16 significant digits down to 2.2e-308 (numpy.finfo(np.float64).tiny, the
smallest normal number); below it a number is subnormal and loses a digit per factor of ten,
down to 4.9e-324, under which it rounds to 0 (IEEE 754-2019, 3.4). A backward pass through a
long chain of slopes below 1 gets there: 0.7864 · 4.941e-324 rounds to 4.941e-324 again, so
`dx5000/dx0 = 4.941e-324` reads as arithmetic although the true value is about 1e-858. So a
value or adjoint that is

- subnormal (0 < |x| < tiny), or
- 0 made by a product, quotient, power or exponential of non-zero finite numbers (the product
  rounded to 0; a difference that is 0 is exact and not counted),

is marked at the first node where it happens, with why: "underflow: below 2.2e-308, the float64
limit" (1.2e-38 in float32). Only the data a record carries is looked at: a tensor that travels
as a summary (over the inline limit) is judged by its min and max.
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.source import clip
from gradwalk.engine.trace import warn
from gradwalk.engine.trace.values import decode_lenient

_MAKES_ZERO = frozenset({"mul", "div", "pow", "exp", "matmul"})
"""Ops whose 0 from non-zero finite inputs is a rounding (x · y, x / y, x ** y, exp(x) are
never 0 for such inputs in exact arithmetic; matmul is a sum of products, and is counted only
when every product is 0 while no factor is)."""


def why(dtype) -> str:
    """The marker's and the warning's reason, naming the dtype's limit."""
    info = np.finfo(np.dtype(dtype))
    return f"underflow: below {float(info.tiny):.2g}, the {np.dtype(dtype).name} limit"


def tiny(dtype) -> float:
    """The smallest normal number of `dtype` (2.2e-308 for float64, 1.2e-38 for float32)."""
    return _TINY.get(dtype) or _TINY.setdefault(dtype, float(np.finfo(np.dtype(dtype)).tiny))


_TINY: dict = {}


def subnormal(x, dtype=np.float64) -> bool:
    """Whether some element of x is not 0 but below the smallest normal number of its type
    (`dtype`'s for a Python float, which a float32 value may travel as)."""
    if type(x) is float:
        return 0.0 < abs(x) < tiny(dtype)
    a = np.abs(np.asarray(x))
    if a.dtype.kind != "f":
        return False
    return bool(np.any((a > 0) & (a < np.finfo(a.dtype).tiny)))


def forward(op: str | None, xs: list, out, dtype=np.float64) -> bool:
    """Whether the value `out` of `op` over `xs` underflowed: subnormal, or 0 where the op
    cannot give 0 for non-zero finite inputs."""
    if subnormal(out, dtype):
        return True
    if op not in _MAKES_ZERO or not xs:
        return False
    with np.errstate(all="ignore"):
        zero = np.asarray(out) == 0
        if not np.any(zero):
            return False
        if op == "exp":
            return bool(np.any(zero & np.isfinite(xs[0])))
        if op == "matmul":
            return False   # a sum of products may be 0 exactly; subnormal is caught above
        ok = [np.isfinite(x) & (np.asarray(x) != 0) for x in xs]
        if op == "pow":   # 0 ** y is 0 exactly; x ** y for x != 0 is not
            ok = ok[:1] + [np.isfinite(xs[1])]
        return bool(np.any(zero & np.logical_and.reduce(np.broadcast_arrays(*ok))))


def backward(record: dict, dtype=np.float64) -> bool:
    """Whether an `accumulate` record's adjoint underflowed: the adjoint after it is
    subnormal, or its contribution is 0 where the upstream gradient and the local slope are
    not (their product rounded to 0)."""
    after = record["adjoint_after"]
    if type(after) is float and after - after == 0.0 and abs(after) >= tiny(dtype):
        return False   # the hot path: a normal scalar adjoint
    if subnormal(decode_lenient(after), dtype):
        return True
    local = record.get("local")
    if local is None:
        return False
    with np.errstate(all="ignore"):
        g, slope, c = (np.asarray(decode_lenient(record[k]), dtype=np.float64)
                       for k in ("upstream", "local", "contribution"))
        if c.shape != np.broadcast_shapes(g.shape, slope.shape):
            return False   # unbroadcast summed it: a sum may be 0 exactly
        made = (g != 0) & np.isfinite(g) & (slope != 0) & np.isfinite(slope)
        return bool(np.any((c == 0) & made))


# ---- marking it in a trace ----------------------------------------------------------------------

NOTE = " (underflow: not exact)"
"""What every later step that underflows says (the first says why in full)."""


def note(tracer, i: int, phase: str, seq: int, record: dict | None = None) -> None:
    """Mark node i's value (phase "forward") or adjoint ("backward", from its `accumulate`
    record) when it underflowed, as NaN and infinity are marked: the first one in
    `tracer.first_non_finite` ({node, phase, why, kind: "underflow", seq: the event's}, when
    nothing was marked before) with a warning at its node; and every adjoint that underflows,
    not only the first, with a note in its record's narration, which names the node: the
    first says why in full, each later one NOTE (issue 14 §4: x̄0's `+= 0.7864 · 4.941e-324
    = 4.941e-324` read as exact). One warning keeps the body's size bounded; the notes add
    len(NOTE) bytes a step (budget_numbers.UNDERFLOW_NOTE)."""
    node = tracer.program.nodes[i]
    if phase == "forward" and node.role != "op":
        return   # a number as typed (a = 1e-320) is the program's, not an underflow of it
    if phase == "forward":
        xs = [tracer.values[k] for k in node.inputs]
        if not forward(node.op if node.role == "op" else None, xs, tracer.values[i],
                       tracer.program.dtype):
            return
    elif not backward(record, tracer.program.dtype):
        return
    reason = why(tracer.program.dtype)
    first = tracer.first_non_finite is None
    if first:
        tracer.first_non_finite = {"node": tracer.ids[i], "phase": phase, "why": reason,
                                   "kind": "underflow", "seq": seq}
    if first:   # one warning, at the first node: every later step's note marks its own
        what = "its value" if phase == "forward" else f"its gradient {tracer.symbols[i]}"
        tracer.warnings.add(
            "underflow", f"{clip(node.label)} ({warn.where(node.span)}): {what} underflowed, "
            f"{reason.split(': ', 1)[1]}, so it and the numbers computed from it are not exact "
            "(a number this small keeps fewer digits, and one that rounds to 0 was not 0)",
            tracer.ids[i], span=node.span)
    if record is not None:
        record["narration"] += f" ({reason}: not exact)" if first else NOTE
