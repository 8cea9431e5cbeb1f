"""The training loop: forward, zero_grad, backward, update, as seed 003_70db1bc89ad395af.txt
("Training") writes it, on a tape compiled once (engine/tape.py).

`iterations(program, config)` gives the stream's events (one dict each); `train(program,
config)` collects them into the JSON answer. Both refuse a bad program, config or limit with
ProgramError before the first iteration; an error after it (the wall-clock budget, a recorded
iteration over the trace limits) ends the stream with an `error` event, and `train` raises it.
"""
from __future__ import annotations

import time
from typing import Iterator

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import Program
from gradwalk.engine.tape import Tape, compile
from gradwalk.engine.trace.values import TRACE_VERSION, encode, number
from gradwalk.engine.train import boundary, optim, record
from gradwalk.engine.train.heap import keep_heap
from gradwalk.engine.train.config import TrainConfig, check
from gradwalk.engine.train.watch import DeadUnits, accuracy, classifier, divergence, targets


class Run:
    """One run's state; everything that can be refused is refused in the constructor."""

    def __init__(self, program: Program, config: TrainConfig):
        check(config)
        _refuse_headers(program)
        if not program.leaves:
            raise ProgramError("bad_argument", "the program has no leaves to train: write a "
                               "parameter as a literal or with randn(...) (a const is data)")
        self.program, self.config = program, config
        keep_heap()   # a step's arrays reuse the last step's pages (engine/train/heap.py)
        self.tape = tape = compile(program, config.output, config.limits.trace.max_elements)
        self.output_name = config.output or program.last
        self.params = {n: tape.base[i] for n, i in tape.leaves.items()}
        self.values = tape.forward(self.params)   # the checked pass, iteration 0's values
        if np.ndim(self.values[tape.output]) != 0:
            raise ProgramError("bad_argument", f"training needs a scalar loss; "
                               f"`{self.output_name}` has shape "
                               f"{tuple(np.shape(self.values[tape.output]))}",
                               hint="reduce it with mean(...) or sum(...)")
        self._check_cost()
        self.head = classifier(program, tape.output)
        self.classes = None if self.head is None else targets(program, self.head, self.values)
        self.dead = DeadUnits(program, tape.output, tape.requires, tape.shapes)
        self.boundary = boundary.find(tape, self.head, self.values)
        self.opt = optim.make(config)
        self.accumulate = "no_zero_grad" in config.bugs
        self.grads: dict | None = None   # .grad, kept across iterations only by the bug
        self.losses: list = []
        self.last_boundary = None
        self.diverged: dict | None = None   # the first non-finite loss or parameters
        self.started = time.monotonic()

    def _check_cost(self) -> None:
        """Elements and FLOPs of one iteration, times the steps, against the limits."""
        tape, limits, steps = self.tape, self.config.limits, self.config.steps
        nodes = self.values[:len(self.program.nodes)]   # not the saved tensors after them
        elements = sum(int(np.size(v)) for v in nodes)
        flops = 3 * sum(tape.flops)   # the first pass's forward FLOPs; backward about twice
        for what, per, bound, name in (("elements", elements, limits.max_element_steps,
                                        "max_element_steps"),
                                       ("FLOPs", flops, limits.max_flop_steps, "max_flop_steps")):
            if per * steps > bound:
                raise ProgramError("too_large", f"{steps:,} steps of {per:,} {what} each make "
                                   f"{per * steps:,}; the limit ({name}) is {bound:,}",
                                   hint="train for fewer steps or on less data")

    # ---- events ----------------------------------------------------------------------------
    def start(self) -> dict:
        data = classes = None
        b = self.boundary
        if b is not None:   # a classifier's labels, or a regression's targets (one a point)
            y = (targets(self.program, self.head, self.values) if b.target is None else
                 np.asarray(self.values[b.target], dtype=np.float64).reshape(-1))
            data = {"X": np.asarray(self.values[b.inputs]).tolist(), "y": y.tolist()}
            classes = None if b.target is not None else int(np.shape(self.values[b.logits])[-1])
        return {"type": "start", "steps": self.config.steps, "params": list(self.params),
                "data": data, "classes": classes}

    def step(self, i: int) -> Iterator[dict]:
        """Iteration i's events: iteration, diverged (once: the first non-finite loss or
        parameters), boundary (every boundary_every and at the last), dead (units that died
        now; none once the run diverged: a unit held at 0 by an infinite or NaN
        pre-activation is the divergence, not a dead unit), recorded (when asked)."""
        config, tape = self.config, self.tape
        values = self.values if i == 0 else tape.forward(self.params)
        loss = values[tape.output]
        self.losses.append(number(loss))
        acc = accuracy(self.program, self.head, values, self.classes)
        was = self.diverged
        if was is None:
            self.diverged = divergence(i, loss, {}, config.lr)
        died = self.dead.update(values, i) if self.diverged is None else []
        fresh = tape.backward(values)   # zero_grad: .grad starts from nothing...
        if self.accumulate and self.grads is not None:   # ...unless the bug keeps it
            fresh = {k: self.grads[k] + g for k, g in fresh.items()}
        self.grads = fresh
        new = self.opt.step(self.params, fresh)
        if self.diverged is None:
            self.diverged = divergence(i, loss, new, config.lr)
        if i in config.record:
            recorded = self._record(i, values, new)
        self.params = new
        yield {"type": "iteration", "i": i, "loss": number(loss), "accuracy": acc}
        if was is None and self.diverged is not None:
            yield {"type": "diverged", "i": i, "why": self.diverged["why"]}
        last = i == config.steps - 1
        if self.boundary is not None and (i % config.boundary_every == 0 or last):
            after = tape.forward(new)   # the boundary the update made
            self.last_boundary = {"type": "boundary", "i": i, **self.boundary.at(after)}
            yield self.last_boundary
        for d in died:   # as reported, without its iteration (the event's i)
            yield {"type": "dead", "i": i, **{k: v for k, v in d.items() if k != "iteration"}}
        if i in config.record:
            yield {"type": "recorded", "i": i, "trace": recorded}
        timeout = config.limits.timeout_seconds
        if timeout is not None and time.monotonic() - self.started > timeout and not last:
            raise ProgramError("timeout", f"training took longer than {timeout:g} s, the time "
                               "one run may take (train_timeout_seconds), and was stopped at "
                               f"iteration {i}", hint="train for fewer steps")

    def _record(self, i: int, values: list, new: dict) -> dict:
        plain = type(self.opt) is optim.SGD   # its step is lr times the gradient
        step = {"iteration": i, "new": new, "grads": self.grads, "narrate": self._narrator(i),
                "lr": self.config.lr if plain else None, "zeroed": not self.accumulate,
                "dead_units": self.dead.at(values)}
        return record.body(self.program, self.output_name, self.config.limits.trace,
                           self.params, step)

    def _narrator(self, i: int):
        """(name, bar, numbers) -> the update's narration: the optimizer's rule, its numbers
        (record.update_numbers), and with the bug what the gradient it used holds."""
        opt = self.opt
        if not self.accumulate or i == 0:
            return lambda name, b, numbers: opt.narration(name, b) + numbers
        return lambda name, b, numbers: (opt.narration(name, f"{name}.grad") + numbers +
                                         f", {name}.grad the sum of {b} over iterations 0 to "
                                         f"{i} (BUG no_zero_grad: never zeroed)")

    def done(self) -> dict:
        final = self.tape.forward(self.params)
        return {"type": "done", "losses": self.losses,
                "accuracy": accuracy(self.program, self.head, final, self.classes),
                "params": {k: encode(v, None) for k, v in self.params.items()},
                "dead_units": self.dead.found, "diverged": self.diverged}


def _refuse_headers(program: Program) -> None:
    """The bug lab's `# bugs:` line, in-place updates and `# hvp:`/`# hessian:` headers change
    one walk; training runs the program's plain passes, so they are refused, not ignored."""
    if program.bugs or program.inplace:
        span = program.bugs_span if program.bugs else program.inplace[0].span
        raise ProgramError("bad_argument", "training runs plain passes: remove the `# bugs:` "
                           "line and in-place updates (`x += ...`)",
                           hint="training's own bug is the `bugs` option: no_zero_grad",
                           **(span.to_dict() if span else {}))
    second = program.second_order
    if second is not None:   # located at its line, as every refusal of a line is
        where = second.vector_where or second.hessian_where or {}
        raise ProgramError("bad_argument", "training runs plain passes: remove the `# hvp:` "
                           "or `# hessian:` line", **where)


def iterations(program: Program, config: TrainConfig) -> Iterator[dict]:
    """The stream's events: start, then per iteration its events, then done; an error after
    the start ends it with {"type": "error", "error": {kind, message, ...}}. Raises
    ProgramError now (not at the first next()) for a bad program, config or limit."""
    run = Run(program, config)
    return _events(run)


def _events(run: Run) -> Iterator[dict]:
    yield run.start()
    try:
        for i in range(run.config.steps):
            yield from run.step(i)
    except ProgramError as e:
        yield {"type": "error", "error": e.to_dict()}
        return
    yield run.done()


def train(program: Program, config: TrainConfig) -> dict:
    """The JSON answer: {"version", "losses", "accuracy", "params", "dead_units", "diverged":
    {"iteration", "why"} or null, "recorded": {"K": body}, "boundary": the last boundary
    event's fields or null, "data" and "classes": the start event's}. Raises ProgramError."""
    answer = {"version": TRACE_VERSION, "recorded": {}, "boundary": None}
    for event in iterations(program, config):
        kind = event["type"]
        if kind == "error":
            e = event["error"]
            raise ProgramError(e["kind"], e["message"], hint=e.get("hint"))
        if kind == "start":
            answer.update(data=event["data"], classes=event["classes"])
        elif kind == "recorded":
            answer["recorded"][str(event["i"])] = event["trace"]
        elif kind == "boundary":
            answer["boundary"] = {k: v for k, v in event.items() if k != "type"}
        elif kind == "done":
            answer.update({k: v for k, v in event.items() if k != "type"})
    return {k: answer[k] for k in ("version", "losses", "accuracy", "params", "dead_units",
                                   "diverged", "recorded", "boundary", "data", "classes")}
