"""POST /api/trace (the whole trace as JSON) and POST /api/trace/stream (Server-Sent Events).

The handlers are `async def` and never block the event loop: the body is read as bytes (bounded
by server/body.py), then validated in a worker thread and parsed and traced in a trace worker
process (server/slots.py, server/procs.py), each request holding a share of the bounded queue
in front of the trace slots until it has one. A small program is also parsed before it takes a
trace slot, so its syntax error never waits for one.
"""
from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any, AsyncIterator, Literal, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import (BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt,
                      field_validator)
from starlette.responses import StreamingResponse

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import Program
from gradwalk.engine.trace.options import Options
from gradwalk.server.deps import SettingsDep, SlotsDep
from gradwalk.server.feed import Feed, cut_if_unread
from gradwalk.server.openapi import SSE_RESPONSE
from gradwalk.server.protocol import RAW_BODY
from gradwalk.server.settings import Settings, get_settings
from gradwalk.server.shutdown import stopping
from gradwalk.server.slots import Waiting
from gradwalk.server.jsonbody import queue_share, read_body
from gradwalk.server.tracing import (error_event, parse_program, stream_body, trace_body,
                            without_bom)


log = logging.getLogger("gradwalk")


class EventStream(StreamingResponse):
    """text/event-stream, returned by an ordinary `async def` handler. (FastAPI's own
    EventSourceResponse would make the route a generator endpoint, which could not answer a
    bad request with a 422, or `busy` with a 503, before the stream starts.)

    Its body iterator is closed, and its feed stopped, as soon as the response ends, however
    it ends: when the client goes while a piece is being sent, the generator is paused at a
    `yield`, and left to the garbage collector its `finally` could run much later; when it
    goes before the response starts, the generator never runs at all."""

    media_type = "text/event-stream"

    def __init__(self, content, feed: Feed | None = None, status_code: int = 200) -> None:
        # (status_code: FastAPI reads the route's documented status from this signature)
        super().__init__(content, status_code, headers={"Cache-Control": "no-cache",
                                                        "X-Accel-Buffering": "no"})
        self.feed = feed

    async def __call__(self, scope, receive, send) -> None:
        connection = scope.get("extensions", {}).get(RAW_BODY)   # under `gradwalk serve`
        cutter = (asyncio.ensure_future(cut_if_unread(
            self.feed, connection, get_settings().dropped_stream_grace_seconds))
            if isinstance(self.feed, Feed) and connection is not None else None)
        try:
            await super().__call__(scope, receive, send)
        except asyncio.CancelledError:
            # uvicorn cancels what is still sending when shutdown_timeout_seconds is over (a
            # client reading slowly) and logged each as "Exception in ASGI application" with a
            # traceback (a review: four per shutdown); at shutdown it is expected: one line.
            if not stopping.is_set():
                raise
            log.info("a stream was cut at shutdown: its client had not read it all within "
                     "shutdown_timeout_seconds")
        finally:
            if cutter is not None:
                cutter.cancel()
            await self.body_iterator.aclose()
            if self.feed is not None:
                self.feed.stop()


class Body(StreamingResponse):
    """A body in parts (Waiting.body), sent part by part with its Content-Length: no buffer
    of the whole body is made or copied on the event loop, and uvicorn waits for the client
    to take each part instead of queueing them all."""

    def __init__(self, parts: list[bytes], media_type: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(_each(parts), media_type=media_type,
                         headers={"Content-Length": str(sum(map(len, parts))), **(headers or {})})


async def _each(parts: list[bytes]) -> AsyncIterator[bytes]:
    while parts:
        yield parts.pop(0)   # a part sent is a part freed


router = APIRouter(prefix="/api", tags=["trace"])
MAX_OUTPUT_CHARS = 256   # an output name longer than this is refused (characters)
# A program up to this long is parsed in a thread before its slot, so that an error in it
# never waits for one (a few milliseconds holding the server's GIL); a longer one is parsed
# only by its trace worker: the parse of a 60,000-line program holds the GIL for about 0.8 s.
PARSE_FIRST_CHARS = 8192
M = TypeVar("M", bound=BaseModel)


class ProgramRequest(BaseModel):
    """A program (Python syntax, see docs/trace-format.md), the name to differentiate and the
    floating-point type: the fields every program route shares (trace, stream, node, export,
    train; POST /api/quiz/mistakes reads only these)."""

    model_config = ConfigDict(extra="forbid")

    program: str = Field(description="the program text")
    output: str | None = Field(default=None, max_length=MAX_OUTPUT_CHARS,
                               description="the name to differentiate (a Python identifier); "
                                           "default: the last assigned name")

    dtype: Literal["float64", "float32"] | None = Field(
        default=None, description="the floating-point type of every value and gradient; "
        "default: the program's `# dtype:` first line, else float64 (both given must agree)")

    @field_validator("program")
    @classmethod
    def _text(cls, program: str) -> str:   # every route's program: trace, stream, export, node
        return without_bom(program)

    @field_validator("output")
    @classmethod
    def _identifier(cls, name: str | None) -> str | None:
        if name is not None and not name.isidentifier():
            raise ValueError("must be a name such as `L` or `loss` (a Python identifier)")
        return name


class TraceRequest(ProgramRequest):
    """A program and the name to differentiate, with the walk's mode and options."""

    # strict: no numeric strings or booleans; a list's elements are checked by the engine
    # (engine/trace/seed.py: numbers, rectangular, finite), which keeps the schema free of a
    # recursive $ref (the request schema is inlined in the OpenAPI document)
    output_grad: StrictFloat | StrictInt | list[Any] | None = Field(
        default=None, description="the output's starting adjoint, a number or nested list of "
        "the output's shape (PyTorch's `gradient=`); default: 1, or ones for a tensor output")

    # Issue 9 (engine/trace/options.py): the walk's mode and its inputs, the gradient check,
    # the bug lab. Tangent and vector entries are checked by the engine (shape, finite).
    mode: Literal["reverse", "forward", "hvp"] = Field(
        default="reverse", description="reverse (the backward pass), forward (tangents carried "
        "forward: a Jacobian-vector product) or hvp (a Hessian-vector product)")
    tangents: dict[str, StrictFloat | StrictInt | list[Any]] | None = Field(
        default=None, description="forward mode: {leaf: tangent}; default 1 on the first leaf, "
        "0 elsewhere")
    vector: dict[str, StrictFloat | StrictInt | list[Any]] | None = Field(
        default=None, description="hvp mode: {leaf: vector entry}; leaves not named get 0; "
        "default 1 on the first leaf's first element, 0 elsewhere")
    check: StrictBool = Field(default=False, description="add the gradient check (central "
                              "differences) to the result")
    eps: StrictFloat | None = Field(default=None, gt=0, le=1, description="the gradient "
                                    "check's step h; default: the engine's")
    bugs: list[str] = Field(default_factory=list, max_length=8, description="the bug lab's "
                            "switches, by name: overwrite, wrong_order, no_zero_grad, "
                            "zero_grad, inplace (docs/trace-format.md, \"The bug lab\"); "
                            "merged with the program's `# bugs:` line")

    def options(self) -> Options:
        """The engine's view of the issue-9 fields."""
        return Options(mode=self.mode, tangents=self.tangents, vector=self.vector,
                       check=self.check, eps=self.eps, bugs=tuple(self.bugs))


class ErrorDetail(BaseModel):
    kind: str
    message: str
    line: int | None
    col: int | None
    end_line: int | None
    end_col: int | None
    hint: str | None


class ErrorBody(BaseModel):
    """Every error answer (docs/trace-format.md, "Errors")."""

    error: ErrorDetail


# The body is read as raw bytes (so that no JSON is parsed on the event loop), so FastAPI cannot
# see the model: the request schema goes into the OpenAPI document by hand.
REQUEST_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": TraceRequest.model_json_schema()}}}}
_REQUEST_ERRORS = ((408, "the body did not arrive in time"), (413, "the body is too large"),
                   (415, "the body is not JSON"), (422, "a program error or a malformed request"))
_BUSY = (503, "busy: the queue before the trace slots is full, or no slot came within the "
              "busy timeout")
ERRORS = {status: {"model": ErrorBody, "description": text}
          for status, text in (*_REQUEST_ERRORS, _BUSY)}
# The stream refuses a bad request, and busy, as JSON; later errors are `error` events of a
# 200 stream.
STREAM_ERRORS = {status: {"description": text, "content": {"application/json": {
    "schema": {"$ref": "#/components/schemas/ErrorBody"}}}}
    for status, text in (*_REQUEST_ERRORS, _BUSY)}


async def read_and_parse(request: Request, settings: Settings, wait: Waiting,
                         model: type[M] = TraceRequest) -> tuple[M, Program | str]:
    """The body (server/jsonbody.py read_body) and its program: for a trace in a worker
    process, the text (parsed there; checked here first when it is at most
    PARSE_FIRST_CHARS long), else parsed here, both in worker threads. Raises what read_body
    and engine.parse raise."""
    body = await read_body(request, wait, model)
    if wait.processes and len(body.program) > PARSE_FIRST_CHARS:
        return body, body.program
    program = await wait.prepare(parse_program, body.program, settings, body.dtype)
    return body, body.program if wait.processes else program


@router.post("/trace", openapi_extra=REQUEST_BODY, responses=ERRORS,
             response_description="{version, graph, events, output, grads}")
async def trace(request: Request, settings: SettingsDep, slots: SlotsDep) -> Response:
    """The graph, every event, the output and the leaves' gradients. 422 on a program error."""
    async with queue_share(request, settings, slots) as wait:
        body, program = await read_and_parse(request, settings, wait)
        parts = await wait.body(trace_body, program, body.output, settings, body.output_grad,
                                body.dtype, body.options())
    return Body(parts, "application/json")


@router.post("/trace/stream", response_class=EventStream, openapi_extra=REQUEST_BODY,
             responses={200: SSE_RESPONSE, **STREAM_ERRORS})
async def trace_stream(request: Request, settings: SettingsDep, slots: SlotsDep) -> EventStream:
    """One SSE per event: `graph`, then evaluate ... done; or one `error` (status 200).

    A malformed request is refused before the stream starts (422, 413, 415, 408), and so is
    one that gets no trace slot in time (503 `busy`): the stream starts once its trace has
    its slot. A program error is the stream's one `error` event."""
    async with queue_share(request, settings, slots) as wait:
        try:
            body, program = await read_and_parse(request, settings, wait)
        except ProgramError as e:
            return EventStream(_once(error_event(e.to_dict())))
        feed = await wait.produce(functools.partial(stream_body, output_grad=body.output_grad,
                                                    options=body.options(), dtype=body.dtype),
                                  program, body.output, settings)
    return EventStream(_sent(feed), feed)


async def _once(piece: bytes) -> AsyncIterator[bytes]:
    yield piece


async def _sent(feed: Feed) -> AsyncIterator[bytes]:
    """The stream's bytes, sent as they are made. The trace runs in a worker holding a slot
    and writes into a Feed that never waits (server/feed.py); this generator sends from the
    feed. A client that stops reading holds no slot: the worker finishes into the feed and
    frees its slot (and past max_stream_buffer_bytes the feed is dropped). A client that goes
    away stops the work: Starlette cancels this generator, EventStream stops the feed, and the
    worker stops at its next event (server/tracing.py stream_body)."""
    async for piece in feed:
        yield piece
        # A turn for the loop after each piece. To a client that has gone, uvicorn's send
        # returns at once without awaiting anything, and the feed hands out queued pieces
        # without awaiting either: this loop then never paused, so Starlette's disconnect
        # listener could not cancel it until the producer fell behind, and the trace ran
        # on for seconds after its client left (N of 160,000 events, varying by load).
        await asyncio.sleep(0)
