"""A comprehension over the node limit is refused at the comprehension once its first element
is built, and a function's size counts the comprehensions in its body, so a call is refused at
the call (a review: `def f(x): return sum([x * i for i in range(100000)])`, `L = f(2.0)`, within
max_statements, built 300,000 nodes before the statement's node count refused it: 27 s on a
loaded machine). Size assertions (nodes built before the refusal), not timings."""
from __future__ import annotations

import pytest

from gradwalk.engine import parse as parse_module
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse

IN_DEF = "def f(x):\n    return sum([x * i for i in range(N)])\nL = f(2.0)\n"


@pytest.fixture
def built(monkeypatch):
    """The IR nodes made, counted as the builder makes them (engine/parse.py's add)."""
    made = [0]
    real = parse_module.IRNode

    def counting(*args):
        made[0] += 1
        return real(*args)
    monkeypatch.setattr(parse_module, "IRNode", counting)
    return made


@pytest.mark.parametrize("text, line, col, message", [
    (IN_DEF.replace("N", "5000"), 2, 15,
     "this comprehension makes 5,000 elements of 3 nodes: the program would make 15,000 "
     "nodes; the limit (max_nodes) is 1,000"),
    ("x = 2.0\nL = sum(x * i for i in range(5000))\n", 2, 7,   # Python's `(x * i for ...)`
     "this comprehension makes 5,000 elements of 3 nodes: the program would make 15,000 "
     "nodes; the limit (max_nodes) is 1,000"),
    ("x = 2.0\nL = sum((x * i for i in range(5000)), 0.0)\n", 2, 8,
     "this comprehension makes 5,000 elements of 3 nodes: the program would make 15,002 "
     "nodes; the limit (max_nodes) is 1,000"),
])
def test_a_comprehension_over_max_nodes_is_refused_after_its_first_element(
        built, text, line, col, message):
    with pytest.raises(ProgramError) as caught:
        parse(text, max_nodes=1000)
    e = caught.value
    assert (e.kind, e.line, e.col, e.message) == ("too_large", line, col, message)
    assert e.hint == "make fewer elements; the setting is GRADWALK_MAX_NODES"
    assert built[0] < 10, built[0]   # was 15,000 nodes, then refused at the statement


@pytest.mark.parametrize("n, refused", [(333, False), (334, True)])
def test_the_bound_is_the_limits_own(n, refused):
    """x, then 3 nodes an element (i, x * i, +) less the first add: 1 + 3n - 1 = 999 nodes
    pass max_nodes 1,000, 1,002 are refused (the statement's count would refuse them too)."""
    text = f"x = 2.0\nL = sum(x * i for i in range({n}))\n"
    if not refused:
        assert len(parse(text, max_nodes=1000).nodes) == 3 * n
        return
    with pytest.raises(ProgramError, match=r"would make 1,002 nodes; the limit \(max_nodes\) "
                                           r"is 1,000"):
        parse(text, max_nodes=1000)


@pytest.mark.parametrize("text, line, col, size", [
    # two calls of 601 statements each: the second takes the program over 1,000
    (IN_DEF.replace("N", "600") + "M = f(3.0)\n", 4, 4, 601),
    # the comprehension in a loop of the body: 1 + (1 + 10 * (1 + 100)) + 1 statements
    ("def f(x):\n    s = x\n    for j in range(10):\n"
     "        s = s + sum(x * i for i in range(100))\n    return s\nL = f(2.0)\n",
     6, 4, 1013),
    # a comprehension in a comprehension: 20 + 20 * 60 elements, and the return line
    ("def f(x):\n    return sum(sum(x * i * j for j in range(60)) for i in range(20))\n"
     "L = f(2.0)\n", 3, 4, 1221),
])
def test_a_function_counts_its_comprehensions_so_a_call_is_refused_at_the_call(
        built, text, line, col, size):
    with pytest.raises(ProgramError) as caught:
        parse(text, max_statements=1000)
    e = caught.value
    assert (e.kind, e.line, e.col) == ("too_large", line, col)
    assert e.message.startswith(f"this call of `f` writes out {size:,} statements")
    assert built[0] == 0   # counted before anything is built


def test_a_counted_comprehension_is_not_counted_again_when_the_call_is_built():
    """f's 301 statements are counted once, at the call: max_statements 303 (the def, the
    call's line and f's body) is room enough, as it would be written out by hand."""
    text = IN_DEF.replace("N", "300")
    assert len(parse(text, max_statements=303).nodes) == 1 + 3 * 300 - 1
    with pytest.raises(ProgramError, match="writes out 301 statements"):
        parse(text, max_statements=302)
