"""Which literals are constants without `const(...)`: Python's integer data and integer
accumulators, which PyTorch and micrograd never give a gradient (they are not tensors).

A literal assigned to a name is a leaf that gets a gradient (engine/parse.py), except:
- integer data: a list (or nested lists and tuples) of int literals, as `Y = [0, 1, 1, 0]`
  or `X = [(0, 0), (0, 1)]`, whose name is read nowhere in the program except as an
  argument of `zip(...)` or what a comprehension's `for` goes over (loop data; its numbers
  are then indices, as `z[y]`, or sizes, as seed 003's `for r, c in shapes`), or not at all;
- an integer accumulator: an int literal, as `total = 0`, whose name is rebound from itself
  somewhere in the program (`total = total + e`, or `total += e`).
Both are constants (role "const": no gradient, no "not used" warning, drawn as constants).
A float (`0.0`, `[0.0, 1.0]`), a bool, or an int list read anywhere else (`X @ w`) stays a
leaf, as before. The rule reads names, not scopes: a name used both ways anywhere keeps its
leaf (the cautious side). Seed 003's XOR program is the case that needs it (issue 7 review).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field


@dataclass
class IntUses:
    """From one walk of the whole program: `read`, names read other than as zip's argument;
    `rebound`, names assigned from an expression that reads them (or updated with `+=`)."""

    read: set[str] = field(default_factory=set)
    rebound: set[str] = field(default_factory=set)


def int_uses(tree: ast.Module) -> IntUses:
    """IntUses of a program's syntax tree (one iterative walk: no recursion on its shape;
    breadth first, so a zip or a comprehension clause is seen before the names in it).
    Empty, without the walk, when no assignment's value can be integer data or an integer
    accumulator (`may_be_int`): the walk visits every expression node, about 2 µs a node of a
    long chain of float arithmetic, for an answer nothing would read (issue 15 §1)."""
    uses = IntUses()
    if not _any_int_candidate(tree):
        return uses
    in_zip: set[int] = set()
    for node in ast.walk(tree):
        kind = type(node)
        if kind is ast.Call and type(node.func) is ast.Name and node.func.id == "zip":
            in_zip.update(id(a) for a in node.args if type(a) is ast.Name)
        elif kind is ast.comprehension and type(node.iter) is ast.Name:
            in_zip.add(id(node.iter))
        elif kind is ast.Name and type(node.ctx) is ast.Load and id(node) not in in_zip:
            uses.read.add(node.id)
        elif kind is ast.AugAssign and type(node.target) is ast.Name:
            uses.rebound.add(node.target.id)
        elif kind is ast.Assign:
            reads = {n.id for n in ast.walk(node.value) if type(n) is ast.Name}
            uses.rebound.update(t.id for t in node.targets
                                if type(t) is ast.Name and t.id in reads)
    return uses


_NEVER_INT = frozenset((ast.BinOp, ast.Name, ast.Attribute, ast.Subscript, ast.Compare))


def may_be_int(value: ast.expr) -> bool:
    """Whether an assigned value could be one `is_int_constant` accepts, through any
    unwrapping the parser does (`Value(0)`, a tuple assignment's elements): false only for
    the values that never are (an operator, a name, a float or string literal, an attribute,
    a subscript), so a doubt computes the uses."""
    while type(value) is ast.UnaryOp:   # a loop: `- - - ... 1` may be thousands deep
        value = value.operand
    kind = type(value)
    if kind is ast.Constant:
        return type(value.value) is int
    return kind not in _NEVER_INT


def _any_int_candidate(tree: ast.Module) -> bool:
    """Whether any assignment's value in the program may_be_int: every statement of the
    program, in any block's or definition's body (a stack: the statements only, not their
    expressions); a plain assignment (the commonest) without looking into its fields, and an
    operator's value without a call (a chain's 25,000 lines, issue 15 §1)."""
    todo = list(tree.body)
    while todo:
        stmt = todo.pop()
        if type(stmt) is ast.Assign:
            if type(stmt.value) not in _NEVER_INT and may_be_int(stmt.value):
                return True
            continue
        for field_name in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field_name, None)
            if type(inner) is list:
                todo.extend(inner)
        for handler in getattr(stmt, "handlers", ()):
            todo.extend(handler.body)
    return False


def is_int_constant(name: str, value: ast.expr, uses: IntUses) -> bool:
    """True when `name = value` is integer data or an integer accumulator (module docstring)."""
    if _is_int(value):
        return name in uses.rebound
    return type(value) is ast.List and name not in uses.read and _all_ints(value)


def _is_int(node: ast.expr) -> bool:
    if type(node) is ast.UnaryOp and type(node.op) in (ast.USub, ast.UAdd):
        node = node.operand
    return type(node) is ast.Constant and type(node.value) is int   # not bool, not float


def _all_ints(node: ast.List) -> bool:
    """Every element an int literal, through nested lists and tuples (walked with a stack)."""
    todo = list(node.elts)
    while todo:
        item = todo.pop()
        if type(item) in (ast.List, ast.Tuple):
            todo.extend(item.elts)
        elif not _is_int(item):
            return False
    return bool(node.elts)
