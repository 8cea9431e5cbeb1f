"""A tape's first forward pass: every value computed with the checks, and what it costs.

The first pass over a freshly compiled tape (engine/tape.py) is the one the Tracer's events
show (engine/trace/tracer.py) and the one training starts from (engine/train/loop.py), so it is
the careful one: each op runs through engine/trace/forward.evaluate_op (operand checks, the
per-node element bound, float32 kept float32), the running totals of elements and FLOPs are
held to `Checks`, and the wall-clock deadline is looked at every 1,024 nodes. Later passes
trust what this one found and run the tape's plain loops or generated code.

Values keep the kinds the Tracer has always shown (its events, budgets and narration test
`type(v) is float`): in a float64 program a 0-d literal and a 0-d result of + - * / or
negation are Python floats (engine/trace/scalar.py); every other op's value is numpy's own
object, and its inputs reach it as numpy always gave them (`numpy_inputs`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.ops import get_op
from gradwalk.engine.trace import scalar
from gradwalk.engine.trace.deadline import NO_DEADLINE, Deadline
from gradwalk.engine.trace.forward import evaluate_op


@dataclass(frozen=True)
class Checks:
    """The bounds of a first pass (engine/trace/limits.Limits holds a trace's).

    max_total_elements: the sum of all values' sizes (elements; a 0-d value counts 1);
    max_flops: the forward pass's floating-point operations (FLOPs, each op row's `flops`);
    deadline: the wall-clock budget (engine/trace/deadline.py); saves: whether the rows
    whose op keeps tensors for its vjps (Row.saved) keep them (a pass whose backward is
    walked elsewhere, the Tracer's, needs none).
    Past a bound: ProgramError "too_large" at the node where the total crossed it.
    """

    max_total_elements: float = float("inf")
    max_flops: float = float("inf")
    deadline: Deadline = NO_DEADLINE
    saves: bool = True


def numpy_inputs(nodes, values: list, node) -> list:
    """A node's input values as the numpy path always had them: a 0-d literal as its 0-d
    array, a scalar result as a numpy float64 (numpy's `**` on a 0-d array may round
    differently from C's pow on a scalar, so the kind matters)."""
    xs = []
    for k in node.inputs:
        x = values[k]
        if type(x) is float:
            literal = nodes[k].literal
            x = np.asarray(x) if literal is not None else np.float64(x)
        xs.append(x)
    return xs


def first_pass(tape, values: list, checks: Checks) -> list[int]:
    """Fill `values` (literals and given leaves already in it) with every op node's value, in
    the tape's order; returns each node's forward FLOPs (0 for a leaf or const).

    Raises what evaluate_op raises (ProgramError "shape", "bad_argument", "too_large" at the
    node), "too_large" past `checks`' totals, "timeout" past its deadline."""
    program = tape.program
    nodes = program.nodes
    max_total, max_flops = checks.max_total_elements, checks.max_flops
    costs = [0] * len(nodes)
    elements = flops = 0
    fast = scalar.FORWARD if tape.scalar else {}
    row_at = None   # node index -> row, made when a node first saves for its vjps
    max_elements = tape.max_elements
    with np.errstate(all="ignore"):
        for i in checks.deadline.paced(tape.order):
            node = nodes[i]
            if node.literal is not None:
                v = values[i]
                elements += 1 if type(v) is float else np.size(v)
                continue
            out = None
            rule = fast.get(node.op)
            if rule is not None:   # on Python floats when every input is 0-d
                ins = node.inputs   # two, mostly: no comprehension's frame, no loop for them
                if len(ins) == 2:
                    xs = [values[ins[0]], values[ins[1]]]
                    floats = type(xs[0]) is float and type(xs[1]) is float
                else:
                    xs = [values[k] for k in ins]
                    floats = True
                    for x in xs:   # a loop, not all(generator): this runs once per node
                        if type(x) is not float:
                            floats = False
                            break
                if floats:
                    try:   # scalar.forward's rule, without its call
                        out = rule(*xs)
                    except ArithmeticError:   # x / 0: numpy answers
                        out = None
                elif all(np.ndim(x) == 0 for x in xs):
                    out = scalar.forward(node.op, [float(x) for x in xs])
            if out is None:
                xs = numpy_inputs(nodes, values, node)
                out = evaluate_op(node, xs, max_elements)
                op = get_op(node.op)
                if checks.saves and op.forward_saving is not None:
                    if row_at is None:
                        row_at = {row.index: row for row in tape.rows}
                    row = row_at[i]
                    if row.saved is not None:   # what the vjps keep, once
                        values[row.saved] = op.forward_saving(*xs, **node.params)[1]
                cost = 1 if type(out) is float else int(op.flops(out, *xs))
                elements += np.size(out)
            else:
                cost = 1   # the elementwise ops' FLOPs: one per output element
                elements += 1
            costs[i] = cost
            flops += cost
            values[i] = out
            if elements > max_total or flops > max_flops:
                s = node.span
                raise ProgramError(
                    "too_large", f"the program is too big to trace: by {node.label} its "
                    f"values hold {elements:,} elements and cost {flops:,} FLOPs (limits: "
                    f"max_total_elements {max_total:,}, max_flops {max_flops:,})",
                    s.line, s.col, s.end_line, s.end_col)
    return costs
