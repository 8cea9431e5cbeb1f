"""micrograd-style Python through POST /api/trace (issue 18 §4; engine/parse_unroll.py): a
program with a loop, methods and a tuple assignment read before it binds traces with PyTorch's numbers and the loop's
groups; a bad loop is a located 422, never a 500."""
from __future__ import annotations

import numpy as np
import torch

from gradwalk.engine.trace.values import decode

PROGRAM = """W = [[0.5, -1.0], [2.0, 0.25]]
a, c = 0.3, -0.2
for j in range(2):
    a, c = (a * W[1, j] + c).tanh(), a.exp()
L = a * c
"""


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
    out.backward()
    np.testing.assert_allclose(decode(body["output"]["value"]), out.item(), rtol=1e-12)
    for name in leaves:
        np.testing.assert_allclose(decode(body["grads"][name]), t[name].grad.numpy(),
                                   rtol=1e-12, err_msg=name)
    blocks = [g["name"] for g in body["graph"]["groups"] if g["kind"] == "block"]
    assert blocks == ["for j in range(2)", "for j in range(2): j = 0",
                      "for j in range(2): j = 1"]


def test_a_loop_over_a_name_is_a_located_422(client):
    r = client.post("/api/trace", json={"program": "n = 3\nx = 1.0\nfor i in range(n):\n"
                                                   "    x = x.tanh()\n"})
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert (error["kind"], error["line"], error["col"]) == ("bad_argument", 3, 15)
