"""POST /api/trace/node: one node's full value and adjoint, for the page's detail panel when
a tensor is over the inline limit (its events carry only a summary). docs/trace-format.md.

Like POST /api/trace (routers/traces.py): the body is read and validated in a worker thread,
and the trace is run in a trace worker while holding a trace slot, within the same limits.
"""
from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import Field

from gradwalk.server.deps import SettingsDep, SlotsDep
from gradwalk.server.jsonbody import queue_share
from gradwalk.server.routers.traces import ERRORS, Body, TraceRequest, read_and_parse
from gradwalk.server.tracing import node_body

router = APIRouter(prefix="/api", tags=["trace"])


class NodeRequest(TraceRequest):
    """A trace request and the id of one node of its graph."""

    node: str = Field(pattern=r"^n(0|[1-9][0-9]{0,8})$", max_length=10,
                      description="a node id of the graph, as `n3`")


REQUEST_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": NodeRequest.model_json_schema()}}}}


@router.post("/trace/node", openapi_extra=REQUEST_BODY, responses=ERRORS,
             response_description="{node, shape, value, adjoint}, with full data")
async def trace_node(request: Request, settings: SettingsDep, slots: SlotsDep) -> Response:
    """The node's value and its adjoint after the backward pass, with all their numbers.
    422 on a program error or a node id the graph does not have (`unknown_node`)."""
    async with queue_share(request, settings, slots) as wait:
        body, program = await read_and_parse(request, settings, wait, NodeRequest)
        parts = await wait.body(node_body, program, body.output, body.node, settings,
                                body.output_grad, body.options(), body.dtype)
    return Body(parts, "application/json")
