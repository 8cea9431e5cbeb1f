"""A chain of 100,000 nodes traces: iterative walks, no RecursionError."""
from __future__ import annotations

import pytest

from gradwalk.engine.trace.runner import Tracer, trace_json


def test_chain_of_100k_nodes_traces():
    n = 50_000   # each line adds a const node and a mul node: 100,001 nodes in all
    text = "x = 1.0\n" + "x = x * 1.00001\n" * n
    tracer = Tracer(text)
    assert len(tracer.program.nodes) == 2 * n + 1
    body = trace_json(text)
    assert body.endswith(b"}")
    events = list(Tracer(text).events())
    done = events[-1]
    assert done.kind == "done"
    assert done.output["value"] == pytest.approx(1.00001 ** n, rel=1e-9)
    assert done.grads["x"] == pytest.approx(1.00001 ** n, rel=1e-9)
    assert len([e for e in events if e.kind == "accumulate"]) == n


def test_long_sum_expression_on_one_line_is_an_error_or_works_not_a_crash():
    text = "a = 1.0\nb = " + " + ".join(["a"] * 5000) + "\n"
    try:
        tracer = Tracer(text)
    except Exception as e:   # noqa: BLE001 - only ProgramError is allowed
        assert type(e).__name__ == "ProgramError"
    else:
        assert list(tracer.events())[-1].grads["a"] == 5000.0
