"""Expressions in the language, mixed into engine/parse.py's builder: operators, `.T`,
calls, indexing, where's comparison and unary signs, walked with an explicit stack (a chain of
any length, nesting up to max_depth), and the notes where a list means something else to
Python (`[0.0] * 3`, `[1.0] + [2.0]`).
"""
from __future__ import annotations

import ast

from gradwalk.engine.parse_comprehensions import BIND, CHECK
from gradwalk.engine.parse_literals import NUMBER_TYPES
from gradwalk.engine.parse_unroll import METHODS
from gradwalk.engine.source import clip
from gradwalk.engine.syntax import (BINOPS, MAX_NAME, OPERATORS, construct,
                                   number, supported_operator)
from gradwalk.engine.wording import counted


# The chain fast path (ExpressionSyntax.chain) on or off: tests turn it off to compare.
FAST_CHAIN = True


class ExpressionSyntax:
    """Methods of engine.parse._Builder for expressions (see the module docstring). Uses the
    builder's error, span, add, lookup, constant, call, subscript, compare, is_literal,
    identifier, attribute_span, conditions, notes, text, lifted, names, times_assigned, last
    and target_name."""

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
        if FAST_CHAIN and type(root) is ast.BinOp:
            index = self.chain(root, name)
            if index is not None:
                return index
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
            if item[0] is BIND:   # a comprehension's variable (parse_comprehensions)
                self.bind_variable(item[1], item[2])
                continue
            if item[0] is CHECK:   # a comprehension's node bound (parse_comprehensions)
                item[1]()
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
            if len(result) == 3:   # a comprehension's items (parse_comprehensions)
                operands, combine, arity = result
                todo.append((combine, arity))
                for k in range(len(operands) - 1, -1, -1):
                    o = operands[k]
                    todo.append(o if o[0] is BIND or o[0] is CHECK or callable(o[0]) else
                                (*o, level + 1))
                continue
            operands, combine = result
            todo.append((combine, len(operands)))
            chain = isinstance(node, (ast.BinOp, ast.Attribute, ast.Subscript))
            for k in range(len(operands) - 1, -1, -1):
                todo.append((*operands[k], level + (0 if chain and k == 0 else 1)))
        return done[0]

    def operator_statement(self, stmt: ast.stmt) -> bool:
        """`name = <operator>` (`x = x * 1.0001 + 0.001`, the commonest line), made as the
        builder's assign would make it, True; False for any other statement, untouched. An
        operator's value is none of assign's other cases (a backward call, a tuple, data, a
        draw, Value(...), a literal, an alias), whose tests cost a third of the line (issue
        15 §1)."""
        value = getattr(stmt, "value", None)
        if type(value) is not ast.BinOp or type(stmt) is not ast.Assign or \
                len(stmt.targets) != 1 or type(stmt.targets[0]) is not ast.Name:
            return False
        name = stmt.targets[0].id
        self.target_name(stmt.targets[0])
        self.names[name] = self.expression(value, name)
        self.times_assigned[name] = self.times_assigned.get(name, 0) + 1
        self.last = name
        return True

    def chain(self, root: ast.BinOp, name: str | None) -> int | None:
        """The commonest shape, without the general walk's stack of work items (issue 15 §1):
        a binary operator, or a left-leaning chain of them (`x * 1.0001 + 0.001`, `a * b - c`),
        whose operands are names or plain numbers. Makes the nodes the general walk makes, in
        its order (left to right), with its errors (an unknown name is looked up in the same
        place; an unsupported operator or any other operand leaves the whole expression to
        the general walk, before any node is made). None: not this shape."""
        if self.max_depth < 1:   # the right operands are one level deep
            return None
        links, node = [], root
        while type(node) is ast.BinOp:
            op = BINOPS.get(type(node.op))
            if op is None or not _plain(node.right):
                return None
            links.append((node, op))
            node = node.left
        if not _plain(node):
            return None
        if not (self.lifted or self.moved or not self.text.ascii):
            # the commonest: names bound and numbers seen before (engine/parse_run.py)
            index = self.operator_nodes(root, name)
            if index is not None:
                return index
        index = self.plain(node)
        for k in range(len(links) - 1, -1, -1):
            binop, op = links[k]
            index = self.add(op, "op", [index, self.plain(binop.right)], self.span(binop),
                             name if k == 0 else None)
        return index

    def plain(self, node: ast.expr) -> int:
        """A name's node, or a number's new constant (visit's first two cases)."""
        if type(node) is ast.Name and node.id not in self.lifted:
            found = self.names.get(node.id)
            if found is not None and len(node.id) <= MAX_NAME and node.id[:2] != "__":
                return found   # lookup's answer for a bound name, identifier's tests inline
            return self.lookup(node)
        return self.constant(node)

    def visit(self, node: ast.expr, name: str | None):
        """An index, or ([(operand, its name), ...], combine(operand indices) -> index)."""
        if isinstance(node, ast.Name):
            if node.id in self.lifted:
                return self.constant(node)   # a big list literal (engine/literals.py)
            return self.lookup(node)   # `y = x` makes no new value: y refers to x's node
        if type(node) is ast.Constant and type(node.value) in NUMBER_TYPES:
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
            if node.attr in METHODS:   # `x.relu`: micrograd's method, not called
                x = clip(ast.unparse(node.value), 30)
                if type(node.value) not in (ast.Name, ast.Call, ast.Attribute, ast.Subscript):
                    x = f"({x})"
                raise self.error("unsupported", f"`.{node.attr}` is a method: call it, "
                                 f"`{x}.{node.attr}()`", node,
                                 hint=f"or write it as a function, `{node.attr}({x})`")
            if node.attr != "T":
                raise self.error("unsupported", f"attribute access `.{clip(node.attr)}` is not "
                                 "supported (only `.T`)", node)
            span = self.span(node)
            return [(node.value, None)], lambda args: self.add("transpose", "op", args, span, name)
        if isinstance(node, ast.Call):
            return self.call(node, name)
        if type(node) is ast.ListComp:   # stacked (engine/parse_comprehensions.py)
            return self.list_comprehension(node, name)
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

    def list_meaning(self, node: ast.BinOp, op: str, span) -> tuple[str, str] | None:
        """A (kind, message) note where Python's lists would mean something else than the
        tensors they are here (numpy's meaning), since a student may mean Python's:
        `[0.0] * 3` multiplies (Python repeats the list: "list_repetition"), `[1.0] + [2.0]`
        adds (Python joins the lists: "list_concatenation"). span: the node's Span (engine/parse.py,
        not imported here: parse imports this module)."""
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

    def noted(self, index: int, note: tuple[str, str], span) -> int:
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


def _plain(node: ast.expr) -> bool:
    """A name (a big list literal's placeholder too: a constant) or a plain number."""
    kind = type(node)
    return kind is ast.Name or (kind is ast.Constant and type(node.value) in NUMBER_TYPES)
