"""Every op at its edge points (issue 7, section 2), through the whole engine, against PyTorch
float64 and, where the function is smooth, central differences.

The points are the rows of tests/engine/edge_points.py. PyTorch is the oracle where a
derivative is undefined (relu'(0) = 0, 0 ** 0, log'(0) = inf); a row's `expect` overrides it
where PyTorch overflows although the slope is finite.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from edge_points import EDGES, Edge
from gradwalk.engine.numeric import forward_value
from gradwalk.engine.ops import REGISTRY, get_op
from gradwalk.engine.ops.broadcast import unbroadcast
from gradwalk.engine.parse import parse
from gradwalk.engine.trace import runner, scalar
from gradwalk.engine.trace.narrate import MACRON
from gradwalk.engine.trace.runner import Tracer, run_trace, trace_json
from gradwalk.engine.trace.values import decode

torch.set_default_dtype(torch.float64)

RTOL = 1e-10
# Below 1e-300 numbers are compared absolutely: at the bottom of float64 a relative tolerance
# means nothing (sigmoid(-745) is the subnormal 5e-324, which PyTorch's 1 / (1 + exp(745))
# rounds to 0).
ATOL = 1e-300


def _literal(v) -> str:
    """A leaf value as program text; ±inf as 1e400, which Python reads as inf."""
    if isinstance(v, list):
        return "[" + ", ".join(_literal(x) for x in v) + "]"
    if v in (np.inf, -np.inf):
        return "1e400" if v > 0 else "-1e400"
    return repr(float(v))


def program_text(e: Edge) -> str:
    lines = [f"{k} = const({_literal(v)})" if k in e.consts else f"{k} = {_literal(v)}"
             for k, v in e.leaves.items()]
    return "\n".join(lines) + "\n" + e.program + "\n"


def assert_same(got, want, what: str, scale: float = 1.0, skip=None) -> None:
    """NaN where `want` has NaN, the same inf where it has inf, else equal to RTOL (ATOL times
    `scale`, the size of the upstream gradient); positions where `skip` is true are left out."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if skip is not None:
        got, want = got[~skip], want[~skip]
    assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}"
    msg = f"{what}: got {got.tolist()}, want {want.tolist()}"
    assert np.array_equal(np.isnan(got), np.isnan(want)), msg
    assert np.array_equal(np.isinf(got), np.isinf(want)), msg
    inf = np.isinf(want)
    assert np.array_equal(got[inf], want[inf]), msg
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=RTOL, atol=ATOL * scale, err_msg=msg)


def torch_run(e: Edge):
    """(output value, leaf name -> gradient) from PyTorch, backward with ones."""
    ts = {k: torch.tensor(v, dtype=torch.float64, requires_grad=k not in e.consts)
          for k, v in e.leaves.items()}
    out = e.torch(*ts.values())
    if out.requires_grad:
        out.backward(torch.ones_like(out))
    grads = {k: (t.grad.numpy() if t.grad is not None else np.zeros(t.shape))
             for k, t in ts.items() if k not in e.consts}
    return out.detach().numpy(), grads


IDS = [e.id for e in EDGES]


# ---- the table covers the registry ----------------------------------------------------------
def test_every_registered_op_has_edge_points():
    """Every op a program can call; the engine's internal rows (engine/ops/masked.py) are
    met at these rows' edge points through the backward graph (test_second_order_edges.py)."""
    covered = {e.op for e in EDGES}
    callable_ops = {name for name, op in REGISTRY.items() if not op.internal}
    assert sorted(callable_ops - covered) == [], "ops without a row in edge_points.py"
    assert covered <= callable_ops, sorted(covered - callable_ops)


# ---- through the engine, against PyTorch ----------------------------------------------------
@pytest.mark.parametrize("e", EDGES, ids=IDS)
def test_edge_matches_pytorch_float64(e: Edge):
    body = run_trace(program_text(e))
    value, grads = torch_run(e)
    assert_same(decode(body["output"]["value"]), value, "output")
    for name, want in grads.items():
        want = e.expect.get(name, want)
        assert_same(decode(body["grads"][name]), want, f"d/d{name}")


def _step(x: float) -> float:
    """Central differences' step: 1e-6 relative, 1e-6 at (and near) 0."""
    return 1e-6 * abs(x) if abs(x) > 1e-300 else 1e-6


@pytest.mark.parametrize("e", [e for e in EDGES if e.smooth],
                         ids=[e.id for e in EDGES if e.smooth])
def test_smooth_edge_matches_central_differences(e: Edge):
    """d sum(y) / d leaf by (y(x + h) - y(x - h)) / 2h, the differences taken elementwise before
    the sum so that a huge element elsewhere does not swamp them."""
    program = parse(program_text(e))
    output = program.names[program.last]
    body = run_trace(program_text(e))
    for name, i in program.leaves.items():
        if name in e.consts:
            continue
        base = np.array(program.nodes[i].literal, dtype=np.float64)
        numeric = np.zeros_like(base)
        for k in np.ndindex(base.shape):
            h = _step(base[k])
            up, down = base.copy(), base.copy()
            up[k] += h
            down[k] -= h
            diff = forward_value(program, output, {i: up}) - \
                forward_value(program, output, {i: down})
            numeric[k] = np.sum(diff) / (2 * h)
        np.testing.assert_allclose(decode(body["grads"][name]), numeric, rtol=1e-6, atol=1e-12,
                                   err_msg=f"d/d{name}")


# ---- the rule itself with extreme upstream gradients ----------------------------------------
def _single_op(e: Edge):
    """(tracer, node) when the row's program is its op applied to its leaves in order."""
    tracer = Tracer(program_text(e))
    nodes = tracer.program.nodes
    ops = [n for n in nodes if n.role == "op"]
    if len(ops) != 1 or [nodes[k].name for k in ops[0].inputs] != list(e.leaves):
        return None
    return tracer, ops[0]


UPSTREAM = {"zero": 0.0, "inf": np.inf, "-inf": -np.inf, "nan": np.nan, "tiny": 5e-324,
            "huge": 1e300}
SINGLE = [e for e in EDGES if _single_op(e) is not None]


@pytest.mark.parametrize("upstream", UPSTREAM)
@pytest.mark.parametrize("e", SINGLE, ids=[e.id for e in SINGLE])
def test_edge_rule_with_extreme_upstream_gradients(e: Edge, upstream: str):
    """The engine's vjp step (runner._vjp, then unbroadcast) for an upstream gradient that is
    0, ±inf, NaN, tiny or huge everywhere, against torch.autograd.grad with that gradient: a
    mask selects, a product multiplies, as in PyTorch."""
    tracer, node = _single_op(e)
    op, xs = get_op(node.op), tracer._inputs(node)
    out = np.float64(tracer.values[node.index]) if np.ndim(tracer.values[node.index]) == 0 \
        else tracer.values[node.index]
    g = np.full(np.shape(out), UPSTREAM[upstream])
    ts = [torch.tensor(v, dtype=torch.float64, requires_grad=k not in e.consts)
          for k, v in e.leaves.items()]
    t_out = e.torch(*ts)
    wanted = [t for t in ts if t.requires_grad]
    t_grads = torch.autograd.grad(t_out, wanted, torch.tensor(g), allow_unused=True) \
        if t_out.requires_grad else [None] * len(wanted)
    t_grads = iter(t_grads)
    for arg, name in enumerate(e.leaves):
        if name in e.consts:
            continue
        want = next(t_grads)
        want = np.zeros(np.shape(xs[arg])) if want is None else want.numpy()
        with np.errstate(all="ignore"):
            _, raw = runner._vjp(op, arg, g if np.ndim(g) else np.float64(g), out, xs,
                                 node.params)
            got, _ = unbroadcast(raw, np.shape(xs[arg]))
        if name in e.expect:
            continue   # PyTorch overflows here (the row's `why`); `expect` is for upstream 1
        skip = np.isnan(want) if e.inf_upstream and upstream in ("inf", "-inf") else None
        assert_same(got, want, f"d/d{name} with upstream {upstream}",
                    scale=max(1.0, abs(UPSTREAM[upstream])) if np.isfinite(UPSTREAM[upstream])
                    else 1.0,
                    skip=skip)


# ---- the scalar path gives what numpy gives ---------------------------------------------------
SCALAR = [e for e in EDGES if all(np.ndim(v) == 0 for v in e.leaves.values())]


@pytest.mark.parametrize("e", SCALAR, ids=[e.id for e in SCALAR])
def test_scalar_path_agrees_at_the_edges(e: Edge, monkeypatch):
    """+ - * / and negation on 0-d values run on Python floats (engine/trace/scalar.py): at the
    edges too their trace is byte for byte the numpy path's."""
    fast = trace_json(program_text(e))
    monkeypatch.setattr(scalar, "FORWARD", {})
    assert fast == trace_json(program_text(e))


# ---- the cases, event by event ------------------------------------------------------
def _accumulates(body, into: str):
    labels = {n["id"]: n["label"] for n in body["graph"]["nodes"]}
    return [e for e in body["events"] if e["kind"] == "accumulate" and labels[e["input"]] == into]


def test_relu_mask_selects_an_infinite_upstream_gradient():
    """sqrt'(0) = inf reaches relu's mask, which passes 0 where x <= 0, not 0 * inf = NaN."""
    body = run_trace("x = [-1.0, -4.0, 4.0]\ny = sqrt(relu(x)) - relu(-x)\nL = sum(y)\n")
    assert decode(body["grads"]["x"]).tolist() == [1.0, 1.0, 0.25]
    labels = {n["id"]: n["label"] for n in body["graph"]["nodes"]}
    (first,) = [e for e in _accumulates(body, "x") if labels[e["node"]] == "relu(x)"]
    assert decode(first["upstream"]).tolist() == [np.inf, np.inf, 0.25]
    assert decode(first["local"]).tolist() == [0.0, 0.0, 1.0]
    assert decode(first["contribution"]).tolist() == [0.0, 0.0, 0.25]
    assert "NaN" not in json.dumps(body)


def test_pow_at_zero_has_no_nan_anywhere_in_the_trace():
    """a is a constant, so the base's partial (0 * 0^-1 at a = 0) is never asked for; the
    exponent's partial at 0 ** b, b >= 0, is 0 (PyTorch), not 0 * log 0."""
    body = run_trace("a = const([0.0, 2.0])\nb = [1.0, 1.0]\nc = 0.0\nd = 2.5\n"
                     "L = sum(a ** b) + c ** d\n")
    assert decode(body["grads"]["b"]).tolist() == [0.0, 2 * np.log(2.0)]
    assert decode(body["grads"]["c"]) == 0.0 and decode(body["grads"]["d"]) == 0.0
    assert "NaN" not in json.dumps(body)
    assert not [e for e in _accumulates(body, "a")]


def test_zero_to_the_zero_narrates_a_zero_slope():
    body = run_trace("x = 0.0\ny = x ** 0.0\n")
    (step,) = _accumulates(body, "x")
    assert step["local"] == 0.0 and step["contribution"] == 0.0
    assert step["partial"] == "0"
    assert step["narration"].endswith(f"x{MACRON} += 0 · y{MACRON} = 0 · 1 = 0")
    body = run_trace("a = 0.0\nb = 0.0\nL = a ** b\n")
    assert decode(body["output"]["value"]) == 1.0
    assert body["grads"] == {"a": 0.0, "b": 0.0}


def test_division_by_a_subnormal_keeps_a_finite_contribution():
    """1/y overflows for y = 1e-310, but the upstream gradient 1e-300 makes the contribution
    1e10: the rule g / y is applied to g itself, not (1/y) * g = inf."""
    body = run_trace("a = 1.0\nb = 1e-310\ny = a / b\nz = y * 1e-300\n")
    assert decode(body["grads"]["a"]) == pytest.approx(1e-300 / 1e-310, rel=1e-12)


# ---- no overflow on the way to a finite slope -----------------------------------------------
FINITE_SLOPES = [
    ("sigmoid", [np.array([1000.0, -1000.0, -745.0, 710.0])], {}),
    ("tanh", [np.array([1000.0, -1000.0])], {}),
    ("gelu", [np.array([1e200, -1e200, 1e155, -40.0])], {"approximate": "tanh"}),
    ("gelu", [np.array([1e200, -1e200, 1e155, -40.0])], {"approximate": "none"}),
    ("div", [np.array([1e200, 1e-200]), np.array([1e200, 1e200])], {}),
    # (not x = 1e-310, y = 0.001: there x^(y-1) overflows first and the rule redoes it in logs)
    ("pow", [np.array([0.0, 0.0, -0.0, 2.0]), np.array([0.0, 2.0, 0.0, -3.0])], {}),
]


@pytest.mark.parametrize("name, xs, params", FINITE_SLOPES, ids=[f[0] for f in FINITE_SLOPES])
def test_no_intermediate_overflows_where_the_slope_is_finite(name, xs, params):
    """Forward and every vjp run with numpy's overflow and invalid-operation flags raising:
    sigmoid from exp(-|x|), GELU's cubic on a clipped x, the divisor's partial as (x / y) / y,
    pow's 0 ** 0 selected."""
    op = get_op(name)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        out = op.forward(*xs, **params)
        grads = [op.vjp[i](np.ones_like(out), out, *xs, **params) for i in range(len(xs))]
    assert all(np.isfinite(g).all() for g in grads)
