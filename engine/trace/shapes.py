"""Shape rules: an op node's shape from its inputs' shapes, before any value is computed.

The shape pass (engine/trace/shape_pass.py) runs them over the IR first, so a shape mismatch in
`@`, broadcasting, reshape, transpose, concat, stack, where or indexing is reported, naming
both shapes, the op, and the node's line and column, before any forward value exists; a
node over max_elements is refused before numpy allocates it (ProgramError "too_large"), and
a node with no elements (an empty slice) is refused as "shape" (refuse_empty).

Rules: the ops in RULES by name; any other elementwise op broadcasts its inputs; any other op
has no rule here (known_shape gives None) and the shape pass probes it. This module computes no
value: engine/trace/forward.py checks each evaluation with these rules, so it must not import
forward.py (the probe, which evaluates, lives in shape_pass.py).
"""
from __future__ import annotations

import math

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.ops import get_op
from gradwalk.engine.ops.shape import key
from gradwalk.engine.parse import IRNode, Program
from gradwalk.engine.wording import counted

Shape = tuple


def known_shape(n: IRNode, ins: list[Shape]) -> Shape | None:
    """The shape op node `n` makes from input shapes `ins` by a rule (RULES, or broadcasting
    for an elementwise op), None for an op without one; errors as in shape_pass.infer_shapes. Used by
    engine/trace/forward.py before it computes a value."""
    if n.op in RULES:
        return RULES[n.op](n, *ins, **n.params)
    if get_op(n.op).elementwise:
        return broadcast(n, *ins) if len(ins) > 1 else ins[0]
    return None


def refuse_empty(n: IRNode, shape: Shape) -> None:
    """Raise ProgramError "shape" when op node `n` would make a value with no elements
    (`x[0:0]`, `x[-1:-3]`): every value has 1 or more elements, as the leaf helpers require,
    so no op (a mean, mse, var, softmax) ever divides by a zero size or reduces nothing."""
    if 0 in shape:
        raise error(n, "shape", f"{n.label} would have shape {shape}, with no elements; "
                    f"every value needs 1 or more elements (check the slice's bounds)"
                    if n.op == "index" else f"{n.label} would have shape {shape}, with no "
                    "elements; every value needs 1 or more elements")


def error(n: IRNode, kind: str, message: str) -> ProgramError:
    s = n.span
    return ProgramError(kind, message, s.line, s.col, s.end_line, s.end_col)


def _what(n: IRNode) -> str:
    """The op as the message names it: `@`, `+`, `reshape`."""
    op = get_op(n.op)
    return f"`{op.symbol}`" if op.symbol else n.op


def broadcast(n: IRNode, *shapes: Shape) -> Shape:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        listed = ", ".join(map(str, shapes[:-1])) + f" and {shapes[-1]}"
        raise error(n, "shape", f"{n.label}: shapes {listed} cannot be broadcast together for "
                    f"{_what(n)} (each axis, from the right, must be equal or 1)") from None


def _matmul(n: IRNode, x: Shape, w: Shape) -> Shape:
    if not x or not w:
        raise error(n, "shape", f"{n.label}: @ needs tensors, not scalars (shapes {x} and "
                    f"{w}); use * for scalars")
    inner = w[0] if len(w) == 1 else w[-2]
    if x[-1] != inner:
        raise error(n, "shape", f"{n.label}: shapes {x} and {w} do not line up for @: the left "
                    f"has {counted(x[-1], 'column')}, the right {counted(inner, 'row')}")
    try:
        batch = tuple(np.broadcast_shapes(x[:-2], w[:-2]))
    except ValueError:
        raise error(n, "shape", f"{n.label}: the batch shapes {x[:-2]} and {w[:-2]} of {x} @ "
                    f"{w} cannot be broadcast together") from None
    return batch + x[-2:-1] + w[-1:] if len(w) > 1 else batch + x[-2:-1]


def _transpose(n: IRNode, x: Shape, axes=None) -> Shape:
    if axes is None:
        return x[::-1]
    if len(axes) != len(x):
        raise error(n, "shape", f"{n.label}: transpose's axes {tuple(axes)} do not fit shape "
                    f"{x} ({counted(len(x), 'axis', 'axes')})")
    return tuple(x[a] for a in axes)


def _reshape(n: IRNode, x: Shape, shape) -> Shape:
    size, known = math.prod(x), math.prod(s for s in shape if s != -1)
    if -1 in shape:
        if known == 0 or size % known:
            raise error(n, "shape", f"{n.label}: reshape cannot fit shape {x} ({counted(size, 'element')}) "
                        f"into {tuple(shape)}")
        return tuple(size // known if s == -1 else s for s in shape)
    if known != size:
        raise error(n, "shape", f"{n.label}: reshape cannot turn shape {x} ({counted(size, 'element')}) "
                    f"into {tuple(shape)} ({counted(known, 'element')})")
    return tuple(shape)


def _index(n: IRNode, x: Shape, index) -> Shape:
    if len(index) > len(x):
        raise error(n, "shape", f"{n.label}: {counted(len(index), 'index', 'indices')} for shape "
                    f"{x}, which has {counted(len(x), 'axis', 'axes')}")
    for axis, (k, size) in enumerate(zip(index, x)):
        if not isinstance(k, list) and not -size <= k < size:
            raise error(n, "shape", f"{n.label}: index {k} is out of range for axis {axis} of "
                        f"shape {x} (size {size})")
    stand_in = np.broadcast_to(np.zeros((), dtype=np.int8), x)   # no memory: strides 0
    return stand_in[key(index)].shape


def _axis(n: IRNode, axis: int, ndim: int, what: str) -> int:
    if not -ndim <= axis < ndim:
        raise error(n, "bad_argument", f"{n.label}: axis {axis} is out of range for {what}")
    return axis % ndim


def _concat(n: IRNode, *shapes: Shape, axis: int = 0) -> Shape:
    first = shapes[0]
    if not first:
        raise error(n, "shape", f"{n.label}: concat needs tensors of 1 or more axes, got a "
                    "scalar; use stack for scalars")
    ax = _axis(n, axis, len(first), f"shape {first}")
    for s in shapes[1:]:
        if len(s) != len(first) or s[:ax] + s[ax + 1:] != first[:ax] + first[ax + 1:]:
            raise error(n, "shape", f"{n.label}: concat along axis {axis} needs the same sizes "
                        f"on every other axis, got shapes {first} and {s}")
    return first[:ax] + (sum(s[ax] for s in shapes),) + first[ax + 1:]


def _stack(n: IRNode, *shapes: Shape, axis: int = 0) -> Shape:
    first = shapes[0]
    for s in shapes[1:]:
        if s != first:
            raise error(n, "shape", f"{n.label}: stack needs tensors of one shape, got shapes "
                        f"{first} and {s}")
    ax = _axis(n, axis, len(first) + 1, f"stacking shape {first} (0 to {len(first)})")
    return first[:ax] + (len(shapes),) + first[ax:]


def _reduce(n: IRNode, x: Shape, axis=None, keepdims: bool = False, **_) -> Shape:
    if axis is None:
        return tuple(1 for _ in x) if keepdims else ()
    ax = _axis(n, axis, len(x), f"shape {x}")
    return x[:ax] + ((1,) if keepdims else ()) + x[ax + 1:]


def _var(n: IRNode, x: Shape, axis=None, keepdims: bool = False, correction=1) -> Shape:
    """var's shape; refuses n - correction <= 0 (ProgramError "bad_argument"), where the
    variance divides by zero or a negative count (PyTorch gives inf or NaN; gradwalk refuses)."""
    out = _reduce(n, x, axis, keepdims)
    count = math.prod(x) if axis is None else x[axis % len(x)]
    if count - correction <= 0:
        raise error(n, "bad_argument", f"{n.label}: var over {count} element"
                    f"{'s' if count != 1 else ''} with correction={correction} divides by "
                    f"n - correction = {count - correction}; give a correction below {count} "
                    "(correction=0 is the population variance)")
    return out


def _along(n: IRNode, x: Shape, axis: int = -1, **_) -> Shape:
    """softmax and log_softmax: the input's shape, normalized along an axis it has."""
    if x:
        _axis(n, axis, len(x), f"shape {x}")
    return x


RULES = {
    "matmul": _matmul, "transpose": _transpose, "reshape": _reshape, "index": _index,
    "concat": _concat, "stack": _stack, "where": broadcast,
    "sum": _reduce, "mean": _reduce, "var": _var, "max": _reduce, "min": _reduce,
    "softmax": _along, "log_softmax": _along,
    # the backward graph's masked rows (engine/ops/masked.py): (ȳ, *the op's inputs)
    "max_vjp": lambda n, g, x, **_: x, "min_vjp": lambda n, g, x, **_: x,
    "where_vjp1": broadcast, "where_vjp2": broadcast,
}
