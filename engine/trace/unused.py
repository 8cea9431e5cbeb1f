"""Nodes the output does not depend on (issue 14, section 4): they get no gradient, and the
page would show "no gradient yet" at Done with no word why. Each such node is warned about
once at its place ("unused", docs/trace-format.md "Warnings"): `P = softmax(Z)` beside
`L = cross_entropy(Z, 0)` is not used by L.

A node is unused when no path of inputs leads from it to the output. Only the nodes a reader
names (an assignment) and the dead ends (nodes nothing reads) are warned about, so a statement
is named once, not once per operation in it; constants never get a gradient and are left out.
"""
from __future__ import annotations

from gradwalk.engine.parse import Program
from gradwalk.engine.source import clip
from gradwalk.engine.trace import warn


def find(program: Program, output: int) -> list[int]:
    """The indices of the unused nodes to warn about, in creation order.

    `read` is only asked of an unused node, and a node a used node reads is used: so it is
    set by the unused readers alone, and when every node is used (a chain: one count in C)
    no node is looked at again."""
    nodes = program.nodes
    used = [False] * len(nodes)
    used[output] = True
    read = [False] * len(nodes)
    for node in reversed(nodes[:output + 1]):   # inputs come before their consumers
        ins = node.inputs
        if not ins:
            continue
        if used[node.index]:
            for k in ins:
                used[k] = True
        else:
            for k in ins:
                read[k] = True
    if not used.count(False):
        return []
    return [n.index for n in nodes
            if not used[n.index] and n.role != "const" and (n.name is not None or not read[n.index])]


def warn_unused(warnings, program: Program, output: int, ids: list[str],
                formulas: list[str]) -> None:
    """An "unused" warning at each node of find(): "P = softmax(Z) (line 2, col 1) is not used
    by L: it does not reach the output, so it gets no gradient" (a leaf's gradient is 0)."""
    out = clip(program.nodes[output].label)
    for i in find(program, output):
        node = program.nodes[i]
        gets = "its gradient is 0" if node.role == "leaf" else "it gets no gradient"
        warnings.add("unused", f"{clip(formulas[i])} ({warn.where(node.span)}) is not used by "
                     f"{out}: it does not reach the output, so {gets}", ids[i], span=node.span)
