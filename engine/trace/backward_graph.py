"""The backward pass recorded as a program of its own (PyTorch's `create_graph=True`).

`backward_program(program, output)` returns a NEW engine.parse.Program (the IR the parser
makes) whose nodes compute the forward values AND the adjoints: the forward nodes are copied
(same indices), then for each op node in reverse creation order each vjp is written with
registry ops (engine/trace/vjp_rules.py: `x̄ += ȳ * y` for `*`, `(1 - t * t) * t̄` for tanh)
and the contributions to one input are added up into its adjoint node, labelled `ā` or
`∂L/∂(w1 * x)` (engine/trace/narrate.py `bar`). Tracing that program like any other steps the
backward pass as a forward computation; differentiating it again gives second derivatives
(engine/trace/hvp.py: Hessian-vector products, the Hessian).

An op whose vjp is not written with registry ops (gelu, indexing) is refused with
ProgramError "unsupported" at its node, naming the op.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.graph import requires_grad
from gradwalk.engine.labels import print_label
from gradwalk.engine.parse import IRNode, Program, Span
from gradwalk.engine.source import clip
from gradwalk.engine.trace import narrate
from gradwalk.engine.trace.shape_pass import infer_shapes, out_shape
from gradwalk.engine.trace.vjp_rules import RULES


@dataclass
class BackwardProgram:
    """program: the forward nodes (indices kept) followed by the adjoint nodes.
    grads: each leaf's name -> the node holding its gradient dL/dleaf.
    seed: the node holding the output's starting adjoint (L̄ = 1, ones, or output_grad).
    shapes: every node's shape (tuples).
    """

    program: Program
    grads: dict[str, int]
    seed: int
    shapes: list[tuple]
    builder: "Builder"   # to append more nodes (engine/trace/hvp.py appends v and s)


def backward_program(program: Program, output: str, output_grad=None,
                     max_elements: int = 1_000_000, builder: "Builder | None" = None,
                     deadline=None) -> BackwardProgram:
    """The program with its backward pass appended as nodes (see the module's docstring).

    output: the name whose adjoint is seeded; output_grad: the seed's value (None: 1, or ones
    of the output's shape); builder: a Builder of `program` made already (its shapes);
    deadline: engine/trace/deadline.py's, checked as the nodes are made. Raises ProgramError
    "unsupported" for an op with no rule in engine/trace/vjp_rules.py, at that op's span,
    "too_large" past the builder's max_nodes, and the shape errors of infer_shapes.
    """
    b = builder or Builder(program, max_elements)
    out = program.names[output]
    out_label = program.nodes[out].label
    seed_value = np.ones(b.shapes[out]) if output_grad is None else output_grad
    seed = b.const(seed_value, program.nodes[out].span, narrate.bar(out_label, out_label))
    contributions: dict[int, list[int]] = {out: [seed]}   # node -> its adjoint's parts
    requires = requires_grad(program)
    steps = range(len(program.nodes) - 1, -1, -1)
    for i in (deadline.paced(steps) if deadline is not None else steps):
        node = program.nodes[i]
        if node.role != "op" or i not in contributions or not requires[i]:
            continue
        g = b.total(i, contributions.pop(i), out_label)   # ī, all its parts are in
        rule = RULES.get(node.op)
        if rule is None:
            s = node.span
            raise ProgramError("unsupported", f"the second derivative of {node.op} is not "
                               f"available: its backward rule is not written as a graph "
                               f"(engine/trace/vjp_rules.py), so {node.label} cannot be "
                               f"differentiated twice", s.line, s.col, s.end_line, s.end_col,
                               hint="use reverse or forward mode for this program")
        for arg, j in enumerate(node.inputs):
            if not requires[j]:
                continue
            c = rule(b.at(node), arg, g)
            if c is not None:
                contributions.setdefault(j, []).append(b.sum_to(c, b.shapes[j], node.span))
    grads = {}
    for name, i in program.leaves.items():
        if i in contributions:
            grads[name] = b.total(i, contributions.pop(i), out_label)
        else:   # the output does not depend on this leaf: its gradient is zeros
            grads[name] = b.const(np.zeros(b.shapes[i]), program.nodes[i].span,
                                  narrate.bar(program.nodes[i].label, out_label))
    # checkpoint blocks are dropped (every value is kept); no_grad blocks stay: what they
    # made has no gradient in the backward graph either
    new = Program(list(b.nodes), dict(b.names), dict(program.leaves), program.last, [],
                  program.dtype, no_grad=list(program.no_grad))
    return BackwardProgram(new, grads, seed, list(b.shapes), b)


class Builder:
    """Appends IR nodes to a copy of a program's nodes, knowing every node's shape."""

    def __init__(self, program: Program, max_elements: int, max_nodes: int | None = None):
        self.nodes = [dataclasses.replace(n) for n in program.nodes]
        self.names = dict(program.names)
        self.dtype = np.dtype(program.dtype)
        self.max_elements = max_elements
        self.max_nodes = max_nodes
        self.shapes = [tuple(s) if s is not None else None
                       for s in infer_shapes(program, max_elements)]
        self.span = program.nodes[-1].span
        self.node: IRNode | None = None   # the forward node whose vjp is being written
        self.memo: dict = {}   # nodes a rule shares between its arguments (layer_norm's x̂)

    # ---- making nodes ------------------------------------------------------------------------
    def at(self, node: IRNode) -> "Builder":
        """This builder, writing the vjp of `node` (new nodes take its span)."""
        self.node, self.span = node, node.span
        return self

    def op(self, op: str, inputs: list[int], params: dict | None = None,
           label: str | None = None, span: Span | None = None) -> int:
        """A new op node over `inputs` (its label printed as the parser prints one, or
        `label`, which also names it); returns its index."""
        params = dict(params or {})
        ins = [self.nodes[k] for k in inputs]
        printed = label or print_label(op, ins, params) or op
        n = IRNode(len(self.nodes), op, "op", list(inputs), span or self.span, printed,
                   label, params)
        shape = out_shape(n, [self.shapes[k] for k in inputs])
        if shape is None or math.prod(shape) > self.max_elements:
            s = n.span
            raise ProgramError("too_large", f"the backward pass of {printed} is too big to "
                               f"record as a graph", s.line, s.col, s.end_line, s.end_col)
        self._append(n, tuple(shape))
        if label is not None:
            self.names[label] = n.index
        return n.index

    def const(self, value, span: Span | None = None, label: str | None = None) -> int:
        """A constant node (no gradient) holding `value` in the program's dtype."""
        literal = np.array(value, dtype=self.dtype)
        if label is None:   # (+ 0.0: a -0.0 constant reads 0)
            label = f"{float(literal) + 0.0:g}" if literal.ndim == 0 else \
                "ones(" + ", ".join(map(str, literal.shape)) + ")"
        n = IRNode(len(self.nodes), "const", "const", [], span or self.span, label, None, {},
                   literal)
        self._append(n, literal.shape)
        return n.index

    def _append(self, n: IRNode, shape: tuple) -> None:
        if self.max_nodes is not None and len(self.nodes) >= self.max_nodes:
            s = n.span
            raise ProgramError("too_large", f"the backward pass recorded as a graph makes more "
                               f"than {self.max_nodes:,} nodes (the limit, max_nodes), by "
                               f"{clip(n.label)}", s.line, s.col, s.end_line, s.end_col,
                               hint="use reverse or forward mode, or a shorter program")
        self.nodes.append(n)
        self.shapes.append(shape)

    def num(self, x: float) -> int:
        return self.const(x)

    # ---- helpers for the rules ---------------------------------------------------------------
    def x(self, arg: int) -> int:
        """The index of the current node's input `arg`."""
        return self.node.inputs[arg]

    @property
    def out(self) -> int:
        return self.node.index

    def keep(self, g: int, axis, keepdims: bool, x: int) -> int:
        """A reduction's upstream gradient `g` with the reduced axis put back with size 1, so
        it broadcasts against the input `x` (numpy's expand_dims)."""
        if axis is None or keepdims or not self.shapes[x]:
            return g
        shape = list(self.shapes[x])
        shape[axis] = 1
        return self.op("reshape", [g], {"shape": shape})

    def spread(self, g: int, axis, keepdims: bool, x: int) -> int:
        """`g` copied over the axis a reduction of `x` took away: x's shape."""
        kept = self.keep(g, axis, keepdims, x)
        if self.shapes[kept] == self.shapes[x]:
            return kept
        return self.op("mul", [self.const(np.ones(self.shapes[x])), kept])

    def sum_to(self, c: int, shape: tuple, span: Span) -> int:
        """A contribution summed back to an input's own shape (the unbroadcast step, written
        with sum and reshape): over the leading axes broadcasting added, then over the axes
        where the input has size 1."""
        have = self.shapes[c]
        if have == tuple(shape):
            return c
        if not shape:
            return self.op("sum", [c], span=span)
        for _ in range(len(have) - len(shape)):
            c = self.op("sum", [c], {"axis": 0}, span=span)
        for axis, size in enumerate(shape):
            if size == 1 and self.shapes[c][axis] != 1:
                c = self.op("sum", [c], {"axis": axis, "keepdims": True}, span=span)
        return c

    def total(self, i: int, parts: list[int], out_label: str) -> int:
        """Node i's adjoint: its contributions added up, the last sum labelled `ī` (a single
        contribution made for it is labelled itself; one shared with another node, such as
        the upstream gradient an add passes on, is that node)."""
        symbol = narrate.bar(self.nodes[i].label, out_label)
        if len(parts) == 1:
            only = self.nodes[parts[0]]
            if only.name is None and only.role == "op":
                only.label = only.name = symbol
                self.names[symbol] = only.index
            return parts[0]
        acc = parts[0]
        for k, part in enumerate(parts[1:], 2):
            acc = self.op("add", [acc, part], label=symbol if k == len(parts) else None,
                          span=self.nodes[i].span)
        return acc
