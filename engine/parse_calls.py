"""Calls in the language, mixed into engine/parse.py's builder: a function's value arguments and
parameters (engine/syntax.py: FUNCTIONS, SIGNATURES, REQUIRED), each parameter checked where it
is written, and cross_entropy's class indices, given as literals or held by a name
(`y = const([0, 1, 1, 0])`, a data helper's labels: engine/parse_data.py).
"""
from __future__ import annotations

import ast
import difflib

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.source import clip
from gradwalk.engine.syntax import (DATA, FUNCTIONS, HELPERS, MAX_CLASS_INDEX, MAX_DIMS, REQUIRED,
                           SIGNATURES, STRUCTURE, construct, number)


class CallSyntax:
    """Methods of engine.parse._Builder for calls (see the module docstring). Uses the
    builder's error, span, add, identifier, leading_span, constant, names, nodes and lifted."""

    def call(self, node: ast.Call, name: str | None):
        func = node.func
        if isinstance(func, ast.Attribute):   # `x.relu()` (engine/parse_unroll.py)
            return self.method_call(node, name)
        if not isinstance(func, ast.Name):
            raise self.error("unsupported", f"calling {construct(func)} is not supported", func)
        self.identifier(func.id, func)
        if func.id == "Value":   # micrograd's Value(2.0) inside an expression: a constant
            return self.constant(self.unwrap_value(node))
        if func.id in self.functions:   # the program's own `def` (engine/parse_functions.py)
            return self.inline(node, name)
        if func.id in self.defined:
            raise self.error("used_before_assignment", f"`{func.id}` is called before it is "
                             "defined", func)
        if func.id in DATA or func.id == "const" and node.args and \
                self.is_data_call(node.args[0]):
            self.misused_data(node if func.id in DATA else node.args[0])
        if func.id == "sum" and node.args and self.is_comprehension(node.args[0]):
            return self.sum_of_terms(node, name)   # Python's sum (parse_comprehensions.py)
        if func.id == "const":
            if len(node.args) != 1 or node.keywords or not self.is_literal(node.args[0]):
                raise self.error("bad_argument", "const takes one literal, as in "
                                 "`const([1.0, 2.0])`", node)
            return self.constant(node.args[0], node)
        if func.id in STRUCTURE:
            return self.structure_call(node, func.id, name)
        if func.id not in FUNCTIONS:
            raise self.error("unsupported", f"unknown function `{clip(func.id)}`", func,
                             hint=function_hint(func.id))
        op, allowed = FUNCTIONS[func.id]
        args, params = self.arguments(node, func.id, allowed)
        span = self.span(node)
        return [(a, None) for a in args], \
            lambda inputs: self.add(op, "op", inputs, span, name, params=params)

    def arguments(self, node: ast.Call, fname: str, allowed: tuple[str, ...]):
        """Split a call's arguments into value inputs and parameters: SIGNATURES says how many
        values come first and which parameters may follow them by position; FUNCTIONS which
        may be given by keyword. bad_argument (at the call, or at the keyword or argument at
        fault) for a wrong count, an unknown or repeated parameter, or a bad value."""
        args = list(node.args)
        params: dict = {}
        given: dict[str, ast.expr] = {}   # parameter -> the argument it was read from
        if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords):
            raise self.error("unsupported", "* and ** arguments are not supported", node)
        for kw in node.keywords:
            self.identifier(kw.arg, kw, self.leading_span(kw, len(kw.arg)))
        values, positional = SIGNATURES.get(fname, (1, ()))
        if not values <= len(args) <= values + len(positional):
            raise self.error("bad_argument", _usage(fname, values, positional, allowed,
                                                    len(args)), node)
        for key, arg in zip(positional, args[values:]):
            params[key], given[key] = self.parameter(fname, key, arg), arg
        args = args[:values]
        for kw in node.keywords:
            if kw.arg not in allowed or kw.arg in params:
                said = "is given twice" if kw.arg in params else f"is not a parameter of {fname}"
                raise ProgramError("bad_argument", f"`{kw.arg}` {said}; "
                                   + _usage(fname, values, positional, allowed),
                                   **self.leading_span(kw, len(kw.arg)).to_dict())
            params[kw.arg], given[kw.arg] = self.parameter(fname, kw.arg, kw.value), kw.value
        self.complete(fname, params, node, given)
        return args, params

    # ---- parameters (engine/syntax.py: FUNCTIONS, SIGNATURES, REQUIRED) ---------------------
    def parameter(self, fname: str, key: str, node: ast.expr):
        """The value of parameter `key` of a call to `fname`; bad_argument at `node` if it is
        not one the parameter takes."""
        if key == "axis":
            return self.axis(node, fname)
        if key == "keepdims":
            if not (isinstance(node, ast.Constant) and type(node.value) is bool):
                raise self.error("bad_argument", "keepdims must be True or False", node)
            return node.value
        if key == "approximate":
            return self.approximate(node)
        if key == "target":
            return self.targets(node)
        if key == "correction":
            value = number(node)
            if type(value) is not int or not 0 <= value <= MAX_CLASS_INDEX:
                raise self.error("bad_argument", "correction must be a non-negative integer "
                                 "(1: the unbiased variance, torch.var's default; 0: the "
                                 "population variance)", node)
            return value
        if key in ("lo", "hi") and isinstance(node, ast.Constant) and node.value is None:
            return None
        value = number(node)   # slope, lo, hi, eps: a number
        if value is None:
            raise self.error("bad_argument", f"{key} of {fname} must be a number"
                             + (" or None" if key in ("lo", "hi") else ""), node)
        try:   # an integer stays one (clip(x, 0, 1) reads as written) if float64 holds it
            value = value if type(value) is int and abs(value) < 2**53 else float(value)
        except OverflowError:
            raise self.error("bad_argument", f"{key} is too large for float64", node) from None
        if key == "eps" and not 0 < value < float("inf"):
            raise self.error("bad_argument", "eps must be a positive number", node)
        if key == "slope" and not abs(value) < float("inf"):
            raise self.error("bad_argument", "slope must be a finite number", node)
        return value

    def complete(self, fname: str, params: dict, node: ast.Call, given: dict) -> None:
        """Refuse a call that leaves out a parameter it needs. Targets held by a name are
        narrated by it: params["target_label"] is that node's label (`cross_entropy(Z, y)`,
        not 300 indices), params["target_node"] that node's index."""
        for key in REQUIRED.get(fname, ()):
            if key not in params:
                raise self.error("bad_argument", f"{fname} takes (logits, targets): a class "
                                 "index, or a list of class indices for a batch of logits",
                                 node)
        if fname == "clip" and params.get("lo") is None and params.get("hi") is None:
            raise self.error("bad_argument", "clip takes (x, lo, hi) with at least one bound "
                             "that is not None", node)
        held = given.get("target")
        if type(held) is ast.Name and held.id not in self.lifted:
            params["target_label"] = self.nodes[self.names[held.id]].label
            # the graph draws an edge from that constant (engine/graph.graph_edges)
            params["target_node"] = self.names[held.id]

    def targets(self, node: ast.expr) -> int | tuple[int, ...]:
        """cross_entropy's targets: one class index, or a list of them (one per row), written
        as literals or held by a name of a constant (`t = const(1)`, `y = const([0, 1])`, a
        data helper's y). A leaf or a computed value is refused: class indices are data,
        known when the program is parsed, and get no gradient (PyTorch's are integers)."""
        if isinstance(node, ast.List) and node.elts and all(number(e) is not None
                                                            for e in node.elts):
            return tuple(self.class_index(e) for e in node.elts)
        if type(node) is ast.Name and node.id in self.lifted:   # a long list, read as floats
            return self.indices(self.lifted[node.id].value, node, "the targets")
        if type(node) is ast.Name:
            held = self.nodes[self.lookup(node)]
            if held.role != "const":
                raise self.error("bad_argument", f"`{node.id}` is "
                                 + ("a leaf, which gets a gradient" if held.role == "leaf"
                                    else "computed by the program") + "; class indices are "
                                 "data: hold them with const, as in `y = const([0, 1, 1, 0])`, "
                                 "or take a data helper's labels (`X, y = xor()`)", node)
            return self.indices(held.literal, node, f"`{node.id}`")
        return self.class_index(node)

    def indices(self, value: np.ndarray, node: ast.expr, what: str) -> int | tuple[int, ...]:
        """A 0-d value as one class index, a 1-D one as a tuple of them; bad_argument for any
        other rank or a value that is not a non-negative integer below MAX_CLASS_INDEX."""
        bad = value.ndim > 1 or np.any(value != np.floor(value)) or np.any(value < 0) \
            or np.any(value > MAX_CLASS_INDEX)
        if bad:
            raise self.error("bad_argument", f"{what} must be one class index or a flat list "
                             "of them, non-negative integers", node)
        return int(value) if value.ndim == 0 else tuple(int(v) for v in value)

    def axis(self, node: ast.expr, fname: str = ""):
        value = number(node)
        if isinstance(node, ast.Constant) and node.value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            hint = {"max": "maximum", "min": "minimum"}.get(fname)
            raise self.error("bad_argument", "axis must be an integer or None"
                             + (f"; {fname}(x, axis) reduces one tensor, {hint}(a, b) compares "
                                "two elementwise" if hint else ""), node)
        if abs(value) > MAX_DIMS:   # no value has more axes; and a 4,000-digit axis stays out
            raise self.error("bad_argument", f"axis must be between -{MAX_DIMS} and {MAX_DIMS}",
                             node)
        return value

    def approximate(self, node: ast.expr) -> str:
        if not (isinstance(node, ast.Constant) and node.value in ("none", "tanh")):
            raise self.error("bad_argument", 'approximate must be "none" or "tanh"', node)
        return node.value

    def class_index(self, node: ast.expr) -> int:
        value = number(node)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise self.error("bad_argument", "the class index must be a non-negative integer "
                             "(or, for a batch of logits, a list of them)", node)
        if value > MAX_CLASS_INDEX:
            raise self.error("bad_argument", "the class index is larger than any tensor", node)
        return value


def _usage(fname: str, values: int, positional: tuple, allowed: tuple, given: int | None = None
           ) -> str:
    """How a function is called, for an error: "sum takes 1 value argument, then axis; keyword
    parameters: axis, keepdims (got 3 arguments)"."""
    text = f"{fname} takes {values} value argument{'s' if values != 1 else ''}"
    if positional:
        text += ", then " + ", ".join(positional)
    if allowed:
        text += "; keyword parameters: " + ", ".join(allowed)
    return text + ("" if given is None else f" (got {given} argument{'s' if given != 1 else ''})")


def function_hint(name: str) -> str:
    """The hint of an unknown function: the nearest names first ("did you mean `tanh`?", by
    difflib's ratio), then every function, so a typo is answered in the first words."""
    known = sorted({*FUNCTIONS, *STRUCTURE, *HELPERS, *DATA, "const"})
    near = difflib.get_close_matches(name, known, n=2, cutoff=0.7)
    every = "the functions are " + ", ".join(known)
    if not near:
        return every
    return "did you mean " + " or ".join(f"`{n}`" for n in near) + "? " + every
