"""Warnings of three kinds (docs/trace-format.md, "Warnings"). An all-zero direction (`tangents`
in forward mode, `vector` in hvp mode) gives a jvp or H v of 0 whatever the function:
"zero_direction", naming the field. A list literal times an integer is numpy's product here, not
Python's repetition ("list_repetition"), and two list literals added are numpy's sum, not a joined
list ("list_concatenation"), each at its node."""
from __future__ import annotations

import orjson
import pytest

from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import trace_json

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


# ---- a list times an integer (numpy's meaning, not Python's repetition) ------------------------
def test_a_list_times_an_integer_is_traced_as_numpy_and_warned_about():
    text = "a = [0.5] * 3\nb = 2 * [1.0, -2.0]\nc = [1.0, 2.0] * 2.0\nL = sum(a + b + c)\n"
    b = orjson.loads(trace_json(text))
    assert b["output"]["value"] == pytest.approx(0.5 * 3 * 2 + (2 - 4) + (2.0 + 4.0))
    kinds = [(w["kind"], w["node"], w["line"], w["col"], w["end_col"]) for w in b["warnings"]]
    ids = {n["label"]: n["id"] for n in b["graph"]["nodes"]}
    # one per product, located at it; a float factor (line 3) is numpy's meaning in Python too
    assert kinds == [("list_repetition", ids["a"], 1, 4, 13), ("list_repetition", ids["b"], 2, 4, 19)]
    assert b["warnings"][0]["message"].startswith("`[0.5] * 3` (line 1, col 5) multiplies every "
                                                  "element by 3, as numpy does")
    done = b["events"][-1]["narration"]
    assert done.startswith("Done, with 2 warnings: lists are read as numpy's tensors, not as "
                           "Python's lists. `[0.5] * 3`")


def test_list_concatenation_is_located_at_the_sum():
    text = "a = [1.0, 2.0] + [3.0]\nL = sum(a * a)\n"
    b = orjson.loads(trace_json(text))
    assert b["output"]["value"] == pytest.approx(4.0 ** 2 + 5.0 ** 2)   # [4, 5], not [1, 2, 3]
    [w] = b["warnings"]
    ids = {n["label"]: n["id"] for n in b["graph"]["nodes"]}
    assert (w["kind"], w["node"], w["line"], w["col"], w["end_col"]) == \
        ("list_concatenation", ids["a"], 1, 4, 22)
    assert "does not join the lists, as Python would" in w["message"]


def test_a_warning_without_a_heading_still_narrates_cleanly():
    b = orjson.loads(trace_json(PROGRAM, options=Options(mode="forward", tangents={})))
    assert b["events"][-1]["narration"].startswith(
        "Done, with a warning: the direction asked for is zero, so the result is zero. "
        "`tangents` names no leaf")
