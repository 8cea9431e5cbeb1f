"""Engine calls shared by the HTTP routes and the CLI, with the settings applied."""
from __future__ import annotations

import contextlib
import functools
import json
import logging
import threading
from typing import Iterator

from engine.errors import ProgramError
from engine.trace.events import TRACE_VERSION
from engine.trace.runner import Limits, Tracer, trace_json
from server.settings import Settings

log = logging.getLogger("gradwalk")
INTERNAL = {"kind": "internal", "message": "gradwalk hit an internal error; please report it",
            "line": None, "col": None, "end_line": None, "end_col": None}


class ServerBusy(Exception):
    """Every trace slot stayed taken for busy_timeout_seconds."""

    message = "the server is busy tracing other programs; try again in a moment"


@functools.lru_cache
def _slots(count: int) -> threading.BoundedSemaphore:
    return threading.BoundedSemaphore(count)


@contextlib.contextmanager
def trace_slot(settings: Settings):
    """Hold one of max_concurrent_traces slots while tracing. Raises ServerBusy."""
    slots = _slots(settings.max_concurrent_traces)
    if not slots.acquire(timeout=settings.busy_timeout_seconds):
        raise ServerBusy()
    try:
        yield
    finally:
        slots.release()


def limits(settings: Settings) -> Limits:
    return Limits(inline=settings.max_inline_elements, max_elements=settings.max_elements,
                  max_nodes=settings.max_nodes, max_total_elements=settings.max_total_elements,
                  max_flops=settings.max_flops)


def check_size(program: str, settings: Settings) -> None:
    """Raises ProgramError("too_large") for a program longer than the setting allows."""
    if len(program) > settings.max_program_chars:
        raise ProgramError("too_large", f"the program has {len(program):,} characters; the "
                           f"limit is {settings.max_program_chars:,}")


def trace_body(program: str, output: str | None, settings: Settings) -> bytes:
    """The JSON body of POST /api/trace. Raises ProgramError."""
    check_size(program, settings)
    with trace_slot(settings):
        return trace_json(program, output, limits(settings))


def stream_items(program: str, output: str | None, settings: Settings) -> Iterator[tuple]:
    """(kind, id, json) triples for the event stream: `graph` first, then every event in order.

    A program error becomes one `error` item; so does a bug of ours (logged), so a stream never
    just stops.
    """
    try:
        check_size(program, settings)
        with trace_slot(settings):
            tracer = Tracer(program, output, limits(settings))
            yield "graph", None, json.dumps({"version": TRACE_VERSION,
                                             "graph": tracer.graph_json()})
            for event in tracer.events():
                yield event.kind, str(event.seq), event.model_dump_json()
    except ProgramError as e:
        yield "error", None, json.dumps({"error": e.to_dict()})
    except ServerBusy:
        yield "error", None, json.dumps({"error": {"kind": "busy", "message": ServerBusy.message,
                                                   "line": None, "col": None, "end_line": None,
                                                   "end_col": None}})
    except Exception:   # noqa: BLE001 - the stream must end with an event, not a cut
        log.exception("unexpected error in the stream")
        yield "error", None, json.dumps({"error": INTERNAL})
