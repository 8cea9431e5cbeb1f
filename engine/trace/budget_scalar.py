"""A fast upper bound of the body's size estimate (engine/trace/budget.py `per_node`) for a
scalar program in reverse mode, so the size check costs a small part of the trace.

`per_node` walks the nodes in Python (about 4 µs a node on the chain `x = x * 1.0001 + 0.001`,
a fifth of the whole trace); this bound computes the same terms over every node and edge at
once with numpy, from per-node arrays built by C-level maps (about 0.5 µs a node). It bounds
per_node term by term: every edge of an op into a node that requires grad is counted as if the
walk sent a gradient along it (the walk sends one only along a path to the output), an edge's
numbers at their longest, a partial derivative by its op's template with the labels in it
(engine/ops' `partials`, as per_node's `_partials`), an input's first contribution (from 0.0,
with no sum narrated) once per input. tests/engine/test_fast_paths.py checks that it bounds
per_node; when it is within max_response_bytes the check is done (engine/trace/runner.py).
"""
from __future__ import annotations

import itertools
import json
import math
from operator import attrgetter

import numpy as np
import orjson

from gradwalk.engine.ops.registry import REGISTRY
from gradwalk.engine.trace.budget_numbers import (ACCUMULATE, EDGE, EVALUATE, LEDGER, NODE, NUMBERS,
                                         SCALAR, ZERO)
from gradwalk.engine.trace.budget_results import extras, groups_bound, results


def scalar_bound(tracer) -> int | None:
    """An upper bound of sum(per_node(tracer, inline)) for a program whose values are all
    scalars, in reverse mode without the gradient check or the bug lab; else None."""
    values = tracer.values
    if tracer.options.mode != "reverse" or tracer.second is not None or tracer.options.check \
            or getattr(tracer, "lab", None) is not None:
        return None
    if not set(map(type, values)) <= {float} and \
            not all(type(v) is float or np.ndim(v) == 0 for v in values):
        return None
    nodes, ids = tracer.program.nodes, tracer.ids
    n = len(nodes)
    inputs = list(map(attrgetter("inputs"), nodes))
    degree = np.fromiter(map(len, inputs), np.int64, n)
    flat = np.fromiter(itertools.chain.from_iterable(inputs), np.int64, int(degree.sum()))
    owner = np.repeat(np.arange(n), degree)
    start = np.cumsum(degree) - degree
    arg = np.arange(len(flat)) - start[owner]
    is_op = np.fromiter(map("op".__eq__, map(attrgetter("role"), nodes)), bool, n)
    graded = np.fromiter(tracer.requires, bool, n)[flat] & is_op[owner]
    id_b = np.fromiter(map(len, ids), np.int64, n)
    (label_b, formula_b, symbol_b), escaped = _texts(
        list(map(attrgetter("label"), nodes)), tracer.formulas, tracer.symbols)
    names = "".join(filter(None, map(attrgetter("name"), nodes)))
    escaped += len(names) if names.isascii() else \
        len(names.encode("ascii", "backslashreplace"))
    seq = len(str(2 * n))
    # per node: the graph node (its texts escaped as the graph's JSON writes them), its edges,
    # its ledger, its evaluate event with its value exactly (orjson's form)
    params = 2 * n + sum(len(json.dumps(p, default=str)) - 2 for p in   # {} for most
                         filter(None, map(attrgetter("params"), nodes)))
    floats = list(map(float, values))
    known = sum(map(len, map(orjson.dumps, floats)))
    if not math.isfinite(sum(floats)):   # a non-finite one is a string: "-Infinity"
        known += 7 * n
    node_part = (n * (NODE + EVALUATE + seq) + 3 * int(id_b.sum()) + escaped + params + known
                 + int(4 * id_b[flat].sum() + 3 * len(flat) + EDGE * len(flat)
                       + id_b[owner].sum()) + _ledgers(tracer, id_b, int(is_op.sum())))
    # per edge that may carry a gradient: its accumulate event
    e_owner, e_input, e_arg = owner[graded], flat[graded], arg[graded]
    partial = _partials(nodes, e_owner, e_arg, flat, start, degree, label_b)
    edge_part = int(len(e_owner) * (ACCUMULATE + seq + 5 * SCALAR + 6 * NUMBERS)
                    + (id_b[e_owner] + id_b[e_input] + formula_b[e_owner] + symbol_b[e_owner]
                       + 2 * partial + 2 * symbol_b[e_input]).sum())
    # an input's first contribution starts from 0.0 and narrates no sum: once per input
    firsts = int(np.count_nonzero(np.bincount(e_input, minlength=n))) * \
        (SCALAR - ZERO + 3 * NUMBERS)
    return (node_part + edge_part - firsts + extras(tracer, None)
            + groups_bound(tracer.program, int(label_b.max(initial=0)))
            + results(tracer, [()] * n, 0))


def _texts(*lists: list[str]) -> tuple[list[np.ndarray], int]:
    """Each list's per-node UTF-8 bytes, and all of them escaped to ASCII as the graph's JSON
    writes them (budget.ascii_bytes), summed; an ASCII list (the common case) is not encoded."""
    per_node, escaped = [], 0
    for texts in lists:
        joined = "".join(texts)
        if joined.isascii():
            per_node.append(np.fromiter(map(len, texts), np.int64, len(texts)))
            escaped += len(joined)
        else:
            per_node.append(np.fromiter(map(len, map(str.encode, texts)), np.int64,
                                        len(texts)))
            escaped += len(joined.encode("ascii", "backslashreplace"))
    return per_node, escaped


def _ledgers(tracer, id_b: np.ndarray, ops: int) -> int:
    """Every op node's `ledger` object: its numbers at the digits of their column's largest,
    the ids it saves and the one that releases it (budget._ledger_bytes, summed)."""
    led = tracer.ledger
    digits = sum(len(str(max(c, default=0))) for c in (
        led.saved_elements, led.saved_bytes, led.flops_forward, led.flops_backward,
        led.activation_bytes))
    saved = np.fromiter(itertools.chain.from_iterable(led.saves), np.int64)
    released = np.fromiter((r for r in led.released_by if r is not None), np.int64)
    return (ops * (LEDGER + digits) + int(id_b[saved].sum()) + 3 * len(saved)
            + int(id_b[released].sum()))


def _partials(nodes, e_owner, e_arg, flat, start, degree, label_b) -> np.ndarray:
    """Each edge's partial derivative as narrated: its op's template (engine/ops' `partials`)
    with its labels in it, or, for a template made by code, twice its node's input labels,
    its own label and 24 bytes (budget._partials, per edge)."""
    ops = list(map(attrgetter("op"), nodes))
    codes = {op: k for k, op in enumerate(set(ops))}
    op_code = np.fromiter(map(codes.__getitem__, ops), np.int64, len(ops))[e_owner]
    width = int(degree.max(initial=1))
    base = np.zeros((len(codes), width), np.int64)
    counts = np.zeros((len(codes), width, width), np.int64)
    out = np.zeros((len(codes), width), np.int64)
    made = np.ones((len(codes), width), bool)   # by code: no template to count from
    for op, k in codes.items():
        row = REGISTRY.get(op)
        if row is None:   # a leaf's or a constant's: it has no edges
            continue
        for a, text in enumerate(row.partials[:width]):
            if isinstance(text, str):
                made[k, a] = False
                base[k, a] = len(text.encode()) + 4
                counts[k, a, :min(row.arity, width)] = [text.count("{%d}" % i) for i in
                                                        range(min(row.arity, width))]
                out[k, a] = text.count("{out}")
    own = label_b[e_owner]
    filled = base[op_code, e_arg] + out[op_code, e_arg] * own
    in_labels = np.zeros(len(e_owner), np.int64)
    for k in range(width):   # the k-th input's label, where the node has a k-th input
        has = k < degree[e_owner]
        label = label_b[flat[np.where(has, start[e_owner] + k, 0)]] * has
        filled += counts[op_code, e_arg, k] * label
        in_labels += label
    return np.where(made[op_code, e_arg], 2 * in_labels + own + 24, filled)
