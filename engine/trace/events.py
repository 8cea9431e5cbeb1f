"""The trace's events: immutable pydantic models discriminated on `kind` (version 1).

docs/trace-format.md is the reference for every field. A Value is a number, one of the strings
"NaN" / "Infinity" / "-Infinity", or a tensor object {shape, dtype, summary, data}.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from engine.trace.values import TRACE_VERSION  # noqa: F401  (re-exported)
Value = Union[float, str, dict[str, Any]]


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True)
    seq: int


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


class Recompute(_Event):
    """Backward pass, checkpointing: a node of a `with checkpoint():` block is evaluated again
    (its forward value was not kept), before the block's first backward step."""

    kind: Literal["recompute"] = "recompute"
    node: str
    value: Value
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


Event = Annotated[Union[Evaluate, Seed, Unbroadcast, Accumulate, Recompute, Done],
                  Field(discriminator="kind")]
EVENTS = TypeAdapter(list[Event])
MODELS = {"evaluate": Evaluate, "seed": Seed, "unbroadcast": Unbroadcast,
          "accumulate": Accumulate, "recompute": Recompute, "done": Done}
