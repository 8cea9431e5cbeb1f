"""POST /api/trace (the whole trace as JSON) and POST /api/trace/stream (Server-Sent Events).

The handlers are `async def` and never block the event loop: the body is read as bytes (bounded
by server/body.py), then validated, parsed and traced in worker threads (server/slots.py). A
program is parsed before it takes a trace slot, so a syntax error never waits for one.
"""
from __future__ import annotations

import json
import logging
from typing import AsyncIterator, TypeVar

from anyio import get_cancelled_exc_class
from anyio.from_thread import check_cancelled
from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from starlette.responses import StreamingResponse

from engine.errors import ProgramError
from server.deps import SettingsDep, SlotsDep
from server.errors import BUSY, INTERNAL
from server.openapi import SSE_RESPONSE
from server.settings import Settings
from server.slots import TraceSlots
from server.tracing import (ServerBusy, error_event, parse_program, stream_body,
                            trace_body)

log = logging.getLogger("gradwalk")


class EventStream(StreamingResponse):
    """text/event-stream, returned by an ordinary `async def` handler. (FastAPI's own
    EventSourceResponse would make the route a generator endpoint, which could not answer a
    bad request with a 422 before the stream starts.)"""

    media_type = "text/event-stream"


router = APIRouter(prefix="/api", tags=["trace"])
MAX_OUTPUT_CHARS = 256   # an output name longer than this is refused (characters)
M = TypeVar("M", bound=BaseModel)


class TraceRequest(BaseModel):
    """A program (Python syntax, see docs/trace-format.md) and the name to differentiate."""

    model_config = ConfigDict(extra="forbid")

    program: str = Field(description="the program text")
    output: str | None = Field(default=None, max_length=MAX_OUTPUT_CHARS,
                               description="the name to differentiate (a Python identifier); "
                                           "default: the last assigned name")

    @field_validator("output")
    @classmethod
    def _identifier(cls, name: str | None) -> str | None:
        if name is not None and not name.isidentifier():
            raise ValueError("must be a name such as `L` or `loss` (a Python identifier)")
        return name


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
ERRORS = {status: {"model": ErrorBody, "description": text}
          for status, text in (*_REQUEST_ERRORS, (503, "every trace slot stayed taken"))}
# The stream refuses a bad request as JSON; later errors are `error` events of a 200 stream.
STREAM_ERRORS = {status: {"description": text, "content": {"application/json": {
    "schema": {"$ref": "#/components/schemas/ErrorBody"}}}} for status, text in _REQUEST_ERRORS}


async def read_request(request: Request, slots: TraceSlots,
                       model: type[TraceRequest] = TraceRequest) -> TraceRequest:
    """The body validated as a TraceRequest (or `model`, a subclass: routers/exports.py) in a
    worker thread. Raises RequestValidationError (422) or UnsupportedBody (415)."""
    if not _is_json(request.headers.get("content-type", "")):
        raise UnsupportedBody()
    raw = await request.body()
    try:
        return await slots.prepare(_validate, model, raw)
    except ValidationError as e:
        raise RequestValidationError(e.errors(include_url=False, include_input=False)) from None


def _validate(model: type[M], raw: bytes) -> M:
    """model from JSON bytes. pydantic's parser refuses a lone surrogate escape (`"\\ud800"`)
    as invalid JSON with an obscure message; Python's json reads it, so the field validators
    can say what is wrong (an output that is not a name, a program with an invalid character,
    with its line and column)."""
    try:
        return model.model_validate_json(raw)
    except ValidationError as e:
        if e.errors()[0]["type"] != "json_invalid":
            raise
        try:
            data = json.loads(raw)
        except ValueError:
            raise e from None
        return model.model_validate(data)


async def require_json(request: Request) -> None:
    """A dependency for routes that parse their body with FastAPI: a body that is not sent as
    JSON is 415 (as POST /api/trace answers), not a validation error. Raises UnsupportedBody."""
    if not _is_json(request.headers.get("content-type", "")):
        raise UnsupportedBody()


class UnsupportedBody(Exception):
    message = "send the body as JSON, with Content-Type: application/json"


def _is_json(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/")
                                          and kind.endswith("+json"))


@router.post("/trace", openapi_extra=REQUEST_BODY, responses=ERRORS,
             response_description="{version, graph, events, output, grads}")
async def trace(request: Request, settings: SettingsDep, slots: SlotsDep) -> Response:
    """The graph, every event, the output and the leaves' gradients. 422 on a program error."""
    body = await read_request(request, slots)
    program = await slots.prepare(parse_program, body.program, settings)
    data = await slots.trace(settings.busy_timeout_seconds, trace_body, program, body.output,
                             settings)
    return Response(data, media_type="application/json")


@router.post("/trace/stream", response_class=EventStream, openapi_extra=REQUEST_BODY,
             responses={200: SSE_RESPONSE, **STREAM_ERRORS})
async def trace_stream(request: Request, settings: SettingsDep, slots: SlotsDep) -> EventStream:
    """One SSE per event: `graph`, then evaluate ... done; or one `error` (status 200).

    A malformed request is refused before the stream starts (422, 413, 415, 408)."""
    body = await read_request(request, slots)
    return EventStream(_events(body, settings, slots),
                       headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def _events(body: TraceRequest, settings: Settings,
                  slots: TraceSlots) -> AsyncIterator[bytes]:
    """The stream's bytes. The trace is computed whole inside a slot, the slot is released, and
    only then is anything sent, so a client that stops reading holds no slot. When the client
    disconnects, Starlette cancels this task: the work in the thread stops at its next event
    (check_cancelled) and the pieces are dropped."""
    try:
        program = await slots.prepare(parse_program, body.program, settings)
        pieces = await slots.trace(settings.busy_timeout_seconds, stream_body, program,
                                   body.output, settings, check_cancelled)
    except ProgramError as e:
        pieces = [error_event(e.to_dict())]
    except ServerBusy:
        pieces = [error_event(BUSY)]
    except get_cancelled_exc_class():
        log.info("stream stopped before it was sent: the client went away")
        raise
    except Exception:   # noqa: BLE001 - the stream must end with an event, not a cut
        log.exception("unexpected error in the stream")
        pieces = [error_event(INTERNAL)]
    try:
        for i in range(len(pieces)):
            piece, pieces[i] = pieces[i], b""   # sent pieces are freed as the stream goes
            yield piece
    finally:
        pieces.clear()
