"""uvicorn's h11 protocol with a deadline for each request's head (request line and headers).

uvicorn bounds only the idle time between requests (timeout_keep_alive), and resets even that
on every byte; nothing bounds a request whose head never finishes, so a client sending half a
request line held its connection forever (issue 14: 200 held at 70 s, 1,100 at 62 s; uvicorn
issue 157). Here a connection must deliver a complete head within header_timeout_seconds of
opening, and each later request on a kept-alive connection within as long of its first byte
(an absolute deadline: trickling a byte at a time does not extend it). Past it the server
answers 408 `request_timeout` and closes the connection. Once the head is in, the body has its
own deadline (body_timeout_seconds, server/body.py) and a response (a stream) none.

`gradwalk serve` runs uvicorn with `http="gradwalk.server.protocol:HeaderTimeout"`, always the h11
implementation (httptools, if installed, would not have the deadline).

The protocol also hands each request a RawBody (the scope's extension RAW_BODY): a live room's
step is written by the hub straight to the sockets of a worker's 500 followers, one
`transport.write` each of the same framed bytes, instead of waking 500 tasks that each pass the
piece through Starlette's streaming response, four `send` wrappers and h11 (bench/live.py: 37 µs
of the server's CPU per follower and step; docs/performance.md, "Live rooms").
"""
from __future__ import annotations

import asyncio
import functools
import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from gradwalk.server.errors import error_dict
from gradwalk.server.settings import get_settings

RAW_BODY = "gradwalk.raw_body"   # the scope["extensions"] key of a request's RawBody


def timeout_answer(seconds: float) -> bytes:
    """The raw 408 response, in the error shape of every answer (docs/trace-format.md)."""
    body = json.dumps({"error": error_dict(
        "request_timeout", f"the request's headers did not arrive within {seconds:g} s "
                           "(GRADWALK_HEADER_TIMEOUT_SECONDS)",
        hint="send the request line and headers at once")}).encode()
    head = ("HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n")
    return head.encode() + body


class HeaderTimeout(H11Protocol):
    """H11Protocol whose requests must finish their head within header_timeout_seconds (read
    once per process from the settings)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout = get_settings().header_timeout_seconds
        self._head_deadline: asyncio.TimerHandle | None = None
        self.app = functools.partial(_with_raw_body, self.app)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()   # a connection that sends nothing is held no longer than a slow head

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:   # a head begun, not finished
            if self._head_deadline is None:
                self._arm()
        else:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._head_deadline = self.loop.call_later(self.header_timeout, self._timed_out)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _timed_out(self) -> None:
        self._head_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.write(timeout_answer(self.header_timeout))
            self.transport.close()


# ---- a streamed answer's body, written from outside the task that answers

def chunk(data: bytes) -> bytes:
    """`data` framed as one chunk of a chunked body (RFC 9112 section 7.1), as h11 frames it."""
    return b"%x\r\n%s\r\n" % (len(data), data)


class RawBody:
    """The connection under one request's answer, for a stream whose task is idle (waiting for
    its next piece): `ready()` says whether a chunk written now goes out in order and whole,
    and `write(chunk(piece))` writes it. Not ready (the answer has not started or has ended,
    the client left, the socket's buffer is past its high-water mark, the framing is not
    chunked), the piece goes the ordinary way: through the stream's task, whose `send` waits
    for the socket to drain. `cycle` is uvicorn's h11 RequestResponseCycle; the answer must
    not set a Content-Length (an EventStream)."""

    __slots__ = ("cycle", "transport", "flow", "chunked")

    def __init__(self, cycle) -> None:
        self.cycle, self.transport, self.flow = cycle, cycle.transport, cycle.flow
        # h11 frames an answer without a length in chunks for an HTTP/1.1 request only, and
        # uvicorn sends no body to a HEAD
        self.chunked = (cycle.conn.their_http_version == b"1.1"
                        and cycle.scope["method"] == "GET")

    def ready(self) -> bool:
        cycle = self.cycle
        return (self.chunked and cycle.response_started and not cycle.response_complete
                and not cycle.disconnected and not self.flow.write_paused
                and not self.transport.is_closing())

    def write(self, framed: bytes) -> None:
        """Write a `chunk(...)`: check ready() first."""
        self.transport.write(framed)


async def _with_raw_body(app, scope, receive, send) -> None:
    """The app, called with the request's RawBody in scope["extensions"] (`send` is the bound
    method of uvicorn's cycle; another server's, e.g. a test client's, gets none). It is taken
    out again when the app returns: the scope is the cycle's, so the two would otherwise hold
    each other until a garbage collection (uvicorn too breaks its cycle's links at the end)."""
    cycle = getattr(send, "__self__", None)
    if scope["type"] != "http" or not all(hasattr(cycle, name) for name in RAW_FIELDS):
        return await app(scope, receive, send)
    extensions = scope.setdefault("extensions", {})
    extensions[RAW_BODY] = RawBody(cycle)
    try:
        await app(scope, receive, send)
    finally:
        extensions.pop(RAW_BODY, None)


RAW_FIELDS = ("response_started", "response_complete", "disconnected", "flow", "conn",
              "transport", "scope")
