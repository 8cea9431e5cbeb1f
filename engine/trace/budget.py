"""How many bytes a trace's body will take, worked out from the graph before anything is
serialized, so an oversized trace is refused before it costs memory and time.

The estimate is an upper bound, within 1.5 times the real body for scalar chains, fan-out and
tensors in every mode (tests/engine/test_size_estimate.py; issue 14: it was 3.6 times, and
under the real size in hvp mode). Each record is counted as its skeleton (field names and
punctuation) plus what fills it: ids and texts by their bytes (escaped in the graph, UTF-8 in
events), forward values exactly (they are known), and the numbers not computed yet (adjoints,
tangents, partials) at their longest. Per node: the graph node with its ledger, its edges, and
its `evaluate` event (reverse mode) or `tangent` event (forward mode, and hvp mode's walk over
the backward graph); per backward edge: an `accumulate` event and, where an elementwise op
broadcast the input, an `unbroadcast` event; then the results, once: the output and every
leaf's gradient with full data, and what the mode adds. The bound is loose only where the
unknown numbers turn out short: a sparse H v, or a one-hot tangent through big tensors
(mostly 0.0, 4 bytes against 25), up to 4.6 times in the tests.
"""
from __future__ import annotations

import heapq
import math
import itertools
import json

import numpy as np
import orjson

from engine.ops.registry import get_op
from engine.trace import warn
from engine.trace.budget_numbers import ELEMENT, SCALAR, Numbers, known_bytes, value_bytes

# Bytes of JSON. A float64 is at most 24 characters ("-1.2345678901234567e-300"), plus a comma.
# Each record's fixed part is its skeleton: field names and punctuation with every value empty
# (the values are counted apart, from the texts and numbers that fill them).
NODE = len('{"id":"","index":,"name":null,"label":"","op":"","role":"","inputs":[],"params":,'
           '"requires_grad":false,"span":{"line":,"col":,"end_line":,"end_col":},"shape":[],'
           '"formula":"","adjoint_symbol":"","ledger":null},') + 16   # op and role words
LEDGER = len('{"saves":[],"saved_elements":,"saved_bytes":,"flops_forward":,"flops_backward":,'
             '"activation_bytes":,"released_by":null,"recomputed":false}') - len("null")
EDGE = len('{"id":"->#","source":"","target":"","arg":},') + 2   # the arg's digits
EVALUATE = len('{"seq":,"kind":"evaluate","node":"","value":},')
RECOMPUTE = len('{"seq":,"kind":"recompute","node":"","value":,"narration":"checkpoint: '
                'recompute  (the forward pass did not keep it)"},')
TANGENT = len('{"seq":,"kind":"tangent","node":"","value":,"tangent":,"rule":"",'
              '"narration":""},') + 100   # the rule's and narration's own words
ACCUMULATE = len('{"seq":,"kind":"accumulate","node":"","input":"","arg":,"upstream":,'
                 '"local":,"partial":"","contribution":,"adjoint_before":,"adjoint_after":,'
                 '"narration":""},') + 2 + 80   # the arg's digits, the narration's words
UNBROADCAST = len('{"seq":,"kind":"unbroadcast","node":"","input":"","arg":,"from_shape":[],'
                  '"to_shape":[],"axes":[],"before":,"after":},') + 40
SHOW_ELEMENTS = 6  # tensors up to this size have their numbers narrated (narrate.py)
NUMBERS = 12       # a number as narration writes it (4 significant digits: "-1.235e-300")
ZERO = 4           # 0.0 and a comma: the adjoint before a node's first contribution
RESULTS = 120      # the results' field names: output, grads, first_non_finite, a mode's
SEED = 200         # the backward pass's first event, `seed`, and the `done` event
CHECK = 200        # a gradient-check entry's field names and errors, per leaf
FIRST = 200        # first_non_finite when the walk meets a NaN, an infinity or an underflow
UNDERFLOW = 420    # an underflow's warning, its words in the narration (and its label's bytes)


def unknown_bytes(shape: tuple, inline: int) -> int:
    """A value not computed yet (an adjoint, a tangent, a partial) of this shape: every
    number at its longest."""
    return value_bytes(shape, inline)


def ascii_bytes(text: str) -> int:
    """A string in the graph's JSON, which escapes non-ASCII characters as \\uXXXX."""
    return len(text) if text.isascii() else len(text.encode("ascii", "backslashreplace"))


def per_node(tracer, inline: int) -> list[int]:
    """Each node's share of the body (bytes), indexed by node, in the tracer's mode; the
    results (output, grads, a mode's extras, the warnings) go to the output node.

    Raises ProgramError "timeout" past the trace's deadline (the numbers worked out first:
    budget_numbers.Numbers)."""
    nodes, values, ids = tracer.program.nodes, tracer.values, tracer.ids
    shapes = [getattr(v, "shape", ()) for v in values]
    requires = tracer.requires
    numbers = Numbers(tracer, inline)
    tangents = numbers.tangents   # events per node: tangent events (forward, hvp)
    backward = tracer.options.mode != "forward"
    lab = getattr(tracer, "lab", None)
    passes = lab.passes if lab is not None else 1
    recomputed = {k for b in tracer.program.blocks for k in range(b.first, b.end)}
    has_adjoint = [False] * len(nodes)
    has_adjoint[tracer.output] = True
    cost = [0] * len(nodes)
    seq = len(str(2 * passes * len(nodes)))   # the digits of an event's seq, at most
    ledger, partial = _ledger_bytes(tracer), _partials()
    labels = [n.label for n in nodes]
    # each text's bytes, counted in C: escaped in the graph, UTF-8 in events
    graph_text = _lengths(labels, [n.name or "" for n in nodes], tracer.formulas,
                          tracer.symbols, escaped=True)
    label_b, formula_b, symbol_b = (_lengths(t) for t in (labels, tracer.formulas,
                                                          tracer.symbols))
    id_b = list(map(len, ids))
    edge_numbers, walked = numbers.edges, numbers.walked
    cuts = getattr(tracer, "cuts", None)   # a tangent cut off says where (forward_text.py)
    cut_why = max(formula_b, default=0) if cuts is not None and tangents is not None else 0
    for i in reversed(tracer.order):
        n, shape, width = nodes[i], shapes[i], id_b[i]
        edges = len(n.inputs)
        inputs = sum(map(id_b.__getitem__, n.inputs))
        known = known_bytes(values[i], inline)   # the forward value, known exactly
        cost[i] += (NODE + 2 * width + graph_text[i] + 8 * len(shape) + _params(n.params)
                    + 4 * inputs + 3 * edges + (EDGE + width) * edges    # the node, its edges
                    + (ledger(i) if n.role == "op" else 0))
        if tangents is not None:   # value, tangent, rule and narration (forward_text.py)
            t = tangents[i]
            cost[i] += (TANGENT + seq + width + known
                        + known_bytes(_zeros(values[i]) if t is None else t, inline)
                        + formula_b[i] + 4 * label_b[i] + 2 * _rule(n, label_b, partial)
                        + NUMBERS * (2 + edges) + cut_why)
        else:
            cost[i] += EVALUATE + seq + width + known
        if i in recomputed and backward:   # checkpoint: computed again, once per pass
            cost[i] += passes * (RECOMPUTE + seq + width + known + formula_b[i])
        if walked is not None:   # a bug walk's events, counted as they are
            cost[i] += walked[i]
            continue
        if not backward or not has_adjoint[i] or n.role != "op":
            continue
        out_value = unknown_bytes(shape, inline)
        quoted = formula_b[i] + symbol_b[i]
        elementwise = get_op(n.op).elementwise
        for arg, j in enumerate(n.inputs):
            if not requires[j]:
                continue
            first, has_adjoint[j] = not has_adjoint[j], True
            in_shape = shapes[j]
            in_value = unknown_bytes(in_shape, inline) if in_shape else SCALAR
            before = ZERO * max(1, min(_size(in_shape), inline + 1)) if first else in_value
            broadcast = elementwise and in_shape != shape
            said = (ACCUMULATE + seq + width + id_b[j] + quoted + 2 * partial(n, arg, label_b)
                    + 2 * symbol_b[j] + NUMBERS * (3 if first else 6)
                    + (_said(in_shape, shape, first) if in_shape or shape else 0)
                    + (UNBROADCAST + 16 * len(shape) if broadcast else 0))
            known_edge = edge_numbers.get((i, arg)) if edge_numbers is not None else None
            if known_edge is None:   # every number at its longest
                known_edge = (out_value + (out_value if in_shape == shape else in_value)
                              + 2 * in_value + before
                              + (out_value + in_value if broadcast else 0))
            cost[i] += passes * (said + known_edge)
    cost[tracer.output] += (results(tracer, shapes, inline, numbers)
                            + (passes - 1) * SEED + extras(tracer, tangents, numbers.marked)
                            + (_bug_words(tracer, lab, shapes, inline)
                               if lab is not None and walked is None else 0))
    return cost


def _bug_words(tracer, lab, shapes: list, inline: int) -> int:
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


def _rule(node, label_b: list[int], partial) -> int:
    """A tangent's jvp rule as forward_text writes it (in its `rule` and again in its
    narration): per input, its op's partial times the input's d(label) (elementwise), or
    ∂(label)/∂(input)·d(input)."""
    if node.role != "op":
        return 8   # `ẋ = e[0, 0]`, `ẋ = given`, `ċ = 0`: the leaf's own words count them
    if get_op(node.op).elementwise:
        return sum(partial(node, arg, label_b) + label_b[j] + 10
                   for arg, j in enumerate(node.inputs))
    return sum(label_b[node.index] + 2 * label_b[j] + 16 for j in node.inputs)


def _zeros(value):
    return 0.0 if type(value) is float else np.zeros(np.shape(value)) \
        if np.size(value) <= 4096 else value   # a summary's bytes do not depend on its numbers


def _lengths(*texts: list[str], escaped: bool = False) -> list[int]:
    """Per index, the bytes of the texts together: UTF-8, or escaped to ASCII as the graph's
    JSON writes them (ascii_bytes)."""
    joined = map("".join, zip(*texts)) if len(texts) > 1 else texts[0]
    if escaped:
        return list(map(len, map(str.encode, joined, itertools.repeat("ascii"),
                                 itertools.repeat("backslashreplace"))))
    return list(map(len, map(str.encode, joined)))


def _ledger_bytes(tracer):
    """i -> the bytes of node i's `ledger` object in the graph (runner.node_ledgers): its
    numbers at the digits of their column's largest, its saved nodes' ids."""
    led, ids = tracer.ledger, tracer.ids
    columns = (led.saved_elements, led.saved_bytes, led.flops_forward, led.flops_backward,
               led.activation_bytes)
    digits = sum(len(str(max(c, default=0))) for c in columns)   # counts: never negative

    def size(i: int) -> int:
        released = led.released_by[i]
        return (LEDGER + digits + sum(len(ids[k]) + 3 for k in led.saves[i])
                + (len(ids[released]) if released is not None else 0))
    return size


def _said(shape: tuple, out_shape: tuple, first: bool) -> int:
    """What a tensor edge's narration adds (narrate.accumulate): its shape rule, three shapes,
    and the contribution's numbers (the sum's too, after the first) when they are few."""
    if not shape and not out_shape:
        return 0
    size = _size(shape)
    numbers = (1 if first else 3) * (NUMBERS + 2) * size if size <= SHOW_ELEMENTS else 0
    return 3 * (4 + 6 * max(len(shape), len(out_shape))) + 16 + numbers


def _size(shape: tuple) -> int:
    return int(np.prod(shape)) if shape else 1


def _params(params: dict) -> int:
    """A node's params in the graph's JSON (most are {})."""
    return len(json.dumps(params, default=str)) if params else 2


def _partials():
    """partial(node, arg, label_bytes): the local derivative d out / d input `arg` as
    narrated (`1`, `x`, `1 - t²`): its op's template with the labels in it, or, for a template
    made by code, every input label twice and the node's own. Templates are read once."""
    templates: dict = {}

    def partial(node, arg: int, label_b: list[int]) -> int:
        key = (node.op, arg)
        if key not in templates:
            op = get_op(node.op)
            text = op.partials[arg] if arg < len(op.partials) else None
            templates[key] = None if not isinstance(text, str) else (
                len(text.encode()) + 4, [text.count("{%d}" % k) for k in range(op.arity)],
                text.count("{out}"))
        found = templates[key]
        if found is None:
            return 2 * sum(map(label_b.__getitem__, node.inputs)) + label_b[node.index] + 24
        base, counts, out = found
        return (base + sum(c * label_b[k] for c, k in zip(counts, node.inputs) if c)
                + out * label_b[node.index])
    return partial


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
    if options.mode == "forward":   # jvp; every pass's Jacobian, unless there are too many
        from engine.trace.forward_mode import MAX_PASSES

        inputs = sum(_size(shapes[i]) for i in leaves.values())
        outputs = _size(shapes[tracer.output])
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
    if options.check:
        total += 2 * grads + (CHECK + ELEMENT) * len(leaves)
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
    n = sum(_size(shapes[i]) for i in leaves.values())
    name = sum(_size(shapes[i]) * (ascii_bytes(k) + 4 + 8 * len(shapes[i]))
               for k, i in leaves.items())   # `W[12,3]` and its quotes and comma
    total = 0
    if full:
        total += HESSIAN + name + n * n * ELEMENT + 2 * n
    if steps:
        total += HESSIAN + (steps + 1) * ELEMENT + name + n * (ELEMENT + 1)
    return total


def extras(tracer, tangents: list | None, marked: bool = True) -> int:
    """What the walk says beyond its events' own words: the warnings known now (exactly, with
    the done event's narration of them), the cut paths' sentences (engine/trace/cuts.py),
    forward mode's kinks, and room for the one first_non_finite marker (with an underflow's
    warning) the walk may find, when it may (`marked`: budget_numbers.Numbers)."""
    listed = tracer.warnings.listed() if getattr(tracer, "warnings", None) else []
    kinks_found = _kinks(tracer, tangents) if tangents is not None and \
        tracer.options.mode == "forward" else []
    said = sum(len(text.encode()) for text, _ in kinks_found)
    listed += [message for _, message in kinks_found]
    total = said
    if marked:   # room for a NaN's or an underflow's marker, warning and words
        longest = max((len(n.label.encode()) for n in tracer.program.nodes), default=0)
        total += FIRST + UNDERFLOW + 2 * longest
    if listed:
        total += len(orjson.dumps(listed)) + len(warn.narration(listed).encode()) + 40
    cuts = getattr(tracer, "cuts", None)
    if cuts is not None and cuts.program is tracer.program:
        total += _cut_notes(cuts, tracer.ids, tracer.output)
    return total


def _kinks(tracer, tangents: list) -> list[tuple[str, dict]]:
    """Forward mode's kinks (forward_mode._kink): (the event's note, the warning) per node at
    a point where its op has no derivative, as many as the warnings keep."""
    from engine.trace import kinks

    found = []
    for node in tracer.program.nodes:
        if node.op not in kinks.TABLE or tangents[node.index] is None:
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
    from engine.source import clip
    from engine.trace.cuts import FULL_NOTES

    full, short = [], 0
    for cut in cuts.notes.values():
        plain = sum(len(clip(cuts.program.nodes[k].label).encode()) + 60 for k in cut)
        short += plain + sum(len(ids[k]) + 3 for k in cut) + 12
        full.append(sum(len(cuts.sentence(k).encode()) + 2 for k in cut) - plain)
    total = short + sum(heapq.nlargest(FULL_NOTES, full))
    if cuts.severed[output]:
        total += 400 + len(cuts.formulas[cuts._root_of(output)].encode())
    return total


def scalar_bound(tracer) -> int | None:
    """An upper bound of sum(per_node(tracer, inline)) for a program whose values are all
    scalars, worked out from sums over the texts (no loop per node in Python); None when a
    value is a tensor, or in another mode than reverse (with no gradient check). A body is
    refused only when per_node's estimate passes the limit, so a bound within the limit lets
    the trace skip the estimate (engine/trace/runner.py).

    Each of per_node's terms is bounded: a character takes at most 10 bytes escaped
    (`\\U0001f600`) and 4 in UTF-8; an edge quotes its consumer's formula and symbol (a node
    has at most `most_graded` in-edges that carry a gradient) and its input's symbol and label
    (at most the longest). tests/engine/test_fast_paths.py checks it bounds the estimate.
    """
    values = tracer.values
    if tracer.options.mode != "reverse" or tracer.second is not None or tracer.options.check \
            or getattr(tracer, "lab", None) is not None:
        return None
    if not all(type(v) is float or np.ndim(v) == 0 for v in values):
        return None
    nodes, ids, led = tracer.program.nodes, tracer.ids, tracer.ledger
    labels = [n.label for n in nodes]
    names = [n.name or "" for n in nodes]
    formulas, symbols = tracer.formulas, tracer.symbols
    inputs = list(itertools.chain.from_iterable(n.inputs for n in nodes))
    graded = sum(map(tracer.requires.__getitem__, inputs))   # edges that may carry a gradient
    requires = tracer.requires.__getitem__
    per_graded_inputs = list(map(sum, (map(requires, n.inputs) for n in nodes)))
    most_graded = max(per_graded_inputs, default=0)
    idlen = max(map(len, ids), default=1)
    seq = len(str(2 * len(nodes)))
    # the texts' bytes, escaped as ascii_bytes counts them and in UTF-8, summed in C
    escaped = sum(len("".join(t).encode("ascii", "backslashreplace"))
                  for t in (labels, names, formulas, symbols))
    label_b = _lengths(labels)
    # a partial, written twice per graded edge: at most 2x its node's input labels, its own
    # label and 24 bytes (what per_node's partial() counts from engine/ops' templates)
    in_labels = map(sum, (map(label_b.__getitem__, n.inputs) for n in nodes))
    partials = 2 * sum(g * (2 * x + own + 24) for g, x, own in
                       zip(per_graded_inputs, in_labels, label_b) if g)
    quoted = most_graded * (len("".join(formulas).encode()) + len("".join(symbols).encode()))
    quoted += partials
    inputs_text = graded * 2 * max(map(len, map(str.encode, symbols)), default=0)
    params = sum(len(json.dumps(n.params, default=str)) for n in nodes if n.params)
    ledger = len(nodes) * (LEDGER + sum(len(str(max(c, default=0))) for c in (
        led.saved_elements, led.saved_bytes, led.flops_forward, led.flops_backward,
        led.activation_bytes))) + (idlen + 3) * sum(map(len, led.saves)) + idlen * len(nodes)
    leaves = tracer.program.leaves
    tail = sum(SCALAR + 10 * len(name) + 4 for name in leaves) + SCALAR + RESULTS
    per_node = NODE + 3 * idlen + EVALUATE + seq
    floats = list(map(float, values))
    known = sum(map(len, map(orjson.dumps, floats)))   # the values, exactly (orjson's form)
    if not math.isfinite(sum(floats)):   # a non-finite one is a string: "-Infinity"
        known += 7 * len(floats)
    per_edge = EDGE + 6 * idlen + 3
    per_graded = ACCUMULATE + seq + 2 * idlen + 5 * SCALAR + 6 * NUMBERS
    # An input's first contribution starts from 0.0 and narrates no sum: each graded input
    # (`firsts` of them) has at most one first edge, and an input the walk never reaches none.
    firsts = len({j for j in inputs if tracer.requires[j]})
    first_saving = SCALAR - ZERO + 3 * NUMBERS
    return (extras(tracer, None) + len(nodes) * per_node + known + escaped + params + ledger + len(inputs) * per_edge
            + graded * per_graded - firsts * first_saving + quoted + inputs_text + tail)
