"""The ReLU units of a program written with scalars (issue 15 §2): which 0-d relu nodes are one
unit seen on different samples.

Seed 003_70db1bc89ad395af.txt ("A network to train") writes its hidden layer as
`hid = [(W1[2*i] * x0 + W1[2*i + 1] * x1 + b1[i]).relu() for i in range(4)]` inside
`for (x0, x1), y in zip(X, Y):`, inside `def forward(ps):`. Unrolled (engine/parse_unroll.py,
engine/parse_comprehensions.py, engine/parse_functions.py) that is 16 relu nodes with one
source span: 4 loop iterations (the samples), each making 4 (the units). The tensor program
says the same with one relu node of shape (4, 4), samples on the leading axis.

The rule: relu nodes are one *site* when they share their span and the spans of the blocks
around them (a loop iteration's block has its loop's span, a call's block its call's, so one
function called at two places is two sites: two layers). The blocks of a site's nodes part at
one depth, the outermost where they differ: each block there is a **sample** (an iteration
of the loop, a call of the function), and the k-th node of the site a sample makes is its
unit k. Nodes that never part (no loop or call around them, or one iteration) are one
sample. A site whose samples make different numbers of nodes, or whose nodes stand at
different depths, is no layout of units, and is not watched; a site of one node (a line
written out by hand per sample and unit, as bench/train.py's scalar XOR) cannot tell samples
from units, and is not watched either.

Limitation: the outermost loop or call is taken as the samples. A program that loops over
its units outside its loop over samples would be read the other way round.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from gradwalk.engine.blocks import Block
from gradwalk.engine.parse import Program


@dataclass(frozen=True, slots=True)
class ScalarUnit:
    """One unit: `nodes` its relu node on each sample, in creation order (the first stands for
    it in a report); `name` what the graph calls it (the list its values are stacked into,
    `hid`, else the name its relu is assigned to, else the first node's label); `unit` its
    position among the units of a sample (the index into that list)."""

    name: str
    unit: int
    nodes: tuple[int, ...]


def scalar_units(program: Program, relus: list[int]) -> list[ScalarUnit]:
    """The units the 0-d relu nodes `relus` (indices into program.nodes) make, by the rule
    of the module docstring, ordered by their first node. [] when none is a unit."""
    if len(relus) < 2:
        return []
    relus = sorted(relus)
    paths = _block_paths(program.body, relus)
    sites: dict[tuple, list[int]] = {}
    for i in relus:
        key = (_span(program.nodes[i].span), tuple(_span(b.span) for b in paths[i]))
        sites.setdefault(key, []).append(i)
    units, stacked = [], _stacked_into(program, relus)
    for nodes in sites.values():
        if len(nodes) > 1:
            units += _site_units(program, stacked, nodes, [paths[i] for i in nodes])
    return sorted(units, key=lambda u: u.nodes[0])


def _span(span) -> tuple[int, int, int, int]:
    return (span.line, span.col, span.end_line, span.end_col)


def _block_paths(body: list, relus: list[int]) -> dict[int, tuple[Block, ...]]:
    """Each relu's blocks, outermost first. Blocks are runs [first, end) of creation order,
    nested as written, so a block holding no relu is skipped without reading its body."""
    paths: dict[int, tuple[Block, ...]] = dict.fromkeys(relus, ())
    todo = [(body, ())]
    while todo:
        items, path = todo.pop()
        for item in items:
            if type(item) is not Block:
                continue
            lo, hi = bisect_left(relus, item.first), bisect_left(relus, item.end)
            if lo == hi:
                continue
            inner = path + (item,)
            for i in relus[lo:hi]:
                paths[i] = inner
            todo.append((item.body, inner))
    return paths


def _site_units(program: Program, stacked: dict[int, int], nodes: list[int], paths: list[tuple]
                ) -> list[ScalarUnit]:
    """The units of one site (its nodes in creation order, each node's blocks)."""
    depth = _parting_depth(paths)
    samples: dict[int, list[int]] = {}   # the sample's block (by id) -> its nodes, in order
    for i, path in zip(nodes, paths):
        if depth is not None and len(path) <= depth:
            return []   # a node beside the samples' blocks, not in one
        samples.setdefault(id(path[depth]) if depth is not None else 0, []).append(i)
    rows = list(samples.values())
    if len({len(r) for r in rows}) != 1:
        return []
    columns = [tuple(r[u] for r in rows) for u in range(len(rows[0]))]
    return [ScalarUnit(_name(program, stacked, list(c), u), u, c) for u, c in enumerate(columns)]


def _parting_depth(paths: list[tuple]) -> int | None:
    """The outermost depth at which the paths hold different blocks (or one path ends and
    another goes on); None when they never do (every node in the same blocks: one sample)."""
    shortest, first = min(len(p) for p in paths), paths[0]
    for depth in range(max(len(p) for p in paths)):
        if depth >= shortest or any(p[depth] is not first[depth] for p in paths):
            return depth
    return None


def _name(program: Program, stacked: dict[int, int], nodes: list[int], unit: int) -> str:
    """What a student finds in the graph for the unit: the list its values are stacked into
    (`hid = [... .relu() for i in range(4)]`: "hid", the unit its index), when each sample's
    node is element `unit` of a stack of one name; else the name the relu is assigned to;
    else the first node's label. stacked: node -> the stack node that reads it."""
    stacks = [stacked.get(i) for i in nodes]
    names = {program.nodes[s].name for s in stacks if s is not None}
    if None not in stacks and len(names) == 1 and None not in names and all(
            program.nodes[s].inputs.index(i) == unit for s, i in zip(stacks, nodes)):
        return names.pop()
    first = program.nodes[nodes[0]]
    return first.name or first.label


def _stacked_into(program: Program, relus: list[int]) -> dict[int, int]:
    """Each relu of `relus` a stack node reads (a list comprehension's element) -> that stack
    node (the first, when several do), from one pass over the nodes."""
    wanted, found = set(relus), {}
    for node in program.nodes:
        if node.op == "stack":
            for k in node.inputs:
                if k in wanted and k not in found:
                    found[k] = node.index
    return found
