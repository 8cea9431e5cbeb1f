"""Comprehensions over range in the language, mixed into engine/parse.py's builder and unrolled
when the program is parsed (issue 18 §4; loops are engine/parse_unroll.py):

- `sum(w[i] * x[i] for i in range(3))`, `sum((...) for i in range(3), start)`, also over a list
  comprehension: Python's sum, `start + t0 + t1 + t2` made as written by hand (t0, +, t1, +,
  ...; without a start, `t0 + t1 + t2`), the last add named by the statement;
- `[tanh(w[i]) for i in range(3)]`: a list is a tensor here, so the elements are stacked
  (op stack, axis 0; at most MAX_PIECES of them, as stack's).

Each `for` clause goes over range(...) with int literal bounds, or zip(...) of lists
(engine/parse_zip.py; several clauses: every combination, the first outermost); its variables
are constants of each element, or the elements of a named list they read, as a loop's.
An `if` clause, any other iterable, a name of the program's as the variable, an empty sum
without a start, or more elements than the program's statement room (max_statements less the
statements it has; in a function, counted with the function's size at each call:
engine/parse_functions.py) are refused at their place. A comprehension whose elements would
take the program over max_nodes is refused once its first element is built (CHECK items), as
a loop is (engine/parse_unroll.py loop_nodes): 100,000 elements built 300,000 nodes before the
statement's count refused them (27 s on a loaded machine; a review).

The expression walk (engine/parse_expressions.py) takes an operand list that holds, besides
(node, name) operands, BIND items that set a variable's value before the operand after them
(and put back the outer value at the end), CHECK items (CHECK, fn) whose fn() is called where
they come, and combine items (fn, arity) run in between.
"""
from __future__ import annotations

import ast
import itertools

from gradwalk.engine.parse_tensors import MAX_PIECES
from gradwalk.engine.wording import counted

BIND = object()   # (BIND, variable, value or None): a marker item of the expression walk
CHECK = object()   # (CHECK, fn): fn() called by the walk where the item comes


class ComprehensionSyntax:
    """Methods of engine.parse._Builder for comprehensions (see the module docstring). Uses
    the builder's error, span, add, range_of, loop_values, names; keeps `room`, the statements
    the comprehensions may still add (set by engine.parse.parse)."""

    room: int

    def is_comprehension(self, node: ast.expr) -> bool:
        return type(node) in (ast.ListComp, ast.GeneratorExp)

    def elements(self, node: ast.ListComp | ast.GeneratorExp, extra: int = 0
                 ) -> tuple[list, int]:
        """The operand items of every element (each after its variables' BIND items, the
        outer values put back at the end) and how many elements there are. extra: the nodes
        each element after the first adds besides its own (sum's `+`), for the node bound."""
        variables, clauses = [], []
        for clause in node.generators:
            if clause.ifs or clause.is_async:
                raise self.error("unsupported", "a comprehension's `if` (and `async for`) is "
                                 "not supported: every element is built", clause.ifs[0]
                                 if clause.ifs else node)
            names, count, steps = self.iterations(clause.target, clause.iter, node.lineno,
                                                  "a comprehension")
            for var in names:
                if var in self.names or var in variables:
                    raise self.error("unsupported", f"`{var}` already names a value: a "
                                     "comprehension's variable is a new name", clause.target)
            variables += names
            clauses.append((count, steps))
        count = 1
        for n, _ in clauses:
            count *= n
        count *= 1 + (self.call_cost(node.elt) if self.defined else 0)   # its calls' bodies
        if not self.calling:   # in a call: counted with the function (function_size)
            if count > self.room:
                raise self.error("too_large", f"the comprehension has {count:,} elements, "
                                 f"more than the {self.room:,} statements the program has "
                                 "room for (max_statements)", node)
            self.room -= count
        first = [0]   # the nodes made before the first element

        def mark() -> None:
            first[0] = len(self.nodes)
        items: list = [(CHECK, mark)]
        for k, combo in enumerate(itertools.product(*(list(steps) for _, steps in clauses))):
            for values in combo:
                items += [(BIND, var, value) for var, value in values.items()]
            items.append((node.elt, None))
            if k == 0:
                items.append((CHECK, lambda: self.element_nodes(node, count, first[0], extra)))
        items += [(BIND, var, self.loop_values.get(var)) for var in variables]
        return items, count

    def element_nodes(self, node: ast.expr, count: int, first: int, extra: int) -> None:
        """too_large at the comprehension when `count` elements, each making the nodes its
        first made (since `first`) and `extra` more, would take the program over max_nodes."""
        each = len(self.nodes) - first
        total = len(self.nodes) + (each + extra) * (count - 1)
        if self.max_nodes is not None and total > self.max_nodes:
            raise self.error("too_large", f"this comprehension makes "
                             f"{counted(count, 'element')} of {counted(each + extra, 'node')}: "
                             f"the program would make {total:,} nodes; the limit (max_nodes) "
                             f"is {self.max_nodes:,}", node,
                             hint="make fewer elements; the setting is GRADWALK_MAX_NODES")

    def list_comprehension(self, node: ast.ListComp, name: str | None):
        items, count = self.elements(node)
        if not 1 <= count <= MAX_PIECES:
            raise self.error("bad_argument", f"a list comprehension is a tensor of 1 to "
                             f"{MAX_PIECES} elements (stacked); this one has {count:,}", node)
        span = self.span(node)
        return items, lambda args: self.add("stack", "op", args, span, name,
                                            params={"axis": 0}), count

    def sum_of_terms(self, node: ast.Call, name: str | None):
        """Python's sum over a comprehension: ((start + t0) + t1) + ..., left to right."""
        if len(node.args) > 2 or node.keywords:
            raise self.error("bad_argument", "sum over a comprehension takes it and a start, "
                             "as in sum((w[i] * x[i] for i in range(3)), 0.0)", node)
        start = node.args[1] if len(node.args) == 2 else None
        # the first `+` is made before the first element's CHECK with a start, after without
        items, count = self.elements(node.args[0], extra=1 if start is None else 0)
        if count == 0 and start is None:
            raise self.error("bad_argument", "the range is empty: sum has no terms; give a "
                             "start, as in sum(..., 0.0)", node.args[0])
        span, made = self.span(node), [0]   # made: terms added so far
        terms = count + (start is not None)

        def add(args: list[int]) -> int:   # one `+`, the statement's name on the last
            made[0] += 1
            last = made[0] == terms - 1
            return self.add("add", "op", args, span, name if last else None)
        out: list = [] if start is None else [(start, None)]
        pending = len(out)   # values made and not yet added
        for item in items:
            out.append(item)
            if item[0] is not BIND and item[0] is not CHECK:   # an operand
                pending += 1
                if pending == 2:
                    out.append((add, 2))
                    pending = 1
        return out, lambda args: args[0], 1
