"""A number literal beyond float64 (`1e400`, which Python's own parser reads as inf) is said
where it is written (a review: `a = 1e400` traced as `a = inf` and was flagged only at Done as
the first non-finite value, while a 400-digit integer is a located error). The walk goes on
with inf, as PyTorch's does with the same float (tests/engine/edge_points.py teaches with it)."""
from __future__ import annotations

import math

import pytest
import torch

import gradwalk


def _warnings(program: str) -> list[dict]:
    body = gradwalk.trace(program)
    return [w for w in body.get("warnings", []) if w["kind"] == "overflow_literal"]


@pytest.mark.parametrize("program, line, col, text", [
    ("a = 1e400\nL = a * 2.0\n", 1, 4, "1e400"),              # a leaf
    ("a = -1e400\nL = a * 2.0\n", 1, 5, "1e400"),             # signed: the number itself
    ("a = 1.0\nL = a * 1e999 + a\n", 2, 8, "1e999"),           # a constant in an expression
    ("a = [1.0, 2.0, 1e309]\nL = sum(a)\n", 1, 15, "1e309"),   # an element of a tensor leaf
])
def test_an_infinite_literal_is_warned_at_its_place(program, line, col, text):
    (w,) = _warnings(program)
    assert (w["line"], w["col"], w["end_col"]) == (line, col, col + len(text))
    assert w["message"].startswith(f"`{text}` (line {line}, col {col + 1}) is beyond float64")


def test_the_walk_goes_on_with_inf_as_pytorch_does():
    body = gradwalk.trace("a = 1e400\nb = 2.0\nL = a * b\n")
    a = torch.tensor(1e400, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    (a * b).backward()
    assert math.isinf(a.item()) and body["grads"]["a"] == a.grad.item() == 2.0
    assert math.isinf(b.grad.item()) and math.isinf(float(body["grads"]["b"]))


def test_one_warning_for_a_number_used_many_times_and_none_in_range():
    assert len(_warnings("a = 1.0\nb = a * 1e400\nL = b * 1e400 + a\n")) == 1
    assert _warnings("a = 1.7e308\nb = a * 10.0\nL = b\n") == []   # overflow by arithmetic
