"""What the fuzzers found, kept as plain tests (issue 6, section 2)."""
from __future__ import annotations

import warnings

import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse
from gradwalk.server.main import create_app


@pytest.fixture(scope="module")
def openapi() -> dict:
    return create_app().openapi()


def test_the_stream_declares_its_events(openapi):
    """schemathesis: the stream's 200 was declared as one string, so every event broke it."""
    content = openapi["paths"]["/api/trace/stream"]["post"]["responses"]["200"]["content"]
    event = content["text/event-stream"]["schema"]
    assert event["required"] == ["event", "data"]
    assert {"graph", "evaluate", "done", "error"} <= set(event["properties"]["event"]["enum"])


@pytest.mark.parametrize("method, path, statuses", [
    ("post", "/api/links", {"400", "404", "408", "409", "413", "415", "422", "429", "503", "507"}),
    ("get", "/api/links/{link_id}", {"404", "422", "503"}),
    ("get", "/s/{link_id}", {"404", "503"}),
    ("get", "/embed/s/{link_id}", {"404", "503"}),
])
def test_link_routes_declare_their_errors(openapi, method, path, statuses):
    """schemathesis: 404 for an unknown id and 400 for a body that is not UTF-8 were answered
    but not declared, and 422 was declared as FastAPI's `{"detail": [...]}`, which the app
    never sends."""
    responses = openapi["paths"][path][method]["responses"]
    assert statuses <= set(responses)
    for status in statuses:
        content = responses[status]["content"]
        if path.startswith("/api/") or status == "422":
            assert content["application/json"]["schema"] == {
                "$ref": "#/components/schemas/ErrorBody"}
        else:   # a page answers its errors with the page, the error inlined
            assert "text/html" in content


@pytest.mark.parametrize("text", ['a = "\\="\n', "a = 1.0\nb = 1if a else 2\n", "a = 0x1for\n"])
def test_user_text_makes_no_compiler_warnings(text):
    """Fuzzed text made Python's compiler print SyntaxWarning / DeprecationWarning on the
    server's stderr, once per request; the program's error is all we report."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ProgramError):
            parse(text)
