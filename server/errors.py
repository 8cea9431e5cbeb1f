"""The one error shape every answer uses: `{"error": {kind, message, line, col, end_line, end_col,
hint}}` (docs/trace-format.md, "Errors", lists every kind with its HTTP status)."""
from __future__ import annotations

import json

from starlette.responses import JSONResponse


def error_dict(kind: str, message: str, hint: str | None = None, line: int | None = None,
               col: int | None = None, end_line: int | None = None,
               end_col: int | None = None) -> dict:
    """The `error` object; the same keys as engine.errors.ProgramError.to_dict()."""
    return {"kind": kind, "message": message, "line": line, "col": col, "end_line": end_line,
            "end_col": end_col, "hint": hint}


INTERNAL = error_dict("internal", "gradwalk hit an internal error; please report it",
                      hint="the server log has the details")
BUSY = error_dict("busy", "the server is busy tracing other programs; try again in a moment",
                  hint="retry in a few seconds")


class ErrorResponse(JSONResponse):
    """JSON with every non-ASCII character escaped: an error message may quote the user's text,
    and a lone surrogate (`\\ud800`) in it cannot be encoded as UTF-8 but can be escaped."""

    def render(self, content) -> bytes:
        return json.dumps(content, separators=(",", ":"), allow_nan=False).encode("ascii")


def error_response(status: int, error: dict, headers: dict | None = None) -> ErrorResponse:
    return ErrorResponse({"error": error}, status_code=status, headers=headers)
