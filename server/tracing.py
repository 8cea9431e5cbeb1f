"""Engine calls shared by the HTTP routes and the CLI, with the settings applied.

Everything here is synchronous and CPU-bound: the routes run it in worker threads
(server/slots.py), the CLI calls it directly.
"""
from __future__ import annotations

import json
import logging
from typing import Callable

import orjson

from engine.errors import ProgramError
from engine.parse import Program, parse
from engine.trace.runner import Limits, Tracer, gc_paused, trace_json
from server.settings import Settings

log = logging.getLogger("gradwalk")

CHUNK_BYTES = 64 * 1024   # the stream is sent in pieces of about this size (bytes)


class ServerBusy(Exception):
    """Every trace slot stayed taken for busy_timeout_seconds."""


def limits(settings: Settings) -> Limits:
    return Limits(inline=settings.max_inline_elements, max_elements=settings.max_elements,
                  max_nodes=settings.max_nodes, max_total_elements=settings.max_total_elements,
                  max_flops=settings.max_flops,
                  max_response_bytes=settings.max_response_bytes,
                  max_statements=settings.max_statements, max_depth=settings.max_depth,
                  timeout_seconds=settings.trace_timeout_seconds)


def check_size(program: str, settings: Settings) -> None:
    """Raises ProgramError("too_large") for a program longer than the setting allows."""
    if len(program) > settings.max_program_chars:
        raise ProgramError("too_large", f"the program has more than "
                           f"{settings.max_program_chars:,} characters (the limit, "
                           f"GRADWALK_MAX_PROGRAM_CHARS)", hint="trace a shorter program")


def parse_program(program: str, settings: Settings) -> Program:
    """The program checked for length and parsed (no trace slot needed). Raises ProgramError."""
    check_size(program, settings)
    return parse(program, settings.max_statements, settings.max_depth)


def trace_body(program: str | Program, output: str | None, settings: Settings) -> bytes:
    """The JSON body of POST /api/trace. Raises ProgramError."""
    if isinstance(program, str):
        check_size(program, settings)
    return trace_json(program, output, limits(settings))


def _nothing() -> None:
    pass


def stream_body(program: Program, output: str | None, settings: Settings,
                check: Callable[[], None] = _nothing) -> list[bytes]:
    """The whole event stream as Server-Sent Events, in pieces of about CHUNK_BYTES.

    `graph` first, then every event in order. A program error ends the stream with one `error`
    event; so does a bug of ours (logged), so a stream never just stops. `check` is called
    between events and may raise to stop the work (the client went away). The caller holds a
    trace slot while this runs and sends the pieces after releasing it, so no slot ever waits
    on a client.
    """
    from fastapi.sse import format_sse_event   # here: the CLI does not pay for fastapi

    pieces: list[bytes] = []
    pending: list[bytes] = []
    size = 0

    def put(kind: str, seq: str | None, data: str) -> None:
        nonlocal size
        item = format_sse_event(data_str=data, event=kind, id=seq)
        pending.append(item)
        size += len(item)
        if size >= CHUNK_BYTES:
            pieces.append(b"".join(pending))
            pending.clear()
            size = 0

    try:
        with gc_paused():
            tracer = Tracer(program, output, limits(settings))
            put("graph", None, tracer.graph_bytes().decode())
            for record in tracer.records():   # the events as dicts, serialized once each
                check()
                put(record["kind"], str(record["seq"]), orjson.dumps(record).decode())
    except ProgramError as e:
        put("error", None, error_json(e.to_dict()))
    except Exception:   # noqa: BLE001 - the stream must end with an event, not a cut
        log.exception("unexpected error in the stream")
        from server.errors import INTERNAL   # here: starlette is not a CLI import

        put("error", None, error_json(INTERNAL))
    if pending:
        pieces.append(b"".join(pending))
    return pieces


def error_json(error: dict) -> str:
    return json.dumps({"error": error})


def error_event(error: dict) -> bytes:
    """One `error` event of the stream."""
    from fastapi.sse import format_sse_event

    return format_sse_event(data_str=error_json(error), event="error")
