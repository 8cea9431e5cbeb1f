"""What the OpenAPI schema declares beyond the models: every error status a route can answer,
with the one error shape (ErrorBody), the HTML pages' error statuses, and the event stream's
events. tests/fuzz/test_api_schema.py holds the app to these with schemathesis."""
from __future__ import annotations

# why a status happens, for the schema's descriptions (docs/trace-format.md, "Errors")
WHY = {
    400: "a body Starlette cannot read (not UTF-8, not JSON)",
    403: "a live room stepped without its presenter token",
    404: "no such link or live room, or they are turned off",
    409: "two states with one short id; live rooms with SQLite and several workers",
    413: "the body or the state is too large",
    422: "a malformed request (the field is named)",
    415: "a body not sent as JSON (Content-Type: application/json)",
    408: "the body did not arrive in time",
    429: "too many new links from this client, or steps in this live room, lately "
         "(Retry-After says when to try again)",
    503: "the database is down, or the live rooms or followers are at their bound",
    507: "the links fill the storage the server allows them",
}


def errors(*statuses: int) -> dict:
    """`responses=` for a JSON route: each status answers ErrorBody."""
    from gradwalk.server.routers.traces import ErrorBody   # here: traces imports SSE_RESPONSE from us

    return {status: {"model": ErrorBody, "description": WHY[status]} for status in statuses}


def page_errors(*statuses: int) -> dict:
    """`responses=` for an HTML page that answers an error status with the page itself (the
    error inlined as `<script type="application/json" id="initial-error">`)."""
    return {status: {"description": f"the page, with the error inlined: {WHY[status]}",
                     "content": {"text/html": {"schema": {"type": "string"}}}}
            for status in statuses}


# One Server-Sent Event as schemathesis and OpenAPI 3.1 read a `text/event-stream` schema (each
# event; `itemSchema` is 3.2). `data` is the event as JSON (docs/trace-format.md).
SSE_EVENT = {
    "type": "object",
    "required": ["event", "data"],
    "properties": {
        "event": {"type": "string", "enum": ["graph", "evaluate", "seed", "unbroadcast",
                                             "accumulate", "recompute", "tangent", "done",
                                             "error"]},
        "data": {"type": "string", "contentMediaType": "application/json"},
        "id": {"type": "string", "pattern": "^[0-9]+$"},
    },
}
SSE_RESPONSE = {"description": "Server-Sent Events: `graph`, the events, then `done` or `error`",
                "content": {"text/event-stream": {"schema": SSE_EVENT}}}

# The training stream's events (engine/train; docs/trace-format.md, "Training").
TRAIN_SSE_EVENT = {**SSE_EVENT, "properties": {
    **SSE_EVENT["properties"],
    "event": {"type": "string", "enum": ["start", "iteration", "boundary", "dead", "recorded",
                                         "done", "error"]}}}
TRAIN_SSE_RESPONSE = {"description": "Server-Sent Events: `start`, one `iteration` per "
                                     "iteration (`boundary`, `dead`, `recorded` among them), "
                                     "then `done` or `error`",
                      "content": {"text/event-stream": {"schema": TRAIN_SSE_EVENT}}}


def inline_refs(schema: dict) -> dict:
    """`schema` (a model's JSON schema) with its local `$defs` written in where they are used.
    A request body that openapi_extra puts into the OpenAPI document keeps pydantic's
    "#/$defs/..." refs, which resolve against the document's root, where there is no $defs:
    schemathesis found no way to make the body of POST /api/links once it held PageState."""
    defs = schema.get("$defs", {})

    def walk(node):
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if ref.startswith("#/$defs/"):
                rest = {k: v for k, v in node.items() if k != "$ref"}
                return {**walk(defs[ref.removeprefix("#/$defs/")]), **rest}
            return {k: walk(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)
