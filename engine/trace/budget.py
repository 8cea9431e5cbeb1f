"""How many bytes a trace's body will take, worked out before any event is made, so an
oversized trace is refused before it costs memory and time (engine/trace/runner.py, at the
end of the Tracer's constructor: the warnings and the bug lab are known by then).

The estimate is an upper bound within 1.5 times the real body in every mode: reverse, the
gradient check, forward, hvp and the bug lab (tests/engine/test_size_estimate.py: scalar
chains, fan-out, tensors, every preset; issue 14 §6: it was 3.6 times, then up to 4.6 times
where the numbers turn out mostly 0, and under the body for cut paths, `# hessian:` lines and
two-pass bug walks). Each record is counted as its skeleton (field names and punctuation)
plus what fills it: ids and texts by their bytes (escaped in the graph, UTF-8 in events),
forward values exactly (orjson's form), the other numbers exactly where they are worked out
first (budget_numbers.py: tangents, hvp's adjoints, a small-tensor program's adjoints, a small
bug walk's events) and else at their longest. Per node: the graph node with its ledger, its
edges, its `evaluate` or `tangent` event (forward and hvp mode) and its `recompute` events;
per backward edge: an `accumulate` event and, where an elementwise op broadcast the input, an
`unbroadcast` event; then the results and what the walk says beyond its events
(budget_results.py: each mode's results, the warnings, the cut paths' sentences, the bug lab's
words, room for a NaN's or an underflow's marker where one may come).

Cost: the trace first asks cheaper upper bounds (a scalar program in reverse mode: the light
bound, then budget_graded.py's, then scalar_bound, about 0.3, 0.5 and 0.8 µs a node on the
chain; otherwise this estimate with no number and no group worked out), and works the numbers
out only when they pass the limit.
"""
from __future__ import annotations

import itertools
import json

import numpy as np

from gradwalk.engine.ops.registry import get_op
from gradwalk.engine.trace.budget_numbers import (ACCUMULATE, EDGE, EVALUATE, LEDGER, NODE, NUMBERS,
                                         RECOMPUTE, SCALAR, SEED, SHOW_ELEMENTS, TANGENT,
                                         UNBROADCAST, Numbers, known_bytes, elements, zeros_bytes,
                                         unknown_bytes)
from gradwalk.engine.trace.budget_results import (bug_words, extras, groups_bound, groups_bytes,
                                         results)


def per_node(tracer, inline: int, exact: bool = True) -> list[int]:
    """Each node's share of the body (bytes), indexed by node, in the tracer's mode; the
    results (output, grads, a mode's extras, the warnings) go to the output node.

    exact: work out the numbers first where they are cheap (budget_numbers.Numbers), else
    count each unknown number at its longest (an upper bound of the exact estimate).
    Raises ProgramError "timeout" past the trace's deadline."""
    nodes, values, ids = tracer.program.nodes, tracer.values, tracer.ids
    shapes = [getattr(v, "shape", ()) for v in values]
    requires = tracer.requires
    numbers = Numbers(tracer, inline) if exact else Numbers.unknown()
    tangents = numbers.tangents
    tangent_events = tracer.options.mode in ("forward", "hvp")
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
    cut_why = max(formula_b, default=0) if cuts is not None and tangent_events else 0
    for i in reversed(tracer.order):
        n, shape, width = nodes[i], shapes[i], id_b[i]
        edges = len(n.inputs)
        inputs = sum(map(id_b.__getitem__, n.inputs))
        known = known_bytes(values[i], inline)   # the forward value, known exactly
        cost[i] += (NODE + 2 * width + graph_text[i] + 8 * len(shape) + _params(n.params)
                    + 4 * inputs + 3 * edges + (EDGE + width) * edges    # the node, its edges
                    + (ledger(i) if n.role == "op" else 0))
        if tangent_events:   # value, tangent, rule and narration (forward_text.py)
            t = tangents[i] if tangents is not None else None
            cost[i] += (TANGENT + seq + width + known
                        + (unknown_bytes(shape, inline) if tangents is None else
                           known_bytes(_zeros(values[i]) if t is None else t, inline))
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
            before = zeros_bytes(in_shape, inline) if first else in_value
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
    boxes = groups_bytes(tracer.program) if exact else \
        groups_bound(tracer.program, max(label_b, default=0))
    spread, rest = divmod(boxes, len(nodes))   # each node's share of the groups
    for i in range(len(nodes)):
        cost[i] += spread
    cost[tracer.output] += (rest + results(tracer, shapes, inline, numbers)
                            + (passes - 1) * SEED + extras(tracer, tangents, numbers.marked)
                            + (bug_words(tracer, lab, shapes, inline)
                               if lab is not None and walked is None else 0))
    return cost


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
    """i -> the bytes of node i's `ledger` object in the graph (graph_out.graph_nodes): its
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
    size = elements(shape)
    numbers = (1 if first else 3) * (NUMBERS + 2) * size if size <= SHOW_ELEMENTS else 0
    return 3 * (4 + 6 * max(len(shape), len(out_shape))) + 16 + numbers


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


def light_bound(tracer, limit: int | None = None, passes=None) -> int | None:
    """engine/trace/budget_scalar.py's light_bound: looser than graded_bound, cheaper (with
    `limit`: a figure past it as soon as its first terms pass it). passes: budget_scalar's
    Passes, shared with the bounds asked next."""
    from gradwalk.engine.trace.budget_scalar import light_bound as bound

    return bound(tracer, limit, passes)


def scalar_bound(tracer, passes=None) -> int | None:
    """A cheap upper bound of sum(per_node(tracer, inline)): for a scalar program in reverse
    mode the sums of engine/trace/budget_scalar.py; otherwise per_node with no number worked
    out first (each at its longest). Within max_response_bytes, the check is done without
    the numbers (engine/trace/runner.py); past it, per_node works them out, so a body that
    fits is not refused for numbers that turn out short. passes: as light_bound's."""
    from gradwalk.engine.trace.budget_scalar import scalar_bound as bound

    fast = bound(tracer, passes)
    return fast if fast is not None else sum(per_node(tracer, tracer.limit, exact=False))


def graded_bound(tracer, passes) -> int | None:
    """engine/trace/budget_graded.py's bound: between light_bound and scalar_bound, for the
    scalar programs in reverse mode (None for the others). passes: as light_bound's."""
    from gradwalk.engine.trace.budget_graded import graded_bound as bound

    return bound(tracer, passes)


def passes(tracer):
    """The per-node lists the bounds read, made once (budget_scalar.Passes)."""
    from gradwalk.engine.trace.budget_scalar import Passes

    return Passes(tracer)
