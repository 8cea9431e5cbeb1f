"""A tape's forward and backward passes as straight-line Python, generated once per tape.

A loop over rows pays, per node, for a call, a lookup of the row's rule and a type test; a
scalar program of a few hundred nodes (seed 003's XOR written with scalars) spends most of its
time there. Written out as one function whose lines are the rows (`v[7] = v[3] * v[5]`), the
interpreter runs the same arithmetic at a fraction of the cost, as the fastest pure-Python tapes
do. The text is made from node indices and the names below only, never from the program's text,
so nothing a user writes is ever compiled.

What each line computes is what engine/tape.py's loops compute:
- a float64 scalar row of + - * / or negation (engine/trace/scalar.py's FORWARD) is Python
  arithmetic on floats; its backward edges call the op row's own vjp rules on floats;
- a scalar relu is `max` written for floats, equal to numpy's np.maximum(x, 0.0) and the row's
  np.where(out <= 0, 0.0, g) at every float (0, -0, ±inf, NaN: tests/engine/test_tape.py);
- a float64 scalar row of another elementwise op (tanh, exp, log, ** ...) calls the op row's
  forward and vjp rules on np.float64 numbers, as the Tracer does, and keeps a float;
- an array row of plain rules calls its vjp directly, and unbroadcast only where the shapes
  known at compile time say a sum may be needed (`_exact`);
- every other row calls the tape's own row function (numpy, unbroadcast).
A ZeroDivisionError (Python refuses x / 0 where numpy answers inf or nan) sends the whole pass
to the tape's loops, which answer as numpy does.
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.ops.broadcast import unbroadcast

MAX_ROWS = 20_000   # above this, compiling the text would cost more than the loops save
_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


def relu(x: float) -> float:
    """np.maximum(x, 0.0) on a float: x above 0, NaN kept, else +0.0 (also for -0.0)."""
    return x if x > 0.0 or x != x else 0.0


def relu_vjp(g: float, out: float) -> float:
    """np.where(out <= 0, 0.0, g) on floats (NaN out passes g, as the comparison is false)."""
    return 0.0 if out <= 0.0 else g


def generate(tape) -> tuple:
    """(forward(v), backward(v, a)) for `tape`, or (None, None) when it has too many rows.
    forward fills the list v (leaves and consts already in it); backward fills the list a
    (the seed already at the output) with every reached node's adjoint."""
    if len(tape.rows) > MAX_ROWS:
        return None, None
    env = {"R": tape.rows, "run": tape._run, "contrib": tape._contribution, "relu": relu,
           "relu_vjp": relu_vjp, "f64": np.float64, "ub": unbroadcast}
    forward = ["def forward(v):"]
    for k, row in enumerate(tape.rows):
        forward.append(f"    v[{row.index}] = {_forward_line(k, row, env, tape)}")
    backward = ["def backward(v, a):"] + _backward_lines(tape, env) + ["    return None"]
    code = "\n".join(forward + ["    return None"] + backward)
    exec(compile(code, "<tape>", "exec"), env)   # noqa: S102 - text of indices only (above)
    return env["forward"], env["backward"]


def _plain(tape, row) -> bool:
    """Whether the row's rules can be called as they are: an array value (not a float64
    program's 0-d one, which the tape turns into a float), no numpy conversions of its inputs,
    no parameters and nothing saved."""
    return bool(tape.shapes[row.index]) and not row.numpy_in and not row.params \
        and row.saved is None and not row.scalar


def _forward_line(k: int, row, env: dict, tape) -> str:
    ins = [f"v[{i}]" for i in row.inputs]
    if row.scalar and row.op.name in _INFIX:
        return f" {_INFIX[row.op.name]} ".join(ins)
    if row.scalar and row.op.name == "neg":
        return f"-{ins[0]}"
    if row.op.name == "relu" and row.floats:
        return f"relu({ins[0]})"
    if row.floats and row.op.elementwise and not row.params:   # tanh, exp, log, ** ...
        env[f"F{k}"] = row.op.forward   # on np.float64, as the Tracer calls it
        return f"float(F{k}({', '.join(f'f64({x})' for x in ins)}))"
    if _plain(tape, row):   # an array row: its op's own rule, with no per-row checks
        env[f"F{k}"] = row.op.forward
        return f"F{k}({', '.join(ins)})"
    if row.saved is not None and not row.numpy_in and tape.shapes[row.index] == () and \
            tape.scalar and all(tape.shapes[x] for x in row.inputs):
        # a loss that keeps its gradient (cross_entropy): the value and the saved tensor
        # from the row's own rule, as the tape's _run makes them, without its checks
        env[f"FS{k}"], env[f"P{k}"] = row.op.forward_saving, row.params
        return f"FS{k}({', '.join(ins)}, **P{k})\n    v[{row.index}], v[{row.saved}] = " \
               f"float(v[{row.index}][0]), v[{row.index}][1]"
    return f"run(R[{k}], v)"


def _backward_lines(tape, env: dict) -> list[str]:
    """The rows in reverse, each edge `a[j] = c` on its first contribution and `a[j] = a[j] +
    c` after (out of place: a contribution may be the consumer's own adjoint object)."""
    reached = {tape.output}
    lines = []
    for k in range(len(tape.rows) - 1, -1, -1):
        row = tape.rows[k]
        if row.index not in reached or not row.grad_args:
            continue
        i = row.index
        lines.append(f"    g = a[{i}]")
        for arg, j in row.grad_args:
            c = _edge(k, row, arg, env, tape)
            lines.append(f"    a[{j}] = a[{j}] + {c}" if j in reached else f"    a[{j}] = {c}")
            reached.add(j)
    return lines


def _edge(k: int, row, arg: int, env: dict, tape) -> str:
    """The expression of one edge's contribution."""
    i, ins = row.index, ", ".join(f"v[{x}]" for x in row.inputs)
    if row.scalar:   # the op row's own vjp rule, on floats
        name = f"V{k}_{arg}"
        env[name] = row.op.vjp[arg]
        return f"{name}(g, v[{i}], {ins})"
    if row.op.name == "relu" and row.floats:
        return f"relu_vjp(g, v[{i}])"
    if row.floats and row.op.elementwise and not row.params:   # 0-d: no unbroadcast
        name = f"V{k}_{arg}"
        env[name] = row.op.vjp[arg]
        args = ", ".join(f"f64({x})" for x in ("g", f"v[{i}]", *(f"v[{x}]" for x in row.inputs)))
        return f"float({name}({args}))"
    shape = tape.shapes[row.inputs[arg]]
    if _plain(tape, row) and (shape or not tape.scalar):   # summed back to its input's shape
        name = f"V{k}_{arg}"
        env[name] = row.op.vjp[arg]
        if _matrices(tape, row):   # linalg's _vjp_x / _vjp_w on two matrices, written out
            env["mm"] = np.matmul
            x, w = (f"v[{k}]" for k in row.inputs)
            return f"mm(g, {w}.T)" if arg == 0 else f"mm({x}.T, g)"
        if _exact(tape, row, shape):   # unbroadcast would hand it back as it is
            return f"{name}(g, v[{i}], {ins})"
        summed = _summed(tape, row, shape)
        if summed is not None:   # unbroadcast's sum, its axes worked out once
            axes, keep = summed
            env[f"A{k}_{arg}"], env["reduce"] = axes, np.add.reduce
            total = f"reduce({name}(g, v[{i}], {ins}), axis=A{k}_{arg})"
            if not keep:
                return total
            env[f"S{k}_{arg}"] = shape
            return f"reduce({name}(g, v[{i}], {ins}), axis=A{k}_{arg}, keepdims=True)" \
                f".reshape(S{k}_{arg})"
        env[f"S{k}_{arg}"] = shape
        return f"ub({name}(g, v[{i}], {ins}), S{k}_{arg})[0]"
    if _saved_loss(tape, row):   # cross_entropy's saved gradient, scaled by ȳ (a float)
        name = f"VS{k}_{arg}"
        env[name] = row.op.vjp_saved[arg]
        return f"{name}(g, v[{row.saved}])"
    saved = "" if row.saved is None else f", v[{row.saved}]"   # the forward's saved tensor
    return f"contrib(R[{k}], {arg}, g, v[{i}], [{ins}]{saved})"


def _summed(tape, row, shape: tuple) -> tuple | None:
    """unbroadcast's axes for an elementwise row's edge to an input of `shape`, from the
    shapes known at compile time: (axes, keep) where keep says a kept axis of size 1 must be
    reshaped away after the sum; None when a shape is unknown. np.add.reduce over those
    axes is unbroadcast's np.sum (the same reduction in the same order, bit for bit), without
    its Python: about 5 µs an edge, two edges a step of the spirals network (its biases)."""
    out = tape.shapes[row.index]
    if not row.op.elementwise or out is None or not shape or len(out) < len(shape):
        return None   # a 0-d input: unbroadcast's reshape makes it a 0-d array, kept so
    lead = len(out) - len(shape)
    kept = tuple(lead + a for a, n in enumerate(shape) if n == 1 and out[lead + a] != 1)
    axes = tuple(range(lead)) + kept
    return (axes, bool(kept)) if axes else None


def _saved_loss(tape, row) -> bool:
    """A loss row that kept its gradient (cross_entropy's forward_saving) with a 0-d output
    of a float64 program: its upstream gradient is 0-d (a Python float, np.float64 or a 0-d
    array), which the tape's _contribution would turn from a float into np.float64 (the same
    product with the saved tensor) and whose product unbroadcast would hand back unchanged
    (the saved tensor has its input's shape)."""
    return row.saved is not None and not row.numpy_in and tape.scalar and \
        tape.shapes[row.index] == () and len(row.inputs) == 1 and \
        tape.shapes[row.inputs[0]] is not None and len(tape.shapes[row.inputs[0]]) > 0


def _exact(tape, row, shape: tuple) -> bool:
    """Whether a plain row's vjp result has its input's `shape` already, known from the shapes
    at compile time, so the call to unbroadcast (which would return it unchanged: about 2 µs
    an edge, a tenth of the spirals network's backward pass) is left out: an elementwise rule
    gives the output's shape (g's, broadcast with the inputs'), so one whose input has the
    output's shape; a matrix product of two matrices gives each operand's shape."""
    if row.op.elementwise:
        return tuple(tape.shapes[row.index]) == tuple(shape)
    return _matrices(tape, row)


def _matrices(tape, row) -> bool:
    """A matrix product of two matrices: X̄ = Ḡ Wᵀ and W̄ = Xᵀ Ḡ, the shapes of X and W
    (engine/ops/linalg.py's rules take that branch, the transposes as swapaxes' views)."""
    return row.op.name == "matmul" and all(len(tape.shapes[k]) == 2 for k in row.inputs)
