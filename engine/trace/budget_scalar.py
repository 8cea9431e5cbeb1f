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
from functools import cached_property
from operator import attrgetter

import numpy as np
import orjson

from gradwalk.engine.ops.registry import REGISTRY
from gradwalk.engine.trace.budget_numbers import (ACCUMULATE, EDGE, EVALUATE, LEDGER, NODE, NUMBERS,
                                         SCALAR, ZERO)
from gradwalk.engine.trace.budget_results import extras, groups_bound, results


class Passes:
    """The per-node lists both bounds read, each made once, on first use: the size check
    asks the light bound and, when it passes the limit, scalar_bound, which reads them again
    (a 100,001-node chain: about 0.1 µs a node saved). Made per check and dropped after it."""

    def __init__(self, tracer):
        self.tracer = tracer

    @cached_property
    def kinds(self) -> set:
        """The values' types."""
        return set(map(type, self.tracer.values))

    @cached_property
    def inputs(self) -> list:
        """Each node's input indices."""
        return list(map(attrgetter("inputs"), self.tracer.program.nodes))

    @cached_property
    def degrees(self) -> list[int]:
        """Each node's input count."""
        return list(map(len, self.inputs))

    @cached_property
    def params(self) -> int:
        """The nodes' params in the graph's JSON (bytes): `{}` for most."""
        nodes = self.tracer.program.nodes
        return 2 * len(nodes) + sum(len(json.dumps(p, default=str)) - 2 for p in
                                    filter(None, map(attrgetter("params"), nodes)))


def scalar_bound(tracer, passes: Passes | None = None) -> int | None:
    """An upper bound of sum(per_node(tracer, inline)) for a program whose values are all
    scalars, in reverse mode without the gradient check or the bug lab; else None.
    passes: the lists the light bound made (Passes), when the caller asked it first."""
    values = tracer.values
    if tracer.options.mode != "reverse" or tracer.second is not None or tracer.options.check \
            or getattr(tracer, "lab", None) is not None:
        return None
    passes = passes or Passes(tracer)
    kinds = passes.kinds
    if not kinds <= {float} and not all(type(v) is float or np.ndim(v) == 0 for v in values):
        return None
    nodes, ids = tracer.program.nodes, tracer.ids
    n = len(nodes)
    inputs = passes.inputs
    degree = np.fromiter(passes.degrees, np.int64, n)
    flat = np.fromiter(itertools.chain.from_iterable(inputs), np.int64, int(degree.sum()))
    owner = np.repeat(np.arange(n), degree)
    start = np.cumsum(degree) - degree
    arg = np.arange(len(flat)) - start[owner]
    is_op = np.fromiter(map("op".__eq__, map(attrgetter("role"), nodes)), bool, n)
    graded = np.fromiter(tracer.requires, bool, n)[flat] & is_op[owner]
    id_b = np.fromiter(map(len, ids), np.int64, n)
    # per node only the labels' bytes (the partials index them); the formulas and symbols
    # are summed over the edges below, each text fetched per edge and joined
    labels = list(map(attrgetter("label"), nodes))
    label_b = _utf8_each(labels)
    escaped = (_escaped(labels) + _escaped(tracer.formulas) + _escaped(tracer.symbols)
               + _escaped(list(filter(None, map(attrgetter("name"), nodes)))))
    seq = len(str(2 * n))
    # per node: the graph node (its texts escaped as the graph's JSON writes them), its edges,
    # its ledger, its evaluate event with its value exactly (orjson's form)
    params = passes.params
    floats = values if kinds <= {float} else list(map(float, values))
    # every value's orjson form, from one dump per 4,096 values (its brackets and commas off):
    # one dump of them all, a megabyte freed, left the check's later arrays resident
    known = sum(len(orjson.dumps(floats[k:k + 4096])) - min(4096, n - k) - 1
                for k in range(0, n, 4096))
    if not math.isfinite(sum(floats)):   # a non-finite one is a string: "-Infinity"
        known += 7 * n
    node_part = (n * (NODE + EVALUATE + seq) + 3 * int(id_b.sum()) + escaped + params + known
                 + int(4 * id_b[flat].sum() + 3 * len(flat) + EDGE * len(flat)
                       + id_b[owner].sum()) + _ledgers(tracer, id_b, int(is_op.sum())))
    # per edge that may carry a gradient: its accumulate event
    e_owner, e_input, e_arg = owner[graded], flat[graded], arg[graded]
    ops = list(map(attrgetter("op"), nodes))
    partial = _partials(ops, e_owner, e_arg, flat, start, degree, label_b)
    formulas, symbols = tracer.formulas, tracer.symbols
    edge_part = (int(len(e_owner) * (ACCUMULATE + seq + 5 * SCALAR + 6 * NUMBERS)
                     + (id_b[e_owner] + id_b[e_input] + 2 * partial).sum())
                 + _utf8(formulas, e_owner) + _utf8(symbols, e_owner)
                 + 2 * _utf8(symbols, e_input))
    # an input's first contribution starts from 0.0 and narrates no sum: once per input
    firsts = int(np.count_nonzero(np.bincount(e_input, minlength=n))) * \
        (SCALAR - ZERO + 3 * NUMBERS)
    longest = int(label_b.max(initial=0))   # the longest label's bytes, known: not encoded again
    return (node_part + edge_part - firsts + extras(tracer, None, longest=longest, ops=set(ops))
            + groups_bound(tracer.program, longest)
            + results(tracer, [()] * n, 0))


def light_bound(tracer, limit: int | None = None, passes: Passes | None = None) -> int | None:
    """A looser and cheaper upper bound than scalar_bound (so of per_node's sum), for the same
    programs (None for the others): its terms with each per-edge figure at its largest (an
    id, a partial, an input's symbol), each node's formula and symbol counted for as many
    edges as the busiest node has, every number at 24 bytes, and nothing subtracted for an
    input's first contribution. A few C-level passes over per-node lists and no array per
    edge: about a fifth of scalar_bound's cost. The size check asks it first and goes on to
    the closer figures only when it passes the limit (engine/trace/tracer.py), so a body
    that fits by far costs no estimate, and one that may not fit is estimated before the
    graph is sent (the stream's first event).

    limit: once the terms worked out so far pass it (bytes), their sum is returned without
    the rest (the texts' passes, most of the cost): a figure past `limit`, not the bound, for
    a caller that only compares (a 100,001-node chain passes 100 MB before any text is read,
    and its size check goes straight on to scalar_bound). passes: Passes, kept by a caller
    that may ask scalar_bound next."""
    values = tracer.values
    if tracer.options.mode != "reverse" or tracer.second is not None or tracer.options.check \
            or getattr(tracer, "lab", None) is not None:
        return None
    passes = passes or Passes(tracer)
    kinds = passes.kinds
    if not kinds <= {float, np.float64, np.ndarray} or np.ndarray in kinds and \
            any(v.ndim for v in values if type(v) is np.ndarray):
        return None   # a tensor
    nodes, ids = tracer.program.nodes, tracer.ids
    n = len(nodes)
    degrees = passes.degrees
    edges, widest = sum(degrees), max(degrees, default=0)
    id_max = max(map(len, ids), default=0)
    params = passes.params
    # orjson: 24 at most; a non-finite one 7 more ("-Infinity"). Python floats by their sum (an
    # overflow counts as one: a looser figure, never a lower one); numpy's each (inf + -inf of
    # numpy scalars warns)
    finite = math.isfinite(sum(values)) if kinds == {float} else all(map(math.isfinite, values))
    known = SCALAR * n + (0 if finite else 7 * n)
    led = tracer.ledger
    # a node's ledger numbers: its 0-d saved tensors (at most its inputs and its output, 8
    # bytes each), an 8-byte activation, and FLOPs at most the totals'
    digits = (len(str(widest + 1)) + len(str(8 * (widest + 1))) + 1
              + len(str(led.totals["flops_forward"])) + len(str(led.totals["flops_backward"])))
    ledgers = (n * (LEDGER + digits) + sum(map(len, led.saves)) * (id_max + 3)
               + (n - led.released_by.count(None)) * id_max)
    seq = len(str(2 * n))
    # the terms without a text: the nodes, their edges and ledgers, the accumulate events
    total = (n * (NODE + EVALUATE + seq + 3 * id_max) + params + known
             + edges * (5 * id_max + 3 + EDGE) + ledgers
             + edges * (ACCUMULATE + seq + 5 * SCALAR + 6 * NUMBERS + 2 * id_max))
    if limit is not None and total > limit:
        return total
    # the labels (a name is where its node's label starts, `x` of x⁽²⁴⁹⁷⁾: their bytes
    # again) and each edge's partial at its longest
    (_,), (label_m,), (label_e,) = _totals(list(map(attrgetter("label"), nodes)))
    ops = set(map(attrgetter("op"), nodes))
    partial = _longest_partial(ops, widest, label_m)
    total += 2 * label_e + edges * 2 * partial
    if limit is not None and total > limit:
        return total
    (formula_s, symbol_s), (_, symbol_m), escaped = _totals(
        tracer.formulas, tracer.symbols, formulas=tracer.formulas)
    return (total + sum(escaped) + edges * 2 * symbol_m + widest * (formula_s + symbol_s)
            + extras(tracer, None, longest=label_m, ops=ops) + groups_bound(tracer.program, label_m)
            + results(tracer, [()] * n, 0))


def _totals(*lists: list[str], formulas: list[str] | None = None
            ) -> tuple[list[int], list[int], list[int]]:
    """Each list's bytes in UTF-8, summed; its longest text's bytes at most (4 a character
    where it is not ASCII); and its bytes escaped to ASCII as the graph's JSON writes them, at
    most: a character of u bytes in UTF-8 takes 1 escaped when ASCII, else 4 or 6 (u = 2), 6
    (u = 3) or 10 (u = 4), never more than 5u - 4, so a text of c characters and b bytes takes
    at most 5b - 4c (without the escaping's own pass, twice the UTF-8 one's cost).
    `formulas`: the list among them whose longest is not asked for (0)."""
    sums, longest, escaped = [], [], []
    for texts in lists:
        chars = utf8 = count = 0
        for k in range(0, len(texts), 4096):   # joined a piece at a time: no copy of them all
            c, u, m = _piece(texts[k:k + 4096], texts is not formulas)   # (the trace's peak
            count, utf8, chars = count + c, utf8 + u, max(chars, m)    # memory, bench/chain.py)
        sums.append(utf8)
        longest.append(chars if utf8 == count else 4 * chars)
        escaped.append(5 * utf8 - 4 * count)   # = count when every text is ASCII
    return sums, longest, escaped


def _piece(texts: list[str], longest: bool) -> tuple[int, int, int]:
    """Some texts' characters and UTF-8 bytes, summed, and (`longest`) the most characters
    of one: from one joining with NUL between them, counted over its UTF-16 units with numpy
    (a unit below U+0080 is 1 byte in UTF-8, below U+0800 2, else 3), the longest as the
    widest gap between the NULs (a pass of len() per text cost as much as the join and the
    encoding together). A text with a NUL or a character past U+FFFF: counted text by text."""
    joined = "\0".join(texts)
    try:
        units = np.frombuffer(joined.encode("utf-16-le"), np.uint16)
    except UnicodeEncodeError:   # a lone surrogate
        units = None
    if units is not None and len(units) == len(joined):
        nul = np.flatnonzero(units == 0)
        if len(nul) == len(texts) - 1:
            count = len(units) - len(nul)
            utf8 = count + int(np.count_nonzero(units >= 0x80)) + \
                int(np.count_nonzero(units >= 0x800))
            gaps = int(np.diff(nul, prepend=-1, append=len(units)).max()) - 1 if longest else 0
            return count, utf8, gaps
    joined = "".join(texts)
    return (len(joined), len(joined) if joined.isascii() else len(joined.encode()),
            max(map(len, texts)) if longest else 0)


def _longest_partial(ops: set[str], widest: int, label: int) -> int:
    """The most bytes any edge's partial derivative may take (budget._partials): its op's
    template with every label in it at `label` bytes, or, made by code, the node's input
    labels twice, its own and 24 bytes."""
    longest = (2 * widest + 1) * label + 24
    for op in ops:
        row = REGISTRY.get(op)
        if row is None:   # a leaf's or a constant's: no edges
            continue
        for text in row.partials:
            if isinstance(text, str):
                holes = sum(text.count("{%d}" % k) for k in range(row.arity)) + \
                    text.count("{out}")
                longest = max(longest, len(text.encode()) + 4 + holes * label)
    return longest


def _utf8_each(texts: list[str]) -> np.ndarray:
    """Each text's UTF-8 bytes (int64, one per text); an ASCII list (the common case) is not
    encoded."""
    if "".join(texts).isascii():
        return np.fromiter(map(len, texts), np.int64, len(texts))
    return np.fromiter(map(len, map(str.encode, texts)), np.int64, len(texts))


def _escaped(texts: list[str]) -> int:
    """All the texts' bytes escaped to ASCII as the graph's JSON writes them (budget's
    `backslashreplace`: 1 byte an ASCII character, 4 one below U+0100, 6 one below U+10000,
    10 above), summed; counted over the UTF-16 code units with numpy (the escaping encoder
    itself costs about 40 ns a node on the chain's symbols, this 10). A piece of 4,096 texts
    at a time: the whole list's units at once (3.5 MB for the 100,001-node chain's symbols)
    stayed resident after they were freed, and raised the trace's peak memory."""
    total = 0
    for k in range(0, len(texts), 4096):
        joined = "".join(texts[k:k + 4096])
        if joined.isascii():
            total += len(joined)
            continue
        try:
            units = np.frombuffer(joined.encode("utf-16-le"), np.uint16)
        except UnicodeEncodeError:   # a lone surrogate
            units = None
        if units is None or len(units) != len(joined):   # one above U+FFFF: two units
            total += len(joined.encode("ascii", "backslashreplace"))
            continue
        total += len(units) + 3 * int(np.count_nonzero(units >= 0x80)) + \
            2 * int(np.count_nonzero(units >= 0x100))
    return total


def _utf8(texts: list[str], at: np.ndarray) -> int:
    """The UTF-8 bytes of texts[k] for each k of `at` (repeats counted each time), summed: the
    texts fetched and joined a piece at a time, no per-text bytes object (about a quarter of
    an encoded length per text, and only for the indices asked). A piece at a time, so
    neither the joined texts nor the indices as Python ints are all alive at once (100,000
    ints at once raised the 100,001-node chain's peak memory by 0.1 KB a node)."""
    total, get = 0, texts.__getitem__
    for k in range(0, len(at), 4096):
        joined = "".join(map(get, at[k:k + 4096].tolist()))
        total += len(joined) if joined.isascii() else len(joined.encode())
    return total


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


def _partials(ops: list[str], e_owner, e_arg, flat, start, degree, label_b) -> np.ndarray:
    """Each edge's partial derivative as narrated: its op's template (engine/ops' `partials`)
    with its labels in it, or, for a template made by code, twice its node's input labels,
    its own label and 24 bytes (budget._partials, per edge)."""
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
