"""Cut paths: `detach(x)` / `stop_gradient(x)` and `with no_grad():`, said where the walk meets
them, and warned about once.

A cut (engine/ops/cut.py, engine/blocks.py) makes a value that depends on a leaf not require
grad, so the backward pass sends nothing through it and the gradients are those of another
function than the one the program computes (PyTorch's and JAX's semantics, on purpose).
Without narration that is invisible: no event crosses the cut. So:

- `severed[i]`: node i would require grad but for a cut (it depends on a leaf through ops
  that differentiate, comparisons aside) and does not;
- a cut's *root* is a severed node with an input that requires grad: `e = detach(a * b)`,
  or the first op of a no_grad block that reads a leaf; it is warned about (kind "cut",
  engine/trace/warn.py) when the output depends on it;
- the first `accumulate` event of every node the backward pass visits that reads a severed
  value gets a sentence saying that the path is cut there and what gets nothing through it,
  and `"cut": [ids of the severed inputs]` (`notes`, `narrate`).

Cost: nothing unless the program has a detach / stop_gradient op or a no_grad block; then
two passes over the nodes.
"""
from __future__ import annotations

from operator import attrgetter
from typing import Iterator

from gradwalk.engine.ops.cut import CUTS
from gradwalk.engine.ops.shape import NOT_DIFFERENTIABLE
from gradwalk.engine.source import clip
from gradwalk.engine.trace.warn import where

SHOW_LEAVES = 4   # leaves named in a sentence; more read "a, b, c, d, ..."
FULL_NOTES = 50   # consumers told the whole story; later ones a short clause (the body's size
                  # estimate, engine/trace/budget.py, has room for that, not for 250 bytes each)


class Cuts:
    """One trace's cut paths (see the module's docstring). program: the program the output
    belongs to (hvp mode: the program before its backward graph was recorded)."""

    def __init__(self, program, output: int, requires: list[bool], formulas: list[str]):
        self.program, self.output, self.requires = program, output, requires
        self.formulas = formulas
        nodes = program.nodes
        would = _would(program)
        self.severed = [w and not r for w, r in zip(would, requires)]
        feeds = [False] * len(nodes)   # the output depends on it (cuts ignored)
        feeds[output] = would[output]
        for i in range(output, -1, -1):
            if feeds[i]:
                for k in nodes[i].inputs:
                    if would[k]:
                        feeds[k] = True
        self.roots = [i for i, n in enumerate(nodes) if self.severed[i] and feeds[i]
                      and any(requires[k] for k in n.inputs)]
        self.blocked = {i for b in program.no_grad for i in range(b.first, b.end)}
        self._leaves: dict[int, list[str]] = {}
        self.notes = self._notes(feeds) if self.roots else {}

    # ---- where the walk meets a cut ----------------------------------------------------------
    def _notes(self, feeds) -> dict[int, list[int]]:
        """{node the backward pass visits: its severed inputs the output depends on}."""
        nodes, requires = self.program.nodes, self.requires
        reach = [False] * len(nodes)
        reach[self.output] = requires[self.output]
        notes = {}
        for i in range(self.output, -1, -1):
            if not reach[i]:
                continue
            for k in nodes[i].inputs:
                if requires[k]:
                    reach[k] = True
            cut = [k for k in dict.fromkeys(nodes[i].inputs) if self.severed[k] and feeds[k]]
            if cut and nodes[i].role == "op":
                notes[i] = cut
        return notes

    def sentence(self, k: int) -> str:
        """Why severed node k sends nothing back, and what gets nothing through it."""
        node = self.program.nodes[k]
        label = clip(node.label)
        root = k if k in self.roots else self._root_of(k)
        lost = self._leaves_of(root)
        if node.op in CUTS and root == k:
            inner = ", ".join(clip(self.program.nodes[j].label) for j in node.inputs)
            return (f"{clip(self.formulas[k])} cuts the path here: no gradient flows back "
                    f"through {label} to {inner}, so {lost} nothing through it")
        if k in self.blocked:
            return (f"{clip(self.formulas[k])} was computed under no_grad() "
                    f"({where(node.span)}): no graph was recorded, so no gradient flows back "
                    f"through {label}, and {lost} nothing through it")
        r = self.program.nodes[root]
        return (f"{label} reaches the inputs only through {clip(self.formulas[root])} "
                f"({where(r.span)}), where the path is cut: no gradient flows back through "
                f"{label}, so {lost} nothing through it")

    def why_no_tangent(self, k: int) -> str:
        """Forward mode's words for severed node k: why its tangent is 0."""
        if self.program.nodes[k].op in CUTS:
            return "the path is cut here (a detach passes no tangent either)"
        if k in self.blocked:
            return "computed under no_grad(), which records no graph and carries no tangent"
        root = self._root_of(k)
        return f"it reaches the leaves only through the cut {clip(self.formulas[root])}"

    def _root_of(self, k: int) -> int:
        """The first cut root upstream of severed node k (depth first, inputs in order)."""
        stack, seen = [k], set()
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            if any(self.requires[j] for j in self.program.nodes[i].inputs):
                return i
            stack.extend(j for j in reversed(self.program.nodes[i].inputs) if self.severed[j])
        return k

    def _leaves_of(self, root: int) -> str:
        """"a, b": the leaves whose gradient misses the path through `root` (the leaves its
        inputs depend on through ops that require grad)."""
        if root not in self._leaves:
            nodes, requires = self.program.nodes, self.requires
            stack, seen, found = [j for j in nodes[root].inputs if requires[j]], set(), []
            while stack:
                i = stack.pop()
                if i in seen:
                    continue
                seen.add(i)
                if nodes[i].role == "leaf":
                    found.append(i)
                else:
                    stack.extend(j for j in nodes[i].inputs if requires[j])
            names = [clip(nodes[i].label) for i in sorted(found)]
            self._leaves[root] = names
        names = self._leaves[root]
        shown = ", ".join(names[:SHOW_LEAVES]) + (", ..." if len(names) > SHOW_LEAVES else "")
        return (shown + (" gets" if len(names) == 1 else " get")) if names else \
            "its inputs get"

    def narrate(self, records: Iterator[dict], ids: list[str]):
        """The backward records passed through, the first `accumulate` event of each node in
        `notes` told about its cut inputs; returns what `records` returns."""
        told: set[str] = set()
        by_id = {ids[i]: cut for i, cut in self.notes.items()}
        while True:
            try:
                record = next(records)
            except StopIteration as stop:
                return stop.value
            if record["kind"] == "accumulate":
                cut = by_id.get(record["node"])
                if cut is not None and record["node"] not in told:
                    told.add(record["node"])
                    record["narration"] += ". " + "; ".join(
                        self.sentence(k) if len(told) <= FULL_NOTES else
                        f"{clip(self.program.nodes[k].label)} is cut off: no gradient flows "
                        "back through it" for k in cut)
                    record["cut"] = [ids[k] for k in cut]
            elif record["kind"] == "seed" and self.severed[self.output]:
                root = self._root_of(self.output)
                record["narration"] += (
                    f". But the output itself is cut off: it reaches the inputs only through "
                    f"{clip(self.formulas[root])} ({where(self.program.nodes[root].span)}), "
                    f"where the path is cut, so no gradient flows back from it and every "
                    f"gradient is 0")
            yield record

    # ---- the warning -------------------------------------------------------------------------
    def warn(self, warnings, ids: list[str], output_label: str) -> None:
        """One "cut" warning per root the output depends on."""
        for root in self.roots:
            node = self.program.nodes[root]
            if warnings.full("cut"):   # only counted: no sentence is worked out
                warnings.add("cut", "", ids[root])
                continue
            how = "cuts the path" if node.op in CUTS else "records no graph (no_grad())"
            leaves = self._leaves_of(root).rsplit(" ", 1)[0]
            warnings.add("cut", f"{clip(self.formulas[root])} ({where(node.span)}) {how}: "
                         f"the gradients of {leaves} miss what flows through "
                         f"{clip(node.label)}, so they are not the derivatives of "
                         f"{clip(output_label)}", ids[root], None, node.span)


def _would(program) -> list[bool]:
    """requires_grad (engine/graph.py) with the cuts taken away: a leaf, and every op with an
    input that would, except a comparison (a mask is not differentiable anyway)."""
    out: list[bool] = []
    for n in program.nodes:
        out.append(n.role == "leaf" or (n.role == "op" and n.op not in NOT_DIFFERENTIABLE
                                        and any(out[i] for i in n.inputs)))
    return out


def has_cuts(program) -> bool:
    """Whether the program has a detach / stop_gradient op or a no_grad block."""
    # about 6 ms per 100,000 nodes (map with attrgetter: no Python frame per node)
    return bool(program.no_grad) or not CUTS.isdisjoint(map(attrgetter("op"), program.nodes))


def find(program, output: int, requires: list[bool], formulas: list[str]) -> Cuts | None:
    """The program's cuts, or None when it has none that the output depends on."""
    if not has_cuts(program):
        return None
    cuts = Cuts(program, output, requires, formulas)
    return cuts if cuts.roots or cuts.blocked else None
