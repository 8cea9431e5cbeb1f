"""A loop over the node limit is refused at the loop, fast (issue 18 §4): a 20,000-iteration
zip loop took 16-21 s to be refused, by the trace's node count after every iteration was
built (no line), or by the time limit; its iterations are now counted once the first is
built, and the refusal names the loop's line, its iterations and the setting."""
from __future__ import annotations

import time

import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace.runner import Limits, trace_json
from gradwalk.server.settings import Settings
from gradwalk.server.tracing import trace_body

LOOP = ("w = [0.5, -0.5]\nX = {X}\nY = {Y}\nL = 0.0\nfor x, y in zip(X, Y):\n"
        "    L = L + (w[0] * x[0] + w[1] * x[1] - y) ** 2\n")


def zip_loop(n: int) -> str:
    return LOOP.format(X=[[i * 0.001, 1.0] for i in range(n)], Y=[i % 2 for i in range(n)])


def test_a_20000_iteration_zip_loop_is_refused_at_the_loop_within_seconds():
    text = zip_loop(20_000)
    start = time.perf_counter()
    with pytest.raises(ProgramError) as caught:
        trace_body(text, None, Settings())
    took = time.perf_counter() - start
    e = caught.value
    assert (e.kind, e.line, e.col) == ("too_large", 5, 0)
    assert e.message == ("this loop runs 20,000 iterations of 13 nodes: the program would make "
                         "260,004 nodes; the limit (max_nodes) is 120,000")
    assert e.hint == "loop fewer times; the setting is GRADWALK_MAX_NODES"
    assert took < 5.0, took   # was 16-21 s; about 1 s here, most of it reading the lists


@pytest.mark.parametrize("iterations, refused", [(2, False), (3, True)])
def test_the_bound_is_the_limits_own(iterations, refused):
    """max_nodes 40: 4 + 13 * 2 = 30 nodes pass, 4 + 13 * 3 = 43 are refused, as the trace's
    own count would refuse them."""
    text = zip_loop(iterations)
    if not refused:
        assert trace_json(text, None, Limits(max_nodes=40))
        return
    with pytest.raises(ProgramError, match=r"would make 43 nodes; the limit \(max_nodes\) is 40"):
        trace_json(text, None, Limits(max_nodes=40))


def test_straight_line_code_over_the_node_limit_is_refused_at_the_line_that_crosses_it():
    """A 100,000-line chain was refused with no line after the whole parse (a review): the
    statement whose nodes take the program past max_nodes is named as soon as it is built.
    `x = 1.0` is one node, each `x = x * 1.0001 + 0.001` four (two constants, mul, add):
    1 + 4 * 25 = 101 > 100 at line 26."""
    text = "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 200
    with pytest.raises(ProgramError) as caught:
        trace_json(text, limits=Limits(max_nodes=100))
    e = caught.value
    assert (e.kind, e.line, e.col) == ("too_large", 26, 0)
    assert e.message == "the program makes more than 100 nodes by line 26; the limit (max_nodes) is 100"
    trace_json("x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 24, limits=Limits(max_nodes=100))
