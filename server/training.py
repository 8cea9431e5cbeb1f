"""Training runs for the HTTP routes, with the settings applied (issue 15 §2).

POST /api/train answers engine.train's JSON; POST /api/train/stream sends engine.train's events
as Server-Sent Events, framed as POST /api/trace/stream frames its events (server/tracing.py
sse_event: `event: <type>`, `data: <the event as JSON>`, `id: <n>`, n dense from 0). Both run
in a worker thread holding a trace slot (server/slots.py), like a trace.

The limits (server/settings.py): max_train_steps and max_train_record are checked here before
the program is parsed; the elements and FLOPs of one iteration times the steps are the
engine's to count (it compiles the tape), from the limits handed to it; the wall-clock budget,
train_timeout_seconds, is checked here between events, so it holds whatever the engine does.
Past any of them the answer is a ProgramError naming the setting: 422 for /api/train, the
stream's one `error` event for the stream.
"""
from __future__ import annotations

import time
from typing import Callable, Iterable, Iterator

import orjson

from engine.errors import ProgramError
from engine.parse import Program
from server.settings import Settings
from server.tracing import ClientGone, _nothing, _Pieces, error_event, limits, sse_event

ORJSON = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def _too_large(what: str, limit: int, setting: str, hint: str) -> ProgramError:
    return ProgramError("too_large", f"{what} (the limit is {limit:,}, {setting})", hint=hint)


def check_request(steps: int, record: list[int], settings: Settings) -> None:
    """The request's own bounds, before any work: steps at most max_train_steps, at most
    max_train_record iterations recorded, each one of the run's (0 <= K < steps). Raises
    ProgramError ("too_large" naming the setting, or "bad_request" for a K past the run)."""
    if steps > settings.max_train_steps:
        raise _too_large(f"{steps:,} training steps is more than the server runs",
                         settings.max_train_steps, "GRADWALK_MAX_TRAIN_STEPS",
                         "train for fewer steps")
    if len(set(record)) > settings.max_train_record:
        raise _too_large(f"{len(set(record)):,} recorded iterations is more than one answer "
                         "carries", settings.max_train_record, "GRADWALK_MAX_TRAIN_RECORD",
                         "record fewer iterations")
    outside = [k for k in record if not 0 <= k < steps]
    if outside:
        raise ProgramError("bad_request", f"iteration {outside[0]} is not one of the run's "
                           f"(0 to {steps - 1})", hint="record an iteration the run makes")


class Deadline:
    """train_timeout_seconds from its making; `check()` raises ProgramError("timeout") past it.
    `clock` is time.monotonic, replaced by tests."""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self.clock = settings.train_timeout_seconds, clock
        self.end = clock() + self.seconds

    def check(self) -> None:
        if self.clock() > self.end:
            raise ProgramError("timeout", f"training took longer than {self.seconds:g} s (the "
                               "wall-clock budget, GRADWALK_TRAIN_TIMEOUT_SECONDS)",
                               hint="train for fewer steps, or a smaller network")


def timed(events: Iterable[dict], deadline: Deadline,
          check: Callable[[], None] = _nothing) -> Iterator[dict]:
    """events, with the deadline and `check` (a stream's client still there) looked at
    before each one is taken from the engine."""
    it = iter(events)
    while True:
        check()
        deadline.check()
        try:
            event = next(it)
        except StopIteration:
            return
        yield event


def train_config(body, settings: Settings):
    """engine.train's TrainConfig for a TrainRequest (server/routers/train.py), with the
    limits of the settings."""
    from engine.train import TrainConfig

    return TrainConfig(steps=body.steps, lr=float(body.lr), optimizer=body.optimizer,
                       record=tuple(sorted(set(body.record))), bugs=tuple(body.bugs),
                       limits=limits(settings))


def train_json(program: Program, config, settings: Settings) -> bytes:
    """The JSON body of POST /api/train: engine.train.train's answer. Raises ProgramError."""
    from engine.train import train

    deadline = Deadline(settings)
    answer = train(program, config)
    deadline.check()
    return orjson.dumps(answer, option=ORJSON)


def train_stream(program: Program, config, settings: Settings,
                 put: Callable[[bytes], None], check: Callable[[], None] = _nothing) -> None:
    """The training events as Server-Sent Events, handed to `put` piece by piece (see
    server/tracing.py stream_body: `put` never blocks, `check` raises ClientGone). A
    ProgramError (a limit, the budget) ends the stream with one `error` event; so does a bug
    of ours (logged), so a stream never just stops."""
    from engine.train import iterations

    out, seq = _Pieces(put), 0
    try:
        for event in timed(iterations(program, config), Deadline(settings), check):
            out.add(sse_event(event["type"].encode(), orjson.dumps(event, option=ORJSON), seq))
            seq += 1
            if event["type"] in ("start", "boundary", "recorded"):
                out.flush()   # the page draws these at once
    except ClientGone:
        return
    except ProgramError as e:
        out.add(error_event(e.to_dict()))
    except Exception:   # noqa: BLE001 - the stream must end with an event, not a cut
        import logging

        from server.errors import INTERNAL

        logging.getLogger("gradwalk").exception("unexpected error in the training stream")
        out.add(error_event(INTERNAL))
    out.flush()


__all__ = ["Deadline", "check_request", "train_config", "train_json", "train_stream"]
