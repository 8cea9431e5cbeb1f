"""Request bodies bounded in size and in time, before any route reads one whole.

A body larger than max_body_bytes answers 413 `too_large` (a Content-Length over the limit at
once, without reading a byte; a chunked body as soon as the running count passes it). A body that
has not fully arrived body_timeout_seconds after the request began answers 408
`request_timeout`. Both close the connection, so the rest of the body is never read and a client
that sends half a body cannot hold a connection open; so does any answer given before the body
was read to its end (a GET with a body, a 404).
"""
from __future__ import annotations

from typing import Callable

import anyio
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gradwalk.server.errors import error_dict, error_response
from gradwalk.server.settings import Settings, get_settings

CLOSE = {"Connection": "close"}


class BodyTooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than the limit of {limit:,} bytes "
                              f"(GRADWALK_MAX_BODY_BYTES)", headers=CLOSE)


class BodyTimeout(HTTPException):
    def __init__(self, seconds: float) -> None:
        super().__init__(408, f"the request body did not arrive within {seconds:g} s "
                              f"(GRADWALK_BODY_TIMEOUT_SECONDS)", headers=CLOSE)


HINTS = {413: "send a shorter program", 408: "send the whole body at once"}


class BodyLimit:
    """ASGI middleware: wraps `receive` with a byte count and a deadline (see the module doc).

    The errors are raised from `receive`, so they reach the app's HTTPException handler and
    answer in the usual error shape; settings are read per request.
    """

    def __init__(self, app: ASGIApp, settings: Callable[[], Settings] = get_settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        settings = self.settings()
        limit, timeout = settings.max_body_bytes, settings.body_timeout_seconds
        if _content_length(scope) > limit:
            error = BodyTooLarge(limit)
            response = error_response(413, error_dict("too_large", error.detail, HINTS[413]),
                                      headers=CLOSE)
            return await response(scope, receive, send)
        limited = _Limited(receive, limit, timeout)
        await self.app(scope, limited, _closing_unless_read(scope, limited, send))


class _Limited:
    """`receive` that counts body bytes and gives up at a deadline, until the body is complete
    (after that, `receive` only waits for the client to disconnect, with no deadline)."""

    def __init__(self, receive: Receive, limit: int, timeout: float) -> None:
        self.receive, self.limit, self.timeout = receive, limit, timeout
        self.deadline = anyio.current_time() + timeout
        self.received = 0
        self.complete = False

    async def __call__(self) -> Message:
        if self.complete:
            return await self.receive()
        with anyio.move_on_after(self.deadline - anyio.current_time()) as scope:
            message = await self.receive()
        if scope.cancelled_caught:
            raise BodyTimeout(self.timeout)
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.limit:
                raise BodyTooLarge(self.limit)
            self.complete = not message.get("more_body", False)
        return message


def _closing_unless_read(scope: Scope, limited: _Limited, send: Send) -> Send:
    """`send` that adds `Connection: close` to a response given before the request's body was
    read to its end (a route that takes no body, an error): the server would otherwise keep
    the connection open waiting for the rest, which a client may never send."""
    headers = Headers(scope=scope)
    has_body = _content_length(scope) > 0 or "chunked" in headers.get("transfer-encoding", "")

    async def send_closing(message: Message) -> None:
        if message["type"] == "http.response.start" and has_body and not limited.complete:
            raw = list(message.get("headers", []))
            if (b"connection", b"close") not in raw:
                message = {**message, "headers": [*raw, (b"connection", b"close")]}
        await send(message)

    return send_closing


def _content_length(scope: Scope) -> int:
    try:
        return int(Headers(scope=scope).get("content-length", "0"))
    except ValueError:   # a malformed header; the server (h11) refuses it before we see it
        return 0
