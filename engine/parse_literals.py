"""Literals in the language, mixed into engine/parse.py's builder: numbers, nested lists of
numbers (a big one read from its text by a JSON parser) and the leaf helpers' values, as arrays
of the program's dtype; a constant node for one inside an expression.
"""
from __future__ import annotations

import ast
import re

import numpy as np
from gradwalk.engine.dtypes import DEFAULT, cast, too_large
from gradwalk.engine.literals import read_numbers
from gradwalk.engine.syntax import MAX_DIMS, MAX_LABEL, depth, is_literal, literal_value

MIN_JSON_LIST = 256   # characters: a shorter list is walked (as cheap, and no JSON call)
_NOT_JSON_NUMBERS = re.compile(r"[^0-9eE.\-\[\],\s]")
NUMBER_TYPES = (int, float)   # the types of a number literal's value (bool is not one: `type is`)


class LiteralSyntax:
    """Methods of engine.parse._Builder for literals (see the module docstring). Uses the
    builder's error, span, add, text, lifted, lists, numbers, inits, dtype and helper."""

    def constant(self, node: ast.expr, outer: ast.expr | None = None) -> int:
        """A number or literal inside an expression; its label is its source text, clipped
        (a float literal may have a million digits)."""
        span = self.span(outer or node)
        if span.line == span.end_line and span.end_col - span.col <= MAX_LABEL:
            # text.clipped's answer without its call (a short range is not clipped)
            label = self.text.lines[span.line - 1][span.col:span.end_col] or "const"
        else:
            label = self.text.clipped(span.line, span.col, span.end_line, span.end_col,
                                      MAX_LABEL) or "const"
        if type(node) is ast.Constant:   # a plain number is made by no helper: no init
            shared = self.numbers.get((type(node.value), node.value))
            if shared is not None:   # shared_number's, found without its call
                return self.add("const", "const", [], span, None, label=label, literal=shared)
        literal = self.shared_number(node)
        index = self.add("const", "const", [], span, None, label=label, literal=literal,
                         params=self.init(node))
        if not np.isfinite(literal).all():   # once per number: later uses are shared above
            self.note_infinite(index, node)
        return index

    def note_infinite(self, index: int, node: ast.expr) -> None:
        """An "overflow_literal" warning at the first number literal under `node` that
        Python read as inf (`1e400`): the trace goes on with inf, as PyTorch would with the
        same float (edge points are taught with it), but said where it was written, not only
        as the first non-finite value at Done (a review)."""
        where = _first_infinite(node)
        span = self.span(where)
        text = self.text.clipped(span.line, span.col, span.end_line, span.end_col, 24)
        self.notes.append((
            "overflow_literal", f"`{text}` (line {span.line}, col {span.col + 1}) is beyond "
            "float64's largest number (about 1.8e308), so it is read as inf", index, span))

    def shared_number(self, node: ast.expr) -> np.ndarray:
        """self.literal(node), one read-only 0-d array per number a program's constants repeat
        (`x * 1.0001` on every line: about 100 bytes a constant node saved); read-only, so no
        in-place update can reach the constants that share it."""
        if type(node) is not ast.Constant or type(node.value) not in NUMBER_TYPES:
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

    def unwrap_value(self, node: ast.expr) -> ast.expr:
        """micrograd's `Value(1.0)` (and `Value(1.0, label="a")`) read as the literal 1.0: a
        leaf where it is assigned, a constant inside an expression (issue 18 §4: seed 000's
        examples minus the class). Any other node is returned as it is."""
        if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "Value":
            if len(node.args) != 1 or any(k.arg != "label" for k in node.keywords) or \
                    not self.is_literal(node.args[0]):
                raise self.error("bad_argument", "Value takes one number, as in `Value(1.0)` "
                                 "(gradwalk's own values need no class)", node)
            return node.args[0]
        return node

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
        value = read_numbers(text)
        if value is None:
            return None
        self.lists[id(node)] = value
        return value

    def literal(self, node: ast.expr) -> np.ndarray:
        """A number, nested list of numbers or leaf helper call as an array of the program's
        dtype. A number that does not fit it (1e39 in float32) is an error."""
        return self.as_dtype(self.literal64(node), node)

    def as_dtype(self, value: np.ndarray, node: ast.expr) -> np.ndarray:
        """A float64 value in the program's dtype; bad_argument at `node` if it does not fit."""
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
        if type(node) is ast.Constant and type(node.value) in NUMBER_TYPES:   # the common case
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


def _first_infinite(node: ast.expr) -> ast.expr:
    """The first number literal under `node` that Python read as inf (1e400), else `node`
    (the stretch that made the infinite value)."""
    for inner in ast.walk(node):
        if type(inner) is ast.Constant and type(inner.value) is float and \
                inner.value - inner.value != 0.0:
            return inner
    return node
