"""JSON request bodies: read as bytes, their shape bounded, validated in a worker thread.

Every route that takes a JSON body (trace, stream, node, exports, links) reads it here, so none
parses a large JSON body on the event loop and none hands pydantic a body whose shape passes
the bounds of server/jsonshape.py (max_json_depth, max_json_keys, max_json_items: 413
`too_large`). A route may have its small bodies validated on the loop (`on_loop_below`): a live
room's step, whose few hundred bytes parse in microseconds, where the thread's two hand-offs
were two waits for a core on the way from the presenter to the followers.
"""
from __future__ import annotations

import contextlib
import json
from typing import AsyncIterator, TypeVar

import anyio
from fastapi import Request
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from gradwalk.server.jsonshape import Bounds, ShapeTooLarge, UnknownField, check_shape
from gradwalk.server.settings import Settings, get_settings
from gradwalk.server.slots import TraceSlots, Waiting
from gradwalk.server.tracing import ServerBusy

M = TypeVar("M", bound=BaseModel)


class UnsupportedBody(Exception):
    message = "send the body as JSON, with Content-Type: application/json"


@contextlib.asynccontextmanager
async def queue_share(request: Request, settings: Settings, slots: TraceSlots
                      ) -> AsyncIterator[Waiting]:
    """The request's place in the queue before a trace slot (TraceSlots.waiting), weighed by
    its Content-Length (a chunked body's size is unknown: max_body_bytes), its trace to run
    in a worker process unless the setting trace_processes is off. Raises ServerBusy when the
    queue is full, once the body has been read and dropped (_discarded)."""
    try:
        size = int(request.headers["content-length"])
    except (KeyError, ValueError):
        size = settings.max_body_bytes
    if not slots.has_room(size):
        await _discarded(request, settings.busy_timeout_seconds)
        raise ServerBusy()
    async with slots.waiting(size, settings.busy_timeout_seconds,
                             settings.trace_processes) as wait:
        yield wait


async def _discarded(request: Request, seconds: float) -> None:
    """Read the request's body and keep none of it, for at most `seconds`. A busy answer given
    with the body unread closed a connection whose client was still sending, and the kernel
    answers that with a reset, which can destroy the answer before the client reads it (a
    review: of 20 streams of a 0.67 MB body, one got a reset and no HTTP answer, one 200
    bytes of the 503 and a reset). Read to its end, the answer arrives whole (and the
    connection may be kept). The body's own bounds (server/body.py) still apply."""
    with anyio.move_on_after(seconds), contextlib.suppress(HTTPException, ClientDisconnect):
        async for _ in request.stream():
            pass


async def read_body(request: Request, wait: Waiting, model: type[M],
                    on_loop_below: int = 0) -> M:
    """The body validated as `model`, its shape checked first, in a worker thread (without a
    trace slot), within the request's place in the queue (`wait`, TraceSlots.waiting); a body
    of fewer than `on_loop_below` bytes on the event loop, at once. Raises
    UnsupportedBody (415), ShapeTooLarge (413), RequestValidationError (422; an unknown
    top-level field as pydantic's `extra_forbidden`) or ServerBusy (503)."""
    if not _is_json(request.headers.get("content-type", "")):
        raise UnsupportedBody()
    raw = await request.body()
    settings = get_settings()
    bounds = Bounds(settings.max_json_depth, settings.max_json_keys, settings.max_json_items)
    try:
        if len(raw) < on_loop_below:
            return _validate(model, raw, bounds)
        return await wait.prepare(_validate, model, raw, bounds)
    except UnknownField as e:
        raise RequestValidationError([{"type": "extra_forbidden", "loc": ("body", e.name),
                                       "msg": "Extra inputs are not permitted"}]) from None
    except ValidationError as e:
        raise RequestValidationError([_kind_of_input(error) for error in
                                      e.errors(include_url=False)]) from None


# what a JSON value is, said in a message ("lr: must be a number, not a string")
_JSON_KINDS = {str: "a string", bool: "true or false", type(None): "null", dict: "an object",
               list: "a list", int: "a number", float: "a number"}


def _kind_of_input(error: dict) -> dict:
    """The error with its input replaced by the input's JSON kind ("input_kind"): what the
    message says, without holding or echoing the value itself (a program of megabytes)."""
    error = dict(error)
    error["input_kind"] = _JSON_KINDS.get(type(error.pop("input", None)))
    return error


def _validate(model: type[M], raw: bytes, bounds: Bounds) -> M:
    """model from JSON bytes, once check_shape passes them. pydantic's parser refuses a lone
    surrogate escape (`"\\ud800"`) as invalid JSON with an obscure message; Python's json reads
    it, so the field validators can say what is wrong (an output that is not a name, a program
    with an invalid character, with its line and column). Raises ShapeTooLarge, UnknownField,
    ValidationError."""
    forbids = model.model_config.get("extra") == "forbid"
    check_shape(raw, bounds, frozenset(model.model_fields) if forbids else None)
    try:
        return model.model_validate_json(raw)
    except ValidationError as e:
        if e.errors()[0]["type"] != "json_invalid":
            raise
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):   # JSON nested too deep for either parser
            raise e from None
        return model.model_validate(data)


def _is_json(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/")
                                          and kind.endswith("+json"))


__all__ = ["ShapeTooLarge", "UnsupportedBody", "queue_share", "read_body"]
