"""Structure ops (reshape, transpose, indexing, concat, stack), comparisons and where.

Structure ops move numbers without arithmetic: 0 FLOPs forward and backward, and their vjps
need only the input's shape (metadata), not its values, so they save no tensor (PyTorch's
ViewBackward, PermuteBackward, SliceBackward, CatBackward, StackBackward save sizes only).
Each vjp undoes the move: reshape back, the inverse permutation, a scatter into zeros
(indexing), a split (concat), a slice along the new axis (stack).

Comparisons (`x > 0`, ...) make a mask of 0s and 1s in the program's dtype. They are not
differentiable (a step function: its derivative is 0 wherever it exists; PyTorch's comparison
results do not require grad), so the tracer never sends a gradient into one
(engine/graph.py's requires_grad is false for them; NOT_DIFFERENTIABLE). Their vjp rows give
zeros, for completeness. `where(cond, a, b)` selects; its vjp routes the upstream gradient to
`a` where cond holds and to `b` elsewhere by selection (np.where), not by multiplying with the
mask, so an infinite upstream gradient is not turned into 0 * inf = NaN on the side it does
not reach (issue 7, section 2). Ties (cond exactly at a boundary) follow the comparison's
value, as in PyTorch.

Index params are JSON: an int, or [start, stop, step] with nulls for a slice (`x[1:3, 0]` is
{"index": [[1, 3, null], 0]}).
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.ops.registry import Op, register

MAX_PIECES = 64   # tensors concat and stack take (one vjp row per position)


def _zero(out, *xs, **_):
    return 0


# ---- reshape ---------------------------------------------------------------------------------
def _shape_text(shape) -> str:
    shape = tuple(shape)
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


register(Op(
    name="reshape", arity=1,
    forward=lambda x, shape: np.reshape(x, tuple(shape)),
    vjp=(lambda g, out, x, shape: np.reshape(g, np.shape(x)),),
    jvp=lambda dots, out, x, shape: np.reshape(dots[0], np.shape(out)),
    text=lambda x, shape, **_: f"reshape({x}, {_shape_text(shape)})",
    partials=("1 (reshaped)",),
    vjp_text=(lambda x, g="", **_: f"{g} reshaped back to {x}'s shape",),
    elementwise=False, params=("shape",), flops=_zero, saves=(), backward_flops=_zero,
))


# ---- transpose -------------------------------------------------------------------------------
def _inverse(axes):
    return None if axes is None else tuple(np.argsort(axes))


def _transpose_text(x, axes=None, **_):
    return f"{x}.T" if axes is None else f"transpose({x}, {_shape_text(axes)})"


def _transpose_vjp_text(x, g="", axes=None, **_):
    if axes is None:   # (∂L/∂S)ᵀ: the ᵀ is of the whole adjoint
        return f"({g})ᵀ" if g.startswith("∂") else f"{g}ᵀ"
    return f"transpose({g}, {_shape_text(_inverse(axes))})"


register(Op(
    name="transpose", arity=1,
    forward=lambda x, axes=None: np.transpose(x, None if axes is None else tuple(axes)),
    vjp=(lambda g, out, x, axes=None: np.transpose(g, _inverse(axes)),),
    jvp=lambda dots, out, x, axes=None: np.transpose(dots[0],
                                                     None if axes is None else tuple(axes)),
    text=_transpose_text, partials=("transpose",), vjp_text=(_transpose_vjp_text,),
    elementwise=False, params=("axes",), flops=_zero, saves=(), backward_flops=_zero,
))


# ---- indexing --------------------------------------------------------------------------------
def key(index: list) -> tuple:
    """The numpy key of an index param: ints stay, [start, stop, step] becomes a slice."""
    return tuple(slice(*k) if isinstance(k, list) else k for k in index)


def index_text(index: list) -> str:
    """`1:3, 0` for [[1, 3, null], 0]."""
    parts = []
    for k in index:
        if not isinstance(k, list):
            parts.append(str(k))
            continue
        start, stop, step = ("" if v is None else str(v) for v in k)
        parts.append(f"{start}:{stop}" + (f":{step}" if step else ""))
    return ", ".join(parts)


def _scatter(g, out, x, index):
    """The vjp of x[index]: g written into zeros of x's shape (basic indexing selects each
    element at most once, so writing is adding)."""
    z = np.zeros(np.shape(x), dtype=np.result_type(g, x))
    z[key(index)] = g
    return z


register(Op(
    name="index", arity=1,
    forward=lambda x, index: np.asarray(x)[key(index)],
    vjp=(_scatter,),
    jvp=lambda dots, out, x, index: np.asarray(dots[0])[key(index)],
    text=lambda x, index, **_: f"{x}[{index_text(index)}]",
    partials=(lambda x, index, **_: f"1 at [{index_text(index)}], 0 elsewhere",),
    vjp_text=(lambda x, g="", index=(), **_: f"{g} placed at [{index_text(index)}] of "
              f"zeros shaped like {x}",),
    elementwise=False, params=("index",), flops=_zero, saves=(), backward_flops=_zero,
))


# ---- concat and stack ------------------------------------------------------------------------
def _axis(axis: int, ndim: int) -> int:
    return axis % ndim if ndim else 0


def _concat_vjp(i: int):
    def vjp(g, out, *xs, axis=0):
        ax = _axis(axis, np.ndim(xs[i]))
        start = sum(np.shape(x)[ax] for x in xs[:i])
        where = (slice(None),) * ax + (slice(start, start + np.shape(xs[i])[ax]),)
        return g[where]
    return vjp


def _concat_vjp_text(i: int):
    def text(*labels, g="", axis=0, **_):
        return f"{g}'s part from {labels[i]} (along axis {axis})"
    return text


def _stack_vjp(i: int):
    def vjp(g, out, *xs, axis=0):
        return np.take(g, i, axis=_axis(axis, np.ndim(xs[i]) + 1))
    return vjp


def _stack_vjp_text(i: int):
    def text(*labels, g="", axis=0, **_):
        return f"{g}[{i}] along axis {axis}"
    return text


def _list_text(name: str):
    def text(*labels, axis=0, **_):
        return f"{name}([{', '.join(labels)}], axis={axis})"
    return text


register(Op(
    name="concat", arity=MAX_PIECES,
    forward=lambda *xs, axis=0: np.concatenate(xs, axis=axis),
    vjp=tuple(_concat_vjp(i) for i in range(MAX_PIECES)),
    jvp=lambda dots, out, *xs, axis=0: np.concatenate(
        [np.broadcast_to(d, np.shape(x)) for d, x in zip(dots, xs)], axis=axis),
    text=_list_text("concat"), partials=("1 (its part)",) * MAX_PIECES,
    vjp_text=tuple(_concat_vjp_text(i) for i in range(MAX_PIECES)),
    elementwise=False, params=("axis",), flops=_zero, saves=(), backward_flops=_zero,
))
register(Op(
    name="stack", arity=MAX_PIECES,
    forward=lambda *xs, axis=0: np.stack(xs, axis=axis),
    vjp=tuple(_stack_vjp(i) for i in range(MAX_PIECES)),
    jvp=lambda dots, out, *xs, axis=0: np.stack(
        [np.broadcast_to(d, np.shape(x)) for d, x in zip(dots, xs)], axis=axis),
    text=_list_text("stack"), partials=("1 (its slice)",) * MAX_PIECES,
    vjp_text=tuple(_stack_vjp_text(i) for i in range(MAX_PIECES)),
    elementwise=False, params=("axis",), flops=_zero, saves=(), backward_flops=_zero,
))


# ---- comparisons and where -------------------------------------------------------------------
COMPARISONS = {"greater": (np.greater, ">"), "greater_equal": (np.greater_equal, ">="),
               "less": (np.less, "<"), "less_equal": (np.less_equal, "<="),
               "equal": (np.equal, "=="), "not_equal": (np.not_equal, "!=")}
NOT_DIFFERENTIABLE = frozenset(COMPARISONS)


def _mask(compare):
    def forward(x, y):
        """1 where the comparison holds, 0 elsewhere, in the operands' dtype."""
        return compare(x, y).astype(np.result_type(x, y))
    return forward


def _no_gradient(g, out, x, y):
    return np.zeros(np.shape(out), dtype=np.result_type(g, out))


for _name, (_compare, _symbol) in COMPARISONS.items():
    register(Op(
        name=_name, arity=2, symbol=_symbol, forward=_mask(_compare),
        vjp=(_no_gradient, _no_gradient),
        jvp=lambda dots, out, x, y: np.zeros(np.shape(out), dtype=np.result_type(out)),
        text=f"{{0}} {_symbol} {{1}}", partials=("0 (a step)", "0 (a step)"),
        flops=lambda out, x, y: int(np.size(out)), saves=(), backward_flops=_zero,
    ))


def _select(take_a: bool):
    def vjp(g, out, cond, a, b):
        """The upstream gradient where this branch was taken, 0 elsewhere (a selection)."""
        held = np.asarray(cond) != 0
        zero = np.zeros((), dtype=np.result_type(g))
        return np.where(held, g, zero) if take_a else np.where(held, zero, g)
    return vjp


def _where_cond_vjp(g, out, cond, a, b):
    return np.zeros(np.shape(cond), dtype=np.result_type(g))


register(Op(
    name="where", arity=3,
    forward=lambda cond, a, b: np.where(np.asarray(cond) != 0, a, b),
    vjp=(_where_cond_vjp, _select(True), _select(False)),
    jvp=lambda dots, out, cond, a, b: np.where(np.asarray(cond) != 0, dots[1], dots[2]),
    text="where({0}, {1}, {2})",
    partials=("0 (a mask)", "[{0}]", "[not {0}]"),
    vjp_text=("0 (a mask gets no gradient)", "{g} where {0}, else 0",
              "{g} where not {0}, else 0"),
    elementwise=False, flops=_zero, saves=("in0",), backward_flops=_zero,
))
