"""A lower bound on a reverse-mode trace's body (bytes) from the syntax tree alone, taken right
after `ast.parse` and before any node, label, shape or estimate is made (engine/parse.py calls
`check` when the Tracer asks for it).

Why: a 100,001-term sum `L = x + x + ... + x` (400 KB of text) was refused as too large only
after 5.2 s in process (12 s over HTTP): the IR build writes a label per `+` and the estimate
(engine/trace/budget.py) walks every node. What is counted here is a floor every such body has:
- each binary operator of the last statement (the output's tree) that a leaf reaches makes an
  op node in the graph (its record and ledger) and one `evaluate` event;
- each of its operands that a leaf reaches makes an edge and, since the node reaches the output,
  one `accumulate` event in the backward pass.
Each record is counted as its skeleton with every field empty (budget_numbers.py's convention)
plus the shortest thing that can fill each field: ids, seq numbers and a 3-byte float. So the
bound is below the real body whatever the numbers and texts turn out to be (the sum's real body
is 1,329 bytes a term; this counts about 1,090); a program under it is left to the full
estimate, so every program that fits still traces.

Only the plain case is counted: reverse mode, no bug lab, no second-order header, a last
statement `name = <expression>` at the top level, and as leaves only names bound once, at the
top level, to a number literal. Anything else counts 0 (a lower bound still).
"""
from __future__ import annotations

import ast

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.source import clip
from gradwalk.engine.syntax import MAX_DEPTH
from gradwalk.engine.trace.budget_numbers import ACCUMULATE_SKELETON, EDGE_SKELETON, EVALUATE
from gradwalk.engine.trace.limits import two_sizes

_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div)

# skeletons: budget_numbers.py's records with every value empty (the shortest name: "")
_NODE = len('{"id":"","index":,"name":"","label":"","op":"","role":"op","inputs":[],'
            '"params":{},"requires_grad":true,"span":{"line":,"col":,"end_line":,"end_col":},'
            '"shape":[],"formula":"","adjoint_symbol":"","ledger":{"saves":[],'
            '"saved_elements":,"saved_bytes":,"flops_forward":,"flops_backward":,'
            '"activation_bytes":,"released_by":null,"recomputed":false}},')
_EVALUATE, _EDGE, _ACCUMULATE = EVALUATE, EDGE_SKELETON, ACCUMULATE_SKELETON
_FLOAT = 3   # "1.0": the shortest float64 as JSON
# what fills a node beyond its ids and index: its label, op ("add"), span, formula, adjoint
# symbol and the ledger's six numbers. An operator's node is not the output's unless it is
# the last: its label and formula are at least `a + b` (5), its symbol `∂L/∂(a + b)` (15
# bytes in UTF-8); the output's are its name (1) and `L̄` (3). An evaluate event's value; an
# edge's arg; an accumulate event's arg, five numbers, its partial and its narration,
# `{formula}: {symbol} += {partial} = {number}` at least (19).
_NODE_FILL = 3 + 4 + 6
_INNER_TEXT, _OUTPUT_TEXT = 5 + 5 + 15, 1 + 1 + 3
_EVALUATE_FILL = _FLOAT
_EDGE_FILL = 1
_ACCUMULATE_FILL = 1 + 5 * _FLOAT + 1 + 19


def _leaves(tree: ast.Module) -> set[str]:
    """Names bound exactly once in the whole program, at the top level, to a number literal:
    each is a leaf (engine/parse.py), whatever reads it. Only statements are walked (with a
    stack), never expressions: the chain's 100,000 operators cost nothing here."""
    stores: dict[str, int] = {}
    once, todo = [], []   # top-level `name = number` lines; the other statements
    for s in tree.body:   # the commonest, `x = x * 1.0001 + 0.001`, counted in one look
        if type(s) is ast.Assign and len(s.targets) == 1 and type(s.targets[0]) is ast.Name:
            name = s.targets[0].id
            stores[name] = stores.get(name, 0) + 1
            if type(s.value) is ast.Constant and type(s.value.value) in (int, float):
                once.append(name)
        else:
            todo.append(s)
    while todo:
        s = todo.pop()
        if type(s) is ast.Assign:   # nothing nested, so no field to look into
            for t in s.targets:
                for name in _names(t):
                    stores[name] = stores.get(name, 0) + 1
            continue
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                          ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom)):
            return set()   # names may be bound out of sight: count none
        targets = [s.target] if isinstance(s, (ast.AugAssign, ast.AnnAssign, ast.For)) else \
            [i.optional_vars for i in s.items if i.optional_vars is not None] \
            if isinstance(s, ast.With) else []
        for t in targets:
            for name in _names(t):
                stores[name] = stores.get(name, 0) + 1
        for field in ("body", "orelse", "finalbody", "handlers"):
            todo += [x for x in getattr(s, field, ()) if isinstance(x, ast.stmt)]
    return {name for name in once if stores[name] == 1}


def _names(target: ast.AST) -> list[str]:
    """The names a target binds (`a`, `a, b`, `[a, (b, c)]`); a subscript or attribute binds
    none."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _names(e)]
    if isinstance(target, ast.Starred):
        return _names(target.value)
    return []


def _digits(first: int, count: int) -> int:
    """The characters of the ids n{first} ... n{first+count-1} (or of seq numbers) together."""
    total, k = 0, first
    end = first + count
    while k < end:
        width = len(str(k))
        top = min(end, 10 ** width)
        total += (top - k) * width
        k = top
    return total


def check(tree: ast.Module, limit: int, lines) -> None:
    """Raise ProgramError "too_large" when the lower bound passes `limit` (max_response_bytes),
    located at the operator by whose node the running count passes it (its span, as the full
    estimate's error is at the node where the estimate crosses the limit)."""
    if _no_leaf_read(tree):   # the bound counts no operator: nothing to refuse
        return
    total, order = lower_bound(tree)
    if total <= limit:
        return
    share = total / len(order)   # the bound's bytes an operator, on average
    at = order[min(len(order) - 1, int(limit // share))][0]
    low, high = two_sizes(total, limit)
    line, end = at.lineno, at.end_lineno
    raise ProgramError(
        "too_large", f"the trace would take more than {low}; the limit (max_response_bytes) "
        f"is {high}, passed at {clip(_text(lines, at))}", line,
        lines.char_col(line, at.col_offset), end, lines.char_col(end, at.end_col_offset),
        hint="trace fewer nodes or smaller tensors; the setting is "
             "GRADWALK_MAX_RESPONSE_BYTES")


_FIRST_STATEMENTS = 64   # how far _no_leaf_read looks
_MOST_READ = 64          # the syntax nodes of a last statement it reads


def _no_leaf_read(tree: ast.Module) -> bool:
    """True when no name the last statement reads can be a leaf, seen among the first
    _FIRST_STATEMENTS statements: each is assigned at least twice there (the chain: `x = 1.0`,
    `x = x * 1.0001 + 0.001`), so _leaves would not hold it and the bound reaches no operator
    (a bound of at most 0 bytes). Found without the walk of every statement that _leaves makes
    (0.15 µs a node of the chain, issue 15 §1). False when not seen so soon, or for a last
    statement of more than _MOST_READ syntax nodes: the bound decides."""
    body = tree.body
    if not body or type(body[-1]) is not ast.Assign:
        return False
    left: dict[str, int] = {}   # each name read -> its assignments seen
    for k, node in enumerate(ast.walk(body[-1].value)):
        if k == _MOST_READ:
            return False
        if type(node) is ast.Name:
            left[node.id] = 0
    for s in body[:_FIRST_STATEMENTS]:
        if type(s) is ast.Assign:
            for t in s.targets:
                if type(t) is ast.Name and t.id in left:
                    left[t.id] += 1
                    if left[t.id] == 2:
                        del left[t.id]
                        if not left:
                            return True
    return False


def _text(lines, node: ast.AST) -> str:
    """The operator's source on its first line, at most a few hundred characters (clip
    shortens it further): the chain's text is 400 KB."""
    start = lines.char_col(node.lineno, node.col_offset)
    end = lines.char_col(node.lineno, node.end_col_offset) \
        if node.end_lineno == node.lineno else None
    return lines.line(node.lineno)[start:end][:400]


def lower_bound(tree: ast.Module) -> tuple[int, list]:
    """(a lower bound of the reverse-mode body in bytes, counted over the last statement's
    operators; those operators in evaluation order, each with its operands a leaf reaches)."""
    if not tree.body or not isinstance(tree.body[-1], ast.Assign):
        return 0, []
    leaves = _leaves(tree)
    if not leaves:
        return 0, []
    order = _operators(tree.body[-1].value, leaves)
    ops = len(order)
    edges = sum(e for _, e in order)
    first = len(leaves)   # the op nodes' ids come after the leaves' (at least)
    shortest = 1 + len(str(first - 1))   # the shortest id: a leaf's
    # ids: an op node's own in its graph record, its evaluate event and its reader's inputs
    # (the output has no reader); per edge its target's three times (the edge's id, target,
    # accumulate's node) and its source's four (edge id, source, accumulate's input, the
    # target's inputs list with quotes), a source at least as long as the shortest id
    ids = -(1 + len(str(first + ops - 1)))
    for k, (_, n) in enumerate(order):
        width = 1 + len(str(first + k))
        ids += 4 * width - 1 + n * (3 * width + 4 * shortest + 2)   # with the index's digits
    texts = (ops - 1) * _INNER_TEXT + _OUTPUT_TEXT
    seq = _digits(0, ops + edges)
    total = (ops * (_NODE + _NODE_FILL + _EVALUATE + _EVALUATE_FILL)
             + edges * (_EDGE + _EDGE_FILL + _ACCUMULATE + _ACCUMULATE_FILL) + ids + seq
             + texts)
    return total, order


def _operators(value: ast.AST, leaves: set[str], out: list | None = None,
               depth: int = 0) -> list[tuple[ast.BinOp, int]]:
    """The binary operators (+ - * /) of an expression that a leaf reaches, in evaluation
    order, each with how many of its operands a leaf reaches (1 or 2). A left-associative
    chain is walked down its left spine without recursion; a right operand recurses, at most
    MAX_DEPTH levels (deeper ones count nothing: still a lower bound)."""
    out = [] if out is None else out
    spine, node = [], value
    while isinstance(node, ast.BinOp) and isinstance(node.op, _OPS):
        spine.append(node)
        node = node.left
    reached = _reaches(node, leaves, out, depth)
    for b in reversed(spine):
        n = reached + _reaches(b.right, leaves, out, depth)
        if n:
            out.append((b, n))
        reached = n > 0
    return out


def _reaches(node: ast.AST, leaves: set[str], out: list, depth: int) -> bool:
    """Whether a leaf reaches `node` by the operators counted (its operators go to `out`)."""
    if isinstance(node, ast.Name):
        return node.id in leaves
    if isinstance(node, ast.BinOp) and isinstance(node.op, _OPS) and depth < MAX_DEPTH:
        before = len(out)
        _operators(node, leaves, out, depth + 1)
        return len(out) > before and out[-1][0] is node
    return False
