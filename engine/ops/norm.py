"""Layer normalization over the last axis (Ba, Kiros & Hinton, "Layer Normalization", 2016).

Shapes: x (..., D) with at least one axis, weight (D,), bias (D,); output x's shape.
    mu = mean(x), var = mean((x - mu)^2)   (the population variance, over the last axis)
    r = 1 / sqrt(var + eps),   x_hat = (x - mu) r,   y = x_hat ⊙ weight + bias
eps = 1e-5 by default, as in torch.nn.functional.layer_norm. The vjps (e.g. the derivation in
Ioffe & Szegedy 2015 for batch norm, here along a row), with g_hat = g ⊙ weight and means over
the last axis:
    x_bar      = r (g_hat - mean(g_hat) - x_hat ⊙ mean(g_hat ⊙ x_hat))
    weight_bar = g ⊙ x_hat,   bias_bar = g   (of x's shape; the stepper sums the leading axes
                                               away, shown as an unbroadcast step)
A constant row has var = 0 and r = 1/sqrt(eps): finite, as in PyTorch. A row whose square
overflows (|x| ~ 1e154 and up) gives var = inf and x_hat = 0, where PyTorch's own arithmetic
gives the same.
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.ops.registry import Op, register

EPS = 1e-5


def _check(x, weight, bias):
    d = np.shape(x)[-1:] if np.ndim(x) else None
    if d is None or np.shape(weight) != d or np.shape(bias) != d:
        raise ValueError(f"layer_norm needs x (..., D), weight (D,) and bias (D,); got "
                         f"{np.shape(x)}, {np.shape(weight)} and {np.shape(bias)}")


def _normalized(x, eps):
    """(x_hat, r): x normalized along its last axis, and r = 1 / sqrt(var + eps), kept."""
    d = x - np.mean(x, axis=-1, keepdims=True)
    r = 1.0 / np.sqrt(np.mean(d * d, axis=-1, keepdims=True) + eps)
    return d * r, r


def _layer_norm(x, weight, bias, eps=EPS):
    _check(x, weight, bias)
    x_hat, _ = _normalized(x, eps)
    return x_hat * weight + bias


def _vjp_x(g, out, x, weight, bias, eps=EPS):
    x_hat, r = _normalized(x, eps)
    g_hat = g * weight
    return r * (g_hat - np.mean(g_hat, axis=-1, keepdims=True)
                - x_hat * np.mean(g_hat * x_hat, axis=-1, keepdims=True))


def _jvp(dots, out, x, weight, bias, eps=EPS):
    """x_hat_dot = r (d_dot - x_hat mean(x_hat d_dot)), d_dot = x_dot - mean(x_dot)."""
    x_hat, r = _normalized(x, eps)
    d_dot = dots[0] - np.mean(dots[0], axis=-1, keepdims=True)
    x_hat_dot = r * (d_dot - x_hat * np.mean(x_hat * d_dot, axis=-1, keepdims=True))
    return x_hat_dot * weight + x_hat * dots[1] + dots[2]


def _text(x, w, b, eps=EPS, **_):
    return f"layer_norm({x}, {w}, {b}{'' if eps == EPS else f', eps={eps}'})"


register(Op(
    name="layer_norm", arity=3, forward=_layer_norm,
    vjp=(_vjp_x,
         lambda g, out, x, weight, bias, eps=EPS: g * _normalized(x, eps)[0],
         lambda g, out, x, weight, bias, eps=EPS: g),
    jvp=_jvp, text=_text,
    partials=("diag({1}) r (I - (1 1ᵀ + x̂ x̂ᵀ) / D)", "x̂", "1"),
    # r and x̂ are defined in the text: the narration is read on its own
    vjp_text=("r ⊙ (ĝ - mean(ĝ) - x̂ ⊙ mean(ĝ ⊙ x̂)), where ĝ = {g} ⊙ {1}, x̂ = (x - mean(x)) · r "
              "is the normalized input x = {0} and r = 1/√(var(x) + eps) (var with "
              "correction=0), each over the last axis",
              "{g} ⊙ x̂, summed over the rows, where x̂ = (x - mean(x)) / √(var(x) + eps) is "
              "the normalized input x = {0}, over the last axis",
              "{g}, summed over the rows"),
    elementwise=False, params=("eps",),
    # forward: mean, subtract, square, mean, multiply by r, weight, add bias (7n)
    flops=lambda out, x, w, b: 7 * int(np.size(x)),
    # backward: x_hat again (5n), g ⊙ w, two means, two products, two subtractions, r (8n),
    # g ⊙ x_hat (n)
    saves=("in0", "in1"), backward_flops=lambda out, x, w, b: 14 * int(np.size(x)),
))
