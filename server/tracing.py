"""Engine calls shared by the HTTP routes and the CLI, with the settings applied.

Everything here is synchronous and CPU-bound: the routes run it in worker threads
(server/slots.py), the CLI calls it directly.
"""
from __future__ import annotations

import json
import logging
import time
from typing import Callable

import orjson

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import Program, parse
from gradwalk.engine.trace.options import DEFAULT, Options
from gradwalk.engine.trace.runner import Limits, Tracer, gc_paused, trace_json
from gradwalk.server.settings import Settings

log = logging.getLogger("gradwalk")

FLUSH_BYTES = 64 * 1024   # the stream is handed on in pieces of about this size (bytes)
FLUSH_SECONDS = 0.005     # or of what was made in this long, whichever comes first (seconds)


class ServerBusy(Exception):
    """Every trace slot stayed taken for busy_timeout_seconds."""


class ClientGone(Exception):
    """Raised by a stream's `check`: its client went away, so the work stops."""


def limits(settings: Settings) -> Limits:
    return Limits(inline=settings.max_inline_elements, max_elements=settings.max_elements,
                  max_nodes=settings.max_nodes, max_total_elements=settings.max_total_elements,
                  max_flops=settings.max_flops,
                  max_response_bytes=settings.max_response_bytes,
                  max_statements=settings.max_statements, max_depth=settings.max_depth,
                  timeout_seconds=settings.trace_timeout_seconds)


BOM = "\ufeff"   # U+FEFF, the byte-order mark that Windows editors save first


def without_bom(program: str) -> str:
    """The program text without one leading byte-order mark, which is not part of the
    program (the CLI's utf-8-sig codec drops it the same way). One further on stays in the
    text: the parser refuses it at its line and column."""
    return program[1:] if program.startswith(BOM) else program


def check_size(program: str, settings: Settings) -> None:
    """Raises ProgramError("too_large") for a program longer than the setting allows."""
    if len(program) > settings.max_program_chars:
        raise ProgramError("too_large", f"the program has more than "
                           f"{settings.max_program_chars:,} characters (the limit, "
                           f"GRADWALK_MAX_PROGRAM_CHARS)", hint="trace a shorter program")


def parse_program(program: str, settings: Settings, dtype: str | None = None) -> Program:
    """The program checked for length and parsed (no trace slot needed), in `dtype` (None: its
    `# dtype:` line, else float64). Raises ProgramError.

    The collector is paused, as for the trace (engine/trace/runner.py gc_paused): the syntax
    tree and the IR are acyclic, and the collections their allocations set off were a tenth
    to a fifth of a 10,001-node chain's parse, which comes before the stream's first event."""
    check_size(program, settings)
    with gc_paused():
        return parse(program, settings.max_statements, settings.max_depth, dtype=dtype,
                     max_elements=settings.max_elements,
                     max_total_elements=settings.max_total_elements,
                     max_nodes=settings.max_nodes)


def trace_body(program: str | Program, output: str | None, settings: Settings,
               output_grad=None, dtype: str | None = None, options: Options = DEFAULT
               ) -> bytes:
    """The JSON body of POST /api/trace (output_grad, dtype, options: engine Tracer's). Raises
    ProgramError."""
    if isinstance(program, str):
        check_size(program, settings)
    return trace_json(program, output, limits(settings), output_grad, dtype, options)


def node_body(program: str | Program, output: str | None, node: str, settings: Settings,
              output_grad=None, options: Options = DEFAULT, dtype: str | None = None
              ) -> bytes:
    """The JSON body of POST /api/trace/node (engine/trace/node_data.py): one node's value and
    adjoint with every number. Raises ProgramError (`unknown_node` for an id the graph does
    not have)."""
    from gradwalk.engine.trace.node_data import node_data

    if isinstance(program, str):
        program = parse_program(program, settings, dtype)
    return orjson.dumps(node_data(program, output, node, limits(settings), output_grad,
                                  options))


def _nothing() -> None:
    pass


def stream_body(program: str | Program, output: str | None, settings: Settings,
                put: Callable[[bytes], None], check: Callable[[], None] = _nothing,
                output_grad=None, options: Options = DEFAULT, dtype: str | None = None
                ) -> None:
    """The event stream as Server-Sent Events, handed to `put` piece by piece as it is made.
    `program` is parsed here when it is text (in `dtype`: as trace_body's).

    `graph` first, handed on as soon as it is whole (its first parts sooner when it is over
    FLUSH_BYTES; a trace past max_response_bytes is refused before it, by the stream's only
    event); then every event in order, in pieces of about FLUSH_BYTES, or fewer once
    FLUSH_SECONDS have passed since the last piece. A program error ends the stream with one
    `error` event; so does a bug of ours (logged), so a stream never just stops. `check` is
    called before each event and raises ClientGone to stop the work (the client went away):
    then nothing more is put. `put` must not block (server/slots.py Feed): the caller holds a
    trace slot while this runs.
    """
    out, made = _Pieces(put), 0
    try:
        with gc_paused():
            check()
            if isinstance(program, str):
                check_size(program, settings)
            # the size is checked here, before the graph event (a light bound first: the
            # estimate only when it passes the limit), so a refusal is the only event
            tracer = Tracer(program, output, limits(settings), output_grad, dtype, options)
            head = b"event: graph\ndata: "
            for part in tracer.graph_parts():   # megabytes for a big program (~450 B a node)
                check()
                out.add(head + part if head else part)   # a memoryview: not copied here
                head = b""
            out.add(b"\n\n")
            out.flush()   # the first event, at once
            for record in tracer.records(arrays=True):   # the events as dicts, serialized once
                check()
                out.add(sse_event(record["kind"].encode(),
                                  orjson.dumps(record, option=orjson.OPT_SERIALIZE_NUMPY),
                                  record["seq"]))
                made += 1
    except ClientGone:
        log.info("stream stopped after %d events: the client went away", made)
        return
    except ProgramError as e:
        out.add(error_event(e.to_dict()))
    except Exception:   # noqa: BLE001 - the stream must end with an event, not a cut
        log.exception("unexpected error in the stream")
        from gradwalk.server.errors import INTERNAL   # here: starlette is not a CLI import

        out.add(error_event(INTERNAL))
    out.flush()


class _Pieces:
    """Bytes handed to `put` in pieces of about FLUSH_BYTES, or sooner once FLUSH_SECONDS have
    passed since the last piece: few pieces for the loop to send, none held back for long."""

    def __init__(self, put: Callable[[bytes], None]) -> None:
        self.put, self.pending, self.size, self.last = put, [], 0, time.monotonic()

    def add(self, data: bytes) -> None:
        self.pending.append(data)
        self.size += len(data)
        if self.size >= FLUSH_BYTES or time.monotonic() - self.last >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.put(b"".join(self.pending))
            self.pending.clear()
        self.size, self.last = 0, time.monotonic()


def sse_event(kind: bytes, data: bytes, seq: int | None = None) -> bytes:
    """One Server-Sent Event: `event: kind`, `data: data`, `id: seq` when given, a blank line.
    data is one line of JSON (orjson and json.dumps escape every line break in a string);
    the fields are in the order fastapi.sse.format_sse_event writes them."""
    tail = b"\n\n" if seq is None else b"\nid: %d\n\n" % seq
    return b"event: " + kind + b"\ndata: " + data + tail


def error_json(error: dict) -> str:
    return json.dumps({"error": error})


def error_event(error: dict) -> bytes:
    """One `error` event of the stream (its data escaped to ASCII: a message may quote a lone
    surrogate of the program, which UTF-8 cannot carry)."""
    return sse_event(b"error", error_json(error).encode("ascii"))
