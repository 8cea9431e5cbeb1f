"""The tensor syntax of the language, mixed into engine/parse.py's builder.

- Indexing with integer and slice literals: `x[0]`, `x[1:3]`, `x[:, 0]`, `x[-1]`, `x[::2]`
  (op "index"; any other subscript, `x[i]` with a name or `x[0.5]`, is refused).
- Structure calls: `reshape(x, 2, 3)` or `reshape(x, (2, -1))`, `transpose(x)` (as `x.T`) or
  `transpose(x, (1, 0, 2))`, `concat([a, b], axis=0)`, `stack([a, b], axis=0)` (at most
  MAX_PIECES tensors), `where(cond, a, b)` whose cond is one comparison (`x > 0`, >=, <, <=,
  ==, !=); the comparison is a node of its own, a mask with no gradient (engine/ops/shape.py).
  A comparison anywhere else is refused.
- Leaf helpers, read at parse time into the node's literal, like a list literal: a name
  assigned one is a leaf (trainable), `const(...)` of one a constant, one inside an expression
  a constant. `randn(4, 5, seed=0)` (numpy's default_rng(seed).standard_normal(shape), drawn
  in float64 and then cast to the program's dtype, so a seed gives the same numbers on every
  run and in both dtypes up to rounding; the seed is required: two `randn(3)` giving equal
  numbers would surprise), `randn(4, 5, seed=0, std=0.5)` (the same draws times std, a positive
  number: torch.nn.init.normal_'s std), `uniform(4, 5, low=-1, high=1, seed=0)` (numpy's
  default_rng(seed).uniform(low, high, shape): [low, high), low < high, by default 0 and 1;
  the seed required), `zeros(2, 3)`, `ones((2, 3))`, `eye(n)` or `eye(n, m)`, `arange(stop)`,
  `arange(start, stop)`, `arange(start, stop, step)`. Sizes are checked against max_elements
  (each) and max_total_elements (all helpers together) before anything is allocated.
"""
from __future__ import annotations

import ast
import math
import operator

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.ops.shape import MAX_PIECES
from gradwalk.engine.syntax import DATA, HELPERS, MAX_DIMS, number

COMPARE_OPS = {ast.Gt: "greater", ast.GtE: "greater_equal", ast.Lt: "less",
               ast.LtE: "less_equal", ast.Eq: "equal", ast.NotEq: "not_equal"}
MAX_INDEX = 2**62     # an index or size beyond any tensor (and a 4,000-digit one stays out)
_INDEX_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.FloorDiv: operator.floordiv}   # an index worked out from loop variables
MAX_SEED = 2**64 - 1
# the keyword parameters of the helpers that take any, in the order their canonical text
# writes them ("randn(4, 5, seed=0, std=0.5)"); every other helper takes none
KEYWORDS = {"randn": ("seed", "std"), "uniform": ("low", "high", "seed")}


class TensorSyntax:
    """Methods of engine.parse._Builder for the tensor syntax (see the module docstring).

    Uses the builder's error, span, add, identifier, axis and leading_span; keeps
    `conditions` (ids of the comparisons that are where's conditions), `inits` (id of a
    helper call -> its canonical text, e.g. "randn(4, 5, seed=0)") and `helper_elements`.
    """

    def setup_tensors(self, dtype: str, max_elements: int, max_total_elements: int) -> None:
        self.dtype = dtype
        self.max_elements, self.max_total_elements = max_elements, max_total_elements
        self.conditions: set[int] = set()
        self.inits: dict[int, str] = {}
        self.helper_elements = 0

    def is_helper_call(self, node: ast.expr) -> bool:
        return type(node) is ast.Call and type(node.func) is ast.Name and \
            node.func.id in HELPERS

    # ---- indexing ----------------------------------------------------------------------------
    def subscript(self, node: ast.Subscript, name: str | None):
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(items) > MAX_DIMS:
            raise self.error("bad_argument", f"at most {MAX_DIMS} indices", node.slice)
        index = [self.index_item(item) for item in items]
        span = self.span(node)
        return [(node.value, None)], \
            lambda args: self.add("index", "op", args, span, name, params={"index": index})

    def index_item(self, item: ast.expr):
        """An int, or [start, stop, step] (None where omitted) for a slice."""
        if isinstance(item, ast.Slice):
            parts = [None if p is None else self.index_int(p) for p in
                     (item.lower, item.upper, item.step)]
            if parts[2] == 0:
                raise self.error("bad_argument", "a slice step cannot be zero", item.step)
            return parts
        return self.index_int(item)

    def index_int(self, node: ast.expr) -> int:
        value = self.index_value(node)
        if isinstance(value, int) and abs(value) <= MAX_INDEX:
            return value
        if isinstance(value, float):
            raise self.error("bad_argument", "an index must be an integer", node)
        if isinstance(value, int):
            raise self.error("bad_argument", "the index is larger than any tensor", node)
        raise self.error("unsupported", "an index must be an integer literal or a slice of "
                         "them, as in x[0], x[1:3], x[:, -1]", node)

    def index_value(self, node: ast.expr, depth: int = 0):
        """An index's number: a literal, a loop variable's (a zip's element of a named list:
        its number), or + - * // of them (`W[2*i + 1]`, worked out when the program is read);
        None for anything else."""
        kind = type(node)
        if kind is ast.Name:
            return getattr(self.loop_values.get(node.id), "value", self.loop_values.get(node.id))
        if kind is ast.BinOp and type(node.op) in _INDEX_OPS and depth < 8:
            a, b = (self.index_value(x, depth + 1) for x in (node.left, node.right))
            if type(a) is int and type(b) is int and (b or type(node.op) is not ast.FloorDiv):
                if max(abs(a), abs(b)) > MAX_INDEX:   # past any tensor: no big arithmetic
                    return MAX_INDEX + 1
                return _INDEX_OPS[type(node.op)](a, b)
            return None
        return number(node)

    # ---- structure calls ---------------------------------------------------------------------
    def structure_call(self, node: ast.Call, fname: str, name: str | None):
        span = self.span(node)
        if fname in ("concat", "stack"):
            return self.pieces(node, fname, name, span)
        self.keywords(node, fname, ())
        args = node.args
        if fname == "where":
            if len(args) != 3:
                raise self.error("bad_argument", "where takes (condition, a, b), as in "
                                 "where(x > 0, x, 0.1 * x)", node)
            cond = args[0]
            if not isinstance(cond, ast.Compare):
                raise self.error("unsupported", "where's condition must be a comparison, as in "
                                 "x > 0 (a mask made from it gets no gradient)", cond)
            self.conditions.add(id(cond))
            return [(a, None) for a in args], \
                lambda inputs: self.add("where", "op", inputs, span, name)
        if not args:
            raise self.error("bad_argument", f"{fname} takes a tensor first", node)
        rest = args[1:]
        if fname == "reshape":
            shape = self.sizes(rest, node, "reshape", minus_one=True)
            if shape.count(-1) > 1:
                raise self.error("bad_argument", "reshape: at most one size may be -1", node)
            params = {"shape": shape}
        else:   # transpose
            params = {}
            if rest:
                axes = self.sizes(rest, node, "transpose")
                if sorted(axes) != list(range(len(axes))):
                    raise self.error("bad_argument", "transpose's axes must be 0, 1, ..., n-1 "
                                     f"in some order, got {tuple(axes)}", rest[0])
                params["axes"] = axes
        return [(args[0], None)], \
            lambda inputs: self.add(fname, "op", inputs, span, name, params=params)

    def pieces(self, node: ast.Call, fname: str, name: str | None, span):
        """concat([a, b, ...], axis=k) and stack(...): a list of expressions, one input each."""
        usage = f"{fname} takes a list of tensors and an axis, as in {fname}([a, b], axis=0)"
        if len(node.args) != 1 or not isinstance(node.args[0], (ast.List, ast.Tuple)) \
                or not node.args[0].elts or self.is_literal(node.args[0]):
            raise self.error("bad_argument", usage, node)
        elements = node.args[0].elts
        if len(elements) > MAX_PIECES:
            raise self.error("bad_argument", f"{fname} takes at most {MAX_PIECES} tensors",
                             node.args[0])
        params = {"axis": 0}
        for kw in node.keywords:
            if kw.arg != "axis":
                raise ProgramError("bad_argument", f"{fname} has no parameter `{kw.arg}`",
                                   **self.leading_span(kw, len(kw.arg)).to_dict())
            axis = self.axis(kw.value)
            if axis is None:
                raise self.error("bad_argument", f"{fname}'s axis must be an integer", kw.value)
            params["axis"] = axis
        return [(e, None) for e in elements], \
            lambda inputs: self.add(fname, "op", inputs, span, name, params=params)

    def compare(self, node: ast.Compare, name: str | None):
        """where's condition: one comparison, a mask node."""
        if len(node.ops) != 1 or type(node.ops[0]) not in COMPARE_OPS:
            raise self.error("unsupported", "where's condition must be one comparison with "
                             "> >= < <= == or !=, as in x > 0", node)
        op, span = COMPARE_OPS[type(node.ops[0])], self.span(node)
        return [(node.left, None), (node.comparators[0], None)], \
            lambda args: self.add(op, "op", args, span, name)

    def sizes(self, args: list[ast.expr], node: ast.AST, fname: str,
              minus_one: bool = False) -> list[int]:
        """Sizes given as integers (`2, 3`) or one tuple or list of them (`(2, 3)`)."""
        if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
            args = args[0].elts
        if len(args) > MAX_DIMS:
            raise self.error("bad_argument", f"{fname}: at most {MAX_DIMS} sizes", node)
        out = []
        for a in args:
            value = number(a)
            # axes count from 0; sizes from 1: a 0-size tensor is refused everywhere
            # (engine/trace/shapes.py), so a 0 here gets the same words
            ok = isinstance(value, int) and value <= MAX_INDEX and (
                value >= 0 if fname == "transpose" else value >= 1 or (minus_one and value == -1))
            if not ok:
                raise self.error("bad_argument", f"{fname} takes integer axes (0 or more)"
                                 if fname == "transpose" else f"{fname} takes integer sizes of "
                                 "1 or more" + (" (one may be -1)" if minus_one else ""), a)
            out.append(value)
        return out

    # ---- leaf helpers ------------------------------------------------------------------------
    def helper(self, node: ast.Call) -> np.ndarray:
        """The float64 value of a helper call, its sizes checked before it is made."""
        fname = node.func.id
        if any(isinstance(a, ast.Starred) for a in node.args) or \
                any(k.arg is None for k in node.keywords):
            raise self.error("unsupported", "* and ** arguments are not supported", node)
        given = self.keywords(node, fname, KEYWORDS.get(fname, ()))
        if fname == "arange":
            start, stop, step = self.arange_args(node)
            span = (stop - start) / step
            if not math.isfinite(span):   # a step of 1e-300
                raise self.error("too_large", f"arange(...) would hold more than "
                                 f"{self.max_elements:,} elements (the limit, max_elements)",
                                 node)
            n = math.ceil(span)
            self.budget(node, fname, max(n, 0))
            if n <= 0:
                raise self.error("bad_argument", "arange: the range is empty", node)
            self.inits[id(node)] = f"arange({', '.join(map(number_text, (start, stop, step)))})"
            return np.arange(start, stop, step, dtype=np.float64)
        if fname == "eye":
            shape = self.sizes(node.args, node, "eye")
            if len(shape) not in (1, 2) or 0 in shape:
                raise self.error("bad_argument", "eye takes n or (n, m), sizes of 1 or more",
                                 node)
            self.budget(node, fname, shape[0] * shape[-1])
            self.inits[id(node)] = f"eye({', '.join(map(str, shape))})"
            return np.eye(shape[0], shape[-1], dtype=np.float64)
        shape = self.sizes(node.args, node, fname)
        if not shape or 0 in shape:
            raise self.error("bad_argument", f"{fname} takes sizes of 1 or more, as in "
                             f"{fname}(2, 3{', seed=0' if fname in KEYWORDS else ''})", node)
        if fname in KEYWORDS:
            return self.random(node, fname, shape, given)
        self.budget(node, fname, math.prod(shape))
        self.inits[id(node)] = f"{fname}({', '.join(map(str, shape))})"
        return (np.zeros if fname == "zeros" else np.ones)(tuple(shape), dtype=np.float64)

    def random(self, node: ast.Call, fname: str, shape: list[int], given: dict) -> np.ndarray:
        """randn(..., seed=S, std=σ): default_rng(S).standard_normal(shape) · σ (σ = 1 when
        not given: the draws as they come); uniform(..., low=a, high=b, seed=S):
        default_rng(S).uniform(a, b, shape), 0 <= a < b <= 1 by default. Checked, then
        budgeted, then drawn."""
        seed = self.seed(node, fname, given, f"{fname}(4, 5, seed=0)")
        if fname == "randn":
            std = self.real(given["std"], "std", positive=True) if "std" in given else None
            params = {"seed": seed} | ({} if std is None else {"std": std})
        else:
            low = self.real(given["low"], "low") if "low" in given else 0
            high = self.real(given["high"], "high") if "high" in given else 1
            if not low < high:
                raise self.error("bad_argument", "uniform needs low < high, got low="
                                 f"{number_text(low)} and high={number_text(high)}",
                                 given.get("high", node))
            params = {"low": low, "high": high, "seed": seed}
        self.budget(node, fname, math.prod(shape))
        self.inits[id(node)] = f"{fname}({', '.join(map(str, shape))}, " + \
            ", ".join(f"{k}={number_text(v)}" for k, v in params.items()) + ")"
        rng = np.random.default_rng(seed)
        if fname == "uniform":
            return rng.uniform(params["low"], params["high"], tuple(shape))
        value = rng.standard_normal(tuple(shape))
        return value if std is None else value * std

    def keywords(self, node: ast.Call, fname: str, allowed: tuple[str, ...]
                 ) -> dict[str, ast.expr]:
        """A call's keyword arguments by name, each one `allowed` (else bad_argument at it)."""
        for kw in node.keywords:
            if kw.arg not in allowed:
                raise ProgramError("bad_argument", f"{fname} has no parameter `{kw.arg}`",
                                   **self.leading_span(kw, len(kw.arg)).to_dict())
        return {kw.arg: kw.value for kw in node.keywords}

    def seed(self, node: ast.Call, fname: str, given: dict, example: str) -> int:
        """The required seed=S of a random helper: an integer from 0 to 2**64 - 1 (numpy's
        default_rng takes any such)."""
        if "seed" not in given:
            raise self.error("bad_argument", f"{fname} needs a seed, as in {example}: the "
                             "same seed gives the same numbers on every run", node)
        value = number(given["seed"])
        if not isinstance(value, int) or not 0 <= value <= MAX_SEED:
            raise self.error("bad_argument", "the seed must be an integer from 0 to 2**64 - 1",
                             given["seed"])
        return value

    def real(self, node: ast.expr, what: str, positive: bool = False) -> float | int:
        """A finite number literal (above 0 if `positive`), as written: an int stays one."""
        value = number(node)
        try:
            finite = value is not None and math.isfinite(value)
        except OverflowError:   # an integer beyond float64
            finite = False
        if not finite or (positive and not value > 0):
            raise self.error("bad_argument", f"{what} must be a "
                             f"{'positive ' if positive else ''}finite number", node)
        return value

    def arange_args(self, node: ast.Call) -> tuple[float, float, float]:
        values = []
        for a in node.args:
            v = number(a)
            if v is None or not math.isfinite(v) or abs(v) > MAX_INDEX:
                raise self.error("bad_argument", "arange takes numbers: arange(stop), "
                                 "arange(start, stop) or arange(start, stop, step)", a)
            values.append(v)
        if not 1 <= len(values) <= 3:
            raise self.error("bad_argument", "arange takes arange(stop), arange(start, stop) "
                             "or arange(start, stop, step)", node)
        start, stop, step = (0, values[0], 1) if len(values) == 1 else \
            (values[0], values[1], 1) if len(values) == 2 else values
        if step == 0:
            raise self.error("bad_argument", "arange's step cannot be zero", node.args[2])
        return start, stop, step

    def budget(self, node: ast.Call, fname: str, size: int) -> None:
        """Refuse a helper over max_elements, or helpers over max_total_elements together,
        before numpy allocates anything (ProgramError "too_large")."""
        self.helper_elements += size
        if size > self.max_elements:
            raise self.error("too_large", f"{fname}(...) would hold {size:,} elements; the "
                             f"limit (max_elements) is {self.max_elements:,}", node)
        if self.helper_elements > self.max_total_elements:
            raise self.error("too_large", f"the program's {', '.join(HELPERS + DATA)} calls "
                             f"would hold {self.helper_elements:,} elements; the limit "
                             f"(max_total_elements) is {self.max_total_elements:,}", node)


def number_text(x) -> str:
    return str(x) if isinstance(x, int) else repr(float(x))
