"""Edge points of the session-6 rows (softmax, log_softmax, logsumexp, cross_entropy, mse, silu,
leaky_relu, maximum, minimum, clip, max, min, sum, mean, var, layer_norm): rows of the shared
table in tests/engine/edge_points.py (see its Edge for the fields), which imports this module.

A non-scalar output is seeded with ones, which makes a softmax's gradient 0 whatever the
input; those rows weigh the output with a constant first (`sum(y * c)`).
max and min over an axis go through a sum: their rule selects like torch.max(x) (an infinite
upstream gradient gives 0 off the maximum) where torch.amax multiplies by its mask and gives
NaN (engine/ops/minmax.py), so the single-op comparison with extreme upstream gradients in
tests/engine/test_edges.py is run on the full reductions, whose PyTorch rule selects too.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from edge_points import HUGE, INF, TINY, edge

C3 = [1.0, -2.0, 3.0]   # a weight for outputs of 3 elements


def _weighted(f, c=C3):
    return lambda x: (f(x) * torch.tensor(c, dtype=torch.float64)).sum()


# ---- softmax, log_softmax, logsumexp ------------------------------------------------------------
for name, f in (("softmax", torch.softmax), ("log_softmax", torch.log_softmax)):
    edge(name, f"y = {name}(x)", {"x": [1000.0, 0.0]}, lambda x, f=f: f(x, -1))
    edge(name, f"y = {name}(x)", {"x": [-INF, 0.0]}, lambda x, f=f: f(x, -1))
    edge(name, f"y = {name}(x)", {"x": [-INF, -INF]}, lambda x, f=f: f(x, -1))
    edge(name, f"y = {name}(x)", {"x": [INF, 0.0]}, lambda x, f=f: f(x, -1))
    edge(name, f"y = {name}(x)", {"x": [1e308, -1e308]}, lambda x, f=f: f(x, -1))
    edge(name, f"y = {name}(x)", {"x": 5.0}, lambda x, f=f: f(x, -1))
    edge(name, f"y = {name}(x)\nL = sum(y * const({C3}))", {"x": [1000.0, 0.0, -1000.0]},
         _weighted(lambda x, f=f: f(x, -1)))
    edge(name, f"y = {name}(x)\nL = sum(y * const({C3}))", {"x": [-INF, 0.0, 0.0]},
         _weighted(lambda x, f=f: f(x, -1)))
    edge(name, f"y = {name}(x)\nL = sum(y * const({C3}))", {"x": [0.0, 0.0, 0.0]},
         _weighted(lambda x, f=f: f(x, -1)), smooth=True)
    edge(name, f"y = {name}(x, axis=0)\nL = sum(y * const([[1.0, 2.0], [3.0, -4.0]]))",
         {"x": [[HUGE, -1000.0], [-HUGE, TINY]]},
         lambda x, f=f: (f(x, 0) * torch.tensor([[1.0, 2.0], [3.0, -4.0]],
                                                dtype=torch.float64)).sum())
edge("logsumexp", "y = logsumexp(x)", {"x": [1000.0, 0.0]}, lambda x: torch.logsumexp(x, -1),
     smooth=True)
edge("logsumexp", "y = logsumexp(x)", {"x": [-INF, 0.0]}, lambda x: torch.logsumexp(x, -1))
edge("logsumexp", "y = logsumexp(x)", {"x": [-INF, -INF]}, lambda x: torch.logsumexp(x, -1))
edge("logsumexp", "y = logsumexp(x)", {"x": [INF, 0.0]}, lambda x: torch.logsumexp(x, -1))
edge("logsumexp", "y = logsumexp(x)", {"x": [1e308, 1e308]}, lambda x: torch.logsumexp(x, -1))
edge("logsumexp", "y = logsumexp(x)", {"x": [0.0, 0.0, 0.0]}, lambda x: torch.logsumexp(x, -1),
     smooth=True)
edge("logsumexp", "y = logsumexp(x)", {"x": -7.0}, lambda x: torch.logsumexp(x, -1))
edge("logsumexp", "y = logsumexp(x, axis=0, keepdims=True)",
     {"x": [[-INF, 1000.0], [0.0, -1000.0]]}, lambda x: torch.logsumexp(x, 0, keepdim=True))

# ---- cross_entropy ----------------------------------------------------------------------------
def _ones_grad(f, z):
    """PyTorch's gradient of f at z for an upstream gradient of 1 (where it is right)."""
    t = torch.tensor(z, dtype=torch.float64, requires_grad=True)
    f(t).backward()
    return t.grad.tolist()


def _ce(program, z, f, **kw):
    """A cross-entropy row. PyTorch's backward is two steps, nll_loss's then log_softmax's
    g - p sum(g), which takes inf - inf at the target under an infinite upstream gradient
    (NaN); the fused rule g (p - y) gives ±inf there. Its upstream-1 gradient is right, so it
    is the row's `expect`, which leaves this leaf out of the extreme-upstream comparison."""
    edge("cross_entropy", program, {"z": z}, f, expect={"z": _ones_grad(f, z)},
         why="under an infinite upstream gradient PyTorch's two-step rule gives inf - inf = NaN "
             "at the target; g (p - y) is ±inf there", **kw)


for target in (0, 1):
    for z in ([1e300, 0.0], [INF, 0.0], [-INF, 0.0], [0.0, 0.0], [1000.0, -1000.0]):
        _ce(f"L = cross_entropy(z, {target})", z,
            lambda z, t=target: F.cross_entropy(z[None], torch.tensor([t])))
_ce("L = cross_entropy(z, [0, 2])", [[HUGE, 0.0, -HUGE], [0.0, 0.0, 0.0]],
    lambda z: F.cross_entropy(z, torch.tensor([0, 2])))
_ce("L = cross_entropy(z, [1, 1])", [[1000.0, 0.0, -1000.0], [-INF, 0.0, 0.0]],
    lambda z: F.cross_entropy(z, torch.tensor([1, 1])))
_ce("L = cross_entropy(z, [1, 0])", [[0.5, -0.5], [2.0, 1.0]],
    lambda z: F.cross_entropy(z, torch.tensor([1, 0])), smooth=True)

# ---- mse --------------------------------------------------------------------------------------
edge("mse", "L = mse(a, b)", {"a": [HUGE, 0.0, 1.0], "b": [-HUGE, 0.0, 1.0]}, F.mse_loss)
edge("mse", "L = mse(a, b)", {"a": [INF, 1.0], "b": [INF, 2.0]}, F.mse_loss)
edge("mse", "L = mse(a, b)", {"a": [TINY, 1e-200], "b": [0.0, -1e-200]}, F.mse_loss)
edge("mse", "L = mse(a, b)", {"a": [0.5, 2.0], "b": [0.5, -1.0]}, F.mse_loss, smooth=True)
edge("mse", "L = mse(a, b)", {"a": 3.0, "b": -1.0}, F.mse_loss)

# ---- silu, leaky_relu -------------------------------------------------------------------------
edge("silu", "y = silu(x)", {"x": [0.0, -0.0, INF, -INF, 1000.0, -1000.0, 1e300, -1e300, TINY,
                                   36.0, -36.0, 709.0, -709.0, -746.0]}, F.silu)
edge("silu", "y = silu(x)", {"x": [-710.0, -745.0]}, F.silu,
     expect={"x": [math.exp(-710.0) * (1.0 - 710.0), 5e-324 * (1.0 - 745.0)]},
     why="PyTorch's sigmoid 1 / (1 + exp(-x)) overflows exp below x = -709 and gives 0, so its "
         "slope is 0 (NaN under an infinite upstream gradient); from exp(-|x|) sigmoid and the "
         "slope are the subnormals they are")
edge("silu", "y = silu(x)", {"x": [HUGE, -HUGE, 2.0, -2.0, 1e-8]}, F.silu, smooth=True)
edge("silu", "y = sqrt(silu(x))", {"x": [0.0, 1.0]}, lambda x: torch.sqrt(F.silu(x)))
edge("leaky_relu", "y = leaky_relu(x)", {"x": [0.0, -0.0, -1.0, INF, -INF, TINY, -TINY]},
     F.leaky_relu)
edge("leaky_relu", "y = leaky_relu(x, 0.0)", {"x": [0.0, -1.0, -INF, 2.0]},
     lambda x: F.leaky_relu(x, 0.0))
edge("leaky_relu", "y = leaky_relu(x, slope=-0.5)", {"x": [HUGE, -HUGE, 3.0, -3.0]},
     lambda x: F.leaky_relu(x, -0.5), smooth=True)
edge("leaky_relu", "y = sqrt(leaky_relu(x, 0.0))", {"x": [0.0, -1.0, 4.0]},
     lambda x: torch.sqrt(F.leaky_relu(x, 0.0)))

# ---- maximum, minimum, clip -------------------------------------------------------------------
for name, f in (("maximum", torch.maximum), ("minimum", torch.minimum)):
    edge(name, f"y = {name}(a, b)", {"a": [1.0, 2.0, 0.0, -0.0, INF, -INF, TINY, HUGE],
                                     "b": [1.0, 1.0, -0.0, 0.0, INF, 3.0, 0.0, -HUGE]}, f)
    edge(name, f"y = {name}(a, b)", {"a": [[0.0], [1.0]], "b": [0.0, 1.0, 2.0]}, f)
    edge(name, f"y = {name}(a, b)", {"a": [HUGE, -2.0], "b": [-HUGE, 3.0]}, f, smooth=True)
    edge(name, f"y = sqrt({name}(a, b))", {"a": [0.0, 0.0, 1.0], "b": [0.0, -1.0, 1.0]},
         lambda a, b, f=f: torch.sqrt(f(a, b)))
edge("clip", "y = clip(x, -1, 1)", {"x": [-2.0, -1.0, 0.0, 1.0, 2.0, INF, -INF, -0.0]},
     lambda x: torch.clamp(x, -1, 1))
edge("clip", "y = clip(x, lo=0)", {"x": [-2.0, 0.0, -0.0, HUGE, INF, -INF]},
     lambda x: torch.clamp(x, min=0))
edge("clip", "y = clip(x, hi=0.5)", {"x": [-HUGE, 0.5, 0.75]}, lambda x: torch.clamp(x, max=0.5))
edge("clip", "y = clip(x, 1, -1)", {"x": [-2.0, 0.0, 2.0]}, lambda x: torch.clamp(x, 1, -1))
edge("clip", "y = clip(x, -1, 1)", {"x": [-0.5, 0.25, 3.0]}, lambda x: torch.clamp(x, -1, 1),
     smooth=True)
edge("clip", "y = sqrt(clip(x, 0, 1))", {"x": [0.0, -1.0, 0.25]},
     lambda x: torch.sqrt(torch.clamp(x, 0, 1)))

# ---- max, min ---------------------------------------------------------------------------------
for name, f, ft in (("max", torch.max, torch.amax), ("min", torch.min, torch.amin)):
    edge(name, f"y = {name}(x)", {"x": [1.0, 3.0, 3.0, -1.0, 3.0]}, f)
    edge(name, f"y = {name}(x)", {"x": [INF, INF, 0.0, -INF]}, f)
    edge(name, f"y = {name}(x)", {"x": [-INF, -INF]}, f)
    edge(name, f"y = {name}(x)", {"x": [0.0, -0.0]}, f)
    edge(name, f"y = {name}(x)", {"x": [HUGE, -HUGE, TINY]}, f, smooth=True)
    edge(name, f"y = {name}(x)", {"x": 2.0}, f)
    edge(name, f"y = {name}(x, axis=1)\nL = sum(y * const([1.0, -2.0]))",
         {"x": [[1.0, 1.0, 0.0], [-5.0, 2.0, -5.0]]},
         lambda x, ft=ft: (ft(x, 1) * torch.tensor([1.0, -2.0], dtype=torch.float64)).sum())
    edge(name, f"y = {name}(x, axis=0, keepdims=True)\nL = sum(y)",
         {"x": [[INF, 0.0], [INF, -INF]]}, lambda x, ft=ft: ft(x, 0, keepdim=True).sum())
    edge(name, f"y = sqrt({name}(x))", {"x": [0.0, 0.0, -1.0, 0.0]},
         lambda x, f=f: torch.sqrt(f(x)))

# ---- sum, mean, var ---------------------------------------------------------------------------
edge("sum", "y = sum(x)", {"x": [1e308, 1e308]}, torch.sum)
edge("sum", "y = sum(x)", {"x": [INF, -INF]}, torch.sum)
edge("sum", "y = sum(x, axis=0, keepdims=True)", {"x": [[TINY, -0.0], [HUGE, INF]]},
     lambda x: torch.sum(x, 0, keepdim=True))
edge("mean", "y = mean(x)", {"x": [1e308, 1e308]}, torch.mean)
edge("mean", "y = mean(x, axis=-1)", {"x": [[INF, 0.0], [TINY, -0.0]]},
     lambda x: torch.mean(x, -1))
edge("mean", "y = mean(x)", {"x": [HUGE, -HUGE, 1.0]}, torch.mean, smooth=True)
# var of one element (n - correction = 0) is refused before any value, where PyTorch gives NaN
# (tests/engine/test_shapes.py, test_var_with_no_degrees_of_freedom_is_refused)
edge("var", "y = var(x, correction=0)", {"x": [2.0]}, lambda x: torch.var(x, correction=0))
edge("var", "y = var(x)", {"x": [1e200, -1e200]}, torch.var)
edge("var", "y = var(x)", {"x": [3.0, 3.0, 3.0]}, torch.var)
edge("var", "y = var(x)", {"x": [INF, 0.0]}, torch.var)
edge("var", "y = var(x, axis=-1, correction=2)\nL = sum(y)", {"x": [[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]]},
     lambda x: torch.var(x, -1, correction=2).sum())
edge("var", "y = var(x, axis=0, keepdims=True)\nL = sum(y)", {"x": [[1e-200, 1.0], [0.0, 3.0]]},
     lambda x: torch.var(x, 0, keepdim=True).sum(), smooth=True)
edge("var", "y = sqrt(var(x))", {"x": [1.0, 1.0]}, lambda x: torch.sqrt(torch.var(x)))

# ---- layer_norm -------------------------------------------------------------------------------
_W, _B = [1.0, 2.0, 3.0], [0.5, 0.0, -0.5]


def _ln(x, w, b):
    return (F.layer_norm(x, x.shape[-1:], w, b) * torch.tensor(C3, dtype=torch.float64)).sum()


_LN = f"y = layer_norm(x, w, b)\nL = sum(y * const({C3}))"
edge("layer_norm", _LN, {"x": [2.0, 2.0, 2.0], "w": _W, "b": _B}, _ln)
edge("layer_norm", _LN, {"x": [HUGE, -HUGE, 0.0], "w": _W, "b": _B}, _ln)
edge("layer_norm", _LN, {"x": [1e150, -1e150, 0.0], "w": _W, "b": _B}, _ln)
edge("layer_norm", _LN, {"x": [TINY, 0.0, -TINY], "w": _W, "b": _B}, _ln)
edge("layer_norm", _LN, {"x": [INF, 0.0, 1.0], "w": _W, "b": _B}, _ln)
edge("layer_norm", _LN, {"x": [[1.0, -1.0, 0.5], [0.0, 0.0, 1e-3]], "w": _W, "b": _B}, _ln,
     smooth=True)
edge("layer_norm", "y = layer_norm(x, w, b)", {"x": [[0.0, 0.0], [1.0, 3.0]], "w": [INF, 0.0],
                                               "b": [0.0, HUGE]},
     lambda x, w, b: F.layer_norm(x, (2,), w, b))

# ---- detach, stop_gradient (the bug lab: engine/ops/cut.py) -----------------------------------
# Never smooth: the gradient through a cut is not the derivative central differences see; the
# programs are not the op alone (its result does not require grad in PyTorch: nothing to run).
for _cut in ("detach", "stop_gradient"):
    edge(_cut, f"y = {_cut}(x) * x", {"x": [0.0, -0.0, 2.0, -3.0]}, lambda x: x.detach() * x)
    edge(_cut, f"y = {_cut}(x) * x", {"x": [INF, HUGE, TINY, 1e-310]}, lambda x: x.detach() * x)
    edge(_cut, f"y = exp({_cut}(x)) + x", {"x": [800.0, -INF]},
         lambda x: torch.exp(x.detach()) + x)
