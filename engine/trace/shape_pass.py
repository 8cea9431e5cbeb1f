"""Shape inference: every node's shape from the literals' shapes, before any value is computed.

The tracer runs this pass over the IR first (engine/trace/tracer.py), so a shape mismatch in
`@`, broadcasting, reshape, transpose, concat, stack, where or indexing is reported, naming
both shapes, the op, and the node's line and column, before any forward value exists; a
node over max_elements is refused before numpy allocates it (ProgramError "too_large"), and
a node with no elements (an empty slice) is refused as "shape" (shapes.refuse_empty).

An op with a rule (engine/trace/shapes.py) gets its shape from it; any other op (a new
reduction, say) is run on zeros of its input shapes when they hold at most PROBE_ELEMENTS
elements (its shape, not its values, is what is learnt), else its shape is left unknown (None)
and it, and what depends on it, is checked when evaluated (engine/trace/forward.py), still
before the first event.
"""
from __future__ import annotations

import math

import numpy as np

from gradwalk.engine.ops import REGISTRY
from gradwalk.engine.parse import IRNode, Program
from gradwalk.engine.trace.forward import evaluate_op
from gradwalk.engine.trace.shapes import Shape, error, known_shape, refuse_empty

PROBE_ELEMENTS = 65_536


def infer_shapes(program: Program, max_elements: int) -> list[Shape | None]:
    """Each node's shape (None where no rule knows it). Raises ProgramError "shape" or
    "bad_argument" at the node's span, or "too_large" for a node over max_elements."""
    elementwise = {name for name, op in REGISTRY.items() if op.elementwise}
    shapes: list[Shape | None] = [None] * len(program.nodes)
    for n in program.nodes:
        literal = n.literal
        if literal is not None:
            shapes[n.index] = literal.shape
            continue
        k = n.inputs   # two, mostly: their shapes without a comprehension's frame
        ins = [shapes[k[0]], shapes[k[1]]] if len(k) == 2 else [shapes[j] for j in k]
        if n.op in elementwise and ins.count(()) == len(ins):
            shapes[n.index] = ()   # a scalar chain: the common case, at no cost
            continue
        if None in ins:
            continue
        out = out_shape(n, ins)
        if out is not None:
            refuse_empty(n, out)
        if out is not None and math.prod(out) > max_elements:
            raise error(n, "too_large", f"{n.label} would hold {math.prod(out):,} elements "
                        f"(shape {out}); the limit (max_elements) is {max_elements:,}")
        shapes[n.index] = out
    return shapes


def out_shape(n: IRNode, ins: list[Shape]) -> Shape | None:
    """The shape of op node `n` given its input shapes: by a rule, else by a probe on zeros
    (None when the inputs are too big to try); errors as in infer_shapes."""
    shape = known_shape(n, ins)
    return _probe(n, ins) if shape is None else shape


def _probe(n: IRNode, ins: list[Shape]) -> Shape | None:
    """The shape an op makes from zeros of its input shapes (through evaluate_op, so its
    checks and messages are the evaluation's); None when they are too big to try."""
    if sum(math.prod(s) for s in ins) > PROBE_ELEMENTS:
        return None
    with np.errstate(all="ignore"):
        return np.shape(evaluate_op(n, [np.zeros(s) for s in ins], PROBE_ELEMENTS * 16))
