"""The commonest lines built in a run, mixed into engine/parse.py's builder (issue 15 §1):
`name = <operator chain>` over bound names and numbers seen before (`x = x * 1.0001 + 0.001`),
in an ASCII program without lifted literals, each statement's nodes, labels, spans and body
entry written in one loop, without the dozen calls a statement costs through statement,
assignment, assign, operator_statement, expression, chain, plain, add and label.

Nothing here refuses anything: a line that is not this shape, or whose target or operand any
check would look at twice (an unbound, reserved, over-long or data name, a number not seen yet,
a label past MAX_LABEL, two statements on a line), is left to the general path before any of
its nodes is kept, so every error is the general path's, raised where it raises it.
tests/engine/test_speed_paths.py compares bodies and errors with the run off.

The run also hands the Tracer the texts it would work out again from the final labels (each
node's formula and binding strength: Program.texts, tests/engine/test_parse_texts.py); a label
changed afterwards (`relabel`) makes the whole hand-over stale.
"""
from __future__ import annotations

import ast
from array import array

from gradwalk.engine.blocks import Statement
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.ir import NO_PARAMS, IRNode
from gradwalk.engine.labels import ATOM, PRINTED, UNARY, print_label, strength
from gradwalk.engine.parse_literals import NUMBER_TYPES as _NUMBERS
from gradwalk.engine.source import Span
from gradwalk.engine.syntax import BINOPS as _OP_NAMES, MAX_LABEL, MAX_NAME, RESERVED, primed

_ASSIGN, _BINOP, _NAME, _CONSTANT = ast.Assign, ast.BinOp, ast.Name, ast.Constant


class RunSyntax:
    """Methods of engine.parse._Builder for runs of operator lines (see the module docstring).
    Uses the builder's nodes, names, numbers, times_assigned, data, loop_values, lifted, moved,
    text, body, last, current, last_line, max_depth and max_nodes, and keeps its formulas,
    strengths, gaps and stale."""

    def operator_run(self, body: list, k: int) -> int:
        """Build body[k], body[k + 1], ... while each is an operator line this module takes,
        each freed once built (as parse's loop frees a statement); returns the index of the
        first statement left to the general path (len(body) when none is).

        A line's plan is made once per distinct text (`x = x * 1.0001 + 0.001` 25,000 times
        is one plan): a one-line statement from column 0 is its text, so its tree, and so its
        plan, are the same wherever the text is repeated; what a plan's nodes depend on
        besides (the names' nodes and labels, the shared numbers) is looked up as it is
        replayed."""
        from gradwalk.engine import parse_expressions   # FAST_CHAIN is read when asked
        if not parse_expressions.FAST_CHAIN or self.lifted or self.moved or \
                not self.text.ascii or self.loop_values or self.max_depth < 1:
            return k
        nodes, names, times, data, out, lines, plans = self.nodes, self.names, \
            self.times_assigned, self.data, self.body, self.text.lines, self.plans
        max_nodes, count, last_line, built = self.max_nodes, len(body), self.last_line, None
        new = _NEW
        while k < count:
            stmt = body[k]
            if type(stmt) is not _ASSIGN:
                break
            line, end_line, end = stmt.lineno, stmt.end_lineno, stmt.end_col_offset
            if line == last_line:   # a second statement on the line: assign refuses it
                break
            col = stmt.col_offset
            if line == end_line and not col:
                text = lines[line - 1][:end]   # the line itself when the statement is all of it
                plan = plans.get(text, _UNSEEN)
                if plan is _UNSEEN:
                    plan = plans[text] = _statement_plan(stmt, lines)
            else:
                plan = _statement_plan(stmt, lines)
            if plan is None or plan[0] in data:   # data is assigned once (parse_data)
                break
            name = plan[0]
            first = len(nodes)
            index = self.replay(plan[1], line, name)
            if index is None:
                break
            names[name] = index
            times[name] = times.get(name, 0) + 1
            built, last_line = (name, line, col), end_line
            span, entry = new(Span), new(Statement)   # their fields set here (_NEW says why)
            span.line = line
            span.col = col
            span.end_line = end_line
            span.end_col = end
            entry.first = first
            entry.end = len(nodes)
            entry.name = name
            entry.span = span
            entry.shape = plan[2]
            out.append(entry)
            if max_nodes is not None and len(nodes) > max_nodes:
                self.last, self.current, self.last_line = name, (line, col), end_line
                raise self.too_many_nodes(stmt)
            body[k] = None   # its syntax tree is done with (parse's loop says why)
            k += 1
        if built is not None:   # as assign leaves them after the last line built
            self.last, self.current, self.last_line = built[0], built[1:], last_line
        return k

    def operator_nodes(self, root: ast.BinOp, name: str | None) -> int | None:
        """The nodes of a binary operator or a left-leaning chain of them over bound names and
        numbers seen before, each number's label one line of at most MAX_LABEL characters,
        as chain makes them (an ASCII program without lifted literals: a span is its tree
        node's columns); the index of the last, named `name`. None, with no node kept, for any
        other expression."""
        found = _plan(root, self.text.lines)
        return None if found is None else self.replay(found[0], root.lineno, name)

    def replay(self, plan: tuple, line: int, name: str | None) -> int | None:
        """The nodes of an expression's plan (_plan) whose first line is `line`: operands left
        to right, each op's node after its right operand's. A name is plain's answer, its
        node; a number a constant node sharing its number's array, its label the source
        text; an op's label print_label's text or, named, the primed name. None, with no
        node kept, when a name is not bound or a number not seen yet.

        What node_texts.node_texts would work out again from the final labels is handed over
        as the nodes are made (Program.texts): each node's binding strength (the plan's), and the
        nodes whose formula is not their label (`written`): the named op's, `label = <its
        printed text>`, and a clipped label's op's, its printed text in full (a constant's
        formula and an unnamed op's are their labels). Those formulas are the Tracer's to
        write: made here, a string a line among the nodes slowed the Tracer's passes over
        them at 100,001 nodes (0.1-0.15 µs a node, the size check's most).
        """
        steps, levels = plan
        nodes, names, numbers = self.nodes, self.names, self.numbers
        start, last, append = len(nodes), steps[-1][1], nodes.append
        new = _NEW
        if len(self.strengths) != start:   # the general path's nodes since the last replay
            self.gap(start)
        index = text = level = None
        at = start   # the next node's index
        for spec, row in steps:
            if type(spec) is str:   # a name
                other = names.get(spec)
                if other is None:
                    return self.give_up(start)
                found = nodes[other]
                right = found.label
                right_level = ATOM if found.name is not None or found.role == "leaf" else \
                    strength(found)
            else:
                key, right, right_level, below, col, end = spec
                shared = numbers.get(key)
                if shared is None:
                    return self.give_up(start)
                first, span, node = line + below, new(Span), new(IRNode)
                span.line = span.end_line = first
                span.col = col
                span.end_col = end
                node.index = at
                node.op = node.role = "const"
                node.inputs = []
                node.span = span
                node.label = right
                node.name = None
                node.params = NO_PARAMS
                node.literal = shared
                append(node)
                other, at = at, at + 1
            if row is None:   # the leftmost operand
                index, text, level = other, right, right_level
                continue
            op, symbol, left_at, right_at, op_level, below, col, end_below, end = row
            if row is last and name is not None:
                label, named, level = primed(name, self.times_assigned.get(name, 0)), name, ATOM
                self.written.append(at)   # its formula `label = ...` is the Tracer's to write
            else:   # print_label's text, without its calls (a long one is its to clip)
                label = f"{f'({text})' if level <= left_at else text}{symbol}" \
                        f"{f'({right})' if right_level <= right_at else right}"
                named, level = None, op_level
                if len(label) > MAX_LABEL:   # the formula is the text in full: the Tracer's
                    label = print_label(op, [nodes[index], nodes[other]], NO_PARAMS)
                    self.written.append(at)
            span, node = new(Span), new(IRNode)
            span.line = line + below
            span.col = col
            span.end_line = line + end_below
            span.end_col = end
            node.index = at
            node.op = op
            node.role = "op"
            node.inputs = [index, other]
            node.span = span
            node.label = label
            node.name = named
            node.params = NO_PARAMS
            node.literal = None
            append(node)
            text, index, at = label, at, at + 1
        self.strengths += levels   # the named op's ATOM last: unnamed, its operator's
        if name is None:
            self.strengths[-1] = level
        return index

    def give_up(self, start: int) -> None:
        """A replay given up: the nodes from `start` and their formulas are not kept."""
        del self.nodes[start:]
        written = self.written
        while written and written[-1] >= start:
            written.pop()

    def relabel(self, index: int, name: str) -> None:
        """Node `index` is called `name` from here on (an alias `L = y`, a function's result
        taken by the caller's name): its label is the name, primed as assigned so far. The
        formulas handed over so far (texts) read its old label: none is handed over."""
        node = self.nodes[index]
        node.name = name
        node.label = primed(name, self.times_assigned.get(name, 0))
        self.stale = True

    def texts(self) -> tuple[array, list, list] | None:
        """Program.texts: (written, strengths, gaps), the general path's nodes as gaps; None
        when a label changed after the texts were worked out, or when the run made no
        node."""
        if self.stale or not self.gaps and not self.strengths:
            return None
        self.gap(len(self.nodes))
        return self.written, self.strengths, self.gaps

    def gap(self, end: int) -> None:
        """The nodes from the last handed over up to `end` have no texts (the general
        path's): Nones, and their range noted (one range with the gap just before it, when a
        replay was given up in between)."""
        start, gaps = len(self.strengths), self.gaps
        if end <= start:
            return
        self.strengths += [None] * (end - start)
        if gaps and gaps[-1][1] == start:
            start = gaps.pop()[0]
        gaps.append((start, end))

    def too_many_nodes(self, stmt: ast.stmt) -> ProgramError:
        """"too_large" at the statement whose nodes took the program over max_nodes, said as
        soon as it is built: a 100,000-line chain was refused only after the whole parse and
        with no line (5.7 s; a review)."""
        return ProgramError("too_large", f"the program makes more than {self.max_nodes:,} "
                            f"nodes by line {stmt.lineno:,}; the limit (max_nodes) is "
                            f"{self.max_nodes:,}", stmt.lineno,
                            self.text.char_col(stmt.lineno, stmt.col_offset),
                            hint="trace a shorter program; the setting is GRADWALK_MAX_NODES")


# Nodes, spans and statements made as object.__new__ with every field set where they are
# made, one statement a field: a class call's way through type.__call__ costs more (Python
# 3.11), and so, by about 0.05 µs a node and its span, does calling the dataclass's own
# __init__ (a frame and its arguments; a tuple assignment builds a tuple). Every field of
# IRNode, Span and Statement is set (tests/engine/test_parse_run.py compares the nodes with
# the general path's).
_NEW = object.__new__
_UNSEEN = object()   # a text whose plan is not made yet (a plan may be None)


def _statement_plan(stmt: ast.Assign, lines: list[str]) -> tuple | None:
    """(target name, its value's _plan, the statement's groups.shape) of `name = <operator
    chain>` whose target needs no refusal (target_name's checks but the loop variable's and
    data's); else None."""
    value, targets = stmt.value, stmt.targets
    if type(value) is not _BINOP or len(targets) != 1 or type(targets[0]) is not _NAME:
        return None
    name = targets[0].id
    if len(name) > MAX_NAME or name[:2] == "__" or name in RESERVED:
        return None
    found = _plan(value, lines)
    return None if found is None else (name, *found)


def _plan(root: ast.BinOp, lines: list[str]) -> tuple[tuple, tuple] | None:
    """What replay makes of a binary operator or a left-leaning chain of them over names and
    numbers, from the tree alone: (steps, the binding strength of each node made, the root
    named): a step per operand, left to right, with the op row of the operator after it
    (None for the leftmost). An operand is a name, or a number's (key, label, binding
    strength, first line below the root's, column, end column); an op row its name,
    PRINTED's row, and its span's lines below the root's and columns; and the statement's
    groups.shape when the root is named. None for any other expression, for a name plain
    would look up (too long, reserved) and for a number whose label is not one line of at
    most MAX_LABEL characters."""
    line, links, node = root.lineno, [], root
    while type(node) is _BINOP:
        links.append(node)
        node = node.left
    head = _operand_plan(node, line, lines)
    if head is None:
        return None
    before = type(head) is str   # the left operand made before the statement
    steps, levels = [(head, None)], [] if before else [head[2]]
    shape = [] if before else ["const", 0]   # groups.structure, as each node is planned
    for k in range(len(links) - 1, -1, -1):
        binop = links[k]
        op = _OP_NAMES.get(type(binop.op))
        right = _operand_plan(binop.right, line, lines)
        if op is None or right is None:
            return None
        steps.append((right, (op, *PRINTED[op], binop.lineno - line, binop.col_offset,
                              binop.end_lineno - line, binop.end_col_offset)))
        if type(right) is str:
            levels.append(PRINTED[op][3])
            shape += (op, 2, before, True)
        else:
            levels += (right[2], PRINTED[op][3])
            shape += ("const", 0, op, 2, before, False)
        before = False
    levels[-1] = ATOM   # the named root: a name binds as an atom
    # groups.shape: a statement of one node (two names) is its op and input count
    return (steps, levels), (shape[0], 2) if len(shape) == 4 else tuple(shape)


def _operand_plan(node: ast.expr, line: int, lines: list[str]):
    """A name's identifier, a number's row (_plan), or None."""
    kind = type(node)
    if kind is _NAME:
        return None if len(node.id) > MAX_NAME or node.id[:2] == "__" else node.id
    if kind is not _CONSTANT or type(node.value) not in _NUMBERS:
        return None
    first, col, end = node.lineno, node.col_offset, node.end_col_offset
    if node.end_lineno != first or end - col > MAX_LABEL:
        return None
    label = lines[first - 1][col:end] or "const"
    return ((type(node.value), node.value), label, UNARY if label[:1] == "-" else ATOM,
            first - line, col, end)
