"""engine/tape_scalar.py: the one-pass compile of a scalar program gives what the four
separate passes give (order, shapes, requires, the constants as floats), and hands every
other program back to them."""
from __future__ import annotations

import pytest
from hypothesis import given, settings

from gradwalk.engine import tape as tape_module
from gradwalk.engine.graph import creation_order, requires_grad
from gradwalk.engine.parse import parse
from gradwalk.engine.tape import compile as compile_tape
from gradwalk.engine.tape_scalar import scalar_compile
from gradwalk.engine.trace.runner import trace_json
from gradwalk.engine.trace.shape_pass import infer_shapes
from helpers import CASES
from test_random_programs import programs

SCALAR = [
    "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 50,
    "a = 0.5\nb = const(2.0)\nd = detach(a) * b\nL = tanh(a + d) - b\n",
    "a = 2.0\nb = a * a * a + a\nc = const(3.0)\nL = b * c - c\n",
    "x = 0.0\nz = 1e-200\na = 1.0 / x\nb = x / x\nL = a + b + z * z\n",
    "w = 0.3\nL = relu(w) + sigmoid(-w) ** 2 + abs(w - 1)\n",
]
OTHER = [
    "x = [1.0, 2.0]\nL = sum(x * x)\n",             # a tensor literal
    "# dtype: float32\nx = 1.5\nL = x * x\n",        # float32 values are numpy's
    "x = 1.5\nwith no_grad():\n    y = x * 2\nL = x * y\n",   # a no_grad body
    "x = 2.0\nL = sum(x)\n",                        # an op that is not elementwise
    "a = 0.5\nm = where(a > 0.1, a, 0.1 * a)\n",     # where (its comparison requires none)
]


def separate(program):
    """What compile worked out before the fused pass: the four passes, one by one."""
    tape = tape_module.Tape(program, 0, infer_shapes(program, 10**9), requires_grad(program),
                            creation_order(program))
    return tape.order, tape.shapes, tape.requires, tape.base


def same_values(a: list, b: list) -> bool:
    return len(a) == len(b) and all(type(x) is type(y) and (x == y or x != x and y != y)
                                    for x, y in zip(a, b))


@pytest.mark.parametrize("text", SCALAR)
def test_the_one_pass_compile_is_the_four_passes(text):
    program = parse(text)
    fused = scalar_compile(program)
    assert fused is not None
    order, shapes, requires, base = separate(program)
    assert fused[0] == order and fused[1] == shapes and fused[2] == requires
    assert same_values(fused[3], base)
    assert all(type(v) is float for v, n in zip(fused[3], program.nodes) if n.literal is not None)


def test_requires_grad_follows_the_rule_through_cuts():
    program = parse(SCALAR[1])
    requires = dict(zip((n.label for n in program.nodes), scalar_compile(program)[2]))
    assert requires["a"] and not requires["b"] and requires["L"]
    assert not requires["detach(a)"] and not requires["d"]


@pytest.mark.parametrize("text", OTHER)
def test_any_other_program_is_left_to_the_passes(text):
    assert scalar_compile(parse(text)) is None


@pytest.mark.parametrize("text", SCALAR + OTHER + [c["program"] for c in CASES])
def test_the_body_is_the_same_without_the_one_pass(text, monkeypatch):
    fused = trace_json(text)
    monkeypatch.setattr(tape_module, "scalar_compile", lambda program: None)
    assert trace_json(text) == fused


@settings(max_examples=40, deadline=None)
@given(programs())
def test_random_programs_compile_alike_both_ways(text):
    program = parse(text)
    fused = scalar_compile(program)
    if fused is None:
        return
    order, shapes, requires, base = separate(program)
    assert (fused[0], fused[1], fused[2]) == (order, shapes, requires)
    assert same_values(fused[3], base)
    assert compile_tape(program).requires == requires


def test_node_ids_are_made_once_and_shared():
    from gradwalk.engine import graph

    assert graph.node_ids(3) == ["n0", "n1", "n2"] and graph.node_ids(0) == []
    a, b = graph.node_ids(5_000), graph.node_ids(4_000)
    assert a[4_999] == "n4999" and a[:4_000] == b and a[17] is b[17]   # the same strings
    assert graph.node_ids(graph._KEPT_IDS + 2)[-1] == f"n{graph._KEPT_IDS + 1}"
    assert len(graph._IDS) <= graph._KEPT_IDS
