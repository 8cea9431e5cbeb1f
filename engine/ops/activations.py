"""More activation functions: SiLU (swish) and leaky ReLU. Elementwise; output shape = x's.

silu(x) = x σ(x), silu'(x) = σ(x) (1 + x (1 - σ(x))) (Elfwing, Uchibe & Doya, "Sigmoid-weighted
linear units", 2018; Ramachandran et al., "Searching for activation functions", 2017). σ is
computed from exp(-|x|), which never overflows, so silu(-1000) = -0 and silu'(-1000) = -0 with no
warning, and silu'(1e300) = 1. At x = ±inf PyTorch's derivative is NaN (inf · 0); we give NaN
there too.

leaky_relu(x, slope) = x for x > 0, slope · x otherwise (slope 0.01 by default, as in
torch.nn.functional.leaky_relu's negative_slope); its derivative is 1 for x > 0 and slope for
x <= 0, so at 0 it is slope (PyTorch's rule). The mask selects (np.where), so an infinite x
gives a finite slope.
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.ops.registry import Op, register


def sigmoid(x):
    """σ(x) = 1 / (1 + exp(-x)), from e = exp(-|x|) so that no exp overflows."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _silu_local(out, x):
    s = sigmoid(x)
    return s * (1.0 + x * (1.0 - s))


def _unary(name, forward, local, partial, text, params=(), flops=1, backward=2):
    """An elementwise unary row whose local derivative is `local(out, x, **params)`; it saves
    its input (both rules here need x, not the output)."""
    register(Op(
        name=name, arity=1, forward=forward,
        vjp=(lambda g, out, x, **p: g * local(out, x, **p),),
        jvp=lambda dots, out, x, **p: dots[0] * local(out, x, **p),
        text=text, partials=(partial,), params=params,
        flops=lambda out, *xs: flops * int(np.size(out)),
        saves=("in0",), backward_flops=lambda out, *xs: backward * int(np.size(out)),
    ))


# silu: forward exp, add, divide, select, multiply (5); backward the local derivative (6) and g ·
_unary("silu", lambda x: x * sigmoid(x), _silu_local, "σ({0}) (1 + {0} (1 - σ({0})))",
       "silu({0})", flops=5, backward=7)


def _leaky_text(x, slope=0.01, **_):
    return f"leaky_relu({x})" if slope == 0.01 else f"leaky_relu({x}, {slope})"


def _leaky_partial(x, slope=0.01, **_):
    return f"[{x} > 0] + {slope} [{x} ≤ 0]"


register(Op(
    name="leaky_relu", arity=1,
    forward=lambda x, slope=0.01: np.where(x > 0, x, x * slope),
    vjp=(lambda g, out, x, slope=0.01: np.where(x > 0, g, g * slope),),
    jvp=lambda dots, out, x, slope=0.01: np.where(x > 0, dots[0], dots[0] * slope),
    text=_leaky_text, partials=(_leaky_partial,), params=("slope",),
    flops=lambda out, x: 2 * int(np.size(out)),   # compare and multiply
    saves=("in0",), backward_flops=lambda out, x: 2 * int(np.size(out)),
))
