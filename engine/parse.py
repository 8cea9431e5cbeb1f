"""Program text -> a small IR, through Python's `ast` and a whitelist. Never eval, never exec.

The language: one `name = expression` statement per line; a literal on the right (a number, a
negative number, a nested list of numbers) declares a leaf that gets a gradient, `const(literal)`
a leaf that gets none; expressions use + - * / ** @, unary -, `.T`, and the functions in
FUNCTIONS. Every IR node keeps the source span it came from.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

import numpy as np

from engine.errors import ProgramError
from engine.syntax import (BINOPS, FUNCTIONS, MAX_DIMS, MAX_LABEL, RESERVED, OPERATORS,
                           construct, depth, first_bad_char, first_long_number,
                           is_const_call, is_literal, literal_value, longest_line, number,
                           supported_operator, primed)


@dataclass
class Span:
    """Source range: 1-based lines, 0-based character columns, end_col exclusive."""

    line: int
    col: int
    end_line: int
    end_col: int

    def to_dict(self) -> dict:
        return {"line": self.line, "col": self.col, "end_line": self.end_line,
                "end_col": self.end_col}


@dataclass
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


def parse(text: str) -> Program:
    """Parse program text into IR. Raises ProgramError (with line and column) on bad input."""
    # Python's parser also ends lines at a lone \r; one convention keeps lines and columns in
    # step with the page's textarea, which normalizes to \n too.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        tree = ast.parse(text, mode="exec")
    except SyntaxError as e:
        if "digits" in str(e.msg):   # an integer literal of thousands of digits
            raise ProgramError("bad_argument", "a number has too many digits (more than "
                               "4,300)", *first_long_number(text)) from None
        if e.lineno is None:   # e.g. a null byte: locate it ourselves
            raise ProgramError("syntax", f"syntax error: {e.msg}", *first_bad_char(text)) from None
        col = max((e.offset or 1) - 1, 0)
        end_col = (e.end_offset - 1) if e.end_offset and e.end_lineno == e.lineno else None
        if end_col is not None and end_col < col:
            end_col = None
        raise ProgramError("syntax", f"syntax error: {e.msg}", e.lineno, col,
                           e.end_lineno, end_col) from None
    except UnicodeError:
        raise ProgramError("syntax", "the program contains an invalid character (a lone "
                           "surrogate)", *first_bad_char(text)) from None
    except (MemoryError, RecursionError):   # absurd nesting or a huge one-line expression
        raise ProgramError("too_large", "an expression is nested too deeply or is too long for "
                           "the parser; split it over several lines", *longest_line(text)) from None
    except ValueError as e:   # null bytes
        raise ProgramError("syntax", f"cannot parse the program: {e}", *first_bad_char(text))
    builder = _Builder(text)
    try:
        for stmt in tree.body:
            builder.statement(stmt)
    except RecursionError:
        raise ProgramError("too_large", "expression nested too deeply", *builder.current) from None
    if not builder.nodes:
        raise ProgramError("empty", "the program assigns nothing: write e.g. `a = 1.0`", 1, 0)
    return Program(builder.nodes, builder.names, builder.leaves, builder.last)


class _Builder:
    """Walks the whitelisted ast and appends IR nodes."""

    def __init__(self, text: str):
        self.lines = text.split("\n")
        self.nodes: list[IRNode] = []
        self.names: dict[str, int] = {}
        self.leaves: dict[str, int] = {}
        self.assigned_later: set[str] = set()
        self.times_assigned: dict[str, int] = {}
        self.last = ""
        self.current = (1, 0)
        self.last_line = 0
        self.all_targets: set[str] | None = None

    # ---- locations ---------------------------------------------------------------------------
    def span(self, node: ast.AST) -> Span:
        return Span(node.lineno, self._char_col(node.lineno, node.col_offset),
                    node.end_lineno, self._char_col(node.end_lineno, node.end_col_offset))

    def _char_col(self, line: int, byte_col: int) -> int:
        """ast counts columns in UTF-8 bytes; the page counts characters."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))

    def error(self, kind: str, message: str, node: ast.AST) -> ProgramError:
        s = self.span(node)
        return ProgramError(kind, message, s.line, s.col, s.end_line, s.end_col)

    def source(self, span: Span) -> str | None:
        if span.line != span.end_line:
            return None
        return self.lines[span.line - 1][span.col:span.end_col]

    # ---- statements --------------------------------------------------------------------------
    def statement(self, stmt: ast.stmt) -> None:
        self.current = (stmt.lineno, stmt.col_offset)
        if stmt.lineno == self.last_line:
            raise self.error("unsupported", "one statement per line, please", stmt)
        self.last_line = stmt.end_lineno
        if not isinstance(stmt, ast.Assign):
            raise self.error("unsupported", f"{construct(stmt)} is not supported; "
                             "write `name = expression`", stmt)
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            raise self.error("unsupported", "assign to exactly one name, as in `x = 1.0`",
                             stmt.targets[-1] if len(stmt.targets) == 1 else stmt)
        target = stmt.targets[0]
        name = target.id
        if name in RESERVED:
            raise self.error("unsupported", f"`{name}` is a built-in function and cannot be "
                             "assigned", target)
        if is_literal(stmt.value) or is_const_call(stmt.value):
            self.leaf(name, stmt.value, target)
        else:
            self.names[name] = self.expression(stmt.value, name)
        self.times_assigned[name] = self.times_assigned.get(name, 0) + 1
        self.last = name

    def leaf(self, name: str, value: ast.expr, target: ast.Name) -> None:
        if name in self.names:
            raise self.error("duplicate_leaf", f"`{name}` is already assigned; a leaf is "
                             "declared once", target)
        is_const = is_const_call(value)
        literal = self.literal(value.args[0] if is_const else value)
        role = "const" if is_const else "leaf"
        index = self.add(role, role, [], self.span(value), name, name, literal=literal)
        self.names[name] = index
        if not is_const:
            self.leaves[name] = index

    # ---- expressions -------------------------------------------------------------------------
    def expression(self, node: ast.expr, name: str | None = None) -> int:
        """Append the nodes of an expression; returns the index of its result."""
        if isinstance(node, ast.Name):
            return self.lookup(node) if name is None else self.alias(node, name)
        if is_literal(node):
            return self.constant(node)
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and not supported_operator(node.op):
            raise self.error("unsupported", f"the operator {OPERATORS.get(type(node.op), '?')} "
                             "is not supported; the operators are + - * / ** @", node)
        if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
            args = [self.expression(node.left), self.expression(node.right)]
            return self.add(BINOPS[type(node.op)], "op", args, self.span(node), name)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.expression(node.operand, name if isinstance(node.op, ast.UAdd) else None)
            if isinstance(node.op, ast.UAdd):
                return operand
            return self.add("neg", "op", [operand], self.span(node), name)
        if isinstance(node, ast.Attribute):
            if node.attr != "T":
                raise self.error("unsupported", f"attribute access `.{node.attr}` is not "
                                 "supported (only `.T`)", node)
            return self.add("transpose", "op", [self.expression(node.value)], self.span(node), name)
        if isinstance(node, ast.Call):
            return self.call(node, name)
        if isinstance(node, ast.List):
            raise self.error("unsupported", "an empty list is not supported" if not node.elts
                             else "a list may hold only numbers or lists of numbers, as in "
                             "[[1.0, 2.0], [3.0, 4.0]]", node)
        if isinstance(node, ast.Constant):
            raise self.error("unsupported", f"{type(node.value).__name__} constant "
                             f"{node.value!r} is not supported; use numbers", node)
        raise self.error("unsupported", f"{construct(node)} is not supported", node)

    def alias(self, node: ast.Name, name: str) -> int:
        """`y = x` makes no new value; the name now refers to x's node."""
        return self.lookup(node)

    def lookup(self, node: ast.Name) -> int:
        if node.id in self.names:
            return self.names[node.id]
        if node.id in RESERVED:
            raise self.error("unsupported", f"`{node.id}` is a function: call it, as in "
                             f"`{node.id}(x)`", node)
        if node.id in self._targets(node):
            raise self.error("used_before_assignment", f"`{node.id}` is used before it is "
                             "assigned", node)
        raise self.error("unknown_name", f"unknown name `{node.id}`", node)

    def _targets(self, node: ast.AST) -> set[str]:
        """Every name the program assigns anywhere (computed on the first unknown name)."""
        if self.all_targets is None:
            tree = ast.parse("\n".join(self.lines))
            self.all_targets = {t.id for s in ast.walk(tree) if isinstance(s, ast.Assign)
                                for t in s.targets if isinstance(t, ast.Name)}
        return self.all_targets

    def call(self, node: ast.Call, name: str | None) -> int:
        func = node.func
        if isinstance(func, ast.Attribute):
            raise self.error("unsupported", f"calling a method (`.{func.attr}()`) is not "
                             "supported; only the functions and `.T` are", func)
        if not isinstance(func, ast.Name):
            raise self.error("unsupported", f"calling {construct(func)} is not supported", func)
        if func.id == "const":
            if len(node.args) != 1 or node.keywords or not is_literal(node.args[0]):
                raise self.error("bad_argument", "const takes one literal, as in "
                                 "`const([1.0, 2.0])`", node)
            return self.constant(node.args[0], node)
        if func.id not in FUNCTIONS:
            raise self.error("unsupported", f"unknown function `{func.id}`; the functions are "
                             + ", ".join(sorted(FUNCTIONS)) + ", const", func)
        op, allowed = FUNCTIONS[func.id]
        args, params = self.arguments(node, func.id, allowed)
        inputs = [self.expression(a) for a in args]
        return self.add(op, "op", inputs, self.span(node), name, params=params)

    def arguments(self, node: ast.Call, fname: str, allowed: tuple[str, ...]):
        """Split a call's arguments into value inputs and keyword parameters."""
        args = list(node.args)
        params: dict = {}
        if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords):
            raise self.error("unsupported", "* and ** arguments are not supported", node)
        if fname == "cross_entropy":
            if len(args) != 2 or node.keywords:
                raise self.error("bad_argument", "cross_entropy takes (logits, class_index)", node)
            params["target"] = self.class_index(args.pop())
        elif fname in ("sum", "mean") and len(args) == 2:
            params["axis"] = self.axis(args.pop())
        if len(args) != 1:
            raise self.error("bad_argument", f"{fname} takes one value argument, got {len(args)}",
                             node)
        for kw in node.keywords:
            if kw.arg not in allowed or kw.arg in params:
                raise self.error("bad_argument", f"{fname} has no parameter `{kw.arg}`", kw)
            params[kw.arg] = self.axis(kw.value) if kw.arg == "axis" else self.approximate(kw.value)
        return args, params

    def axis(self, node: ast.expr):
        value = number(node)
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error("bad_argument", "axis must be an integer or None", node)
        return value

    def approximate(self, node: ast.expr) -> str:
        if not (isinstance(node, ast.Constant) and node.value in ("none", "tanh")):
            raise self.error("bad_argument", 'approximate must be "none" or "tanh"', node)
        return node.value

    def class_index(self, node: ast.expr) -> int:
        value = number(node)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise self.error("bad_argument", "the class index must be a non-negative integer",
                             node)
        return value

    def constant(self, node: ast.expr, outer: ast.expr | None = None) -> int:
        span = self.span(outer or node)
        label = self.source(span) or "const"
        return self.add("const", "const", [], span, None, label=label, literal=self.literal(node))

    def literal(self, node: ast.expr) -> np.ndarray:
        """A number or nested list of numbers as a float64 array.

        Ragged lists, lists nested deeper than MAX_DIMS and integers beyond float64 are errors.
        """
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
            label = self.label(name, span, op)
        index = len(self.nodes)
        self.nodes.append(IRNode(index, op, role, inputs, span, label, name, params or {},
                                 literal))
        return index

    def label(self, name: str | None, span: Span, op: str) -> str:
        """A name with one prime per earlier assignment, else the (short) source text."""
        if name is not None:
            return primed(name, self.times_assigned.get(name, 0))
        text = self.source(span)
        if text is None:
            return op
        return text if len(text) <= MAX_LABEL else text[:MAX_LABEL - 1].rstrip() + "…"
