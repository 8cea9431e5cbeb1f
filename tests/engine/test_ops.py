"""Every registered op: vjp against central differences, jvp against vjp, PyTorch as oracle.

Inputs are drawn by hypothesis (shapes, broadcasting pairs, values kept away from kinks and
outside each op's domain edge).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from gradwalk.engine.ops import REGISTRY, get_op
from gradwalk.engine.ops.cut import CUTS
from gradwalk.engine.ops.broadcast import unbroadcast
import more_cases
import shape_cases

torch.set_default_dtype(torch.float64)

UNARY_DOMAIN = {"log": (0.2, 3.0), "sqrt": (0.2, 3.0)}
AWAY_FROM_ZERO = {"relu", "abs"}
SELECTIONS = {"relu_vjp": lambda x, p: torch.relu(x), "abs_vjp": lambda x, p: torch.abs(x),
              "leaky_relu_vjp": lambda x, p: F.leaky_relu(x, p["slope"]),
              "clip_vjp": lambda x, p: torch.clamp(x, p["lo"], p["hi"])}

# engine/ops/masked.py's selection rows of ops that need their own drawn inputs: row ->
# (op, argument), inputs (ȳ, *the op's inputs) drawn as the op's (no ties, well inside)
SELECTED = {"max_vjp": ("max", 0), "min_vjp": ("min", 0),
            **{f"{of}_vjp{k}": (of, k) for of in ("maximum", "minimum") for k in (0, 1)},
            "where_vjp1": ("where", 1), "where_vjp2": ("where", 2)}


def _array(draw, shape, lo=-2.0, hi=2.0, away=False):
    x = draw(hnp.arrays(np.float64, shape, elements=st.floats(lo, hi, allow_nan=False)))
    if away:   # keep off the kink at 0 where the derivative jumps
        x = np.where(np.abs(x) < 0.1, 0.5, x)
    return x


@st.composite
def op_inputs(draw, name):
    """(inputs, params) for op `name`."""
    if name in shape_cases.CASES:   # structure ops, comparisons, where
        return draw(shape_cases.CASES[name]())
    if name in more_cases.STRATEGIES:   # reductions, softmax, losses, min/max, layer_norm
        return draw(more_cases.STRATEGIES[name]())
    if name in ("add", "sub", "mul", "div", "pow"):
        shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
        x, y = (_array(draw, s) for s in shapes.input_shapes)
        if name == "div":
            y = np.where(np.abs(y) < 0.3, 1.0, y)
        if name == "pow":
            x = np.abs(x) + 0.5
        return [x, y], {}
    if name in ("pow_vjp_base", "pow_vjp_exponent"):   # engine/ops/masked.py: (g, x, y)
        shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=2, max_side=3))
        g, x, y = (_array(draw, s) for s in shapes.input_shapes)
        return [g, np.abs(x) + 0.5, np.where(np.abs(y) < 0.1, 0.5, y)], {}   # y = 0: a mask
    if name in SELECTED:
        of = SELECTED[name][0]
        xs, params = draw(op_inputs(of))
        return [_array(draw, np.shape(get_op(of).forward(*xs, **params))), *xs], params
    if name in SELECTIONS:   # engine/ops/masked.py: (g, x), x away from the kinks
        shape = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
        g, x = _array(draw, shape), _array(draw, shape, away=True)
        params = {"clip_vjp": {"lo": -1.0, "hi": 1.0}, "leaky_relu_vjp": {"slope": 0.1}}
        if name == "clip_vjp":
            x = np.where(np.abs(np.abs(x) - 1.0) < 0.1, 0.5, x)
        return [g, x], params.get(name, {})
    if name == "matmul":
        m, k, n = (draw(st.integers(1, 3)) for _ in range(3))
        left = draw(st.sampled_from([(k,), (m, k), (2, m, k)]))
        right = draw(st.sampled_from([(k,), (k, n), (2, k, n)]))
        return [_array(draw, left), _array(draw, right)], {}
    if name == "cross_entropy":
        n = draw(st.integers(1, 5))
        return [_array(draw, (n,))], {"target": draw(st.integers(0, n - 1))}
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3))
    lo, hi = UNARY_DOMAIN.get(name, (-2.0, 2.0))
    x = _array(draw, shape, lo, hi, away=name in AWAY_FROM_ZERO)
    params = {}
    if name in ("sum", "mean") and np.ndim(x) and draw(st.booleans()):
        params["axis"] = draw(st.integers(-np.ndim(x), np.ndim(x) - 1))
    if name == "gelu":
        params["approximate"] = draw(st.sampled_from(["none", "tanh"]))
    if name == "softmax" and np.ndim(x) == 0:
        x = np.atleast_1d(x)
    return [x], params


def _draw_case(data, name):
    """(op, inputs, params, output, upstream gradient g of the output's shape)."""
    op = get_op(name)
    xs, params = data.draw(op_inputs(name))
    out = op.forward(*xs, **params)
    return op, xs, params, out, _array(data.draw, np.shape(out))


def _vjps(op, g, xs, params):
    out = op.forward(*xs, **params)
    return [unbroadcast(op.vjp[i](g, out, *xs, **params), np.shape(x))[0] for i, x in enumerate(xs)]


def _numeric_vjp(op, g, xs, params, eps=1e-6):
    """d <g, f(x)> / d x_i by central differences, element by element."""
    grads = []
    for i, x in enumerate(xs):
        grad = np.zeros_like(x, dtype=np.float64)
        for k in np.ndindex(np.shape(x)):
            up, down = [np.array(v, dtype=np.float64) for v in xs], [np.array(v) for v in xs]
            up[i][k] += eps
            down[i][k] -= eps
            grad[k] = (np.sum(g * op.forward(*up, **params))
                       - np.sum(g * op.forward(*down, **params))) / (2 * eps)
        grads.append(grad)
    return grads


OPS = sorted(REGISTRY)
# detach / stop_gradient send nothing back on purpose (engine/ops/cut.py): their vjp is not the
# derivative of their forward rule (the identity); test_cuts_send_nothing_back covers them.
DIFFERENTIATED = [name for name in OPS if name not in CUTS]


@pytest.mark.parametrize("name", DIFFERENTIATED)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_vjp_matches_central_differences(name, data):
    op, xs, params, _, g = _draw_case(data, name)
    for got, want in zip(_vjps(op, g, xs, params), _numeric_vjp(op, g, xs, params)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", OPS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_jvp_agrees_with_vjp_through_inner_products(name, data):
    """<y_bar, J x_dot> == sum_i <J_i^T y_bar, x_dot_i>."""
    op, xs, params, out, g = _draw_case(data, name)
    dots = [_array(data.draw, np.shape(x)) for x in xs]
    lhs = np.sum(g * op.jvp(dots, out, *xs, **params))
    rhs = sum(np.sum(v * d) for v, d in zip(_vjps(op, g, xs, params), dots))
    assert lhs == pytest.approx(rhs, rel=1e-9, abs=1e-9)


def _torch_forward(name, ts, params):
    if name in shape_cases.TORCH:
        return shape_cases.TORCH[name](ts, params)
    if name in more_cases.STRATEGIES:
        return more_cases.torch_call(name, ts, params)
    if name == "cross_entropy":
        return F.cross_entropy(ts[0][None], torch.tensor([params["target"]]))
    if name in ("sum", "mean"):
        f = torch.sum if name == "sum" else torch.mean
        return f(ts[0]) if params.get("axis") is None else f(ts[0], dim=params["axis"])
    if name == "gelu":
        return F.gelu(ts[0], approximate=params["approximate"])
    if name in ("pow_vjp_base", "pow_vjp_exponent"):   # PyTorch's pow backward, graphed
        g, x, y = ts
        _, xb, yb = torch.broadcast_tensors(g, x, y)   # elementwise: no sum over broadcasts
        power = xb ** yb
        grad = torch.autograd.grad(power, xb if name == "pow_vjp_base" else yb,
                                   torch.ones_like(power), create_graph=True)[0]
        return g * grad
    if name in SELECTIONS:   # PyTorch's first-order backward, graphed
        g, x = ts
        y = SELECTIONS[name](x, params)
        return g * torch.autograd.grad(y, x, torch.ones_like(y), create_graph=True)[0]
    if name in SELECTED:   # PyTorch's first-order backward of the op, graphed
        (of, arg), (g, *xs) = SELECTED[name], ts
        if of not in ("max", "min"):   # elementwise: no sum over broadcasts
            xs = torch.broadcast_tensors(*xs)
        y = _torch_forward(of, xs, params)
        return torch.autograd.grad(y, xs[arg], g, create_graph=True)[0]
    if name == "transpose":
        return ts[0].permute(tuple(reversed(range(ts[0].ndim))))
    table = {"add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
             "pow": torch.pow, "matmul": torch.matmul, "neg": torch.neg, "tanh": torch.tanh,
             "sigmoid": torch.sigmoid, "relu": torch.relu, "exp": torch.exp, "log": torch.log,
             "sqrt": torch.sqrt, "abs": torch.abs, "softmax": lambda t: torch.softmax(t, -1)}
    return table[name](*ts)


@pytest.mark.parametrize("name", DIFFERENTIATED)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_forward_and_vjp_match_pytorch_float64(name, data):
    op, xs, params, out, g = _draw_case(data, name)
    ts = [torch.tensor(np.asarray(x), requires_grad=True) for x in xs]
    t_out = _torch_forward(name, ts, params)
    np.testing.assert_allclose(out, t_out.detach().numpy(), rtol=1e-12, atol=1e-12)
    (t_out * torch.tensor(g)).sum().backward()
    for got, t in zip(_vjps(op, g, xs, params), ts):
        want = t.grad if t.grad is not None else torch.zeros_like(t)   # a mask: no gradient
        np.testing.assert_allclose(got, want.numpy(force=True), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CUTS))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_cuts_send_nothing_back(name, data):
    """detach(x) is x, as torch.detach is; its result does not require grad in PyTorch, and
    its vjp and jvp are zeros (JAX's stop_gradient)."""
    op, xs, params, out, g = _draw_case(data, name)
    t = torch.tensor(np.asarray(xs[0]), requires_grad=True)
    t_out = torch.detach(t)
    assert not t_out.requires_grad
    np.testing.assert_array_equal(out, t_out.numpy())
    assert np.shape(out) == np.shape(xs[0]) and out is not xs[0]
    np.testing.assert_array_equal(_vjps(op, g, xs, params)[0], np.zeros_like(xs[0]))
    np.testing.assert_array_equal(op.jvp([g], out, *xs), np.zeros_like(out))


def test_unbroadcast_reports_summed_axes():
    g = np.ones((4, 3, 2))
    out, axes = unbroadcast(g, (3, 1))
    assert out.shape == (3, 1) and axes == (0, 2)
    assert np.all(out == 8.0)
    same, none = unbroadcast(g, (4, 3, 2))
    assert same is g and none == ()
