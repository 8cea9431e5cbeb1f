"""The size check's bounds for a scalar program in reverse mode (engine/trace/tracer.py
`_check_size`), each an upper bound of the body's estimate (engine/trace/budget.py
`per_node`, about 4 µs a node in Python on the chain `x = x * 1.0001 + 0.001`), asked
cheapest first so that a body that fits costs no estimate:

- light_bound: a few C-level passes over per-node lists and no array per edge, each per-edge
  figure at its largest (about 0.3 µs a node on the 10,001-node chain; 2.3 times its body);
- budget_graded.graded_bound: per_node's terms over the edges that may carry a gradient, with
  numpy (1.2 times the 100,001-node chain's body, which passes the light bound);
- scalar_bound: the same with each edge's partial and formula its own (budget_graded's
  edge_bound).

The lists they read are made once per check (Passes). tests/engine/test_size_bounds.py checks
that each bounds the next and per_node, on varied programs.
"""
from __future__ import annotations

import json
import math
from functools import cached_property

import numpy as np

from gradwalk.engine.trace.budget_numbers import (ACCUMULATE, EDGE, EVALUATE, LEDGER, NODE, NUMBERS,
                                         SCALAR)
from gradwalk.engine.trace.budget_graded import longest_partial, recompute_bytes
from gradwalk.engine.trace.budget_results import extras, groups_bound, results


class Passes:
    """The per-node lists the bounds read, each made once, on first use: the size check asks
    the light bound and, past the limit, the closer ones, which read them again (a
    100,001-node chain: about 0.1 µs a node saved). Made per check and dropped after it. The
    nodes' attributes by comprehensions: their reads are specialized, about two thirds of an
    attrgetter's map's time."""

    def __init__(self, tracer):
        self.tracer = tracer

    @cached_property
    def kinds(self) -> set:
        """The values' types."""
        return set(map(type, self.tracer.values))

    @cached_property
    def inputs(self) -> list:
        """Each node's input indices."""
        return self._sweep[0]

    @cached_property
    def degrees(self) -> np.ndarray:
        """Each node's input count (int64; numpy's sum and max, not Python's)."""
        return self._sweep[1]

    @cached_property
    def params(self) -> int:
        """The nodes' params in the graph's JSON (bytes): `{}` for most."""
        return self._sweep[2]

    @cached_property
    def _sweep(self) -> tuple[list, np.ndarray, int]:
        """(inputs, degrees, params) in one sweep over the nodes, a piece at a time: a node's
        input list is read while the node is in the cache (a pass over the lists after one
        over the nodes read each from memory again: 0.1 µs a node on the 100,001-node chain,
        where this whole sweep takes about 0.08)."""
        from gradwalk.engine.trace.budget_graded import PIECE

        nodes = self.tracer.program.nodes
        inputs, degrees, params = [], [], 2 * len(nodes)
        for k in range(0, len(nodes), PIECE):
            piece = [node.inputs for node in nodes[k:k + PIECE]]
            inputs += piece
            degrees.append(np.fromiter(map(len, piece), np.int64, len(piece)))
            params += sum(len(json.dumps(p, default=str)) - 2 for p in
                          [node.params for node in nodes[k:k + PIECE] if node.params])
        return inputs, np.concatenate(degrees) if degrees else np.zeros(0, np.int64), params

    @cached_property
    def edges(self) -> tuple[int, int]:
        """(the edges, the most inputs of a node)."""
        return int(self.degrees.sum()), int(self.degrees.max(initial=0))

    @cached_property
    def id_max(self) -> int:
        """The longest id's bytes."""
        from gradwalk.engine.trace.budget_graded import id_longest, indexed_ids

        return id_longest(self.tracer.ids, indexed_ids(self.tracer))

    @cached_property
    def ledgers(self) -> tuple[int, int, int]:
        """(the digits of a node's `ledger` numbers at most, the saved tensors, the nodes
        released): a node's 0-d saved tensors are at most its inputs and its output, 8 bytes
        each, its activation 8 bytes, its FLOPs at most the totals'."""
        led, widest = self.tracer.ledger, self.edges[1]
        digits = (len(str(widest + 1)) + len(str(8 * (widest + 1))) + 1
                  + len(str(led.totals["flops_forward"]))
                  + len(str(led.totals["flops_backward"])))
        return digits, sum(map(len, led.saves)), len(led.released_by) - \
            led.released_by.count(None)

    def ledger_bytes(self, ops: int) -> int:
        """The `ledger` objects of `ops` op nodes (bytes, at most): their numbers (`ledgers`),
        the ids they save and the one that releases each, at the longest id."""
        digits, saved, released = self.ledgers
        return ops * (LEDGER + digits) + saved * (self.id_max + 3) + released * self.id_max


def scalar_bound(tracer, passes: Passes | None = None) -> int | None:
    """An upper bound of sum(per_node(tracer, inline)) for a program whose values are all
    scalars, in reverse mode without the gradient check or the bug lab; else None: per_node's
    terms over every node and every edge that may carry a gradient, as budget_graded's bound
    counts them, with each edge's partial and formula its own (budget_graded.edge_bound).
    passes: the lists the light bound made (Passes), when the caller asked it first."""
    from gradwalk.engine.trace.budget_graded import edge_bound

    return edge_bound(tracer, passes or Passes(tracer), close=True)


def light_bound(tracer, limit: int | None = None, passes: Passes | None = None) -> int | None:
    """A looser and cheaper upper bound than scalar_bound (so of per_node's sum), for the same
    programs (None for the others): its terms with each per-edge figure at its largest (an
    id, a partial, an input's symbol), each node's formula and symbol counted for as many
    edges as the busiest node has, every number at 24 bytes, and nothing subtracted for an
    input's first contribution. A few C-level passes over per-node lists and no array per
    edge: about half the graded bound's cost. The size check asks it first and goes on to
    the closer figures only when it passes the limit (engine/trace/tracer.py), so a body
    that fits by far costs no estimate, and one that may not fit is estimated before the
    graph is sent (the stream's first event).

    limit: once the terms worked out so far pass it (bytes), their sum is returned without
    the rest (the texts' passes, most of the cost): a figure past `limit`, not the bound, for
    a caller that only compares (a 100,001-node chain passes 100 MB before any text is read,
    and its size check goes straight on to the graded bound). passes: Passes, kept by a
    caller that may ask the closer bounds next."""
    values = tracer.values
    if tracer.options.mode != "reverse" or tracer.second is not None or tracer.options.check \
            or getattr(tracer, "lab", None) is not None:
        return None
    passes = passes or Passes(tracer)
    kinds = passes.kinds
    if not kinds <= {float, np.float64, np.ndarray} or np.ndarray in kinds and \
            any(v.ndim for v in values if type(v) is np.ndarray):
        return None   # a tensor
    nodes = tracer.program.nodes
    n = len(nodes)
    edges, widest = passes.edges
    id_max = passes.id_max
    params = passes.params
    # orjson: 24 at most; a non-finite one 7 more ("-Infinity"). Python floats by their sum (an
    # overflow counts as one: a looser figure, never a lower one); numpy's each (inf + -inf of
    # numpy scalars warns)
    finite = math.isfinite(sum(values)) if kinds == {float} else all(map(math.isfinite, values))
    known = SCALAR * n + (0 if finite else 7 * n)
    ledgers = passes.ledger_bytes(n)
    seq = len(str(2 * n))
    # the terms without a text: the nodes, their edges and ledgers, the accumulate events
    total = (n * (NODE + EVALUATE + seq + 3 * id_max) + params + known
             + edges * (5 * id_max + 3 + EDGE) + ledgers + recompute_bytes(tracer, id_max, seq)
             + edges * (ACCUMULATE + seq + 5 * SCALAR + 6 * NUMBERS + 2 * id_max))
    if limit is not None and total > limit:
        return total
    # the labels (a name is where its node's label starts, `x` of x⁽²⁴⁹⁷⁾: their bytes
    # again) and each edge's partial at its longest
    (_,), (label_m,), (label_e,) = _totals([node.label for node in nodes])
    ops = {node.op for node in nodes}
    partial = longest_partial(ops, widest, label_m)
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
