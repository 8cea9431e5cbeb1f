"""`for x, y in zip(X, Y):` over lists written in the program, in a loop or a comprehension,
mixed into engine/parse.py's builder and unrolled when the program is parsed (issue 18 §4;
range loops are engine/parse_unroll.py, comprehensions parse_comprehensions.py).

zip's arguments are lists: one written inline (`zip([1.0, 2.0], [0, 1])`, tuples too:
`[(0, 0), (0, 1)]`), or a name assigned a list literal earlier (`X = [[0.0, 1.0], ...]`). It
stops at the shortest, as Python's. Each iteration binds the target's names, unpacked as
Python unpacks (`for (x0, x1), y in zip(X, Y)`), to:
- an inline element: its number, a constant of the iteration (as a range loop's `i`);
- a name's element: `X[k]` (`X[k, j]` unpacked), an index node of X built where the name is
  first read in the iteration, so X's gradient flows; when X's number there is an integer
  it is also an index (`z[y]`).

Limits: the iterations are counted before anything is built (engine/parse_unroll.py
count_statements): a name's list is looked up among the program's assignments before the loop.
Anything else (zip of a computed value, `for p in zip(...)` without unpacking, a length
mismatch in the unpacking) is refused at its place.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from gradwalk.engine.syntax import number


@dataclass
class Element:
    """A loop variable bound to element `expr` of a named list (`X[2]`): `value` its number
    when it is one (an index), `built` its node once read in this iteration."""

    expr: ast.expr
    value: float | int | None = None
    built: int | None = None


def is_zip(node: ast.expr) -> bool:
    return type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "zip"


_USAGE = "zip goes over lists written in the program, as in `for x, y in zip(X, Y):`"


class ZipSyntax:
    """Methods of engine.parse._Builder for zip (see the module docstring). Uses the builder's
    error, names, nodes, lifted and tree."""

    def zip_iterations(self, target: ast.expr, call: ast.Call, line: int):
        """(the variables, how many iterations, each iteration's {variable: value})."""
        if call.keywords or not call.args:
            raise self.error("bad_argument", _USAGE, call)
        if type(target) is not ast.Tuple or len(target.elts) != len(call.args):
            raise self.error("unsupported", f"unpack zip's {len(call.args)} lists into as many "
                             "names, as in `for x, y in zip(X, Y):`", target)
        sources = [self.zip_source(arg, line) for arg in call.args]
        count = min(len(s) for s in sources)
        variables: list[str] = []
        self.zip_names(target, variables)

        def each():
            for k in range(count):
                out: dict = {}
                for part, source in zip(target.elts, sources):
                    self.unpack(part, source[k], out)
                yield out
        return variables, count, each()

    def zip_count(self, call: ast.Call, line: int) -> int:
        """The iterations of zip(...) before anything is built (1 where unknown: the loop's
        own error is said when it is built)."""
        try:
            return min(len(self.zip_source(arg, line, counting=True)) for arg in call.args)
        except (ValueError, TypeError):
            return 1

    def zip_names(self, target: ast.expr, out: list[str]) -> None:
        for part in (target.elts if type(target) in (ast.Tuple, ast.List) else [target]):
            if type(part) in (ast.Tuple, ast.List):
                self.zip_names(part, out)
            elif type(part) is not ast.Name:
                raise self.error("unsupported", "a loop's target is names, as in "
                                 "`for (x0, x1), y in zip(X, Y):`", part)
            elif part.id in out:
                raise self.error("unsupported", f"`{part.id}` is bound twice", part)
            else:
                out.append(part.id)

    def zip_source(self, node: ast.expr, line: int, counting: bool = False) -> list:
        """Its elements: ast nodes of an inline list, or Elements `X[k]` of a name."""
        if type(node) in (ast.List, ast.Tuple):
            return list(node.elts)
        if type(node) is ast.Name and node.id in self.lifted:   # a big inline list, read
            return [_as_ast(x, node) for x in self.lifted[node.id].value.tolist()]
        if type(node) is ast.Name:
            literal = self.listed(node, line, counting)
            if literal is not None:
                return [Element(_index(node, k)) for k in range(len(literal))]
        if counting:
            raise ValueError
        raise self.error("unsupported", _USAGE + " (a list literal or the name of one)", node)

    def listed(self, node: ast.Name, line: int, counting: bool):
        """The literal a name holds (numpy array), or None: its node's when built, else (the
        statement limit, before building) the last list assigned to it above `line`."""
        if not counting:
            index = self.names.get(node.id)
            literal = None if index is None else self.nodes[index].literal
            return literal if literal is not None and literal.ndim else None
        found = None
        for stmt in self.tree.body:
            if stmt is not None and stmt.lineno < line and type(stmt) is ast.Assign and \
                    any(type(t) is ast.Name and t.id == node.id for t in stmt.targets):
                found = stmt.value
        if type(found) is ast.List:
            return found.elts
        if type(found) is ast.Name and found.id in self.lifted:
            return self.lifted[found.id].value
        return None

    def unpack(self, target: ast.expr, value, out: dict) -> None:
        """Bind target (a name or a tuple of them) to value as Python unpacks."""
        if type(target) is ast.Name:
            out[target.id] = self.bound(target, value)
            return
        parts = target.elts
        if isinstance(value, Element):
            items = [Element(_index(value.expr, j)) for j in range(len(parts))]
            self.check_width(value.expr, len(parts), target)
        elif type(value) in (ast.Tuple, ast.List):
            items = value.elts
            if len(items) != len(parts):
                raise self.error("unsupported", f"{len(parts)} names for {len(items)} values",
                                 target)
        else:
            raise self.error("unsupported", "a number cannot be unpacked into names", target)
        for part, item in zip(parts, items):
            self.unpack(part, item, out)

    def check_width(self, expr: ast.Subscript, width: int, target: ast.expr) -> None:
        literal = self.nodes[self.names[_base(expr).id]].literal
        shape = literal.shape
        depth = len(expr.slice.elts) if type(expr.slice) is ast.Tuple else 1
        if len(shape) <= depth or shape[depth] != width:
            raise self.error("unsupported", f"{width} names for elements of shape "
                             f"{tuple(shape[depth:])}", target)

    def bound(self, target: ast.Name, value):
        """A variable's value: a number of an inline list, or an Element with its number."""
        if isinstance(value, Element):
            literal = self.nodes[self.names[_base(value.expr).id]].literal
            at = _indices(value.expr)
            if len(at) == literal.ndim:
                x = float(literal[at])
                value.value = int(x) if x.is_integer() else x
            return value
        x = number(value)
        if x is None:
            raise self.error("unsupported", "zip's inline lists hold numbers (or tuples of "
                             "them)", value)
        return x


def _index(node: ast.expr, k: int) -> ast.Subscript:
    """`node[k]`, or `X[i, k]` when node is already `X[i]` (one index node per element)."""
    if type(node) is ast.Subscript:
        at = [*_indices(node), k]
        base = node.value
    else:
        at, base = [k], node
    items = [ast.copy_location(ast.Constant(i), base) for i in at]
    index = items[0] if len(items) == 1 else ast.copy_location(ast.Tuple(items, ast.Load()),
                                                                base)
    return ast.copy_location(ast.Subscript(base, index, ast.Load()), base)


def _as_ast(x, where: ast.AST) -> ast.expr:
    """A number or nested list of them as the literal's ast (a big inline list is read from
    its text: engine/literals.py)."""
    if isinstance(x, list):
        return ast.copy_location(ast.List([_as_ast(e, where) for e in x], ast.Load()), where)
    return ast.copy_location(ast.Constant(x), where)


def _indices(node: ast.Subscript) -> tuple[int, ...]:
    s = node.slice
    return tuple(e.value for e in s.elts) if type(s) is ast.Tuple else (s.value,)


def _base(node: ast.Subscript) -> ast.Name:
    return node.value
