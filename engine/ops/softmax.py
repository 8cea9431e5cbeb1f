"""softmax, log_softmax and logsumexp over one axis (default the last, as in PyTorch's dim=-1).

Shapes: x of any shape (a 0-d x is one element, as in PyTorch); axis one integer, negative
counting from the end. softmax and log_softmax keep x's shape; logsumexp drops the axis (or
keeps it with size 1 when keepdims is True); logsumexp also takes axis=None, every axis.

Numerics: every forward subtracts the maximum along the axis first, so [1000, 0] gives
softmax [1, 0], log_softmax [0, -1000] and logsumexp 1000 with no overflow (the "max trick",
e.g. Blanchard, Higham & Higham, "Accurately computing the log-sum-exp and softmax functions",
IMA J. Numer. Anal. 2021). An infinite maximum is not subtracted in logsumexp (PyTorch's
rule), so logsumexp([-inf, 0]) = 0 and logsumexp([-inf, -inf]) = -inf, and
logsumexp([inf, 0]) = inf. The vjps are written with the saved output only:
  softmax:     x_bar = p ⊙ (g - sum(g ⊙ p))         (J = diag(p) - p pᵀ; seed 003, "softmax")
  log_softmax: x_bar = g - exp(out) ⊙ sum(g)
  logsumexp:   x_bar = g ⊙ exp(x - out)                 (softmax(x) without a second division)
Where PyTorch's derivative is NaN we give NaN too: a softmax whose axis holds +inf, or only
-inf (inf - inf); logsumexp's gradient at an axis of only -inf (exp(-inf - -inf)).
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.ops.reductions import spread
from gradwalk.engine.ops.registry import Op, register


def _rows(f):
    """Run `f(x, axis)` on a 0-d x as a 1-element vector and give a 0-d result back."""
    def wrapped(x, axis=-1, *rest, **kw):
        if np.ndim(x) == 0:
            return np.reshape(f(np.reshape(x, (1,)), -1 if axis is not None else None,
                                *rest, **kw), ())
        return f(x, axis, *rest, **kw)
    return wrapped


def _shifted(x, axis):
    """x minus its maximum along axis (inf - inf gives NaN there, as in PyTorch)."""
    return x - np.max(x, axis=axis, keepdims=True)


@_rows
def _softmax(x, axis=-1):
    z = np.exp(_shifted(x, axis))
    return z / np.sum(z, axis=axis, keepdims=True)


@_rows
def _log_softmax(x, axis=-1):
    s = _shifted(x, axis)
    return s - np.log(np.sum(np.exp(s), axis=axis, keepdims=True))


@_rows
def _logsumexp(x, axis=-1, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isinf(m), 0.0, m)   # PyTorch's rule: an infinite max is not subtracted
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else (np.squeeze(out, axis=axis) if axis is not None
                                 else np.reshape(out, ()))


def _keep(out, x, axis, keepdims):
    """The output of a reduction over `axis` with that axis kept (size 1)."""
    if keepdims or np.ndim(x) == 0:
        return out
    return np.expand_dims(out, axis) if axis is not None else out


def _text(name):
    def text(x, axis=-1, keepdims=False, **_):
        extra = "" if axis == -1 else f", axis={axis}"
        extra += ", keepdims=True" if keepdims else ""
        return f"{name}({x}{extra})"
    return text


def _sum_axis(v, axis):
    """sum(v) along the op's axis, kept; a 0-d v is its own sum."""
    return v if np.ndim(v) == 0 else np.sum(v, axis=axis, keepdims=True)


# ---- softmax ----------------------------------------------------------------------------------
register(Op(
    name="softmax", arity=1, forward=_softmax,
    vjp=(lambda g, out, x, axis=-1: out * (g - _sum_axis(g * out, axis)),),
    jvp=lambda dots, out, x, axis=-1: out * (dots[0] - _sum_axis(out * dots[0], axis)),
    text=_text("softmax"), partials=("diag({out}) - {out} {out}ᵀ",),
    vjp_text=("{out} ⊙ ({g} - sum({g} ⊙ {out}))",), elementwise=False, params=("axis",),
    # forward: max, subtract, exp, sum, divide (n each); backward: g ⊙ p, sum, subtract, multiply
    flops=lambda out, x: 5 * int(np.size(out)),
    saves=("out",), backward_flops=lambda out, x: 4 * int(np.size(out)),
))

# ---- log_softmax ------------------------------------------------------------------------------
register(Op(
    name="log_softmax", arity=1, forward=_log_softmax,
    vjp=(lambda g, out, x, axis=-1: g - np.exp(out) * _sum_axis(g, axis),),
    jvp=lambda dots, out, x, axis=-1: dots[0] - _sum_axis(np.exp(out) * dots[0], axis),
    text=_text("log_softmax"), partials=("I - 1 softmax({0})ᵀ",),
    vjp_text=("{g} - softmax({0}) ⊙ sum({g})",), elementwise=False, params=("axis",),
    # forward: max, subtract, exp, sum (n each), log (per row), subtract (n);
    # backward: exp(out), sum(g), multiply, subtract (n each)
    flops=lambda out, x: 5 * int(np.size(out)),
    saves=("out",), backward_flops=lambda out, x: 4 * int(np.size(out)),
))


# ---- logsumexp --------------------------------------------------------------------------------
def _lse_vjp(g, out, x, axis=-1, keepdims=False):
    """g ⊙ exp(x - out) = g ⊙ softmax(x), g spread over the reduced axis."""
    if np.ndim(x) == 0:
        return g * np.exp(x - out)
    return spread(g, x, axis, keepdims) * np.exp(x - _keep(out, x, axis, keepdims))


def _lse_jvp(dots, out, x, axis=-1, keepdims=False):
    p = np.exp(x - _keep(out, x, axis, keepdims))
    if np.ndim(x) == 0:
        return p * dots[0]
    return np.sum(p * dots[0], axis=axis, keepdims=keepdims)


register(Op(
    name="logsumexp", arity=1, forward=_logsumexp, vjp=(_lse_vjp,), jvp=_lse_jvp,
    text=_text("logsumexp"), partials=("softmax({0})",),
    vjp_text=("{g} ⊙ exp({0} - {out}) copied along the axis",), elementwise=False,
    params=("axis", "keepdims"),
    # forward: max, subtract, exp, sum (n each), log and add (per output);
    # backward: subtract, exp, multiply (n each)
    flops=lambda out, x: 4 * int(np.size(x)) + 2 * int(np.size(out)),
    saves=("in0", "out"), backward_flops=lambda out, x: 3 * int(np.size(x)),
))
