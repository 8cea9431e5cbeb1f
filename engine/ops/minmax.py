"""Largest and smallest: max and min over an axis, elementwise maximum and minimum, clip.

Where the derivative is undefined (ties, the bounds of clip) the rules are PyTorch's, and each
mask selects (np.where) instead of multiplying by 0, so an infinite upstream gradient gives 0
where the local derivative is 0, never 0 * inf = NaN:
- max(x, axis) / min(x, axis) follow torch.amax / torch.amin: tied extremes share the gradient
  evenly (each of k ties gets g / k). torch.max(x, dim), which returns one index, sends it all
  to one element instead; we do not follow that. A NaN in the axis makes the result NaN and the
  gradient is shared among the NaN elements (torch.max(x) without dim; torch.amax multiplies by
  a mask and gives NaN everywhere).
- maximum(a, b) / minimum(a, b) follow torch.maximum / torch.minimum: a tie (a == b) gives each
  side g / 2; a NaN on either side gives both sides g, as PyTorch's rule does.
- clip(x, lo, hi) follows torch.clamp with number bounds as of PyTorch 2.14 (checked with
  torch 2.14.1, the tests' pinned version; 2.13 and earlier passed 1 at a bound): the gradient
  passes where lo < x < hi, strictly inside, and is 0 at a bound and outside; a NaN x gives 0.
  lo > hi gives hi everywhere with gradient 0, as in PyTorch. Either bound may be None
  (one-sided: clip(x, lo=0) passes where x > 0).
Shapes: max and min reduce like sum (axis None or an integer, keepdims); maximum and minimum
broadcast (numpy rules); clip keeps x's shape.
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.ops.reductions import spread
from gradwalk.engine.ops.registry import Op, register


# ---- max and min over an axis -----------------------------------------------------------------
def _share(g, out, x, axis=None, keepdims=False):
    """g / k at each of the k elements equal to the extreme `out` along the axis, 0 elsewhere;
    when the extreme is NaN, the NaN elements share it."""
    o = out if keepdims or axis is None else np.expand_dims(out, axis)
    hit = (x == o) | (np.isnan(x) & np.isnan(o))
    k = np.sum(hit, axis=axis, keepdims=True)
    g = spread(g, x, axis, keepdims)
    share = g / np.maximum(k, 1).astype(np.result_type(g, x))   # in g's dtype (float32 stays)
    return np.where(hit, share, 0.0)


def _extreme_jvp(dots, out, x, axis=None, keepdims=False):
    return np.sum(_share(np.ones_like(out), out, x, axis, keepdims) * dots[0], axis=axis,
                  keepdims=keepdims)


def _reduce_text(name):
    def text(x, axis=None, keepdims=False, **_):
        extra = "" if axis is None else f", axis={axis}"
        return f"{name}({x}{extra}{', keepdims=True' if keepdims else ''})"
    return text


for _name, _f in (("max", np.max), ("min", np.min)):
    register(Op(
        name=_name, arity=1,
        forward=lambda x, axis=None, keepdims=False, _f=_f: _f(x, axis=axis, keepdims=keepdims),
        vjp=(_share,), jvp=_extreme_jvp,
        text=_reduce_text(_name), partials=(f"[{{0}} = {{out}}] / (number of ties)",),
        vjp_text=(f"{{g}} / k at the k elements of {{0}} equal to its {_name}, 0 elsewhere",),
        elementwise=False, params=("axis", "keepdims"),
        flops=lambda out, x: int(np.size(x)),   # one comparison per element
        # backward: compare, count, divide, select (one each per element)
        saves=("in0", "out"), backward_flops=lambda out, x: 4 * int(np.size(x)),
    ))


# ---- elementwise maximum and minimum ----------------------------------------------------------
def _pick(mine, other, g, loses):
    """g where this side wins, g / 2 on a tie, 0 where it loses (PyTorch's maximum rule)."""
    return np.where(loses(mine, other), 0.0, np.where(mine == other, 0.5 * g, g))


def _pair(name, forward, loses, word):
    register(Op(
        name=name, arity=2, forward=forward,
        vjp=(lambda g, out, a, b: _pick(a, b, g, loses),
             lambda g, out, a, b: _pick(b, a, g, loses)),
        jvp=lambda dots, out, a, b: (_pick(a, b, dots[0], loses)
                                     + _pick(b, a, dots[1], loses)),
        text=f"{name}({{0}}, {{1}})",
        partials=(f"[{{0}} {word} {{1}}] (½ on a tie)", f"[{{1}} {word} {{0}}] (½ on a tie)"),
        flops=lambda out, a, b: int(np.size(out)),   # one comparison per element
        saves=("in0", "in1"),
        # backward: compare (equal, less) and select, per input
        backward_flops=lambda out, a, b: 4 * int(np.size(out)),
    ))


_pair("maximum", np.maximum, np.less, ">")
_pair("minimum", np.minimum, np.greater, "<")


# ---- clip -------------------------------------------------------------------------------------
def _clip(x, lo=None, hi=None):
    """min(max(x, lo), hi), NaN kept (torch.clamp); a None bound is no bound."""
    if lo is not None:
        x = np.maximum(x, lo)
    if hi is not None:
        x = np.minimum(x, hi)
    return x


def _inside(x, lo=None, hi=None):
    """lo < x < hi, the bounds left out (torch.clamp's gradient mask since PyTorch 2.14);
    False at NaN."""
    mask = np.ones(np.shape(x), dtype=bool) if lo is None else (x > lo)
    return mask if hi is None else mask & (x < hi)


def _clip_text(x, lo=None, hi=None, **_):
    """clip(x, -1, 1); a one-sided clip names its bound: clip(x, lo=0)."""
    if lo is None or hi is None:
        return f"clip({x}, lo={lo})" if hi is None else f"clip({x}, hi={hi})"
    return f"clip({x}, {lo}, {hi})"


def _clip_partial(x, lo=None, hi=None, **_):
    parts = ([] if lo is None else [f"{lo} < {x}"]) + ([] if hi is None else [f"{x} < {hi}"])
    return "[" + " and ".join(parts) + "]" if parts else "1"


register(Op(
    name="clip", arity=1, forward=_clip,
    vjp=(lambda g, out, x, lo=None, hi=None: np.where(_inside(x, lo, hi), g, 0.0),),
    jvp=lambda dots, out, x, lo=None, hi=None: np.where(_inside(x, lo, hi), dots[0], 0.0),
    text=_clip_text, partials=(_clip_partial,), params=("lo", "hi"),
    flops=lambda out, x: 2 * int(np.size(out)),   # two comparisons per element
    saves=("in0",), backward_flops=lambda out, x: 3 * int(np.size(out)),
))
