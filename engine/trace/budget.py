"""How many bytes a trace's body will take, worked out from the graph before anything is
serialized, so an oversized trace is refused before it costs memory and time.

The estimate is an upper bound within about a factor of two (tests/engine/test_output_bounds.py
compares it with real bodies). Its terms, per node: the graph node (fixed fields, label, name,
formula, adjoint symbol), its edges and its `evaluate` event; per backward edge: an `accumulate`
event (five values, the partial and the narration, which quotes the formula and two adjoint
symbols) and, where the input was broadcast, an `unbroadcast` event; at the end, the output and
every leaf's gradient with full data, twice (in `done` and at the top level of the body).
"""
from __future__ import annotations

import itertools

import numpy as np

# Bytes of JSON. A float64 is at most 24 characters ("-1.2345678901234567e-300"), plus a comma.
ELEMENT = 25
SCALAR = 24
TENSOR = 190       # {"shape":[],"dtype":"float64","summary":{4 numbers},"data":null}
NODE = 230         # a graph node's field names, id, index, op, role, params, span, punctuation
EDGE = 70          # {"id":"n1->n3#0","source":"n1","target":"n3","arg":0}
EVALUATE = 60      # {"seq":..,"kind":"evaluate","node":"n12","value":}
ACCUMULATE = 200   # an accumulate event's field names, ids and punctuation
NARRATION = 160    # a narration's fixed words and its numbers, beyond the texts it quotes
UNBROADCAST = 200


def value_bytes(shape: tuple, inline: int | None) -> int:
    """One encoded value (engine.trace.values.encode) of this shape."""
    if not shape:
        return SCALAR
    size = int(np.prod(shape))
    data = size * ELEMENT + 2 * size if inline is None or size <= inline else 4
    return TENSOR + 8 * len(shape) + data


def ascii_bytes(text: str) -> int:
    """A string in the graph's JSON, which escapes non-ASCII characters as \\uXXXX."""
    return len(text) if text.isascii() else len(text.encode("ascii", "backslashreplace"))


def utf8_bytes(text: str) -> int:
    """A string in an event's JSON (UTF-8, not escaped)."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def per_node(tracer, inline: int) -> list[int]:
    """Each node's share of the body (bytes), indexed by node; the tail (output and grads)
    goes to the output node."""
    nodes, shapes = tracer.program.nodes, [getattr(v, "shape", ()) for v in tracer.values]
    requires, formulas, symbols = tracer.requires, tracer.formulas, tracer.symbols
    has_adjoint = [False] * len(nodes)
    has_adjoint[tracer.output] = True
    cost = [0] * len(nodes)
    scalar_value = value_bytes((), inline)
    for i in reversed(tracer.order):
        n = nodes[i]
        shape = shapes[i]
        label, name, formula, symbol = n.label, n.name or "", formulas[i], symbols[i]
        # the common case, all ASCII, without a call per string
        text = (len(label) + len(name) + len(formula) if (label + name + formula).isascii()
                else ascii_bytes(label) + ascii_bytes(name) + ascii_bytes(formula))
        text += ascii_bytes(symbol) + 8 * len(shape)
        out_value = value_bytes(shape, inline) if shape else scalar_value
        cost[i] += NODE + text + (EDGE + 10) * len(n.inputs) + EVALUATE + out_value
        if not has_adjoint[i] or n.role != "op":
            continue
        quoted = 3 * utf8_bytes(formula) + 3 * utf8_bytes(symbol)
        for j in n.inputs:
            if not requires[j]:
                continue
            has_adjoint[j] = True
            in_value = value_bytes(shapes[j], inline) if shapes[j] else scalar_value
            cost[i] += (ACCUMULATE + 2 * out_value + 3 * in_value + quoted + NARRATION
                        + 2 * utf8_bytes(symbols[j]) + utf8_bytes(nodes[j].label))
            if shapes[j] != shape:
                cost[i] += UNBROADCAST + out_value + in_value + 16 * len(shape)
    tail = 2 * sum(value_bytes(shapes[i], None) + ascii_bytes(name) + 4
                   for name, i in tracer.program.leaves.items())
    cost[tracer.output] += tail + value_bytes(shapes[tracer.output], None) * 2 + 200
    return cost


def scalar_bound(tracer) -> int | None:
    """An upper bound of sum(per_node(tracer, inline)) for a program whose values are all
    scalars, worked out from sums over the texts (no loop per node in Python); None when a
    value is a tensor. A body is refused only when per_node's estimate passes the limit, so a
    bound within the limit lets the trace skip the estimate (engine/trace/runner.py).

    Each of per_node's terms is bounded: a character takes at most 10 bytes escaped
    (`\\U0001f600`) and 4 in UTF-8; an edge quotes its consumer's formula and symbol (a node
    has at most `most_graded` in-edges that carry a gradient) and its input's symbol and label
    (at most the longest). tests/engine/test_fast_paths.py checks it bounds the estimate.
    """
    values = tracer.values
    if not all(type(v) is float or np.ndim(v) == 0 for v in values):
        return None
    nodes = tracer.program.nodes
    labels = [n.label for n in nodes]
    names = [n.name or "" for n in nodes]
    formulas, symbols = tracer.formulas, tracer.symbols
    inputs = list(itertools.chain.from_iterable(n.inputs for n in nodes))
    graded = sum(map(tracer.requires.__getitem__, inputs))   # edges that may carry a gradient
    requires = tracer.requires.__getitem__
    most_graded = max(map(sum, (map(requires, n.inputs) for n in nodes)), default=0)
    # the texts' bytes, escaped as ascii_bytes counts them and in UTF-8, summed in C
    escaped = sum(len("".join(t).encode("ascii", "backslashreplace"))
                  for t in (labels, names, formulas, symbols))
    quoted = most_graded * 3 * (len("".join(formulas).encode())
                                + len("".join(symbols).encode()))
    inputs_text = graded * (2 * max(map(len, map(str.encode, symbols)), default=0)
                            + max(map(len, map(str.encode, labels)), default=0))
    leaves = tracer.program.leaves
    tail = 2 * sum(SCALAR + 10 * len(name) + 4 for name in leaves) + 2 * SCALAR + 200
    return (len(nodes) * (NODE + EVALUATE + SCALAR) + escaped + len(inputs) * (EDGE + 10)
            + graded * (ACCUMULATE + 5 * SCALAR + NARRATION) + quoted + inputs_text + tail)
