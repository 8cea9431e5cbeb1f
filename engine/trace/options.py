"""What a request asks of a trace beyond its program and output (issue 9; docs/trace-format.md,
"Request fields"): the mode of the walk, forward mode's tangents, the vector of a
Hessian-vector product, the gradient check and the bug lab's switches.

One frozen object travels from the request (server/routers/traces.py TraceRequest.options,
the CLI's flags) through server/tracing.py into engine.trace.runner.Tracer, so a new field
is added in one place, not to every signature on the way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MODES = ("reverse", "forward", "hvp")


@dataclass(frozen=True)
class Options:
    """mode: "reverse" (the backward pass), "forward" (tangents carried forward: a
        Jacobian-vector product) or "hvp" (a Hessian-vector product).
    tangents: forward mode's {leaf name: tangent (a number or nested list of the leaf's
        shape)}; None: 1 on the first leaf, 0 elsewhere.
    vector: hvp mode's {leaf name: vector entry}; leaves not named get 0.
    check: add the gradient check (central differences) to the result.
    eps: the gradient check's step h (None: its default).
    bugs: the bug lab's switches, by name ("overwrite", "wrong_order", "no_zero_grad", ...).
    train: mode "train"'s events of a recorded training iteration (engine/trace/train_walk.py
        Steps); set by the training engine only, never by a request.
    """

    mode: str = "reverse"
    tangents: dict[str, Any] | None = None
    vector: dict[str, Any] | None = None
    check: bool = False
    eps: float | None = None
    bugs: tuple[str, ...] = ()
    train: Any = None


DEFAULT = Options()
