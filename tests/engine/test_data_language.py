"""The language of training (issue 15, section 2, first bullet): data helpers (`X, y = xor()`)
that make constants and fill Program.data, and cross_entropy with class indices held by a name,
against PyTorch (float64) and the numbers seed 003 prints."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import run_trace
from gradwalk.engine.trace.values import decode
from helpers import assert_located

XOR_X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]


def _t(value) -> torch.Tensor:
    return torch.tensor(np.asarray(value, dtype=np.float64), requires_grad=True)


def _grads(body: dict) -> dict:
    return {k: decode(v) for k, v in body["grads"].items()}


# ---- xor() and Program.data -----------------------------------------------------------------
def test_xor_makes_two_constants_and_names_their_parts():
    program = parse("X, y = xor()\nW = [[1.0], [2.0]]\nL = sum(X @ W)\n")
    X, y = program.nodes[program.names["X"]], program.nodes[program.names["y"]]
    np.testing.assert_array_equal(X.literal, XOR_X)
    np.testing.assert_array_equal(y.literal, [0.0, 1.0, 1.0, 0.0])
    assert (X.role, y.role) == ("const", "const") and set(program.leaves) == {"W"}
    assert program.data == {"X": "inputs", "y": "labels"}
    assert X.params == y.params == {"data": "xor()"}
    assert (X.span.line, X.span.col, X.span.end_col) == (1, 7, 12)   # the call
    assert parse("a = 1.0\nb = a * 2\n").data == {}


def test_xor_in_float32_is_float32():
    program = parse("# dtype: float32\nX, y = xor()\nL = sum(X)\n")
    assert program.nodes[0].literal.dtype == program.nodes[1].literal.dtype == np.float32
    body = run_trace("# dtype: float32\nX, y = xor()\nW = [[0.5, -0.2], [0.1, 0.3]]\n"
                     "L = cross_entropy(X @ W, y)\n")
    W = torch.tensor([[0.5, -0.2], [0.1, 0.3]], dtype=torch.float32, requires_grad=True)
    F.cross_entropy(torch.tensor(XOR_X, dtype=torch.float32) @ W,
                    torch.tensor([0, 1, 1, 0])).backward()
    assert body["grads"]["W"]["dtype"] == "float32"
    np.testing.assert_allclose(_grads(body)["W"], W.grad.numpy(), rtol=1e-6, atol=1e-7)


# ---- cross_entropy with targets held by a name -----------------------------------------------
NET = ("W = [[0.5, -0.2], [0.1, 0.3]]\nb = [0.05, -0.1]\nZ = X @ W + b\n"
       "L = cross_entropy(Z, y)\n")


@pytest.mark.parametrize("data", ["X, y = xor()\n",
                                  f"X = const({XOR_X})\ny = const([0, 1, 1, 0])\n"])
def test_cross_entropy_takes_a_named_batch_of_targets_as_pytorch_does(data):
    body = run_trace(data + NET)
    W, b = _t([[0.5, -0.2], [0.1, 0.3]]), _t([0.05, -0.1])
    loss = F.cross_entropy(torch.tensor(XOR_X, dtype=torch.float64) @ W + b,
                           torch.tensor([0, 1, 1, 0]))
    loss.backward()
    assert decode(body["output"]["value"]) == pytest.approx(loss.item(), rel=1e-15)
    grads = _grads(body)
    np.testing.assert_allclose(grads["W"], W.grad.numpy(), rtol=1e-13, atol=1e-16)
    np.testing.assert_allclose(grads["b"], b.grad.numpy(), rtol=1e-13, atol=1e-16)
    formulas = {n["label"]: n["formula"] for n in body["graph"]["nodes"]}
    assert formulas["L"] == "L = cross_entropy(Z, y)"   # narrated by the name
    assert not body.get("warnings")   # y is read: nothing unused


def test_a_named_single_target_is_no_longer_refused():
    body = run_trace("z = [1.0, 2.0, 0.5]\nt = const(1)\nL = cross_entropy(z, t)\n")
    z = _t([1.0, 2.0, 0.5])
    loss = F.cross_entropy(z[None], torch.tensor([1]))
    loss.backward()
    assert decode(body["output"]["value"]) == pytest.approx(loss.item(), rel=1e-15)
    np.testing.assert_allclose(_grads(body)["z"], z.grad.numpy(), rtol=1e-13, atol=1e-16)
    assert parse("z = [1.0, 2.0]\nt = const(1)\nL = cross_entropy(z, target=t)\n"
                 ).nodes[-1].params == {"target": 1, "target_label": "t", "target_node": 1}


def test_seed_003_step_0_in_the_language():
    """Seed 003's 2-4-2 ReLU network on XOR, its 22 weights drawn by random.seed(1) and
    random.uniform(-1, 1) in the order W1 (4x2), b1 (4), W2 (2x4), b2 (2), written as
    literals: "loss 0.838159", "largest gradient: 0.2463455518578762"."""
    random.seed(1)
    w = [random.uniform(-1, 1) for _ in range(22)]
    W1, b1 = np.array(w[0:8]).reshape(4, 2), w[8:12]
    W2, b2 = np.array(w[12:20]).reshape(2, 4), w[20:22]
    text = (f"X, y = xor()\nW1 = {W1.tolist()}\nb1 = {b1}\nW2 = {W2.tolist()}\nb2 = {b2}\n"
            "H = relu(X @ W1.T + b1)\nZ = H @ W2.T + b2\nL = cross_entropy(Z, y)\n")
    body = run_trace(text)
    assert round(decode(body["output"]["value"]), 6) == 0.838159
    grads = _grads(body)
    largest = max(np.max(np.abs(g)) for g in grads.values())
    assert largest == pytest.approx(0.2463455518578762, rel=1e-14)
    ts = [_t(W1), _t(b1), _t(W2), _t(b2)]
    X = torch.tensor(XOR_X, dtype=torch.float64)
    F.cross_entropy(torch.relu(X @ ts[0].T + ts[1]) @ ts[2].T + ts[3],
                    torch.tensor([0, 1, 1, 0])).backward()
    for name, t in zip(("W1", "b1", "W2", "b2"), ts):
        np.testing.assert_allclose(grads[name], t.grad.numpy(), rtol=1e-13, atol=1e-16)


# ---- errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("program,kind,line,col,words", [
    ("X = xor()\n", "unsupported", 1, 0, "write `X, y = xor()`"),
    ("W = [[1.0]]\nh = xor() @ W\n", "unsupported", 2, 4, "on a line of its own"),
    ("c = const(xor())\n", "unsupported", 1, 10, "gives two values"),
    ("X, y, z = xor()\n", "unsupported", 1, 0, "3 names were given"),
    ("X, *y = xor()\n", "unsupported", 1, 3, "write `X, y = xor()`"),
    ("[X, y] = xor()\n", "unsupported", 1, 0, "write `X, y = xor()`"),
    ("X = y = xor()\n", "unsupported", 1, 0, "write `X, y = xor()`"),
    ("a, b = 1.0\n", "unsupported", 1, 0, "or a data helper's two values"),
    ("X, y = xor(3)\n", "bad_argument", 1, 7, "no arguments"),
    ("X, y = xor(seed=1)\n", "bad_argument", 1, 11, "no parameter `seed`"),
    ("X, X = xor()\n", "duplicate_leaf", 1, 3, "already assigned"),
    ("a = 1.0\na, y = xor()\n", "duplicate_leaf", 2, 0, "already assigned"),
    ("X, y = xor()\nX = X * 2\n", "duplicate_leaf", 2, 0, "assigned once"),
    ("X, y = xor()\ny += 1\n", "duplicate_leaf", 2, 0, "assigned once"),
    ("X, tanh = xor()\n", "unsupported", 1, 3, "built-in"),
    ("xor = 1.0\n", "unsupported", 1, 0, "built-in"),
    ("L = X\nX, y = xor()\n", "used_before_assignment", 1, 4, "before it is assigned"),
    ("z = [1.0, 2.0]\nt = 1\nL = cross_entropy(z, t)\n", "bad_argument", 3, 21, "a leaf"),
    ("z = [1.0, 2.0]\nt = const(1) * 1\nL = cross_entropy(z, t)\n", "bad_argument", 3, 21,
     "computed"),
    ("z = [1.0, 2.0]\nt = const(0.5)\nL = cross_entropy(z, t)\n", "bad_argument", 3, 21,
     "non-negative integers"),
    ("z = [1.0, 2.0]\nt = const(-1)\nL = cross_entropy(z, t)\n", "bad_argument", 3, 21,
     "non-negative integers"),
    ("Z = [[1.0, 2.0]]\nt = const([[1]])\nL = cross_entropy(Z, t)\n", "bad_argument", 3, 21,
     "flat list"),
    ("z = [1.0, 2.0]\nt = const(2)\nL = cross_entropy(z, t)\n", "bad_argument", 3, 4,
     "out of range"),
    ("X, y = xor()\nL = cross_entropy(X, y)\nM = cross_entropy(X, u)\n", "unknown_name", 3,
     21, "`u` is not defined"),
])
def test_data_and_named_targets_refuse_clearly(program, kind, line, col, words):
    assert_refused(program, kind, line, col, words)


def assert_refused(program: str, kind: str, line: int, col: int, words: str) -> None:
    """The program's trace raises ProgramError `kind` at (line, col) saying `words`."""
    with pytest.raises(ProgramError) as info:
        run_trace(program)
    assert_located(info.value, kind, line, col, words)


# ---- leaf initializers: randn(..., std=), uniform(...) ---------------------------------------
def test_randn_std_scales_the_seeded_draws():
    body = run_trace("W = randn(3, 2, seed=4, std=0.5)\nV = randn(2, seed=4)\n"
                     "L = sum(W @ V)\n")
    program = parse("W = randn(3, 2, seed=4, std=0.5)\nL = sum(W)\n")
    want = np.random.default_rng(4).standard_normal((3, 2)) * 0.5
    np.testing.assert_array_equal(program.nodes[0].literal, want)
    nodes = {n["label"]: n for n in body["graph"]["nodes"]}
    assert nodes["W"]["role"] == "leaf" and nodes["W"]["formula"] == \
        "W = randn(3, 2, seed=4, std=0.5)"
    assert nodes["V"]["params"] == {"init": "randn(2, seed=4)"}   # unchanged without std
    f32 = parse("# dtype: float32\nW = randn(3, 2, seed=4, std=0.5)\nL = sum(W)\n")
    np.testing.assert_array_equal(f32.nodes[0].literal, want.astype(np.float32))


def test_uniform_is_numpy_default_rng_uniform():
    program = parse("W = uniform(2, 3, low=-1, high=1, seed=7)\nb = uniform(4, seed=1)\n"
                    "c = const(uniform((2,), low=2, high=2.5, seed=0))\nL = sum(W) + sum(b)\n")
    W, b, c = (program.nodes[program.names[k]] for k in "Wbc")
    np.testing.assert_array_equal(W.literal,
                                  np.random.default_rng(7).uniform(-1, 1, (2, 3)))
    np.testing.assert_array_equal(b.literal, np.random.default_rng(1).uniform(0, 1, 4))
    np.testing.assert_array_equal(c.literal, np.random.default_rng(0).uniform(2, 2.5, 2))
    assert (W.role, b.role, c.role) == ("leaf", "leaf", "const")
    assert W.params == {"init": "uniform(2, 3, low=-1, high=1, seed=7)"}
    assert b.params == {"init": "uniform(4, low=0, high=1, seed=1)"}


@pytest.mark.parametrize("program,kind,col,words", [
    ("W = randn(2, std=0.5)\n", "bad_argument", 4, "needs a seed"),
    ("W = randn(2, seed=0, std=0)\n", "bad_argument", 25, "positive finite"),
    ("W = randn(2, seed=0, std=-1)\n", "bad_argument", 25, "positive finite"),
    ("W = randn(2, seed=0, std=1e400)\n", "bad_argument", 25, "positive finite"),
    ("W = randn(2, seed=0, mean=1)\n", "bad_argument", 21, "no parameter `mean`"),
    ("W = uniform(2)\n", "bad_argument", 4, "uniform needs a seed"),
    ("W = uniform(2, seed=1.5)\n", "bad_argument", 20, "seed must be an integer"),
    ("W = uniform(2, seed=0, std=1)\n", "bad_argument", 23, "no parameter `std`"),
    ("W = uniform(2, low=1, high=0, seed=0)\n", "bad_argument", 27, "low < high"),
    ("W = uniform(2, low=1, seed=0)\n", "bad_argument", 4, "low < high"),
    ("W = uniform(2, low=-1e999, seed=0)\n", "bad_argument", 19, "finite number"),
    ("a = 1.0\nW = uniform(2, low=a, seed=0)\n", "bad_argument", 19, "finite number"),
    ("W = uniform(0, seed=0)\n", "bad_argument", 12, "1 or more"),
    ("W = uniform(1000, 1001, seed=0)\n", "too_large", 4, "max_elements"),
])
def test_bad_initializers_are_located(program, kind, col, words):
    assert_refused(program, kind, program.count("\n"), col, words)


# ---- spirals, moons ---------------------------------------------------------------------------
def spirals_by_hand(n: int, classes: int, seed: int, noise: float):
    """The recipe of the issue, point by point: for class j in order and i = 0..n-1,
    r = (i+1)/n, θ = 4j + 4i/(n-1) + noise·N(0,1) from default_rng(seed), (r sin θ, r cos θ)."""
    rng = np.random.default_rng(seed)
    points, labels = [], []
    for j in range(classes):
        draws = rng.standard_normal(n)
        for i in range(n):
            r, theta = (i + 1) / n, 4 * j + 4 * i / (n - 1) + noise * draws[i]
            points.append((r * math.sin(theta), r * math.cos(theta)))
            labels.append(j)
    return np.array(points), np.array(labels, dtype=float)


@pytest.mark.parametrize("call,n,classes,seed,noise", [
    ("spirals(100, 3, seed=0)", 100, 3, 0, 0.2),
    ("spirals(100, 3, seed=5, noise=0.2)", 100, 3, 5, 0.2),
    ("spirals(7, 2, seed=1, noise=0)", 7, 2, 1, 0.0),
    ("spirals(2, 4, noise=1.5, seed=9)", 2, 4, 9, 1.5),
])
def test_spirals_follow_the_recipe(call, n, classes, seed, noise):
    program = parse(f"X, y = {call}\nL = sum(X)\n")
    X, y = program.nodes[0].literal, program.nodes[1].literal
    want_X, want_y = spirals_by_hand(n, classes, seed, noise)
    assert X.shape == (n * classes, 2) and y.shape == (n * classes,)
    np.testing.assert_allclose(X, want_X, rtol=0, atol=2e-16)
    np.testing.assert_array_equal(y, want_y)
    radius = np.tile(np.arange(1, n + 1) / n, classes)   # never 0: no shared point
    np.testing.assert_allclose(np.hypot(X[:, 0], X[:, 1]), radius, rtol=1e-15)
    assert program.data == {"X": "inputs", "y": "labels"}
    assert program.nodes[0].params == {"data": f"spirals({n}, {classes}, seed={seed}, "
                                               f"noise={noise!r})".replace("noise=0.0", "noise=0")}


def test_the_three_spirals_of_seed_000_are_three_turning_arms():
    """The reference shape: without noise each class is an arm whose angle runs from 4j to
    4j + 4 as its radius grows from 1/n to 1, so the arms interleave."""
    X = parse("X, y = spirals(100, 3, seed=0, noise=0)\nL = sum(X)\n").nodes[0].literal
    theta = np.arctan2(X[:, 0], X[:, 1]).reshape(3, 100)
    for j in range(3):
        want = 4 * j + 4 * np.arange(100) / 99
        np.testing.assert_allclose(np.angle(np.exp(1j * (theta[j] - want))), 0, atol=1e-12)
    seeded = parse("X, y = spirals(100, 3, seed=0)\nL = sum(X)\n").nodes[0].literal
    other = parse("X, y = spirals(100, 3, seed=1)\nL = sum(X)\n").nodes[0].literal
    assert not np.array_equal(seeded, other) and not np.array_equal(seeded, X)


@pytest.mark.parametrize("n,noise,seed", [(200, 0.1, 0), (7, 0.3, 4), (2, 0, 1)])
def test_moons_follow_make_moons_with_default_rng_noise(n, noise, seed):
    program = parse(f"A, b = moons({n}, noise={noise}, seed={seed})\nL = sum(A)\n")
    X, y = program.nodes[0].literal, program.nodes[1].literal
    outer, inner = n // 2, n - n // 2
    t, u = np.linspace(0, np.pi, outer), np.linspace(0, np.pi, inner)
    clean = np.concatenate([np.c_[np.cos(t), np.sin(t)], np.c_[1 - np.cos(u), 1 - np.sin(u) - 0.5]])
    want = clean + noise * np.random.default_rng(seed).standard_normal((n, 2))
    np.testing.assert_array_equal(X, want)
    np.testing.assert_array_equal(y, [0.0] * outer + [1.0] * inner)
    assert program.data == {"A": "inputs", "b": "labels"}
    if noise == 0:   # on the two half circles: radius 1 about (0, 0) and about (1, 0.5)
        np.testing.assert_allclose(np.hypot(*X[:outer].T), 1, rtol=1e-15)
        np.testing.assert_allclose(np.hypot(X[outer:, 0] - 1, X[outer:, 1] - 0.5), 1,
                                   rtol=1e-15)


def test_spirals_train_through_cross_entropy_as_pytorch_does():
    text = ("X, y = spirals(20, 3, seed=2)\nW = randn(2, 3, seed=1, std=0.5)\n"
            "b = uniform(3, low=-0.1, high=0.1, seed=3)\nL = cross_entropy(X @ W + b, y)\n")
    body = run_trace(text)
    X, y = spirals_by_hand(20, 3, 2, 0.2)
    W = _t(np.random.default_rng(1).standard_normal((2, 3)) * 0.5)
    b = _t(np.random.default_rng(3).uniform(-0.1, 0.1, 3))
    loss = F.cross_entropy(torch.tensor(X) @ W + b, torch.tensor(y).long())
    loss.backward()
    assert decode(body["output"]["value"]) == pytest.approx(loss.item(), rel=1e-14)
    grads = _grads(body)
    np.testing.assert_allclose(grads["W"], W.grad.numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(grads["b"], b.grad.numpy(), rtol=1e-12, atol=1e-15)
    assert set(grads) == {"W", "b"}   # X and y are data


def test_a_data_set_is_bounded_by_max_elements_before_it_is_made():
    parse("X, y = spirals(10, 3, seed=0)\nL = sum(X)\n", max_elements=60)   # X: 60 elements
    with pytest.raises(ProgramError) as info:
        parse("X, y = spirals(10, 3, seed=0)\nL = sum(X)\n", max_elements=59)
    e = info.value
    assert (e.kind, e.line, e.col) == ("too_large", 1, 7) and "max_elements" in e.message
    with pytest.raises(ProgramError) as info:   # X and y together: 90
        parse("X, y = moons(30, seed=0)\nL = sum(X)\n", max_total_elements=89)
    assert info.value.kind == "too_large" and "max_total_elements" in info.value.message
    with pytest.raises(ProgramError) as info:   # a trillion points: refused by arithmetic
        parse("X, y = spirals(10**12, 3, seed=0)\nL = sum(X)\n".replace("10**12", str(10**12)))
    assert info.value.kind == "too_large"


@pytest.mark.parametrize("program,col,words", [
    ("X, y = spirals(100, seed=0)\n", 7, "takes n and classes"),
    ("X, y = spirals(100, 3, 0)\n", 7, "takes n and classes"),
    ("X, y = spirals(1, 3, seed=0)\n", 15, "n of spirals must be an integer of 2 or more, not 1"),
    ("X, y = spirals(100, 0, seed=0)\n", 20,
     "classes of spirals must be an integer of 1 or more, not 0"),
    ("X, y = spirals(100, 3.0, seed=0)\n", 20, "must be an integer of 1 or more, not 3.0"),
    # each says which way it is wrong: `10**9` was "must be an integer of 2 or more" (a review)
    ("X, y = spirals(10**9, 3, seed=0)\n", 15, "n of spirals must be an integer of 2 or more, "
     "not `10 ** 9`: write the integer itself, as in `spirals(100, 3, seed=0, noise=0.2)`"),
    ("X, y = spirals(1" + "0" * 30 + ", 3, seed=0)\n", 15, "n of spirals must be an integer "
     "of 2 or more, not an integer of 31 digits, past any size a tensor can have (2**62)"),
    ("X, y = spirals(100, 3)\n", 7, "spirals needs a seed"),
    ("X, y = spirals(100, 3, seed=-1)\n", 28, "seed must be an integer"),
    ("X, y = spirals(100, 3, seed=True)\n", 28, "seed must be an integer"),
    ("X, y = spirals(100, 3, seed=2**64)\n", 28, "seed must be an integer"),
    ("X, y = spirals(100, 3, seed=0, noise=-0.1)\n", 37, "0 or more"),
    ("X, y = spirals(100, 3, seed=0, noise=1e999)\n", 37, "finite number"),
    ("X, y = spirals(100, 3, seed=0, std=1)\n", 31, "no parameter `std`"),
    ("X, y = moons(1, seed=0)\n", 13, "n of moons must be an integer of 2"),
    ("X, y = moons(10)\n", 7, "moons needs a seed"),
    ("X, y = moons(10, 0.1, seed=0)\n", 7, "takes n by position"),
    ("X, y = moons(n=10, seed=0)\n", 13, "no parameter `n`"),
])
def test_bad_data_helper_calls_are_located(program, col, words):
    assert_refused(program, "bad_argument", 1, col, words)


def test_a_misspelt_data_helper_is_named_in_the_hint():
    with pytest.raises(ProgramError) as info:
        parse("X, y = spiral(100, 3, seed=0)\n")
    assert info.value.kind == "unsupported" and (info.value.line, info.value.col) == (1, 0)
    assert info.value.hint.startswith("did you mean `spirals`?"), info.value.hint


def test_named_targets_hold_in_every_mode_against_pytorch_and_central_differences():
    """The hvp (both ways), forward mode's jvp and the gradient check over a program with a
    data helper, initializers and name-held targets."""
    text = ("X, y = xor()\nW = randn(2, 2, seed=0, std=0.5)\n"
            "b = uniform(2, low=-1, high=1, seed=1)\nL = cross_entropy(tanh(X @ W + b), y)\n")
    W = _t(np.random.default_rng(0).standard_normal((2, 2)) * 0.5)
    b = _t(np.random.default_rng(1).uniform(-1, 1, 2))
    X = torch.tensor(XOR_X, dtype=torch.float64)

    def f(W, b):
        return F.cross_entropy(torch.tanh(X @ W + b), torch.tensor([0, 1, 1, 0]))
    v = (torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=torch.float64),
         torch.tensor([0.5, 0.5], dtype=torch.float64))
    _, hv = torch.autograd.functional.hvp(f, (W, b), v)
    body = run_trace('# hvp: {"W": [[1, 0], [0, 1]], "b": [0.5, 0.5]}\n' + text)
    for key in ("hvp", "hvp_forward_over_reverse"):
        np.testing.assert_allclose(decode(body[key]["W"]), hv[0].numpy(), atol=1e-15)
        np.testing.assert_allclose(decode(body[key]["b"]), hv[1].numpy(), atol=1e-15)
    _, jvp = torch.autograd.functional.jvp(f, (W, b), v)
    body = run_trace(text, options=Options(mode="forward", tangents={"W": [[1, 0], [0, 1]],
                                                                      "b": [0.5, 0.5]}))
    assert decode(body["jvp"]) == pytest.approx(jvp.item(), abs=1e-15)
    check = run_trace(text, options=Options(check=True))["gradcheck"]
    assert check["W"]["ok"] and check["b"]["ok"] and check["W"]["max_abs_error"] < 1e-9


@pytest.mark.parametrize("text, holder, loss", [
    ("X, y = xor()\nW = [[1.0, 2.0], [0.5, -1.0]]\nz = X @ W\nL = cross_entropy(z, y)\n",
     "n1", "n4"),
    ("y = const([1, 0])\nZ = [[1.0, 2.0], [0.5, -1.0]]\nL = cross_entropy(Z, y)\n", "n0", "n2"),
    ("z = [1.0, 2.0, 0.5]\nt = const(1)\nL = cross_entropy(z, target=t)\n", "n1", "n2"),
])
def test_a_name_held_target_feeds_the_loss_by_an_edge_that_carries_no_gradient(text, holder,
                                                                              loss):
    """Issue 15: `y` was drawn as a lone constant; the graph event now has the edge from it
    into the loss, marked grad: false, and the walk still sends y no gradient."""
    body = run_trace(text)
    into = [e for e in body["graph"]["edges"] if e["target"] == loss]
    assert into[-1] == {"id": f"{holder}->{loss}#1", "source": holder, "target": loss,
                        "arg": 1, "grad": False}
    assert [e["arg"] for e in into] == [0, 1]
    assert not any(e.get("input") == holder for e in body["events"])   # no accumulate into y
    nodes = {n["id"]: n for n in body["graph"]["nodes"]}
    assert nodes[holder]["requires_grad"] is False and nodes[holder]["role"] == "const"


def test_literal_targets_have_no_target_edge():
    body = run_trace("Z = [[1.0, 2.0], [0.5, -1.0]]\nL = cross_entropy(Z, [1, 0])\n")
    assert body["graph"]["edges"] == [{"id": "n0->n1#0", "source": "n0", "target": "n1",
                                       "arg": 0}]


@pytest.mark.parametrize("text, want", [
    ("X, y = xor()\nW = [[1.0, 2.0], [0.5, -1.0]]\nL = cross_entropy(X @ W, y)\n",
     "X, y = xor()"),
    ("P, t = spirals(10, 3, seed=0)\nW = [[1.0, 2.0, 0.0], [0.5, -1.0, 1.0]]\n"
     "L = cross_entropy(P @ W, t)\n", "P, t = spirals(10, 3, seed=0, noise=0.2)"),
    ("X, y = moons(8, seed=2)\nW = [[1.0, 2.0], [0.5, -1.0]]\nL = cross_entropy(X @ W, y)\n",
     "X, y = moons(8, noise=0.1, seed=2)"),
])
def test_a_data_nodes_formula_reads_as_the_program_wrote_the_call(text, want):
    """Issue 15: X's formula read `X = const([[0.0, 0.0], …])`; both names' nodes now read
    the call that made them."""
    body = run_trace(text)
    data = [n for n in body["graph"]["nodes"] if n["params"].get("data")]
    assert [n["formula"] for n in data] == [want, want]


def test_other_constants_keep_their_formula():
    body = run_trace("y = const([1, 0])\nc = const(2.0)\nZ = [[1.0, 2.0], [0.5, -1.0]]\n"
                     "L = cross_entropy(Z * c, y)\n")
    formulas = {n["label"]: n["formula"] for n in body["graph"]["nodes"]}
    assert formulas["y"] == "y = const([1.0, 0.0])" and formulas["c"] == "c = const(2.0)"
