"""A float64 program of 0-d values compiled in one pass (issue 15 §1): what engine/tape.py's
`compile` asks of four passes over the nodes (graph.creation_order, shape_pass.infer_shapes,
graph.requires_grad, the Tape's constants as Python floats) worked out in one loop for the
commonest big program, a chain of scalar arithmetic (`x = x * 1.0001 + 0.001`, 25,000 lines).

Any node this loop does not take (a tensor literal, a non-elementwise op, an input made after
its consumer, a `with no_grad():` body) hands the whole program back to those passes, which
then answer, or refuse, exactly as before: tests/engine/test_tape_scalar.py compares them.
"""
from __future__ import annotations

import functools

from gradwalk.engine.ops import REGISTRY
from gradwalk.engine.parse import Program

@functools.cache
def _sets() -> tuple[frozenset, frozenset]:
    """(the elementwise ops, the ops whose result requires no grad), made on first use: the
    op modules import the engine (graph.requires_grad imports them the same way)."""
    from gradwalk.engine.ops.cut import CUTS
    from gradwalk.engine.ops.shape import NOT_DIFFERENTIABLE
    return (frozenset(n for n, op in REGISTRY.items() if op.elementwise),
            frozenset(NOT_DIFFERENTIABLE | CUTS))


def scalar_compile(program: Program) -> tuple | None:
    """(order, shapes, requires, base) of a float64 program whose every node is a 0-d literal
    or an elementwise op over earlier nodes: the creation order 0..n-1, every shape (), per
    node whether it requires grad (graph.requires_grad's rule: a leaf does, an op does when
    an input does, unless it is a comparison or a cut), and each literal as a Python float
    (one float per shared literal array, as Tape's constants). None for any other program."""
    if program.dtype != "float64" or program.no_grad:
        return None
    elementwise, skip = _sets()
    nodes = program.nodes
    n = len(nodes)
    requires, base = [False] * n, [None] * n
    floats: dict[int, float] = {}   # id of a shared 0-d literal -> its float, made once
    for i, node in enumerate(nodes):
        literal = node.literal
        if literal is not None:
            if literal.ndim or node.index != i:
                return None
            value = floats.get(id(literal))
            if value is None:
                value = floats[id(literal)] = float(literal)
            base[i] = value
            requires[i] = node.role == "leaf"
            continue
        op = node.op
        if node.role != "op" or op not in elementwise or node.index != i:
            return None
        graded = False
        for k in node.inputs:   # a loop, not any(generator): this runs once per node
            if k >= i:
                return None
            if requires[k]:
                graded = True
        requires[i] = graded and op not in skip
    return list(range(n)), [()] * n, requires, base
