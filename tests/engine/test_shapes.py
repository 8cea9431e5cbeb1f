"""Structure ops, comparisons and where through the whole engine (parse, shape pass, forward,
backward, events) against PyTorch float64; shape errors found before any value is computed,
naming both shapes, the op, the line and the column (issue 7, sections 1 and 7)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse
from gradwalk.engine.tape import Tape
from gradwalk.engine.trace import tracer as tracer_module
from gradwalk.engine.trace.runner import Limits, Tracer, run_trace
from gradwalk.engine.trace.values import decode

RNG = np.random.default_rng(7)


def _lit(a: np.ndarray) -> str:
    return repr(np.asarray(a).tolist())


def _torch(a: np.ndarray) -> torch.Tensor:
    return torch.tensor(a, dtype=torch.float64, requires_grad=True)


def _check(program: str, leaves: dict[str, np.ndarray], reference, output_grad=None):
    """The engine's output and every leaf gradient equal PyTorch's (float64, 1e-12)."""
    body = run_trace(program, output_grad=output_grad)
    ts = {k: _torch(v) for k, v in leaves.items()}
    out = reference(ts)
    grad = None if output_grad is None else torch.tensor(output_grad, dtype=torch.float64)
    out.backward(torch.ones_like(out) if grad is None else grad)
    np.testing.assert_allclose(decode(body["output"]["value"]), out.detach().numpy(),
                               rtol=1e-12, atol=1e-12)
    for name, t in ts.items():
        np.testing.assert_allclose(decode(body["grads"][name]), t.grad.numpy(),
                                   rtol=1e-12, atol=1e-12, err_msg=name)
    return body


def test_reshape_and_transpose_match_pytorch():
    x = RNG.standard_normal((3, 4))
    program = (f"x = {_lit(x)}\ny = reshape(x, 2, -1)\nz = transpose(reshape(x, (2, 2, 3)), "
               "(2, 0, 1))\nw = x.T\nL = sum(y * y) + sum(z * tanh(z)) + sum(w @ x)\n")
    _check(program, {"x": x}, lambda t: (t["x"].reshape(2, -1) ** 2).sum()
           + (lambda z: (z * torch.tanh(z)).sum())(t["x"].reshape(2, 2, 3).permute(2, 0, 1))
           + (t["x"].T @ t["x"]).sum())


def test_transpose_without_axes_is_dot_t():
    x = RNG.standard_normal((2, 3, 4))
    body = run_trace(f"x = {_lit(x)}\na = transpose(x)\nb = x.T\nL = sum(a * b)\n")
    np.testing.assert_allclose(decode(body["grads"]["x"]), 2 * x)


@pytest.mark.parametrize("index,torch_index", [
    ("0", lambda t: t[0]),
    ("-1", lambda t: t[-1]),
    ("1:3", lambda t: t[1:3]),
    (":, 0", lambda t: t[:, 0]),
    ("-2:, 1:", lambda t: t[-2:, 1:]),
    ("::2, -1", lambda t: t[::2, -1]),
    ("1, 2", lambda t: t[1, 2]),
    ("::-1", lambda t: t.flip(0)),
])
def test_indexing_matches_pytorch_and_scatters_into_zeros(index, torch_index):
    x = RNG.standard_normal((4, 3))
    body = _check(f"x = {_lit(x)}\ny = x[{index}]\nL = sum(exp(y))\n", {"x": x},
                  lambda t: torch.exp(torch_index(t["x"])).sum())
    assert body["graph"]["nodes"][1]["op"] == "index"


def test_index_of_an_index_and_a_reused_slice():
    x = RNG.standard_normal((3, 4))
    _check(f"x = {_lit(x)}\nr = x[1]\nL = sum(r[1:3] * r[1:3]) + sum(x[1:, :2])\n", {"x": x},
           lambda t: (t["x"][1][1:3] ** 2).sum() + t["x"][1:, :2].sum())


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_and_stack_match_pytorch(axis):
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    c = RNG.standard_normal((2, 3))
    program = (f"a = {_lit(a)}\nb = {_lit(b)}\nc = {_lit(c)}\n"
               f"s = stack([a, b, a], axis={axis})\nk = concat([a, c * b], axis={axis})\n"
               "L = sum(s * s) + sum(tanh(k))\n")
    _check(program, {"a": a, "b": b, "c": c},
           lambda t: (torch.stack([t["a"], t["b"], t["a"]], dim=axis) ** 2).sum()
           + torch.tanh(torch.cat([t["a"], t["c"] * t["b"]], dim=axis)).sum())


def test_leaky_relu_by_where_matches_pytorch_including_ties():
    x = np.array([-2.0, -0.5, 0.0, 0.5, 3.0])
    body = _check(f"x = {_lit(x)}\ny = where(x > 0, x, 0.1 * x)\nL = sum(y * y)\n", {"x": x},
                  lambda t: (torch.where(t["x"] > 0, t["x"], 0.1 * t["x"]) ** 2).sum())
    mask = next(n for n in body["graph"]["nodes"] if n["op"] == "greater")
    assert mask["requires_grad"] is False and mask["label"] == "x > 0"
    # no gradient is ever sent into the mask
    assert not [e for e in body["events"] if e["kind"] == "accumulate"
                and e["input"] == mask["id"]]


@pytest.mark.parametrize("cmp", [">", ">=", "<", "<=", "==", "!="])
def test_where_with_each_comparison_and_broadcast_branches(cmp):
    x, w = RNG.standard_normal((3, 2)), RNG.standard_normal((2,))
    x[0, 0] = w[0]   # a tie, decided by the comparison's value as in PyTorch
    ops = {">": torch.gt, ">=": torch.ge, "<": torch.lt, "<=": torch.le, "==": torch.eq,
           "!=": torch.ne}
    _check(f"x = {_lit(x)}\nw = {_lit(w)}\ny = where(x {cmp} w, x * 2.0, w)\nL = sum(y * x)\n",
           {"x": x, "w": w},
           lambda t: (torch.where(ops[cmp](t["x"], t["w"]), t["x"] * 2.0, t["w"]) * t["x"]).sum())


def test_where_selects_instead_of_multiplying_an_infinite_gradient():
    """The branch not taken gets exactly 0, not 0 * inf = NaN."""
    body = run_trace("x = [1.0, -1.0]\ny = where(x > 0, x, 0.0)\nz = log(y - y)\nL = sum(z)\n")
    grads = decode(body["grads"]["x"])
    assert not np.isnan(grads[1])


def test_a_tensor_output_is_seeded_with_ones_and_says_so():
    x = RNG.standard_normal((2, 3))
    body = _check(f"x = {_lit(x)}\ny = x[:, 1:] * 2.0\n", {"x": x},
                  lambda t: t["x"][:, 1:] * 2.0)
    seed = next(e for e in body["events"] if e["kind"] == "seed")
    assert decode(seed["adjoint"]).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert "ones" in seed["narration"] and "sum(y)" in seed["narration"]


def test_output_grad_is_the_vjp_seed_as_pytorch_gradient():
    x = RNG.standard_normal((2, 3))
    v = [[1.0, -2.0, 0.5], [0.0, 3.0, 1.0]]
    body = _check(f"x = {_lit(x)}\ny = tanh(x)\n", {"x": x}, lambda t: torch.tanh(t["x"]),
                  output_grad=v)
    seed = next(e for e in body["events"] if e["kind"] == "seed")
    assert decode(seed["adjoint"]).tolist() == v and "output_grad" in seed["narration"]


def test_scalar_output_grad_scales_every_gradient():
    body = run_trace("a = 3.0\nL = a * a\n", output_grad=2.5)
    assert body["grads"]["a"] == 15.0
    body = run_trace("a = 3.0\nL = a * a\n")
    seed = next(e for e in body["events"] if e["kind"] == "seed")
    assert body["grads"]["a"] == 6.0 and "= 1" in seed["narration"]


@pytest.mark.parametrize("given,kind,words", [
    ([1.0, 2.0], "shape", "output_grad has shape (2,) but the output y has shape (3,)"),
    (1.0, "shape", "shape () but the output y has shape (3,)"),
    ([[1.0], [2.0, 3.0]], "bad_argument", "nested list of numbers"),
    ([1.0, "x", 2.0], "bad_argument", "no strings"),
    ([True, 1.0, 2.0], "bad_argument", "booleans"),
    ([1.0, None, 2.0], "bad_argument", "nulls"),
    ([1e400, 1.0, 1.0], "bad_argument", "finite"),
])
def test_a_bad_output_grad_is_a_clear_error(given, kind, words):
    with pytest.raises(ProgramError) as info:
        run_trace("x = [1.0, 2.0, 3.0]\ny = x * x\n", output_grad=given)
    assert info.value.kind == kind and words in info.value.message, info.value
    if kind == "shape":   # at the output's node
        assert (info.value.line, info.value.col) == (2, 4)


# ---- shape errors, before any value --------------------------------------------------------
SHAPE_ERRORS = [
    # (program, line, col, end_col, words that must be in the message)
    ("a = [[1.0, 2.0]]\nb = [[1.0, 2.0, 3.0]]\nc = a @ b\n", 3, 4, 9,
     ["(1, 2)", "(1, 3)", "@"]),
    ("a = [1.0, 2.0]\nb = [1.0, 2.0, 3.0]\nc = exp(a) * b\n", 3, 4, 14,
     ["(2,)", "(3,)", "`*`", "broadcast"]),
    ("a = [1.0, 2.0, 3.0]\nb = reshape(a, 2, 2)\n", 2, 4, 20,
     ["(3,)", "(2, 2)", "reshape"]),
    ("a = [1.0, 2.0, 3.0, 4.0]\nb = reshape(a, (3, -1))\n", 2, 4, 23,
     ["(4,)", "(3, -1)", "reshape"]),
    ("a = [[1.0, 2.0]]\nb = [[1.0, 2.0, 3.0]]\nc = concat([a, b], axis=0)\n", 3, 4, 26,
     ["(1, 2)", "(1, 3)", "concat"]),
    ("a = [1.0, 2.0]\nb = [1.0, 2.0, 3.0]\nc = stack([a, b])\n", 3, 4, 17,
     ["(2,)", "(3,)", "stack"]),
    ("a = [1.0, 2.0]\nb = a[2]\n", 2, 4, 8, ["index 2", "(2,)"]),
    ("a = [1.0, 2.0]\nb = a[0, 1]\n", 2, 4, 11, ["2 indices", "(2,)"]),
    ("a = [[1.0, 2.0]]\nb = transpose(a, (0, 1, 2))\n", 2, 4, 27, ["(0, 1, 2)", "(1, 2)"]),
    ("a = [1.0, 2.0]\nb = [1.0, 2.0, 3.0]\nc = where(a > 0, a, b)\n", 3, 4, 22,
     ["(2,)", "(3,)", "where"]),
    ("a = [1.0, 2.0]\nb = [1.0, 2.0, 3.0]\nc = where(a > b, a, a)\n", 3, 10, 15,
     ["(2,)", "(3,)", "`>`"]),
    # the mismatch is found although an earlier line would be costly to compute
    ("a = ones(300, 300)\nb = a @ a @ a\nc = b @ [1.0, 2.0]\n", 3, 4, 18,
     ["(300, 300)", "(2,)", "@"]),
]


@pytest.mark.parametrize("program,line,col,end_col,words", SHAPE_ERRORS,
                         ids=[p.splitlines()[-1] for p, *_ in SHAPE_ERRORS])
def test_shape_error_names_both_shapes_before_any_value(program, line, col, end_col, words,
                                                        monkeypatch):
    def no_forward(self, *args, **kwargs):
        raise AssertionError("a value was computed before the shape error")

    monkeypatch.setattr(Tape, "forward", no_forward)   # the Tracer's values are the tape's
    with pytest.raises(ProgramError) as info:
        Tracer(program)
    e = info.value
    assert (e.kind, e.line, e.col, e.end_col) == ("shape", line, col, end_col), e
    for w in words:
        assert w in e.message, e.message


def test_a_node_over_max_elements_is_refused_before_it_is_made(monkeypatch):
    def no_forward(self, *args, **kwargs):
        raise AssertionError("computed")

    monkeypatch.setattr(Tape, "forward", no_forward)
    with pytest.raises(ProgramError) as info:
        Tracer("a = ones(2000, 1)\nb = ones(1, 2000)\nc = a * b\n",
               limits=Limits(max_elements=1_000_000))
    e = info.value
    assert e.kind == "too_large" and e.line == 3 and "4,000,000" in e.message


def test_axis_out_of_range_for_concat_and_stack():
    with pytest.raises(ProgramError) as info:
        run_trace("a = [1.0, 2.0]\nb = concat([a, a], axis=1)\n")
    assert info.value.kind == "bad_argument" and "axis 1" in info.value.message
    body = run_trace("a = [1.0, 2.0]\nb = stack([a, a], axis=-1)\nL = sum(b)\n")
    assert body["graph"]["nodes"][-2]["shape"] == [2, 2]


@pytest.mark.parametrize("program,kind,col,words", [
    ("a = [1.0]\nb = a[0.5]\n", "bad_argument", 6, "integer"),
    ("a = [1.0]\nb = a[::0]\n", "bad_argument", 8, "zero"),
    ("a = [1.0]\nb = a[a > 0]\n", "unsupported", 6, "integer literal"),
    ("a = [1.0]\nb = reshape(a, 1.5)\n", "bad_argument", 15, "integer sizes"),
    ("a = [1.0]\nb = reshape(a, -1, -1)\n", "bad_argument", 4, "one size"),
    ("a = [[1.0]]\nb = transpose(a, (0, 0))\n", "bad_argument", 17, "0, 1, ..., n-1"),
    ("a = [1.0]\nb = concat(a, a)\n", "bad_argument", 4, "list of tensors"),
    ("a = [1.0]\nb = concat([a, a], dim=0)\n", "bad_argument", 19, "no parameter `dim`"),
    ("a = [1.0]\nb = where(a, a, a)\n", "unsupported", 10, "comparison"),
    ("a = [1.0]\nb = where(0 < a < 1, a, a)\n", "unsupported", 10, "one comparison"),
    ("a = [1.0]\nb = where(a in a, a, a)\n", "unsupported", 10, "one comparison"),
    ("a = [1.0]\nb = where(a > 0, a)\n", "bad_argument", 4, "condition, a, b"),
    ("a = [1.0]\nb = a > 0\n", "unsupported", 4, "condition of where"),
])
def test_bad_structure_syntax_is_located(program, kind, col, words):
    with pytest.raises(ProgramError) as info:
        run_trace(program)
    e = info.value
    assert (e.kind, e.line, e.col) == (kind, 2, col), e
    assert words in e.message, e.message


def test_structure_ops_cost_no_flops_and_save_nothing():
    from gradwalk.engine.ops import get_op
    for name in ("reshape", "transpose", "index", "concat", "stack"):
        op = get_op(name)
        assert op.saves == () and op.backward_flops(None) == 0
    assert get_op("where").saves == ("in0",)


def test_params_are_json_and_reach_the_graph():
    program = parse("x = [[1.0, 2.0], [3.0, 4.0]]\ny = x[:, -1]\nz = reshape(y, (1, 2))\n")
    assert program.nodes[1].params == {"index": [[None, None, None], -1]}
    assert program.nodes[2].params == {"shape": [1, 2]}
    body = run_trace("x = [[1.0, 2.0], [3.0, 4.0]]\ny = x[1:, ::-1]\nL = sum(y)\n")
    node = body["graph"]["nodes"][1]
    assert node["params"] == {"index": [[1, None, None], [None, None, -1]]}
    assert node["formula"] == "y = x[1:, ::-1]"


def test_scalars_through_stack_where_and_indexing():
    """0-d values (Python floats on the scalar path) feed structure ops and come back."""
    program = ("a = 2.0\nb = 3.0\ns = stack([a, b * a])\nx = [1.0, -2.0]\n"
               "L = sum(s * s) + x[0] * where(a > 1.0, a, b) + concat([x, s])[3]\n")
    _check(program, {"a": np.array(2.0), "b": np.array(3.0), "x": np.array([1.0, -2.0])},
           lambda t: (torch.stack([t["a"], t["b"] * t["a"]]) ** 2).sum()
           + t["x"][0] * torch.where(t["a"] > 1.0, t["a"], t["b"])
           + torch.cat([t["x"], torch.stack([t["a"], t["b"] * t["a"]])])[3])


SHAPE_PROGRAMS = [
    "x = randn(3, 4, seed=0)\na = max(x, axis=1)\nb = min(x, axis=0, keepdims=True)\n"
    "c = sum(x, axis=-1, keepdims=True)\nd = var(x, axis=0)\ne = logsumexp(x)\n"
    "f = softmax(x, axis=0)\ng = log_softmax(x)\nh = mean(x)\n"
    "L = sum(a) + sum(b) + sum(c) + sum(d) + sum(e) + sum(f) + sum(g) + h\n",
    "x = randn(2, 3, 4, seed=1)\nw = randn(4, 5, seed=2)\ny = x @ w\n"
    "z = transpose(y, (2, 0, 1))[1:, 0]\nv = w[0] @ w.T\n"
    "L = sum(concat([z, z], axis=1)) + sum(stack([z, z], axis=-1)) + sum(v)\n",
    "x = arange(6)\nm = reshape(x, 2, 3)\nk = where(m >= 2.0, m, zeros(2, 1))\n"
    "L = cross_entropy(k[0], 1) + sum(k[:, ::-1] * eye(2, 3))\n",
]


@pytest.mark.parametrize("program", SHAPE_PROGRAMS)
def test_the_shape_pass_agrees_with_every_value(program):
    tracer = Tracer(program)
    assert None not in tracer.shapes
    for node, shape, value in zip(tracer.program.nodes, tracer.shapes, tracer.values):
        assert tuple(shape) == np.shape(value), node.label


def test_the_shape_pass_agrees_on_the_seed_cases(seed_case):
    tracer = Tracer(seed_case["program"])
    for node, shape, value in zip(tracer.program.nodes, tracer.shapes, tracer.values):
        assert shape is None or tuple(shape) == np.shape(value), node.label


@pytest.mark.parametrize("program, line, col, shape", [
    ("x = randn(2, 3, seed=0)\ny = x[0:0]\nL = mse(y, y)\n", 2, 4, "(0, 3)"),
    ("x = randn(2, 3, seed=0)\nL = sum(x[0:1, 5:9])\n", 2, 8, "(1, 0)"),
    ("x = randn(2, 3, seed=0)\nL = max(x[-1:-3])\n", 2, 8, "(0, 3)"),
    ("x = randn(2, 3, seed=0)\nL = mean(x[:, 3:]) + var(x)\n", 2, 9, "(2, 0)"),
    ("x = [1.0, 2.0]\nL = logsumexp(x[2:]) * softmax(x)[0]\n", 2, 14, "(0,)"),
])
def test_an_empty_value_is_refused_before_any_value(monkeypatch, program, line, col, shape):
    # review of issue 7: an empty slice went on to a ZeroDivisionError (HTTP 500) in mse,
    # NaN means, numpy's text from max/softmax and a page that could not lay out
    monkeypatch.setattr(tracer_module, "evaluate_op", None)   # never reached: the shape pass refuses
    with pytest.raises(ProgramError) as info:
        Tracer(program)
    e = info.value
    assert (e.kind, e.line, e.col) == ("shape", line, col), e
    assert f"shape {shape}, with no elements" in e.message, e.message


@pytest.mark.parametrize("program, words", [
    ("x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]\nL = var(x, correction=6)\n",
     "var over 6 elements with correction=6 divides by n - correction = 0"),
    ("x = [[1.0, 2.0, 3.0]]\nL = sum(var(x, axis=0))\n",
     "var over 1 element with correction=1"),
    ("x = [1.0, 2.0]\nL = var(x, correction=5)\n", "n - correction = -3"),
])
def test_var_with_no_degrees_of_freedom_is_refused(program, words):
    # PyTorch gives inf or NaN here; gradwalk refuses it up front (engine/ops/reductions.py)
    with pytest.raises(ProgramError) as info:
        Tracer(program)
    e = info.value
    assert (e.kind, e.line) == ("bad_argument", 2) and e.col is not None, e
    assert words in e.message, e.message
    assert run_trace("x = [1.0, 2.0]\nL = var(x, correction=1)\n")["output"]["value"] == 0.5


def test_no_op_meets_a_zero_size_when_the_shape_pass_cannot_probe(monkeypatch):
    # an op without a shape rule over inputs too big to probe is checked when evaluated
    from gradwalk.engine.trace import shape_pass, shapes
    monkeypatch.setattr(shape_pass, "PROBE_ELEMENTS", 0)
    monkeypatch.setattr(shapes, "RULES", {k: v for k, v in shapes.RULES.items() if k != "index"})
    with pytest.raises(ProgramError) as info:
        Tracer("x = randn(2, 3, seed=0)\nL = sum(x[1:1])\n")
    assert (info.value.kind, info.value.line, info.value.col) == ("shape", 2, 8)
    assert "with no elements" in info.value.message
