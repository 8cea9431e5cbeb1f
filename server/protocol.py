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
"""
from __future__ import annotations

import asyncio
import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from gradwalk.server.errors import error_dict
from gradwalk.server.settings import get_settings


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
