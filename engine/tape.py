"""A program compiled once into a tape: forward and backward passes as plain functions over it.

Training runs the same graph thousands of times (issue 15, section 1). `compile(program)` does
what does not change between passes once: the nodes in creation order (topological: the parser
makes every input before its consumer), each node's shape (engine/trace/shape_pass.py, so a shape
error is refused here), which nodes need a gradient (engine/graph.requires_grad) and one row per
op node with its registered rules (engine/ops). A shape no rule or probe can work out before
the values exist (engine/trace/shape_pass.py leaves it None) is read off the first pass.
`Tape.forward(leaves)` and `Tape.backward(values)` are then loops over those rows: no parsing,
no events, no narration.

The Tracer (engine/trace/tracer.py) is built on this tape: its forward values are the tape's
first pass (engine/tape_first.py: every op through `evaluate_op`, within the trace's totals and
deadline), and its event walk reads the tape's order, shapes and `requires`. Later passes use
the same op rows, the vjp rules applied to the upstream gradient and summed back with
`unbroadcast`, and `+=` where a value is used twice. As the Tracer's scalar path
(engine/trace/scalar.py), a float64 program's 0-d + - * / and negation run on Python floats;
since the shapes are known here, which rows take that path is decided once, at compile time.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gradwalk.engine import tape_code
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.graph import creation_order, requires_grad
from gradwalk.engine.ops import get_op
from gradwalk.engine.ops.broadcast import unbroadcast
from gradwalk.engine.parse import Program
from gradwalk.engine.source import clip
from gradwalk.engine.tape_first import Checks, first_pass
from gradwalk.engine.tape_scalar import scalar_compile
from gradwalk.engine.trace.limits import Limits
from gradwalk.engine.trace.scalar import FORWARD as SCALAR_FORWARD
from gradwalk.engine.trace.shape_pass import infer_shapes

MAX_ELEMENTS = Limits.max_elements   # the Tracer's default per-node bound
PLAIN = Checks()   # a first pass without totals or deadline (training's)


@dataclass(slots=True)
class Row:
    """One op node of the tape: its index, op row (engine/ops/registry.Op), input indices,
    parameters, and how it runs: `scalar` when its value and inputs are float64 0-d (Python
    floats); `numpy_in`: input positions whose Python float must reach numpy as np.float64
    (the Tracer's `_inputs`), so numpy's rules see the kind they always saw."""

    index: int
    op: object
    inputs: tuple[int, ...]
    params: dict
    scalar: bool
    numpy_in: tuple[int, ...]
    floats: bool   # float64 and 0-d, its inputs too: every value a Python float
    grad_args: tuple[tuple[int, int], ...]   # (argument position, input index) needing a grad
    # where the forward keeps what the vjps need (the op's forward_saving), past the nodes'
    # values; None for an op without it
    saved: int | None = None


class Tape:
    """A compiled program (build with `compile`).

    program: the parsed Program; output: the index of the differentiated node; shapes: each
    node's shape (tuple); requires: per node, whether it gets a gradient; rows: the op nodes
    in creation order (Row); leaves: leaf name -> node index (the program's parameters).
    A pass's values list holds every node's value, then the saved tensors of the rows whose
    op keeps some for its vjps (Row.saved), as PyTorch keeps them on its graph.
    """

    def __init__(self, program: Program, output: int, shapes: list, requires: list[bool],
                 order: list[int], max_elements: int = MAX_ELEMENTS, base: list | None = None):
        self.program = program
        self.output = output
        self.shapes = shapes
        self.requires = requires
        self.order = order   # the nodes, inputs before consumers (creation order from the parser)
        self.max_elements = max_elements
        self._rows: list[Row] | None = None   # made on first use (`rows`): a trace needs none
        self.leaves = dict(program.leaves)
        self.scalar = program.dtype == "float64"
        self.base_dtype = np.float64 if self.scalar else np.float32
        self.checked = False   # the first forward pass runs evaluate_op's checks
        self.flops: list[int] | None = None   # each node's forward FLOPs, from the first pass
        # the passes as straight-line code (engine/tape_code.py), made when a second pass
        # first needs them (a trace makes one pass only); None for a huge tape
        self._code: tuple | None = None
        # values that never change (consts, and leaves not given): made once (or given, by
        # engine/tape_scalar.py's one pass)
        if base is not None:
            self.base = base
            return
        self.base: list = [None] * len(program.nodes)
        scalar = self.scalar
        floats: dict[int, float] = {}   # id of a shared 0-d literal -> its float, made once
        for n in program.nodes:
            literal = n.literal   # an ndarray (engine/parse.py), shared by equal constants
            if literal is not None:
                if scalar and literal.ndim == 0:
                    value = floats.get(id(literal))
                    if value is None:
                        value = floats[id(literal)] = float(literal)
                    self.base[n.index] = value
                else:
                    self.base[n.index] = literal

    @property
    def rows(self) -> list[Row]:
        """The op nodes' rows in order (Row), made on first use: the Tracer's one pass reads
        the nodes themselves, and a row per op node is a few hundred bytes a node."""
        if self._rows is None:
            self._make_rows()
        return self._rows

    def _make_rows(self) -> None:
        self._rows = _rows(self.program, self.shapes, self.requires, self.order)
        self._slots = [None] * sum(r.saved is not None for r in self._rows)

    def _saved_slots(self) -> list:
        """A pass's slots for the saved tensors past the nodes' values (Row.saved): Nones."""
        if self._rows is None:
            self._make_rows()
        return self._slots

    def _generated(self) -> tuple:
        if self._code is None:
            self._code = tape_code.generate(self)
        return self._code

    def _literal(self, value):
        value = np.asarray(value)
        return float(value) if value.ndim == 0 and self.scalar else value

    # ---- forward ---------------------------------------------------------------------------
    def forward(self, leaves: dict | None = None, checks: Checks | None = None) -> list:
        """Every node's value (a list indexed by node, then the rows' saved tensors), the
        leaves named in `leaves` (name -> array of the leaf's shape) taking those values, every
        other leaf its literal.

        The first pass, and any pass given `checks`, is the checked one (engine/tape_first.py:
        `self.flops` is set, shapes left unknown at compile time are filled in); later
        passes run the plain loops or the generated code. A float64 program's 0-d values are
        Python floats (the first pass keeps numpy's own 0-d results of ops other than + - *
        / and negation, as the Tracer always showed them). Raises ProgramError "bad_argument"
        for an unknown leaf name or a value of the wrong shape, and what the first pass finds
        (targets, sizes, `checks`' totals and deadline)."""
        first = checks is not None or not self.checked
        checks = checks or PLAIN
        values = list(self.base)
        if not first or checks.saves:   # slots for the saved tensors, past the nodes
            values += self._saved_slots()
        if leaves:
            self._set_leaves(values, leaves)
        if first:
            self.flops = first_pass(self, values, checks)
            if not self.checked:
                self._learn_shapes(values)
            self.checked = True
            return values
        forward_code = self._generated()[0]
        with np.errstate(all="ignore"):
            if forward_code is not None:
                try:
                    forward_code(values)
                    return values
                except ArithmeticError:   # x / 0 on floats: the loop answers as numpy
                    pass
            for row in self.rows:
                values[row.index] = self._run(row, values)
        return values

    def _learn_shapes(self, values: list) -> None:
        """Shapes the compile could not work out (an op with no rule whose inputs are too big
        to probe: engine/trace/shape_pass.py) read off the first pass, and the rows made
        again with them (a 0-d row may run on floats)."""
        if None not in self.shapes:
            return
        self.shapes = [np.shape(values[i]) if s is None else s
                       for i, s in enumerate(self.shapes)]
        self._rows = None   # made again from the shapes now known

    def _set_leaves(self, values: list, leaves: dict) -> None:
        dtype, shapes, where = self.base_dtype, self.shapes, self.leaves
        kind = np.dtype(dtype)
        for name, value in leaves.items():
            i = where.get(name)
            if i is None:
                raise ProgramError("bad_argument", f"the program has no leaf `{clip(name)}`")
            if type(value) is float and self.scalar and shapes[i] == ():
                values[i] = value   # the common case of a scalar program: as it is
                continue
            if type(value) is np.ndarray and value.dtype is kind and value.ndim and \
                    value.shape == shapes[i]:
                values[i] = value   # a training step's parameter: what asarray would give
                continue
            value = np.asarray(value, dtype=dtype)
            if value.shape != shapes[i]:
                raise ProgramError("bad_argument", f"leaf `{clip(name)}` has shape "
                                   f"{shapes[i]}; a value of shape {value.shape} was given")
            values[i] = self._literal(value)

    def _run(self, row: Row, values: list):
        xs = [values[k] for k in row.inputs]
        if row.scalar:
            try:
                return SCALAR_FORWARD[row.op.name](*xs)
            except ArithmeticError:   # x / 0: numpy answers inf or nan, as the Tracer does
                return float(row.op.forward(*map(np.float64, xs)))
        for a in row.numpy_in:
            xs[a] = np.float64(xs[a])
        if row.saved is None:
            out = row.op.forward(*xs, **row.params)
        else:
            out, values[row.saved] = row.op.forward_saving(*xs, **row.params)
        return float(out) if self.scalar and not self.shapes[row.index] else out

    # ---- backward --------------------------------------------------------------------------
    def backward(self, values: list, seed=None) -> dict[str, np.ndarray | float]:
        """Leaf name -> d output / d leaf (the leaf's shape; zeros where the output does not
        depend on it; a Python float for a 0-d leaf of a float64 program), by reverse mode
        over `values` (from `forward`). seed: the output's starting adjoint (None: 1, or ones
        of the output's shape)."""
        adjoints = self.adjoints(values, seed)
        grads = {}
        for name, i in self.leaves.items():
            g = adjoints[i]
            if g is None:
                g = 0.0 if self.scalar and not self.shapes[i] else \
                    np.zeros(self.shapes[i], dtype=self.base_dtype)
            grads[name] = g
        return grads

    def adjoints(self, values: list, seed=None) -> list:
        """Every node's adjoint (None where nothing flowed back), as `backward` computes them:
        each row's vjp rules applied to its adjoint, summed back to the input's shape
        (unbroadcast) and added to the input's adjoint (x̄ += ...)."""
        adj: list = [None] * len(values)
        out = values[self.output]
        first = (1.0 if type(out) is float else np.ones_like(out)) if seed is None \
            else self._literal(seed)
        adj[self.output] = first
        backward_code = self._generated()[1]
        with np.errstate(all="ignore"):
            if backward_code is not None:
                try:
                    backward_code(values, adj)
                    return adj
                except ArithmeticError:   # a division by 0 on floats: the loop, as numpy
                    adj = [None] * len(values)
                    adj[self.output] = first
            for row in reversed(self.rows):
                g = adj[row.index]
                if g is None or not row.grad_args:
                    continue
                xs = [values[k] for k in row.inputs]
                o = values[row.index]
                saved = None if row.saved is None else values[row.saved]
                for arg, j in row.grad_args:
                    c = self._contribution(row, arg, g, o, xs, saved)
                    before = adj[j]
                    adj[j] = c if before is None else before + c
        return adj

    def _contribution(self, row: Row, arg: int, g, out, xs: list, saved=None):
        """One edge's contribution to input `arg`'s adjoint, summed to its shape; saved: the
        row's saved tensor (Row.saved), which its op's vjp_saved rule takes instead."""
        vjp = row.op.vjp[arg]
        if row.scalar:
            try:
                return vjp(g, out, *xs)
            except ArithmeticError:   # a division by 0: numpy's inf or nan
                return float(vjp(np.float64(g), np.float64(out), *map(np.float64, xs)))
        if type(out) is float:   # a 0-d value of a numpy rule (tanh, exp, sum, ...)
            out = np.float64(out)
        if type(g) is float:
            g = np.float64(g)
        if row.numpy_in:
            xs = list(xs)
            for a in row.numpy_in:
                xs[a] = np.float64(xs[a])
        shape = self.shapes[row.inputs[arg]]
        local = vjp(g, out, *xs, **row.params) if saved is None else \
            row.op.vjp_saved[arg](g, saved)
        c = unbroadcast(local, shape)[0]
        return float(c) if self.scalar and not shape else c


def compile(program: Program, output: str | None = None,
            max_elements: int = MAX_ELEMENTS) -> Tape:
    """The tape of `program`, differentiating `output` (default: the last assigned name);
    max_elements: the most elements one node may hold.

    Raises ProgramError "unknown_output" for a name the program lacks, "bad_argument" for a
    hand-built Program whose nodes are not in creation order, "shape" (at the node's span) for
    operands that do not fit, "too_large" for a node over `max_elements` elements.
    """
    name = program.last if output is None else output
    if name not in program.names:
        raise ProgramError("unknown_output", f"the program has no name `{clip(name)}` to "
                           "differentiate")
    fused = scalar_compile(program)   # a chain of scalar arithmetic: the passes in one
    if fused is not None:
        order, shapes, requires, base = fused
        return Tape(program, program.names[name], shapes, requires, order, max_elements, base)
    order = creation_order(program)
    if order is None:   # the parser never makes this; a hand-built Program might
        raise ProgramError("bad_argument", "the program's nodes are not in creation order "
                           "(every input made before its consumer)")
    shapes = infer_shapes(program, max_elements)   # every shape before any value
    return Tape(program, program.names[name], shapes, requires_grad(program), order,
                max_elements)


def _rows(program: Program, shapes: list, requires: list[bool], order: list[int]) -> list[Row]:
    """One Row per op node, in `order`; a node of unknown shape (None) runs on numpy."""
    scalar = program.dtype == "float64"
    nodes, rows = program.nodes, []
    saved = len(nodes)   # the next free slot past the nodes' values
    for i in order:
        n = nodes[i]
        if n.role != "op":
            continue
        ins = tuple(n.inputs)
        all_scalar = scalar and shapes[i] == () and all(shapes[k] == () for k in ins)
        fast = all_scalar and n.op in SCALAR_FORWARD and not n.params
        numpy_in = () if fast or not scalar else \
            tuple(a for a, k in enumerate(ins) if shapes[k] == ())
        grads = tuple((a, k) for a, k in enumerate(ins) if requires[k]) if requires[i] else ()
        op = get_op(n.op)
        keeps = op.forward_saving is not None and not fast
        rows.append(Row(i, op, ins, n.params, fast, numpy_in, all_scalar, grads,
                        saved if keeps else None))
        saved += keeps
    return rows
