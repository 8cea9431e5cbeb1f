"""micrograd-style Python through POST /api/trace (issue 18 §4; engine/parse_unroll.py): a
program with a loop, methods and a tuple assignment read before it binds traces with PyTorch's numbers and the loop's
groups; a bad loop is a located 422, never a 500."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from gradwalk.engine.trace.values import decode

PROGRAM = """W = [[0.5, -1.0], [2.0, 0.25]]
a, c = 0.3, -0.2
for j in range(2):
    a, c = (a * W[1, j] + c).tanh(), a.exp()
L = a * c
"""


def _agrees(body, out, tensors):
    """The trace's output and every leaf's gradient equal PyTorch's (float64, rtol 1e-12)."""
    out.backward()
    np.testing.assert_allclose(decode(body["output"]["value"]), out.item(), rtol=1e-12)
    for name, tensor in tensors.items():
        np.testing.assert_allclose(decode(body["grads"][name]), tensor.grad.numpy(),
                                   rtol=1e-12, err_msg=name)


def test_a_loop_methods_and_a_tuple_assignment_trace_with_pytorchs_numbers(client):
    r = client.post("/api/trace", json={"program": PROGRAM})
    assert r.status_code == 200, r.text
    body = r.json()
    leaves = {"W": [[0.5, -1.0], [2.0, 0.25]], "a": 0.3, "c": -0.2}
    t = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in leaves.items()}
    state = (t["a"], t["c"])
    for weight in t["W"][1]:   # both new values from the old ones, as Python's tuples do
        state = (torch.tanh(state[0] * weight + state[1]), torch.exp(state[0]))
    out = state[0] * state[1]
    _agrees(body, out, t)
    blocks = [g["name"] for g in body["graph"]["groups"] if g["kind"] == "block"]
    assert blocks == ["for j in range(2)", "for j in range(2): j = 0",
                      "for j in range(2): j = 1"]


def test_a_loop_over_a_name_is_a_located_422(client):
    r = client.post("/api/trace", json={"program": "n = 3\nx = 1.0\nfor i in range(n):\n"
                                                   "    x = x.tanh()\n"})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert (error["kind"], error["line"], error["col"]) == ("bad_argument", 3, 15)


ZIP_DEF = """X = [[0.0, 1.0], [1.0, 1.0]]
Y = [1, 0]
w = [0.5, -0.3]
def score(x0, x1):
    return tanh(w[0] * x0 + w[1] * x1)
L = 0.0 * w[0]
for (x0, x1), y in zip(X, Y):
    L = L + (score(x0, x1) - y) ** 2
"""


def test_zip_and_a_function_trace_with_pytorchs_numbers_and_a_group_per_call(client):
    """Issue 18 §4: `for ... in zip(X, Y)` and `def`, through the API."""
    r = client.post("/api/trace", json={"program": ZIP_DEF})
    assert r.status_code == 200, r.text
    body = r.json()
    t = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
         for k, v in {"X": [[0.0, 1.0], [1.0, 1.0]], "w": [0.5, -0.3]}.items()}
    out = 0.0 * t["w"][0]
    for (x0, x1), y in zip(t["X"], [1, 0]):
        out = out + (torch.tanh(t["w"][0] * x0 + t["w"][1] * x1) - y) ** 2
    _agrees(body, out, t)
    calls = [g["name"] for g in body["graph"]["groups"] if g["name"] == "score(x0, x1)"]
    assert len(calls) == 2


@pytest.mark.parametrize("program, kind, line, col, words", [
    ("def f(x):\n    return f(x)\na = 1.0\nL = f(a)\n", "unsupported", 2, 11,
     "recursion is not supported"),
    ("a = 1.0\nL = a * 2.0\nL.backward()\n", "unsupported", 3, 0,
     "gradwalk walks the backward pass itself"),
    ("a = 1.0\nL = a.relu * 2.0\n", "unsupported", 2, 4, "call it, `a.relu()`"),
    ("a = 1.0\nL = a\nfor x, y in zip(L, L):\n    L = L + x\n", "unsupported", 3, 16,
     "zip goes over lists"),
])
def test_bad_python_is_a_located_422_not_a_500(client, program, kind, line, col, words):
    r = client.post("/api/trace", json={"program": program})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert (error["kind"], error["line"], error["col"]) == (kind, line, col)
    assert words in error["message"]
