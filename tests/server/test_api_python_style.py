"""micrograd-style Python through POST /api/trace (issue 18 §4; engine/parse_unroll.py): a
program with a loop, a method and a tuple swap traces with PyTorch's numbers and the loop's
groups; a bad loop is a located 422, never a 500."""
from __future__ import annotations

import numpy as np
import torch

from engine.trace.values import decode

PROGRAM = """x = [1.0, -2.0, 0.5]
w = [0.3, -0.7, 1.1]
b = 0.1
s = b
for i in range(3):
    s = s + w[i] * x[i]
p, q = s.tanh(), s.exp()
p, q = q, p
L = p * q
"""


def test_a_loop_a_method_and_a_swap_trace_with_pytorchs_numbers(client):
    r = client.post("/api/trace", json={"program": PROGRAM})
    assert r.status_code == 200, r.text
    body = r.json()
    x, w, b = (torch.tensor(v, dtype=torch.float64, requires_grad=True)
               for v in ([1.0, -2.0, 0.5], [0.3, -0.7, 1.1], 0.1))
    s = b
    for i in range(3):
        s = s + w[i] * x[i]
    p, q = s.tanh(), s.exp()
    p, q = q, p
    out = p * q
    out.backward()
    np.testing.assert_allclose(decode(body["output"]["value"]), out.item(), rtol=1e-12)
    for name, t in (("x", x), ("w", w), ("b", b)):
        np.testing.assert_allclose(decode(body["grads"][name]), t.grad.numpy(), rtol=1e-12,
                                   err_msg=name)
    blocks = [g["name"] for g in body["graph"]["groups"] if g["kind"] == "block"]
    assert blocks == ["for i in range(3)", "for i in range(3): i = 0",
                      "for i in range(3): i = 1", "for i in range(3): i = 2"]


def test_a_loop_over_a_name_is_a_located_422(client):
    r = client.post("/api/trace", json={"program": "n = 3\nx = 1.0\nfor i in range(n):\n"
                                                   "    x = x.tanh()\n"})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert (error["kind"], error["line"], error["col"]) == ("bad_argument", 3, 15)
