"""Training's recorded iteration as a mode (issue 15 §2): one iteration's whole walk, with the
steps the training loop adds around the backward pass.

Training (engine/train/loop.py) runs its iterations on the tape's plain passes (engine/tape.py:
compiled once, `forward(leaves)` and `backward(values)`, no events). An iteration the request
asks recorded is traced by the Tracer in mode "train", built on the same compiler, for the
program written with that iteration's leaf values (engine/train/record.py). This mode's walk is
the reverse walk (engine/trace/reverse.py), consumed as it is, with the loop's own events put in
as seed 003_70db1bc89ad395af.txt ("Training") writes an iteration (forward, zero_grad,
backward, update):
- `Steps.zero_grad` just before the backward pass's first event (its `seed`);
- `Steps.updates`, one per leaf, after the backward pass's last event, before `done`;
- `Steps.done`: fields the `done` event (so the body's top level) gains ("dead_units",
  "iteration").
Every event's seq is numbered again from 0. The mode is internal: only the training engine
sets `Options.train`; a trace request has no such field.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Iterator

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace import reverse
from gradwalk.engine.trace.mode import Mode


@dataclass(frozen=True)
class Steps:
    """The loop's events of one recorded iteration (engine/train/record.py makes them), each a
    dict with "kind" (and "type") and no "seq"; done: fields of the `done` event."""

    zero_grad: dict
    updates: list[dict] = field(default_factory=list)
    done: dict = field(default_factory=dict)


def prepare(t, limits, state) -> Steps:
    """The iteration's Steps (Options.train), after the reverse walk's own preparation (the
    nodes the output does not use are warned about). Raises ProgramError "bad_argument" when
    mode "train" comes without them."""
    steps = t.options.train
    if not isinstance(steps, Steps):
        raise ProgramError("bad_argument", "mode \"train\" traces a recorded training "
                           "iteration; train with POST /api/train (or `gradwalk train`)")
    reverse.prepare(t, limits, state)
    return steps


def walk(t) -> Iterator[dict]:
    """The reverse walk's events with the loop's put in, numbered again from 0."""
    steps: Steps = t.state("train")
    seq = itertools.count()
    for record in reverse.walk(t):
        kind = record["kind"]
        if kind == "seed":
            yield {**steps.zero_grad, "seq": next(seq)}
        elif kind == "done":
            for update in steps.updates:
                yield {**update, "seq": next(seq)}
        record["seq"] = next(seq)
        yield record


MODE = Mode("train", wanted=lambda options, program: options.mode == "train",
            prepare=prepare, walk=walk, done=lambda t, steps, adjoints: dict(steps.done))
