"""POST /api/export/{format}: a file of the walk (standalone HTML, the backward table as
Markdown or LaTeX, or the trace JSON) as a download.

Like POST /api/trace (routers/traces.py): the body is read and validated in a worker thread,
and the trace and the file are made in a trace worker while holding a trace slot, so exports
count against max_concurrent_traces and never block the event loop.
"""
from __future__ import annotations

import re
from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import Field

from gradwalk.server.deps import SettingsDep, SlotsDep
from gradwalk.server.errors import error_dict, error_response
from gradwalk.server.export_html import MissingAsset
from gradwalk.server.exports import FORMATS, export
from gradwalk.server.jsonbody import queue_share
from gradwalk.server.routers.traces import ERRORS, Body, TraceRequest, read_and_parse

router = APIRouter(prefix="/api/export", tags=["export"])


class ExportRequest(TraceRequest):
    """A trace request plus the page state (issue 5 contract: v, step, theme, font, ...) whose
    view fields the standalone page opens with; other fields of it are dropped."""

    state: dict | None = Field(default=None, description="the page state (html only)")


REQUEST_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": ExportRequest.model_json_schema()}}}}


def filename(output: str | None, fmt: str) -> str:
    """gradwalk-L.md, or gradwalk-walk.md without an output name."""
    name = output if output and re.fullmatch(r"[A-Za-z0-9_]{1,40}", output) else "walk"
    return f"gradwalk-{name}{FORMATS[fmt].suffix}"


@router.post("/{fmt}", openapi_extra=REQUEST_BODY,
             responses={**ERRORS, 503: {"description": "no trace slot, or the page is not built"}})
async def export_file(fmt: Literal["html", "md", "tex", "json"], request: Request,
                      settings: SettingsDep, slots: SlotsDep) -> Response:
    """The file as an attachment: html the standalone page, md and tex the backward-pass
    table, json the trace body. 422 on a program error; 503 when every trace slot stays
    taken, or (html) when the page's scripts are not built."""
    try:
        async with queue_share(request, settings, slots) as wait:
            body, program = await read_and_parse(request, settings, wait, ExportRequest)
            parts = await wait.body(export, fmt, body.program, body.output, settings,
                                    body.state, program, body.output_grad, body.dtype)
    except MissingAsset as e:
        return error_response(503, error_dict("unavailable", str(e), hint="run `npm run build`"))
    return Body(parts, FORMATS[fmt].media_type, headers={
        "Content-Disposition": f'attachment; filename="{filename(body.output, fmt)}"'})
