"""create_app(): the FastAPI app with its routers, static files and error handlers."""
from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from engine.errors import ProgramError
from server.routers import pages, traces
from server.routers.pages import ROOT
from server.tracing import INTERNAL, ServerBusy

log = logging.getLogger("gradwalk")

# The page loads only its own files: nothing from a CDN, no inline script.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'")


def _error(status: int, kind: str, message: str, line=None, col=None) -> JSONResponse:
    return JSONResponse({"error": {"kind": kind, "message": message, "line": line, "col": col,
                                   "end_line": None, "end_col": None}}, status_code=status)


def create_app() -> FastAPI:
    app = FastAPI(title="gradwalk", version="0.1.0",
                  description="Step through forward and reverse-mode passes of a small program.")
    app.include_router(pages.router)
    app.include_router(traces.router)
    app.mount("/static", StaticFiles(directory=ROOT / "static"), name="static")

    @app.exception_handler(ProgramError)
    def program_error(request: Request, exc: ProgramError) -> JSONResponse:
        return JSONResponse({"error": exc.to_dict()}, status_code=422)

    @app.exception_handler(RequestValidationError)
    def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return _error(422, "bad_request", f"{where}: {first.get('msg', 'invalid request')}")

    @app.exception_handler(ServerBusy)
    def busy(request: Request, exc: ServerBusy) -> JSONResponse:
        return _error(503, "busy", ServerBusy.message)

    @app.exception_handler(HTTPException)
    def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        # Starlette's own errors (a body that is not UTF-8, a 404, a 405) in the same shape.
        kind = {404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, "bad_request" if exc.status_code < 500 else "internal")
        return _error(exc.status_code, kind, str(exc.detail))

    @app.exception_handler(Exception)
    def unexpected(request: Request, exc: Exception) -> JSONResponse:
        # A bug of ours must not become a bare 500 page; log it and say so plainly.
        log.exception("unexpected error")
        return JSONResponse({"error": INTERNAL}, status_code=500)

    @app.middleware("http")
    async def security_headers(request: Request, call_next):
        response = await call_next(request)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    return app
