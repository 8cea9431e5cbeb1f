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

import functools
import itertools
from typing import Iterator

import numpy as np

from gradwalk.engine.labels import ATOM, strength
from gradwalk.engine.ops import get_op
from gradwalk.engine.ops.broadcast import unbroadcast
from gradwalk.engine.trace import edge_notes, narrate, scalar, seed, underflow, unused
from gradwalk.engine.trace.watch import check as watch_check, edge as watch_edge, watch_adjoints
from gradwalk.engine.trace.mode import Mode
from gradwalk.engine.trace.values import encode, non_finite, number, short


def prepare(t, limits, state):
    """A node L does not use gets no gradient: said (engine/trace/unused.py)."""
    unused.warn_unused(t.warnings, t.program, t.output, t.ids, t.formulas)
    return True


def walk(t) -> Iterator[dict]:
    """`evaluate` events, then the backward pass's records, then `done`."""
    ids, values, limit = t.ids, t.values, t.limit
    seq = 0
    t.first_non_finite = None
    tiny = underflow.tiny(t.program.dtype)   # below it a number underflowed
    for i in t.deadline.paced(t.order):
        v = values[i]
        value = v if type(v) is float and v - v == 0.0 else t.encode(v, limit)
        if type(value) is float and abs(value) >= tiny:
            pass   # the hot path: a normal scalar (NaN fails the test)
        elif type(value) is not float and non_finite(value):
            if t.first_non_finite is None:
                t.first_non_finite = {"node": ids[i], "phase": "forward",
                                      "why": t.why_forward(i)}
        else:   # every underflow is marked, not only the first (underflow.note)
            underflow.note(t, i, "forward", seq)
        yield {"seq": seq, "kind": "evaluate", "node": ids[i], "value": value}
        seq += 1
    seq = itertools.count(seq)
    cut = t.cuts is not None and t.cuts.program is t.program
    records = t.backward(seq, watch=not cut)
    if cut:   # say where it's cut
        records = t.cuts.narrate(records, t.ids)
    adjoints = yield from watch_adjoints(t, records)
    yield t.done(next(seq), adjoints)


MODE = Mode("reverse", wanted=lambda options, program: options.mode == "reverse",
            prepare=prepare, walk=walk)


def backward(t, seq, watch: bool = False) -> Iterator[dict]:
    """The seed record, then every backward edge's records in reverse creation order; returns
    every node's adjoint (None where none arrives). watch: the records are watched as they
    are made (watch_adjoints' checks, without a generator around them: a resume per record
    cost a tenth of a chain's backward), for a walk that watches them next and puts nothing
    between (walk); `t.watched` is then that generator, which watch_adjoints hands back."""
    records = _edges(t, seq, watch=watch)
    if watch:
        t.watched = records
    return records


def scalar_edges(t, node, g, adjoints: list, seq, only: int | None = None,
                 fallback: bool = True) -> list[dict]:
    """The records of every backward edge (or argument `only`'s) of a scalar + - * / or
    negation on floats (engine/trace/scalar.py) with upstream gradient `g`, as the backward
    pass writes them (`_edges`); an edge where Python would raise, or whose contribution is
    not finite, is the numpy path's (edge), or, without `fallback`, left undone (no record,
    its adjoint untouched). The bug lab and the size estimate's numbers walk with it."""
    return list(_edges(t, seq, node, g, adjoints, only, fallback))


def kept_texts(n: int) -> list | None:
    """The backward pass's texts of the adjoints (see `_edges`), one slot per node."""
    return [None] * n


def _edges(t, seq, one=None, upstream=None, adjoints: list | None = None,
           only: int | None = None, fallback: bool = True, watch: bool = False
           ) -> Iterator[dict]:
    """The backward pass (`one` None: the seed, then every node in reverse creation order,
    returning the adjoints), or node `one`'s edges with upstream gradient `upstream`.

    One loop over the nodes writes each scalar edge's `accumulate` record in place, its
    narration included (issue 15 §1: a call per node, and one per record for its sentence,
    were about a third of a chain's backward records). `texts`: per node, (its adjoint,
    that adjoint's narration text: values.short), kept by the edge that set it, so the
    node's own edges write it again without formatting (used only while the adjoint is
    still that very object, and emptied when read). Formatting a number is most of a scalar
    edge's cost, and along a chain each adjoint is narrated twice: as a contribution, then
    as the upstream gradient. watch: each accumulate record is watched before it is handed
    out, as watch_adjoints would (see `backward`)."""
    nodes, values, ids = t.program.nodes, t.values, t.ids
    tiny = underflow.tiny(t.program.dtype) if watch else None
    requires, formulas, symbols, strengths = t.requires, t.formulas, t.symbols, t.strengths
    if one is None:
        adjoints = [None] * len(nodes)
        out = values[t.output]
        adjoints[t.output] = t.output_grad if t.output_grad is not None else \
            1.0 if type(out) is float else np.ones_like(out)
        yield {"seq": next(seq), "kind": "seed", "node": ids[t.output],
               "adjoint": t.encode(adjoints[t.output], t.limit),
               "narration": seed.narration(t.output_label, symbols[t.output], out,
                                           t.output_grad is not None)}
        order = t.deadline.paced(reversed(t.order))
        pending = list(t.program.blocks)   # checkpoints not yet recomputed
        texts = kept_texts(len(nodes))
    else:
        order, pending, texts = (one.index,), None, None
    fast = scalar.FORWARD
    rows: dict = {}   # op -> its row's vjps, partials, plain partials and locals (_scalar_row)
    for i in order:
        node = nodes[i]
        g = adjoints[i] if one is None else upstream
        if g is None or node.role != "op":
            continue
        if pending and requires[i]:
            yield from recompute(t, i, pending, seq)
        out = values[i]
        if type(out) is not float or node.op not in fast:
            for arg, j in enumerate(node.inputs):
                if requires[j]:
                    yield from watch_edge(t, edge(t, node, arg, j, g, adjoints, seq), tiny)
            continue
        row = rows.get(node.op)
        if row is None:
            op, plains = _scalar_row(node.op)
            row = rows[node.op] = (op.vjp, op.partials, plains, _LOCALS.get(node.op))
        vjps, partials, plains, locals_ = row
        ins = node.inputs
        xs = None   # the inputs as floats, made only for a rule that is called (_LOCALS)
        given, g = g, float(g)
        named = ", so" if node.name is not None else ":"
        wrapped = None   # the labels in the rules' math, made at the first edge that needs them
        formula, outbar, dst = formulas[i], symbols[i], ids[i]
        kept = None if texts is None else texts[i]
        if kept is not None and kept[0] is given:
            g_text = kept[1]
            texts[i] = None   # read once: the node's edges are written now
        else:
            g_text = short(g)
        g_signed = f"({g_text})" if g_text[0] == "-" else g_text
        for arg, j in enumerate(ins) if only is None else ((only, ins[only]),):
            if not requires[j]:
                continue
            spec = None if locals_ is None else locals_[arg]
            if spec is None:
                if xs is None:
                    xs = [float(values[k]) for k in ins]
                try:   # the local derivative: the vjp rule with an upstream gradient of 1.0
                    local = float(vjps[arg](1.0, out, *xs))
                except ArithmeticError:   # a division by zero: numpy answers (inf or nan)
                    local = None
            else:   # + - *: the rule's own answer at g = 1.0, without calling it
                local = float(values[ins[spec]]) if type(spec) is int else spec
            contrib = None if local is None else local * g
            if contrib is None or contrib - contrib != 0.0:   # the numpy path applies the rule
                if fallback:
                    yield from watch_edge(t, edge(t, node, arg, j, given, adjoints, seq), tiny)
                continue
            before = adjoints[j]
            after = contrib if before is None else float(before) + contrib
            adjoints[j] = after
            plain = plains[arg]
            if type(plain) is str:   # "1", "-1": the same text on every edge
                partial = plain
            elif plain is not None:   # "{1}": one input's label, as fill would write it
                k = ins[plain]
                partial = nodes[k].label if strengths[k] == ATOM else f"({nodes[k].label})"
            else:
                if wrapped is None:
                    wrapped = [_wrapped(nodes[k]) for k in ins]
                partial = narrate.fill(partials[arg], wrapped, node.params, out=_wrapped(node))
            if contrib == g:   # equal floats: the same text
                contrib_text = g_text
            elif 1e-3 <= contrib < 1e5 or -1e5 < contrib <= -1e-3:   # values.short's commonest
                contrib_text = f"{contrib:.4f}".rstrip("0").rstrip(".")
            else:
                contrib_text = short(contrib)
            inbar = symbols[j]
            text = (f"{formula}{named} {inbar} += "
                    f"{partial if ' ' not in partial else narrate.group(partial)} · {outbar} = "
                    f"{_local_text(local)} · {g_signed} = {contrib_text}")
            if before is None:
                after_text = contrib_text
            else:
                kept = None if texts is None else texts[j]
                after_text = short(after)
                text += (f"; {inbar} = "
                         f"{kept[1] if kept is not None and kept[0] is before else short(before)}"
                         f" + {f'({contrib_text})' if contrib_text[0] == '-' else contrib_text}"
                         f" = {after_text}")
            if texts is not None:
                texts[j] = (after, after_text)
            record = {"seq": next(seq), "kind": "accumulate", "node": dst, "input": ids[j],
                      "arg": arg, "upstream": g if g - g == 0.0 else number(g),
                      "local": local if local - local == 0.0 else number(local),
                      "partial": partial, "contribution": contrib,
                      "adjoint_before": 0.0 if before is None else _number(before),
                      "adjoint_after": after if after - after == 0.0 else number(after),
                      "narration": text}
            if tiny is not None and not (after - after == 0.0 and abs(after) >= tiny):
                watch_check(t, record, record["adjoint_after"])   # not a normal finite number
            yield record
    return adjoints


@functools.lru_cache(maxsize=None)
def _scalar_row(name: str) -> tuple:
    """(op row, narrate.plain_partial of each of its partials): once per op of the scalar
    path, not per edge."""
    op = get_op(name)
    return op, tuple(narrate.plain_partial(p) for p in op.partials)


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


def _wrapped(node) -> str:
    """narrate.wrap of a node's label, from the IR (labels.strength) rather than by reading the
    label's text back: a label in the rule's math, parenthesized unless it is an atom."""
    return node.label if strength(node) == ATOM else f"({node.label})"


@functools.lru_cache(maxsize=1024)
def _local_text(local: float) -> str:
    """values.short of a local derivative, which repeats (1, a constant factor): written once.
    (Equal floats write alike: 0.0 and -0.0 are both "0".)"""
    return short(local)


# The local derivative of + - * at an upstream gradient of 1.0 (engine/ops/elementwise.py's
# vjp rules evaluated by hand): a constant, or the index of the input it equals (mul's other
# operand: 1.0 * y is y, bit for bit, -0.0 and NaN included). Other ops call their rule.
_LOCALS = {"add": (1.0, 1.0), "sub": (1.0, -1.0), "mul": (1, 0)}


def _number(x):
    """A scalar as JSON: the float itself when finite (the common case, without a call)."""
    return x if type(x) is float and x - x == 0.0 else number(x)


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
