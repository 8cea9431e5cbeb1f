"""Data helpers in the language, mixed into engine/parse.py's builder.

`X, y = xor()`, `X, y = spirals(n, classes, seed=S, noise=0.2)` and
`X, y = moons(n, noise=0.1, seed=S)` (engine/datasets.py's docstrings give each recipe; the
seed is required, as randn's) make two constants, data and not leaves: training updates a
program's leaves, never its data. X holds the inputs (N, 2), y their class indices (N,),
which cross_entropy takes by name (`L = cross_entropy(Z, y)`, engine/parse_calls.py). The
parsed Program's `data` says which name holds what: {"X": "inputs", "y": "labels"}. Each
node's params are {"data": the call as canonical text, e.g. "spirals(100, 3, seed=0,
noise=0.2)"}.

Refused, each a ProgramError at its place in the text: a data helper anywhere but alone on
the right of a two-name tuple assignment, and a tuple assignment of anything else
("unsupported"); a data name assigned again, or a name assigned before ("duplicate_leaf");
wrong arguments ("bad_argument"); a data set over max_elements, or the helpers' values over
max_total_elements together ("too_large", before anything is made).
"""
from __future__ import annotations

import ast

import numpy as np

from gradwalk.engine import datasets
from gradwalk.engine.clip import clip
from gradwalk.engine.parse_calls import function_hint
from gradwalk.engine.parse_tensors import MAX_INDEX, number_text
from gradwalk.engine.syntax import RESERVED, number
from gradwalk.engine.wording import said

PARTS = ("inputs", "labels")   # what X and y hold, in the order they are assigned
USAGE = {"xor": "X, y = xor()", "spirals": "X, y = spirals(100, 3, seed=0, noise=0.2)",
         "moons": "X, y = moons(200, noise=0.1, seed=0)"}
# helper -> (its counts, given by position, each with its least value; its keyword
# parameters in the order the canonical text writes them, with their defaults: None, required)
SIGNATURES = {"xor": ((), {}), "spirals": ((("n", 2), ("classes", 1)), {"seed": None,
                                                                        "noise": 0.2}),
              "moons": ((("n", 2),), {"noise": 0.1, "seed": None})}


class DataSyntax:
    """Methods of engine.parse._Builder for the data helpers (see the module docstring).

    Uses the builder's error, span, add, identifier, names, times_assigned, as_dtype; keeps
    `data` (name -> "inputs" or "labels": Program.data)."""

    def is_data_call(self, node: ast.expr) -> bool:
        return type(node) is ast.Call and type(node.func) is ast.Name and \
            node.func.id in USAGE

    def is_data_statement(self, stmt: ast.Assign) -> bool:
        """A tuple assignment, or an assignment of a data helper's call: data_assignment's."""
        return self.is_data_call(stmt.value) or \
            any(type(t) in (ast.Tuple, ast.List) for t in stmt.targets)

    def data_assignment(self, stmt: ast.Assign) -> None:
        """`X, y = helper(...)`: two constant nodes, X's then y's, both at the call."""
        names = self.data_names(stmt)
        call = stmt.value
        fname = call.func.id
        text, values = self.data_values(call, fname)
        span = self.span(call)
        for name, value, part in zip(names, values, PARTS):
            self.names[name] = self.add("const", "const", [], span, name, name,
                                        literal=self.as_dtype(value, call),
                                        params={"data": text})
            self.data[name] = part
            self.times_assigned[name] = 1
        self.last = names[-1]

    def data_names(self, stmt: ast.Assign) -> list[str]:
        """The two names of `X, y = helper(...)`, each new; else the error that says what to
        write instead."""
        call = stmt.value
        if not self.is_data_call(call):
            typo = type(call) is ast.Call and type(call.func) is ast.Name   # `spiral(...)`?
            raise self.error("unsupported", "a tuple assignment takes as many values as "
                             "names, as in `a, b = 1.0, 2.0`, or a data helper's two "
                             "values, as in `X, y = xor()`", stmt.targets[0],
                             hint=function_hint(call.func.id) if typo else None)
        usage = USAGE[call.func.id]
        said = f"{call.func.id}() gives two values, the inputs and their labels: write " \
               f"`{usage}`"
        if len(stmt.targets) != 1:
            raise self.error("unsupported", said, stmt)
        target = stmt.targets[0]
        if type(target) is not ast.Tuple or len(target.elts) != 2:
            got = f" ({len(target.elts)} names were given)" if type(target) is ast.Tuple \
                else ""
            raise self.error("unsupported", said + got, target)
        names = []
        for element in target.elts:
            if type(element) is not ast.Name:
                raise self.error("unsupported", said, element)
            name = element.id
            self.identifier(name, element)
            if name in RESERVED:
                raise self.error("unsupported", f"`{name}` is a built-in function and cannot "
                                 "be assigned", element)
            if name in self.names or name in names:
                raise self.error("duplicate_leaf", f"`{name}` is already assigned; data is "
                                 "assigned once, to new names", element)
            names.append(name)
        return names

    def not_data(self, name: str, target: ast.AST) -> None:
        """Refuse to assign a data name again: the training engine and the page find the data
        by its name (Program.data), so it names one value for the whole program."""
        if name in self.data:
            raise self.error("duplicate_leaf", f"`{name}` holds the {self.data[name]} of a "
                             "data helper; data is assigned once: give the new value another "
                             f"name, as in `{name}2 = ...`", target)

    def data_values(self, call: ast.Call, fname: str) -> tuple[str, tuple[np.ndarray, ...]]:
        """(the call as canonical text, (X, y) as float64): its arguments checked, then the
        size of X and y against max_elements and max_total_elements, then made."""
        if any(type(a) is ast.Starred for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            raise self.error("unsupported", "* and ** arguments are not supported", call)
        counts, defaults = SIGNATURES[fname]
        given = self.keywords(call, fname, tuple(defaults))
        if len(call.args) != len(counts):
            takes = " and ".join(name for name, _ in counts) or "no arguments"
            raise self.error("bad_argument", f"{fname} takes {takes}{' by position' * bool(counts)}"
                             f", as in `{USAGE[fname]}`", call)
        args = {name: self.whole(a, fname, name, least) for a, (name, least) in
                zip(call.args, counts)}
        example = USAGE[fname].split(" = ", 1)[1]
        for key, default in defaults.items():
            args[key] = self.seed(call, fname, given, example) if key == "seed" else \
                self.noise(given[key]) if key in given else default
        points = args.get("n", 4) * args.get("classes", 1)
        self.budget(call, fname, 2 * points)   # X (N, 2)
        self.budget(call, fname, points)       # y (N,)
        text = f"{fname}(" + ", ".join([str(args[n]) for n, _ in counts] +
                                        [f"{k}={number_text(args[k])}" for k in defaults]) + ")"
        return text, getattr(datasets, fname)(**args)

    def whole(self, node: ast.expr, fname: str, what: str, least: int) -> int:
        """An integer literal from `least` up (a size: MAX_INDEX keeps a 4,000-digit one out)."""
        value = number(node)
        if type(value) is int and least <= value <= MAX_INDEX:
            return value
        # each message says which way the argument is wrong: `spirals(10**9, ...)` was told
        # "must be an integer of 2 or more" (a review)
        wrong = (f"not `{clip(ast.unparse(node), 24)}`: write the integer itself, as in "
                 f"`{USAGE[fname].split(' = ', 1)[1]}`" if value is None else
                 f"not {value!r}" if type(value) is not int or value < least else
                 f"not {said(value)}, past any size a tensor can have (2**62)")
        raise self.error("bad_argument", f"{what} of {fname} must be an integer of {least} or "
                         f"more, {wrong}", node)

    def noise(self, node: ast.expr) -> float | int:
        """The noise's scale: a finite number, 0 or more."""
        value = self.real(node, "noise")
        if value < 0:
            raise self.error("bad_argument", "noise must be 0 or more (the scale of the normal "
                             "noise)", node)
        return value

    def misused_data(self, node: ast.Call) -> None:
        """A data helper inside an expression or const(...): it gives two values."""
        usage = USAGE[node.func.id]
        raise self.error("unsupported", f"{node.func.id}() gives two values, the inputs and "
                         f"their labels: write `{usage}` on a line of its own", node)
