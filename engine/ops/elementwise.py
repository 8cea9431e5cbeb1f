"""Elementwise ops: arithmetic with numpy broadcasting and the activation functions.

Local derivatives are the textbook ones; tanh, sigmoid, relu and GELU follow
../shared/seeds/003_70db1bc89ad395af.txt ("ReLU: a mask", "GELU, exact and approximate") and
Hendrycks & Gimpel, "Gaussian Error Linear Units" (2016).

Edges (issue 7, section 2). Each vjp is written the way PyTorch writes it
(tools/autograd/derivatives.yaml, torch 2.x), so that the same numbers come out at the edges:
- a mask SELECTS the upstream gradient (np.where), it never multiplies it by 0: relu passes an
  infinite upstream gradient (from sqrt'(0) = inf) as 0 where x <= 0, never as 0 * inf = NaN;
- where the derivative is undefined the value is PyTorch's: relu'(0) = 0, abs'(0) = 0,
  sqrt'(0) = inf, log'(0) = inf, d(x^y)/dx = 0 where y = 0 and d(x^y)/dy = 0 where x = 0 and
  y >= 0 (so 0 ** 0 = 1 with both partials 0);
- no intermediate overflows where the derivative is finite: sigmoid from exp(-|x|), the tanh
  GELU's inner cubic on a clipped x, the divisor's partial as (x / y) / y, never x / y^2.
The runner multiplies a local derivative by the upstream gradient only where that product is
finite; elsewhere it calls the vjp with the gradient itself (engine/trace/reverse.py `vjp`), so
these selections hold through the whole engine. Checked at the edge points of
tests/engine/edge_points.py against PyTorch float64 (tests/engine/test_edges.py).
"""
from __future__ import annotations

import math

import numpy as np

from gradwalk.engine.ops.registry import Op, register

_erf64 = np.vectorize(math.erf, otypes=[np.float64])


def _erf(x):
    """erf elementwise in x's own float type (a float32 program stays float32)."""
    return _erf64(x).astype(np.result_type(x), copy=False)


_GELU_C = 0.044715


def _per_element(k):
    """FLOPs as k per output element (the ledger's count for an elementwise rule)."""
    return lambda out, *xs: k * int(np.size(out))


def _unary(name, forward, vjp, partial, saves, flops=1, backward=2, params=(), text=None):
    """Register an elementwise unary op; `vjp(g, out, x)` is g times the local derivative.

    Its Jacobian is diagonal, so the jvp is the same rule applied to the tangent.
    flops / backward: forward and backward FLOPs per element.
    """
    register(Op(
        name=name, arity=1, forward=forward, vjp=(vjp,),
        jvp=lambda dots, out, x, **p: vjp(dots[0], out, x, **p),
        text=text or f"{name}({{0}})", partials=(partial,), params=params,
        flops=_per_element(flops), saves=saves, backward_flops=_per_element(backward),
    ))


# ---- arithmetic ------------------------------------------------------------------------------
register(Op(
    name="add", arity=2, symbol="+", forward=np.add,
    vjp=(lambda g, out, x, y: g, lambda g, out, x, y: g),
    jvp=lambda dots, out, x, y: dots[0] + dots[1],
    text="{0} + {1}", partials=("1", "1"),
    saves=(), backward_flops=lambda out, x, y: 0,   # the gradient passes through
))
register(Op(
    name="sub", arity=2, symbol="-", forward=np.subtract,
    vjp=(lambda g, out, x, y: g, lambda g, out, x, y: -g),
    jvp=lambda dots, out, x, y: dots[0] - dots[1],
    text="{0} - {1}", partials=("1", "-1"),
    saves=(), backward_flops=_per_element(1),       # one negation
))
register(Op(
    name="mul", arity=2, symbol="*", forward=np.multiply,
    vjp=(lambda g, out, x, y: g * y, lambda g, out, x, y: g * x),   # 0 * inf = NaN, as PyTorch
    jvp=lambda dots, out, x, y: dots[0] * y + x * dots[1],      # product rule
    text="{0} * {1}", partials=("{1}", "{0}"),
    saves=("in0", "in1"), backward_flops=_per_element(2),
    saves_for=(("in1",), ("in0",)),   # x̄ = ȳ·y needs y; ȳ·x needs x
))
# d(x/y)/dy = -(x / y) / y = -out / y, as PyTorch (div_tensor_other_backward): x / y^2 would
# overflow for |y| > 1e154 where the derivative is finite (x = y = 1e200: -1e-200). out is
# x / y bit for bit, so the rule keeps y and the output, not x.
register(Op(
    name="div", arity=2, symbol="/", forward=np.divide,
    vjp=(lambda g, out, x, y: g / y, lambda g, out, x, y: -g * (out / y)),
    jvp=lambda dots, out, x, y: dots[0] / y - dots[1] * (out / y),
    # the same over the common 1/y: at y = 0 the numerator's sign decides, where the two terms
    # above meet as ∞ - ∞ (sqrt(x) * y at x = 0 in hvp mode: docs/trace-format.md)
    jvp_grouped=lambda dots, out, x, y: (dots[0] - dots[1] * out) / y,
    text="{0} / {1}", partials=("1/{1}", "-{0}/{1}^2"),
    saves=("in1", "out"), backward_flops=_per_element(4),
    saves_for=(("in1",), ("in1", "out")),   # ȳ/y; -ȳ·out/y
))


def _pow_partial(x: str, k: str, **_) -> str:
    """k * x^(k-1), with k - 1 worked out when the exponent is a number: 2 * e, 3 * x^2; 0 for
    the exponent 0 (the rule selects 0 there, also at x = 0)."""
    try:
        k_minus_1 = float(k) - 1
    except ValueError:
        return f"{k} * {x}^({k}-1)"
    if k_minus_1 == -1:
        return "0"
    if k_minus_1 == 1:
        return f"{k} * {x}"
    return f"{k} * {x}^{k_minus_1:g}"


def _pow_base(g, out, x, y):
    """g * y x^(y-1), and 0 where y = 0 (PyTorch's pow_backward_self: 0 ** 0 has slope 0, not
    0 * 0^-1 = NaN). For a tiny x (1e-310) x^(y-1) overflows while y x^(y-1) may be finite
    (y = 0.001: 4.9e306); there it is worked out in logs (PyTorch gives inf)."""
    zero = y == 0
    y = np.where(zero, 1.0, y)   # so that 0 ** 0 never takes 0 ** -1 = inf on the way
    local = y * np.power(x, y - 1)
    over = np.isinf(local) & (x > 0) & np.isfinite(x) & np.isfinite(y)
    if np.any(over):
        logs = np.sign(y) * np.exp(np.log(np.abs(y)) + (y - 1) * np.log(x))
        local = np.where(over, logs, local)
    return np.where(zero, 0.0, g * local)


def _pow_exponent(g, out, x, y):
    """g * x^y log x, with 0 where x = 0 and y >= 0 (PyTorch's pow_backward_exponent: the
    limit of x^y log x as x -> 0+). A negative base gives NaN (log of a negative number), as
    PyTorch does also for integer exponents."""
    limit = (x == 0) & (y >= 0)
    return g * np.where(limit, 0.0, out * np.log(np.where(limit, 1.0, x)))   # never log 0 there


register(Op(
    name="pow", arity=2, symbol="**", forward=np.power,
    vjp=(_pow_base, _pow_exponent),
    jvp=lambda dots, out, x, y: _pow_base(dots[0], out, x, y) + _pow_exponent(dots[1], out, x, y),
    text="{0} ** {1}", partials=(_pow_partial, "{out} * log({0})"),
    saves=("in0", "in1", "out"),
    backward_flops=_per_element(7),   # y * x^(y-1) * g: 4; out * log(x) * g: 3
    saves_for=(("in0", "in1"), ("in0", "out")),
))
register(Op(
    name="neg", arity=1, symbol="-", forward=np.negative,
    vjp=(lambda g, out, x: -g,),
    jvp=lambda dots, out, x: -dots[0],
    text="-{0}", partials=("-1",),
    saves=(), backward_flops=_per_element(1),
))

# ---- activations -----------------------------------------------------------------------------
_unary("tanh", np.tanh, lambda g, out, x: g * (1.0 - out * out), "1 - {out}²",
       saves=("out",), backward=3)


def _sigmoid(x):
    """1 / (1 + exp(-x)), from e = exp(-|x|) <= 1 so that no exp overflows: sigmoid(-1000) is 0
    with no overflow on the way (exp(1000) = inf), sigmoid(-745) the subnormal 5e-324."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


# sigmoid' = out (1 - out), PyTorch's sigmoid_backward: 0 at |x| > 37 where out rounds to 1 or 0
_unary("sigmoid", _sigmoid, lambda g, out, x: g * (1.0 - out) * out, "{out} * (1 - {out})",
       saves=("out",), flops=4, backward=3)
# relu' = [x > 0], and 0 at x = 0 (PyTorch's threshold_backward on the output): it selects
_unary("relu", lambda x: np.maximum(x, 0.0), lambda g, out, x: np.where(out <= 0, 0.0, g),
       "[{0} > 0]", saves=("out",), backward=1)
_unary("exp", np.exp, lambda g, out, x: g * out, "{out}", saves=("out",), backward=1)
# log' = 1/x: inf at 0, -1/|x| for x < 0 where log itself is NaN (PyTorch: grad / x)
_unary("log", np.log, lambda g, out, x: g / x, "1/{0}", saves=("in0",), backward=1)
# sqrt' = 1/(2 sqrt x): inf at 0 (PyTorch: grad / (2 * result))
_unary("sqrt", np.sqrt, lambda g, out, x: g / (2.0 * out), "1/(2 * {out})",
       saves=("out",), backward=2)
# abs' = sign(x): 0 at 0; PyTorch multiplies (grad * sgn(x)), so an infinite upstream gradient
# at x = 0 gives NaN, as there: sqrt(abs(x)) has no slope at 0
_unary("abs", np.abs, lambda g, out, x: g * np.sign(x), "sign({0})", saves=("in0",))


# GELU's tanh form saturates long before its cubic overflows (tanh rounds to ±1 for |x| > 6),
# so the cubic is taken of x clipped to ±1e3: the same numbers, and no inf * 0 in the slope at
# |x| > 1e154, where PyTorch gives NaN although the slope is 1 or 0. The operations are
# PyTorch's, in its order (aten/src/ATen/native/cpu/Activation.cpp, GeluKernelImpl and
# GeluBackwardKernelImpl): in the left tail 1 + tanh cancels, and the same order keeps the same
# rounding.
_GELU_CLIP = 1e3
_GELU_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5   # M_SQRT2 * M_2_SQRTPI * 0.5
# phi(x) = exp(-x²/2)/sqrt(2 pi) is 0 in float64 beyond |x| = 38.6; x * phi(x) is taken of x
# clipped to ±40 so that x * x never overflows and x * phi(x) is never inf * 0.
_PDF_CLIP = 40.0
_SQRT1_2 = math.sqrt(0.5)                                          # M_SQRT1_2
_GELU_ALPHA = (2.0 / math.sqrt(math.pi)) * _SQRT1_2 * 0.5         # 1/sqrt(2 pi)


def _gelu(x, approximate="none"):
    """GELU(x) = x * Phi(x), or its tanh approximation (GPT-2's gelu_new)."""
    if approximate == "tanh":
        return 0.5 * x * (1.0 + _gelu_tanh(np.clip(x, -_GELU_CLIP, _GELU_CLIP)))
    return 0.5 * x * (1.0 + _erf(x * _SQRT1_2))


def _gelu_tanh(xc):
    """tanh(sqrt(2/pi) (x + 0.044715 x³)) of a clipped x."""
    return np.tanh(_GELU_BETA * (xc + _GELU_C * (xc * xc * xc)))


def _gelu_local(x, approximate="none"):
    """d GELU / dx: Phi(x) + x phi(x) exactly (PyTorch's GeluBackward); the derivative of the
    tanh form otherwise. Finite for every finite x: 1 for large positive x, 0 for large negative
    x (PyTorch's tanh form gives NaN beyond |x| = 1e154)."""
    if approximate == "tanh":
        xc = np.clip(x, -_GELU_CLIP, _GELU_CLIP)
        th = _gelu_tanh(xc)
        inner_derivative = _GELU_BETA * (1.0 + 3.0 * _GELU_C * (xc * xc))
        # 1 - th² as (1 - th)(1 + th): exact near th = ±1, where 1 - th * th loses 9 digits
        # (PyTorch's kernel gets the same digits from a fused multiply-add)
        return 0.5 * (1.0 + th) + (0.5 * xc) * ((1.0 - th) * (1.0 + th)) * inner_derivative
    xc = np.clip(x, -_PDF_CLIP, _PDF_CLIP)
    phi = _GELU_ALPHA * np.exp((xc * xc) * -0.5)
    return 0.5 * (1.0 + _erf(x * _SQRT1_2)) + xc * phi


def _gelu_text(x: str, approximate: str = "none", **_) -> str:
    """gelu(x), or gelu(x, approximate="tanh") for the tanh form: the call as written."""
    return f"gelu({x})" if approximate == "none" else f'gelu({x}, approximate="{approximate}")'


_unary("gelu", _gelu, lambda g, out, x, approximate="none": g * _gelu_local(x, approximate),
       "gelu'({0})", saves=("in0",), flops=8, backward=10, params=("approximate",),
       text=_gelu_text)
