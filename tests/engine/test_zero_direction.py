"""An all-zero direction (`tangents` in forward mode, `vector` in hvp mode) gives a jvp or H v
of 0 whatever the function: the trace answers, with a "zero_direction" warning naming the field
(docs/trace-format.md, "Warnings"). A direction with any non-zero entry gets no such warning."""
from __future__ import annotations

import orjson
import pytest

from engine.trace.options import Options
from engine.trace.runner import trace_json

PROGRAM = "a = 2.0\nb = [1.0, -3.0]\nL = sum(a * a * b)\n"


def body(**options) -> dict:
    return orjson.loads(trace_json(PROGRAM, options=Options(**options)))


@pytest.mark.parametrize("tangents, says", [
    ({}, "`tangents` names no leaf"),
    ({"a": 0.0}, "`tangents` is 0 on every leaf"),
    ({"a": 0.0, "b": [0.0, -0.0]}, "`tangents` is 0 on every leaf"),
])
def test_a_zero_tangent_is_answered_with_a_warning(tangents, says):
    b = body(mode="forward", tangents=tangents)
    assert b["jvp"] == 0.0
    [w] = b["warnings"]
    assert (w["kind"], w["field"], w["node"]) == ("zero_direction", "tangents", None)
    assert w["message"].startswith(says) and '{"a": 1}' in w["message"]
    assert "zero direction" in b["warnings"][0]["message"]


@pytest.mark.parametrize("vector", [{}, {"a": 0.0, "b": [0.0, 0.0]}])
def test_a_zero_vector_is_answered_with_a_warning(vector):
    b = body(mode="hvp", vector=vector)
    assert b["hvp"]["a"] == 0.0 and b["hvp"]["b"]["data"] == [0.0, 0.0]
    [w] = b["warnings"]
    assert (w["kind"], w["field"]) == ("zero_direction", "vector")
    assert w["message"].startswith("`vector` is 0 on every leaf")


@pytest.mark.parametrize("options", [
    dict(mode="forward", tangents={"b": [0.0, 1.0]}),
    dict(mode="forward"),   # the default direction: 1 on the first leaf
    dict(mode="hvp", vector={"a": 1.0}),
])
def test_a_direction_with_a_nonzero_entry_has_no_warning(options):
    b = body(**options)
    assert "warnings" not in b
    # d/dt L(a + t, b) = 2a·sum(b) = -8 for the default; (H v)_a = 2·sum(b) = -4
    if options.get("tangents") is None and options["mode"] == "forward":
        assert b["jvp"] == pytest.approx(-8.0)
    if options["mode"] == "hvp":
        assert b["hvp"]["a"] == pytest.approx(-4.0)
