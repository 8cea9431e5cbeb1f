"""The one interface between the tracer and its modes (issue 15 §1).

A program is compiled once by engine/trace/tracer.py's Tracer, on engine/tape.py's tape: its
IR, shapes, forward values (the tape's first pass), formulas, adjoint symbols and ledger. A mode
is a module that walks that compiled program (the reverse walk, forward mode, hvp, the gradient
check, the bug lab, training's recorded iteration); it declares itself as one
`Mode` row, listed in engine/trace/modes.py, so adding a mode is a new module and one line
there, touching no other mode's file. A mode reads the Tracer only through what `Compiled`
lists below.

Hooks, each optional, called in the order of modes.MODES:
- plan(program, output, output_grad, options, limits, deadline): before compiling, a mode may
  trace another program than the one written (hvp: its backward pass recorded as a graph).
  Returns None (not wanted) or (state, program, output, output_grad, options).
- wanted(options, program): for a mode without `plan`, whether this trace uses it.
- prepare(tracer, limits, state): after compiling, before the first event: refuse what the mode
  cannot do (ProgramError), add warnings. Returns the mode's state, None to drop out.
- walk(tracer): the events, `done` last, when the request's mode is this mode's `name`.
- backward(tracer, state, seq): a backward pass replacing the reverse one (the bug lab): a
  generator of records that returns every node's adjoint (None where none arrives).
- done(tracer, state, adjoints): the mode's fields of the `done` event.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol


@dataclass(frozen=True)
class Mode:
    """One mode's row: its name (the request's `mode`, or the option that turns it on) and
    its hooks (see the module docstring)."""

    name: str
    wanted: Callable[..., bool] | None = None
    plan: Callable[..., tuple | None] | None = None
    prepare: Callable[..., Any] | None = None
    walk: Callable[..., Iterator[dict]] | None = None
    backward: Callable[..., Iterator[dict]] | None = None
    done: Callable[..., dict] | None = None


class Compiled(Protocol):
    """What a mode may read or call on the Tracer (engine/trace/tracer.py documents each).

    program, options, output (the output's node index), output_name, output_label,
    output_grad, ids (node ids by index), order (creation order), requires (per node),
    shapes, values, flops, ledger, formulas, symbols, limit (inline elements), encode, tape
    (engine/tape.py: fresh passes without events),
    deadline, warnings, cuts, first_non_finite (set by the walk); inputs(node),
    evaluate(node, max_elements), why_forward(i), backward(seq), watch_adjoints(records),
    done(seq, adjoints), state(name).
    """

    def backward(self, seq, watch: bool = False) -> Iterator[dict]: ...

    def done(self, seq: int, adjoints: list) -> dict: ...
