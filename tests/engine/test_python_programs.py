"""The programs people already have (issue 18 §4, part 2): `for ... in zip(...)` over literal
lists, `def f(x): ... return ...` inlined at each call, seed 003's XOR and seed 000's Value
examples as written minus the class definitions, and the small defects of the first part (an
alias naming the output, `L.backward()`, `x.relu` without ()). Numbers against PyTorch float64;
every bad input a located ProgramError."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from engine.parse import parse
from engine.trace.runner import run_trace
from engine.trace.values import decode
from test_unrolled_python import _error


def _grads(body: dict) -> dict:
    return {k: decode(v) for k, v in body["grads"].items()}


# ---- B4: small defects ---------------------------------------------------------------------
def test_an_alias_of_the_output_reads_as_its_new_name():
    """`L = x` after x was assigned three times named the output x''' (the seed, the output and
    the narration); the value is now called L, and no node is made for the alias."""
    text = "x = 2.0\nx = x * 3.0\nx = x + 1.0\nx = tanh(x)\nL = x\n"
    body = run_trace(text)
    out = next(n for n in body["graph"]["nodes"] if n["id"] == body["output"]["node"])
    assert (out["label"], out["name"], body["output"]["name"]) == ("L", "L", "L")
    assert len(body["graph"]["nodes"]) == 6
    seed = next(e for e in body["events"] if e["kind"] == "seed")
    assert seed["narration"].startswith("L̄ = ∂L/∂L = 1")
    assert "x'''" not in str(body["events"])
    t = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    torch.tanh(t * 3.0 + 1.0).backward()
    assert decode(body["grads"]["x"]) == pytest.approx(t.grad.item(), rel=1e-15)


def test_a_leaf_alias_keeps_the_leafs_name():
    """A leaf keeps its name (its gradient is reported by it): `s = b` then `s = s + ...`."""
    body = run_trace("b = 0.5\ns = b\ns = s * 2.0\nL = s\n")
    assert [n["label"] for n in body["graph"]["nodes"]] == ["b", "2.0", "L"]
    assert _grads(body) == {"b": 2.0}


@pytest.mark.parametrize("text, line, col, words", [
    ("x = 2.0\nL = x * 3.0\nL.backward()\n", 3, 0,
     "gradwalk walks the backward pass itself: `L.backward()` is not needed"),
    ("x = 2.0\nloss = x * 3.0\nloss.backward(retain_graph=True)\n", 3, 0,
     "gradwalk walks the backward pass itself: `loss.backward(retain_graph=True)` is not "
     "needed"),
    ("x = 2.0\nL = x.relu * 2.0\n", 2, 4, "`.relu` is a method: call it, `x.relu()`"),
    ("x = 2.0\nL = (x * 2.0).tanh\n", 2, 4, "`.tanh` is a method: call it, `(x * 2.0).tanh()`"),
])
def test_backward_and_an_uncalled_method_are_specific_located_errors(text, line, col, words):
    e = _error(text)
    assert (e.kind, e.line, e.col, e.message) == ("unsupported", line, col, words)
    assert e.hint
