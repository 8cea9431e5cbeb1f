"""The forward pass: every node's value, in topological order.

Shapes are checked by the rules of engine/trace/shapes.py (the tracer runs them over the whole
program first; here they guard a single evaluation, as numeric.py's central differences do).
"""
from __future__ import annotations

import math

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.ops import get_op
from gradwalk.engine.ops.losses import check_targets
from gradwalk.engine.parse import IRNode
from gradwalk.engine.trace import shapes


def evaluate(node: IRNode, values: list, max_elements: int):
    """The value of one node, given the values of all earlier nodes.

    Raises ProgramError (kind "shape" or "bad_argument", at the node's span) when numpy rejects
    the operands, and "too_large" when the result holds more than max_elements elements.
    """
    if node.literal is not None:
        return node.literal
    return evaluate_op(node, [values[i] for i in node.inputs], max_elements)


def evaluate_op(node: IRNode, xs: list, max_elements: int):
    """The value of an op node from its input values `xs` (errors as in `evaluate`)."""
    op = get_op(node.op)
    _check_operands(node, xs)
    shape = shapes.known_shape(node, [np.shape(x) for x in xs])   # None: no rule for it
    if shape is not None:   # before numpy allocates
        _check_size(node, math.prod(shape), max_elements)
    try:
        out = op.forward(*xs, **node.params)
    except (ValueError, IndexError, TypeError) as e:
        raise _error(node, "shape", f"cannot compute {node.label}: {e}") from None
    except MemoryError:
        raise _error(node, "too_large", f"{node.label} does not fit in memory") from None
    _check_size(node, np.size(out), max_elements)
    shapes.refuse_empty(node, np.shape(out))   # an op no shape rule knew (engine/trace/shapes.py)
    return _keep_float32(out, xs)


def _keep_float32(out, xs: list):
    """A float32 program's value stays float32: an op fed only float32 inputs whose rule
    widened to float64 (a float64 constant inside it) is rounded back (float64 programs never
    pay more than the check)."""
    if getattr(out, "dtype", None) == np.float64 and xs and \
            all(getattr(x, "dtype", None) == np.float32 for x in xs):
        return out.astype(np.float32)
    return out


def _check_size(node: IRNode, size: int, max_elements: int) -> None:
    if size > max_elements:
        raise _error(node, "too_large", f"{node.label} would hold {size:,} elements; "
                     f"the limit (max_elements) is {max_elements:,}")


def _check_operands(node: IRNode, xs: list) -> None:
    """Catch what numpy would accept silently but the op does not mean (class indices, axes;
    the shapes are engine/trace/shapes.py's)."""
    if node.op == "cross_entropy":   # logits (C,) and an index, or (N, C) and N indices
        problem = check_targets(np.shape(xs[0]), node.params["target"])
        if problem:
            raise _error(node, *problem)
    axis = node.params.get("axis")
    # the axis is of the first operand; a masked row's (engine/ops/masked.py: ȳ, then the
    # op's input) of its last; stack's may also be the new last one (shapes.py checks it)
    x = xs[-1] if node.op.endswith(("max_vjp", "min_vjp")) else xs[0]
    if axis is not None and node.op != "stack" and not -np.ndim(x) <= axis < np.ndim(x):
        raise _error(node, "bad_argument", f"axis {axis} is out of range for shape "
                     f"{np.shape(x)}")


def _error(node: IRNode, kind: str, message: str) -> ProgramError:
    s = node.span
    return ProgramError(kind, message, s.line, s.col, s.end_line, s.end_col)
