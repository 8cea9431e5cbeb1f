"""The graph's groups: boxes the page may collapse into one, as TensorBoard's graph view collapses
a name scope (docs/trace-format.md, "Groups").

- statement: the nodes of one statement that makes two or more (`y = tanh(x @ W + b)`);
- block: the body of a `with group("layer1"):` (engine/blocks.py);
- repeat: a run of three or more consecutive statements of one body with the same structure
  (the same ops wired the same way; names and constants do not count), such as 2,500 lines
  of `x = x * 1.0001 + 0.001`; a leaf's declaration (`a = 1.0`) is not one, and ends a
  run. A run of more than MAX_CHILDREN statements is cut into chunks of at most MAX_CHILDREN
  (and chunks of chunks), so no box holds more than MAX_CHILDREN statements or boxes.

Each group is the run of nodes [first, end) in creation order: the parser makes a statement's
nodes, and a `with` body's, one after another. The list is laminar (two groups are nested or
disjoint) and in pre-order, so sorted by (first, -end) with a parent before a child of the same
range. One pass over the statements and the nodes they made: linear time.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.blocks import Block, Statement

if TYPE_CHECKING:
    from engine.parse import IRNode, Program, Span
    from engine.source import Lines

MAX_CHILDREN = 64   # statements or boxes in one repeat group
MIN_REPEAT = 3      # statements that make a repeat
MAX_NAME = 60       # characters of a statement's text in a repeat's name


def groups(program: Program) -> list[dict]:
    """The graph's `groups`, each {id, kind, name, first, end, parent, span} (`span` a Span, as
    a node's; ids "g0", "g1", ... in list order). [] for a program with none (and for a
    program not read from text, such as hvp mode's backward graph)."""
    walk = _Walk(program.nodes, program.lines)
    walk.body(program.body, None)
    return walk.out


class _Walk:
    """Appends the groups of a body, parents before children."""

    def __init__(self, nodes: list[IRNode], lines: Lines | None):
        self.nodes = nodes
        self.lines = lines
        self.out: list[dict] = []

    def add(self, kind: str, name: str, first: int, end: int, parent: str | None, span: Span
            ) -> str:
        """Append a group; its id. The span is written as a dict: orjson writes a dict several
        times faster than a dataclass, and a 25,000-line program has 25,000 groups."""
        gid = f"g{len(self.out)}"
        self.out.append({"id": gid, "kind": kind, "name": name, "first": first, "end": end,
                         "parent": parent, "span": {"line": span.line, "col": span.col,
                                                    "end_line": span.end_line,
                                                    "end_col": span.end_col}})
        return gid

    def body(self, items: list, parent: str | None) -> None:
        """A body's statements (runs of alike ones as repeats) and blocks, in order."""
        run: list[Statement] = []   # the current run of statements with one structure
        key, nodes = None, self.nodes
        for item in items:
            if type(item) is Block:
                self.run(run, parent)
                run, key = [], None
                self.block(item, parent)
            elif item.end > item.first:   # `y = x` makes no node: no box, no break in a run
                # a leaf's declaration is not repeated work: it ends a run
                new = (None if item.end - item.first == 1 and nodes[item.first].role != "op"
                       else structure(nodes, item.first, item.end))
                if new != key or new is None:
                    self.run(run, parent)
                    run, key = [], new
                run.append(item)
        self.run(run, parent)

    def block(self, block: Block, parent: str | None) -> None:
        """A `with group(...)` body is a box; a checkpoint or no_grad body is not (its
        statements are still a body of their own)."""
        if block.kind == "group" and block.end > block.first:
            parent = self.add("block", block.name, block.first, block.end, parent, block.extent)
        self.body(block.body, parent)

    def run(self, run: list[Statement], parent: str | None) -> None:
        """Statements of one structure: a repeat group when there are MIN_REPEAT or more."""
        if len(run) < MIN_REPEAT:
            for s in run:
                self.statement(s, parent)
            return
        gid = self.add("repeat", f"{self.text(run[0].span)} ×{len(run)}", run[0].first,
                       run[-1].end, parent, _across(run[0].span, run[-1].span))
        self.chunks(run, 0, len(run), gid)

    def chunks(self, run: list[Statement], a: int, b: int, parent: str) -> None:
        """run[a:b] under `parent`: the statements themselves when there are at most
        MAX_CHILDREN, else chunks of MAX_CHILDREN ** k statements (k as small as leaves at most
        MAX_CHILDREN of them), each a repeat group of its own; a chunk of one statement is that
        statement."""
        if b - a <= MAX_CHILDREN:
            for s in run[a:b]:
                self.statement(s, parent)
            return
        size = MAX_CHILDREN
        while (b - a) > size * MAX_CHILDREN:
            size *= MAX_CHILDREN
        for c in range(a, b, size):
            e = min(c + size, b)
            if e - c == 1:
                self.statement(run[c], parent)
                continue
            gid = self.add("repeat", f"×{e - c} (statements {c + 1}–{e})", run[c].first,
                           run[e - 1].end, parent, _across(run[c].span, run[e - 1].span))
            self.chunks(run, c, e, gid)

    def statement(self, s: Statement, parent: str | None) -> None:
        if s.end - s.first >= 2:
            self.add("statement", s.name, s.first, s.end, parent, s.span)

    def text(self, span: Span) -> str:
        """A statement's source text, on one line and at most MAX_NAME characters."""
        if self.lines is None:
            return ""
        line = self.lines.line(span.line)
        end = span.end_col if span.end_line == span.line else len(line)
        text = " ".join(line[span.col:min(end, span.col + 4 * MAX_NAME)].split())
        if len(text) > MAX_NAME or end - span.col > 4 * MAX_NAME or span.end_line > span.line:
            text = text[:MAX_NAME - 1].rstrip() + "…"
        return text


def structure(nodes: list[IRNode], first: int, end: int) -> tuple:
    """What two statements share when they repeat: each node's op and input count, and which
    inputs were made before the statement. Names and constants' values are left out, so
    `x = x * 1.0001 + 0.001` and `y = z * 2 + 3` are alike.

    That fixes the wiring inside the statement too: the parser makes an expression's nodes in
    post-order from a stack of operands (engine/parse.py `expression`), each node used once
    within it, so a node's inputs made in the statement are the latest unused ones. Cheaper
    than their positions (a 100,000-node chain is in the speed benchmark).
    """
    run = nodes[first:end]
    return (tuple([(n.op, len(n.inputs)) for n in run]),
            tuple([k < first for n in run for k in n.inputs]))


def _across(a: Span, b: Span):
    """The span from the start of `a` to the end of `b`."""
    return type(a)(a.line, a.col, b.end_line, b.end_col)
