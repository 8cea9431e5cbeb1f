"""Program text -> a small IR, through Python's `ast` and a whitelist. Never eval, never exec.

The language: one `name = expression` statement per line; a literal on the right (a number, a
negative number, a nested list of numbers) declares a leaf that gets a gradient, `const(literal)`
a leaf that gets none, and so do Python's integer data and accumulators (`Y = [0, 1]` read only
by zip, `total = 0` rebound from itself: engine/parse_constants.py); expressions use
+ - * / ** @, unary -, `.T`, and the functions in FUNCTIONS. The builder here walks statements
and names; its parts by node kind are mixed in from engine/parse_locations.py (spans, errors
located at them, refused names), parse_expressions.py (operators, the explicit-stack walk),
parse_calls.py (calls and their parameters), parse_literals.py (numbers and lists),
parse_tensors.py (indexing, reshape, transpose, concat, stack, where with a comparison, the
leaf helpers randn, uniform, zeros, ones, eye, arange) and parse_data.py (`X, y = xor()` and
the other data helpers); the dtype (`# dtype: float32` on the first line) is in
engine/dtypes.py; the IR's types (IRNode, Program, InPlace) are in engine/ir.py. Every
IR node keeps the source span it came from.
"""
from __future__ import annotations

import ast
from array import array

import numpy as np

from gradwalk.engine.blocks import Block, Statement, block_kind
from gradwalk.engine.dtypes import program_dtype
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.ir import (  # IRNode, Program: also imported from here
    NO_PARAMS,
    InPlace,
    IRNode,
    Program,
)
from gradwalk.engine.labels import print_label
from gradwalk.engine.literals import Lifted, lift
from gradwalk.engine.parse_calls import CallSyntax
from gradwalk.engine.parse_comprehensions import ComprehensionSyntax
from gradwalk.engine.parse_constants import int_uses, is_int_constant
from gradwalk.engine.parse_data import DataSyntax
from gradwalk.engine.parse_expressions import ExpressionSyntax
from gradwalk.engine.parse_functions import FunctionSyntax
from gradwalk.engine.parse_literals import LiteralSyntax
from gradwalk.engine.parse_locations import LocationSyntax
from gradwalk.engine.parse_random import RandomSyntax
from gradwalk.engine.parse_run import RunSyntax
from gradwalk.engine.parse_tensors import TensorSyntax
from gradwalk.engine.parse_unroll import UnrollSyntax
from gradwalk.engine.parse_zip import ZipSyntax
from gradwalk.engine.second_order import read as second_order_header
from gradwalk.engine.source import Lines, Span, python_ast  # Span: also imported from here
from gradwalk.engine.switches import program_bugs
from gradwalk.engine.syntax import (
    MAX_DEPTH,
    MAX_ELEMENTS,
    MAX_LABEL,
    MAX_STATEMENTS,
    MAX_TOTAL_ELEMENTS,
    RESERVED,
    construct,
    primed,
)

_SYMBOL = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


def parse(text: str, max_statements: int = MAX_STATEMENTS, max_depth: int = MAX_DEPTH, *,
          dtype: str | None = None, max_elements: int = MAX_ELEMENTS,
          max_total_elements: int = MAX_TOTAL_ELEMENTS, max_nodes: int | None = None,
          early=None) -> Program:
    """Parse program text into IR. Raises ProgramError (with line and column) on bad input,
    "too_large" for more than `max_statements` statements or an expression nested deeper than
    `max_depth` (calls, lists and right operands count a level; see _Builder.expression), or
    for leaf helpers (randn, zeros, ...) over max_elements each or max_total_elements together
    (checked before they are made), or for a loop whose iterations would take the program over
    `max_nodes` nodes (None: no bound here), said at the loop once its first iteration is
    built (engine/parse_unroll.py). dtype: "float64" or "float32" asked by the caller (None:
    the program's `# dtype:` first line, else float64; engine/dtypes.py); every literal is of
    the program's dtype. early(tree, lines): called right after Python's parse when the
    program has no `# bugs:` and no `# hvp:` / `# hessian:` line, before any node is made (the
    Tracer's lower bound on the body, engine/trace/budget_early.py); what it raises is raised.

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
    builder = _Builder(lines, tree, max_depth, lifted)
    builder.max_nodes, builder.max_statements = max_nodes, max_statements
    count = builder.count_statements(tree.body, max_statements)   # loops unrolled
    builder.room = max_statements - count   # for comprehensions (engine/parse_comprehensions)
    if count > max_statements:
        s = builder.over or tree.body[-1]   # set by count_statements; the last, as a guard
        raise ProgramError("too_large", f"the program has {count:,} statements; the "
                           f"limit (max_statements) is {max_statements:,}", s.lineno,
                           lines.char_col(s.lineno, s.col_offset),
                           hint="trace a shorter program; the setting is "
                                "GRADWALK_MAX_STATEMENTS")
    builder.setup_tensors(program_dtype(text, dtype), max_elements, max_total_elements)
    bugs, bugs_at = program_bugs(text, tree.body[0].lineno if tree.body else None)
    second = second_order_header(text, tree.body[0].lineno if tree.body else None)
    if early is not None and not bugs and second is None:
        early(tree, lines)
    try:
        body = tree.body
        k = builder.operator_run(body, 0)   # the commonest lines, in one loop (parse_run)
        while k < len(body):
            stmt = body[k]
            builder.statement(stmt)
            if builder.max_nodes is not None and len(builder.nodes) > builder.max_nodes:
                raise builder.too_many_nodes(stmt)
            # Its syntax tree is done with (about 500 bytes a node): freed now, the nodes of
            # the statements after it reuse that memory, instead of the whole tree and the
            # whole IR being held at once (the trace's peak memory, bench/chain.py).
            body[k] = stmt = None
            builder.forget()
            k = builder.operator_run(body, k + 1)
    except RecursionError:   # a safety net: no walk here recurses on the program's shape
        raise ProgramError("too_large", "expression nested too deeply", *builder.current) from None
    if not builder.nodes:
        raise ProgramError("empty", "the program assigns nothing: write e.g. `a = 1.0`", 1, 0)
    builder.note_uncalled()
    return Program(builder.nodes, builder.names, builder.leaves, builder.last, builder.blocks,
                   builder.dtype, bugs, builder.no_grad, builder.inplace, second,
                   bugs_span=bugs_at and Span(bugs_at[0], 0, bugs_at[0], bugs_at[1]),
                   body=builder.body, lines=lines, notes=builder.notes, data=builder.data,
                   texts=builder.texts())


def _statements(tree: ast.Module) -> list[ast.stmt]:
    """Every statement, `with` and `for` lines and the statements of their bodies (nested
    blocks too, a loop's body once), in program order; walked with a stack (Python's parser
    bounds the nesting anyway)."""
    out, todo = [], [s for s in reversed(tree.body) if s is not None]   # None: freed (parse)
    while todo:
        stmt = todo.pop()
        out.append(stmt)
        if type(stmt) in (ast.With, ast.For):
            todo.extend(reversed(stmt.body))
    return out


class _Builder(CallSyntax, ComprehensionSyntax, DataSyntax, ExpressionSyntax, FunctionSyntax,
               LiteralSyntax, LocationSyntax, RandomSyntax, RunSyntax, TensorSyntax, UnrollSyntax,
               ZipSyntax):
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
        self.int_uses = int_uses(tree)   # integer data and accumulators (parse_constants)
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
        self.data: dict[str, str] = {}   # Program.data
        # loop variable -> its number, or the Element of a named list it reads (parse_unroll,
        # parse_zip)
        self.loop_values: dict[str, object] = {}
        self.plans: dict[str, tuple | None] = {}   # a line's text -> its plan (parse_run)
        # the Tracer's texts of the nodes parse_run makes, worked out as it makes them
        # (Program.texts): the nodes whose formula is not their label (an array: no object
        # a line), every node's binding strength, None for a node of the general path, whose
        # [first, end) ranges are `gaps`; stale once a label changes
        self.written = array("q")
        self.strengths: list[int | None] = []
        self.gaps: list[tuple[int, int]] = []
        self.stale = False
        self.setup_functions()   # parse_functions

    # ---- statements --------------------------------------------------------------------------
    def statement(self, stmt: ast.stmt) -> None:
        """One `name = expression` line; a rejected line reports its first bad name, if any."""
        try:
            if isinstance(stmt, ast.With):
                self.block(stmt)
            elif isinstance(stmt, ast.For):
                self.loop(stmt)
            elif isinstance(stmt, ast.FunctionDef):   # kept for its calls (parse_functions)
                self.define(stmt)
            elif not self.random_statement(stmt):   # import random, random.seed(n)
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
        first, mark = len(self.nodes), len(self.body)
        parts = self.assign(stmt)   # a tuple assignment: a Statement for each name
        if len(self.body) > mark:   # calls inlined (parse_functions): the line is a box of them
            line = Block("group", first, len(self.nodes), self.span(stmt), self.last,
                         extent=self.span(stmt))
            line.body, self.body[mark:] = self.body[mark:], [line]
            return
        self.body.extend(parts or [Statement(first, len(self.nodes), self.last,
                                             self.span(stmt))])

    def assign(self, stmt: ast.stmt) -> list[Statement] | None:
        self.current = (stmt.lineno, self.text.char_col(stmt.lineno, stmt.col_offset))
        if stmt.lineno == self.last_line:
            raise self.error("unsupported", "one statement per line, please", stmt)
        self.last_line = stmt.end_lineno
        if self.operator_statement(stmt):   # the commonest line (engine/parse_expressions)
            return None
        if isinstance(stmt, ast.AugAssign):
            return self.inplace_update(stmt)
        self.refuse_backward(stmt)   # `L.backward()` (engine/parse_unroll.py)
        if not isinstance(stmt, ast.Assign):
            decorators = getattr(stmt, "decorator_list", None)   # point at the first line
            raise self.error("unsupported", f"{construct(stmt)} is not supported; "
                             "write `name = expression`", decorators[0] if decorators else stmt)
        if self.is_tuple_statement(stmt):   # `a, b = 1.0, 2.0` (engine/parse_unroll.py)
            return self.tuple_assignment(stmt)
        if self.is_data_statement(stmt):   # `X, y = xor()` (engine/parse_data.py)
            return self.data_assignment(stmt)
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            raise self.error("unsupported", "assign to exactly one name, as in `x = 1.0`",
                             stmt.targets[-1] if len(stmt.targets) == 1 else stmt)
        target = stmt.targets[0]
        name = target.id
        self.target_name(target)
        random_leaf = self.is_random_value(stmt.value)   # `w = random.uniform(-1, 1)`
        value = stmt.value if random_leaf else self.unwrap_value(stmt.value)   # `Value(1.0)`
        if random_leaf:   # engine/parse_random.py
            self.random_leaf(name, value, target)
        elif self.is_literal(value) or self.is_const_call(value):
            self.leaf(name, value, target)
        elif type(stmt.value) is ast.Name and stmt.value.id in self.names:
            self.alias(target, stmt.value)
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
        self.target_name(target)
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

    def leaf(self, name: str, value: ast.expr, target: ast.Name, bind: bool = True) -> int:
        """A leaf (or const(...)) node named `name`; bound to it unless bind is False (a tuple
        assignment binds its names after reading every value)."""
        if name in self.names:
            raise self.error("duplicate_leaf", f"`{name}` is already assigned; a leaf is "
                             "declared once", target)
        is_const = self.is_const_call(value)
        made = value.args[0] if is_const else value
        literal = self.literal(made)
        # `Y = [0, 1, 1, 0]` read only by zip, `total = 0` rebound from itself: Python ints,
        # which get no gradient in PyTorch either (engine/parse_constants.py)
        role = "const" if is_const or is_int_constant(name, value, self.int_uses) else "leaf"
        index = self.add(role, role, [], self.span(value), name, name, literal=literal,
                         params=self.init(made))
        if not np.isfinite(literal).all():
            self.note_infinite(index, made)
        if bind:
            self.names[name] = index
            if role == "leaf":
                self.leaves[name] = index
        return index

    # ---- names -------------------------------------------------------------------------------
    def lookup(self, node: ast.Name) -> int:
        self.identifier(node.id, node)
        if node.id in self.names:
            return self.names[node.id]
        if node.id in self.loop_values:   # a loop's variable: its int (parse_unroll)
            return self.loop_constant(node)
        if node.id in RESERVED or node.id in self.functions:
            raise self.error("unsupported", f"`{node.id}` is a function: call it, as in "
                             f"`{node.id}(x)`", node)
        if node.id in self._targets():
            raise self.error("used_before_assignment", f"`{node.id}` is used before it is "
                             "assigned", node)
        raise self.error("unknown_name", f"`{node.id}` is not defined", node)

    def _targets(self) -> set[str]:
        """Every name the statements from the current one on assign (computed on the first
        unknown name; an earlier statement's tree is freed, and its names are in `names`)."""
        if self.all_targets is None:
            self.all_targets = {n.id for s in _statements(self.tree) if isinstance(s, ast.Assign)
                                for t in s.targets
                                for n in (t.elts if type(t) is ast.Tuple else (t,))
                                if isinstance(n, ast.Name)}
        return self.all_targets

    def forget(self) -> None:
        """Drop what is keyed by the id of a syntax-tree node of the statement just built (a
        list literal's value, a helper's init text, where's conditions): the tree is freed, and
        a later node could be given the same id."""
        if self.lists or self.inits or self.conditions:   # mostly all empty: no call
            self.lists.clear()
            self.inits.clear()
            self.conditions.clear()

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
