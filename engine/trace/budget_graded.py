"""The closer bounds of a scalar program's body in reverse mode (engine/trace/budget_scalar.py
has the light one): graded_bound, tight enough to decide the 100,001-node chain (1.23 times
its 77.6 MB body, where the light bound is 2.3 times) for about 0.5 µs a node, and
scalar_bound (edge_bound with `close`) for about 0.8 (both besides the light bound's lists).

The light bound counts an accumulate event for every edge; the walk sends a gradient only
along an edge whose input requires grad and whose node may get an adjoint (half the chain's
edges: its constants require none). So these list the edges once (an array of input
indices, from the lists the light bound made: budget_scalar.Passes) and count per_node's
terms (engine/trace/budget.py) over those edges with numpy: the texts by one joining per
list and numpy over its UTF-16 units (each symbol's UTF-8 bytes, weighed by the edges that
narrate it; the labels' each, for the longest; the formulas' totals), an id by its digits
(graph.node_ids: `n` and the index), a value exactly (orjson), the groups by
budget_results.groups_bound; graded_bound each edge's partial derivative at its op's
longest and each formula as often as the busiest node's edges, scalar_bound both exactly.
tests/engine/test_size_bounds.py checks that light >= graded >= scalar >= per_node.
"""
from __future__ import annotations

import itertools
import math
from functools import cached_property

import numpy as np
import orjson

from gradwalk.engine.ops.registry import REGISTRY
from gradwalk.engine.trace.budget_numbers import (ACCUMULATE, EDGE, EVALUATE, NODE, NUMBERS,
                                         RECOMPUTE, SCALAR, ZERO)
from gradwalk.engine.trace.budget_results import extras, groups_bound, results

PIECE = 4096   # texts joined at a time: the whole list's UTF-16 units at once raised peak memory


def graded_bound(tracer, passes) -> int | None:
    """An upper bound of sum(per_node(tracer, inline)) for the programs scalar_bound takes
    (scalars, reverse mode, no gradient check, no bug lab); else None. passes: the lists the
    light bound made (budget_scalar.Passes)."""
    return edge_bound(tracer, passes, close=False)


def edge_bound(tracer, passes, close: bool) -> int | None:
    """graded_bound, or with `close` budget_scalar.scalar_bound: each edge's partial with its
    labels in it (_partials) and its node's own formula, not the longest ones
    (about twice the cost)."""
    if not scalar_program(tracer, passes):
        return None
    nodes, n = tracer.program.nodes, len(tracer.program.nodes)
    edges, id_b = Edges(tracer, passes), id_bytes(tracer.ids, indexed_ids(tracer))
    ops, labels, names = [], Texts(each=True), Texts()
    formulas, symbols = Texts(each=close), Texts(each=True)
    for k in range(0, n, PIECE):   # a piece of nodes at a time: read while in the cache
        piece = nodes[k:k + PIECE]
        ops += [node.op for node in piece]
        labels.add([node.label for node in piece])
        names.add([node.name for node in piece if node.name])
        formulas.add(tracer.formulas[k:k + PIECE])
        symbols.add(tracer.symbols[k:k + PIECE])
    longest, seq = labels.longest, len(str(2 * n))
    # per node: the graph node (its texts escaped), its edges, its ledger, its evaluate event
    # with its value exactly (orjson's form), its recompute events
    node_part = (n * (NODE + EVALUATE + seq) + 3 * int(id_b.sum()) + passes.params
                 + labels.escaped + formulas.escaped + symbols.escaped + names.escaped
                 + values_bytes(tracer.values, passes.kinds)
                 + edges.count * (3 + EDGE) + 4 * int(id_b[edges.inputs].sum())
                 + int(id_b @ edges.degree)
                 + passes.ledger_bytes(n - ops.count("leaf") - ops.count("const"))
                 + recompute_bytes(tracer, passes.id_max, seq))
    # per edge that may carry a gradient: its accumulate event, its partial, its node's
    # formula and symbol, its input's symbol twice; an input's first contribution starts from
    # 0.0 and narrates no sum
    op_set, owned, fed = set(ops), edges.owned, edges.fed
    if close:
        partials = int(_partials(ops, *edges.arguments(), labels.each).sum())
        formula = int(formulas.each @ owned)
    else:   # each partial at its op's longest, each formula counted for the busiest node's edges
        partials = edges.graded * longest_partial(op_set, edges.widest, longest)
        formula = int(owned.max(initial=0)) * formulas.utf8
    edge_part = (edges.graded * (ACCUMULATE + seq + 5 * SCALAR + 6 * NUMBERS) + 2 * partials
                 + formula + int((id_b + symbols.each) @ owned)
                 + int((id_b + 2 * symbols.each) @ fed)
                 - int(np.count_nonzero(fed)) * (SCALAR - ZERO + 3 * NUMBERS))
    return (node_part + edge_part + extras(tracer, None, longest=longest, ops=op_set)
            + groups_bound(tracer.program, longest) + results(tracer, [()] * n, 0))


class Edges:
    """The program's edges as numpy arrays, from budget_scalar.Passes' lists: `inputs` (each
    edge's input, nodes in order), `degree` (each node's input count), `count`, `widest`;
    the edges that may carry a gradient (per_node's: the input requires grad and the node
    may get an adjoint, so requires grad or is the output): `graded` (their count), `owned`
    and `fed` (per node, those it is the node of and the input of)."""

    def __init__(self, tracer, passes):
        self.degree = passes.degrees
        n = len(self.degree)
        self.count, self.widest = passes.edges
        self.inputs = np.fromiter(itertools.chain.from_iterable(passes.inputs), np.int64,
                                  self.count)
        self.owner = np.repeat(np.arange(n), self.degree)
        requires = np.frombuffer(bytes(tracer.requires), bool)
        self.mask = requires[self.inputs] & (requires[self.owner] | (self.owner == tracer.output))
        self.graded = int(np.count_nonzero(self.mask))
        self.owned = np.bincount(self.owner[self.mask], minlength=n)
        self.fed = np.bincount(self.inputs[self.mask], minlength=n)

    def arguments(self) -> tuple:
        """_partials' arrays: per edge that may carry a gradient its node and
        argument; every edge's input; each node's first edge and input count."""
        start = np.cumsum(self.degree) - self.degree
        arg = np.arange(self.count) - start[self.owner]
        return self.owner[self.mask], arg[self.mask], self.inputs, start, self.degree


def indexed_ids(tracer) -> bool:
    """Whether the tracer's ids are graph.node_ids' (`n` and the index: every Tracer's, which
    says so by `ids_indexed`); an object without that flag has its ids measured."""
    return getattr(tracer, "ids_indexed", False)


def id_longest(ids: list[str], indexed: bool = False) -> int:
    """The longest id's bytes: the last's when the ids are graph.node_ids' (`indexed`, as the
    Tracer says: indexed_ids), else measured."""
    if indexed and ids:
        return len(ids[-1])
    return max(map(len, ids), default=0)


def id_bytes(ids: list[str], indexed: bool = False) -> np.ndarray:
    """Each node's id's bytes (int64): with `indexed` (the ids are graph.node_ids', `n` and
    the index: indexed_ids) worked out from the index's digits, else measured."""
    n = len(ids)
    if indexed:
        index = np.arange(n)
        out = np.full(n, 2, np.int64)
        power = 10
        while power < n:
            out += index >= power
            power *= 10
        return out
    return np.fromiter(map(len, ids), np.int64, n)


def recompute_bytes(tracer, id_max: int, seq: int) -> int:
    """The `recompute` events of a program's `with checkpoint():` blocks (engine/blocks.py),
    at most: one per node of a block (budget.per_node's), its value at its longest, its
    formula by the block's formulas' bytes."""
    blocks = tracer.program.blocks
    return sum((b.end - b.first) * (RECOMPUTE + seq + id_max + SCALAR)
               + Texts(tracer.formulas[b.first:b.end]).utf8 for b in blocks)


def values_bytes(values: list, kinds: set) -> int:
    """Every scalar value's orjson form (bytes), from one dump per PIECE values (their
    brackets and commas off): one dump of them all, a megabyte freed, left the check's later
    arrays resident. A non-finite one is a string ("-Infinity"): 7 bytes more each, when
    any is."""
    n = len(values)
    floats = values if kinds <= {float} else list(map(float, values))
    known = sum(len(orjson.dumps(floats[k:k + PIECE])) - min(PIECE, n - k) - 1
                for k in range(0, n, PIECE))
    return known if math.isfinite(sum(floats)) else known + 7 * n


class Texts:
    """A list of texts' bytes: `utf8` (UTF-8, summed), `escaped` (to ASCII as the graph's JSON
    writes them: budget's `backslashreplace`, 1 byte an ASCII character, 4 one below U+0100,
    6 one below U+10000, 10 above), and with `each`, `each` (per text, UTF-8, int64) and
    `longest` (its largest). Counted over the UTF-16 units of the texts joined with NUL, a
    piece of at most PIECE texts at a time (`add`), with numpy (a text's UTF-8 bytes: 1 a unit
    below U+0080, 2 below U+0800, else 3); a piece with a NUL in a text, a character past
    U+FFFF or a lone surrogate is counted text by text."""

    def __init__(self, texts: list[str] = (), each: bool = False):
        self.utf8 = self.escaped = 0
        self.pieces: list | None = [] if each else None
        for k in range(0, len(texts), PIECE):
            self.add(texts[k:k + PIECE])

    @cached_property
    def each(self) -> np.ndarray:
        return np.concatenate(self.pieces) if self.pieces else np.zeros(0, np.int64)

    @cached_property
    def longest(self) -> int:
        return int(self.each.max(initial=0))

    def add(self, texts: list[str]) -> None:
        """Count a piece of texts (at most PIECE: their UTF-16 units are held at once)."""
        each = self.pieces is not None
        joined = "\0".join(texts)
        try:
            units = np.frombuffer(joined.encode("utf-16-le"), np.uint16)
        except UnicodeEncodeError:   # a lone surrogate
            units = None
        if units is None or len(units) != len(joined):
            return self._by_text(texts, each)
        nul = np.flatnonzero(units == 0) if each else None
        if (len(nul) if each else int(np.count_nonzero(units == 0))) != len(texts) - 1:
            return self._by_text(texts, each)
        chars = len(units) - len(texts) + 1
        wide = int(np.count_nonzero(units >= 0x80))
        if not wide:   # ASCII
            self.utf8 += chars
            self.escaped += chars
            if each:
                self.pieces.append(np.diff(nul, prepend=-1, append=len(units)) - 1)
            return
        above = units >= 0x800
        self.utf8 += chars + wide + int(np.count_nonzero(above))
        self.escaped += chars + 3 * wide + 2 * int(np.count_nonzero(units >= 0x100))
        if each:   # each text's characters, and the bytes past its units' first (a NUL's: 0)
            extra = (units >= 0x80).view(np.uint8) + above.view(np.uint8)
            total = np.cumsum(extra, dtype=np.int64)[np.append(nul, len(units) - 1)]
            self.pieces.append(np.diff(nul, prepend=-1, append=len(units)) - 1
                               + np.diff(total, prepend=0))

    def _by_text(self, texts: list[str], each: bool) -> None:
        utf8 = [len(t.encode("utf-8", "surrogatepass")) for t in texts]
        self.utf8 += sum(utf8)
        self.escaped += sum(len(t.encode("ascii", "backslashreplace")) for t in texts)
        if each:
            self.pieces.append(np.array(utf8, np.int64))


def scalar_program(tracer, passes) -> bool:
    """Whether scalar_bound (and budget_graded's bound) take the program: every value a
    scalar, reverse mode, without the gradient check or the bug lab."""
    if tracer.options.mode != "reverse" or tracer.second is not None or tracer.options.check \
            or getattr(tracer, "lab", None) is not None:
        return False
    return passes.kinds <= {float} or all(type(v) is float or np.ndim(v) == 0
                                          for v in tracer.values)


def longest_partial(ops: set[str], widest: int, label: int) -> int:
    """The most bytes any edge's partial derivative may take (budget._partials): its op's
    template with every label in it at `label` bytes, or, made by code, the node's input
    labels twice, its own and 24 bytes (only when one of the ops has such a template)."""
    longest = 0
    for op in ops:
        row = REGISTRY.get(op)
        if row is None:   # a leaf's or a constant's: no edges
            continue
        for text in row.partials:
            if isinstance(text, str):
                holes = sum(text.count("{%d}" % k) for k in range(row.arity)) + \
                    text.count("{out}")
                longest = max(longest, len(text.encode()) + 4 + holes * label)
            else:
                longest = max(longest, (2 * widest + 1) * label + 24)
    return longest


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
