"""Training runs for the HTTP routes, with the settings applied (issue 15 §2).

POST /api/train answers engine.train's JSON; POST /api/train/stream sends engine.train's events
as Server-Sent Events, framed as POST /api/trace/stream frames its events (server/tracing.py
sse_event: `event: <type>`, `data: <the event as JSON>`, `id: <n>`, n dense from 0). Both run
in a worker thread holding a trace slot (server/slots.py), like a trace.

The limits (server/settings.py) are the engine's to check (engine/train/config.py TrainLimits:
steps and recorded iterations before anything runs, the elements and FLOPs of one iteration
times the steps once the tape is compiled, the wall-clock budget after each iteration), handed
the settings; `named` puts each setting's name beside the engine's name for it. Past any of
them the answer is a ProgramError naming the setting: 422 for /api/train, the stream's one
`error` event for the stream (before its `start`, or mid-way for the budget).
"""
from __future__ import annotations

import logging
from typing import Callable

import orjson

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import Program
from gradwalk.engine.train import TrainConfig, TrainLimits, iterations, train
from gradwalk.server.settings import Settings
from gradwalk.server.tracing import (ClientGone, _nothing, _Pieces, error_event, limits, parse_program,
                            sse_event)

ORJSON = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS
log = logging.getLogger("gradwalk")


def train_limits(settings: Settings) -> TrainLimits:
    """engine.train's limits from the settings (a recorded iteration's trace has a trace's)."""
    return TrainLimits(max_steps=settings.max_train_steps,
                       max_element_steps=settings.max_train_elements,
                       max_flop_steps=settings.max_train_flops,
                       max_recorded=settings.max_train_record,
                       timeout_seconds=settings.train_timeout_seconds, trace=limits(settings))


def train_config(body, settings: Settings) -> TrainConfig:
    """engine.train's TrainConfig for a TrainRequest (server/routers/train.py)."""
    return TrainConfig(steps=body.steps, lr=float(body.lr), optimizer=body.optimizer,
                       record=tuple(sorted(set(body.record))), bugs=tuple(body.bugs),
                       limits=train_limits(settings), output=body.output)


# The engine names its limits by TrainLimits' fields; an operator changes them by these.
SETTING_OF = {"max_element_steps": "GRADWALK_MAX_TRAIN_ELEMENTS",
              "max_flop_steps": "GRADWALK_MAX_TRAIN_FLOPS",
              "train_timeout_seconds": "GRADWALK_TRAIN_TIMEOUT_SECONDS",
              "max_steps": "GRADWALK_MAX_TRAIN_STEPS", "max_recorded": "GRADWALK_MAX_TRAIN_RECORD"}


def named(error: dict) -> dict:
    """An engine error dict whose message names a TrainLimits field, with the setting beside
    it: "(max_flop_steps, GRADWALK_MAX_TRAIN_FLOPS)"."""
    message = error["message"]
    for field, setting in SETTING_OF.items():
        message = message.replace(f"({field})", f"({field}, {setting})")
    return {**error, "message": message}


def parsed(program: Program | str, settings: Settings, dtype: str | None = None) -> Program:
    """The program parsed, when the route handed on its text (a worker process parses it
    there: server/routers/traces.py read_and_parse). Raises ProgramError."""
    return program if isinstance(program, Program) else parse_program(program, settings, dtype)


def train_json(program: Program | str, config: TrainConfig, settings: Settings,
               dtype: str | None = None) -> bytes:
    """The JSON body of POST /api/train: engine.train.train's answer. Raises ProgramError,
    its message naming the setting of a limit."""
    try:
        answer = train(parsed(program, settings, dtype), config)
    except ProgramError as e:
        raise ProgramError(**named(e.to_dict())) from None
    return orjson.dumps(answer, option=ORJSON)


def train_stream(program: Program | str, config, settings: Settings, dtype: str | None,
                 put: Callable[[bytes], None], check: Callable[[], None] = _nothing) -> None:
    """The training events as Server-Sent Events, handed to `put` piece by piece (see
    server/tracing.py stream_body: `put` never blocks, `check` raises ClientGone). A
    ProgramError (a limit, the budget) ends the stream with one `error` event; so does a bug
    of ours (logged), so a stream never just stops."""
    out, seq = _Pieces(put), 0
    try:
        check()
        for event in iterations(parsed(program, settings, dtype), config):
            if event["type"] == "error":   # the engine's error after the start (the budget)
                out.add(error_event(named(event["error"])))
                break
            out.add(sse_event(event["type"].encode(), orjson.dumps(event, option=ORJSON), seq))
            seq += 1
            check()
    except ClientGone:
        return
    except ProgramError as e:
        out.add(error_event(named(e.to_dict())))
    except Exception:   # noqa: BLE001 - the stream must end with an event, not a cut
        from gradwalk.server.errors import INTERNAL   # here: starlette is not a CLI import

        log.exception("unexpected error in the training stream")
        out.add(error_event(INTERNAL))
    out.flush()


__all__ = ["train_config", "train_json", "train_stream"]
