"""engine/tape.py (issue 15, section 1): a program compiled once, forward and backward many times.

References: the Tracer's own body (engine/trace/runner.run_trace, the walk the tape must agree
with) and PyTorch float64 (tests/engine/torch_program.py, written op by op with torch's calls).
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse
from gradwalk.engine.tape import compile
from gradwalk.engine.trace.runner import run_trace
from gradwalk.engine.trace.values import decode
from torch_program import torch_function

PRESETS = json.loads((Path(__file__).parents[2] / "server" / "presets.json").read_text())
# headers that change the walk, not the numbers of a plain pass (bug lab, second order)
PLAIN = [p for p in PRESETS if not p["program"].startswith(("# bugs:", "# hessian:"))]


def _with_leaves(text: str, leaves: dict):
    program = parse(text)
    nodes = list(program.nodes)
    for name, value in leaves.items():
        i = program.leaves[name]
        nodes[i] = dataclasses.replace(nodes[i], literal=np.asarray(value))
    return dataclasses.replace(program, nodes=nodes)


@pytest.mark.parametrize("preset", PLAIN, ids=[p["id"] for p in PLAIN])
def test_tape_equals_the_tracer_on_every_preset(preset):
    text = preset["program"]
    tape = compile(parse(text))
    values = tape.forward()
    grads = tape.backward(values)
    body = run_trace(text)
    assert np.allclose(values[tape.output], decode(body["output"]["value"]), rtol=1e-13,
                       atol=0)
    assert set(grads) == set(body["grads"])
    for name, g in grads.items():
        assert np.shape(g) == np.shape(decode(body["grads"][name]))
        assert np.allclose(g, decode(body["grads"][name]), rtol=1e-12, atol=1e-15), name


@pytest.mark.parametrize("preset", PLAIN, ids=[p["id"] for p in PLAIN])
def test_tape_gradients_equal_pytorch_float64(preset):
    text = preset["program"]
    f, names, primals = torch_function(text)
    primals = [p.clone().requires_grad_(True) for p in primals]
    out = f(*primals)
    out.backward(torch.ones_like(out))
    tape = compile(parse(text))
    grads = tape.backward(tape.forward())
    for name, p in zip(names, primals):
        want = np.zeros(p.shape) if p.grad is None else p.grad.numpy()
        assert np.allclose(grads[name], want, rtol=1e-10, atol=1e-12), name


def test_one_tape_many_passes_each_equals_a_fresh_trace():
    # the same compiled tape, fed new leaf values, gives what the Tracer gives for a program
    # written with those values (so nothing of an earlier pass leaks into the next)
    text = next(p["program"] for p in PRESETS if p["id"] == "mlp-classifier")
    tape = compile(parse(text))
    rng = np.random.default_rng(7)
    for _ in range(3):
        leaves = {n: rng.normal(size=tape.shapes[i]) for n, i in tape.leaves.items()}
        grads = tape.backward(tape.forward(leaves))
        body = run_trace(_with_leaves(text, leaves))
        for name, g in grads.items():
            assert np.allclose(g, decode(body["grads"][name]), rtol=1e-12, atol=1e-15)


def test_scalar_rows_run_on_python_floats_and_division_by_zero_is_numpys():
    tape = compile(parse("a = 1.0\nb = 0.0\nc = a / b\nd = tanh(a) * 2.0\nL = c * 0.0 + d\n"))
    first = tape.forward()   # the checked pass: numpy's own 0-d results, as the Tracer shows
    values = tape.forward()   # a later pass: every 0-d value a Python float
    assert all(type(v) is float for v in values)
    assert [float(v) for v in first] == pytest.approx(values, nan_ok=True, rel=0, abs=0)
    assert np.isnan(values[tape.output])   # inf * 0 = nan, as numpy (no ZeroDivisionError)
    grads = tape.backward(values)
    assert np.isnan(grads["a"]) and np.isnan(grads["b"])


def test_the_seed_and_a_broadcast_bias():
    text = "X = const([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\nb = [0.5, -0.5]\nY = X * b\n"
    tape = compile(parse(text))
    grads = tape.backward(tape.forward(), seed=np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]))
    assert grads["b"].tolist() == [1.0 + 5.0, 8.0 + 6.0]   # summed over the rows: unbroadcast


@pytest.mark.parametrize("leaves, message", [
    ({"nope": 1.0}, "has no leaf `nope`"),
    ({"b": [1.0, 2.0, 3.0]}, "leaf `b` has shape (2,); a value of shape (3,) was given"),
])
def test_a_bad_leaf_value_is_a_clear_error(leaves, message):
    tape = compile(parse("b = [0.5, -0.5]\nL = sum(b * b)\n"))
    with pytest.raises(ProgramError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tape.forward(leaves)


def test_compile_refuses_an_unknown_output_and_a_shape_error():
    with pytest.raises(ProgramError) as e:
        compile(parse("a = 1.0\n"), output="zz")
    assert e.value.kind == "unknown_output"
    with pytest.raises(ProgramError) as e:
        compile(parse("A = [[1.0, 2.0]]\nB = [[1.0, 2.0]]\nC = A @ B\n"))
    assert e.value.kind == "shape"


# ---- the generated passes (engine/tape_code.py) ------------------------------------------------
EDGE_FLOATS = [0.0, -0.0, 1.5, -1.5, float("inf"), float("-inf"), float("nan"), 5e-324, -5e-324]


@pytest.mark.parametrize("x", EDGE_FLOATS)
def test_the_float_relu_is_the_op_rows_relu_at_every_edge(x):
    from gradwalk.engine.ops import get_op
    from gradwalk.engine.tape_code import relu, relu_vjp

    op = get_op("relu")
    want = op.forward(np.float64(x))
    got = relu(x)
    assert type(got) is float and (np.isnan(want) and np.isnan(got) or
                                   (got == want and np.signbit(got) == np.signbit(want)))
    for g in (2.0, float("inf"), float("nan")):
        want = op.vjp[0](np.float64(g), np.float64(want), np.float64(x))
        got = relu_vjp(g, relu(x))
        assert np.isnan(want) and np.isnan(got) or got == want


def _loop_only(tape):
    tape._code = (None, None)   # as for a tape over tape_code.MAX_ROWS rows
    return tape


def _fast_and_slow(text: str):
    """(generated tape, loops-only tape, the values of a second forward pass of each): the
    first pass is the checked one, the next ones take the generated code (fast)."""
    program = parse(text)
    fast, slow = compile(program), _loop_only(compile(program))
    for tape in (fast, slow):
        tape.forward()
    return fast, slow, fast.forward(), slow.forward()


@pytest.mark.parametrize("preset", PLAIN, ids=[p["id"] for p in PLAIN])
def test_the_generated_passes_equal_the_loops_bit_for_bit(preset):
    fast, slow, fv, sv = _fast_and_slow(preset["program"])
    assert fast._generated()[0] is not None
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(fv, sv))
    fg, sg = fast.backward(fv), slow.backward(sv)
    assert all(np.array_equal(fg[k], sg[k], equal_nan=True) for k in fg)


def test_a_scalar_network_runs_on_floats_in_the_generated_code_and_equals_pytorch():
    # seed 003's first hidden unit and logit written with scalars: relu, exp, log on floats
    text = ("w0 = 0.3\nw1 = -0.4\nb = 0.1\nv = 0.7\nc = 0.2\n"
            "h = relu(w0 * 1.0 + w1 * 0.0 + b)\nz0 = v * h + c\nz1 = c - v * h\n"
            "L = log(exp(z0) + exp(z1)) - z1\n")
    tape = compile(parse(text))
    tape.forward()
    values = tape.forward()
    assert all(type(x) is float for x in values)
    grads = tape.backward(values)
    f, names, primals = torch_function(text)
    primals = [p.clone().requires_grad_(True) for p in primals]
    f(*primals).backward()
    for name, p in zip(names, primals):
        assert grads[name] == pytest.approx(p.grad.item(), rel=1e-14, abs=1e-16)


def test_unbroadcast_is_not_called_where_the_shapes_say_what_it_would_do(monkeypatch):
    # the spirals network's shape: every edge's rule gives its input's shape but the biases'
    # (b1: (4,) of a (5, 4) sum, b2 likewise), summed over the batch by np.add.reduce over
    # the axes worked out at compile time; cross_entropy's edge scales its saved gradient
    # without the tape's _contribution. The loops (unbroadcast) give the same bits.
    import gradwalk.engine.tape_code as tape_code

    calls = []

    def counted(g, shape):
        calls.append(tuple(shape))
        return tape_code_unbroadcast(g, shape)
    tape_code_unbroadcast = tape_code.unbroadcast
    monkeypatch.setattr(tape_code, "unbroadcast", counted)
    rng = np.random.default_rng(0)
    text = (f"X = const({rng.standard_normal((5, 2)).tolist()!r})\n"
            f"W1 = {rng.standard_normal((2, 4)).tolist()!r}\nb1 = [0.1, 0.2, 0.3, 0.4]\n"
            f"W2 = {rng.standard_normal((4, 3)).tolist()!r}\nb2 = [0.0, 0.5, -0.5]\n"
            "h = relu(X @ W1 + b1)\nz = h @ W2 + b2\nL = cross_entropy(z, [0, 1, 2, 1, 0])\n")
    fast, slow, fv, sv = _fast_and_slow(text)
    calls.clear()
    fg, sg = fast.backward(fv), slow.backward(sv)
    assert calls == []
    names = fast._generated()[1].__code__.co_names
    assert "ub" not in names and "contrib" not in names
    assert all(np.array_equal(fg[k], sg[k]) for k in sg)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("bias", ["[0.1, 0.2, 0.3, 0.4]", "[[0.1, 0.2, 0.3, 0.4]]",
                                  "[[0.5], [0.1], [-0.2], [0.3], [0.0]]", "[[[1.0]]]", "2.5"])
def test_a_broadcast_input_s_sum_in_the_generated_backward_is_unbroadcast_s(dtype, bias):
    # (4,), (1, 4), (5, 1), (1, 1, 1) and 0-d inputs of an add and a mul with a (5, 4) value:
    # the generated backward's sums over the axes worked out at compile time (a kept axis of
    # size 1 reshaped away) give the loops' (unbroadcast's) numbers, shapes and types
    rng = np.random.default_rng(2)
    text = (f"# dtype: {dtype}\nX = const({rng.standard_normal((5, 3)).tolist()!r})\n"
            f"W = {rng.standard_normal((3, 4)).tolist()!r}\nb = {bias}\nc = {bias}\n"
            "L = sum(tanh((X @ W + b) * c))\n")
    fast, slow, fv, sv = _fast_and_slow(text)
    fg, sg = fast.backward(fv), slow.backward(sv)
    for k in sg:
        assert type(fg[k]) is type(sg[k]) and np.shape(fg[k]) == np.shape(sg[k])
        assert np.asarray(fg[k]).dtype == np.asarray(sg[k]).dtype
        assert np.array_equal(fg[k], sg[k])


def test_a_product_of_two_matrices_is_written_out_in_the_generated_backward(monkeypatch):
    # X̄ = Ḡ Wᵀ and W̄ = Xᵀ Ḡ as matmuls in the generated text, without the row's rules and
    # their rank tests (a few µs of each spirals step); the numbers are the rules', bit for bit
    import gradwalk.engine.tape as tape_module
    from gradwalk.engine.ops import get_op

    matmul, calls = get_op("matmul"), []

    def counted(rule):
        def call(*args, **kwargs):
            calls.append(rule.__name__)
            return rule(*args, **kwargs)
        return call
    spied = dataclasses.replace(matmul, vjp=tuple(map(counted, matmul.vjp)))
    monkeypatch.setattr(tape_module, "get_op",
                        lambda name: spied if name == "matmul" else get_op(name))
    rng = np.random.default_rng(1)
    text = (f"X = {rng.standard_normal((5, 3)).tolist()!r}\n"
            f"W = {rng.standard_normal((3, 4)).tolist()!r}\nL = sum(tanh(X @ W))\n")
    fast, slow, fv, sv = _fast_and_slow(text)
    calls.clear()
    fg = fast.backward(fv)
    assert calls == []
    sg = slow.backward(sv)
    assert sorted(calls) == ["_vjp_w", "_vjp_x"]   # the loops call the rules
    assert all(np.array_equal(fg[k], sg[k]) for k in sg)
