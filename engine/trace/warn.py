"""A trace's warnings: what the numbers are not, said once, with where in the program.

A warning is not an error: the trace answers, but some of its numbers are not what a reader
would take them for. The body (and the stream's `done` event) carries them as `warnings`, left
out when there are none (docs/trace-format.md, "Warnings"):

    {"kind": "cut" | "non_differentiable", "message": str, "node": "n4" | null,
     "field": "tangents" | "check" | null, "line", "col", "end_line", "end_col"}

- "cut": a `detach(x)` / `stop_gradient(x)` or a `with no_grad():` block cuts a path the output
  depends on, so the gradients are not the function's derivatives (engine/trace/cuts.py);
- "non_differentiable": forward mode passed through a point where an op has no derivative
  (relu or abs at 0, a tie of max, clip at a bound, sqrt at 0; engine/trace/kinks.py), or the
  gradient check disagrees at one. `field` names the request field whose result it concerns;
- "zero_direction": the request's `tangents` (forward mode) or `vector` (hvp mode) is 0 on
  every leaf (`{}` or all zeros), so the jvp or H v is 0 whatever the function: right, and
  almost never what was meant (zero_direction below);
- "underflow": a value or gradient fell below the float type's smallest normal number
  (2.2e-308 in float64) or a product of non-zero numbers rounded to 0, so it is not exact
  (engine/trace/underflow.py; also the `first_non_finite` marker, with `kind` "underflow");
- "unused": a node the output does not depend on gets no gradient (engine/trace/unused.py);
- "list_repetition" / "list_concatenation": a list literal times an integer literal
  (`[0.0] * 3`), or two list literals added (`[1.0] + [2.0]`): tensors here (numpy's product
  and sum), where Python would repeat or join the lists (engine/parse.py notes them);
- "overflow_literal": a number literal beyond float64's range that Python reads as inf
  (`1e400`), at the literal (engine/parse_literals.py): the walk goes on with inf;
- "never_called": a `def` no line calls, so its body made no node and the output is the
  value assigned last (engine/parse_functions.py; the node is the output).

The location is the node's span (line 1-based, col 0-based, as every span); all four are null
for a warning about no node. At most MAX_PER_KIND warnings of one kind are kept; the last kept
says how many more there were.
"""
from __future__ import annotations

import numpy as np

MAX_PER_KIND = 20


class Warnings:
    """The warnings of one trace, in the order found, each (kind, node, field) once."""

    def __init__(self):
        self.items: list[dict] = []
        self._seen: set = set()
        self._count: dict[str, int] = {}
        self._more: dict[str, int] = {}

    def add(self, kind: str, message: str, node: str | None = None, field: str | None = None,
            span=None) -> None:
        key = (kind, node, field)
        if key in self._seen:
            return
        self._seen.add(key)
        if self._count.get(kind, 0) >= MAX_PER_KIND:
            self._more[kind] = self._more.get(kind, 0) + 1
            return
        self._count[kind] = self._count.get(kind, 0) + 1
        where = span.to_dict() if span is not None else \
            {"line": None, "col": None, "end_line": None, "end_col": None}
        self.items.append({"kind": kind, "message": message, "node": node, "field": field,
                           **where})

    def full(self, kind: str) -> bool:
        """Whether another warning of `kind` would only be counted."""
        return self._count.get(kind, 0) >= MAX_PER_KIND

    def __bool__(self) -> bool:
        return bool(self.items)

    def listed(self) -> list[dict]:
        """The warnings as the body carries them; the last of a kind cut short says so."""
        out = [dict(w) for w in self.items]
        for kind, more in self._more.items():
            last = max(k for k, w in enumerate(out) if w["kind"] == kind)
            out[last]["message"] += f" (and {more:,} more like it, not listed)"
        return out


def narration(warnings: list[dict]) -> str:
    """The done event's words when the trace has warnings: what the results are not."""
    kinds = {w["kind"] for w in warnings}
    head = []
    if "cut" in kinds:
        head.append("a path to the output is cut, so these gradients are not the function's "
                    "derivatives")
    if "non_differentiable" in kinds:
        head.append("an op was met at a point where it has no derivative, and PyTorch's "
                    "convention was taken there")
    if "ignored" in kinds:
        head.append("a line of the program was not applied in this mode")
    if "zero_direction" in kinds:
        head.append("the direction asked for is zero, so the result is zero")
    if "underflow" in kinds:
        head.append("a number underflowed, so it and the numbers computed from it are not "
                    "exact")
    if "unused" in kinds:
        head.append("a node does not reach the output, so it gets no gradient")
    if "list_repetition" in kinds or "list_concatenation" in kinds:
        head.append("lists are read as numpy's tensors, not as Python's lists")
    if "never_called" in kinds:
        head.append("a function is defined but never called")
    if "overflow_literal" in kinds:
        head.append("a number literal is beyond float64 and reads as inf")
    lead = "Done, with a warning" if len(warnings) == 1 else \
        f"Done, with {len(warnings)} warnings"
    return lead + (": " + "; ".join(head) if head else "") + ". " + \
        " ".join(_sentence(w["message"]) for w in warnings)


def _sentence(text: str) -> str:
    """A message as a sentence of the narration, ending in a full stop (its first word is
    left as it is: a name or an op is not capitalized)."""
    return text if text.endswith(".") else text + "."


def where(span) -> str:
    """"line 2, col 5" of a span, the column counted from 1 as editors show it."""
    return f"line {span.line}, col {span.col + 1}"


def zero_direction(warnings: Warnings, field: str, given: dict, example: str) -> None:
    """A "zero_direction" warning when the direction `given` ({leaf: number or array}, the
    request's `tangents` or `vector`) is 0 everywhere: d/dt f(x + t·0) = 0 for every f, so the
    result says nothing about the function. `example` is a direction that would, for the
    message ("{\"a\": 1}")."""
    if any(np.any(np.asarray(v) != 0) for v in given.values()):
        return
    what = "the jvp and every tangent are" if field == "tangents" else "H v is"
    empty = "names no leaf" if not given else "is 0 on every leaf"
    warnings.add("zero_direction", f"`{field}` {empty}, so {what} 0 whatever the function "
                 f"(a derivative along the zero direction); give e.g. {example}", field=field)
