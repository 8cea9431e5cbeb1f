"""create_app(): the FastAPI app with its routers, static files and error handlers."""
from __future__ import annotations

import contextlib
import logging
import secrets
import sys
from typing import AsyncIterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from gradwalk.engine.errors import ProgramError
from gradwalk.server.body import HINTS, BodyLimit
from gradwalk.server.errors import BUSY, INTERNAL, ErrorResponse, error_dict, error_response
from gradwalk.server.head import HeadAsGet, SecurityHeaders
from gradwalk.server.jsonbody import ShapeTooLarge, UnsupportedBody
from gradwalk.server.health import HealthFirst
from gradwalk.server.memory import freeze_startup_heap
from gradwalk.server.procs import start_forkserver
from gradwalk.server.routers import exports, links, live, nodes, pages, quiz, traces, train
from gradwalk.server.routers.pages import ROOT
from gradwalk.server.settings import get_settings
from gradwalk.server.shutdown import exit_within
from gradwalk.server.slots import TraceSlots
from gradwalk.server.tracing import ServerBusy

log = logging.getLogger("gradwalk")

# The page loads only its own files: nothing from a CDN, no inline script, and no inline style
# but the <style> elements that carry the answer's nonce (CodeMirror's: static/js/render/
# editor.js EditorView.cspNonce; templates/base.html hands the nonce to the page).
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'nonce-{nonce}'; "
       "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'")
# Embeds (/embed, /embed/s/{id}) go into any site's slides; every other page only into ours.


def frame_ancestors(path: str) -> str:
    """The CSP frame-ancestors directive for a request path."""
    embed = path == "/embed" or path.startswith("/embed/")
    return "frame-ancestors *" if embed else "frame-ancestors 'self'"


def security_headers(path: str, nonce: str) -> list[tuple[bytes, bytes]]:
    """The headers every answer to `path` has (unless it set its own); `nonce` the answer's
    style nonce (server/head.py SecurityHeaders)."""
    policy = CSP.format(nonce=nonce)
    return [(b"content-security-policy", f"{policy}; {frame_ancestors(path)}".encode()),
            (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]


# Starlette's own HTTP errors and ours (server/body.py) by status: (kind, hint).
HTTP_KINDS = {404: ("not_found", None), 405: ("method_not_allowed", None),
              408: ("request_timeout", HINTS[408]), 413: ("too_large", HINTS[413])}


def _error(status: int, kind: str, message: str, hint: str | None = None,
           headers: dict | None = None) -> ErrorResponse:
    return error_response(status, error_dict(kind, message, hint), headers)


# The members of the number-or-list unions (output_grad, tangents, vector): pydantic names the
# member that failed as a location step (`tangents.a.float`), which is not a field of the body.
_UNION_MEMBERS = {"float", "int", "list[any]"}


def _where(error: dict) -> str:
    """A pydantic error's location in the body (`output`, `tangents.a`), or '' for the body."""
    return ".".join(str(p) for p in error.get("loc", ())
                    if p != "body" and p not in _UNION_MEMBERS)


def _plain(error: dict, errors: list[dict] = ()) -> str:
    """A pydantic error's message without the library's wording ("Value error, ...",
    "JSON decode error" at a position given as a location). `errors`: all of the request's,
    to tell a number field (lr) from a number-or-list one (output_grad): the union's members
    each fail apart."""
    loc = tuple(error.get("loc", ()))
    if loc[-1:] and loc[-1] in _UNION_MEMBERS:
        listy = any(tuple(e.get("loc", ())) == (*loc[:-1], "list[any]") for e in errors)
        got = error.get("input_kind")   # server/jsonbody.py
        return ("must be a number" + (" or a (nested) list of numbers" if listy else "")
                + (f", not {got}" if got and got != "a number" else ""))
    if error.get("type") == "json_invalid":
        at = error.get("loc", ())[-1:]
        return "the body is not valid JSON" + (f" (at character {at[0]})" if at and
                                                 isinstance(at[0], int) else "")
    return str(error.get("msg", "invalid request")).removeprefix("Value error, ")


def _placed(where: str, msg: str) -> str:
    """`msg` said at `where`; a message that names its own place already (a page state's
    "state.step: ...", server/pagestate.py) is not placed twice ("state: state.step: ...")."""
    if not where or msg.startswith((f"{where}:", f"{where}.", f"{where}[")):
        return msg
    return f"{where}: {msg}"


# A trace in a worker thread (GRADWALK_TRACE_PROCESSES=false; validation and small parses
# always) holds the GIL between Python's forced switches; the event loop (the page, the health
# check, a busy answer, noticing a client that left) waits for one at each step. At CPython's default 5 ms a request that needs a dozen steps took up
# to a second beside a big trace; at 1 ms it takes what it should (a 0.2 s busy answer in
# 0.22-0.24 s instead of 0.4-1.4 s, measured beside an 80,000-node stream on 2 cores).
SWITCH_INTERVAL_SECONDS = 0.001


def prepare() -> None:
    """What the first requests would otherwise pay, done by `gradwalk serve` (one process)
    before its socket listens: this module's imports (the routers, FastAPI, the engine), the
    pages' templates compiled, the trace workers' forkserver started with the engine imported
    (server/procs.py start_forkserver), and the heap frozen (server/memory.py), so that the lifespan's
    collection walks only what create_app adds. A connection made meanwhile is refused, not
    held: the first /healthz once the socket took connections waited 1.4-5.1 s for all of
    this (issue 14 §2, a review; 6.7-8.9 s at load 8), and an orchestrator's probe or the
    first student paid it."""
    for name in pages.templates.env.list_templates():
        pages.templates.get_template(name)
    if get_settings().trace_processes:
        start_forkserver()
    freeze_startup_heap()


@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The link store's and the live rooms' lifespans; a first trace worker started in the
    background (server/procs.py Pool.warm_soon: a fork once prepare has started the forkserver;
    without it, as under --workers, about a second, 3 s at load 8, that the health check must
    not wait for), and every one stopped at the end."""
    try:
        if get_settings().trace_processes:
            app.state.trace_slots.pool.warm_soon()
        async with links.lifespan(app), live.lifespan(app):
            freeze_startup_heap()
            yield
    finally:
        app.state.trace_slots.pool.close()


def create_app() -> FastAPI:
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    # No /docs or /redoc: they load scripts from a CDN that our CSP blocks (the schema stays at
    # /openapi.json). No slash redirects: they echo the Host header into Location.
    app = FastAPI(title="gradwalk", version="0.1.0",
                  description="Step through forward and reverse-mode passes of a small program.",
                  docs_url=None, redoc_url=None, redirect_slashes=False,
                  lifespan=lifespan)
    app.include_router(pages.router)
    app.include_router(traces.router)
    app.include_router(links.router)
    app.include_router(live.router)
    app.include_router(exports.router)
    app.include_router(nodes.router)
    app.include_router(train.router)
    app.include_router(quiz.router)
    app.mount("/static", StaticFiles(directory=ROOT / "static"), name="static")
    settings = get_settings()
    exit_within(settings.shutdown_timeout_seconds)
    app.state.trace_slots = TraceSlots(settings.max_concurrent_traces,
                                       settings.max_queued_bytes,
                                       settings.max_stream_buffer_bytes,
                                       settings.trace_worker_nice)
    app.add_middleware(BodyLimit)

    # The handlers are `async def` so that an error answer never waits for a worker thread.
    @app.exception_handler(ProgramError)
    async def program_error(request: Request, exc: ProgramError) -> ErrorResponse:
        return error_response(422, exc.to_dict())

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> ErrorResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = "" if first.get("type") == "json_invalid" else _where(first)
        msg = _plain(first, exc.errors())
        hint = (f"remove `{where}`: the body takes only the documented fields"
                if first.get("type") == "extra_forbidden" else None)
        return _error(422, "bad_request", _placed(where, msg), hint)

    @app.exception_handler(UnsupportedBody)
    async def unsupported_body(request: Request, exc: UnsupportedBody) -> ErrorResponse:
        return _error(415, "bad_request", UnsupportedBody.message)

    @app.exception_handler(ShapeTooLarge)
    async def too_complex(request: Request, exc: ShapeTooLarge) -> ErrorResponse:
        return _error(413, "too_large", str(exc),
                      "send only the documented fields, each no larger than the program needs")

    @app.exception_handler(ServerBusy)
    async def busy(request: Request, exc: ServerBusy) -> ErrorResponse:
        return error_response(503, BUSY, headers={"Retry-After": "5"})

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> ErrorResponse:
        # Starlette's own errors (a body that is not UTF-8, a 404, a 405) and the body limits
        # (413, 408) in the same shape; a 408 or 413 keeps its Connection: close.
        kind, hint = HTTP_KINDS.get(
            exc.status_code, ("bad_request" if exc.status_code < 500 else "internal", None))
        return _error(exc.status_code, kind, str(exc.detail), hint, exc.headers)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> ErrorResponse:
        # A bug of ours must not become a bare 500 page; log it with its traceback (the handler
        # runs outside the `except`, so exc_info must be passed) and say so plainly.
        log.error("unexpected error in %s %s", request.method, request.url.path, exc_info=exc)
        return error_response(500, INTERNAL)

    app.add_middleware(SecurityHeaders, headers_for=security_headers)
    app.add_middleware(HeadAsGet)   # the body limits and headers see a GET
    # /healthz is plain text, never a page: one nonce made here serves it (no style to admit)
    app.add_middleware(HealthFirst,   # outermost: nothing before it but uvicorn
                       headers=security_headers("/healthz", secrets.token_urlsafe(16)))
    return app
