"""Hostile and malformed requests (issue 6, "Defects"): body limits, unknown fields, the output
name, routes and headers, and the error model with its hint. In-process; the behaviour that
needs a real server (timeouts, dropped clients, SIGTERM) is in test_server_process.py."""
from __future__ import annotations

import json
import logging

import pytest

from gradwalk.server.settings import get_settings

PROGRAM = "a = 1.0\nL = a * a\n"
JSON = {"content-type": "application/json"}
ERROR_KEYS = {"kind", "message", "line", "col", "end_line", "end_col", "hint"}


def _error(r) -> dict:
    error = r.json()["error"]
    assert set(error) == ERROR_KEYS
    return error


# ---- request bodies -------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/api/trace", "/api/trace/stream"])
def test_a_body_over_the_limit_is_413_naming_the_limit(client, monkeypatch, path):
    monkeypatch.setattr(get_settings(), "max_body_bytes", 1000)
    r = client.post(path, json={"program": "a = 1.0\n" * 200})
    assert r.status_code == 413 and r.headers["connection"] == "close"
    error = _error(r)
    assert error["kind"] == "too_large" and "1,000 bytes" in error["message"]
    assert error["hint"]


def test_a_chunked_body_is_counted_as_it_arrives(client, monkeypatch):
    monkeypatch.setattr(get_settings(), "max_body_bytes", 1000)
    sent = []

    def chunks():   # no Content-Length: the limit must be met on the running count
        yield b'{"program": "'
        for _ in range(100):
            sent.append(1)
            yield b"a = 1.0\\n" * 10
        yield b'"}'

    r = client.post("/api/trace", content=chunks(), headers=JSON)
    assert r.status_code == 413 and _error(r)["kind"] == "too_large"
    assert "content-length" not in {k.lower() for k in r.request.headers}


def test_a_body_at_the_limit_is_accepted(client, monkeypatch):
    body = json.dumps({"program": PROGRAM}).encode()
    monkeypatch.setattr(get_settings(), "max_body_bytes", len(body))
    assert client.post("/api/trace", content=body, headers=JSON).status_code == 200
    monkeypatch.setattr(get_settings(), "max_body_bytes", len(body) - 1)
    assert client.post("/api/trace", content=body, headers=JSON).status_code == 413


def test_default_body_limit_fits_the_longest_program_json_escaped():
    settings = get_settings()
    escaped = len(json.dumps({"program": "\u00e9" * settings.max_program_chars}))
    assert settings.max_body_bytes >= escaped


@pytest.mark.parametrize("path", ["/api/trace", "/api/trace/stream"])
def test_unknown_fields_are_refused_by_name(client, path):
    r = client.post(path, json={"program": PROGRAM, "outptu": "L"})
    assert r.status_code == 422
    error = _error(r)
    assert error["kind"] == "bad_request" and error["message"].startswith("outptu:")
    assert "outptu" in error["hint"]


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_body_that_is_not_declared_json_is_415(client, content_type):
    headers = {"content-type": content_type} if content_type else {}
    r = client.post("/api/trace", content=json.dumps({"program": PROGRAM}), headers=headers)
    assert r.status_code == 415 and _error(r)["kind"] == "bad_request"


def test_json_with_a_charset_and_json_subtypes_are_accepted(client):
    for content_type in ("application/json; charset=utf-8", "application/vnd.api+json"):
        r = client.post("/api/trace", content=json.dumps({"program": PROGRAM}),
                        headers={"content-type": content_type})
        assert r.status_code == 200, r.text


# ---- the output name ------------------------------------------------------------------------
@pytest.mark.parametrize("raw", ['"\\ud800"', '"a\\udfff"', '"a b"', '"1x"', '""', '"a.b"',
                                 '"x\\u0000"', '"' + "x" * 257 + '"'])
@pytest.mark.parametrize("path", ["/api/trace", "/api/trace/stream"])
def test_an_output_that_is_not_an_identifier_is_a_clear_422(client, raw, path):
    body = '{"program": "a = 1.0\\n", "output": %s}' % raw
    r = client.post(path, content=body.encode(), headers=JSON)
    assert r.status_code == 422, r.text
    error = _error(r)
    assert error["kind"] == "bad_request" and error["message"].startswith("output: ")


def test_a_valid_identifier_that_is_not_in_the_program_is_unknown_output(client):
    r = client.post("/api/trace", json={"program": PROGRAM, "output": "émoji_ß"})
    assert r.status_code == 422 and _error(r)["kind"] == "unknown_output"
    assert client.post("/api/trace", json={"program": PROGRAM, "output": "a"}).json()[
        "output"]["name"] == "a"


@pytest.mark.parametrize("path", ["/api/trace", "/api/trace/stream"])
def test_a_lone_surrogate_in_the_program_is_located_not_a_500(client, path):
    r = client.post(path, content=b'{"program": "a = 1.0\\nb\\ud800 = a\\n"}', headers=JSON)
    error = _error(r) if path == "/api/trace" else json.loads(r.text.split("data: ", 1)[1])[
        "error"]
    assert error["kind"] == "syntax" and "surrogate" in error["message"]
    assert (error["line"], error["col"]) == (2, 1)


# ---- routes and headers ---------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/healthz/", "/api/trace/", "/static"])
def test_no_redirect_echoes_the_host_header(client, path):
    r = client.get(path, headers={"host": "evil.example"}, follow_redirects=False)
    assert r.status_code == 404 and "location" not in r.headers
    assert _error(r)["kind"] == "not_found"


def test_docs_pages_are_off_and_the_schema_stays(client):
    for path in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        assert client.get(path).status_code == 404
    schema = client.get("/openapi.json").json()
    body = schema["paths"]["/api/trace"]["post"]["requestBody"]["content"]["application/json"]
    assert body["schema"]["additionalProperties"] is False
    assert body["schema"]["required"] == ["program"]
    assert schema["paths"]["/api/trace/stream"]["post"]["requestBody"]["required"] is True
    detail = schema["components"]["schemas"]["ErrorDetail"]
    assert set(detail["properties"]) == ERROR_KEYS


@pytest.mark.parametrize("path", ["/", "/healthz", "/static/css/app.css", "/openapi.json"])
def test_head_answers_like_get_without_a_body(client, path):
    head, get = client.head(path), client.get(path)
    assert head.status_code == get.status_code == 200
    assert head.content == b"" and get.content
    assert head.headers["content-length"] == get.headers["content-length"]
    assert head.headers["content-type"] == get.headers["content-type"]
    assert "content-security-policy" in head.headers


def test_head_of_a_post_route_is_405_in_the_error_shape(client):
    r = client.head("/api/trace")
    assert r.status_code == 405 and r.content == b""


# ---- the error model ------------------------------------------------------------------------
@pytest.mark.parametrize("method,path,kwargs,status,kind", [
    ("post", "/api/trace", {"json": {"program": "a = 1.0\nb = lambda z: z\n"}}, 422,
     "unsupported"),
    ("post", "/api/trace", {"json": {"program": 3}}, 422, "bad_request"),
    ("post", "/api/trace", {"json": {"program": PROGRAM, "output": "zz"}}, 422,
     "unknown_output"),
    ("get", "/nothing", {}, 404, "not_found"),
    ("get", "/api/trace", {}, 405, "method_not_allowed"),
])
def test_every_error_has_the_documented_keys(client, method, path, kwargs, status, kind):
    r = getattr(client, method)(path, **kwargs)
    assert r.status_code == status and _error(r)["kind"] == kind


def test_the_stream_error_event_carries_the_hint_key(client):
    r = client.post("/api/trace/stream", json={"program": "a = 1.0 +\n"})
    data = json.loads(r.text.split("data: ", 1)[1])
    assert set(data["error"]) == ERROR_KEYS and data["error"]["kind"] == "syntax"


def test_a_program_over_the_length_limit_names_it_with_a_hint(client, monkeypatch):
    monkeypatch.setattr(get_settings(), "max_program_chars", 20)
    error = _error(client.post("/api/trace", json={"program": "a = 1.0\n" * 10}))
    assert error["kind"] == "too_large" and "20 characters" in error["message"]
    assert error["hint"]


def test_an_internal_error_is_500_and_logged_with_its_traceback(client, monkeypatch, caplog):
    from gradwalk.server.routers import traces

    def broken(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(traces, "trace_body", broken)
    monkeypatch.setattr(get_settings(), "trace_processes", False)   # `broken` does not pickle
    with caplog.at_level(logging.ERROR, logger="gradwalk"):
        r = client.post("/api/trace", json={"program": PROGRAM})
    assert r.status_code == 500 and _error(r)["kind"] == "internal"
    (record,) = [rec for rec in caplog.records if rec.name == "gradwalk"]
    assert record.exc_info and isinstance(record.exc_info[1], RuntimeError)
    assert "RuntimeError: boom" in caplog.text and "Traceback" in caplog.text


def test_the_served_logging_config_prints_our_tracebacks(capsys):
    import logging.config

    from gradwalk.server.cli import _log_config

    log = logging.getLogger("gradwalk")
    try:
        logging.config.dictConfig(_log_config())
        try:
            raise ValueError("kaput")
        except ValueError as e:
            log.error("unexpected error", exc_info=e)
        err = capsys.readouterr().err
        assert "unexpected error" in err and "Traceback" in err and "ValueError: kaput" in err
    finally:
        log.handlers.clear()
        log.propagate = True


def test_the_tracer_takes_a_parsed_program():
    from gradwalk.engine.parse import parse
    from gradwalk.engine.trace.runner import Tracer

    parsed, text = Tracer(parse(PROGRAM)), Tracer(PROGRAM)
    assert [e.model_dump() for e in parsed.events()] == [e.model_dump() for e in text.events()]
