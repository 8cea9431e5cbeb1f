"""A `def` no line calls (a review: seed 003's XOR pasted without its `L = forward(params)`
traced `params`, a 22-vector, without a word): the trace warns "never_called" at the
function's name, says what the output is instead, and the Done narration leads with it."""
from __future__ import annotations

import json
import math

import pytest

from gradwalk.engine.trace.runner import trace_json

UNCALLED = """w = [0.5, -0.3]
def forward(p):
    return tanh(p[0] * 2.0 + p[1])
"""


def warnings_of(program: str) -> list[dict]:
    return json.loads(trace_json(program)).get("warnings", [])


def test_a_function_never_called_is_a_located_warning_naming_the_output():
    [w] = warnings_of(UNCALLED)
    assert w["kind"] == "never_called"
    assert (w["line"], w["col"], w["end_line"], w["end_col"]) == (2, 0, 2, 11)   # `def forward`
    assert w["message"].startswith("`forward` (line 2) is defined but never called")
    assert "the output is `w`" in w["message"] and "L = forward(...)" in w["message"]


def test_a_called_function_has_no_such_warning_and_its_numbers():
    body = json.loads(trace_json(UNCALLED + "L = forward(w)\n"))
    assert "warnings" not in body
    assert body["output"]["value"] == pytest.approx(math.tanh(0.5 * 2.0 - 0.3), rel=1e-15)


def test_the_done_narration_says_it_first():
    body = json.loads(trace_json(UNCALLED))
    done = body["events"][-1]
    assert done["kind"] == "done"
    assert "a function is defined but never called" in done["narration"]
