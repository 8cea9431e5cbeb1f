"""The body's results and what the walk says beyond its events, for the size estimate
(engine/trace/budget.py): the output and the gradients, each mode's results, the warnings,
the cut paths' sentences, forward mode's kinks, the bug lab's words."""
from __future__ import annotations

import heapq
import itertools
from operator import attrgetter

import numpy as np
import orjson

from gradwalk.engine.groups import groups
from gradwalk.engine.ops import get_op
from gradwalk.engine.trace import warn
from gradwalk.engine.trace.budget_numbers import (CHECK, ELEMENT, FIRST, NUMBERS, RESULTS, SEED,
                                         UNDERFLOW, Numbers, ascii_bytes, known_bytes, elements,
                                         unknown_bytes, value_bytes)


def results(tracer, shapes: list, inline: int, numbers: Numbers | None = None) -> int:
    """The body's results (written once, at its top level): the output (known) and every
    leaf's gradient with full data, and what the mode adds: forward mode's jvp, passes and
    Jacobian, hvp's two H v, the gradient check's per-leaf table, a `# hessian:` line's matrix
    and eigenvalue. `numbers`: what is known of them (budget_numbers.Numbers)."""
    leaves, options = tracer.program.leaves, tracer.options
    names = sum(ascii_bytes(name) + 4 for name in leaves)
    grads = names + sum(value_bytes(shapes[i], None) for i in leaves.values())
    output = known_bytes(tracer.values[tracer.output], None)
    tangents = numbers.tangents if numbers is not None else None
    if numbers is not None and numbers.adjoints is not None:   # known adjoints
        grads = names + sum(known_bytes(_adjoint(numbers.adjoints, tracer.values, i), None)
                            for i in leaves.values())
    total = grads + output + RESULTS + SEED
    if options.mode != "forward":   # the seed's adjoint and words (engine/trace/seed.py)
        out = tracer.values[tracer.output]
        start = tracer.output_grad if tracer.output_grad is not None else \
            1.0 if np.ndim(out) == 0 else np.ones(np.shape(out))
        node = tracer.program.nodes[tracer.output]
        total += known_bytes(start, inline) + SEED_WORDS + 6 * len(node.label.encode()) + \
            len(tracer.symbols[tracer.output].encode()) + 8 * np.ndim(out)
    if options.mode == "forward":   # jvp; every pass's Jacobian, unless there are too many
        from gradwalk.engine.trace.forward_mode import MAX_PASSES

        inputs = sum(elements(shapes[i]) for i in leaves.values())
        outputs = elements(shapes[tracer.output])
        out = tracer.output
        total += (known_bytes(_adjoint(tangents, tracer.values, out), None) if tangents
                  else value_bytes(shapes[out], None)) + RESULTS
        if options.tangents is None and inputs <= MAX_PASSES:
            total += grads + value_bytes((outputs, inputs), None) + RESULTS
    elif options.mode == "hvp":   # hvp (as grads) and hvp_forward_over_reverse (known)
        total += grads + RESULTS + names
        for name, i in leaves.items():
            g = tracer.second.backward.grads[name]
            total += known_bytes(_adjoint(tangents, tracer.values, g), None) if tangents \
                else value_bytes(shapes[i], None)
    if options.check:   # analytic (the gradients), numeric (central differences: unknown)
        numeric = names + sum(value_bytes(shapes[i], None) for i in leaves.values())
        total += grads + numeric + (CHECK + ELEMENT) * len(leaves) + _check_kinks(tracer)
    second = tracer.second
    if second is not None and (second.full or second.power_iteration):
        total += _second_order(leaves, shapes, second.full, second.power_iteration)
    return total


def _adjoint(per_node_values: list, values: list, i: int):
    """Node i's entry of a per-node list (None: zeros of its value's shape)."""
    x = per_node_values[i]
    return x if x is not None else 0.0 if type(values[i]) is float else np.zeros(np.shape(values[i]))


HESSIAN = 120   # the `hessian` and `eigen` objects' field names


def _second_order(leaves: dict, shapes: list, full: bool, steps: int) -> int:
    """`hessian` (n × n numbers and the n inputs' names, `W[0,1]`) and `eigen` (an estimate per
    step, the value, the vector by name) of engine/trace/hvp.py, every number at its longest."""
    n = sum(elements(shapes[i]) for i in leaves.values())
    name = sum(elements(shapes[i]) * (ascii_bytes(k) + 4 + 8 * len(shapes[i]))
               for k, i in leaves.items())   # `W[12,3]` and its quotes and comma
    total = 0
    if full:
        total += HESSIAN + name + n * n * ELEMENT + 2 * n
    if steps:
        total += HESSIAN + (steps + 1) * ELEMENT + name + n * (ELEMENT + 1)
    return total


def extras(tracer, tangents: list | None, marked: bool = True, longest: int | None = None,
           ops: set[str] | None = None) -> int:
    """What the walk says beyond its events' own words: the warnings known now (exactly, with
    the done event's narration of them), the cut paths' sentences (engine/trace/cuts.py),
    forward mode's kinks, and room for the one first_non_finite marker (with an underflow's
    warning) the walk may find, when it may (`marked`: budget_numbers.Numbers). longest: the
    longest label's bytes, or more, when the caller knows it (else worked out here); ops: the
    program's ops, when the caller has them (edge_words)."""
    listed = tracer.warnings.listed() if getattr(tracer, "warnings", None) else []
    kinks_found = _kinks(tracer, tangents) if tracer.options.mode == "forward" else []
    listed += [message for _, message in kinks_found]
    total = edge_words(tracer, ops)
    if marked:   # room for a NaN's or an underflow's marker, warning and words
        if longest is None:
            longest = max(map(len, map(str.encode, map(attrgetter("label"),
                                                       tracer.program.nodes))), default=0)
        total += FIRST + UNDERFLOW + 2 * longest
    if listed:
        total += len(orjson.dumps(listed)) + len(warn.narration(listed).encode()) + 40
    cuts = getattr(tracer, "cuts", None)
    if cuts is not None and cuts.program is tracer.program:
        total += _cut_notes(cuts, tracer.ids, tracer.output)
    return total


# The seed's words without its labels (engine/trace/seed.py narration): the longest of its three
SEED_WORDS = max(len(s.encode()) for s in (
    " starts as the given output_grad v (PyTorch: .backward(gradient=v)): the gradients that "
    "follow are those of sum(v ⊙ )",
    " is a  tensor, not a number:  starts as ones (PyTorch: .backward(torch.ones_like())), so "
    "the gradients that follow are those of sum()",
    " = ∂/∂ = 1: the backward pass starts at the output"))


CHECK_KINK = len("The gradient check of  disagrees at a point where an op has no derivative, "
                 "not because of a wrong gradient: ") + len(',"kink":""') + 120   # the warning's


def _check_kinks(tracer) -> int:
    """The gradient check's words at a kink (gradcheck._explain): at most one per leaf, its
    reason in the leaf's entry, in a warning and in the done event's narration."""
    from gradwalk.engine.trace import kinks

    reasons = [len(kinks.check_reason(n.op, n).encode()) for n in tracer.program.nodes
               if n.op in kinks.TABLE and kinks.at(n.op, tracer.values[n.index],
                                                   tracer._inputs(n), n.params)]
    if not reasons:
        return 0
    return sum(CHECK_KINK + 3 * (max(reasons) + len(name.encode()))
               for name in tracer.program.leaves)


GROUP = len('{"id":"g","kind":"statement","name":"","first":,"end":,"parent":"g","span":'
            '{"line":,"col":,"end_line":,"end_col":}},')


def groups_bound(program, longest: int) -> int:
    """An upper bound of groups_bytes without working the groups out, from the statements
    (engine/groups.py): a statement that makes two or more nodes is one group; one of k >
    MAX_CHILDREN nodes has at most k/30 + 3 parts and chunks of parts (two parts in a row hold
    more than MAX_CHILDREN nodes); a repeat needs MIN_REPEAT repetitions and only a cycle of
    two or more statements gives each repetition a group, so repeats, repetitions and their
    chunks are at most 0.68 of the statements (fewer where every statement repeats one
    structure: _one_structure); a `with group()` block is one. A statement's group is named
    by a label (`longest` bytes at most) or its name (written in a line of the program); any
    other by at most two labels and a few words, or a name of the program's (MAX_NAME
    characters, 4 bytes each in UTF-8) and a few words. Its numbers: ids up to the groups'
    count, node indices, lines and columns of the program's text."""
    from gradwalk.engine.blocks import Block
    from gradwalk.engine.groups import MAX_CHILDREN

    boxes = named = 0
    bodies, runs = [program.body], []   # runs: lists of statements (no block among them)
    while bodies:
        items = bodies.pop()
        if Block not in set(map(type, items)):   # the common case: statements only
            runs.append(items)
            continue
        for item in items:
            if type(item) is not Block:
                runs.append((item,))
                continue
            if item.kind == "group":
                boxes += 1
                named += len(item.name.encode())
                if item.loop:   # its iterations' chunks (engine/groups.py), each named briefly
                    chunks = len(item.body) // (MAX_CHILDREN - 1) + 1
                    boxes, named = boxes + chunks, named + 48 * chunks
            bodies.append(item.body)
    # each statement's node count: a comprehension's attribute reads are specialized (a
    # Python loop was 0.05 µs a node, C-level maps of attrgetter twice this)
    sizes = [s.end - s.first for s in itertools.chain.from_iterable(runs)]
    statements = len(sizes) - sizes.count(0)
    made = statements - sizes.count(1)
    parts = sum(size // 30 + 3 for size in sizes if size > MAX_CHILDREN) \
        if max(sizes, default=0) > MAX_CHILDREN else 0
    repeats = _one_structure(program, runs[0], statements) if runs == [program.body] else None
    others = parts + ((68 * statements) // 100 if repeats is None else repeats)
    lines = program.lines
    ascii_text = lines is None or lines.ascii
    name = max(2 * longest, (1 if ascii_text else 4) * NAME_CHARS) + 40
    # a statement's name is written in the program, so within its longest line; the spans'
    # lines and columns are within its lines
    widest = max(map(len, lines.lines), default=0) if lines is not None else NAME_CHARS
    own = max(longest, (1 if ascii_text else 4) * min(NAME_CHARS, widest))
    count = made + others + boxes
    digits = 2 * len(str(count)) + 2 * len(str(len(program.nodes))) + (
        4 * 7 if lines is None else 2 * len(str(len(lines.lines))) + 2 * len(str(widest)))
    return made * (GROUP + digits + own) + others * (GROUP + digits + name) + \
        boxes * (GROUP + digits) + named + 2   # the list's brackets


def _one_structure(program, stmts: list, statements: int) -> int | None:
    """At most how many repeat groups (a repeat and its chunks, engine/groups.py) the
    program's statements make when they are one stretch (no block among them) whose
    statements all have one structure (groups.shape), but for a few that match nothing
    (a leaf's declaration): then every repeat is of that one statement, period 1, with no
    group per repetition, and there is one per run between those few, each with its chunks
    (k statements: at most k/63 + 4 of them, MAX_CHILDREN a chunk). None otherwise, or when
    more than FEW statements have no structure known from the parse (Statement.shape)."""
    from gradwalk.engine.groups import MIN_REPEAT, shape

    keys = [s.shape for s in stmts]
    unknown = keys.count(None)
    if unknown > FEW:
        return None
    found, apart, at = set(keys), 0, -1
    found.discard(None)
    for _ in range(unknown):   # worked out as engine/groups.py does (few: the first lines)
        at = keys.index(None, at + 1)
        s = stmts[at]
        if s.end > s.first:
            key = shape(program.nodes, s.first, s.end)
            if key is None:
                apart += 1   # matches nothing: it ends a run
            else:
                found.add(key)
    if len(found) > 1:
        return None
    runs = min(apart + 1, statements // MIN_REPEAT)
    return min(runs * 6 + statements // 63, (68 * statements) // 100)


FEW = 64   # statements without a structure from the parse that _one_structure works out


NAME_CHARS = 64   # a name (engine/syntax.py MAX_NAME) or a statement's text in a repeat's name
                  # (engine/groups.py MAX_NAME, 60)


def groups_bytes(program) -> int:
    """The graph's `groups` (engine/groups.py) as JSON, worked out and dropped: about 0.9 µs a
    node (a bound without them, from the statements, was twice their size on a chain: repeats
    and their repetitions cannot be told apart without finding the cycles)."""
    return len(orjson.dumps(groups(program)))


def edge_words(tracer, ops: set[str] | None = None) -> int:
    """The words engine/trace/edge_notes.py adds at the edge points, per argument of each node
    at one: counted twice (a tangent's and an accumulate's narration, as hvp mode's walks
    write both), with the partial as reverse mode writes it. ops: the program's ops (every
    node's `op`), when the caller has them: a pass over the nodes less."""
    from gradwalk.engine.trace import edge_notes, narrate

    total, nodes = 0, tracer.program.nodes
    if ops is None:   # asked once per op, not per node
        ops = set(map(attrgetter("op"), nodes))
    noted = {op for op in ops if edge_notes.has_edges(op)}
    if not noted:   # the common case (+ - * / have no edge points)
        return 0
    for node in nodes:
        if node.role != "op" or node.op not in noted:
            continue
        labels = [nodes[k].label for k in node.inputs]
        xs, out = tracer._inputs(node), tracer.values[node.index]
        for arg in range(len(node.inputs)):
            words = edge_notes.note(node.op, arg, out, xs, labels, node.params, lambda arg=arg:
                                    narrate.fill(get_op(node.op).partials[arg], labels,
                                                 node.params, out=narrate.wrap(node.label)))
            total += 2 * len(words.encode())
    return total


def _kinks(tracer, tangents: list | None) -> list[tuple[str, dict]]:
    """Forward mode's kinks (forward_mode._kink): (the event's note, the warning) per node at
    a point where its op has no derivative and a tangent arrives (`tangents` None: wherever
    one may)."""
    from gradwalk.engine.trace import kinks

    found = []
    for node in tracer.program.nodes:
        if node.op not in kinks.TABLE or (tangents is not None and
                                          tangents[node.index] is None):
            continue
        out = tracer.values[node.index]
        count = kinks.at(node.op, out, tracer._inputs(node), node.params)
        if count:
            message = kinks.forward_message(node.op, node, tracer.formulas[node.index], count,
                                            int(np.size(out)))
            found.append((kinks.event_note(node.op, node),
                          {"kind": "non_differentiable", "message": message, "node": "n" * 8,
                           "field": "tangents", "line": 10 ** 6, "col": 10 ** 6,
                           "end_line": 10 ** 6, "end_col": 10 ** 6}))
    return found


def _cut_notes(cuts, ids: list[str], output: int) -> int:
    """The sentences cuts.narrate adds: the first FULL_NOTES nodes told the whole story,
    the rest a short clause, each with its `cut` list; the seed's when the output is cut."""
    from gradwalk.engine.source import clip
    from gradwalk.engine.trace.cuts import FULL_NOTES

    full, short = [], 0
    for cut in cuts.notes.values():
        plain = sum(len(clip(cuts.program.nodes[k].label).encode()) + 60 for k in cut)
        short += plain + sum(len(ids[k]) + 3 for k in cut) + 12
        full.append(sum(len(cuts.sentence(k).encode()) + 2 for k in cut) - plain)
    total = short + sum(heapq.nlargest(FULL_NOTES, full))
    if cuts.severed[output]:
        total += 400 + len(cuts.formulas[cuts._root_of(output)].encode())
    return total


def bug_words(tracer, lab, shapes: list, inline: int) -> int:
    """What the bug lab (engine/trace/bugs.py `Lab._tell`, `_seed`) adds to the events it
    changes, per switch on the edges it can change: its "BUG ..." words with labels, symbols
    and numbers at their longest (`show`), and what a changed number adds (overwrite's adjoint
    before, no_zero_grad's sum onto the first pass's gradient); then the second pass's seed."""
    nodes, requires, on = tracer.program.nodes, tracer.requires, set(lab.on)
    label = max((len(n.label.encode()) for n in nodes), default=0)
    symbol = max((len(x.encode()) for x in tracer.symbols), default=0)
    show = SHOW_SCALAR if all(not s for s in shapes) else SHOW_TENSOR
    graded = [(i, j) for i, n in enumerate(nodes) if n.role == "op" and lab.reach[i]
              for j in n.inputs if requires[j]]
    inputs = {j for _, j in graded}
    value = {j: unknown_bytes(shapes[j], inline) for j in inputs}
    words = 0
    if "wrong_order" in on:
        words += len(graded) * (WRONG_ORDER + 4 * label + symbol)
    if "overwrite" in on:   # an edge into an input that already has an adjoint
        again = [j for _, j in graded]
        for j in inputs:
            again.remove(j)
        words += sum(OVERWRITE + 2 * symbol + 3 * show + label + value[j] for j in again)
    if "inplace" in on:
        formula = max((len(f.encode()) for f in tracer.formulas), default=0)
        words += sum(1 for i, _ in graded if i in lab.stale) * (INPLACE + formula + 3 * label
                                                                 + 2 * show)
    words *= lab.passes
    if lab.passes == 2:   # the second pass's seed, and each input's sum onto the first pass's
        words += SEED_AGAIN + 4 * (symbol + show + 4) + sum(len(tracer.ids[i]) + 3 for i in
                                                            range(len(nodes)) if lab.reach[i])
        if "no_zero_grad" in on:
            words += sum(NO_ZERO_GRAD + 2 * symbol + show + 3 * NUMBERS + value[j]
                         for j in inputs if nodes[j].role == "leaf")
    return words


# The bug lab's words (engine/trace/bugs.py), without their labels, symbols and numbers
WRONG_ORDER = len("BUG wrong_order:  is visited before its consumers , ,  (forward order, not "
                  "reverse topological), so its adjoint  is still 0 and it passes on 0. ")
OVERWRITE = len("BUG overwrite:  =  replaces the  it held (from ): `=` where `+=` belongs, so "
                "that contribution is lost ( += would give ). ") + len(',"bug":"overwrite"')
INPLACE = len("BUG inplace: the rule of  reads  = , but it saved  = :  was updated in place on "
              "line  (version ; the rule saved version ), and without a version counter the "
              "gradient is silently wrong. ") + 3 * 10 + len(',"bug":"inplace"')
NO_ZERO_GRAD = len("BUG no_zero_grad:  starts this pass at , the first pass's gradient, not 0. "
                   ) + len(',"bug":"no_zero_grad"')
SEED_AGAIN = len("BUG no_zero_grad: a second backward pass without zero_grad(): the leaves' "
                 ".grad still holds the first pass's ( = , ...) and this pass adds to it, as "
                 "PyTorch's .grad accumulates. ") + len(',"bug":"no_zero_grad","reset":[]')
SHOW_SCALAR = 11   # bugs.show: a number as narration writes it
SHOW_TENSOR = 6 * 13 + 12   # ... or up to six of them in brackets, or "a (4, 3) tensor"


