"""The trace's events: immutable pydantic models discriminated on `kind` (version 1).

docs/trace-format.md is the reference for every field. A Value is a number, one of the strings
"NaN" / "Infinity" / "-Infinity", or a tensor object {shape, dtype, summary, data}.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_serializer

from gradwalk.engine.trace.values import TRACE_VERSION  # noqa: F401  (re-exported)
Value = Union[float, str, dict[str, Any]]


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True)
    seq: int

    @model_serializer(mode="wrap")
    def _as_recorded(self, handler):
        """The event as its record has it: an optional field left out of the record (the bug
        lab's `bug` and `reset`, a mode's results) is left out of the dump too, not null."""
        data = handler(self)
        return {k: v for k, v in data.items() if v is not None or k in self.model_fields_set}


class Evaluate(_Event):
    """Forward pass: `node` now holds `value`."""

    kind: Literal["evaluate"] = "evaluate"
    node: str
    value: Value


class Seed(_Event):
    """Backward pass starts: the output's adjoint is 1 (ones for a tensor output, or the
    request's output_grad); `narration` says which and why (engine/trace/seed.py)."""

    kind: Literal["seed"] = "seed"
    node: str
    adjoint: Value
    narration: str
    # the bug lab (engine/trace/bugs.py), only on the seed of a second backward pass:
    # the nodes whose adjoint starts again from nothing, and the switch that shaped it
    reset: list[str] | None = None
    bug: str | None = None


class Unbroadcast(_Event):
    """The gradient for a broadcast input was summed over `axes` back to `to_shape`."""

    kind: Literal["unbroadcast"] = "unbroadcast"
    node: str
    input: str
    arg: int
    from_shape: list[int]
    to_shape: list[int]
    axes: list[int]
    before: Value
    after: Value


class Accumulate(_Event):
    """One edge of the backward pass: input-bar += contribution."""

    kind: Literal["accumulate"] = "accumulate"
    node: str
    input: str
    arg: int
    upstream: Value
    local: Value | None
    partial: str
    contribution: Value
    adjoint_before: Value
    adjoint_after: Value
    narration: str
    bug: str | None = None   # the bug lab's switch that changed this edge (engine/trace/bugs.py)
    # the node's inputs whose path is cut (detach, no_grad: engine/trace/cuts.py), on the
    # first accumulate event of a node that reads one; its narration says so
    cut: list[str] | None = None


class Recompute(_Event):
    """Backward pass, checkpointing: a node of a `with checkpoint():` block is evaluated again
    (its forward value was not kept), before the block's first backward step."""

    kind: Literal["recompute"] = "recompute"
    node: str
    value: Value
    narration: str


class Tangent(_Event):
    """Forward mode (engine/trace/forward_mode.py): `node` holds the dual number
    `value + tangent·ε`; `rule` is its jvp rule (`ė = ȧ·b + a·ḃ`), `narration` the rule with
    its numbers."""

    kind: Literal["tangent"] = "tangent"
    node: str
    value: Value
    tangent: Value
    rule: str
    narration: str


class Done(_Event):
    """The end: the output value and every leaf's gradient, with full data. In the body of
    POST /api/trace the done event is only {seq, kind}: its results are the body's top-level
    `output`, `grads` and `first_non_finite`, written once; the stream's done event and
    Tracer.events() carry them."""

    kind: Literal["done"] = "done"
    output: dict[str, Any] | None = None
    grads: dict[str, Value] | None = None
    first_non_finite: dict[str, str] | None = None   # {"node", "phase"}: forward | backward
    # issue 9 (docs/trace-format.md): forward mode's results, the gradient check's
    jvp: Value | None = None
    passes: dict[str, Any] | None = None
    all_forward: dict[str, Any] | None = None
    gradcheck: dict[str, dict[str, Any]] | None = None
    bugs: list[str] | None = None   # the bug lab's switches that were on
    # second order (engine/trace/hvp.py): H v two ways, the Hessian, power iteration
    hvp: dict[str, Value] | None = None
    hvp_forward_over_reverse: dict[str, Value] | None = None
    hessian: dict[str, Any] | None = None
    eigen: dict[str, Any] | None = None
    # what the numbers are not (engine/trace/warn.py); narration says it, only with warnings
    warnings: list[dict[str, Any]] | None = None
    narration: str | None = None


Event = Annotated[Union[Evaluate, Seed, Unbroadcast, Accumulate, Recompute, Tangent, Done],
                  Field(discriminator="kind")]
EVENTS = TypeAdapter(list[Event])
MODELS = {"evaluate": Evaluate, "seed": Seed, "unbroadcast": Unbroadcast,
          "accumulate": Accumulate, "recompute": Recompute, "tangent": Tangent, "done": Done}
