"""The backward pass's start: the output's adjoint (the seed) and what its narration says.

A scalar output L is seeded with dL/dL = 1. A tensor output has no single derivative: it is
seeded with ones, so the gradients are those of sum(y) (PyTorch's
`y.backward(torch.ones_like(y))`), or with an `output_grad` the caller gives, PyTorch's
`y.backward(gradient=v)`: the gradients are then those of sum(v ⊙ y), a vector-Jacobian
product.
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.source import clip
from gradwalk.engine.parse import Program
from gradwalk.engine.syntax import MAX_DIMS
from gradwalk.engine.trace import narrate


def output_grad(given, out, program: Program, output: int):
    """`given` (a number or nested list of numbers; None: none) as an array of the program's
    dtype and of the output's shape exactly (as PyTorch requires), or None.

    Raises ProgramError "bad_argument" for a ragged, non-numeric, too deep or non-finite
    output_grad, "shape" when its shape is not the output's (both shapes named; located at
    the output's node).
    """
    if given is None:
        return None
    if _depth(given) > MAX_DIMS:
        raise ProgramError("bad_argument", f"output_grad may be nested at most {MAX_DIMS} deep")
    if not _numbers_only(given):
        raise ProgramError("bad_argument", "output_grad must be a number or a nested list of "
                           "numbers (no strings, booleans or nulls)")
    try:
        value = np.array(given, dtype=np.float64)
    except (ValueError, TypeError, OverflowError):
        raise ProgramError("bad_argument", "output_grad must be a number or a rectangular "
                           "nested list of numbers") from None
    if value.dtype == object or not np.isfinite(value).all():
        raise ProgramError("bad_argument", "output_grad must hold finite numbers")
    shape = np.shape(out)
    if value.shape != shape:
        node = program.nodes[output]
        s = node.span
        raise ProgramError("shape", f"output_grad has shape {value.shape} but the output "
                           f"{node.label} has shape {shape}; they must be equal",
                           s.line, s.col, s.end_line, s.end_col)
    with np.errstate(over="ignore"):
        value = value.astype(program.dtype)
    if not np.isfinite(value).all():
        raise ProgramError("bad_argument", f"output_grad has a number too large for "
                           f"{program.dtype}")
    return value


def not_a_leaf(program: Program, field: str, name) -> ProgramError:
    """The "bad_argument" error for a `field` (tangents, vector) entry whose name is not a leaf:
    says what the name is when the program has it (a constant, a computed value) and lists
    the leaves."""
    known = ", ".join(clip(n) for n in program.leaves) or "none"
    node = program.nodes[program.names[name]] if name in program.names else None
    what = "which is not a leaf of the program" if node is None else \
        "a constant (const(...)), not a leaf" if node.role == "const" else \
        "a value the program computes, not a leaf"
    return ProgramError("bad_argument", f"{field} names `{clip(str(name))}`, {what}; only "
                        f"leaves take {field} entries (its leaves: {known})")


def leaf_entry(program: Program, field: str, name: str, shape: tuple, given):
    """A per-leaf request value (forward mode's `tangents[leaf]`, hvp's `vector[leaf]`) checked
    and cast to the program's dtype: numbers only, the leaf's shape, finite; a float for a 0-d
    float64 leaf. Raises ProgramError("bad_argument") naming `field[leaf]`, at the leaf."""
    from gradwalk.engine.source import clip

    s = program.nodes[program.leaves[name]].span
    where = (s.line, s.col, s.end_line, s.end_col)
    field = f"{field}[`{clip(name)}`]"
    if _depth(given) > 32 or not _numbers_only(given):
        raise ProgramError("bad_argument", f"{field} must be a number or a nested list of "
                           "numbers", *where)
    try:
        value = np.array(given, dtype=np.float64)
    except (ValueError, TypeError, OverflowError):
        raise ProgramError("bad_argument", f"{field} must be a number or a rectangular nested "
                           "list of numbers", *where) from None
    if value.shape != tuple(shape):
        raise ProgramError("bad_argument", f"{field} has shape {value.shape} but the leaf "
                           f"{clip(name)} has shape {tuple(shape)}; they must be equal", *where)
    with np.errstate(over="ignore"):
        value = value.astype(program.dtype)
    if not np.isfinite(value).all():
        raise ProgramError("bad_argument", f"{field} must hold finite numbers (of "
                           f"{program.dtype})", *where)
    return float(value) if value.ndim == 0 and program.dtype == "float64" else value


def _numbers_only(x) -> bool:
    """Every leaf of a nested list is an int or a float (not a bool); iterative."""
    stack = [x]
    while stack:
        item = stack.pop()
        if type(item) is list:
            stack.extend(item)
        elif type(item) not in (int, float):
            return False
    return True


def _depth(x) -> int:
    depth = 0
    while isinstance(x, list) and x:
        depth, x = depth + 1, x[0]
    return depth


def narration(label: str, symbol: str, out, given: bool) -> str:
    """One line: what the output's adjoint starts as, and why."""
    if given:
        return (f"{symbol} starts as the given output_grad v (PyTorch: {label}.backward("
                f"gradient=v)): the gradients that follow are those of sum(v ⊙ {label})")
    if np.ndim(out) == 0:
        return f"{symbol} = ∂{label}/∂{label} = 1: the backward pass starts at the output"
    shape = narrate.shape_name(np.shape(out))   # 2-vector, 4×3 matrix (format.js shapeName)
    return (f"{label} is a {shape}, not a number: {symbol} starts as ones (PyTorch: "
            f"{label}.backward(torch.ones_like({label}))), so the gradients that follow are "
            f"those of sum({label})")

