"""The session-6 op rows (issue 7 §1, §3): softmax, log_softmax, logsumexp, cross_entropy (1-D
and batched), mse, silu, leaky_relu, maximum, minimum, clip, max, min, sum, mean, var (axis,
keepdims), layer_norm.

Each case is one call with its inputs (several shapes, broadcasting where the op broadcasts),
checked four ways: values and every gradient against PyTorch float64 to 1e-10, row by row and
through the whole engine (a program string traced by engine.trace.runner.Tracer); the vjps
against central differences; the jvp against the vjps by inner products. The cases and the
PyTorch calls are in tests/engine/more_cases.py (test_ops.py draws from them too).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings, strategies as st

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.numeric import central_differences
from gradwalk.engine.ops import get_op
from gradwalk.engine.ops.broadcast import unbroadcast
from gradwalk.engine.parse import parse
from gradwalk.engine.trace import narrate
from gradwalk.engine.trace.runner import Tracer
from gradwalk.engine.trace.values import decode
from more_cases import CASES, Case, inputs, torch_call

torch.set_default_dtype(torch.float64)
TOL = 1e-10


def _vjps(op, g, out, xs, params):
    return [unbroadcast(op.vjp[i](g, out, *xs, **params), np.shape(x))[0]
            for i, x in enumerate(xs)]


def _torch_grads(case: Case, xs, g):
    ts = [torch.tensor(x, requires_grad=True) for x in xs]
    out = torch_call(case.op, ts, case.params)
    (out * torch.tensor(g)).sum().backward()
    return out.detach().numpy(), [t.grad.numpy() for t in ts]


def _upstream(out, seed):
    return np.random.default_rng(seed + 1000).normal(size=np.shape(out))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
@pytest.mark.parametrize("seed", [0, 1])
def test_row_matches_pytorch_float64(case, seed):
    op, xs = get_op(case.op), inputs(case, seed)
    out = op.forward(*xs, **case.params)
    g = _upstream(out, seed)
    t_out, t_grads = _torch_grads(case, xs, g)
    assert np.shape(out) == t_out.shape
    np.testing.assert_allclose(out, t_out, rtol=TOL, atol=TOL)
    for got, want in zip(_vjps(op, g, out, xs, case.params), t_grads):
        assert np.shape(got) == want.shape
        np.testing.assert_allclose(got, want, rtol=TOL, atol=TOL)


def _numeric_vjp(op, g, xs, params, eps=1e-6):
    """d <g, f(x)> / d x_i by central differences, element by element."""
    grads = []
    for i, x in enumerate(xs):
        grad = np.zeros_like(x)
        for k in np.ndindex(np.shape(x)):
            up, down = [np.array(v) for v in xs], [np.array(v) for v in xs]
            up[i][k] += eps
            down[i][k] -= eps
            grad[k] = (np.sum(g * op.forward(*up, **params))
                       - np.sum(g * op.forward(*down, **params))) / (2 * eps)
        grads.append(grad)
    return grads


@pytest.mark.parametrize("case", [c for c in CASES if c.smooth and c.draw == "normal"],
                         ids=lambda c: c.id)
def test_vjp_matches_central_differences(case):
    op, xs = get_op(case.op), inputs(case, 2)
    out = op.forward(*xs, **case.params)
    g = _upstream(out, 2)
    for got, want in zip(_vjps(op, g, out, xs, case.params),
                         _numeric_vjp(op, g, xs, case.params)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_jvp_agrees_with_vjp_through_inner_products(case):
    """<y_bar, J x_dot> == sum_i <J_i^T y_bar, x_dot_i>, ties included (both share alike)."""
    op, xs = get_op(case.op), inputs(case, 3)
    out = op.forward(*xs, **case.params)
    g = _upstream(out, 3)
    rng = np.random.default_rng(7)
    dots = [rng.normal(size=np.shape(x)) for x in xs]
    lhs = np.sum(g * op.jvp(dots, out, *xs, **case.params))
    rhs = sum(np.sum(v * d) for v, d in zip(_vjps(op, g, out, xs, case.params), dots))
    assert lhs == pytest.approx(rhs, rel=1e-9, abs=1e-9)


# ---- through the whole engine ----------------------------------------------------------------
def _literal(x: np.ndarray) -> str:
    return repr(float(x)) if np.ndim(x) == 0 else repr(np.asarray(x).tolist())


def _call(case: Case, names: list[str]) -> str:
    """The op as the language writes it, its params as keywords."""
    def show(v):
        return repr(list(v)) if isinstance(v, tuple) else repr(v)
    params = "".join(f", {k}={show(v)}" for k, v in case.params.items())
    return f"{case.op}({', '.join(names)}{params})"


def program(case: Case, xs: list[np.ndarray], g: np.ndarray) -> str:
    """a0 = ..., a1 = ...; y = op(a0, ...); L = sum(y * G) with G a constant, so every gradient
    is that of <G, op(...)>, the same the row test feeds PyTorch."""
    names = [f"a{i}" for i in range(len(xs))]
    lines = [f"{n} = {_literal(x)}" for n, x in zip(names, xs)]
    lines.append(f"y = {_call(case, names)}")
    lines.append(f"G = const({_literal(g)})")
    lines.append("L = sum(y * G)" if np.ndim(g) else "L = y * G")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_traced_program_matches_pytorch_float64(case):
    xs = inputs(case, 4)
    g = _upstream(get_op(case.op).forward(*xs, **case.params), 4)
    t_out, t_grads = _torch_grads(case, xs, g)
    tracer = Tracer(program(case, xs, g))
    done = list(tracer.records())[-1]
    y = tracer.values[tracer.program.names["y"]]
    np.testing.assert_allclose(y, t_out, rtol=TOL, atol=TOL)
    for i, want in enumerate(t_grads):
        got = decode(done["grads"][f"a{i}"])
        np.testing.assert_allclose(np.reshape(got, want.shape), want, rtol=TOL, atol=TOL)
        assert np.shape(got) == want.shape


# ---- the rows' other fields -------------------------------------------------------------------
NEW_OPS = sorted({c.op for c in CASES})
SAVES = {"sum": (), "mean": (), "var": ("in0",), "max": ("in0", "out"), "min": ("in0", "out"),
         "softmax": ("out",), "log_softmax": ("out",), "logsumexp": ("in0", "out"),
         "cross_entropy": ("in0",), "mse": ("in0", "in1"), "silu": ("in0",),
         "leaky_relu": ("in0",), "maximum": ("in0", "in1"), "minimum": ("in0", "in1"),
         "clip": ("in0",), "layer_norm": ("in0", "in1")}


@pytest.mark.parametrize("name", NEW_OPS)
def test_rows_state_saves_flops_and_texts(name):
    cases = [c for c in CASES if c.op == name and len(c.shapes[0]) >= 1]
    case = next((c for c in cases if c.params), cases[0])   # params in the texts if any
    op, xs = get_op(name), inputs(case, 5)
    out = op.forward(*xs, **case.params)
    assert op.saves == SAVES[name]
    assert all(s == "out" or int(s[2:]) < op.arity for s in op.saves)
    forward = op.flops(out, *xs)
    backward = (op.backward_flops or (lambda *a: 2 * forward))(out, *xs)
    assert isinstance(forward, int) and forward >= np.size(out)
    assert isinstance(backward, int) and backward >= 0
    labels = [f"x{i}" for i in range(op.arity)]
    assert narrate.formula(op, "y", labels, case.params, True).startswith(f"y = {name}(")
    for arg in range(op.arity):
        assert "{" not in narrate.fill(op.partials[arg], labels, case.params, out="y")
        if op.vjp_text:
            assert "{" not in narrate.fill(op.vjp_text[arg], labels, case.params, out="y",
                                           g="ȳ")


def test_flops_are_documented_figures():
    x = np.ones((4, 5))
    assert get_op("sum").flops(np.ones(4), x) == 20 and get_op("sum").backward_flops(None, x) == 0
    assert get_op("softmax").flops(x, x) == 100 and get_op("softmax").backward_flops(x, x) == 80
    assert get_op("layer_norm").flops(x, x, x[0], x[0]) == 140
    assert get_op("layer_norm").backward_flops(x, x, x[0], x[0]) == 280


# ---- the language: parameters by position and keyword, and bad ones ---------------------------
def _value(text: str, name: str = "y"):
    tracer = Tracer(text)
    return tracer.values[tracer.program.names[name]]


@pytest.mark.parametrize("text, want", [
    ("x = [[1.0, 5.0], [3.0, 2.0]]\ny = sum(x, 0)", [4.0, 7.0]),
    ("x = [[1.0, 5.0], [3.0, 2.0]]\ny = mean(x, axis=1, keepdims=True)", [[3.0], [2.5]]),
    ("x = [[1.0, 5.0], [3.0, 2.0]]\ny = max(x, 1)", [5.0, 3.0]),
    ("x = [[1.0, 5.0], [3.0, 2.0]]\ny = min(x)", 1.0),
    ("x = [1.0, 2.0, 3.0, 4.0]\ny = var(x)", 5.0 / 3.0),
    ("x = [1.0, 2.0, 3.0, 4.0]\ny = var(x, correction=0)", 1.25),
    ("x = [[1.0, 2.0], [3.0, 4.0]]\ny = softmax(x, 0)", [[0.11920292202211755] * 2,
                                                          [0.8807970779778823] * 2]),
    ("x = [1000.0, 0.0]\ny = softmax(x)", [1.0, 0.0]),
    ("x = [1000.0, 0.0]\ny = log_softmax(x)", [0.0, -1000.0]),
    ("x = [1000.0, 0.0]\ny = logsumexp(x)", 1000.0),
    ("x = [-2.0, 3.0]\ny = leaky_relu(x, 0.5)", [-1.0, 3.0]),
    ("x = [-2.0, 3.0]\ny = leaky_relu(x)", [-0.02, 3.0]),
    ("x = [-2.0, 3.0]\ny = clip(x, -1, 1)", [-1.0, 1.0]),
    ("x = [-2.0, 3.0]\ny = clip(x, hi=0)", [-2.0, 0.0]),
    ("x = [-2.0, 3.0]\ny = maximum(x, 0.0)", [0.0, 3.0]),
    ("x = [-2.0, 3.0]\ny = minimum(x, [1.0, 1.0])", [-2.0, 1.0]),
    ("x = [-2.0, 3.0]\ny = mse(x, const([0.0, 0.0]))", 6.5),
    ("z = [[0.0, 0.0], [0.0, 0.0]]\ny = cross_entropy(z, [0, 1])", np.log(2.0)),
    ("z = [0.0, 0.0]\ny = cross_entropy(z, target=1)", np.log(2.0)),
    ("x = [[1.0, 3.0]]\nw = [1.0, 1.0]\nb = [0.0, 0.0]\ny = layer_norm(x, w, b, eps=0.0001)",
     [[-1.0 / np.sqrt(1.0001), 1.0 / np.sqrt(1.0001)]]),
])
def test_parameters_by_position_and_keyword(text, want):
    np.testing.assert_allclose(_value(text), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("text, kind, line, col, words", [
    ("x = [1.0]\ny = max(x, x)", "bad_argument", 2, 11, "maximum(a, b)"),
    ("x = [1.0]\ny = sum(x, 0, 1)", "bad_argument", 2, 4, "sum takes 1 value argument"),
    ("x = [1.0]\ny = sum(x, keepdims=1)", "bad_argument", 2, 20, "keepdims must be True or"),
    ("x = [1.0]\ny = sum(x, 0, axis=0)", "bad_argument", 2, 14, "`axis` is given twice"),
    ("x = [1.0]\ny = softmax(x, keepdims=True)", "bad_argument", 2, 15, "not a parameter"),
    ("x = [1.0]\ny = var(x, correction=-1)", "bad_argument", 2, 22, "correction"),
    ("x = [1.0]\ny = clip(x)", "bad_argument", 2, 4, "at least one bound"),
    ("x = [1.0]\ny = clip(x, None, None)", "bad_argument", 2, 4, "at least one bound"),
    ("x = [1.0]\ny = clip(x, lo=x)", "bad_argument", 2, 15, "lo of clip must be a number"),
    ("x = [1.0]\ny = leaky_relu(x, slope=x)", "bad_argument", 2, 24, "slope"),
    ("x = [1.0]\ny = layer_norm(x, x)", "bad_argument", 2, 4, "3 value arguments"),
    ("x = [1.0]\ny = layer_norm(x, x, x, eps=0)", "bad_argument", 2, 28, "eps must be"),
    ("x = [1.0, 2.0]\ny = layer_norm(x, [1.0], [1.0])", "shape", 2, 4, "(2,), (1,) and (1,)"),
    ("x = [1.0]\ny = maximum(x)", "bad_argument", 2, 4, "2 value arguments"),
    ("x = [1.0]\ny = mse(x, [1.0, 2.0])", "shape", 2, 4, "(1,) and (2,)"),
    ("x = [1.0]\ny = cross_entropy(x)", "bad_argument", 2, 4, "cross_entropy takes"),
    ("x = [1.0]\ny = cross_entropy(x, [0, -1])", "bad_argument", 2, 25, "non-negative"),
    ("x = [1.0]\ny = cross_entropy(x, [0, 1])", "shape", 2, 4, "2-D logits (N, C)"),
    ("x = [[1.0], [2.0]]\ny = cross_entropy(x, [0, 0, 0])", "shape", 2, 4, "3 class indices"),
    ("x = [[1.0], [2.0]]\ny = cross_entropy(x, 0)", "shape", 2, 4, "list of N class indices"),
    ("x = [[1.0], [2.0]]\ny = cross_entropy(x, [0, 1])", "bad_argument", 2, 4, "out of range"),
    ("x = [[1.0], [2.0]]\ny = max(x, axis=2)", "bad_argument", 2, 4, "out of range"),
])
def test_bad_parameters_are_clear_errors(text, kind, line, col, words):
    with pytest.raises(ProgramError) as e:
        Tracer(text)
    assert (e.value.kind, e.value.line, e.value.col) == (kind, line, col)
    assert words in str(e.value)


def test_long_target_list_read_as_a_literal():
    """A target list long enough to be read by the JSON path (engine/literals.py) still works."""
    n = 100
    z = np.random.default_rng(0).normal(size=(n, 3))
    targets = [k % 3 for k in range(n)]
    text = f"z = {_literal(z)}\nL = cross_entropy(z, {targets!r})\n"
    tracer = Tracer(text)
    want = F.cross_entropy(torch.tensor(z), torch.tensor(targets)).item()
    assert tracer.values[tracer.program.names["L"]] == pytest.approx(want, rel=1e-12)


# ---- no overflow or 0 * inf on the way to a finite value and slope ---------------------------
FINITE = [
    ("softmax", [np.array([1000.0, 0.0, -1000.0])], {}),
    ("softmax", [np.array([[1e300, -1e300], [0.0, 1e-300]])], {"axis": 0}),
    ("log_softmax", [np.array([1000.0, -1000.0, 1e300])], {}),
    ("logsumexp", [np.array([1000.0, 0.0, -1e300])], {}),
    ("logsumexp", [np.array([[1e308, 1e308], [-1000.0, 1000.0]])], {"axis": 1}),
    ("cross_entropy", [np.array([1e300, 0.0, -1e300])], {"target": 1}),
    ("cross_entropy", [np.array([[1000.0, -1000.0], [0.0, 1e300]])], {"target": (1, 0)}),
    ("silu", [np.array([1000.0, -1000.0, 1e300, -1e300, -745.0, 710.0])], {}),
    ("leaky_relu", [np.array([1e300, -1e300, 0.0])], {"slope": 0.5}),
    ("var", [np.array([1e150, -1e150, 3.0])], {}),
    ("mse", [np.array([1e150, -1e150]), np.array([-1e150, 0.0])], {}),
    ("layer_norm", [np.array([[1e150, -1e150, 0.0], [1e-300, 0.0, 0.0]]), np.ones(3),
                    np.zeros(3)], {}),
    ("max", [np.array([[np.inf, 1.0], [-np.inf, -np.inf]])], {"axis": 1}),
    ("clip", [np.array([np.inf, -np.inf, 0.5])], {"lo": 0, "hi": 1}),
    ("maximum", [np.array([np.inf, -np.inf, 1.0]), np.array([np.inf, 0.0, 1.0])], {}),
]


@pytest.mark.parametrize("name, xs, params", FINITE, ids=[f[0] for f in FINITE])
def test_no_intermediate_overflows_where_the_result_is_finite(name, xs, params):
    """Forward and every vjp (upstream 1) with numpy's overflow, invalid-operation and
    division-by-zero flags raising: the max is subtracted before exp, sigmoid comes from
    exp(-|x|), masks select."""
    op = get_op(name)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        out = op.forward(*xs, **params)
        grads = [op.vjp[i](np.ones_like(out), out, *xs, **params) for i in range(len(xs))]
    assert all(np.isfinite(g).all() for g in grads)


# ---- random tensor programs built of the smooth rows, against central differences ------------
def _matrix(draw, shape) -> str:
    size = int(np.prod(shape))
    values = draw(st.lists(st.floats(-1.5, 1.5, allow_nan=False), min_size=size, max_size=size))
    return repr(np.reshape(values, shape).tolist())


@st.composite
def tensor_programs(draw):
    """X (N, D) through an optional layer_norm and activation, a linear layer Z = h @ W + b,
    and one of the losses or reductions; every leaf is a tensor that gets a gradient."""
    n, d, c = draw(st.integers(1, 3)), draw(st.integers(2, 4)), draw(st.integers(2, 4))
    lines = [f"X = {_matrix(draw, (n, d))}", f"W = {_matrix(draw, (d, c))}",
             f"b = {_matrix(draw, (c,))}", f"w = {_matrix(draw, (d,))}",
             f"beta = {_matrix(draw, (d,))}"]
    h = "X"
    if draw(st.booleans()):
        lines.append(f"h = layer_norm({h}, w, beta)")
        h = "h"
    act = draw(st.sampled_from(["silu", "softmax", "log_softmax", "tanh", None]))
    if act:
        lines.append(f"a = {act}({h})")
        h = "a"
    lines.append(f"Z = {h} @ W + b")
    ax = draw(st.sampled_from([0, 1, -1]))
    targets = [draw(st.integers(0, c - 1)) for _ in range(n)]
    lines.append(draw(st.sampled_from([
        f"L = cross_entropy(Z, {targets})",
        f"L = sum(log_softmax(Z, axis={ax}) * Z)",
        f"L = mean(logsumexp(Z, axis={ax}))",
        # one row (n = 1) has no degrees of freedom down axis 0: refused, so correction=0
        f"L = sum(var(Z, axis={ax}, keepdims=True, correction={int(n > 1 or ax != 0)})) + mean(Z)",
        f"L = mse(Z, const({_matrix(draw, (n, c))}))",
        f"L = sum(softmax(Z, axis={ax}) * const({_matrix(draw, (n, c))}))",
        "L = sum(mean(Z * Z, axis=1) + var(Z, axis=1, correction=0))",
    ])))
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None)
@given(tensor_programs())
def test_random_tensor_programs_match_central_differences(text):
    tracer = Tracer(text)
    done = list(tracer.records())[-1]
    program = parse(text)
    for name, want in central_differences(program, program.names["L"]).items():
        np.testing.assert_allclose(decode(done["grads"][name]), want, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name} in\n{text}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_float32_stays_float32(case):
    """A float32 program (`# dtype: float32`) keeps float32 through every rule: no float64
    constant or integer count promotes a value, a vjp or a jvp."""
    op = get_op(case.op)
    xs = [x.astype(np.float32) for x in inputs(case, 6)]
    out = op.forward(*xs, **case.params)
    g = np.ones_like(out, dtype=np.float32)
    assert np.result_type(out) == np.float32
    for got in [op.vjp[i](g, out, *xs, **case.params) for i in range(op.arity)]:
        assert np.result_type(got) == np.float32
    assert np.result_type(op.jvp(xs, out, *xs, **case.params)) == np.float32
