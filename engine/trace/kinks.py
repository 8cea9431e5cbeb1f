"""Points where an op has no derivative (kinks), found by op name: relu, leaky_relu and abs at
0, maximum / minimum at a tie, max / min with tied extremes, clip at a bound, sqrt at 0, and
x ** k at x = 0 for 0 < k < 1 (an infinite slope).

The engine takes PyTorch's number at such a point (engine/ops/elementwise.py, minmax.py:
relu's slope 0 at 0, sign(0) = 0, ½ to each side of a tie, clip's bounds inside, ∞ for sqrt'
at 0) and says so: forward mode warns (kind "non_differentiable", field `tangents`;
engine/trace/warn.py) and the gradient check explains a disagreement there instead of leaving
it to look like a wrong gradient (engine/trace/gradcheck.py).

Each row: `where(out, *inputs, **params)` -> a boolean mask (any shape; true at the kinks),
`point` ("at 0"), `slopes` (what a central difference averages there) and `convention`
(PyTorch's choice, which the engine follows).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from gradwalk.engine.source import clip
from gradwalk.engine.trace.warn import where as place


@dataclass(frozen=True)
class Kink:
    where: Callable[..., np.ndarray]
    point: str
    here: str
    slopes: str
    convention: str


def _at_zero(out, x, **_):
    return np.asarray(x) == 0


def _tie(out, a, b):
    return np.asarray(a) == np.asarray(b)


def _extreme_tie(out, x, axis=None, keepdims=False):
    o = out if keepdims or axis is None else np.expand_dims(out, axis)
    return np.sum(np.asarray(x) == o, axis=axis) > 1


def _at_bound(out, x, lo=None, hi=None):
    x = np.asarray(x)
    mask = np.zeros(np.shape(x), dtype=bool)
    for bound in (lo, hi):
        if bound is not None:
            mask |= x == bound
    return mask


def _root_at_zero(out, x, y):
    y = np.asarray(y)
    return (np.asarray(x) == 0) & (y > 0) & (y < 1)


_INFINITE = ("the slope is infinite there, and the function is not defined (NaN) to the left, "
             "so a central difference is NaN")

_POLE = "slope ∞: the tangent is ∞, or NaN where it is 0"
TABLE: dict[str, Kink] = {
    "relu": Kink(_at_zero, "at 0", "its input is 0", "the one-sided slopes 0 and 1", "slope 0"),
    "leaky_relu": Kink(_at_zero, "at 0", "its input is 0", "the one-sided slopes {slope} and 1",
                       "slope {slope}, the negative side's"),
    "abs": Kink(_at_zero, "at 0", "its input is 0", "the one-sided slopes -1 and 1",
                "slope sign(0) = 0"),
    "maximum": Kink(_tie, "where its inputs tie", "its two inputs are equal",
                    "the one-sided slopes 0 and 1", "½ to each input"),
    "minimum": Kink(_tie, "where its inputs tie", "its two inputs are equal",
                    "the one-sided slopes 0 and 1", "½ to each input"),
    "max": Kink(_extreme_tie, "where elements tie for the max", "elements tie for the max",
                "the one-sided slopes 0 and 1 of each tied element",
                "the tied elements share the slope evenly, as torch.amax"),
    "min": Kink(_extreme_tie, "where elements tie for the min", "elements tie for the min",
                "the one-sided slopes 0 and 1 of each tied element",
                "the tied elements share the slope evenly, as torch.amin"),
    "clip": Kink(_at_bound, "at its bounds", "its input is at a bound",
                 "the one-sided slopes 0 and 1", "slope 0: a bound counts as outside, as "
                                                 "torch.clamp since PyTorch 2.14"),
    "sqrt": Kink(_at_zero, "at 0", "its input is 0", _INFINITE, _POLE),
    "pow": Kink(_root_at_zero, "at 0 for an exponent between 0 and 1", "its base is 0",
                _INFINITE, _POLE),
}


def at(op: str, out, xs: list, params: dict) -> int:
    """How many elements of an `op` node (with output `out`, inputs `xs`) sit at a kink; 0
    for an op without a row. Values that are not finite are never counted."""
    row = TABLE.get(op)
    if row is None:
        return 0
    with np.errstate(all="ignore"):
        try:
            mask = row.where(out, *xs, **params)
        except (TypeError, ValueError):   # a row that does not fit these inputs: no kink
            return 0
    return int(np.count_nonzero(mask))


def _filled(text: str, params: dict) -> str:
    return text.format(slope=params.get("slope", 0.01)) if "{" in text else text


def forward_message(op: str, node, formula: str, count: int, size: int) -> str:
    """The forward-mode warning: "relu is not differentiable at 0: in L = relu(a) (line 2,
    col 5) its input is 0; the tangent follows PyTorch's convention (slope 0)"."""
    row = TABLE[op]
    which = "" if size <= 1 else f" at {count} of its {size} elements"
    return (f"{op} is not differentiable {row.point}: in {clip(formula)} ({place(node.span)}) "
            f"{row.here}{which}; the tangent follows PyTorch's convention "
            f"({_filled(row.convention, node.params)})")


def second_order_message(op: str, node, formula: str, count: int, size: int, what: str) -> str:
    """The second-order warning: "relu is not differentiable at 0: in y = relu(x) (line 2,
    col 5) its input is 0; the Hessian-vector product takes PyTorch's convention there (slope
    0, and 0 for its second derivative)"."""
    row = TABLE[op]
    which = "" if size <= 1 else f" at {count} of its {size} elements"
    return (f"{op} is not differentiable {row.point}: in {clip(formula)} ({place(node.span)}) "
            f"{row.here}{which}; {what} takes PyTorch's convention there "
            f"({_filled(row.convention, node.params)}, and 0 for its second derivative)")


def event_note(op: str, node) -> str:
    """The few words a `tangent` event at a kink gets."""
    row = TABLE[op]
    return (f"; {op} is not differentiable {row.point}, so PyTorch's convention is taken "
            f"({_filled(row.convention, node.params)})")


def check_reason(op: str, node) -> str:
    """The gradient check's reason at a kink: "relu at 0 (line 2): central differences average
    the one-sided slopes 0 and 1, and the engine takes PyTorch's slope 0"."""
    row = TABLE[op]
    slopes = _filled(row.slopes, node.params)
    said = slopes if slopes == _INFINITE else f"central differences average {slopes}"
    return (f"{op} {row.point} (line {node.span.line}): {said}, and the engine takes "
            f"PyTorch's {_filled(row.convention, node.params)}")


def pow_second(node, xs: list, program) -> tuple[int, int]:
    """(elements with no mixed second derivative, elements with an infinite ∂²/∂x²) of a pow
    node whose base is 0: the first where the exponent is a name the walk moves (not a number
    written in the program) and 0 <= y <= 1, the second where 0 < y < 1 or 1 < y < 2
    (engine/ops/masked.py's docstring). (0, 0) for another node."""
    if node.op != "pow":
        return 0, 0
    with np.errstate(all="ignore"):
        x, y = np.broadcast_arrays(np.asarray(xs[0], dtype=float),
                                   np.asarray(xs[1], dtype=float))
        zero = x == 0
        mixed = zero & (y >= 0) & (y <= 1)
        if program.nodes[node.inputs[1]].role == "const":
            mixed = np.zeros_like(zero)
        pole = zero & (((y > 0) & (y < 1)) | ((y > 1) & (y < 2)))
    return int(np.count_nonzero(mixed)), int(np.count_nonzero(pole))


def pow_second_message(node, formula: str, counts: tuple[int, int], size: int,
                       what: str, labels: tuple[str, str] = ("x", "y")) -> str:
    """The second-order warning at a pow node with base 0 (pow_second's counts), its
    inputs written as `labels` (wrapped: `c`, `(a + b)`)."""
    mixed, pole = counts
    x, y = (clip(k, 12) for k in labels)
    which = "" if size <= 1 else f" (at {max(mixed, pole)} of its {size} elements)"
    said = []
    if mixed:
        said.append(f"∂²/∂{x}∂{y} = {x}^({y}-1) (1 + {y} log {x}) has no value for "
                    f"0 ≤ {y} ≤ 1 (-∞ as {x} -> 0+): NaN in {what}")
    if pole:
        said.append(f"∂²/∂{x}² = {y} ({y}-1) {x}^({y}-2) is -∞ for 0 < {y} < 1, ∞ for "
                    f"1 < {y} < 2")
    return (f"pow has no finite second derivative at base 0: in {clip(formula)} "
            f"({place(node.span)}){which}, {'; '.join(said)}")
