"""HEAD answered for every GET route (FastAPI's routes answer only the methods they list)."""
from __future__ import annotations

import secrets

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGet:
    """ASGI middleware: a HEAD request is routed as GET and its response sent without the body,
    with GET's status and headers (Content-Length included), as RFC 9110 section 9.3.2 asks."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            return await self.app(scope, receive, send)

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


class SecurityHeaders:
    """ASGI middleware: `headers_for(path, nonce)` (name, value pairs) added to every answer's
    start that does not have them already. `nonce` is made for each request (16 random bytes,
    base64url: CSP Level 3's nonce-source asks for at least 128 bits) and handed to the
    route as `request.state.csp_nonce`, so the page and its policy name the same one. Plain
    ASGI on purpose: Starlette's BaseHTTPMiddleware hands each piece of a streamed body
    through a memory channel to another task, a cost that a live room pays once per follower
    per step (bench/live.py)."""

    def __init__(self, app: ASGIApp, headers_for) -> None:
        self.app = app
        self.headers_for = headers_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        nonce = secrets.token_urlsafe(16)
        scope.setdefault("state", {})["csp_nonce"] = nonce
        extra = self.headers_for(scope["path"], nonce)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in extra if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
