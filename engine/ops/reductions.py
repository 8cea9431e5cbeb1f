"""Reductions over an axis: sum, mean and var, with numpy's `axis` and `keepdims`.

Shapes: x of any shape; axis None (every axis) or one integer (negative counts from the end);
the output drops the reduced axis, or keeps it with size 1 when keepdims is True (numpy's
`keepdims`, PyTorch's `keepdim`). Each vjp spreads the upstream gradient back over the reduced
axis (`spread`), so its result has x's shape.

var follows torch.var's default, Bessel's correction (correction=1, the unbiased estimate:
sum((x - mean)^2) / (n - 1)); var(x, correction=0) is the population variance (numpy's default
ddof=0). Its gradient is 2 (x - mean) / (n - correction) (e.g. Bishop, PRML, eq. 1.56 ff.);
n - correction <= 0 (var of one element, or correction=6 over 6) is refused before any value
is computed (engine/trace/shapes.py, ProgramError "bad_argument"), where PyTorch would give inf
or NaN; _dof stays a guard for a direct call.
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.ops.registry import Op, register


def spread(g, x, axis, keepdims=False):
    """Broadcast a reduced gradient `g` back over the axis that was reduced: shape of x."""
    if axis is not None and not keepdims and np.ndim(x) > 0:
        g = np.expand_dims(g, axis)
    return np.broadcast_to(g, np.shape(x))


def count(x, axis) -> int:
    """How many elements each output of a reduction over `axis` takes in (n)."""
    return int(np.size(x)) if axis is None else int(np.shape(x)[axis])


def _reduction_texts(name: str, scale: str):
    """The forward text and vjp text of a reduction, naming the axis when there is one."""
    def text(x, axis=None, keepdims=False, correction=1, **_):
        extra = "" if axis is None else f", axis={axis}"
        extra += ", keepdims=True" if keepdims else ""
        extra += f", correction={correction}" if name == "var" and correction != 1 else ""
        return f"{name}({x}{extra})"

    def vjp_text(x, g="", axis=None, correction=1, **_):
        where = "every element of" if axis is None else f"axis {axis} of"
        return f"{g}{scale.format(x=x, n=_n_minus(correction))} copied to {where} {x}"

    return text, vjp_text


def _n_minus(correction) -> str:
    """var's divisor as text: n, n - 1, n - 2, ..."""
    return "n" if correction == 0 else f"(n - {correction})"


def _size(out, x) -> int:
    """FLOPs of a sum: one add per input element (n - 1 per output, rounded up)."""
    return int(np.size(x))


# ---- sum and mean -----------------------------------------------------------------------------
_SUM_TEXT, _SUM_VJP_TEXT = _reduction_texts("sum", "")
_MEAN_TEXT, _MEAN_VJP_TEXT = _reduction_texts("mean", " / n")

register(Op(
    name="sum", arity=1,
    forward=lambda x, axis=None, keepdims=False: np.sum(x, axis=axis, keepdims=keepdims),
    vjp=(lambda g, out, x, axis=None, keepdims=False: spread(g, x, axis, keepdims),),
    jvp=lambda dots, out, x, axis=None, keepdims=False: np.sum(dots[0], axis=axis,
                                                               keepdims=keepdims),
    text=_SUM_TEXT, partials=("1",), vjp_text=(_SUM_VJP_TEXT,),
    elementwise=False, params=("axis", "keepdims"), flops=_size,
    saves=(), backward_flops=lambda out, x: 0,   # a copy of g: no arithmetic
))
register(Op(
    name="mean", arity=1,
    forward=lambda x, axis=None, keepdims=False: np.mean(x, axis=axis, keepdims=keepdims),
    vjp=(lambda g, out, x, axis=None, keepdims=False:
         spread(g / count(x, axis), x, axis, keepdims),),
    jvp=lambda dots, out, x, axis=None, keepdims=False: np.mean(dots[0], axis=axis,
                                                                keepdims=keepdims),
    text=_MEAN_TEXT, partials=("1/n",), vjp_text=(_MEAN_VJP_TEXT,),
    elementwise=False, params=("axis", "keepdims"),
    flops=lambda out, x: int(np.size(x)) + int(np.size(out)),   # the sums, then one divide each
    saves=(), backward_flops=lambda out, x: int(np.size(out)),   # g / n, then a copy
))


# ---- var --------------------------------------------------------------------------------------
def _dof(x, axis, correction) -> np.float64:
    """n - correction, at least 0, as a numpy float: a division by 0 gives inf or NaN (as in
    PyTorch) instead of raising."""
    return np.result_type(x).type(max(count(x, axis) - correction, 0))   # x's float type


def _var(x, axis=None, keepdims=False, correction=1):
    """sum((x - mean)^2) / max(n - correction, 0) over `axis` (torch.var's definition)."""
    d = x - np.mean(x, axis=axis, keepdims=True)
    return np.sum(d * d, axis=axis, keepdims=keepdims) / _dof(x, axis, correction)


def _var_vjp(g, out, x, axis=None, keepdims=False, correction=1):
    """g * 2 (x - mean) / (n - correction), g spread over the reduced axis."""
    d = x - np.mean(x, axis=axis, keepdims=True)
    return spread(g * (2.0 / _dof(x, axis, correction)), x, axis, keepdims) * d


def _var_jvp(dots, out, x, axis=None, keepdims=False, correction=1):
    """2 sum((x - mean) x_dot) / (n - correction): the mean's tangent drops out, as
    sum(x - mean) = 0."""
    d = x - np.mean(x, axis=axis, keepdims=True)
    return 2.0 * np.sum(d * dots[0], axis=axis, keepdims=keepdims) / _dof(
        x, axis, correction)


_VAR_TEXT, _VAR_VJP_TEXT = _reduction_texts("var", " ⊙ 2({x} - mean({x})) / {n}")

register(Op(
    name="var", arity=1, forward=_var, vjp=(_var_vjp,), jvp=_var_jvp,
    text=_VAR_TEXT,
    partials=(lambda x, out="", correction=1, **_:
              f"2({x} - mean({x})) / {_n_minus(correction)}",),
    vjp_text=(_VAR_VJP_TEXT,), elementwise=False, params=("axis", "keepdims", "correction"),
    # forward: the mean (n), x - mean (n), the squares (n), their sum (n), a divide per output
    flops=lambda out, x: 4 * int(np.size(x)) + int(np.size(out)),
    # backward: the mean and x - mean again (2n), the scale per output, one multiply each (n)
    saves=("in0",), backward_flops=lambda out, x: 3 * int(np.size(x)) + int(np.size(out)),
))
