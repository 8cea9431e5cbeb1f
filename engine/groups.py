"""The graph's groups: boxes the page may collapse into one, as TensorBoard's graph view collapses
a name scope (docs/trace-format.md, "Groups").

- statement: the nodes of one statement that makes two or more (`y = tanh(x @ W + b)`), named
  by the label of the node it assigns (x⁽²⁴⁹⁷⁾ for the 2,497th reassignment of x);
- part: a consecutive range of at most MAX_CHILDREN nodes of a statement that makes more
  (`L = x * 1 + x * 2 + ... + x * 200`); whole terms of a flat sum or product when it is one;
- block: the body of a `with group("layer1"):` (engine/blocks.py), a `for` loop and each of
  its iterations (engine/parse_unroll.py; more than MAX_CHILDREN iterations in chunks);
- repeat: three or more repetitions, one after another in one body, of a cycle of 1 to
  MAX_PERIOD statements with the same structure (the same ops wired the same way; names and
  constants do not count): 2,500 lines of `x = x * 1.0001 + 0.001`, or `x = tanh(x)`,
  `x = x * w`, `x = x + a` over and over. A leaf's declaration (`a = 1.0`) is never part of
  one. Each repetition of a cycle of two or more statements is a repeat group of its own.
  More than MAX_CHILDREN statements, repetitions or parts are cut into chunks of at most
  MAX_CHILDREN (and chunks of chunks), so no box holds more than MAX_CHILDREN boxes or nodes
  of its own.

Each group is the run of nodes [first, end) in creation order: the parser makes a statement's
nodes, and a `with` body's, one after another. The list is laminar (two groups are nested or
disjoint) and in pre-order, so sorted by (first, -end) with a parent before a child of the same
range. Linear time: one pass over the statements and the nodes they made, and for each period
one comparison of the statements' structures with those a period later (in C: bytes, re).
"""
from __future__ import annotations

import operator
import re
from typing import TYPE_CHECKING, Callable

from gradwalk.engine.clip import clip
from gradwalk.engine.blocks import Block, Statement

if TYPE_CHECKING:
    from gradwalk.engine.ir import IRNode, Program
    from gradwalk.engine.source import Lines, Span

MAX_CHILDREN = 64   # boxes, or nodes of its own, in one repeat or statement group
MIN_REPEAT = 3      # repetitions that make a repeat
MAX_PERIOD = 8      # statements in the longest cycle a repeat finds
MAX_NAME = 60       # characters of a statement's (or a cycle's) text in a repeat's name
_SUMS, _PRODUCTS = frozenset(("add", "sub")), frozenset(("mul", "div"))


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
        self.kinds: dict[tuple, int] = {}   # a statement's structure -> a small number

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

    # ---- bodies and repeats ------------------------------------------------------------------
    def body(self, items: list, parent: str | None) -> None:
        """A body's blocks, and the statements between them (repeats found in each stretch)."""
        stretch: list[Statement] = []
        for item in items:
            if type(item) is Block:
                self.stretch(stretch, parent)
                stretch = []
                self.block(item, parent)
            elif item.end > item.first:   # `y = x` makes no node: no box, no break in a run
                stretch.append(item)
        self.stretch(stretch, parent)

    def block(self, block: Block, parent: str | None) -> None:
        """A `with group(...)` body is a box; a checkpoint or no_grad body is not (its
        statements are still a body of their own)."""
        if block.kind == "group" and block.end > block.first:
            parent = self.add("block", block.name, block.first, block.end, parent, block.extent)
        if block.loop and len(block.body) > MAX_CHILDREN and block.end > block.first:
            steps = block.body   # its iterations, in chunks as a repeat's are

            def chunk(a: int, b: int, up: str) -> str:   # iterations a..b-1
                return self.add("repeat", f"×{b - a} (iterations {a + 1}–{b})", steps[a].first,
                                steps[b - 1].end, up, steps[a].extent)
            self.chunks(steps, 0, len(steps), parent, self.blocks, chunk)
            return
        self.body(block.body, parent)

    def stretch(self, stmts: list[Statement], parent: str | None) -> None:
        """Statements with no block between them: the repeats `cycles` finds, and the
        statements outside them."""
        done = 0
        for start, stop, period in cycles(self.numbers(stmts)):
            self.statements(stmts[done:start], parent)
            self.repeat(stmts[start:stop], period, parent)
            done = stop
        self.statements(stmts[done:], parent)

    def numbers(self, stmts: list[Statement]) -> list[int]:
        """A number for each statement's structure; a leaf's declaration gets one of its own
        (-1 - its position), so it matches nothing. A line the parser's run made carries its
        key (`shape`, the same for every line of its plan: engine/parse_run.py), so the
        100,000-statement chain of the speed benchmark makes no call a statement."""
        nodes, kinds, out = self.nodes, self.kinds, []
        for k, s in enumerate(stmts):
            key = s.shape
            if key is None:
                key = shape(nodes, s.first, s.end)
                if key is None:
                    out.append(-1 - k)
                    continue
            number = kinds.get(key)
            if number is None:
                number = kinds[key] = len(kinds)
            out.append(number)
        return out

    def repeat(self, stmts: list[Statement], period: int, parent: str | None) -> None:
        """A run of len(stmts) // period repetitions of a cycle of `period` statements."""
        count = len(stmts) // period
        text = clip("; ".join(self.text(s.span) for s in stmts[:period]), MAX_NAME)
        gid = self.add("repeat", f"{text} ×{count}", stmts[0].first, stmts[-1].end, parent,
                       _across(stmts[0].span, stmts[-1].span))
        if period == 1:
            units, emit, word = stmts, self.statements, "statements"
        else:
            units = [stmts[k:k + period] for k in range(0, len(stmts), period)]
            emit, word = self.repetitions, "cycles"

        def chunk(a: int, b: int, up: str) -> str:   # repetitions a..b-1
            s, t = stmts[a * period], stmts[b * period - 1]
            return self.add("repeat", f"×{b - a} ({word} {a + 1}–{b})", s.first, t.end, up,
                            _across(s.span, t.span))
        self.chunks(units, 0, count, gid, emit, chunk)

    def repetitions(self, runs: list[list[Statement]], parent: str) -> None:
        """Repetitions of a cycle, each a repeat group of its statements named by the first
        and last labels they assign ("x⁽⁴⁾ … x⁽⁶⁾")."""
        for stmts in runs:
            up = self.add("repeat", f"{self.label(stmts[0])} … {self.label(stmts[-1])}",
                          stmts[0].first, stmts[-1].end, parent,
                          _across(stmts[0].span, stmts[-1].span))
            self.statements(stmts, up)

    def blocks(self, blocks: list[Block], parent: str | None) -> None:
        for block in blocks:
            self.block(block, parent)

    def chunks(self, units: list, a: int, b: int, parent: str, emit: Callable,
               chunk: Callable) -> None:
        """units[a:b] under `parent`: the units themselves (emit(run of units, parent)) when
        there are at most MAX_CHILDREN, else chunks of MAX_CHILDREN ** k units (k as small as
        leaves at most MAX_CHILDREN of them), each a group chunk(a, b, parent) of its own; a
        chunk of one unit is that unit."""
        if b - a <= MAX_CHILDREN:
            emit(units[a:b], parent)
            return
        size = MAX_CHILDREN
        while (b - a) > size * MAX_CHILDREN:
            size *= MAX_CHILDREN
        for c in range(a, b, size):
            e = min(c + size, b)
            if e - c == 1:
                emit(units[c:e], parent)
            else:
                self.chunks(units, c, e, chunk(c, e, parent), emit, chunk)

    # ---- statements and their parts ----------------------------------------------------------
    def statements(self, stmts: list[Statement], parent: str | None) -> None:
        """A group for each statement that makes two or more nodes, named by self.label(s),
        and its parts. One loop, add() written out: one a statement of the chain (issue 15
        §1)."""
        nodes, out = self.nodes, self.out
        for s in stmts:
            first, end, span = s.first, s.end, s.span
            if end - first < 2:
                continue
            node = nodes[end - 1]
            name = node.label if node.name == s.name else s.name
            gid = f"g{len(out)}"
            out.append({"id": gid, "kind": "statement", "name": name, "first": first,
                        "end": end, "parent": parent,
                        "span": {"line": span.line, "col": span.col, "end_line": span.end_line,
                                 "end_col": span.end_col}})
            if end - first > MAX_CHILDREN:
                self.parts(s, name, gid)

    def parts(self, s: Statement, name: str, parent: str) -> None:
        """The statement's nodes in parts of at most MAX_CHILDREN: whole terms when it is a
        flat sum or product ("L: terms 1–21"), else ranges of nodes ("L: nodes 1–64",
        counted within the statement)."""
        parts = self.term_parts(s, name) or [
            (k, min(k + MAX_CHILDREN, s.end), f"{name}: nodes {k - s.first + 1}–"
             f"{min(k + MAX_CHILDREN, s.end) - s.first}", self.extent(k, k + MAX_CHILDREN))
            for k in range(s.first, s.end, MAX_CHILDREN)]
        self.chunks(parts, 0, len(parts), parent,
                    lambda run, up: [self.add("part", p[2], p[0], p[1], up, p[3]) for p in run],
                    lambda a, b, up: self.add("part", _joined(parts[a][2], parts[b - 1][2]),
                                              parts[a][0], parts[b - 1][1], up,
                                              _across(parts[a][3], parts[b - 1][3])))

    def term_parts(self, s: Statement, name: str) -> list[tuple] | None:
        """(first, end, name, span) of runs of whole terms of at most MAX_CHILDREN nodes each
        when the statement is a flat sum (`a + b - c + ...`) or product (`a * b / c * ...`)
        of terms of at most MAX_CHILDREN nodes; else None. The parser makes `t1 + t2 + t3`
        as t1, t2, (+), t3, (+): term k+1 is its nodes and the operator after them."""
        nodes = self.nodes
        root = nodes[s.end - 1]
        family = _SUMS if root.op in _SUMS else _PRODUCTS if root.op in _PRODUCTS else None
        links, node = [], root   # the chain's operators, last first
        while (family is not None and node.op in family and len(node.inputs) == 2
               and node.index >= s.first and (node is root or node.name is None)):
            links.append(node)
            node = nodes[node.inputs[0]]
        if len(links) < 2:
            return None
        links.reverse()
        head = links[0].inputs[0]
        ends = [max(head + 1, s.first)] + [link.index + 1 for link in links]
        spans = [links[0].span] + [nodes[link.inputs[1]].span for link in links]
        starts = [s.first] + ends[:-1]
        if any(e - b > MAX_CHILDREN for b, e in zip(starts, ends)):
            return None
        parts, a = [], 0   # terms a.. of the part being filled
        for k in range(1, len(ends) + 1):
            if k == len(ends) or ends[k] - starts[a] > MAX_CHILDREN:
                parts.append((starts[a], ends[k - 1], f"{name}: terms {a + 1}–{k}",
                              _across(spans[a], spans[k - 1])))
                a = k
        return parts

    def extent(self, first: int, end: int) -> Span:
        """The smallest span holding nodes [first, end)'s spans (within the statement)."""
        run = self.nodes[first:end]
        a = min(run, key=lambda n: (n.span.line, n.span.col)).span
        b = max(run, key=lambda n: (n.span.end_line, n.span.end_col)).span
        return _across(a, b)

    def label(self, s: Statement) -> str:
        """The label of the node a statement assigns (its last: the expression's root), as
        the graph shows it: x⁽²⁴⁹⁷⁾, not x."""
        node = self.nodes[s.end - 1]
        return node.label if node.name == s.name else s.name

    def text(self, span: Span) -> str:
        """A statement's source text, on one line and at most MAX_NAME characters."""
        if self.lines is None:
            return ""
        line = self.lines.line(span.line)
        end = span.end_col if span.end_line == span.line else len(line)
        text = " ".join(line[span.col:min(end, span.col + 4 * MAX_NAME)].split())
        return clip(text, MAX_NAME, more=end - span.col > 4 * MAX_NAME or span.end_line > span.line)


def cycles(kinds: list[int]) -> list[tuple[int, int, int]]:
    """(start, stop, period) of the repeats among statements of these structure numbers, in
    order and disjoint: kinds[start:stop] is MIN_REPEAT or more repetitions of a cycle of
    `period` (1 to MAX_PERIOD) statements. Read left to right; where runs of several periods
    start, the one covering the most statements wins, then the shortest period.

    For each period p, the statements equal to the one p later are found in C (a bytes of
    0s and 1s and a regular expression for runs of 2p or more 1s), so the time is linear."""
    found: list[tuple[int, int, int]] = []   # (start, stop, period) of every long enough run
    for p in range(1, MAX_PERIOD + 1):
        if len(kinds) < MIN_REPEAT * p:
            break
        same = bytes(map(operator.eq, kinds, kinds[p:]))
        found += [(m.start(), m.end() + p, p) for m in
                  re.finditer(b"\x01{%d,}" % ((MIN_REPEAT - 1) * p), same)]
    found.sort()
    chosen: list[tuple[int, int, int]] = []
    at, k = 0, 0   # statements before `at` are settled; found[:k] are used up
    while k < len(found):
        at = max(at, found[k][0])
        best = None
        for j in range(k, len(found)):   # runs under way at `at` (a suffix of a run is one)
            start, stop, p = found[j]
            if start > at:
                break
            covered = (stop - at) // p * p
            if covered >= MIN_REPEAT * p and (best is None or covered > best[1] - at or
                                              covered == best[1] - at and p < best[2]):
                best = (at, at + covered, p)
        if best is None:
            at += 1
        else:
            chosen.append(best)
            at = best[1]
        while k < len(found) and found[k][1] - at < MIN_REPEAT * found[k][2]:
            k += 1   # runs with too little left after `at`
    return chosen


def shape(nodes: list[IRNode], first: int, end: int) -> tuple | None:
    """What makes statements [first, end) a repeat of each other (numbers): its structure,
    or for a statement of one node, whose inputs were all made before it, its op and input
    count; None for a leaf's declaration, which repeats nothing."""
    if end - first == 1:
        node = nodes[first]
        return (node.op, len(node.inputs)) if node.role == "op" else None
    return structure(nodes, first, end)


def structure(nodes: list[IRNode], first: int, end: int) -> tuple:
    """What two statements share when they repeat: each node's op and input count, and which
    inputs were made before the statement. Names and constants' values are left out, so
    `x = x * 1.0001 + 0.001` and `y = z * 2 + 3` are alike.

    That fixes the wiring inside the statement too: the parser makes an expression's nodes in
    post-order from a stack of operands (engine/parse.py `expression`), each node used once
    within it, so a node's inputs made in the statement are the latest unused ones. Cheaper
    than their positions (a 100,000-node chain is in the speed benchmark).
    """
    shape: list = []   # op, input count, and per input whether it came before: one loop,
    for n in nodes[first:end]:   # one extend a node (two inputs or none, mostly)
        ins = n.inputs
        if len(ins) == 2:
            shape += (n.op, 2, ins[0] < first, ins[1] < first)
        elif ins:
            shape += (n.op, len(ins), *[k < first for k in ins])
        else:
            shape += (n.op, 0)
    return tuple(shape)


def _joined(first: str, last: str) -> str:
    """The name of a chunk of parts from its first and last parts' names: "L: terms 1–21"
    and "L: terms 1324–1344" give "L: terms 1–1344"."""
    return first[:first.rindex("–") + 1] + last[last.rindex("–") + 1:]


def _across(a: Span, b: Span):
    """The span from the start of `a` to the end of `b`."""
    return type(a)(a.line, a.col, b.end_line, b.end_col)
