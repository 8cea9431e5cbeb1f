"""The bug lab's misbehaving backward walk (engine/trace/bugs.py decides which switches are on
and refuses what cannot be shown; this module walks). Each changed record carries `bug` and a
narration that starts "BUG <switch>:"; the edges themselves are the reverse walk's
(engine/trace/reverse.py), so a bug changes only what it is about.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from gradwalk.engine.trace import narrate, reverse, scalar, seed as seeding
from gradwalk.engine.trace.values import short


def show(x) -> str:
    """A value for a narration: its number(s) when small, else its shape."""
    if type(x) is float or np.ndim(x) == 0:
        return short(float(x))
    if np.size(x) <= narrate.SHOW_ELEMENTS:
        return narrate.compact(x)
    return "a " + narrate.shape_name(np.shape(x))


class Lab:
    """One trace's misbehaving backward walk: `backward(seq)` stands in for the reverse walk's."""

    def __init__(self, tracer, on: tuple[str, ...], reach: list[bool], stale: dict):
        self.t, self.on, self.reach, self.stale = tracer, on, reach, stale
        self.passes = 2 if {"no_zero_grad", "zero_grad"} & set(on) else 1
        self.consumers: dict[int, list[int]] | None = None
        self.sources: dict[int, list[str]] = {}
        self.saved: dict[int, object] = {}   # inplace: the values the rule at hand saved
        self.leaves = {i for i in tracer.program.leaves.values() if reach[i]}

    def backward(self, seq) -> Iterator[dict]:
        """The seed and edge records of every pass; returns the final adjoints."""
        adjoints = yield from self._pass(seq, None)
        if self.passes == 2:
            adjoints = yield from self._pass(seq, adjoints)
        return adjoints

    def _pass(self, seq, previous: list | None) -> Iterator[dict]:
        t = self.t
        nodes, values = t.program.nodes, t.values
        requires, reach = t.requires, self.reach
        adjoints: list = [None] * len(nodes)
        record = self._seed(seq, adjoints, previous)
        yield record
        self.sources: dict[int, list[str]] = {}   # who wrote each adjoint (overwrite's story)
        order = t.order if "wrong_order" in self.on else reversed(t.order)
        pending = list(t.program.blocks)   # checkpoints not yet recomputed
        for i in t.deadline.paced(order):
            node, g = nodes[i], adjoints[i]
            if node.role != "op" or not reach[i]:
                continue
            starved = g is None   # wrong_order: visited before its consumers sent anything
            if starved:
                g = 0.0 if type(values[i]) is float else np.zeros_like(values[i])
            if pending and requires[i]:
                yield from reverse.recompute(t, i, pending, seq)
            swapped = self._swap_in(i)
            self.saved = dict(swapped)
            try:
                for arg, j in enumerate(node.inputs):
                    if requires[j]:
                        yield from self._edge(node, arg, j, g, adjoints, seq, starved,
                                              previous)
            finally:
                for k, v in swapped:
                    values[k] = v
        return adjoints

    def _seed(self, seq, adjoints: list, previous: list | None) -> dict:
        t = self.t
        out = t.values[t.output]
        adjoints[t.output] = t.output_grad if t.output_grad is not None else \
            1.0 if type(out) is float else np.ones_like(out)
        record = {"seq": next(seq), "kind": "seed", "node": t.ids[t.output],
                  "adjoint": t.encode(adjoints[t.output], t.limit),
                  "narration": seeding.narration(t.output_label, t.symbols[t.output], out,
                                                 t.output_grad is not None)}
        if previous is None:
            return record
        leaves = sorted(self.leaves)
        fresh = [t.ids[i] for i, a in enumerate(previous) if a is not None and i != t.output
                 and (i not in self.leaves or "zero_grad" in self.on)]
        if "zero_grad" in self.on:
            record["narration"] = ("zero_grad(): every leaf's .grad is set to 0, then the "
                                   "second backward pass starts: " + record["narration"])
        else:
            seeded = adjoints[t.output]
            for i in leaves:
                adjoints[i] = previous[i]
            if t.output in self.leaves:   # a leaf output's .grad gets the seed added too
                adjoints[t.output] = previous[t.output] + seeded
                record["adjoint"] = t.encode(adjoints[t.output], t.limit)
            held = ", ".join(f"{t.symbols[i]} = {show(previous[i])}" for i in leaves[:4])
            record["narration"] = (f"BUG no_zero_grad: a second backward pass without "
                                   f"zero_grad(): the leaves' .grad still holds the first "
                                   f"pass's ({held}{', ...' if len(leaves) > 4 else ''}) and "
                                   f"this pass adds to it, as PyTorch's .grad accumulates. "
                                   + record["narration"])
            record["bug"] = "no_zero_grad"
        record["reset"] = fresh
        return record

    def _swap_in(self, i: int) -> list[tuple[int, object]]:
        """inplace: the tensors node i's rule saved, replaced by what they hold now."""
        swapped = []
        for k, _, _, newest in self.stale.get(i, ()):
            if all(k != s for s, _ in swapped):
                swapped.append((k, self.t.values[k]))
                self.t.values[k] = self.t.values[newest]
        return swapped

    def _edge(self, node, arg: int, j: int, g, adjoints: list, seq, starved: bool,
              previous) -> Iterator[dict]:
        t = self.t
        before = adjoints[j]
        overwrite = "overwrite" in self.on and before is not None
        if overwrite:
            adjoints[j] = None   # the edge then writes its contribution alone: `=`
        if type(t.values[node.index]) is float and node.op in scalar.FORWARD:
            records = list(reverse.scalar_edges(t, node, g, adjoints, seq, only=arg))
        else:
            records = list(reverse.edge(t, node, arg, j, g, adjoints, seq))
        label = t.program.nodes[node.index].label
        for record in records:
            if record["kind"] == "accumulate":
                self._tell(record, node, j, before, adjoints[j], starved, overwrite, previous)
            yield record
        self.sources.setdefault(j, []).append(label)

    def _tell(self, record: dict, node, j: int, before, after, starved: bool,
              overwrite: bool, previous) -> None:
        """Mark an accumulate record a switch changed: `bug` and a "BUG ..." narration."""
        t = self.t
        sym, here = t.symbols[j], t.program.nodes[node.index].label
        if starved:
            later = [t.program.nodes[c].label for c in self._consumers(node.index)]
            record["bug"] = "wrong_order"
            record["narration"] = (
                f"BUG wrong_order: {here} is visited before its consumer"
                f"{'s' if len(later) != 1 else ''} {', '.join(later[:3])} (forward order, "
                f"not reverse topological), so its adjoint {t.symbols[node.index]} is still 0 "
                f"and it passes on 0. " + record["narration"])
        stale = self.stale.get(node.index)
        if stale:
            k, saved, now, newest = stale[0]
            up = next(u for u in t.program.inplace if u.node == newest)
            name = t.program.nodes[k].label
            record["bug"] = "inplace"
            record["narration"] = (
                f"BUG inplace: the rule of {t.formulas[node.index]} reads {name} = "
                f"{show(t.values[newest])}, but it saved {name} = {show(self.saved[k])}: "
                f"{name} was updated in place on line {up.span.line} (version {now}; the rule "
                f"saved version {saved}), and without a version counter the gradient is "
                f"silently wrong. " + record["narration"])
        if overwrite:
            lost = ", ".join(self.sources.get(j, [])[-1:]) or "before"
            correct = before + after
            record["adjoint_before"] = t.encode(before, t.limit)
            record["bug"] = "overwrite"
            record["narration"] = (
                f"BUG overwrite: {sym} = {show(after)} replaces the {show(before)} it held "
                f"(from {lost}): `=` where `+=` belongs, so that contribution is lost "
                f"({sym} += would give {show(correct)}). " +
                record["narration"].replace(f"{sym} += ", f"{sym} = ", 1))
        if previous is not None and "no_zero_grad" in self.on and j in self.leaves and \
                previous[j] is not None and self.sources.get(j) is None:
            record["bug"] = record.get("bug", "no_zero_grad")
            record["narration"] = (
                f"BUG no_zero_grad: {sym} starts this pass at {show(previous[j])}, the first "
                f"pass's gradient, not 0. " + record["narration"])

    def _consumers(self, i: int) -> list[int]:
        """The nodes the backward pass reaches that read node i (made once, on first use)."""
        if self.consumers is None:
            self.consumers = {}
            for c, n in enumerate(self.t.program.nodes):
                if self.reach[c]:
                    for k in dict.fromkeys(n.inputs):
                        self.consumers.setdefault(k, []).append(c)
        return self.consumers.get(i, [])

