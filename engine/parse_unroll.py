"""The Python people already write for micrograd-style engines, mixed into engine/parse.py's
builder and unrolled when the program is parsed (never executed; issue 18 §4):

- methods: `(a * b).relu()`, `x.tanh()`, `x.sum(axis=0)`: any function of METHODS (those of
  engine/syntax.py FUNCTIONS that take one value) called on its value; the same IR as
  `relu(a * b)`, the node's span the whole call. Another method is refused, named.
- tuple unpacking: `a, b = 1.0, 2.0`, `x, y = y, x`: the right side is read first (Python's
  order), then each name is bound as if `name = value` stood on its own line.
- loops: `for i in range(k):`, `range(a, b)`, `range(a, b, step)` with literal int bounds
  (and `for x, y in zip(X, Y):` over lists: engine/parse_zip.py);
  the body is built once per iteration with `i` a constant int (in arithmetic, and as an
  index `w[i]`). Each loop is a group named by its header, each iteration a group inside it
  (`for i in range(3): i = 0`; engine/groups.py). Names rebound in the body follow the usual
  rules (x, x', x'', ...).

Limits: an unrolled loop counts each iteration's statements against max_statements, checked
before anything is built (count_statements); a loop that takes the program over the limit is
refused "too_large" at the loop's line and column, its message spelling out the sum (those
before it + 1 for the `for` line + iterations x statements: loop_too_large). A bound that is not
an int literal says the int it comes to when it is one (`10**9`: not_literal).
"""
from __future__ import annotations

import ast

from gradwalk.engine.blocks import Block, Statement
from gradwalk.engine.clip import clip
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse_zip import Element, is_zip
from gradwalk.engine.syntax import (FUNCTIONS, MAX_FOLD_BITS, RESERVED, SIGNATURES, folded,
                                     number)
from gradwalk.engine.wording import counted

# functions of one value: each may be written as a method of it, as micrograd's Value has them
METHODS = tuple(sorted(f for f in FUNCTIONS if SIGNATURES.get(f, (1, ()))[0] == 1))
MAX_GROUP_TEXT = 48   # characters of a loop's header in its groups' names
_ASSIGN = ast.Assign
_RANGE_USAGE = ("{what} goes over range(...) with literal int bounds, as in "
                "{example} or `for i in range(1, 10, 2)`")


class UnrollSyntax:
    """Methods of engine.parse._Builder for methods, tuple unpacking and loops (see the
    module docstring). Uses the builder's error, span, attribute_span, identifier, call,
    expression, statement, leaf, lookup, add, shared_number, not_data, names, leaves, nodes,
    body, text, times_assigned, last_line and current; keeps `loop_values` (loop variable ->
    its int in the iteration being built)."""

    loop_values: dict[str, int]
    over: ast.stmt | None = None   # the first statement past max_statements (count_statements)
    max_statements: int | None = None   # the program's limit (engine/parse.py), for messages

    # ---- methods -----------------------------------------------------------------------------
    def method_call(self, node: ast.Call, name: str | None):
        """`x.f(params)` read as `f(x, params)`: the call's node spans the whole call."""
        func = node.func
        where = self.attribute_span(func)
        self.identifier(func.attr, func, where)
        if func.attr == "T":
            raise ProgramError("unsupported", "`.T` is an attribute, not a method: write `x.T`, "
                               "without ()", where.line, where.col, where.end_line, where.end_col)
        if func.attr not in METHODS:
            hint = ("gradwalk runs the backward pass itself: leave out `.backward()`"
                    if func.attr == "backward" else
                    "write it as a function, as in `relu(x)`; the methods are "
                    + ", ".join(f".{m}()" for m in METHODS))
            raise ProgramError("unsupported", f"the method `.{clip(func.attr, 40)}()` is not "
                               "supported", where.line, where.col, where.end_line, where.end_col,
                               hint=hint)
        function = ast.copy_location(ast.Name(func.attr, ast.Load()), func)
        call = ast.copy_location(ast.Call(function, [func.value, *node.args], node.keywords),
                                 node)
        return self.call(call, name)

    def refuse_backward(self, stmt: ast.stmt) -> None:
        """`L.backward()` (any arguments) on a line of its own, PyTorch's and micrograd's
        habit: a located error saying the line is not needed."""
        call = stmt.value if type(stmt) is ast.Expr else None
        if type(call) is ast.Call and type(call.func) is ast.Attribute and \
                call.func.attr == "backward":
            raise self.error("unsupported", "gradwalk walks the backward pass itself: "
                             f"`{clip(ast.unparse(call), 40)}` is not needed", stmt,
                             hint="delete this line: the output is the last name assigned")

    # ---- aliases ----------------------------------------------------------------------------
    def alias(self, target: ast.Name, value: ast.Name) -> None:
        """`L = y`: the value y names is called L from here on (its label reads L, as the
        output or wherever it is used next; `L = y` makes no node, as in Python), not y's
        primed label as before. A leaf or a constant keeps its own name (its gradient is
        reported by it; `s = b` then `s = s + ...` in a loop is common)."""
        index = self.lookup(value)
        node = self.nodes[index]
        if node.role == "op":
            self.relabel(index, target.id)
        self.names[target.id] = index

    # ---- tuple unpacking ---------------------------------------------------------------------
    def is_tuple_statement(self, stmt: ast.Assign) -> bool:
        return len(stmt.targets) == 1 and type(stmt.targets[0]) is ast.Tuple and \
            type(stmt.value) is ast.Tuple

    def tuple_assignment(self, stmt: ast.Assign) -> list[Statement]:
        """`a, b = e1, e2`: e1 then e2 made (each named as its target), then the names bound;
        one Statement for each name (engine/groups.py reads them as lines of their own)."""
        targets, values = stmt.targets[0].elts, stmt.value.elts
        if len(targets) != len(values):
            raise self.error("unsupported", f"{len(targets)} names and {len(values)} values: "
                             "a tuple assignment gives each name one value", stmt)
        seen: set[str] = set()
        for target in targets:
            if type(target) is not ast.Name:
                raise self.error("unsupported", "a tuple assignment assigns names, as in "
                                 "`a, b = 1.0, 2.0`", target)
            self.target_name(target)
            if target.id in seen:
                raise self.error("unsupported", f"`{target.id}` is assigned twice in one "
                                 "tuple assignment", target)
            seen.add(target.id)
        made, parts, span = [], [], self.span(stmt)
        for target, value in zip(targets, values):
            first = len(self.nodes)
            value = self.unwrap_value(value)   # `a, b = Value(1.0), Value(2.0)`
            if self.is_literal(value) or self.is_const_call(value):
                made.append(self.leaf(target.id, value, target, bind=False))
            else:
                made.append(self.expression(value, target.id))
            parts.append(Statement(first, len(self.nodes), target.id, span))
        for target, index in zip(targets, made):
            self.names[target.id] = index
            if self.nodes[index].role == "leaf" and self.nodes[index].name == target.id:
                self.leaves[target.id] = index
            self.times_assigned[target.id] = self.times_assigned.get(target.id, 0) + 1
        self.last = targets[-1].id
        return parts

    def target_name(self, target: ast.Name) -> None:
        """Refuse a name that may not be assigned: reserved, a function, data, a loop's
        variable."""
        self.identifier(target.id, target)
        if target.id in RESERVED:
            raise self.error("unsupported", f"`{target.id}` is a built-in function and cannot "
                             "be assigned", target)
        if target.id in self.loop_values:
            raise self.error("unsupported", f"`{target.id}` is the loop's variable, a constant "
                             "of each iteration: assign to another name", target)
        self.not_data(target.id, target)

    # ---- loops -------------------------------------------------------------------------------
    def loop_range(self, stmt: ast.For) -> tuple[str, range]:
        """The loop variable and its range; ProgramError for any other loop."""
        if stmt.orelse:
            raise self.error("unsupported", "a loop's `else:` is not supported", stmt.orelse[0])
        return self.range_of(stmt.target, stmt.iter)

    def range_of(self, target: ast.expr, call: ast.expr, what: str = "a loop"
                 ) -> tuple[str, range]:
        """The variable and range of `for target in call`, in a loop or (what) a
        comprehension."""
        example = "`for i in range(3):`" if what == "a loop" else "`[f(i) for i in range(3)]`"
        if type(target) is not ast.Name:
            raise self.error("unsupported", f"{what} takes one name, as in {example}", target)
        if not (type(call) is ast.Call and type(call.func) is ast.Name and
                call.func.id == "range"):
            raise self.error("unsupported", _RANGE_USAGE.format(what=what, example=example), call)
        if call.keywords or not 1 <= len(call.args) <= 3:
            raise self.error("bad_argument", "range takes 1 to 3 int literals: range(stop), "
                             "range(start, stop) or range(start, stop, step)", call)
        bounds = []
        for arg in call.args:
            value = number(arg)
            if type(value) is not int:
                raise self.error("bad_argument", self.not_literal(arg, call.args), arg)
            bounds.append(value)
        if len(bounds) == 3 and bounds[2] == 0:
            raise self.error("bad_argument", "range's step cannot be zero", call.args[2])
        return target.id, range(*bounds)

    def not_literal(self, arg: ast.expr, args: list[ast.expr]) -> str:
        """Why range's bound `arg` is refused and what to write instead: the int it comes to
        when it is one (`10**9`, `1e9`), and, when every bound is, whether so many iterations
        would pass max_statements anyway (a newcomer's `range(10**9)`, said in one go)."""
        base = "range's bounds are int literals, known when the program is read"
        if type(arg) is ast.Name:
            return f"{base} (`{clip(arg.id, 40)}` is a name): write a number in its place, " \
                   "as in `range(1000)`"
        value = _as_int(arg)
        if value is None:
            return f"{base}: write a number, as in `range(1000)`"
        where = self.span(arg)   # the bound as typed: `10**9`, not unparse's `10 ** 9`
        typed = self.text.clipped(where.line, where.col, where.end_line, where.end_col, 40)
        base += f": write {value} in place of `{typed or clip(ast.unparse(arg), 40)}`"
        ints = [_as_int(a) for a in args]
        if self.max_statements is None or None in ints or len(ints) == 3 and ints[2] == 0:
            return base
        times = length(range(*ints))
        if times <= self.max_statements:
            return base
        return f"{base}, though the loop would then run {counted(times, 'iteration')}, past " \
               f"the limit (max_statements) of {self.max_statements:,} statements"

    def iterations(self, target: ast.expr, iterable: ast.expr, line: int, what: str = "a loop"):
        """(the variables, how many iterations, each iteration's {variable: value}) of `for
        target in iterable`: over range(...) here, over zip(...) in engine/parse_zip.py."""
        if is_zip(iterable):
            return self.zip_iterations(target, iterable, line)
        var, steps = self.range_of(target, iterable, what)
        return [var], length(steps), ({var: value} for value in steps)

    def loop(self, stmt: ast.For) -> None:
        """A loop's body built once per iteration: a group for the loop, one inside it for
        each iteration."""
        self.current = (stmt.lineno, self.text.char_col(stmt.lineno, stmt.col_offset))
        if stmt.lineno == self.last_line:
            raise self.error("unsupported", "one statement per line, please", stmt)
        if stmt.orelse:
            raise self.error("unsupported", "a loop's `else:` is not supported", stmt.orelse[0])
        variables, count, steps = self.iterations(stmt.target, stmt.iter, stmt.lineno)
        for var in variables:
            self.identifier(var, stmt.target)
            if var in self.names or var in RESERVED or var in self.loop_values:
                raise self.error("unsupported", f"`{var}` already names a value: a loop's "
                                 "variable is a new name", stmt.target)
        header = clip(" ".join(self.text.line(stmt.lineno)[stmt.col_offset:].split()),
                      MAX_GROUP_TEXT).rstrip(":")
        extent, outer_body = self.span(stmt), self.body
        whole = Block("group", len(self.nodes), 0, self.span(stmt.iter), header, extent=extent,
                      loop=True)
        for values in steps:
            step = Block("group", len(self.nodes), 0, whole.span, f"{header}: "
                         + ", ".join(f"{k} = {_shown(v)}" for k, v in values.items()),
                         extent=extent)
            self.body = step.body
            self.loop_values.update(values)
            self.last_line = stmt.lineno
            for inner in stmt.body:
                self.statement(inner)
            step.end = len(self.nodes)
            whole.body.append(step)
            if len(whole.body) == 1:   # each iteration builds the same nodes: counted now
                self.loop_nodes(stmt, count, step.end - step.first)
        for var in variables:
            self.loop_values.pop(var, None)
        self.body = outer_body
        whole.end = len(self.nodes)
        outer_body.append(whole)
        self.last_line = max(self.last_line, stmt.end_lineno)

    def loop_nodes(self, stmt: ast.For, count: int, each: int) -> None:
        """too_large at the loop when its `count` iterations of `each` nodes (its first
        iteration's) would take the program over max_nodes: said in milliseconds, where
        building them all took 18 s to be refused by the trace's count (20,000 iterations)."""
        total = len(self.nodes) + each * (count - 1)
        if self.max_nodes is not None and total > self.max_nodes:
            raise self.error("too_large", f"this loop runs {counted(count, 'iteration')} of "
                             f"{counted(each, 'node')}: the program would make {total:,} nodes; "
                             f"the limit (max_nodes) is {self.max_nodes:,}", stmt,
                             hint="loop fewer times; the setting is GRADWALK_MAX_NODES")

    def bind_variable(self, var: str, value: int | None) -> None:
        """Set a loop or comprehension variable (None: it is no longer bound)."""
        if value is None:
            self.loop_values.pop(var, None)
        else:
            self.loop_values[var] = value

    def loop_constant(self, node: ast.Name) -> int:
        """The loop variable where a value is read: a constant node of its number (labelled
        by the number, as `x * 0` written by hand), or the element of a named list it stands
        for (`X[2]`, engine/parse_zip.py), built once in the iteration."""
        value = self.loop_values[node.id]
        if isinstance(value, Element):
            if value.built is None:
                value.built = self.expression(value.expr)
            return value.built
        made = ast.copy_location(ast.Constant(value), node)
        return self.add("const", "const", [], self.span(node), None, label=str(value),
                        literal=self.shared_number(made))

    # ---- the statement limit -----------------------------------------------------------------
    def count_statements(self, stmts: list[ast.stmt], limit: int, before: int = 0) -> int:
        """The statements `stmts` build, an unrolled loop's body once per iteration (a `with`
        or `for` line is one more); `before`: those the program builds ahead of them.
        too_large at the first loop that takes the program over `limit`; a plain statement
        past the limit is left to the caller (its error names the total). Recursive over
        nested blocks only, which Python's parser bounds (20 deep). A statement whose calls
        take the program over `limit` is refused at the call that does it (too_many_calls).
        The first other statement over it is kept in `over`, for the caller's error."""
        total = 0
        for stmt in stmts:
            kind = type(stmt)
            if kind is _ASSIGN and not self.defined:   # the commonest, first: no call to cost
                total += 1   # (a 25,000-line chain looked ast.With, ast.For... up on each line)
            elif kind is ast.With:
                total += 1 + self.count_statements(stmt.body, limit, before + total + 1)
            elif kind is ast.FunctionDef:   # counted at each call (parse_functions.call_cost)
                self.defined.setdefault(stmt.name, stmt)
                total += 1
            elif kind is ast.For:
                try:
                    times = self.zip_count(stmt.iter, stmt.lineno) if is_zip(stmt.iter) else \
                        length(self.loop_range(stmt)[1])
                except ProgramError:   # said when the loop is built, after the lines before it
                    times = 1
                inner = self.count_statements(stmt.body, limit, before + total + 1) \
                    if times else 0
                size = 1 + times * inner
                if before + total + size > limit:
                    raise self.loop_too_large(stmt, before + total, times, inner, limit)
                total += size
            else:
                cost = self.call_cost(stmt) if self.defined else 0
                if cost and before + total + 1 + cost > limit:
                    raise self.too_many_calls(stmt, before + total + 1, limit)
                total += 1 + cost
            if self.over is None and before + total > limit:
                self.over = stmt   # (a `with` line over it: its body's first statement)
        return total

    def loop_too_large(self, stmt: ast.For, before: int, times: int, inner: int, limit: int
                       ) -> ProgramError:
        """too_large at a loop whose `times` iterations of `inner` statements take the program
        past `limit`, with the sum spelled out as count_statements adds it: the `before`
        statements ahead of the loop, 1 for the `for` line, then times x inner. It stops at
        the loop's end: the statements after it are not counted (the loop is refused first)."""
        total = before + 1 + times * inner
        parts = ([f"{before:,} before the loop"] if before else []) + \
            ["1 for the `for` line", f"{times:,} × {inner:,} in the loop"]
        return self.error("too_large", f"this loop runs {counted(times, 'iteration')} of "
                          f"{counted(inner, 'statement')}: by its end the program would have run "
                          f"{counted(total, 'statement')} ({' + '.join(parts)}); the limit "
                          f"(max_statements) is {limit:,}", stmt,
                          hint="loop fewer times; the setting is GRADWALK_MAX_STATEMENTS")


def _as_int(arg: ast.expr) -> int | None:
    """The int a bound of range stands for, for a message: an int literal, a whole float
    literal (`1e9`, `3.0`) or an expression of int literals (`10**9`, engine/syntax.py folded);
    else None."""
    value = number(arg)
    if type(value) is float:
        return int(value) if value.is_integer() and abs(value) < 2 ** MAX_FOLD_BITS else None
    return value if type(value) is int else folded(arg)


def _shown(value) -> str:
    """A loop variable's value in its iteration's group name: `i = 0`, `x = X[1]`."""
    return ast.unparse(value.expr) if isinstance(value, Element) else str(value)


def length(steps: range) -> int:
    """len(steps), also past sys.maxsize (where len raises OverflowError)."""
    start, stop, step = steps.start, steps.stop, steps.step
    span = stop - start if step > 0 else start - stop
    return max(0, -(-span // abs(step)))
