"""Elementwise ops: arithmetic with numpy broadcasting and the activation functions.

Local derivatives are the textbook ones; tanh, sigmoid, relu and GELU follow
../shared/seeds/003_70db1bc89ad395af.txt ("ReLU: a mask", "GELU, exact and approximate") and
Hendrycks & Gimpel, "Gaussian Error Linear Units" (2016).
"""
from __future__ import annotations

import math

import numpy as np

from engine.ops.registry import Op, register

_erf = np.vectorize(math.erf, otypes=[np.float64])
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715


def _unary(name, forward, local, partial, text=None, flops=1, symbol=None):
    """Register an elementwise unary op whose local derivative is `local(out, x)`."""
    register(Op(
        name=name, arity=1, forward=forward,
        vjp=(lambda g, out, x, **p: g * local(out, x, **p),),
        jvp=lambda dots, out, x, **p: dots[0] * local(out, x, **p),
        text=text or f"{name}({{0}})", partials=(partial,), symbol=symbol,
        params=("approximate",) if name == "gelu" else (),
        flops=lambda out, *xs: flops * int(np.size(out)),
    ))


# ---- arithmetic ------------------------------------------------------------------------------
register(Op(
    name="add", arity=2, symbol="+", forward=np.add,
    vjp=(lambda g, out, x, y: g, lambda g, out, x, y: g),
    jvp=lambda dots, out, x, y: dots[0] + dots[1],
    text="{0} + {1}", partials=("1", "1"),
))
register(Op(
    name="sub", arity=2, symbol="-", forward=np.subtract,
    vjp=(lambda g, out, x, y: g, lambda g, out, x, y: -g),
    jvp=lambda dots, out, x, y: dots[0] - dots[1],
    text="{0} - {1}", partials=("1", "-1"),
))
register(Op(
    name="mul", arity=2, symbol="*", forward=np.multiply,
    vjp=(lambda g, out, x, y: g * y, lambda g, out, x, y: g * x),
    jvp=lambda dots, out, x, y: dots[0] * y + x * dots[1],      # product rule
    text="{0} * {1}", partials=("{1}", "{0}"),
))
register(Op(
    name="div", arity=2, symbol="/", forward=np.divide,
    vjp=(lambda g, out, x, y: g / y, lambda g, out, x, y: -g * x / (y * y)),
    jvp=lambda dots, out, x, y: dots[0] / y - dots[1] * x / (y * y),
    text="{0} / {1}", partials=("1/{1}", "-{0}/{1}^2"),
))
def _pow_partial(x: str, k: str, **_) -> str:
    """k * x^(k-1), with k - 1 worked out when the exponent is a number: 2 * e, 3 * x^2."""
    try:
        k_minus_1 = float(k) - 1
    except ValueError:
        return f"{k} * {x}^({k}-1)"
    if k_minus_1 == 1:
        return f"{k} * {x}"
    return f"{k} * {x}^{k_minus_1:g}"


register(Op(
    name="pow", arity=2, symbol="**", forward=np.power,
    vjp=(lambda g, out, x, y: g * y * np.power(x, y - 1),
         lambda g, out, x, y: g * out * np.log(x)),
    jvp=lambda dots, out, x, y: dots[0] * y * np.power(x, y - 1) + dots[1] * out * np.log(x),
    text="{0} ** {1}", partials=(_pow_partial, "{out} * log({0})"),
))
register(Op(
    name="neg", arity=1, symbol="-", forward=np.negative,
    vjp=(lambda g, out, x: -g,),
    jvp=lambda dots, out, x: -dots[0],
    text="-{0}", partials=("-1",),
))

# ---- activations -----------------------------------------------------------------------------
_unary("tanh", np.tanh, lambda out, x: 1.0 - out * out, "1 - {out}²")
_unary("sigmoid", lambda x: 1.0 / (1.0 + np.exp(-x)), lambda out, x: out * (1.0 - out),
       "{out} * (1 - {out})", flops=4)
_unary("relu", lambda x: np.maximum(x, 0.0), lambda out, x: (x > 0).astype(np.float64),
       "[{0} > 0]")
_unary("exp", np.exp, lambda out, x: out, "{out}")
_unary("log", np.log, lambda out, x: 1.0 / x, "1/{0}")
_unary("sqrt", np.sqrt, lambda out, x: 0.5 / out, "1/(2 * {out})")
_unary("abs", np.abs, lambda out, x: np.sign(x), "sign({0})")


def _gelu(x, approximate="none"):
    """GELU(x) = x * Phi(x), or its tanh approximation (GPT-2's gelu_new)."""
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x ** 3)))
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _gelu_local(out, x, approximate="none"):
    """d GELU / dx: Phi(x) + x phi(x) exactly; the derivative of the tanh form otherwise."""
    if approximate == "tanh":
        th = np.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x ** 3))
        return 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * _SQRT_2_OVER_PI * (
            1.0 + 3.0 * _GELU_C * x * x)
    phi = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    return 0.5 * (1.0 + _erf(x / math.sqrt(2.0))) + x * phi


_unary("gelu", _gelu, _gelu_local, "gelu'({0})", flops=8)
