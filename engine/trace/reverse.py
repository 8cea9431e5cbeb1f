"""Reverse mode: the backward pass walked edge by edge (the default mode).

Events (docs/trace-format.md): an `evaluate` event per node in creation order, then `seed` at
the output, then per backward edge an `accumulate` (x̄ += local · ḡ) after an `unbroadcast`
where the contribution's shape was summed down (STYLE.md), a `recompute` per node of a
checkpoint block before its first backward step, then `done`. The order of the edges is
reverse creation order, which is a reverse topological order of the tape.

`backward` is also the pass the other modes drain for adjoints without events (forward mode's
comparison, the node detail), and the bug lab walks with `edge`, `scalar_edges` and
`recompute` (engine/trace/bugs.py).
"""
from __future__ import annotations

import itertools
from typing import Iterator

import numpy as np

from gradwalk.engine.labels import ATOM
from gradwalk.engine.ops import get_op
from gradwalk.engine.ops.broadcast import unbroadcast
from gradwalk.engine.trace import (edge_notes, evaluated, narrate, scalar_rows, seed, underflow,
                                   unused)
from gradwalk.engine.trace.watch import (UNWATCHED, check as watch_check, edge as watch_edge,
                                         returning, watch_adjoints)
from gradwalk.engine.trace.mode import Mode
from gradwalk.engine.trace.values import encode, short


def prepare(t, limits, state):
    """A node L does not use gets no gradient: said (engine/trace/unused.py)."""
    unused.warn_unused(t.warnings, t.program, t.output, t.ids, t.formulas)
    return True


def walk(t) -> Iterator[dict]:
    """`evaluate` events, then the backward pass's records, then `done`: made a run of nodes
    at a time (Deadline.runs: at most CHECK_EVERY nodes, the clock checked before each) and
    handed out by itertools.chain, in C, with no generator resumed per record (issue 15
    §1). A run's records are all made before its first is handed out, so an error inside
    a run comes before any record of that run."""
    return itertools.chain.from_iterable(_runs_of_walk(t))


def _runs_of_walk(t) -> Iterator[list]:
    """walk's records in lists (runs of nodes), `done` last."""
    t.first_non_finite = None
    tiny = underflow.tiny(t.program.dtype)   # below it a number underflowed
    seq = 0
    for run in t.deadline.runs(t.order):
        yield evaluated.records(t, run, seq, tiny)
        seq += len(run)
    seq = itertools.count(seq)
    cut = t.cuts is not None and t.cuts.program is t.program
    records = t.backward(seq, watch=not cut)
    watched = getattr(t, "watched", UNWATCHED)
    if records is watched[0]:   # this walk's own pass, watched as it goes: its runs
        adjoints = yield from watched[1]
    else:   # a mode's own backward pass (the bug lab's), or the cut paths' narration on it
        if cut:   # say where it's cut
            records = t.cuts.narrate(records, t.ids)
        returned: list = []
        yield returning(watch_adjoints(t, records), returned)
        adjoints = returned[0]
    yield (t.done(next(seq), adjoints),)


MODE = Mode("reverse", wanted=lambda options, program: options.mode == "reverse",
            prepare=prepare, walk=walk)


def backward(t, seq, watch: bool = False) -> Iterator[dict]:
    """The seed record, then every backward edge's records in reverse creation order; returns
    every node's adjoint (None where none arrives). watch: the records are watched as they
    are made (watch_adjoints' checks, without a generator around them: a resume per record
    cost a tenth of a chain's backward), for a walk that watches them next and puts nothing
    between (walk); `t.watched` is then (that generator, the lists of records it hands out
    one by one: `_edges`, which the walk hands out itself), and watch_adjoints hands the
    generator back."""
    runs = _edges(t, seq, watch=watch)
    records = _one_by_one(runs)
    if watch:
        t.watched = (records, runs)
    return records


def _one_by_one(runs: Iterator[list]) -> Iterator[dict]:
    """The records of `runs` one by one; returns what `runs` returns."""
    returned: list = []
    yield from itertools.chain.from_iterable(returning(runs, returned))
    return returned[0]


def scalar_edges(t, node, g, adjoints: list, seq, only: int | None = None,
                 fallback: bool = True) -> list[dict]:
    """The records of every backward edge (or argument `only`'s) of a scalar + - * / or
    negation on floats (engine/trace/scalar.py) with upstream gradient `g`, as the backward
    pass writes them (`_edges`); an edge where Python would raise, or whose contribution is
    not finite, is the numpy path's (edge), or, without `fallback`, left undone (no record,
    its adjoint untouched). The bug lab and the size estimate's numbers walk with it."""
    return [record for run in _edges(t, seq, node, g, adjoints, only, fallback)
            for record in run]


KEEP_TEXTS = True   # _edges reads the text of the adjoint set last (tests turn it off)


def _edges(t, seq, one=None, upstream=None, adjoints: list | None = None,
           only: int | None = None, fallback: bool = True, watch: bool = False
           ) -> Iterator[list]:
    """The backward pass's records in lists, one per run of nodes (`one` None: the seed,
    then every node in reverse creation order, returning the adjoints), or node `one`'s
    edges with upstream gradient `upstream`.

    One loop over the nodes writes each scalar edge's `accumulate` record in place, its
    narration included (issue 15 §1: a call per node, and one per record for its sentence,
    were about a third of a chain's backward records); what is rare on a chain is a call
    (engine/trace/scalar_rows.py: a rule called, a partial filled, a running sum).
    `last`, `last_text`: the adjoint an edge set last and its narration text (values.short),
    so that when it is read next, as the next node's upstream gradient (along a chain) or
    as an input's running sum (x * x), it is written again without formatting: used only
    while it is that very object, which the walk holds. Formatting a number is most of a
    scalar edge's cost, and along a chain each adjoint is narrated twice: as a
    contribution, then as the upstream gradient (one slot, not one per node: a tuple a
    record and a list of n slots cost more than the few numbers written twice elsewhere).
    watch: each accumulate record is watched before it is handed out, as
    watch_adjoints would (see `backward`)."""
    nodes, values, ids, symbols = t.program.nodes, t.values, t.ids, t.symbols
    rows: dict = {}   # op -> its scalar row (scalar_rows.row), () for the numpy path's ops
    tiny = underflow.tiny(t.program.dtype) if watch else None
    floor = tiny or 0.0   # a first contribution below it underflowed (none is below 0.0)
    low = -floor
    if one is None:
        adjoints, first = _seeded(t, seq)
        yield [first]
        grads = adjoints   # each node's upstream gradient: its adjoint
        runs = t.deadline.runs(reversed(t.order))
        pending = list(t.program.blocks)   # checkpoints not yet recomputed
    else:
        grads, runs, pending = {one.index: upstream}, ((one.index,),), None
        if only is not None:   # that argument's edge alone
            rows = scalar_rows.only(one.op, only)
    last = last_text = None   # the adjoint set last, and its text (see above)
    keep = KEEP_TEXTS
    requires, formulas, strengths = t.requires, t.formulas, t.strengths
    local_texts: dict = {}   # a local derivative -> its text (scalar_rows.local_text)
    for run in runs:
        made: list[dict] = []
        for i in run:
            g = grads[i]
            if g is None:
                continue
            node = nodes[i]
            if node.role != "op":
                continue
            if pending and requires[i]:
                made.extend(recompute(t, i, pending, seq))
            out = values[i]
            row = rows.get(node.op) or scalar_rows.row(rows, node.op)
            if type(out) is not float or not row:
                for arg, j in enumerate(node.inputs):
                    if requires[j]:
                        made.extend(watch_edge(t, edge(t, node, arg, j, g, adjoints, seq), tiny))
                continue
            locals_, plains, _, args, known, fixed, grouped_fixed = row
            ins = node.inputs
            given, g = g, float(g)
            named = ", so" if node.name is not None else ":"
            formula, outbar, dst = formulas[i], symbols[i], ids[i]
            g_text = last_text if given is last and keep else short(g)
            g_signed = f"({g_text})" if g_text[0] == "-" else g_text
            for arg in args:
                j = ins[arg]
                if not requires[j]:
                    continue
                spec = locals_[arg]   # + - *: the rule's own answer at g = 1.0, uncalled
                local_text = known[arg]   # a constant's text (add's, sub's)
                if local_text is not None:
                    local = spec
                else:   # mul's other operand, or the rule's answer
                    local = float(values[ins[spec]]) if spec is not None else \
                        scalar_rows.called(row, arg, out, values, ins)
                contrib = local * g
                if contrib - contrib != 0.0:   # the numpy path applies the rule
                    if fallback:
                        made.extend(watch_edge(t, edge(t, node, arg, j, given, adjoints, seq),
                                               tiny))
                    continue
                if local_text is None:
                    local_text = local_texts.get(local) or \
                        scalar_rows.local_text(local_texts, local)
                partial = fixed[arg]   # "1", "-1": the same text on every edge
                if partial is not None:
                    grouped = grouped_fixed[arg]
                else:
                    plain = plains[arg]
                    if plain is not None:   # "{1}": one input's label, as fill would write it
                        k = ins[plain]
                        partial = nodes[k].label if strengths[k] == ATOM else \
                            f"({nodes[k].label})"
                    else:
                        partial = scalar_rows.filled(row, arg, node, nodes)
                    grouped = partial if " " not in partial else narrate.group(partial)
                if contrib == g:   # equal floats: the same text
                    contrib_text = g_text
                elif 1e-3 <= contrib < 1e5 or -1e5 < contrib <= -1e-3:   # values.short's commonest
                    contrib_text = f"{contrib:.4f}".rstrip("0").rstrip(".")
                else:
                    contrib_text = short(contrib)
                inbar = symbols[j]
                text = (f"{formula}{named} {inbar} += {grouped} · {outbar} = "
                        f"{local_text} · {g_signed} = {contrib_text}")
                before = adjoints[j]
                if before is None:   # the input's first contribution: no running sum
                    adjoints[j] = last = after = contrib
                    last_text, before = contrib_text, 0.0
                    odd = low < after < floor   # underflowed (watched)
                else:
                    known_before = last_text if before is last and keep else None
                    last, last_text, text, before, after, odd = scalar_rows.summed(
                        adjoints, j, before, known_before, contrib, contrib_text, text, inbar,
                        tiny)
                # g and local are finite, as their product is: no number() for them
                record = {"seq": next(seq), "kind": "accumulate", "node": dst, "input": ids[j],
                          "arg": arg, "upstream": g, "local": local, "partial": partial,
                          "contribution": contrib, "adjoint_before": before,
                          "adjoint_after": after, "narration": text}
                if odd:   # not a normal number
                    watch_check(t, record, after)
                made.append(record)
        yield made
    return adjoints


def _seeded(t, seq) -> tuple[list, dict]:
    """(the adjoints with only the output's, the seed record)."""
    adjoints = [None] * len(t.program.nodes)
    out = t.values[t.output]
    adjoints[t.output] = t.output_grad if t.output_grad is not None else \
        1.0 if type(out) is float else np.ones_like(out)
    return adjoints, {"seq": next(seq), "kind": "seed", "node": t.ids[t.output],
                      "adjoint": t.encode(adjoints[t.output], t.limit),
                      "narration": seed.narration(t.output_label, t.symbols[t.output], out,
                                                  t.output_grad is not None)}


def recompute(t, i: int, pending: list, seq) -> Iterator[dict]:
    """Before the first backward step inside a checkpoint block: its forward again, one
    `recompute` event per node (torch.utils.checkpoint; the block kept only its inputs)."""
    for block in [b for b in pending if i in b]:
        pending.remove(block)
        for k in range(block.first, block.end):
            node = t.program.nodes[k]
            if node.role == "op":
                with np.errstate(all="ignore"):
                    t.values[k] = t.evaluate(node, np.inf)
            v = t.values[k]
            yield {"seq": next(seq), "kind": "recompute", "node": t.ids[k],
                   "value": v if type(v) is float and v - v == 0.0 else encode(v, t.limit),
                   "narration": f"checkpoint: recompute {t.formulas[k]} (the forward "
                                "pass did not keep it)"}


def edge(t, node, arg: int, j: int, g, adjoints: list, seq) -> Iterator[dict]:
    """One backward edge: vjp, unbroadcast when needed, then input-bar += contribution."""
    op, limit, enc = get_op(node.op), t.limit, t.encode
    xs = t.inputs(node)
    out = t.values[node.index]
    if type(out) is float:
        out = np.float64(out)
    # errstate is entered per edge: a context held across `yield` breaks when the stream
    # resumes the generator in another thread.
    with np.errstate(all="ignore"):
        local, raw = vjp(op, arg, g, out, xs, node.params)
        if op.elementwise or np.ndim(out) == 0:   # hvp mode: a 0 upstream adds 0
            raw = zero_term(getattr(t, "zero_terms", False), g, raw)
        contrib, axes = unbroadcast(raw, np.shape(xs[arg]))
    src, dst = t.ids[j], t.ids[node.index]
    if axes:
        yield {"seq": next(seq), "kind": "unbroadcast", "node": dst, "input": src,
               "arg": arg, "from_shape": list(np.shape(raw)),
               "to_shape": list(np.shape(contrib)), "axes": list(axes),
               "before": enc(raw, limit), "after": enc(contrib, limit)}
    before = adjoints[j]
    with np.errstate(all="ignore"):
        after = contrib if before is None else before + contrib
    adjoints[j] = after
    labels = [t.program.nodes[k].label for k in node.inputs]
    partial, text = narrate.accumulate(
        t.formulas[node.index], op, arg, node.label, labels, node.params, local, g,
        contrib, before, after, axes, t.output_label,
        node.name is not None, (np.shape(out), [np.shape(x) for x in xs]),
        (t.symbols[j], t.symbols[node.index]))
    text += edge_notes.note(node.op, arg, out, xs, labels, node.params, partial)
    if local is not None and getattr(t, "zero_terms", False):
        text += edge_notes.zero_term(partial, local, g, "upstream gradient")
    yield {"seq": next(seq), "kind": "accumulate", "node": dst, "input": src, "arg": arg,
           "upstream": enc(g, limit),
           "local": None if local is None else enc(local, limit), "partial": partial,
           "contribution": enc(contrib, limit),
           "adjoint_before": enc.zeros(contrib, limit) if before is None else enc(before, limit),
           "adjoint_after": enc(after, limit), "narration": text}


def zero_term(on: bool, factor, term):
    """`term` with exactly 0 where `factor` (its tangent, or its upstream gradient in the
    reverse walk) is 0, when `on`: the convention of the second-order walks (engine/trace/
    hvp.py `zero_terms`), under which a zero direction contributes nothing even through a NaN
    or ∞ partial, so that reverse over reverse and forward over reverse agree."""
    if not on:
        return term
    if type(factor) is float or type(factor) is np.float64:   # the scalar walk: no array
        if factor != 0.0:
            return term
        return np.zeros_like(term) if np.ndim(term) else np.zeros_like(term)[()]
    zero = np.asarray(factor) == 0
    if not zero.any():
        return term
    return np.where(zero, 0.0, term)


def drain(records) -> list:
    """Run a backward pass without keeping its records: what it returns (the adjoints)."""
    while True:
        try:
            next(records)
        except StopIteration as stop:
            return stop.value


def _finite(x) -> bool:
    """Whether every element of a vjp's result is finite (a 0-d one without a ufunc call)."""
    if type(x) is np.float64:
        return x - x == 0.0
    return bool(np.isfinite(x).all())


def vjp(op, arg: int, g, out, xs: list, params: dict):
    """(local derivative or None, vjp result before unbroadcast) for one argument.

    Where the local derivative is elementwise (elementwise ops, scalar outputs), the vjp is that
    derivative times g, so one call gives both. Where that product is not finite the rule is
    applied to g itself: a rule that selects (relu passes an infinite g as 0 where x <= 0,
    pow's 0 where y = 0) would otherwise give 0 * inf = NaN (issue 7, section 2).
    """
    if op.elementwise or np.ndim(out) == 0:
        local = op.vjp[arg](np.ones_like(out), out, *xs, **params)
        contrib = local * g
        if not _finite(contrib):
            contrib = op.vjp[arg](g, out, *xs, **params)
        return local, contrib
    return None, op.vjp[arg](g, out, *xs, **params)
