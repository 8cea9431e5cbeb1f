"""`def f(x): ... return ...`, mixed into engine/parse.py's builder: a pure function inlined at
each call when the program is parsed (never executed; issue 18 §4).

A definition makes no node. A call `f(a, b)` reads its arguments in the caller's scope, then
builds the function's body with its parameters naming those values, as Python runs it: names
assigned in the body are the call's own (a global of the same name is read until the body
assigns it, and is never changed); the returned value is the call's, named by the caller's
statement (`y = f(x)` names it y). Each call is a group named by the call (`f(a, b)`,
engine/groups.py), its nodes spanning the function's lines.

Refused, located: a function with decorators, defaults, *args, keywords only or no parameters
list; a body without `return expression` as its last line, or with a `return` elsewhere; a
`global` or `nonlocal` (a function here does not change the program's names); a def inside a
def, in a loop or a block; a function defined twice or named as a value or a built-in; a call
with the wrong number of arguments, keywords or before the definition; recursion (f calling f,
directly or through others); calls nested more than MAX_CALL_DEPTH deep. Each call counts its
body's statements against max_statements before anything is built (call_cost), a
comprehension's elements among them (body_cost), so a call is refused at the call.
"""
from __future__ import annotations

import ast

from gradwalk.engine.blocks import Block
from gradwalk.engine.clip import clip
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse_unroll import length
from gradwalk.engine.parse_zip import is_zip
from gradwalk.engine.syntax import RESERVED

MAX_CALL_DEPTH = 32
_NO_GLOBALS = ("`{0}` is not supported in a function: a function here gives its value by "
               "`return` and changes none of the program's names")


class FunctionSyntax:
    """Methods of engine.parse._Builder for functions (see the module docstring). Uses the
    builder's error, span, statement, expression, names, nodes, body, last, last_line,
    times_assigned, text and count_statements; keeps `functions` (name -> its definition,
    once read) and `calling` (the calls being built, innermost last)."""

    functions: dict[str, ast.FunctionDef]
    calling: list[str]
    defined: dict[str, ast.FunctionDef]   # the definitions met by count_statements
    call_sizes: dict[str, int]   # name -> the statements a call builds
    sizing: list[str]   # the functions being sized, innermost last (recursion)

    def setup_functions(self) -> None:
        self.functions, self.calling, self.called = {}, [], set()
        self.defined, self.call_sizes, self.sizing = {}, {}, []

    # ---- definitions -------------------------------------------------------------------------
    def define(self, stmt: ast.FunctionDef) -> None:
        """Check a definition and keep it for its calls (no node is made)."""
        if stmt.decorator_list:
            raise self.error("unsupported", "decorators are not supported", stmt.decorator_list[0])
        if self.in_block or self.loop_values or self.calling:
            raise self.error("unsupported", "define a function at the program's top level, not "
                             "inside a loop, a block or another function", stmt)
        self.identifier(stmt.name, stmt, self.leading_span(stmt, 4 + len(stmt.name)))
        if stmt.name in RESERVED or stmt.name in self.names or stmt.name in self.functions:
            raise self.error("unsupported", f"`{stmt.name}` already names "
                             + ("a built-in function" if stmt.name in RESERVED else "a value"
                                if stmt.name in self.names else "a function")
                             + ": give the function a new name", stmt)
        self.check_signature(stmt)
        self.check_body(stmt)
        self.functions[stmt.name] = stmt
        self.last_line = stmt.end_lineno

    def check_signature(self, stmt: ast.FunctionDef) -> None:
        a = stmt.args
        extra = a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.kw_defaults
        if extra:
            raise self.error("unsupported", "a function takes plain parameters, as in "
                             "`def f(x, w):` (no defaults, *args, **kwargs or keyword-only "
                             "parameters)", stmt)
        seen = set()
        for arg in [*a.posonlyargs, *a.args]:
            self.identifier(arg.arg, arg)
            if arg.arg in RESERVED or arg.arg in seen:
                raise self.error("unsupported", f"`{arg.arg}` cannot name a parameter", arg)
            seen.add(arg.arg)

    def check_body(self, stmt: ast.FunctionDef) -> None:
        last = stmt.body[-1]
        for node in ast.walk(stmt):
            if type(node) in (ast.Global, ast.Nonlocal):
                word = "global" if type(node) is ast.Global else "nonlocal"
                raise self.error("unsupported", _NO_GLOBALS.format(word), node)
            if type(node) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda) and \
                    node is not stmt:
                raise self.error("unsupported", "a function inside a function is not "
                                 "supported", node)
            if type(node) is ast.Return and node is not last:
                raise self.error("unsupported", "`return` goes on the function's last line "
                                 "(one value, at the end)", node)
        if type(last) is not ast.Return or last.value is None:
            raise self.error("unsupported", f"`{stmt.name}` has no `return expression` at its "
                             "end: a function gives its value by returning it", stmt,
                             hint=f"end `{stmt.name}` with a line such as `return y`")

    # ---- calls -------------------------------------------------------------------------------
    def note_uncalled(self) -> None:
        """A note ("never_called") for each function defined and never called, at its name:
        its body made no node, so the output is the value assigned last (seed 003's XOR
        pasted without its `L = forward(params)` traced `params` without a word; a review)."""
        for name, f in self.functions.items():
            if name not in self.called and self.last in self.names:
                self.notes.append((
                    "never_called", f"`{name}` (line {f.lineno}) is defined but never called: "
                    f"its body makes no node, and the output is `{self.last}`, the value "
                    f"assigned last (to trace it, end with e.g. `L = {name}(...)`)",
                    self.names[self.last], self.leading_span(f, 4 + len(name))))

    def inline(self, node: ast.Call, name: str | None) -> int:
        """The call's value: its body built with the parameters naming the arguments."""
        f = self.functions[node.func.id]
        params = [a.arg for a in [*f.args.posonlyargs, *f.args.args]]
        if node.keywords or len(node.args) != len(params):
            raise self.error("bad_argument", f"`{f.name}` takes {len(params)} "
                             f"argument{'s' if len(params) != 1 else ''} by position "
                             f"({', '.join(params)})", node)
        if f.name in self.calling:   # counted first (call_cost), so not reached; kept as a guard
            raise self.error("unsupported", f"`{f.name}` calls itself: recursion is not "
                             "supported", node)
        self.called.add(f.name)
        args = [self.expression(a) for a in node.args]
        saved = (self.names, self.body, self.last, self.last_line)
        self.names = {**self.names, **dict(zip(params, args))}
        block = Block("group", len(self.nodes), 0, self.span(node),
                      clip(ast.unparse(node), 48), extent=self.span(node))
        self.body, self.last_line = block.body, 0
        self.calling.append(f.name)
        try:
            for stmt in f.body[:-1]:
                self.statement(stmt)
            result = self.expression(f.body[-1].value, name)
        finally:
            self.calling.pop()
            self.names, self.body, self.last, self.last_line = saved
        if name is not None and self.nodes[result].role == "op" and \
                self.nodes[result].name != name:   # `return h`: the caller's name for it
            self.relabel(result, name)
        block.end = len(self.nodes)
        self.body.append(block)
        return result

    def call_cost(self, root: ast.AST) -> int:
        """The statements the calls of defined functions in `root` build (each call its
        body's, with the calls in it), before anything is built. Raises ProgramError at a
        recursive call, or at calls nested past MAX_CALL_DEPTH."""
        if self.sizing:   # in a function's body: its comprehensions too
            return self.body_cost(root)
        total = 0
        for node in ast.walk(root):
            if type(node) is ast.Call and type(node.func) is ast.Name and \
                    node.func.id in self.defined:
                total += self.function_size(node)
        return total

    def body_cost(self, root: ast.AST) -> int:
        """call_cost in a function's body, with its comprehensions: each element one
        statement, and what its expression costs once per element (a comprehension in a
        comprehension, a call), as engine/parse_comprehensions.py writes them out; so the
        call is refused at the call, not in its body after the calls before it were built (a
        review). A comprehension built in a call is not counted again there."""
        total, todo = 0, [(root, 1)]
        while todo:
            node, times = todo.pop()
            kind = type(node)
            if kind is ast.Call and type(node.func) is ast.Name and \
                    node.func.id in self.defined:
                total += times * self.function_size(node)
            elif kind in (ast.ListComp, ast.GeneratorExp):
                count = 1
                for clause in node.generators:
                    count *= self.clause_count(clause, node.lineno)
                total += times * count
                todo.append((node.elt, times * count))
                todo += [(c.iter, times) for c in node.generators]
                continue
            todo += [(child, times) for child in ast.iter_child_nodes(node)]
        return total

    def clause_count(self, clause: ast.comprehension, line: int) -> int:
        """The iterations of a comprehension's `for` clause (1 where it is wrong: said when
        it is built)."""
        try:
            if is_zip(clause.iter):
                return self.zip_count(clause.iter, line)
            return length(self.range_of(clause.target, clause.iter, "a comprehension")[1])
        except ProgramError:
            return 1

    def too_many_calls(self, stmt: ast.stmt, before: int, limit: int):
        """"too_large" at the call in `stmt` that takes the program (`before` statements up to
        and with `stmt`'s own) over `limit`. Sizes are counted, never built, so seventeen
        nested doubling functions (2**17 calls) are refused at once (a review: the count's
        total had no statement to point at, an IndexError and a 500)."""
        for node in ast.walk(stmt):
            if type(node) is ast.Call and type(node.func) is ast.Name and \
                    node.func.id in self.defined:
                size = self.function_size(node)
                if before + size > limit:
                    break
                before += size
        return self.error("too_large", f"this call of `{node.func.id}` writes out "
                          f"{size:,} statements (its body, with the calls in it): the program "
                          f"would have {before + size:,} statements at least; the limit "
                          f"(max_statements) is {limit:,}", node,
                          hint="call fewer functions, or nest them less; the setting is "
                               "GRADWALK_MAX_STATEMENTS")

    def function_size(self, call: ast.Call) -> int:
        name = call.func.id
        if name in self.sizing:
            raise self.error("unsupported", f"`{name}` calls itself"
                             + ("" if self.sizing[-1] == name else
                                f" (through {', '.join(self.sizing[self.sizing.index(name) + 1:])})")
                             + ": recursion is not supported (a call is written out when the "
                             "program is read)", call)
        if len(self.sizing) >= MAX_CALL_DEPTH:
            raise self.error("too_large", f"calls nested more than {MAX_CALL_DEPTH} deep",
                             call)
        if name not in self.call_sizes:
            f = self.defined[name]
            self.sizing.append(name)
            try:
                self.call_sizes[name] = self.count_statements(f.body[:-1], 10 ** 18) + 1 + \
                    self.call_cost(f.body[-1])
            finally:
                self.sizing.pop()
        return self.call_sizes[name]
