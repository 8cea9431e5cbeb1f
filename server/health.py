"""GET /healthz answered before the app's middleware and routing.

An orchestrator restarts the server when its health check is slow, and beside two big traces
every step of a request waits for the GIL that the traces' threads hold (server/main.py,
SWITCH_INTERVAL_SECONDS): through the whole middleware stack and the router /healthz took up to
2.84 s (issue 14). Answered here it is two `send` calls, the fewest steps the server can take;
docs/performance.md, "The health check under load", has the figures.
"""
from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

PATH = "/healthz"
BODY = b"ok"


class HealthFirst:
    """ASGI middleware: GET or HEAD /healthz without a request body answers 200 `ok` (text/plain)
    with `headers` (the security headers every answer has); everything else, a health check
    with a body included, goes to the app (server/body.py closes such a connection)."""

    def __init__(self, app: ASGIApp, headers: list[tuple[bytes, bytes]]) -> None:
        self.app = app
        self.headers = [(b"content-type", b"text/plain; charset=utf-8"),
                        (b"content-length", b"%d" % len(BODY)), *headers]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or scope["path"] != PATH
                or scope["method"] not in ("GET", "HEAD") or _has_body(scope)):
            return await self.app(scope, receive, send)
        await send({"type": "http.response.start", "status": 200, "headers": self.headers})
        await send({"type": "http.response.body",
                    "body": b"" if scope["method"] == "HEAD" else BODY})


def _has_body(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"transfer-encoding" or (name == b"content-length" and value != b"0"):
            return True
    return False
