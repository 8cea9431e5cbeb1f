"""POST /api/trace (the whole trace as JSON) and POST /api/trace/stream (Server-Sent Events).

Handlers are plain `def`: the numpy work runs in the thread pool, not on the event loop.
"""
from __future__ import annotations

from typing import Iterator

from fastapi import APIRouter
from fastapi.responses import Response
from fastapi.sse import EventSourceResponse, ServerSentEvent
from pydantic import BaseModel, Field

from server.deps import SettingsDep
from server.tracing import stream_items, trace_body

router = APIRouter(prefix="/api", tags=["trace"])


class TraceRequest(BaseModel):
    """A program (Python syntax, see docs/trace-format.md) and the name to differentiate."""

    program: str = Field(description="the program text")
    output: str | None = Field(default=None, description="default: the last assigned name")


@router.post("/trace")
def trace(body: TraceRequest, settings: SettingsDep) -> Response:
    """The graph, every event, the output and the leaves' gradients. 422 on a program error."""
    return Response(trace_body(body.program, body.output, settings),
                    media_type="application/json")


@router.post("/trace/stream", response_class=EventSourceResponse)
def trace_stream(body: TraceRequest, settings: SettingsDep) -> Iterator[ServerSentEvent]:
    """One SSE per event, sent as produced: `graph`, then evaluate ... done; or one `error`."""
    for kind, seq, data in stream_items(body.program, body.output, settings):
        yield ServerSentEvent(raw_data=data, event=kind, id=seq)
