"""Python's `random` as seeded leaf initialisers, mixed into engine/parse.py's builder (issue 18
§4: seed 003 draws its weights this way). Read when the program is parsed; never run:

    import random                 # needed, as in Python (`import random as r` is refused)
    from tiny_autograd import Value   # micrograd's Value, which gradwalk reads itself: ignored
    random.seed(1)                # before the first draw: gradwalk's numbers are reproducible
    w = random.uniform(-1, 1)     # a leaf: a + (b - a) * U, U uniform on [0, 1)
    g = random.gauss(0.0, 0.5)    # a leaf: mu + sigma * N(0, 1)
    params = [Value(random.uniform(-1, 1)) for r, c in shapes for _ in range(r * c)]
                                  # a leaf tensor: one draw per element, in Python's order

The generator is CPython's own: `random.Random(seed)` (the Mersenne Twister MT19937; uniform and
gauss as CPython's random.py computes them), run by the engine on the numbers written in the
program, never on the program's code. So the draws are the ones Python gives for the same
seed and the same calls in the same order (seed 003's 22 weights are its own). One generator
per program, seeded by the last `random.seed(n)` before a draw; draws are made in program
order (loops unrolled, each iteration's in turn).

A draw's arguments are number literals; a comprehension's `for` clauses go over range(...)
(its bounds ints, + - * // of the outer clauses' variables), a name of integer data
(`shapes = [(4, 2), (4, 1)]`) or a list literal of ints, unpacked as Python unpacks them; it has
1 to max_elements elements (counted before anything is drawn). Refused, located: a draw
without `random.seed(n)` before it or without `import random`, `random.seed()` without an int
literal, another function of random, a draw inside an expression.
"""
from __future__ import annotations

import ast
import operator
import random

import numpy as np

from gradwalk.engine.syntax import number

DRAWS = ("uniform", "gauss")
MICROGRAD = "Value"   # the one name `from <module> import ...` may bring in
_INT_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
            ast.FloorDiv: operator.floordiv}


def _random_call(node: ast.expr, attr: str | None = None) -> bool:
    """`random.<attr>(...)` (any attr when None)."""
    return (type(node) is ast.Call and type(node.func) is ast.Attribute
            and type(node.func.value) is ast.Name and node.func.value.id == "random"
            and (attr is None or node.func.attr == attr))


def _unwrapped(node: ast.expr) -> ast.expr:
    """`Value(x)` -> x (micrograd's leaf), anything else as it is."""
    if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == MICROGRAD \
            and len(node.args) == 1 and not node.keywords:
        return node.args[0]
    return node


class RandomSyntax:
    """Methods of engine.parse._Builder for `random` (see the module docstring). Uses the
    builder's error, span, add, names, nodes, leaves, budget, real, as_dtype."""

    rng: random.Random | None = None
    random_imported: bool = False

    # ---- statements --------------------------------------------------------------------------
    def random_statement(self, stmt: ast.stmt) -> bool:
        """`import random`, `from M import Value` or `random.seed(n)`: read, True; any other
        statement: False (the builder reads it)."""
        kind = type(stmt)
        if kind is ast.Import and [(a.name, a.asname) for a in stmt.names] == [("random", None)]:
            self.random_imported = True
            return True
        if kind is ast.ImportFrom and [(a.name, a.asname) for a in stmt.names] == \
                [(MICROGRAD, None)] and stmt.level == 0:
            return True
        if kind is ast.Expr and _random_call(stmt.value, "seed"):
            self.seed_random(stmt.value)
            return True
        return False

    def seed_random(self, call: ast.Call) -> None:
        """random.seed(n), n an int literal: the generator from here on."""
        self.needs_import(call)
        seed = number(call.args[0]) if len(call.args) == 1 and not call.keywords else None
        if type(seed) is not int:
            raise self.error("bad_argument", "random.seed takes one int literal, as in "
                             "`random.seed(1)`: the same seed gives the same numbers", call)
        self.rng = random.Random(seed)

    def needs_import(self, call: ast.Call) -> None:
        if not self.random_imported:
            raise self.error("unknown_name", "`random` is not imported: write `import random` "
                             "on a line before", call.func.value)

    # ---- leaves ------------------------------------------------------------------------------
    def is_random_value(self, node: ast.expr) -> bool:
        """A draw (`random.uniform(-1, 1)`, also inside `Value(...)`) or a list comprehension
        of draws: a leaf's initial value."""
        if type(node) is ast.ListComp:
            node = node.elt
        return _random_call(_unwrapped(node))

    def random_leaf(self, name: str, value: ast.expr, target: ast.Name) -> int:
        """The leaf `name = value` (is_random_value), its numbers drawn now."""
        if name in self.names:
            raise self.error("duplicate_leaf", f"`{name}` is already assigned; a leaf is "
                             "declared once", target)
        if type(value) is ast.ListComp:
            drawn = self.draws(value)
        else:
            self.budget(value, "random", 1)
            drawn = np.float64(self.draw(_unwrapped(value)))
        index = self.add("leaf", "leaf", [], self.span(value), name, name,
                         literal=self.as_dtype(np.asarray(drawn, dtype=np.float64), value))
        self.names[name] = index
        self.leaves[name] = index
        return index

    def draw(self, call: ast.Call) -> float:
        """One draw of random.uniform(a, b) or random.gauss(mu, sigma), from the seeded
        generator (CPython's formulas: a + (b - a) * random(); gauss's Box-Muller pair)."""
        fname = call.func.attr
        if fname not in DRAWS:
            raise self.error("unsupported", f"random.{fname} is not supported: a leaf is "
                             "drawn by random.uniform(a, b) or random.gauss(mu, sigma)", call)
        self.needs_import(call)
        if len(call.args) != 2 or call.keywords:
            raise self.error("bad_argument", f"random.{fname} takes two number literals, as in "
                             f"random.{fname}({'-1, 1' if fname == 'uniform' else '0.0, 1.0'})",
                             call)
        a, b = (self.real(arg, name) for arg, name in
                zip(call.args, ("a", "b") if fname == "uniform" else ("mu", "sigma")))
        if self.rng is None:
            raise self.error("bad_argument", "call random.seed(n) on a line before the first "
                             "draw: gradwalk's numbers are the same on every run", call)
        return self.rng.uniform(a, b) if fname == "uniform" else self.rng.gauss(a, b)

    def draws(self, comp: ast.ListComp) -> np.ndarray:
        """A list comprehension of draws: counted (at most max_elements, each clause's
        iterations too), then drawn in Python's order."""
        call = _unwrapped(comp.elt)
        self.needs_import(call)
        if not _random_call(call):
            raise self.error("unsupported", "a list of draws has one draw as its element, as "
                             "in [random.uniform(-1, 1) for _ in range(4)]", comp.elt)
        count = [0, 0]   # elements, clause iterations: both bounded before a draw is made
        self.each_element(comp, 0, {}, lambda: None, count)
        if count[0] == 0:
            raise self.error("bad_argument", "the comprehension has no elements", comp)
        self.budget(comp, "random", count[0])
        out: list[float] = []
        self.each_element(comp, 0, {}, lambda: out.append(self.draw(call)), None)
        return np.array(out, dtype=np.float64)

    def each_element(self, comp: ast.ListComp, k: int, env: dict, visit, count) -> None:
        """visit() once per element of comp's clauses k.. with the variables `env`; `count`
        ([elements, iterations] or None) refuses more than max_elements of either."""
        if k == len(comp.generators):
            if count is not None:
                count[0] += 1
            return visit()
        clause = comp.generators[k]
        if clause.ifs or clause.is_async:
            raise self.error("unsupported", "a comprehension's `if` (and `async for`) is not "
                             "supported: every element is drawn", comp)
        for item in self.clause_items(clause.iter, env):
            if count is not None:
                count[1] += 1
                if max(count) > self.max_elements:
                    raise self.error("too_large", f"the comprehension has more than "
                                     f"{self.max_elements:,} elements (the limit, "
                                     "max_elements)", comp)
            inner = dict(env)
            self.unpack_int(clause.target, item, inner)
            self.each_element(comp, k + 1, inner, visit, count)

    def clause_items(self, node: ast.expr, env: dict):
        """What a clause goes over: range(...) of int expressions, a name of integer data, or
        a list literal of ints (each item an int or a tuple of them)."""
        if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "range" \
                and 1 <= len(node.args) <= 3 and not node.keywords:
            bounds = [self.int_of(a, env) for a in node.args]
            if len(bounds) == 3 and bounds[2] == 0:
                raise self.error("bad_argument", "range's step cannot be zero", node.args[2])
            return range(*bounds)
        if type(node) is ast.Name and node.id in self.names:
            value = self.nodes[self.names[node.id]].literal
            if value is not None and self.nodes[self.names[node.id]].role == "const" and \
                    np.ndim(value) >= 1 and np.all(np.mod(value, 1) == 0):
                return np.asarray(value).astype(np.int64).tolist()
        if type(node) in (ast.List, ast.Tuple):
            return [self.int_item(e, env) for e in node.elts]
        raise self.error("unsupported", "a list of draws goes over range(...), a name of "
                         "integer data or a list of ints", node)

    def int_item(self, node: ast.expr, env: dict):
        if type(node) in (ast.List, ast.Tuple):
            return [self.int_item(e, env) for e in node.elts]
        return self.int_of(node, env)

    def int_of(self, node: ast.expr, env: dict) -> int:
        """An int: a literal, a clause's variable, or + - * // of them (recursive on the
        expression: a chain too deep is parse's RecursionError, a located too_large)."""
        value = number(node)
        if type(value) is int:
            return value
        if type(node) is ast.Name and node.id in env and type(env[node.id]) is int:
            return env[node.id]
        if type(node) is ast.BinOp and type(node.op) in _INT_OPS:
            a, b = self.int_of(node.left, env), self.int_of(node.right, env)
            if type(node.op) is ast.FloorDiv and b == 0:
                raise self.error("bad_argument", "division by zero", node)
            out = _INT_OPS[type(node.op)](a, b)
            if abs(out) > 2 ** 62:
                raise self.error("too_large", "the number is too large", node)
            return out
        raise self.error("bad_argument", "an int here is a literal, a comprehension's "
                         "variable, or + - * // of them", node)

    def unpack_int(self, target: ast.expr, value, env: dict) -> None:
        """Bind `for target in ...`'s names to an item as Python unpacks it."""
        if type(target) is ast.Name:
            env[target.id] = value
            return
        if type(target) in (ast.Tuple, ast.List) and isinstance(value, list) and \
                len(value) == len(target.elts):
            for t, v in zip(target.elts, value):
                self.unpack_int(t, v, env)
            return
        raise self.error("bad_argument", f"cannot unpack {value!r} into "
                         f"{ast.unparse(target)}", target)
