"""Matrix product (transpose is in engine/ops/shape.py).

For Y = X W: X-bar = Y-bar W^T and W-bar = X^T Y-bar
(../shared/seeds/003_70db1bc89ad395af.txt, "Step 3: the backward pass of a matrix multiply").
1-D operands follow numpy's matmul rules; batch axes are summed by the stepper's unbroadcast.
"""
from __future__ import annotations

import numpy as np

from gradwalk.engine.ops.registry import Op, register


def _vjp_x(g, out, x, w):
    """Gradient for the left operand, shape x.shape (or with broadcast batch axes)."""
    if np.ndim(w) == 1:
        return np.multiply.outer(g, w) if np.ndim(x) > 1 else g * w
    if np.ndim(x) == 1:
        return np.matmul(w, np.expand_dims(g, -1))[..., 0]
    return np.matmul(g, np.swapaxes(w, -1, -2))


def _vjp_w(g, out, x, w):
    """Gradient for the right operand, shape w.shape (or with broadcast batch axes)."""
    if np.ndim(x) == 1:
        return g * x if np.ndim(w) == 1 else np.expand_dims(x, -1) * np.expand_dims(g, -2)
    if np.ndim(w) == 1:
        return np.matmul(np.swapaxes(x, -1, -2), np.expand_dims(g, -1))[..., 0]
    return np.matmul(np.swapaxes(x, -1, -2), g)


def contract_zero(a, b, left: bool):
    """np.matmul(a, b) where a product whose factor in the masked operand (a when `left`,
    else b) is exactly 0 adds exactly 0, also against an infinite or NaN factor: the
    zero-direction rule of the second-order walks (engine/trace/hvp.py `zero_terms`) inside
    the contraction, as for an elementwise op's term. A contraction is a sum of elementwise
    products, and a tangent that is 0 at X_ik moves no product X_ik W_kj.

    Only the rows k of the contracted axis where the other operand is not finite are summed
    one by one (each an (m, n) product), the rest by one matmul: the common case is one."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    masked, other = (a, b) if left else (b, a)
    other_axis = -2 if left else -1   # the other operand's contracted axis
    if np.ndim(other) == 1:
        other_axis = -1
    bad = ~np.isfinite(np.moveaxis(other, other_axis, -1)).reshape(-1, other.shape[other_axis])
    bad = bad.any(axis=0)
    if not bad.any() or not (masked == 0).any():
        return np.matmul(a, b)
    a2 = a[None, :] if a.ndim == 1 else a      # (..., m, k)
    b2 = b[:, None] if b.ndim == 1 else b      # (..., k, n)
    good = ~bad
    out = np.matmul(a2[..., :, good], b2[..., good, :])
    for k in np.flatnonzero(bad):
        ak, bk = a2[..., :, k, None], b2[..., None, k, :]
        zero = (ak == 0) if left else (bk == 0)
        with np.errstate(invalid="ignore"):
            out = out + np.where(zero, 0.0, ak * bk)
    if a.ndim == 1:
        out = out[..., 0, :]
    if b.ndim == 1:
        out = out[..., 0]
    return out


def _matmul_flops(out, x, w):
    """2 * (elements of the output) * (the contracted length): one multiply and one add each;
    2mkn for (m, k) @ (k, n)."""
    return 2 * int(np.size(out)) * int(np.shape(x)[-1])


def _matmul_backward_flops(out, x, w):
    """Two matmuls of the forward's size, X-bar = Y-bar W^T and W-bar = X^T Y-bar: 4mkn for
    (m, k) @ (k, n), twice the forward (seed 003, Step 5). The sum over broadcast batch axes
    is the unbroadcast step's, not counted here."""
    return 2 * _matmul_flops(out, x, w)


# Edges: the rules are products and sums like PyTorch's (mm of the gradient with the other
# operand), so zeros meeting inf give NaN where PyTorch's do, with nothing selected or clipped
# (tests/engine/edge_points.py, "matmul").
register(Op(
    name="matmul", arity=2, symbol="@", forward=np.matmul,
    vjp=(_vjp_x, _vjp_w),
    jvp=lambda dots, out, x, w: np.matmul(dots[0], w) + np.matmul(x, dots[1]),
    jvp_zero=lambda dots, out, x, w: contract_zero(dots[0], w, True) + contract_zero(
        x, dots[1], False),
    text="{0} @ {1}", partials=("{1}ᵀ", "{0}ᵀ"),
    vjp_text=("{g} @ {1}ᵀ", "{0}ᵀ @ {g}"), elementwise=False, flops=_matmul_flops,
    saves=("in0", "in1"), backward_flops=_matmul_backward_flops,
    saves_for=(("in1",), ("in0",)),   # X̄ = Ḡ Wᵀ needs W; W̄ = Xᵀ Ḡ needs X
))
# transpose (`.T` and `transpose(x, axes)`) is a structure op: engine/ops/shape.py
