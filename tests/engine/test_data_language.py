"""The language of training (issue 15, section 2, first bullet): data helpers (`X, y = xor()`)
that make constants and fill Program.data, and cross_entropy with class indices held by a name,
against PyTorch (float64) and the numbers seed 003 prints."""
from __future__ import annotations

import random

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from engine.errors import ProgramError
from engine.parse import parse
from engine.trace.runner import run_trace
from engine.trace.values import decode

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
    assert program.nodes[0].literal.dtype == np.float32


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
                 ).nodes[-1].params == {"target": 1, "target_label": "t"}


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
    ("a, b = 1.0, 2.0\n", "unsupported", 1, 0, "tuple assignment takes a data helper"),
    ("X, y = xor(3)\n", "bad_argument", 1, 7, "no arguments"),
    ("X, y = xor(seed=1)\n", "bad_argument", 1, 7, "no arguments"),
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
     21, "unknown name `u`"),
])
def test_data_and_named_targets_refuse_clearly(program, kind, line, col, words):
    with pytest.raises(ProgramError) as info:
        run_trace(program)
    e = info.value
    assert (e.kind, e.line, e.col) == (kind, line, col), e
    assert words in e.message, e.message
