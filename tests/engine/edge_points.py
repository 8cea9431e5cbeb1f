"""Edge points of every registered op: the shared table that tests/engine/test_edges.py runs.

Each row is one small program around one op (issue 7, section 2): its leaves at the op's edge
points (0 and -0, negatives, huge, tiny and subnormal, ties, inputs that overflow an
intermediate), and the same computation in PyTorch float64. The test traces the program
through the whole engine and checks the output value and every leaf's gradient against
PyTorch (NaN where PyTorch has NaN, inf where it has inf, otherwise to 1e-10 relative); where
the row is `smooth` it also checks the gradients against central differences; where the
program is the op applied to its leaves it also runs the op's vjp with upstream gradients of
0, inf and NaN as the engine does (engine/trace/runner.py `_vjp`) against PyTorch's.

To add an op: add rows with `edge(...)`; every op in engine.ops.REGISTRY needs at least one
(test_every_registered_op_has_edge_points). Keep a row's leaves few, so a failure reads well.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import torch
import torch.nn.functional as F

INF = math.inf
TINY = 5e-324          # the smallest subnormal
SUB = 1e-310           # a subnormal: 1 / SUB overflows
HUGE = 1e200           # HUGE * HUGE overflows


@dataclass(frozen=True)
class Edge:
    """One case.

    op: the registry name the row covers.
    program: the lines after the leaves, e.g. "y = a ** b"; the last name assigned is the
        output (seeded with ones when it is not a scalar, as PyTorch's backward(ones)).
    leaves: leaf name -> value (a float or nested lists; ±inf allowed), in the order `torch`
        takes them.
    torch: the program on float64 tensors, one argument per leaf.
    consts: leaves declared `const(...)` (no gradient; PyTorch's requires_grad=False).
    smooth: the function is differentiable with moderate slopes around every point, so central
        differences (relative step 1e-6) must agree too.
    expect: leaf -> the right gradient where PyTorch's is wrong (it overflows where the slope is
        finite); `why` says so. Compared instead of PyTorch's for that leaf.
    inf_upstream: why PyTorch's rule gives NaN for an infinite upstream gradient where ours does
        not (it is composed of kernels that meet inf - inf or 0 * inf, as log_softmax's backward
        after nll_loss's); set, the rule check skips the positions where PyTorch has NaN for an
        upstream gradient of ±inf.
    """

    op: str
    program: str
    leaves: dict
    torch: Callable
    consts: tuple = ()
    smooth: bool = False
    expect: dict = field(default_factory=dict)
    why: str = ""
    inf_upstream: str = ""

    @property
    def id(self) -> str:
        return f"{self.op}: {self.program.splitlines()[-1]} at " + ", ".join(
            f"{k}={v}" for k, v in self.leaves.items())


EDGES: list[Edge] = []


def edge(op, program, leaves, torch_fn, **kw) -> None:
    """Add a row to EDGES (see Edge for the fields)."""
    EDGES.append(Edge(op, program, leaves, torch_fn, **kw))


# ---- the cases: a mask selects, pow at 0 ----------------------------------------------
edge("relu", "y = sqrt(relu(x)) - relu(-x)\nL = sum(y)", {"x": [-1.0, -4.0, 4.0, 0.0]},
     lambda x: (torch.sqrt(torch.relu(x)) - torch.relu(-x)).sum())
edge("pow", "L = sum(a ** b) + c ** d", {"a": [0.0, 2.0], "b": [1.0, 1.0], "c": 0.0, "d": 2.5},
     lambda a, b, c, d: (a ** b).sum() + c ** d, consts=("a",))
edge("pow", "y = x ** 0.0", {"x": 0.0}, lambda x: x ** 0.0)
edge("pow", "L = a ** b", {"a": 0.0, "b": 0.0}, lambda a, b: a ** b)

# ---- arithmetic ---------------------------------------------------------------------------
edge("add", "y = a + b", {"a": [0.0, -0.0, 1e308, INF, TINY], "b": [-0.0, -0.0, 1e308, -INF, TINY]},
     lambda a, b: a + b)
edge("add", "y = a + b", {"a": [[1.0, -2.0]], "b": [[HUGE], [-HUGE]]}, lambda a, b: a + b)
edge("sub", "y = a - b", {"a": [0.0, INF, -1e308, TINY], "b": [0.0, INF, 1e308, TINY]},
     lambda a, b: a - b)
edge("sub", "y = a - b", {"a": 0.0, "b": -0.0}, lambda a, b: a - b, smooth=True)
edge("mul", "y = a * b", {"a": [0.0, INF, HUGE, TINY, -0.0], "b": [INF, 0.0, HUGE, 0.5, 3.0]},
     lambda a, b: a * b)
edge("mul", "y = a * b", {"a": 0.0, "b": 1e400}, lambda a, b: a * b)
edge("mul", "y = a * b * b", {"a": 1e-200, "b": 1e-200}, lambda a, b: a * b * b)
# unbroadcast sums inf and -inf into b's gradient: NaN, as PyTorch's sum_to_size
edge("mul", "y = a * b", {"a": [INF, -INF], "b": [[1.0], [2.0]]}, lambda a, b: a * b)
edge("add", "y = a + b", {"a": [[0.0, 1.0], [2.0, 3.0]], "b": TINY}, lambda a, b: a + b)
edge("div", "y = a / b", {"a": [1.0, 0.0, -1.0, HUGE, 1e-200, 0.0, INF, 1.0],
                          "b": [0.0, 0.0, -0.0, HUGE, HUGE, INF, INF, SUB]},
     lambda a, b: a / b)
edge("div", "y = a / b", {"a": HUGE, "b": HUGE}, lambda a, b: a / b, smooth=True)
edge("div", "y = a / b", {"a": 1.0, "b": 0.0}, lambda a, b: a / b)
edge("div", "y = a / b", {"a": 0.0, "b": 0.0}, lambda a, b: a / b)
edge("div", "y = a / b\nz = y * 1e-300", {"a": 1.0, "b": SUB}, lambda a, b: a / b * 1e-300)
edge("div", "y = sqrt(a) / b", {"a": 0.0, "b": 2.0}, lambda a, b: torch.sqrt(a) / b)
edge("neg", "y = -x", {"x": [0.0, -0.0, INF, -TINY]}, lambda x: -x)
edge("neg", "y = -sqrt(x)", {"x": 0.0}, lambda x: -torch.sqrt(x))

# pow: 0 to every kind of exponent, negative bases (integer and not), inf, overflow, subnormals
edge("pow", "y = a ** b", {"a": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.0, -0.0],
                           "b": [1.0, 0.0, 2.5, -1.0, -2.0, 0.5, 3.0, -1.0]},
     lambda a, b: a ** b)
edge("pow", "y = a ** b", {"a": [-2.0, -2.0, -2.0, -2.0, -1.5], "b": [2.0, 3.0, -1.0, 0.5, 0.0]},
     lambda a, b: a ** b)
edge("pow", "y = a ** b", {"a": [INF, -INF, 2.0, 0.5, 1.0, 1.0, -1.0],
                           "b": [2.0, 2.0, INF, INF, INF, -INF, INF]},
     lambda a, b: a ** b)
edge("pow", "y = a ** b", {"a": [10.0, HUGE, 1e-200, 2.0], "b": [400.0, 2.0, 2.0, -2000.0]},
     lambda a, b: a ** b)
edge("pow", "y = a ** b", {"a": [2.0, 0.5, 3.0], "b": [0.0, -3.0, 1.5]}, lambda a, b: a ** b,
     smooth=True)
edge("pow", "y = x ** 2.0", {"x": [0.0, -0.0, -3.0, HUGE, TINY]}, lambda x: x ** 2.0)
edge("pow", "y = x ** 0.5", {"x": [0.0, -1.0, TINY]}, lambda x: x ** 0.5)
edge("pow", "y = x ** 3.0", {"x": -2.0}, lambda x: x ** 3.0, smooth=True)
edge("pow", "y = a ** b", {"a": SUB, "b": 0.001}, lambda a, b: a ** b,
     expect={"a": math.exp(math.log(0.001) - 0.999 * math.log(SUB))},
     why="x^(y-1) overflows for x = 1e-310 but y x^(y-1) = 4.9e306; PyTorch gives inf")

# ---- activations ----------------------------------------------------------------------------
# (not 18 < |x| < 19.1: numpy's tanh and PyTorch's round there to neighbouring floats below 1,
# so 1 - tanh² is 0 in one and 2.2e-16 in the other, both rounding noise of 1.3e-16)
edge("tanh", "y = tanh(x)", {"x": [0.0, -0.0, 20.0, -20.0, 1000.0, -1000.0, INF, -INF, TINY,
                                   1e-300]},
     torch.tanh)
edge("tanh", "y = tanh(x)", {"x": [HUGE, -HUGE, 1e-8, -1e-8]}, torch.tanh, smooth=True)
edge("sigmoid", "y = sigmoid(x)", {"x": [0.0, 36.0, 37.0, 38.0, -36.0, -40.0, -700.0, 709.0,
                                         1000.0, -1000.0, INF, -INF]},
     torch.sigmoid)
edge("sigmoid", "y = sigmoid(x)", {"x": [-710.0, -745.0, -746.0]}, torch.sigmoid,
     expect={"x": [math.exp(-710.0), 5e-324, 0.0]},
     why="PyTorch's 1 / (1 + exp(-x)) overflows exp for x < -709 and gives 0; from exp(-|x|) "
         "the value and slope are the subnormals 4.5e-309 and 5e-324")
edge("sigmoid", "y = sigmoid(x)", {"x": [HUGE, -HUGE, 0.5, -0.5]}, torch.sigmoid, smooth=True)
edge("relu", "y = relu(x)", {"x": [0.0, -0.0, -1.0, INF, -INF, TINY, -TINY]}, torch.relu)
edge("relu", "y = relu(x)", {"x": [HUGE, -HUGE, 2.0, -2.0]}, torch.relu, smooth=True)
edge("relu", "y = log(relu(x))", {"x": [0.0, -1.0, 2.0]}, lambda x: torch.log(torch.relu(x)))
edge("relu", "y = relu(x) * 1e400", {"x": [0.0, -1.0, 2.0]}, lambda x: torch.relu(x) * INF)
edge("exp", "y = exp(x)", {"x": [0.0, 709.0, 709.78, 710.0, 1000.0, -745.0, -746.0, -1000.0,
                                 INF, -INF]},
     torch.exp)
edge("exp", "y = exp(x)", {"x": [-HUGE, 700.0, -700.0]}, torch.exp, smooth=True)
edge("log", "y = log(x)", {"x": [0.0, -0.0, -1.0, TINY, SUB, INF, -INF, 1.0]}, torch.log)
edge("log", "y = log(x)", {"x": [HUGE, 1e-200, 1.0]}, torch.log, smooth=True)
edge("log", "y = log(x) * 1e-300", {"x": SUB}, lambda x: torch.log(x) * 1e-300)
edge("sqrt", "y = sqrt(x)", {"x": [0.0, -0.0, -1.0, TINY, SUB, INF, -INF]}, torch.sqrt)
edge("sqrt", "y = sqrt(x)", {"x": [HUGE, 1e-200, 4.0]}, torch.sqrt, smooth=True)
edge("sqrt", "y = sqrt(sqrt(x))", {"x": 0.0}, lambda x: torch.sqrt(torch.sqrt(x)))
edge("sqrt", "y = sqrt(x * 0.0)", {"x": [0.0, -1.0]}, lambda x: torch.sqrt(x * 0.0))
edge("abs", "y = abs(x)", {"x": [0.0, -0.0, -1.0, INF, -INF, TINY, -TINY]}, torch.abs)
edge("abs", "y = abs(x)", {"x": [HUGE, -HUGE, -3.0]}, torch.abs, smooth=True)
edge("abs", "y = sqrt(abs(x))", {"x": [0.0, -1.0]}, lambda x: torch.sqrt(torch.abs(x)))
edge("gelu", "y = gelu(x)", {"x": [0.0, -0.0, 40.0, -30.0, -38.0, -39.0, -40.0, -1000.0, 1000.0,
                                   TINY, -TINY, HUGE, -HUGE]},
     F.gelu)
edge("gelu", "y = gelu(x)", {"x": [5.0, -2.0, 1e-8]}, F.gelu, smooth=True)
edge("gelu", 'y = gelu(x, approximate="tanh")',
     {"x": [0.0, -0.0, 5.0, -5.0, 40.0, -40.0, 1000.0, -1000.0, 1e103, -1e103, TINY]},
     lambda x: F.gelu(x, approximate="tanh"))
edge("gelu", 'y = gelu(x, approximate="tanh")', {"x": [HUGE, -HUGE, 1e155, -1e155]},
     lambda x: F.gelu(x, approximate="tanh"), expect={"x": [1.0, 0.0, 1.0, 0.0]},
     why="PyTorch's tanh GELU takes 0 * inf in its slope beyond |x| = 1e154 (NaN); the slope "
         "is 1 for large x and 0 for large -x")

# ---- linalg ---------------------------------------------------------------------------------
edge("matmul", "y = X @ W", {"X": [[0.0, 0.0], [1.0, -1.0]], "W": [[INF, 1.0], [2.0, -INF]]},
     lambda X, W: X @ W)
# (not W = [[HUGE], [-HUGE]]: inf + -inf in a dot product depends on the BLAS, inf with numpy's
# OpenBLAS, whose fused multiply-add keeps the first product inf, NaN with torch 2.14.1's)
edge("matmul", "y = X @ W", {"X": [[HUGE, HUGE]], "W": [[HUGE], [HUGE]]}, lambda X, W: X @ W)
edge("matmul", "y = X @ W", {"X": [[HUGE, 1.0]], "W": [[-HUGE], [2.0]]}, lambda X, W: X @ W)
edge("matmul", "y = X @ W", {"X": [[0.0, 0.0], [0.0, 0.0]], "W": [[0.0, 1.0], [TINY, 0.0]]},
     lambda X, W: X @ W, smooth=True)
edge("matmul", "y = x @ w", {"x": [0.0, INF], "w": [0.0, 1.0]}, lambda x, w: x @ w)
edge("matmul", "y = x @ W", {"x": [1.0, 0.0], "W": [[1.0, 2.0], [INF, 0.0]]},
     lambda x, W: x @ W)
edge("matmul", "y = X @ w", {"X": [[1e-200, 1e-200], [HUGE, HUGE]], "w": [1e-200, 2.0]},
     lambda X, w: X @ w)
edge("matmul", "y = sqrt(X @ W)", {"X": [[0.0, 1.0]], "W": [[1.0], [0.0]]},
     lambda X, W: torch.sqrt(X @ W))

# ---- structure ops, comparisons and where (engine/ops/shape.py) ------------------------------
edge("transpose", "y = x.T", {"x": [[0.0, INF], [-0.0, TINY]]}, lambda x: x.T)
edge("transpose", "y = sqrt(transpose(x, (1, 0)))", {"x": [[0.0, 4.0], [-1.0, INF]]},
     lambda x: torch.sqrt(x.permute(1, 0)))
edge("reshape", "y = reshape(x, (2, 2))", {"x": [0.0, INF, -INF, TINY]},
     lambda x: x.reshape(2, 2))
edge("reshape", "y = sqrt(reshape(x, (2,)))", {"x": [[0.0, 1.0]]},
     lambda x: torch.sqrt(x.reshape(2)))
edge("index", "y = x[1:]", {"x": [INF, 0.0, -1.0]}, lambda x: x[1:])
edge("index", "y = sqrt(x[0:1])", {"x": [0.0, 4.0]}, lambda x: torch.sqrt(x[0:1]))
edge("concat", "y = concat([a, b])", {"a": [0.0, INF], "b": [-0.0]},
     lambda a, b: torch.cat([a, b]))
edge("concat", "y = sqrt(concat([a, b]))", {"a": [0.0, 4.0], "b": [-1.0]},
     lambda a, b: torch.sqrt(torch.cat([a, b])))
edge("stack", "y = stack([a, b])", {"a": [0.0, INF], "b": [TINY, -1.0]},
     lambda a, b: torch.stack([a, b]))
edge("stack", "y = sqrt(stack([a, b]))", {"a": [0.0, 4.0], "b": [-1.0, 1.0]},
     lambda a, b: torch.sqrt(torch.stack([a, b])))
# where selects: the branch not taken gets 0 even from an infinite upstream gradient; but the
# branch's own rule still runs, so where(x > 0, sqrt(x), 0) at x = -1 has the gradient
# 0 / (2 sqrt(-1)) = NaN, PyTorch's "where NaN trap"
edge("where", "y = where(x > 0.0, sqrt(x), 0.0 * x)", {"x": [-1.0, 0.0, 4.0]},
     lambda x: torch.where(x > 0.0, torch.sqrt(x), 0.0 * x))
edge("where", "y = sqrt(where(x > 0.0, x, 0.0 * x))", {"x": [-1.0, 0.0, 4.0]},
     lambda x: torch.sqrt(torch.where(x > 0.0, x, 0.0 * x)))
edge("where", "y = where(x >= 0.0, x, 1e400 * x)", {"x": [-1.0, 0.0, -0.0, 2.0]},
     lambda x: torch.where(x >= 0.0, x, INF * x))
# comparisons at ties: the gradient follows the comparison's value (x == t: `>` sends it to t)
_X, _T = [1.0, 2.0, 3.0, -0.0], [2.0, 2.0, 2.0, 0.0]
for _name, _sym, _fn in [("greater", ">", torch.gt), ("greater_equal", ">=", torch.ge),
                         ("less", "<", torch.lt), ("less_equal", "<=", torch.le),
                         ("equal", "==", torch.eq), ("not_equal", "!=", torch.ne)]:
    edge(_name, f"y = where(x {_sym} t, x, t)", {"x": _X, "t": _T},
         lambda x, t, fn=_fn: torch.where(fn(x, t), x, t))

# the session-6 rows of softmax, losses, min/max and norms, kept apart in
# tests/engine/edge_points_more.py
import edge_points_more  # noqa: E402,F401  (adds its rows to EDGES)
