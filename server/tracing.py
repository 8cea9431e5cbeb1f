"""Engine calls shared by the HTTP routes and the CLI, with the settings applied."""
from __future__ import annotations

import json
from typing import Iterator

from engine.errors import ProgramError
from engine.trace.events import TRACE_VERSION, _Event
from engine.trace.runner import Tracer, trace_json
from server.settings import Settings


def check_size(program: str, settings: Settings) -> None:
    """Raises ProgramError("too_large") for a program longer than the setting allows."""
    if len(program) > settings.max_program_chars:
        raise ProgramError("too_large", f"the program has {len(program):,} characters; the "
                           f"limit is {settings.max_program_chars:,}", 1, 0)


def trace_body(program: str, output: str | None, settings: Settings) -> bytes:
    """The JSON body of POST /api/trace. Raises ProgramError."""
    check_size(program, settings)
    return trace_json(program, output, settings.max_inline_elements, settings.max_elements)


def stream_items(program: str, output: str | None, settings: Settings) -> Iterator[tuple]:
    """(kind, id, json) triples for the event stream: `graph` first, then every event in order;
    a program error becomes one `error` item instead."""
    try:
        check_size(program, settings)
        tracer = Tracer(program, output, settings.max_inline_elements, settings.max_elements)
    except ProgramError as e:
        yield "error", None, json.dumps({"error": e.to_dict()})
        return
    yield "graph", None, json.dumps({"version": TRACE_VERSION, "graph": tracer.graph_json()})
    event: _Event
    for event in tracer.events():
        yield event.kind, str(event.seq), event.model_dump_json()
