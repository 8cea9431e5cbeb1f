"""engine/trace/unused.py's find (the nodes warned "unused") against the walk it replaced,
which marked every read input: the same nodes on every preset and on programs with unused
nodes, dead ends, an output before the last node and a chain where every node is used."""
from __future__ import annotations

import pytest

from gradwalk.engine.parse import parse
from gradwalk.engine.trace import unused
from gradwalk.server.presets import presets
from test_fast_paths import SCALAR_PROGRAMS

PROGRAMS = [*(p["program"] for p in presets()), *SCALAR_PROGRAMS,
            "x = 2.0\nc = const(4.0)\ny = x * 3.0\nu = x * c\nL = y + 1.0\n",
            "a = 1.0\nb = 2.0\nd = b * b\ne = d + b\nL = a * 3.0\n",   # a dead chain
            "a = 1.0\nb = a * 2.0\nL = b + 1.0\nz = b * b\n",   # a node after the output
            "p = 1.0\nq = p * p\nr = q * q\nL = p * 2.0\n",   # read only by unused nodes
            "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 300]


def walk_that_marked_every_input(program, output: int) -> list[int]:
    used = [False] * len(program.nodes)
    used[output] = True
    read = [False] * len(program.nodes)
    for node in reversed(program.nodes[:output + 1]):
        for k in node.inputs:
            read[k] = True
            if used[node.index]:
                used[k] = True
    return [n.index for n in program.nodes
            if not used[n.index] and n.role != "const" and (n.name is not None or not read[n.index])]


@pytest.mark.parametrize("text", PROGRAMS)
def test_the_unused_nodes_are_the_full_walks(text):
    program = parse(text)
    for output in {len(program.nodes) - 1, program.names[program.last],
                   len(program.nodes) // 2}:
        assert unused.find(program, output) == walk_that_marked_every_input(program, output)
