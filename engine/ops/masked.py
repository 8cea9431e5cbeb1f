"""Masked rules: the vjp of an op with an edge point as ONE op, for the backward pass recorded
as a graph (engine/trace/vjp_rules.py).

pow's first-order rules select at their edge points (engine/ops/elementwise.py: 0 where the
exponent is 0, 0 where the base is 0 and the exponent >= 0, logs where y x^(y-1) overflows).
Written with registry ops, a selection takes a dozen comparison, where, abs, log and exp nodes
per argument, which a lecturer cannot step and which are the engine's, not the program's
(their constants and kinks would be reported as if the user had written them). Each rule is
instead one row here: its forward is the first-order vjp itself (the same numbers, bit for
bit), and its own vjps and jvp are what differentiating the selection gives, so forward over
reverse and reverse over reverse see the masks as PyTorch's double backward does (where's
gradient is 0 in the branch not taken; tools/autograd/derivatives.yaml, pow_backward and
pow_backward_exponent).

    pow_vjp_base(g, x, y)     = g * y x^(y-1), 0 where y = 0          (x̄ of x ** y)
    pow_vjp_exponent(g, x, y) = g * x^y log x, 0 where x = 0, y >= 0  (ȳ of x ** y)

    Their second derivatives at base 0 (x >= 0 side; issue 14 §4): ∂²/∂x² = y(y-1) x^(y-2) is
    0 for y > 2, 2 at y = 2, +∞ for 1 < y < 2, 0 at y = 1, -∞ for 0 < y < 1, 0 at y = 0; the
    mixed ∂²/∂x∂y = x^(y-1) (1 + y log x) is 0 for y > 1 (its limit) and has no value for
    0 <= y <= 1 (-∞ as x -> 0+, and y x^(y-1) at x = 0 jumps in y: ∞ below 1, 1 at 1, 0 above),
    so it is NaN there, both ways (the row's x and y partials); ∂²/∂y² = x^y log² x is 0 for
    y >= 0 (PyTorch's mask). At y = 0, x != 0 the mixed derivative is 1/x both ways (central
    differences; PyTorch's y == 0 mask kills it in one direction only). A term whose upstream
    gradient (vjp) or tangent (jvp) is exactly 0 adds exactly 0, even where its partial is NaN
    or ∞: H v is then the directional derivative of the gradient along v, the same by reverse
    over reverse and forward over reverse (engine/trace/hvp.py `zero_terms`).

    relu_vjp, leaky_relu_vjp, abs_vjp, clip_vjp (g, x) = the row's first-order vjp, g times
                                     its mask or sign of x (`ȳ * [x > 0]`)
    max_vjp, min_vjp (g, x)         = g / k at the k elements equal to the extreme (x's shape)
    maximum_vjp0/1, minimum_vjp0/1 (g, a, b), where_vjp1/2 (g, cond, a, b)
                                   = the vjp for that input (before the unbroadcast step)

Rows are marked `internal`: the program language has no name for them. Their own rules are
checked like every row's (tests/engine/test_ops.py: central differences, jvp against vjp,
PyTorch's first-order backward recorded with create_graph=True).
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.ops.elementwise import _pow_base, _pow_exponent
from gradwalk.engine.ops.registry import Op, get_op, register


def _quiet(rule):
    """`rule` with numpy's floating-point warnings off: the branch a mask does not take may
    overflow or divide by 0; np.where drops it."""
    def quiet(*args, **kwargs):
        with np.errstate(all="ignore"):
            return rule(*args, **kwargs)
    return quiet


# ---- x̄ of x ** y: g * y x^(y-1) ----------------------------------------------------------------
def _base_g(h, out, g, x, y):
    return _pow_base(h, None, x, y)


def _base_x(h, out, g, x, y):
    """h g y (y-1) x^(y-2): pow's own base rule at the exponent y - 1 (0 where y = 1), and 0
    where y = 0 (the rule is 0 there). At x = 0 this is already the limit of the table above
    (±∞ between the integers, 2 at y = 2)."""
    return np.where(y == 0, 0.0, _pow_base(h * g * y, None, x, y - 1))


def no_mixed(x, y):
    """Where x ** y has no mixed second derivative: base 0 with 0 <= y <= 1 (the module's
    docstring; engine/trace/edge_notes.py and hvp.py's warning say so at the node)."""
    return (x == 0) & (y >= 0) & (y <= 1)


def _mixed(h, out, g, x, y):
    """h g x^(y-1) (1 + y log x), the mixed ∂²(x ** y)/∂x∂y, one function for both orders (the
    row's y partial of x̄ and x partial of ȳ), so the two walks agree: 0 where x = 0 and y > 1
    (its limit; the base is 1 there on the way, so no log 0 is taken), NaN where it has no
    value (no_mixed) and where x < 0 (log x), h g / x at y = 0. One product, not the sum
    x^(y-1) + y x^(y-1) log x, so that an overflowing x^(y-1) (x = 1e-310) gives inf, not
    inf - inf."""
    limit = _limit(x, y)
    safe = np.where(limit, 1.0, x)
    both = h * g * np.power(safe, y - 1) * (1.0 + y * np.log(safe))
    return np.where(no_mixed(x, y), np.nan, np.where(limit, 0.0, both))


# ---- ȳ of x ** y: g * x^y log x -------------------------------------------------------------------
def _limit(x, y):
    return (x == 0) & (y >= 0)


def _exponent_g(h, out, g, x, y):
    return _pow_exponent(h, np.power(x, y), x, y)


def _exponent_y(h, out, g, x, y):
    """h g x^y log² x, 0 where x = 0 and y >= 0."""
    limit = _limit(x, y)
    safe = np.where(limit, 1.0, x)
    log = np.log(safe)
    return np.where(limit, 0.0, h * g * np.power(safe, y) * log * log)


def _zero_in_zero_out(rule):
    """`rule(h, ...)` with exactly 0 where h is 0: a zero upstream gradient (or tangent)
    contributes nothing, even through a NaN or ∞ partial (the module's docstring)."""
    def rule0(h, out, g, x, y):
        return np.where(np.asarray(h) == 0, 0.0, rule(h, out, g, x, y))
    return rule0


def _masked_row(name, forward, vjps, text, partials):
    vjps = tuple(_quiet(_zero_in_zero_out(v)) for v in vjps)
    register(Op(
        name=name, arity=3, forward=_quiet(forward), vjp=vjps,
        # elementwise: the jvp is the sum of the vjps applied to the tangents
        jvp=lambda dots, out, g, x, y: sum(v(d, out, g, x, y) for v, d in zip(vjps, dots)),
        text=text, partials=partials, saves=("in0", "in1", "in2"),
        flops=lambda out, *xs: 4 * int(np.size(out)),
        backward_flops=lambda out, *xs: 12 * int(np.size(out)),
        internal=True,
    ))


_masked_row("pow_vjp_base", lambda g, x, y: _pow_base(g, None, x, y),
            (_base_g, _base_x, _mixed), "{0} * {2} * {1} ** ({2} - 1)",
            ("{2} * {1} ** ({2} - 1)", "{0} * {2} * ({2} - 1) * {1} ** ({2} - 2)",
             "{0} * {1} ** ({2} - 1) * (1 + {2} * log({1}))"))
_masked_row("pow_vjp_exponent", lambda g, x, y: _pow_exponent(g, np.power(x, y), x, y),
            (_exponent_g, _mixed, _exponent_y), "{0} * {1} ** {2} * log({1})",
            ("{1} ** {2} * log({1})", "{0} * {1} ** ({2} - 1) * ({2} * log({1}) + 1)",
             "{0} * {1} ** {2} * log({1})²"))


# ---- selections: x̄ = ȳ · [mask of x] -----------------------------------------------------------
# relu, leaky_relu, abs and clip select (or scale by sign), where routes ȳ to the branch taken,
# maximum/minimum to the side that wins (half each on a tie), max/min over an axis to the
# extremes (g / k at k ties): each vjp is linear in ȳ and piecewise constant in the inputs, so
# its derivative is the same selection in ȳ and 0 in the inputs (PyTorch's double backward of
# threshold_backward, sgn, clamp_backward, where, maximum and amax: derivatives.yaml). One row
# per argument, instead of comparison, constant and where nodes.
def _selection_row(of: str, arg: int = 0, reads: str = "partial") -> None:
    """Register `<of>_vjp` (`<of>_vjp<arg>` for an op of several inputs): (g, *inputs of `of`)
    -> `of`'s first-order vjp for input `arg`, bit for bit. reads: "partial" labels it
    `ȳ * <the local derivative>`, "vjp_text" by the row's vjp_text (`ȳ where c, else 0`)."""
    first = get_op(of)
    rule = first.vjp[arg]

    def forward(g, *xs, **p):
        return rule(g, first.forward(*xs, **p), *xs, **p)

    def by_g(h, out, g, *xs, **p):
        """The transpose of the linear map g -> forward(g): itself where it is diagonal (an
        elementwise mask), the jvp in input `arg` where it spreads g over an axis (max)."""
        if first.elementwise or of == "where":
            return forward(h, *xs, **p)
        dots = [np.zeros(np.shape(x)) for x in xs]
        dots[arg] = h
        return first.jvp(dots, first.forward(*xs, **p), *xs, **p)

    def by_x(h, out, g, *xs, **p):   # piecewise constant in the inputs: no gradient
        return np.zeros(np.broadcast_shapes(np.shape(h), *(np.shape(x) for x in xs)))

    def text(ybar, *xs, **p):
        names = {"g": ybar, "out": fill(first.text, list(xs), _own(first, p))}
        if reads == "vjp_text":
            return fill(first.vjp_text[arg], list(xs), _own(first, p), **names)
        return f"{ybar} * {_partial(first, list(xs), p, arg, names['out'])}"

    register(Op(
        name=f"{of}_vjp" if first.arity == 1 else f"{of}_vjp{arg}", arity=1 + first.arity,
        forward=_quiet(forward), vjp=(_quiet(by_g),) + (by_x,) * first.arity,
        jvp=lambda dots, out, g, *xs, **p: _quiet(forward)(dots[0], *xs, **p),
        text=text, partials=(lambda ybar, *xs, **p: _partial(first, list(xs), p, arg),)
        + ("0",) * first.arity, params=first.params, elementwise=first.elementwise,
        vjp_text=() if first.elementwise else (_transposed(first, arg),)
        + ("0 (the mask is piecewise constant)",) * first.arity,
        saves=tuple(f"in{k}" for k in range(1, 1 + first.arity)),
        backward_flops=lambda out, *xs: int(np.size(out)), internal=True,
    ))


def fill(text, labels: list[str], params: dict, **names) -> str:
    """A row's text (a str.format template or a function called the same way) with the labels
    in (engine/trace/narrate.py `fill`, without its transposed labels, which no row here uses)."""
    if callable(text):
        return text(*labels, **names, **params)
    return text.format(*labels, **names, **params)


def _transposed(first: Op, arg: int):
    """The text of by_g for a row that is not elementwise: where's own selection (diagonal),
    or, for max/min, the sum back over the axis of the extremes' shares."""
    def text(ybar, *xs, g="h", **_):   # g: the row's own upstream gradient
        if first.name == "where":
            return fill(first.vjp_text[arg], list(xs), {}, g=g)
        return f"the sum of {g} / k over the k elements of {xs[arg]} equal to its {first.name}"
    return text


def _own(first: Op, params: dict) -> dict:
    return {k: v for k, v in params.items() if k in first.params}


def _partial(first: Op, xs: list[str], params: dict, arg: int = 0, out: str = "y") -> str:
    """The first-order row's local derivative of input `arg`, `[x > 0]`, `sign(x)`,
    `[a > b] (½ on a tie)` (its text, filled)."""
    local = fill(first.partials[arg], xs, _own(first, params), out=out)
    return f"({local})" if " + " in local or " - " in local else local


for _name in ("relu", "leaky_relu", "abs", "clip", "max", "min"):
    _selection_row(_name)
for _name in ("maximum", "minimum"):
    _selection_row(_name, 0)
    _selection_row(_name, 1)
_selection_row("where", 1, reads="vjp_text")
_selection_row("where", 2, reads="vjp_text")
