"""Fused losses.

cross_entropy(z, y) = logsumexp(z) - z[y] for 1-D logits z and a class index y; its gradient is
softmax(z) - onehot({target}), "p minus y" (../shared/seeds/003_70db1bc89ad395af.txt,
"softmax with cross-entropy").
"""
from __future__ import annotations

import numpy as np

from engine.ops.registry import Op, register


def _log_softmax(z):
    shifted = z - np.max(z)
    return shifted - np.log(np.sum(np.exp(shifted)))


def _p_minus_y(z, target):
    p = np.exp(_log_softmax(z))
    p[target] -= 1.0
    return p


register(Op(
    name="cross_entropy", arity=1,
    forward=lambda z, target: -_log_softmax(z)[target],
    vjp=(lambda g, out, z, target: g * _p_minus_y(z, target),),
    jvp=lambda dots, out, z, target: np.sum(_p_minus_y(z, target) * dots[0]),
    text="cross_entropy({0}, {target})", partials=("softmax({0}) - onehot({target})",),
    vjp_text=("(softmax({0}) - onehot({target})) · {g}",), elementwise=False, params=("target",),
    flops=lambda out, z: 4 * int(np.size(z)),
))
