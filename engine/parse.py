"""Program text -> a small IR, through Python's `ast` and a whitelist. Never eval, never exec.

The language: one `name = expression` statement per line; a literal on the right (a number, a
negative number, a nested list of numbers) declares a leaf that gets a gradient, `const(literal)`
a leaf that gets none; expressions use + - * / ** @, unary -, `.T`, and the functions in
FUNCTIONS. Tensor syntax (indexing, reshape, transpose, concat, stack, where with a comparison,
the leaf helpers randn, zeros, ones, eye, arange) is in engine/parse_tensors.py; the dtype
(`# dtype: float32` on the first line) in engine/dtypes.py. Every IR node keeps the source span
it came from.
"""
from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, field

import numpy as np
import orjson

from engine.blocks import Block, Statement, block_kind
from engine.dtypes import DEFAULT, cast, program_dtype, too_large
from engine.errors import ProgramError
from engine.labels import print_label
from engine.wording import counted
from engine.literals import Lifted, lift
from engine.names import name_problem, names_in
from engine.parse_tensors import TensorSyntax
from engine.source import Lines, clip, python_ast
from engine.second_order import SecondOrder, read as second_order_header
from engine.switches import program_bugs
from engine.syntax import HELPERS, MAX_ELEMENTS, MAX_TOTAL_ELEMENTS, STRUCTURE
from engine.syntax import (BINOPS, FUNCTIONS, MAX_CLASS_INDEX, MAX_DEPTH, MAX_DIMS, MAX_LABEL,
                           MAX_STATEMENTS, OPERATORS, REQUIRED, RESERVED, SIGNATURES, construct,
                           depth, is_literal, literal_value, number, primed, supported_operator)


_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
MIN_JSON_LIST = 256   # characters: a shorter list is walked (as cheap, and no JSON call)
_NOT_JSON_NUMBERS = re.compile(r"[^0-9eE.\-\[\],\s]")
_NUMBER = (int, float)   # the types of a number literal's value (bool is not one: `type is`)


@dataclass(slots=True)
class Span:
    """Source range: 1-based lines, 0-based character columns, end_col exclusive."""

    line: int
    col: int
    end_line: int
    end_col: int

    def to_dict(self) -> dict:
        return {"line": self.line, "col": self.col, "end_line": self.end_line,
                "end_col": self.end_col}


# One empty dict shared by every node without parameters (most of them; a dict each cost 64
# bytes a node). Shared, so never written to: nothing writes to a node's params.
NO_PARAMS: dict = {}


@dataclass(slots=True)
class IRNode:
    """One value of the program: a leaf, a constant or the result of an op."""

    index: int
    op: str                      # "leaf", "const" or a registry name
    role: str                    # "leaf", "const" or "op"
    inputs: list[int]
    span: Span
    label: str
    name: str | None = None      # the Python name it was assigned to, if any
    params: dict = field(default_factory=dict)
    literal: np.ndarray | None = None


@dataclass
class Program:
    """The parsed program: nodes in creation order (a topological order) and the output."""

    nodes: list[IRNode]
    names: dict[str, int]        # each name's latest node
    leaves: dict[str, int]       # leaf name -> node
    last: str                    # the last assigned name
    blocks: list[Block] = field(default_factory=list)   # `with checkpoint():` (engine/blocks.py)
    dtype: str = DEFAULT         # "float64" or "float32": every value's type (engine/dtypes.py)
    # the bug lab (issue 9; engine/switches.py, engine/trace/bugs.py): the `# bugs:` header's
    # switches, the `with no_grad():` blocks, and the in-place updates (`x += ...`)
    bugs: tuple[str, ...] = ()
    no_grad: list[Block] = field(default_factory=list)
    inplace: list[InPlace] = field(default_factory=list)
    # `# hvp:` / `# hessian:` header (issue 9; engine/second_order.py), None without one
    second_order: SecondOrder | None = None
    bugs_span: Span | None = None   # the `# bugs:` comment (errors about a switch point at it)
    # the statements and `with` blocks in program order, nested as written (Statement, Block:
    # engine/blocks.py), and the program's lines: what engine/groups.py reads
    body: list = field(default_factory=list)
    lines: Lines | None = None
    # what the trace warns about in the text itself: (kind, message, node index, span)
    notes: list[tuple[str, str, int, Span]] = field(default_factory=list)


@dataclass(slots=True)
class InPlace:
    """`x += e` (or -=, *=, /=): node `node` is the update of node `target`, whose tensor it
    overwrites (PyTorch's in-place ops bump the tensor's version counter); span: the line."""

    node: int
    target: int
    span: Span


def parse(text: str, max_statements: int = MAX_STATEMENTS, max_depth: int = MAX_DEPTH, *,
          dtype: str | None = None, max_elements: int = MAX_ELEMENTS,
          max_total_elements: int = MAX_TOTAL_ELEMENTS) -> Program:
    """Parse program text into IR. Raises ProgramError (with line and column) on bad input,
    "too_large" for more than `max_statements` statements or an expression nested deeper than
    `max_depth` (calls, lists and right operands count a level; see _Builder.expression), or
    for leaf helpers (randn, zeros, ...) over max_elements each or max_total_elements together
    (checked before they are made). dtype: "float64" or "float32" asked by the caller (None:
    the program's `# dtype:` first line, else float64; engine/dtypes.py); every literal is of
    the program's dtype.

    Nothing here recurses on the program's shape: a left-associative chain
    (`x + x + ... + x`, `a.T.T...`, `- - - a`) is walked with an explicit stack, so its length
    is bounded by the node limit; Python's own `ast` construction, which does recurse, is
    retried with room for it (engine/source.py). Thousands of `**` or unary signs in a row
    exceed the parser's own stack: that error points at the busiest line.
    """
    # Python's parser also ends lines at a lone \r; one convention keeps lines and columns in
    # step with the page's textarea, which normalizes to \n too.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = Lines(text)
    code, lifted = lift(text)   # big list literals read here, not walked (engine/literals.py)
    tree = python_ast(code, lines)
    statements = _statements(tree)
    if len(statements) > max_statements:
        s = statements[max_statements]
        raise ProgramError("too_large", f"the program has {len(statements):,} statements; the "
                           f"limit (max_statements) is {max_statements:,}", s.lineno,
                           lines.char_col(s.lineno, s.col_offset),
                           hint="trace a shorter program (the setting is "
                                "GRADWALK_MAX_STATEMENTS)")
    builder = _Builder(lines, tree, max_depth, lifted)
    builder.setup_tensors(program_dtype(text, dtype), max_elements, max_total_elements)
    bugs, bugs_at = program_bugs(text, tree.body[0].lineno if tree.body else None)
    second = second_order_header(text, tree.body[0].lineno if tree.body else None)
    del statements   # the count is all it was for: each statement's tree is freed once built
    try:
        body = tree.body
        for k, stmt in enumerate(body):
            builder.statement(stmt)
            # Its syntax tree is done with (about 500 bytes a node): freed now, the nodes of
            # the statements after it reuse that memory, instead of the whole tree and the
            # whole IR being held at once (the trace's peak memory, bench/chain.py).
            body[k] = stmt = None
            builder.forget()
    except RecursionError:   # a safety net: no walk here recurses on the program's shape
        raise ProgramError("too_large", "expression nested too deeply", *builder.current) from None
    if not builder.nodes:
        raise ProgramError("empty", "the program assigns nothing: write e.g. `a = 1.0`", 1, 0)
    return Program(builder.nodes, builder.names, builder.leaves, builder.last, builder.blocks,
                   builder.dtype, bugs, builder.no_grad, builder.inplace, second,
                   bugs_span=bugs_at and Span(bugs_at[0], 0, bugs_at[0], bugs_at[1]),
                   body=builder.body, lines=lines, notes=builder.notes)


def _statements(tree: ast.Module) -> list[ast.stmt]:
    """Every statement, `with` lines and the statements of their bodies (nested blocks too),
    in program order; walked with a stack (Python's parser bounds the nesting anyway)."""
    out, todo = [], [s for s in reversed(tree.body) if s is not None]   # None: freed (parse)
    while todo:
        stmt = todo.pop()
        out.append(stmt)
        if type(stmt) is ast.With:
            todo.extend(reversed(stmt.body))
    return out


class _Builder(TensorSyntax):
    """Walks the whitelisted ast and appends IR nodes."""

    def __init__(self, lines: Lines, tree: ast.Module, max_depth: int = MAX_DEPTH,
                 lifted: dict[str, Lifted] | None = None):
        self.text = lines
        self.lifted = lifted or {}   # placeholder name -> the literal it stands for
        # (line, column) where a short placeholder ends -> the column where its literal ends
        self.moved = {(p.end_line, p.code_end_col): p.end_col for p in self.lifted.values()
                      if p.code_end_col != p.end_col}
        self.max_depth = max_depth
        self.tree = tree
        self.nodes: list[IRNode] = []
        self.names: dict[str, int] = {}
        self.leaves: dict[str, int] = {}
        self.times_assigned: dict[str, int] = {}
        self.last = ""
        self.current = (1, 0)
        self.last_line = 0
        self.all_targets: set[str] | None = None
        self.lists: dict[int, np.ndarray] = {}   # id(ast.List) -> its value (list_literal)
        self.numbers: dict[tuple, np.ndarray] = {}   # (type, number) -> its 0-d constant
        self.blocks: list[Block] = []
        self.no_grad: list[Block] = []
        self.inplace: list[InPlace] = []
        self.notes: list[tuple[str, str, int, Span]] = []   # Program.notes
        self.in_block = False   # inside a checkpoint or no_grad block (they do not nest)
        self.body: list = []   # the statements and blocks of the body being read

    # ---- locations ---------------------------------------------------------------------------
    def span(self, node: ast.AST) -> Span:
        if self.lifted and type(node) is ast.Name and node.id in self.lifted:
            p = self.lifted[node.id]   # a literal's own place, not its placeholder's
            return Span(p.line, p.col, p.end_line, p.end_col)
        if self.text.ascii:   # byte columns are character columns
            end_col = node.end_col_offset
            if self.moved:   # a node that ends with a short placeholder ends with its literal
                end_col = self.moved.get((node.end_lineno, end_col), end_col)
            return Span(node.lineno, node.col_offset, node.end_lineno, end_col)
        return Span(node.lineno, self.text.char_col(node.lineno, node.col_offset),
                    node.end_lineno, self.text.char_col(node.end_lineno, node.end_col_offset))

    def error(self, kind: str, message: str, node: ast.AST, hint: str | None = None
              ) -> ProgramError:
        s = self.span(node)
        return ProgramError(kind, message, s.line, s.col, s.end_line, s.end_col, hint=hint)

    def identifier(self, name: str, node: ast.AST, span: Span | None = None) -> None:
        """Refuse a reserved or over-long name (engine/names.py) at `span` (default: the
        node's)."""
        problem = name_problem(name)
        if problem:
            kind, message, hint = problem
            s = span or self.span(node)
            raise ProgramError(kind, message, s.line, s.col, s.end_line, s.end_col, hint=hint)

    def leading_span(self, node: ast.AST, length: int) -> Span:
        """The first `length` characters of a node: the name in `name=value` or `name: type`."""
        s = self.span(node)
        return Span(s.line, s.col, s.line, s.col + length)

    def attribute_span(self, node: ast.Attribute) -> Span:
        """The span of the attribute's name (`x` in `a.x`), which ends where the node ends."""
        s = self.span(node)
        return Span(s.end_line, max(s.end_col - len(node.attr), 0), s.end_line, s.end_col)

    def first_bad_name(self, stmt: ast.stmt) -> ProgramError | None:
        """The first (by position) reserved or over-long name anywhere in a statement: names,
        attributes, keyword arguments, parameters, imports, definitions. Looked for only when
        the statement was rejected, so `__import__` is reported as reserved wherever it hides
        (in a lambda, an import, `const(...)`), at no cost to a good program."""
        found = []
        for node in ast.walk(stmt):
            for name, place in names_in(node):
                span = (self.attribute_span(node) if place == "attribute" else
                        self.leading_span(node, len(name)) if place == "leading" else None)
                try:
                    self.identifier(name, node, span)
                except ProgramError as e:
                    found.append(e)
        return min(found, key=lambda e: (e.line, e.col), default=None)

    # ---- statements --------------------------------------------------------------------------
    def statement(self, stmt: ast.stmt) -> None:
        """One `name = expression` line; a rejected line reports its first bad name, if any."""
        try:
            if isinstance(stmt, ast.With):
                self.block(stmt)
            else:
                self.assignment(stmt)
        except ProgramError:
            bad = self.first_bad_name(stmt)
            if bad is not None:
                raise bad from None
            raise

    def block(self, stmt: ast.With) -> None:
        """`with checkpoint():`, `with no_grad():` or `with group("name"):` and its body
        (engine/blocks.py). Groups nest in anything and anything in them; a checkpoint or
        no_grad block inside another is refused."""
        self.current = (stmt.lineno, self.text.char_col(stmt.lineno, stmt.col_offset))
        kind, where, text = block_kind(stmt)
        if kind is None:   # group's argument is at fault: bad_argument, as for a function's
            call, bound = stmt.items[0].context_expr, stmt.items[0].optional_vars
            raise self.error("bad_argument" if len(stmt.items) == 1 and bound is None and
                             type(call) is ast.Call and
                             type(call.func) is ast.Name and call.func.id == "group"
                             else "unsupported", text, where)
        if self.in_block and kind != "group":
            raise self.error("unsupported", "checkpoint and no_grad blocks do not nest in each "
                             "other (a `with group(...):` may go anywhere)", stmt)
        self.last_line = stmt.lineno   # `with checkpoint(): y = x` is two statements on a line
        outer, outer_body = self.in_block, self.body
        block = Block(kind, len(self.nodes), 0, self.span(where), text, extent=self.span(stmt))
        self.in_block, self.body = outer or kind != "group", block.body
        for inner in stmt.body:
            self.statement(inner)
        self.in_block, self.body = outer, outer_body
        block.end = len(self.nodes)
        outer_body.append(block)
        if kind != "group":
            (self.no_grad if kind == "no_grad" else self.blocks).append(block)

    def assignment(self, stmt: ast.stmt) -> None:
        """One statement, recorded in the body being read (engine/groups.py) with the nodes it
        made."""
        first = len(self.nodes)
        self.assign(stmt)
        self.body.append(Statement(first, len(self.nodes), self.last, self.span(stmt)))

    def assign(self, stmt: ast.stmt) -> None:
        self.current = (stmt.lineno, self.text.char_col(stmt.lineno, stmt.col_offset))
        if stmt.lineno == self.last_line:
            raise self.error("unsupported", "one statement per line, please", stmt)
        self.last_line = stmt.end_lineno
        if isinstance(stmt, ast.AugAssign):
            return self.inplace_update(stmt)
        if not isinstance(stmt, ast.Assign):
            decorators = getattr(stmt, "decorator_list", None)   # point at the first line
            raise self.error("unsupported", f"{construct(stmt)} is not supported; "
                             "write `name = expression`", decorators[0] if decorators else stmt)
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            raise self.error("unsupported", "assign to exactly one name, as in `x = 1.0`",
                             stmt.targets[-1] if len(stmt.targets) == 1 else stmt)
        target = stmt.targets[0]
        name = target.id
        self.identifier(name, target)
        if name in RESERVED:
            raise self.error("unsupported", f"`{name}` is a built-in function and cannot be "
                             "assigned", target)
        if self.is_literal(stmt.value) or self.is_const_call(stmt.value):
            self.leaf(name, stmt.value, target)
        else:
            self.names[name] = self.expression(stmt.value, name)
        self.times_assigned[name] = self.times_assigned.get(name, 0) + 1
        self.last = name

    def inplace_update(self, stmt: ast.AugAssign) -> None:
        """`x += e` (-=, *=, /=): an in-place update, PyTorch's `x.add_(e)`. It makes the node
        `x op e` that `x` names from here on, and records that it overwrites x's tensor (its
        version goes up: engine/trace/bugs.py checks the rules that saved it). Refused on a
        leaf that requires grad, with PyTorch's words."""
        op = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}.get(type(stmt.op))
        target = stmt.target
        if op is None:
            raise self.error("unsupported", "the in-place updates are += -= *= /=", stmt)
        if not isinstance(target, ast.Name):
            raise self.error("unsupported", "an in-place update takes a name, as in "
                             "`x += 1.0`", target)
        self.identifier(target.id, target)
        if target.id in RESERVED:
            raise self.error("unsupported", f"`{target.id}` is a built-in function and cannot "
                             "be assigned", target)
        old = self.lookup(ast.copy_location(ast.Name(target.id, ast.Load()), target))
        if self.nodes[old].role == "leaf":
            raise self.error("inplace", "a leaf Variable that requires grad is being used in "
                             "an in-place operation.", stmt,
                             hint=f"write `{target.id}2 = {target.id} {_SYMBOL[op]} ...`: "
                                  "a new tensor")
        update = ast.copy_location(ast.BinOp(
            ast.copy_location(ast.Name(target.id, ast.Load()), target), stmt.op, stmt.value),
            stmt)
        index = self.expression(update, target.id)
        self.inplace.append(InPlace(index, old, self.span(stmt)))
        self.names[target.id] = index
        self.times_assigned[target.id] = self.times_assigned.get(target.id, 0) + 1
        self.last = target.id

    def leaf(self, name: str, value: ast.expr, target: ast.Name) -> None:
        if name in self.names:
            raise self.error("duplicate_leaf", f"`{name}` is already assigned; a leaf is "
                             "declared once", target)
        is_const = self.is_const_call(value)
        made = value.args[0] if is_const else value
        literal = self.literal(made)
        role = "const" if is_const else "leaf"
        index = self.add(role, role, [], self.span(value), name, name, literal=literal,
                         params=self.init(made))
        self.names[name] = index
        if not is_const:
            self.leaves[name] = index

    # ---- expressions -------------------------------------------------------------------------
    def expression(self, root: ast.expr, name: str | None = None) -> int:
        """Append the nodes of an expression, inputs before consumers and left before right;
        returns the index of its result.

        Iterative: `visit` either finishes a node (an index) or names its operands and how to
        combine them; operands are walked from an explicit stack, so a chain of any length is
        fine. Errors come in the same order a left-to-right recursive walk would give them.
        Each operand is one level deeper than its consumer, except the left operand of a binary
        operator and the `x` of `x.T`: a chain `x + x + ... + x` is one level however long, and
        `tanh(tanh(x))`, `a ** (b ** c)`, `x - (y - z)` nest. Deeper than max_depth: too_large.
        """
        done: list[int] = []   # indices of finished operands, a value stack
        todo: list = [(root, name, 0)]
        while todo:
            item = todo.pop()
            if callable(item[0]):   # (combine, arity): all operands are on `done`
                combine, arity = item
                operands = done[len(done) - arity:]
                del done[len(done) - arity:]
                done.append(combine(operands))
                continue
            node, node_name, level = item
            if level > self.max_depth:
                raise self.error("too_large", f"the expression is nested more than "
                                 f"{self.max_depth} deep (the limit, max_depth)", node,
                                 hint="name the inner parts on lines of their own")
            result = self.visit(node, node_name)
            if isinstance(result, int):
                done.append(result)
                continue
            operands, combine = result
            todo.append((combine, len(operands)))
            chain = isinstance(node, (ast.BinOp, ast.Attribute, ast.Subscript))
            for k in range(len(operands) - 1, -1, -1):
                todo.append((*operands[k], level + (0 if chain and k == 0 else 1)))
        return done[0]

    def visit(self, node: ast.expr, name: str | None):
        """An index, or ([(operand, its name), ...], combine(operand indices) -> index)."""
        if isinstance(node, ast.Name):
            if node.id in self.lifted:
                return self.constant(node)   # a big list literal (engine/literals.py)
            return self.lookup(node)   # `y = x` makes no new value: y refers to x's node
        if type(node) is ast.Constant and type(node.value) in _NUMBER:
            return self.constant(node)   # a plain number: no list or sign to look at
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and not supported_operator(node.op):
            raise self.error("unsupported", f"the operator {OPERATORS.get(type(node.op), '?')} "
                             "is not supported; the operators are + - * / ** @", node)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node, name)
        if self.is_literal(node):
            return self.constant(node)
        if isinstance(node, ast.BinOp):
            op, span = BINOPS[type(node.op)], self.span(node)
            note = self.list_meaning(node, op, span) if op in ("mul", "add") else None
            if note is not None:
                return [(node.left, None), (node.right, None)], \
                    lambda args: self.noted(self.add(op, "op", args, span, name), note, span)
            return [(node.left, None), (node.right, None)], \
                lambda args: self.add(op, "op", args, span, name)
        if isinstance(node, ast.Attribute):
            self.identifier(node.attr, node, self.attribute_span(node))
            if node.attr != "T":
                raise self.error("unsupported", f"attribute access `.{clip(node.attr)}` is not "
                                 "supported (only `.T`)", node)
            span = self.span(node)
            return [(node.value, None)], lambda args: self.add("transpose", "op", args, span, name)
        if isinstance(node, ast.Call):
            return self.call(node, name)
        if isinstance(node, ast.Subscript):
            return self.subscript(node, name)
        if isinstance(node, ast.Compare):
            if id(node) in self.conditions:
                return self.compare(node, name)
            raise self.error("unsupported", "a comparison is supported only as the condition "
                             "of where, as in where(x > 0, x, 0.1 * x)", node)
        if isinstance(node, ast.List):
            raise self.error("unsupported", "an empty list is not supported" if not node.elts
                             else "a list may hold only numbers or lists of numbers, as in "
                             "[[1.0, 2.0], [3.0, 4.0]]", node)
        if isinstance(node, ast.Constant):
            raise self.error("unsupported", f"{type(node.value).__name__} constant "
                             f"{clip(repr(node.value))} is not supported; use numbers", node)
        raise self.error("unsupported", f"{construct(node)} is not supported", node)

    def list_meaning(self, node: ast.BinOp, op: str, span: Span) -> tuple[str, str] | None:
        """A (kind, message) note where Python's lists would mean something else than the
        tensors they are here (numpy's meaning), since a student may mean Python's:
        `[0.0] * 3` multiplies (Python repeats the list: "list_repetition"), `[1.0] + [2.0]`
        adds (Python joins the lists: "list_concatenation")."""
        pair = (node.left, node.right)
        if op == "add":
            if type(pair[0]) is ast.List and type(pair[1]) is ast.List:
                text = self.text.clipped(span.line, span.col, span.end_line, span.end_col, 40)
                return "list_concatenation", (
                    f"`{text}` (line {span.line}, col {span.col + 1}) adds element by element "
                    "(broadcasting), as numpy does: a list here is a tensor. It does not join "
                    "the lists, as Python would; for that, write the joined list, or "
                    "concat([a, b])")
            return None
        for lst, times in (pair, pair[::-1]):
            if type(lst) is ast.List and type(times) is ast.Constant and \
                    type(times.value) is int:
                text = self.text.clipped(span.line, span.col, span.end_line, span.end_col, 40)
                return "list_repetition", (
                    f"`{text}` (line {span.line}, col {span.col + 1}) multiplies every element "
                    f"by {times.value}, as numpy does: a list here is a tensor. It does not "
                    f"repeat the list {counted(times.value, 'time')}, as Python would; for that, write "
                    "the elements out, or zeros(n) / ones(n)")
        return None

    def noted(self, index: int, note: tuple[str, str], span: Span) -> int:
        self.notes.append((*note, index, span))
        return index

    def unary(self, node: ast.UnaryOp, name: str | None):
        """A run of unary + and - taken in one step (a signed number is one constant), so
        `- - - ... a` costs its length, not its length squared."""
        run, inner = [], node
        while isinstance(inner, ast.UnaryOp):
            if not supported_operator(inner.op):
                raise self.error("unsupported", f"the operator "
                                 f"{OPERATORS.get(type(inner.op), '?')} is not supported; the "
                                 "operators are + - * / ** @", inner)
            run.append(inner)
            inner = inner.operand
        if number(inner) is not None:
            return self.constant(node)
        # the name goes to the outermost minus (`b = +-a`); `b = +a` is b referring to a
        named = next((k for k, u in enumerate(run) if isinstance(u.op, ast.USub)), None)

        def combine(args: list[int]) -> int:
            index = args[0]
            for k in reversed(range(len(run))):
                if isinstance(run[k].op, ast.USub):
                    index = self.add("neg", "op", [index], self.span(run[k]),
                                     name if k == named else None)
            return index
        return [(inner, name if named is None else None)], combine

    def lookup(self, node: ast.Name) -> int:
        self.identifier(node.id, node)
        if node.id in self.names:
            return self.names[node.id]
        if node.id in RESERVED:
            raise self.error("unsupported", f"`{node.id}` is a function: call it, as in "
                             f"`{node.id}(x)`", node)
        if node.id in self._targets():
            raise self.error("used_before_assignment", f"`{node.id}` is used before it is "
                             "assigned", node)
        raise self.error("unknown_name", f"unknown name `{node.id}`", node)

    def _targets(self) -> set[str]:
        """Every name the statements from the current one on assign (computed on the first
        unknown name; an earlier statement's tree is freed, and its names are in `names`)."""
        if self.all_targets is None:
            self.all_targets = {t.id for s in _statements(self.tree) if isinstance(s, ast.Assign)
                                for t in s.targets if isinstance(t, ast.Name)}
        return self.all_targets

    def forget(self) -> None:
        """Drop what is keyed by the id of a syntax-tree node of the statement just built (a
        list literal's value, a helper's init text, where's conditions): the tree is freed, and
        a later node could be given the same id."""
        self.lists.clear()
        self.inits.clear()
        self.conditions.clear()

    def call(self, node: ast.Call, name: str | None):
        func = node.func
        if isinstance(func, ast.Attribute):
            self.identifier(func.attr, func, self.attribute_span(func))
            raise self.error("unsupported", f"calling a method (`.{clip(func.attr)}()`) is not "
                             "supported; only the functions and `.T` are", func)
        if not isinstance(func, ast.Name):
            raise self.error("unsupported", f"calling {construct(func)} is not supported", func)
        self.identifier(func.id, func)
        if func.id == "const":
            if len(node.args) != 1 or node.keywords or not self.is_literal(node.args[0]):
                raise self.error("bad_argument", "const takes one literal, as in "
                                 "`const([1.0, 2.0])`", node)
            return self.constant(node.args[0], node)
        if func.id in STRUCTURE:
            return self.structure_call(node, func.id, name)
        if func.id not in FUNCTIONS:
            raise self.error("unsupported", f"unknown function `{clip(func.id)}`", func,
                             hint=_function_hint(func.id))
        op, allowed = FUNCTIONS[func.id]
        args, params = self.arguments(node, func.id, allowed)
        span = self.span(node)
        return [(a, None) for a in args], \
            lambda inputs: self.add(op, "op", inputs, span, name, params=params)

    def arguments(self, node: ast.Call, fname: str, allowed: tuple[str, ...]):
        """Split a call's arguments into value inputs and parameters: SIGNATURES says how many
        values come first and which parameters may follow them by position; FUNCTIONS which
        may be given by keyword. bad_argument (at the call, or at the keyword or argument at
        fault) for a wrong count, an unknown or repeated parameter, or a bad value."""
        args = list(node.args)
        params: dict = {}
        if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords):
            raise self.error("unsupported", "* and ** arguments are not supported", node)
        for kw in node.keywords:
            self.identifier(kw.arg, kw, self.leading_span(kw, len(kw.arg)))
        values, positional = SIGNATURES.get(fname, (1, ()))
        if not values <= len(args) <= values + len(positional):
            raise self.error("bad_argument", _usage(fname, values, positional, allowed,
                                                    len(args)), node)
        for key, arg in zip(positional, args[values:]):
            params[key] = self.parameter(fname, key, arg)
        args = args[:values]
        for kw in node.keywords:
            if kw.arg not in allowed or kw.arg in params:
                said = "is given twice" if kw.arg in params else f"is not a parameter of {fname}"
                raise ProgramError("bad_argument", f"`{kw.arg}` {said}; "
                                   + _usage(fname, values, positional, allowed),
                                   **self.leading_span(kw, len(kw.arg)).to_dict())
            params[kw.arg] = self.parameter(fname, kw.arg, kw.value)
        self.complete(fname, params, node)
        return args, params

    # ---- parameters (engine/syntax.py: FUNCTIONS, SIGNATURES, REQUIRED) ---------------------
    def parameter(self, fname: str, key: str, node: ast.expr):
        """The value of parameter `key` of a call to `fname`; bad_argument at `node` if it is
        not one the parameter takes."""
        if key == "axis":
            return self.axis(node, fname)
        if key == "keepdims":
            if not (isinstance(node, ast.Constant) and type(node.value) is bool):
                raise self.error("bad_argument", "keepdims must be True or False", node)
            return node.value
        if key == "approximate":
            return self.approximate(node)
        if key == "target":
            return self.targets(node)
        if key == "correction":
            value = number(node)
            if type(value) is not int or not 0 <= value <= MAX_CLASS_INDEX:
                raise self.error("bad_argument", "correction must be a non-negative integer "
                                 "(1: the unbiased variance, torch.var's default; 0: the "
                                 "population variance)", node)
            return value
        if key in ("lo", "hi") and isinstance(node, ast.Constant) and node.value is None:
            return None
        value = number(node)   # slope, lo, hi, eps: a number
        if value is None:
            raise self.error("bad_argument", f"{key} of {fname} must be a number"
                             + (" or None" if key in ("lo", "hi") else ""), node)
        try:   # an integer stays one (clip(x, 0, 1) reads as written) if float64 holds it
            value = value if type(value) is int and abs(value) < 2**53 else float(value)
        except OverflowError:
            raise self.error("bad_argument", f"{key} is too large for float64", node) from None
        if key == "eps" and not 0 < value < float("inf"):
            raise self.error("bad_argument", "eps must be a positive number", node)
        if key == "slope" and not abs(value) < float("inf"):
            raise self.error("bad_argument", "slope must be a finite number", node)
        return value

    def complete(self, fname: str, params: dict, node: ast.Call) -> None:
        """Refuse a call that leaves out a parameter it needs."""
        for key in REQUIRED.get(fname, ()):
            if key not in params:
                raise self.error("bad_argument", f"{fname} takes (logits, targets): a class "
                                 "index, or a list of class indices for a batch of logits",
                                 node)
        if fname == "clip" and params.get("lo") is None and params.get("hi") is None:
            raise self.error("bad_argument", "clip takes (x, lo, hi) with at least one bound "
                             "that is not None", node)

    def targets(self, node: ast.expr) -> int | tuple[int, ...]:
        """cross_entropy's targets: one class index, or a list of them (one per row)."""
        if isinstance(node, ast.List) and node.elts and all(number(e) is not None
                                                            for e in node.elts):
            return tuple(self.class_index(e) for e in node.elts)
        if type(node) is ast.Name and node.id in self.lifted:   # a long list, read as floats
            value = self.lifted[node.id].value
            if value.ndim != 1 or np.any(value != np.floor(value)) or np.any(value < 0) \
                    or np.any(value > MAX_CLASS_INDEX):
                raise self.error("bad_argument", "the targets must be a flat list of "
                                 "non-negative integer class indices", node)
            return tuple(int(v) for v in value)
        return self.class_index(node)

    def axis(self, node: ast.expr, fname: str = ""):
        value = number(node)
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            hint = {"max": "maximum", "min": "minimum"}.get(fname)
            raise self.error("bad_argument", "axis must be an integer or None"
                             + (f"; {fname}(x, axis) reduces one tensor, {hint}(a, b) compares "
                                "two elementwise" if hint else ""), node)
        if abs(value) > MAX_DIMS:   # no value has more axes; and a 4,000-digit axis stays out
            raise self.error("bad_argument", f"axis must be between -{MAX_DIMS} and {MAX_DIMS}",
                             node)
        return value

    def approximate(self, node: ast.expr) -> str:
        if not (isinstance(node, ast.Constant) and node.value in ("none", "tanh")):
            raise self.error("bad_argument", 'approximate must be "none" or "tanh"', node)
        return node.value

    def class_index(self, node: ast.expr) -> int:
        value = number(node)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise self.error("bad_argument", "the class index must be a non-negative integer "
                             "(or, for a batch of logits, a list of them)", node)
        if value > MAX_CLASS_INDEX:
            raise self.error("bad_argument", "the class index is larger than any tensor", node)
        return value

    def constant(self, node: ast.expr, outer: ast.expr | None = None) -> int:
        """A number or literal inside an expression; its label is its source text, clipped
        (a float literal may have a million digits)."""
        span = self.span(outer or node)
        label = self.text.clipped(span.line, span.col, span.end_line, span.end_col,
                                  MAX_LABEL) or "const"
        return self.add("const", "const", [], span, None, label=label,
                        literal=self.shared_number(node), params=self.init(node))

    def shared_number(self, node: ast.expr) -> np.ndarray:
        """self.literal(node), one read-only 0-d array per number a program's constants repeat
        (`x * 1.0001` on every line: about 100 bytes a constant node saved); read-only, so no
        in-place update can reach the constants that share it."""
        if type(node) is not ast.Constant or type(node.value) not in _NUMBER:
            return self.literal(node)
        key = (type(node.value), node.value)   # 1 and 1.0 stay apart (and so do 0.0 and -0.0
        shared = self.numbers.get(key)         # by their type and sign: -0.0 is a UnaryOp)
        if shared is None:
            shared = self.numbers[key] = self.literal(node)
            shared.flags.writeable = False
        return shared

    def init(self, node: ast.expr) -> dict | None:
        """{"init": "randn(4, 5, seed=0)"} for a value made by a leaf helper, else None."""
        made = self.inits.get(id(node)) if self.inits else None
        return None if made is None else {"init": made}

    def is_literal(self, node: ast.expr) -> bool:
        """syntax.is_literal, with a big list read from its text instead of walked."""
        if type(node) is ast.Name:
            return node.id in self.lifted
        return self.list_literal(node) is not None or is_literal(node) or \
            self.is_helper_call(node)

    def is_const_call(self, node: ast.expr) -> bool:
        """syntax.is_const_call, with a big list read from its text instead of walked."""
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "const" and len(node.args) == 1 and not node.keywords
                and self.is_literal(node.args[0]))

    def list_literal(self, node: ast.expr) -> np.ndarray | None:
        """A big list of numbers read from its source text by a JSON parser (orjson), or None
        to walk it node by node as before.

        A 1024 x 1024 weight matrix is a million AST nodes; walking them in Python cost 88% of
        a tensor trace. A list whose text holds only digits, signs, points, exponents,
        brackets, commas and blanks is JSON when it parses as JSON, and then means the same
        numbers: both round a decimal to the nearest float64. Anything else (`1_000`, `.5`,
        `+1`, a trailing comma, a comment, a ragged or empty list, an integer beyond 64 bits,
        a non-ASCII program whose columns are bytes) is left to the walk, which also makes
        its error messages. Remembered per node, so `literal` does not read it twice.
        """
        if type(node) is not ast.List or not self.text.ascii:
            return None
        if id(node) in self.lists:
            return self.lists[id(node)]
        text = self.text.segment(node.lineno, node.col_offset, node.end_lineno,
                                 node.end_col_offset)
        if len(text) < MIN_JSON_LIST or _NOT_JSON_NUMBERS.search(text):
            return None
        try:
            value = np.array(orjson.loads(text), dtype=np.float64)
        except (orjson.JSONDecodeError, ValueError, TypeError, OverflowError):
            return None
        if value.ndim == 0 or value.size == 0 or value.ndim > MAX_DIMS:
            return None
        self.lists[id(node)] = value
        return value

    def literal(self, node: ast.expr) -> np.ndarray:
        """A number, nested list of numbers or leaf helper call as an array of the program's
        dtype. A number that does not fit it (1e39 in float32) is an error."""
        value = self.literal64(node)
        if self.dtype == DEFAULT:
            return value
        out = cast(value, self.dtype)
        if out is None:
            raise self.error("bad_argument", too_large(self.dtype), node)
        return out

    def literal64(self, node: ast.expr) -> np.ndarray:
        """A number or nested list of numbers as a float64 array.

        Ragged lists, lists nested deeper than MAX_DIMS and integers beyond float64 are errors.
        """
        if self.is_helper_call(node):
            return self.helper(node)
        if id(node) in self.lists:   # read from its text already (list_literal)
            return self.lists[id(node)]
        if type(node) is ast.Name and node.id in self.lifted:
            return self.lifted[node.id].value
        if type(node) is ast.Constant and type(node.value) in _NUMBER:   # the common case
            try:
                return np.array(float(node.value))
            except OverflowError:
                raise self.error("bad_argument", "a number is too large for float64 (the "
                                 "largest is about 1.8e308)", node) from None
        if depth(node) > MAX_DIMS:
            raise self.error("bad_argument", f"a list may be nested at most {MAX_DIMS} deep",
                             node)
        try:
            value = np.array(literal_value(node), dtype=np.float64)
        except OverflowError:
            raise self.error("bad_argument", "a number is too large for float64 (the largest "
                             "is about 1.8e308)", node) from None
        except ValueError:
            raise self.error("bad_argument", "a nested list must be rectangular, like "
                             "[[1, 2], [3, 4]]", node) from None
        return value

    # ---- nodes -------------------------------------------------------------------------------
    def add(self, op: str, role: str, inputs: list[int], span: Span, name: str | None,
            label: str | None = None, params: dict | None = None, literal=None) -> int:
        if label is None:
            label = self.label(name, span, op, inputs, params or {})
        index = len(self.nodes)
        self.nodes.append(IRNode(index, op, role, inputs, span, label, name,
                                 params or NO_PARAMS, literal))
        return index

    def label(self, name: str | None, span: Span, op: str, inputs: list[int] = (),
              params: dict | None = None) -> str:
        """A name with one prime per earlier assignment, else the expression printed from
        the tree with the parentheses precedence needs (engine/labels.py: `X@W+b` and
        `X @ W + b` read alike), else its source text; clipped to MAX_LABEL characters (so a
        label costs the same on a line of any length)."""
        if name is not None:
            return primed(name, self.times_assigned.get(name, 0))
        printed = print_label(op, [self.nodes[i] for i in inputs], params or {})
        return printed or self.text.clipped(span.line, span.col, span.end_line, span.end_col,
                                            MAX_LABEL) or op


def _usage(fname: str, values: int, positional: tuple, allowed: tuple, given: int | None = None
           ) -> str:
    """How a function is called, for an error: "sum takes 1 value argument, then axis; keyword
    parameters: axis, keepdims (got 3 arguments)"."""
    text = f"{fname} takes {values} value argument{'s' if values != 1 else ''}"
    if positional:
        text += ", then " + ", ".join(positional)
    if allowed:
        text += "; keyword parameters: " + ", ".join(allowed)
    return text + ("" if given is None else f" (got {given} argument{'s' if given != 1 else ''})")


def _function_hint(name: str) -> str:
    """The hint of an unknown function: the nearest names first ("did you mean `tanh`?", by
    difflib's ratio), then every function, so a typo is answered in the first words."""
    known = sorted({*FUNCTIONS, *STRUCTURE, *HELPERS, "const"})
    near = difflib.get_close_matches(name, known, n=2, cutoff=0.7)
    every = "the functions are " + ", ".join(known)
    if not near:
        return every
    return "did you mean " + " or ".join(f"`{n}`" for n in near) + "? " + every
