"""Reductions (sum, mean) and softmax over the last axis.

softmax's vjp, p * (g - sum(g * p)), is the Jacobian diag(p) - p p^T applied to g
(../shared/seeds/003_70db1bc89ad395af.txt, "softmax").
"""
from __future__ import annotations

import numpy as np

from engine.ops.registry import Op, register


def _spread(g, x, axis):
    """Broadcast a reduced gradient `g` back over the axis that was reduced: shape of x."""
    if axis is not None and np.ndim(x) > 0:
        g = np.expand_dims(g, axis)
    return np.broadcast_to(g, np.shape(x))


def _count(x, axis):
    """How many elements each output of a reduction over `axis` averages."""
    return np.size(x) if axis is None else np.shape(x)[axis]


def _reduction_texts(name: str, scale: str):
    """The forward text and vjp text of sum / mean, naming the axis when there is one."""
    def text(x, axis=None, **_):
        return f"{name}({x})" if axis is None else f"{name}({x}, axis={axis})"

    def vjp_text(x, g="", axis=None, **_):
        where = "every element of" if axis is None else f"axis {axis} of"
        return f"{g}{scale} copied to {where} {x}"

    return text, vjp_text


_SUM_TEXT, _SUM_VJP_TEXT = _reduction_texts("sum", "")
_MEAN_TEXT, _MEAN_VJP_TEXT = _reduction_texts("mean", " / n")

register(Op(
    name="sum", arity=1, forward=lambda x, axis=None: np.sum(x, axis=axis),
    vjp=(lambda g, out, x, axis=None: _spread(g, x, axis),),
    jvp=lambda dots, out, x, axis=None: np.sum(dots[0], axis=axis),
    text=_SUM_TEXT, partials=("1",), vjp_text=(_SUM_VJP_TEXT,),
    elementwise=False, params=("axis",),
))
register(Op(
    name="mean", arity=1, forward=lambda x, axis=None: np.mean(x, axis=axis),
    vjp=(lambda g, out, x, axis=None: _spread(g / _count(x, axis), x, axis),),
    jvp=lambda dots, out, x, axis=None: np.mean(dots[0], axis=axis),
    text=_MEAN_TEXT, partials=("1/n",), vjp_text=(_MEAN_VJP_TEXT,),
    elementwise=False, params=("axis",),
))


def _softmax(x):
    z = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return z / np.sum(z, axis=-1, keepdims=True)


register(Op(
    name="softmax", arity=1, forward=_softmax,
    vjp=(lambda g, out, x: out * (g - np.sum(g * out, axis=-1, keepdims=True)),),
    jvp=lambda dots, out, x: out * (dots[0] - np.sum(out * dots[0], axis=-1, keepdims=True)),
    text="softmax({0})", partials=("diag({out}) - {out} {out}ᵀ",),
    vjp_text=("{out} ⊙ ({g} - sum({g} ⊙ {out}))",), elementwise=False,
    flops=lambda out, x: 5 * int(np.size(out)),
))
