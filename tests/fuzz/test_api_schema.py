"""schemathesis against the app's OpenAPI schema (issue 6, section 2): requests generated from
the schema, valid and invalid, in-process through the ASGI app. No answer is a 5xx other than
the documented 503s, every status is declared, every body matches its declared schema, and every
error, in a JSON answer or as the stream's `error` event, has exactly the documented keys
`{"error": {kind, message, line, col, end_line, end_col, hint}}`."""
from __future__ import annotations

import json

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import checks

from gradwalk.server.main import create_app
from gradwalk.server.routers.traces import ErrorBody
from oracle import SCALE

schema = schemathesis.openapi.from_asgi("/openapi.json", create_app())
ERROR_KEYS = {"kind", "message", "line", "col", "end_line", "end_col", "hint"}

# A program is a string to the schema; whether it is a valid program the schema cannot say, so
# a schema-valid body answering 422 (a program error) is right, not a failure.
EXCLUDED = [checks.positive_data_acceptance]


def check_error_shape(response) -> None:
    """An error answer (JSON, 4xx/5xx) and every `error` event of a stream: the one shape."""
    kind = response.headers.get("content-type", [""])
    kind = kind[0] if isinstance(kind, list) else kind
    if response.status_code >= 400 and kind.startswith("application/json"):
        error = ErrorBody.model_validate_json(response.content).error
        assert set(json.loads(response.content)["error"]) == ERROR_KEYS
        assert response.status_code < 500 or error.kind in {"busy", "unavailable"}
    if kind.startswith("text/event-stream"):
        blocks = response.content.decode().strip().split("\n\n")
        events = [dict(line.split(": ", 1) for line in b.split("\n") if ": " in line)
                  for b in blocks]
        assert events and events[0]["event"] in {"graph", "error"}
        assert events[-1]["event"] in {"done", "error"}
        for event in events:
            data = json.loads(event["data"])
            if event["event"] == "error":
                ErrorBody.model_validate(data)
                assert set(data["error"]) == ERROR_KEYS


@schema.parametrize()
@settings(max_examples=max(1, int(100 * SCALE)), deadline=None,
          suppress_health_check=list(HealthCheck))
def test_the_api_keeps_its_schema(case):
    response = case.call_and_validate(excluded_checks=EXCLUDED)
    check_error_shape(response)
