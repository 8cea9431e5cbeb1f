"""The Python people write for micrograd-style engines (issue 18 §4, engine/parse_unroll.py):
micrograd's methods, tuple unpacking and `for` loops over range, unrolled when the program is
parsed. Each is checked against the program written out by hand (the same IR: ops, inputs,
labels, values) and against PyTorch float64 computing the same thing in Python; each bad use
is a located ProgramError, quickly."""
from __future__ import annotations

import time

import numpy as np
import pytest
import torch

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.groups import groups
from gradwalk.engine.parse import parse
from gradwalk.engine.trace import budget
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import Limits, Tracer, run_trace, trace_json
from gradwalk.engine.trace.values import decode
from helpers import assert_located


def _ir(text: str) -> list[tuple]:
    """Every node as (op, role, inputs, label, name, params, literal): all but its span."""
    return [(n.op, n.role, n.inputs, n.label, n.name, n.params,
             None if n.literal is None else n.literal.tolist()) for n in parse(text).nodes]


def _result(text: str) -> tuple[float, dict[str, np.ndarray]]:
    body = run_trace(text)
    return decode(body["output"]["value"]), {k: decode(v) for k, v in body["grads"].items()}


def _torch_leaves(**values):
    return {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
            for k, v in values.items()}


def _assert_torch(text: str, out: torch.Tensor, leaves: dict) -> None:
    """The traced output and every leaf's gradient equal PyTorch's (float64)."""
    out.backward()
    value, grads = _result(text)
    np.testing.assert_allclose(value, out.item(), rtol=1e-12, atol=1e-14)
    assert set(grads) == set(leaves)
    for name, t in leaves.items():
        np.testing.assert_allclose(grads[name], t.grad.numpy(), rtol=1e-12, atol=1e-14,
                                   err_msg=name)


def _error(text: str, **kw) -> ProgramError:
    start = time.perf_counter()
    with pytest.raises(ProgramError) as caught:
        parse(text, **kw)
    assert time.perf_counter() - start < 1.0   # refused before anything big is built
    return caught.value


# ---- micrograd's methods -------------------------------------------------------------------
METHODS = "a = 0.7\nb = -0.4\nc = (a * b).relu()\nd = a.tanh()\ne = (d + c).exp()\n" \
          "f = e.log()\ng = b.sigmoid()\nL = f * g + c\n"
FUNCTIONS = "a = 0.7\nb = -0.4\nc = relu(a * b)\nd = tanh(a)\ne = exp(d + c)\n" \
            "f = log(e)\ng = sigmoid(b)\nL = f * g + c\n"


def test_methods_make_the_ir_of_the_functions():
    assert _ir(METHODS) == _ir(FUNCTIONS)


def test_methods_have_pytorchs_numbers():
    t = _torch_leaves(a=0.7, b=-0.4)
    c = (t["a"] * t["b"]).relu()
    e = (t["a"].tanh() + c).exp()
    _assert_torch(METHODS, e.log() * t["b"].sigmoid() + c, t)


def test_a_methods_node_spans_the_whole_call():
    program = parse("a = 0.7\nb = -0.4\nc = (a * b).relu()\nd = a.sum(axis=0)\n")
    relu, total = program.nodes[program.names["c"]], program.nodes[program.names["d"]]
    assert (relu.op, relu.span.line, relu.span.col, relu.span.end_col) == ("relu", 3, 4, 18)
    assert (total.op, total.params, total.span.col, total.span.end_col) == \
        ("sum", {"axis": 0}, 4, 17)


def test_methods_chain():
    assert _ir("a = 0.5\nb = a.tanh().exp().relu()\n") == _ir("a = 0.5\nb = relu(exp(tanh(a)))\n")


@pytest.mark.parametrize("text,name,col,hint", [
    ("a = 1.0\nb = a.foo()\n", "foo", 6, ".relu(), .sigmoid(), .silu()"),
    ("a = 1.0\nb = (a * a).backward()\n", "backward", 12, "runs the backward pass itself"),
    ("a = [1.0, 2.0]\nb = a.maximum(a)\n", "maximum", 6, ".log(), .log_softmax()"),
])
def test_a_method_the_language_lacks_is_refused_by_name(text, name, col, hint):
    e = _error(text)
    assert (e.kind, e.line, e.col, e.end_col) == ("unsupported", 2, col, col + len(name))
    assert f"`.{name}()`" in e.message and hint in e.hint


# ---- tuple unpacking -----------------------------------------------------------------------
def test_tuple_unpacking_is_one_line_per_name():
    assert _ir("a, b = 1.0, 2.0\nc = a * b\n") == _ir("a = 1.0\nb = 2.0\nc = a * b\n")
    assert _ir("a = 1.0\nb, c = a * 2.0, a + 1.0\nL = b * c\n") == \
        _ir("a = 1.0\nb = a * 2.0\nc = a + 1.0\nL = b * c\n")


def test_a_swap_reads_the_right_side_first():
    text = "x, y = 3.0, 5.0\nx, y = y, x - y\nL = x * 10.0 + y\n"
    program = parse(text)
    assert program.nodes[program.names["x"]].label == "y"   # x names y's leaf, as `x = y`
    t = _torch_leaves(x=3.0, y=5.0)
    x, y = t["y"], t["x"] - t["y"]
    _assert_torch(text, x * 10.0 + y, t)
    value, _ = _result(text)
    assert value == 48.0   # 5 * 10 + (3 - 5)


def test_each_name_of_a_tuple_is_a_statement_of_its_own():
    program = parse("a = 1.0\nb, c = a * 2.0 + 1.0, a * 3.0 + 1.0\n")
    assert [(g["kind"], g["name"], g["first"], g["end"]) for g in groups(program)] == [
        ("statement", "b", 1, 5), ("statement", "c", 5, 9)]


@pytest.mark.parametrize("text,kind,line,col", [
    ("a, b = 1.0, 2.0, 3.0\n", "unsupported", 1, 0),
    ("a, a = 1.0, 2.0\n", "unsupported", 1, 3),
    ("a = 1.0\na, b = 2.0, 3.0\n", "duplicate_leaf", 2, 0),
    ("a, b[0] = 1.0, 2.0\n", "unsupported", 1, 3),
    ("a, b = b, 1.0\n", "used_before_assignment", 1, 7),   # the right side comes first
    ("a, relu = 1.0, 2.0\n", "unsupported", 1, 3),
])
def test_bad_tuple_assignments_are_located(text, kind, line, col):
    assert_located(_error(text), kind, line, col)


# ---- loops ---------------------------------------------------------------------------------
NEURON = """x = [1.0, -2.0, 0.5]
w = [0.3, -0.7, 1.1]
b = 0.1
s = b
for i in range(3):
    s = s + w[i] * x[i]
h = s.tanh()
y = h
for k in range(1, 7, 2):
    y = y * 0.5 + k
L = y * y
"""
NEURON_BY_HAND = """x = [1.0, -2.0, 0.5]
w = [0.3, -0.7, 1.1]
b = 0.1
s = b
s = s + w[0] * x[0]
s = s + w[1] * x[1]
s = s + w[2] * x[2]
h = tanh(s)
y = h
y = y * 0.5 + 1
y = y * 0.5 + 3
y = y * 0.5 + 5
L = y * y
"""


def test_a_loop_is_its_body_written_out():
    assert _ir(NEURON) == _ir(NEURON_BY_HAND)
    value, grads = _result(NEURON)
    by_hand = _result(NEURON_BY_HAND)
    assert value == by_hand[0] and grads.keys() == by_hand[1].keys()
    for name in grads:
        np.testing.assert_array_equal(grads[name], by_hand[1][name])


def test_a_loop_has_pytorchs_numbers():
    t = _torch_leaves(x=[1.0, -2.0, 0.5], w=[0.3, -0.7, 1.1], b=0.1)
    s = t["b"]
    for i in range(3):
        s = s + t["w"][i] * t["x"][i]
    y = s.tanh()
    for k in range(1, 7, 2):
        y = y * 0.5 + k
    _assert_torch(NEURON, y * y, t)


NESTED = """W = [[0.5, -1.0], [2.0, 0.25], [-0.3, 0.8]]
a = 0.3
for i in range(3):
    for j in range(2):
        a = (a * W[i, j] + i - j).tanh()
L = a * 1.0
"""


def test_nested_loops_have_pytorchs_numbers_and_node_count():
    t = _torch_leaves(W=[[0.5, -1.0], [2.0, 0.25], [-0.3, 0.8]], a=0.3)
    a = t["a"]
    for i in range(3):
        for j in range(2):
            a = (a * t["W"][i, j] + i - j).tanh()
    _assert_torch(NESTED, a * 1.0, t)
    # each of the 6 iterations: W[i, j], *, the constant i, +, the constant j, -, tanh
    assert len(parse(NESTED).nodes) == 2 + 6 * 7 + 2


def test_each_iteration_is_a_group_inside_the_loops():
    found = [(g["kind"], g["name"], g["first"], g["end"])
             for g in groups(parse("x = 0.5\nfor i in range(2):\n    x = x * 2.0 + i\n"))]
    assert found == [("block", "for i in range(2)", 1, 9),
                     ("block", "for i in range(2): i = 0", 1, 5), ("statement", "x'", 1, 5),
                     ("block", "for i in range(2): i = 1", 5, 9), ("statement", "x''", 5, 9)]
    nested = groups(parse(NESTED))
    names = [g["name"] for g in nested if g["kind"] == "block"]
    assert names[:4] == ["for i in range(3)", "for i in range(3): i = 0", "for j in range(2)",
                         "for j in range(2): j = 0"]
    assert names.count("for j in range(2)") == 3


def test_an_empty_range_builds_nothing_and_a_negative_step_counts_down():
    assert _ir("x = 1.0\nfor i in range(0):\n    x = x * 2.0\ny = x * 1.0\n") == \
        _ir("x = 1.0\ny = x * 1.0\n")
    assert _ir("x = 1.0\nfor i in range(2, -1, -1):\n    x = x * i\n") == \
        _ir("x = 1.0\nx = x * 2\nx = x * 1\nx = x * 0\n")


def test_a_loop_counts_each_iteration_against_the_statement_limit():
    text = "x = 1.0\nfor i in range(4):\n    x = x * 2.0\n    x = x + 1.0\n"
    assert len(parse(text, max_statements=10).nodes) == 17   # 1 + 1 + 4 * 2 statements
    e = _error(text, max_statements=9)
    assert (e.kind, e.line, e.col) == ("too_large", 2, 0)
    assert "4 iterations of 2 statements" in e.message and "10 statements" in e.message
    huge = _error("x = 1.0\nfor i in range(10**30):\n    x = x * 2.0\n".replace(
        "10**30", str(10**30)))
    assert (huge.kind, huge.line, huge.col) == ("too_large", 2, 0)
    assert "iterations of 1 statement:" in huge.message   # counted, not "1 statements"
    inner = _error("x = 1.0\nfor i in range(2):\n    for j in range(100000):\n"
                   "        x = x * 2.0\n", max_statements=1000)
    assert (inner.kind, inner.line, inner.col) == ("too_large", 3, 4)


def test_a_loop_over_the_limit_says_the_sum_a_reader_counts():
    # x = 1.0 (1), the `for` line (1), 5 iterations of 2 statements (10): 12, as counted
    text = "x = 1.0\nfor i in range(5):\n    x = x * 2.0\n    x = x + 1.0\n"
    assert len(parse(text, max_statements=12).nodes) == 21   # 12 is the count: it fits
    e = _error(text, max_statements=11)
    assert (e.kind, e.line, e.col) == ("too_large", 2, 0)
    assert e.message == ("this loop runs 5 iterations of 2 statements: by its end the program "
                         "would have run 12 statements (1 before the loop + 1 for the `for` "
                         "line + 5 × 2 in the loop); the limit (max_statements) is 11")
    alone = _error("for i in range(5):\n    x = 2.0\n", max_statements=3)
    assert "would have run 6 statements (1 for the `for` line + 5 × 1 in the loop)" \
        in alone.message   # nothing before it: no "0 before the loop"


def test_the_newcomers_billion_iterations_are_said_as_a_sum():
    e = _error("x = 1.0\nfor i in range(1000000000):\n    x = x * 2.0\n")
    assert (e.kind, e.line, e.col) == ("too_large", 2, 0)
    assert "would have run 1,000,000,002 statements (1 before the loop + 1 for the `for` line " \
        "+ 1,000,000,000 × 1 in the loop); the limit (max_statements) is 120,000" in e.message


RANGE = "range's bounds are int literals, known when the program is read"


@pytest.mark.parametrize("bound, col, said", [
    ("10**9", 15, ": write 1000000000 in place of `10**9`, though the loop would then run "
                  "1,000,000,000 iterations, past the limit (max_statements) of 120,000 "
                  "statements"),
    ("1e9", 15, ": write 1000000000 in place of `1e9`, though the loop would then run "
                "1,000,000,000 iterations, past the limit (max_statements) of 120,000 statements"),
    ("2*3", 15, ": write 6 in place of `2*3`"),   # within the limit: no "though"
    ("0, 2 ** 3 - 1", 18, ": write 7 in place of `2 ** 3 - 1`"),
    ("10**10**10", 15, ": write a number, as in `range(1000)`"),   # never computed
    ("len(x)", 15, ": write a number, as in `range(1000)`"),
    ("n", 15, " (`n` is a name): write a number in its place, as in `range(1000)`"),
])
def test_a_range_bound_that_is_not_a_literal_says_what_to_write(bound, col, said):
    e = _error(f"x = 1.0\nfor i in range({bound}):\n    x = x * 2.0\n")
    assert (e.kind, e.line, e.col) == ("bad_argument", 2, col)
    assert e.message == RANGE + said


@pytest.mark.parametrize("text,kind,line,col", [
    ("n = 3\nx = 1.0\nfor i in range(n):\n    x = x * 2.0\n", "bad_argument", 3, 15),
    ("x = 1.0\nfor i in range(2.0):\n    x = x * 2.0\n", "bad_argument", 2, 15),
    ("x = 1.0\nfor i in range(0, 4, 0):\n    x = x * 2.0\n", "bad_argument", 2, 21),
    ("x = 1.0\nfor i in range(stop=3):\n    x = x * 2.0\n", "bad_argument", 2, 9),
    ("x = 1.0\nfor i in [1, 2]:\n    x = x * 2.0\n", "unsupported", 2, 9),
    ("x = 1.0\nfor i, j in range(2):\n    x = x * 2.0\n", "unsupported", 2, 4),
    ("x = 1.0\nfor i in range(2):\n    i = x * 2.0\n", "unsupported", 3, 4),
    ("x = 1.0\nfor x in range(2):\n    y = x * 2.0\n", "unsupported", 2, 4),
    ("x = 1.0\nfor i in range(2):\n    x = x * 2.0\nelse:\n    x = x\n", "unsupported", 5, 4),
    # comprehensions (sum over a generator, a list comprehension)
    ("w = [0.3, 1.0]\ns = sum(w[i] for i in range(2) if i)\n", "unsupported", 2, 34),
    ("w = [0.3]\ns = sum(w[i] for i in range(0))\n", "bad_argument", 2, 7),
    ("w = [0.3]\nn = 2\ns = sum(w[i] for i in range(n))\n", "bad_argument", 3, 28),
    ("w = [0.3]\ni = 0.5\ns = sum(w[0] * i for i in range(2))\n", "unsupported", 3, 21),
    ("w = [0.3]\nh = [w[0] * i for i in range(65)]\n", "bad_argument", 2, 4),
])
def test_bad_loops_and_comprehensions_are_located(text, kind, line, col):
    assert_located(_error(text), kind, line, col)


def test_an_index_past_the_end_in_a_loop_names_the_iterations_value():
    with pytest.raises(ProgramError) as caught:
        run_trace("x = [1.0]\nfor i in range(2):\n    y = x[i]\n")
    e = caught.value
    assert (e.kind, e.line, e.col) == ("shape", 3, 8)
    assert "y'" in e.message and "index 1 is out of range" in e.message


def test_a_long_loops_iterations_come_in_chunks_of_at_most_64():
    found = groups(parse("x = 0.5\nfor i in range(200):\n    x = x * 0.5 + 1.0\n"))
    children: dict = {}
    for g in found:
        children.setdefault(g["parent"], []).append(g)
    assert max(len(c) for c in children.values()) <= 64
    loop = found[0]
    assert (loop["name"], loop["first"], loop["end"]) == ("for i in range(200)", 1, 801)
    chunks = [(g["name"], g["first"], g["end"]) for g in children[loop["id"]]]
    assert chunks == [("×64 (iterations 1–64)", 1, 257), ("×64 (iterations 65–128)", 257, 513),
                      ("×64 (iterations 129–192)", 513, 769), ("×8 (iterations 193–200)", 769, 801)]
    names = [g["name"] for g in found if g["kind"] == "block"]
    assert names[1] == "for i in range(200): i = 0" and names[-1] == "for i in range(200): i = 199"


@pytest.mark.parametrize("n", [3, 200])
def test_the_answers_size_estimate_bounds_a_loops_trace(n):
    # its groups (a box per iteration, chunks of them) are counted before the walk
    text = f"x = 0.5\nfor i in range({n}):\n    x = x * 0.5 + i\n"
    tracer = Tracer(text, options=Options())
    estimate = sum(budget.per_node(tracer, Limits().inline))
    assert budget.scalar_bound(tracer) >= estimate
    real = len(trace_json(text, options=Options()))
    assert real <= estimate <= 1.5 * real, estimate / real


def test_errors_come_in_the_order_of_the_lines():
    e = _error("x = y\nfor i in range(n):\n    x = x * 2.0\n")
    assert (e.kind, e.line) == ("unknown_name", 1)


# ---- sum over a generator, list comprehensions ----------------------------------------------
SUMS = """x = [1.0, -2.0, 0.5]
w = [0.3, -0.7, 1.1]
b = 0.1
s = sum((w[i] * x[i] for i in range(3)), b)
h = [(s * w[i]).tanh() for i in range(3)]
L = sum(h[k] * x[k] for k in range(2, -1, -1))
"""
SUMS_BY_HAND = """x = [1.0, -2.0, 0.5]
w = [0.3, -0.7, 1.1]
b = 0.1
s = b + w[0] * x[0] + w[1] * x[1] + w[2] * x[2]
h = stack([tanh(s * w[0]), tanh(s * w[1]), tanh(s * w[2])])
L = h[2] * x[2] + h[1] * x[1] + h[0] * x[0]
"""


def test_sum_and_list_comprehensions_are_written_out():
    assert _ir(SUMS) == _ir(SUMS_BY_HAND)


def test_sum_and_list_comprehensions_have_pytorchs_numbers():
    t = _torch_leaves(x=[1.0, -2.0, 0.5], w=[0.3, -0.7, 1.1], b=0.1)
    s = sum((t["w"][i] * t["x"][i] for i in range(3)), t["b"])
    h = torch.stack([(s * t["w"][i]).tanh() for i in range(3)])
    _assert_torch(SUMS, sum(h[k] * t["x"][k] for k in range(2, -1, -1)), t)


def test_a_comprehension_of_two_clauses_and_one_inside_a_loop():
    text = ("W = [[0.5, -1.0], [2.0, 0.25]]\ns = 0.0\nfor i in range(2):\n"
            "    s = s + sum(W[i, j] * j for j in range(2)) * i\n")
    by_hand = ("W = [[0.5, -1.0], [2.0, 0.25]]\ns = 0.0\n"
               "s = s + (W[0, 0] * 0 + W[0, 1] * 1) * 0\ns = s + (W[1, 0] * 0 + W[1, 1] * 1) * 1\n")
    assert _ir(text) == _ir(by_hand)
    both = "W = [[0.5, -1.0], [2.0, 0.25]]\nL = sum(W[i, j] * W[j, i] for i in range(2) for j in range(2))\n"
    t = _torch_leaves(W=[[0.5, -1.0], [2.0, 0.25]])
    _assert_torch(both, sum(t["W"][i, j] * t["W"][j, i] for i in range(2) for j in range(2)), t)


def test_an_inner_comprehension_gives_the_loops_variable_back():
    text = "w = [0.3, -0.7, 1.1]\ns = 0.0\nfor i in range(2):\n" \
           "    s = s + sum(w[i] for i in range(3)) * w[i]\n"
    by_hand = "w = [0.3, -0.7, 1.1]\ns = 0.0\ns = s + (w[0] + w[1] + w[2]) * w[0]\n" \
              "s = s + (w[0] + w[1] + w[2]) * w[1]\n"
    assert _ir(text) == _ir(by_hand)


def test_a_comprehension_counts_its_elements_against_the_statement_limit():
    text = "w = [0.3]\ns = sum(w[0] * i for i in range(8))\n"
    assert len(parse(text, max_statements=10).nodes) == 1 + 8 * 3 + 7
    e = _error(text, max_statements=9)
    assert (e.kind, e.line, e.col) == ("too_large", 2, 7)
    assert "8 elements" in e.message
    huge = _error("w = [0.3]\ns = sum(w[0] for i in range(10**30) for j in range(10**30))\n"
                  .replace("10**30", str(10**30)))
    assert (huge.kind, huge.line, huge.col) == ("too_large", 2, 7)
