"""Leaf helpers (randn, zeros, ones, eye, arange) and the program's dtype (float64 by default,
float32 per program or per request), through the whole engine, against numpy and PyTorch
(issue 7, sections 1 and 7)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse
from gradwalk.engine.trace.runner import Limits, Tracer, run_trace
from gradwalk.engine.trace.values import decode


def _grads(body):
    return {k: decode(v) for k, v in body["grads"].items()}


# ---- helpers -----------------------------------------------------------------------------
def test_randn_is_numpy_default_rng_and_reproducible():
    text = "W = randn(4, 5, seed=3)\nb = randn((5,), seed=4)\nL = sum(W @ b)\n"
    first, second = parse(text), parse(text)
    want = np.random.default_rng(3).standard_normal((4, 5))
    np.testing.assert_array_equal(first.nodes[0].literal, want)
    np.testing.assert_array_equal(second.nodes[0].literal, want)
    np.testing.assert_array_equal(first.nodes[1].literal,
                                  np.random.default_rng(4).standard_normal(5))


def test_helpers_make_leaves_constants_and_say_how():
    body = run_trace("W = randn(2, 3, seed=0)\nI = const(eye(3))\nb = zeros(3)\n"
                     "y = W @ I + b + ones(2, 3) * arange(3)\nL = sum(y * y)\n")
    nodes = {n["label"]: n for n in body["graph"]["nodes"]}
    assert nodes["W"]["role"] == "leaf" and nodes["W"]["formula"] == "W = randn(2, 3, seed=0)"
    assert nodes["W"]["params"] == {"init": "randn(2, 3, seed=0)"}
    assert nodes["I"]["role"] == "const" and nodes["I"]["formula"] == "I = const(eye(3))"
    assert nodes["b"]["formula"] == "b = zeros(3)"
    assert nodes["ones(2, 3)"]["role"] == "const"
    assert set(body["grads"]) == {"W", "b"}
    W = torch.tensor(np.random.default_rng(0).standard_normal((2, 3)), requires_grad=True)
    b = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    y = W @ torch.eye(3, dtype=torch.float64) + b + torch.ones(2, 3, dtype=torch.float64) \
        * torch.arange(3, dtype=torch.float64)
    (y * y).sum().backward()
    grads = _grads(body)
    np.testing.assert_allclose(grads["W"], W.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(grads["b"], b.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("call,want", [
    ("zeros(2, 3)", np.zeros((2, 3))),
    ("ones((4,))", np.ones(4)),
    ("eye(3)", np.eye(3)),
    ("eye(2, 3)", np.eye(2, 3)),
    ("arange(4)", np.arange(4.0)),
    ("arange(2, 5)", np.arange(2.0, 5.0)),
    ("arange(1, 0, -0.25)", np.arange(1, 0, -0.25)),
    ("arange(0.5, 2.0, 0.5)", np.arange(0.5, 2.0, 0.5)),
])
def test_helper_values(call, want):
    np.testing.assert_array_equal(parse(f"x = {call}\n").nodes[0].literal, want)


@pytest.mark.parametrize("program,kind,col,words", [
    ("W = randn(2, 3)\n", "bad_argument", 4, "needs a seed"),
    ("W = randn(2, 3, seed=-1)\n", "bad_argument", 21, "seed must be an integer"),
    ("W = randn(2, 3, seed=1.5)\n", "bad_argument", 21, "seed must be an integer"),
    ("W = randn(2, 3, seed=2**70)\n", "bad_argument", 21, "seed must be an integer"),
    ("W = randn(2, 3, seed=18446744073709551616)\n", "bad_argument", 21, "2**64 - 1"),
    ("W = randn(2, 3, seed=0, mean=1)\n", "bad_argument", 24, "no parameter `mean`"),
    ("W = zeros(2, 0)\n", "bad_argument", 13, "1 or more"),   # at the size
    ("W = zeros(2.5)\n", "bad_argument", 10, "integer sizes"),
    ("W = zeros()\n", "bad_argument", 4, "1 or more"),
    ("W = ones(2, seed=1)\n", "bad_argument", 12, "no parameter `seed`"),
    ("W = eye(2, 3, 4)\n", "bad_argument", 4, "n or (n, m)"),
    ("W = arange(3, 1)\n", "bad_argument", 4, "empty"),
    ("W = arange(0, 3, 0)\n", "bad_argument", 17, "zero"),
    ("a = 1.0\nW = arange(a)\n", "bad_argument", 11, "arange takes numbers"),
    ("W = zeros(*[2])\n", "unsupported", 4, "* and **"),
])
def test_bad_helper_calls_are_located(program, kind, col, words):
    with pytest.raises(ProgramError) as info:
        run_trace(program)
    e = info.value
    assert (e.kind, e.col) == (kind, col) and e.line == program.count("\n"), e
    assert words in e.message, e.message


def test_sizes_are_checked_before_anything_is_allocated():
    # 80 GB if it were made: refused by arithmetic on the sizes
    with pytest.raises(ProgramError) as info:
        parse("W = randn(100000, 100000, seed=0)\n")
    e = info.value
    assert e.kind == "too_large" and (e.line, e.col) == (1, 4) and "max_elements" in e.message
    # each within max_elements, together over max_total_elements
    text = "".join(f"W{i} = zeros(1000, 1000)\n" for i in range(6))
    with pytest.raises(ProgramError) as info:
        parse(text)
    assert info.value.kind == "too_large" and info.value.line == 6
    assert "max_total_elements" in info.value.message
    # the limits the tracer is given are the ones the parser applies
    with pytest.raises(ProgramError) as info:
        Tracer("W = ones(11, 10)\n", limits=Limits(max_elements=100))
    assert info.value.kind == "too_large" and "110" in info.value.message
    parse("W = randn(1000, 1000, seed=0)\n")   # exactly max_elements: fine


def test_helper_names_are_reserved():
    with pytest.raises(ProgramError) as info:
        run_trace("randn = 1.0\n")
    assert info.value.kind == "unsupported" and "built-in" in info.value.message


# ---- dtype -------------------------------------------------------------------------------
MLP = ("X = const(randn(5, 4, seed=0))\nW1 = randn(4, 6, seed=1)\nb1 = randn(6, seed=2)\n"
       "W2 = randn(6, 3, seed=3)\nh = tanh(X @ W1 + b1)\ny = where(h > 0, h, 0.1 * h) @ W2\n"
       "L = mean(y * y) + sum(exp(h[0]) / 3.0) - sum(reshape(W2, -1)[2:4])\n")


def _torch_mlp(dtype):
    def rng(seed, shape):
        return torch.tensor(np.random.default_rng(seed).standard_normal(shape)).to(dtype)

    X = rng(0, (5, 4))
    t = {k: rng(s, shape).requires_grad_() for k, s, shape in
         (("W1", 1, (4, 6)), ("b1", 2, (6,)), ("W2", 3, (6, 3)))}
    h = torch.tanh(X @ t["W1"] + t["b1"])
    y = torch.where(h > 0, h, 0.1 * h) @ t["W2"]
    L = (y * y).mean() + (torch.exp(h[0]) / 3.0).sum() - t["W2"].reshape(-1)[2:4].sum()
    L.backward()
    return L.item(), {k: v.grad.numpy() for k, v in t.items()}


@pytest.mark.parametrize("how", ["comment", "request"])
def test_float32_program_matches_pytorch_float32(how):
    text = "# dtype: float32\n" + MLP if how == "comment" else MLP
    tracer = Tracer(text, dtype=None if how == "comment" else "float32")
    records = list(tracer.records())
    # every value and every gradient is float32, computed so (not rounded from float64)
    assert all(np.result_type(v) == np.float32 for v in tracer.values)
    tensors = [v for r in records for k, v in r.items()
               if isinstance(v, dict) and "dtype" in v and k != "output"]
    assert tensors and {t["dtype"] for t in tensors} == {"float32"}
    done = records[-1]
    want_L, want = _torch_mlp(torch.float32)
    assert decode(done["output"]["value"]) == pytest.approx(want_L, rel=1e-5)
    for name, g in want.items():
        assert done["grads"][name]["dtype"] == "float32"
        np.testing.assert_allclose(decode(done["grads"][name]), g, rtol=1e-5, atol=1e-6)
    # and it is not the float64 answer
    L64, _ = _torch_mlp(torch.float64)
    assert decode(done["output"]["value"]) != L64


def test_float64_is_the_default_and_matches_pytorch_float64():
    body = run_trace(MLP)
    want_L, want = _torch_mlp(torch.float64)
    assert decode(body["output"]["value"]) == pytest.approx(want_L, rel=1e-12)
    for name, g in want.items():
        assert body["grads"][name]["dtype"] == "float64"
        np.testing.assert_allclose(decode(body["grads"][name]), g, rtol=1e-11, atol=1e-13)


def test_float32_scalars_do_not_take_the_float64_path():
    """0.1 + 0.2 in float32 is float32's sum, not float64's 0.30000000000000004."""
    body = run_trace("# dtype: float32\na = 0.1\nb = 0.2\nc = a + b\nL = c * c / 3.0\n")
    want = np.float32(0.1) + np.float32(0.2)
    c = next(e for e in body["events"] if e["kind"] == "evaluate" and e["node"] == "n2")
    assert c["value"] == float(want) != 0.1 + 0.2
    L = (want * want) / np.float32(3.0)
    assert body["output"]["value"] == float(L)
    a = torch.tensor(0.1, dtype=torch.float32, requires_grad=True)
    c = a + torch.tensor(0.2, dtype=torch.float32)
    (c * c / 3.0).backward()
    assert body["grads"]["a"] == a.grad.item()   # PyTorch float32's, to the bit


def test_float32_literal_is_rounded_to_nearest_like_pytorch():
    body = run_trace("# dtype: float32\nx = [0.1, 1e-40, 3.4e38]\nL = sum(x * 1.0)\n")
    value = decode(body["events"][0]["value"])
    np.testing.assert_array_equal(value, torch.tensor([0.1, 1e-40, 3.4e38],
                                                      dtype=torch.float32).double().numpy())


@pytest.mark.parametrize("program,dtype,line,col,end_col,words", [
    ("# dtype: float16\na = 1.0\n", None, 1, 9, 16, "unknown dtype `float16`"),
    ("#dtype:bfloat16\na = 1.0\n", None, 1, 7, 15, "unknown dtype"),
    ("a = 1.0\n# dtype: float32\n", None, 2, 9, 16, "first line"),
    ("# dtype: float32\na = 1.0\n", "float64", 1, 9, 16, "asks for float32"),
    ("# dtype: float32\na = 1e39\n", None, 2, 4, 8, "too large for float32"),
    ("# dtype: float32\na = [1.0, -1e39]\n", None, 2, 4, 16, "too large for float32"),
    ("a = 1.0\n", "float16", None, None, None, "unknown dtype 'float16'"),
])
def test_a_bad_dtype_is_a_located_error(program, dtype, line, col, end_col, words):
    with pytest.raises(ProgramError) as info:
        Tracer(program, dtype=dtype)
    e = info.value
    assert (e.kind, e.line, e.col, e.end_col) == ("bad_argument", line, col, end_col), e
    assert words in e.message, e.message


def test_agreeing_dtype_comment_and_request():
    body = run_trace("# dtype: float32\nx = [1.0, 2.0]\nL = sum(x * x)\n", dtype="float32")
    assert body["grads"]["x"]["dtype"] == "float32"
    body = run_trace("# dtype: float64\nx = [1.0, 2.0]\nL = sum(x * x)\n")
    assert body["grads"]["x"]["dtype"] == "float64"


def test_float32_big_literal_is_float32():
    """A big list literal (read by the JSON fast path) is cast too."""
    values = np.random.default_rng(0).standard_normal(100)
    body = run_trace(f"# dtype: float32\nx = {values.tolist()!r}\nL = sum(x * x)\n")
    np.testing.assert_array_equal(decode(body["grads"]["x"]),
                                  2 * values.astype(np.float32))


@pytest.mark.parametrize("program, col", [
    ("W = randn(0, 3, seed=0)\n", 10), ("W = randn(-1, 3, seed=0)\n", 10),
    ("W = ones(3, -2)\n", 12), ("W = eye(0)\n", 8),
])
def test_a_size_below_1_gets_one_message(program, col):
    # review of issue 7: randn(-1, 3) said "(0 or more)" while randn(0, 3) said "1 or more"
    with pytest.raises(ProgramError) as info:
        run_trace(program)
    e = info.value
    assert (e.kind, e.line, e.col) == ("bad_argument", 1, col)
    assert e.message.endswith("takes integer sizes of 1 or more"), e.message


def test_reshape_and_transpose_say_what_they_take():
    with pytest.raises(ProgramError, match=r"reshape takes integer sizes of 1 or more \(one "
                       r"may be -1\)"):
        run_trace("x = [[1.0, 2.0]]\nL = sum(reshape(x, (0, -1)))\n")
    with pytest.raises(ProgramError, match=r"transpose takes integer axes \(0 or more\)"):
        run_trace("x = [[1.0, 2.0]]\nL = sum(transpose(x, (1, -1)))\n")


@pytest.mark.parametrize("first", ["# DTYPE: float32", "# dtype: Float32", "#Dtype:FLOAT32"])
def test_the_dtype_comment_is_read_in_any_case(first):
    # review of issue 7: `# DTYPE: float32` was silently ignored and the program ran float64
    body = run_trace(f"{first}\na = 0.1\nL = a * 3.0\n")
    assert body["grads"]["a"] == 3.0
    assert decode(body["output"]["value"]) == float(np.float32(0.1) * np.float32(3.0))
    with pytest.raises(ProgramError, match="unknown dtype `Float16`"):
        Tracer("# DTYPE: Float16\na = 1.0\n")
