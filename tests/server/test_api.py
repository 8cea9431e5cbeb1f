"""POST /api/trace, POST /api/trace/stream, the page and the health check."""
from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import given, settings, strategies as st

from helpers import CASES, assert_intermediates, assert_matches_case, case
from gradwalk.engine.trace.runner import body_events


def test_trace_seed_case(client, seed_case):
    r = client.post("/api/trace", json={"program": seed_case["program"], "output": None})
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"version", "graph", "ledger", "events", "output", "grads",
                         "first_non_finite"}
    assert_matches_case(body, seed_case)
    assert_intermediates(body, seed_case)


def _sse(text: str) -> list[tuple[str, str | None, dict]]:
    """Parse a text/event-stream body into (event, id, data) triples."""
    out = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
        out.append((fields.get("event"), fields.get("id"), json.loads(fields["data"])))
    return out


@pytest.mark.parametrize("case_id", [c["id"] for c in CASES])
def test_stream_sends_the_same_events_in_order(client, case_id):
    program = case(case_id)["program"]
    whole = client.post("/api/trace", json={"program": program}).json()
    r = client.post("/api/trace/stream", json={"program": program})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    items = _sse(r.text)
    assert items[0][0] == "graph" and items[0][2]["graph"] == whole["graph"]
    events = items[1:]
    assert [data for _, _, data in events] == body_events(whole)   # results on done
    assert [kind for kind, _, _ in events] == [e["kind"] for e in whole["events"]]
    assert [int(i) for _, i, _ in events] == list(range(len(events)))
    assert events[-1][0] == "done"


def test_stream_bytes_are_the_standard_sse_framing(client):
    # The stream frames each event itself (one line of JSON per `data:`); the bytes are what
    # fastapi.sse.format_sse_event writes for the same events, field order included.
    from fastapi.sse import format_sse_event

    program = case("seed-tanh-fanout")["program"]
    raw = client.post("/api/trace/stream", json={"program": program}).content
    events = [data for _, _, data in _sse(raw.decode())[1:]]
    graph_data = raw.split(b"\n", 2)[1].removeprefix(b"data: ").decode()
    expected = format_sse_event(data_str=graph_data, event="graph") + b"".join(
        format_sse_event(data_str=orjson.dumps(e).decode(), event=e["kind"], id=str(e["seq"]))
        for e in events)
    assert len(events) == 16 and raw == expected
    error = client.post("/api/trace/stream", json={"program": "a = 1.0 +\n"})
    data = json.dumps({"error": json.loads(error.content.split(b"data: ")[1])["error"]})
    assert error.content == format_sse_event(data_str=data, event="error")


def test_the_stream_is_handed_on_in_pieces_as_it_is_made_and_stops_at_its_check():
    from gradwalk.server.settings import Settings
    from gradwalk.server.tracing import ClientGone, parse_program, stream_body
    from server_process import chain

    program = parse_program(chain(3_000), Settings())
    pieces: list[bytes] = []
    stream_body(program, None, Settings(), pieces.append)
    # the graph event first, in parts as its JSON is made, then the events in pieces of whole
    # events; the last is `done`
    assert pieces[0].startswith(b"event: graph\ndata: {")
    ends = [i for i, piece in enumerate(pieces) if piece.endswith(b"\n\n")]
    graph = b"".join(pieces[:ends[0] + 1])
    assert graph.count(b"\n") == 3 and json.loads(graph.split(b"data: ")[1])["graph"]["nodes"]
    events = pieces[ends[0] + 1:]
    assert len(events) > 3 and all(piece.endswith(b"\n\n") for piece in events)
    assert events[0].startswith(b"event: evaluate\n")
    assert events[-1].rsplit(b"\n\n", 2)[-2].split(b"\n", 1)[0] == b"event: done"
    # the client goes after 100 checks (one before the tracer, one per part of the graph,
    # one per event): nothing more is made, and no error event either
    checks, stopped = 0, []

    def check() -> None:
        nonlocal checks
        checks += 1
        if checks > 100:
            raise ClientGone()

    stream_body(program, None, Settings(), stopped.append, check)
    sent = b"".join(stopped)
    assert sent.count(b"\n\n") <= 101 and b"event: done" not in sent
    assert b"event: error" not in sent


def test_stream_program_error_is_an_error_event(client):
    r = client.post("/api/trace/stream", json={"program": "a = 1.0\nb = a +* 2\n"})
    assert r.status_code == 200
    (item,) = _sse(r.text)
    assert item[0] == "error"
    assert item[2]["error"]["kind"] == "syntax" and item[2]["error"]["line"] == 2


def test_program_error_is_422_with_line_and_col(client):
    r = client.post("/api/trace", json={"program": "a = 1.0\nb = lambda z: z\n"})
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["kind"] == "unsupported" and err["line"] == 2 and err["col"] == 4
    assert "lambda" in err["message"]


@pytest.mark.parametrize("body", [{}, {"program": 3}, {"program": None}, [], "x",
                                  {"program": "a = 1.0", "output": 5}])
def test_malformed_request_is_422_not_500(client, body):
    r = client.post("/api/trace", json=body)
    assert r.status_code == 422
    assert r.json()["error"]["kind"] == "bad_request"


def test_not_json_is_422(client):
    r = client.post("/api/trace", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422


def test_body_that_is_not_utf8_gets_the_error_shape(client):
    r = client.post("/api/trace", content=b'{"program": "\xff\xfe"}',
                    headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500
    assert r.json()["error"]["kind"] == "bad_request"


def test_unknown_route_gets_the_error_shape(client):
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.json()["error"]["kind"] == "not_found"


def test_huge_integer_is_a_422_in_trace_and_an_error_event_in_stream(client):
    program = "a = 1" + "0" * 400 + "\nb = a * 2\n"
    r = client.post("/api/trace", json={"program": program})
    assert r.status_code == 422 and r.json()["error"]["line"] == 1
    (item,) = _sse(client.post("/api/trace/stream", json={"program": program}).text)
    assert item[0] == "error" and item[2]["error"]["kind"] == "bad_argument"


def test_stream_ends_with_an_error_event_on_an_internal_error(client, monkeypatch):
    from gradwalk.engine.trace import runner
    from gradwalk.server.settings import get_settings

    # the engine is patched in this process: the trace runs in a thread of it
    monkeypatch.setattr(get_settings(), "trace_processes", False)

    def broken(self):
        raise RuntimeError("boom")
        yield

    monkeypatch.setattr(runner.Tracer, "records", broken)   # what the stream iterates
    items = _sse(client.post("/api/trace/stream", json={"program": "a = 1.0\n"}).text)
    assert items[0][0] == "graph" and items[-1][0] == "error"
    assert items[-1][2]["error"]["kind"] == "internal"


def test_lone_carriage_returns_end_lines(client):
    r = client.post("/api/trace", json={"program": "a = 1.0\rL = a * 2\r"})
    assert r.status_code == 200 and r.json()["grads"]["a"] == 2.0


def test_busy_server_answers_503_then_recovers(client, monkeypatch):
    import anyio.from_thread
    from gradwalk.server.settings import get_settings
    monkeypatch.setattr(get_settings(), "busy_timeout_seconds", 0.05)
    slots = client.app.state.trace_slots
    with anyio.from_thread.start_blocking_portal() as portal:
        held = [portal.wrap_async_context_manager(slots.held(1.0)) for _ in range(slots.count)]
        for slot in held:   # every slot busy with someone else's trace
            slot.__enter__()
        try:
            assert slots.taken == slots.count
            r = client.post("/api/trace", json={"program": "a = 1.0\n"})
            assert r.status_code == 503 and r.json()["error"]["kind"] == "busy"
            assert r.headers["retry-after"] == "5" and r.json()["error"]["hint"]
            # the stream takes its slot before it starts: busy is a 503 too, not a 200 stream
            r = client.post("/api/trace/stream", json={"program": "a = 1.0\n"})
            assert r.status_code == 503 and r.json()["error"]["kind"] == "busy"
            assert r.headers["retry-after"] == "5"
            # a program that does not parse never waits for a slot: 422 at once, not 503
            r = client.post("/api/trace", json={"program": "a = 1.0 +\n"})
            assert r.status_code == 422 and r.json()["error"]["kind"] == "syntax"
        finally:
            for slot in held:
                slot.__exit__(None, None, None)
    assert slots.taken == 0
    assert client.post("/api/trace", json={"program": "a = 1.0\n"}).status_code == 200


def test_a_request_with_no_preparing_thread_within_the_busy_timeout_is_busy(client,
                                                                            monkeypatch):
    # Validation and parsing wait for one of a few threads; that wait is part of the busy
    # timeout too (issue 14: 200 big streams queued there for 60 s with no answer).
    import anyio.from_thread
    from gradwalk.server.settings import get_settings
    from gradwalk.server.slots import PREPARE_THREADS
    monkeypatch.setattr(get_settings(), "busy_timeout_seconds", 0.05)
    gate = client.app.state.trace_slots._prepare_gate
    with anyio.from_thread.start_blocking_portal() as portal:
        for _ in range(PREPARE_THREADS):   # every preparing thread busy with someone else
            portal.call(gate.acquire)
        try:
            for path in ("/api/trace", "/api/trace/stream"):
                r = client.post(path, json={"program": "a = 1.0\n"})
                assert r.status_code == 503 and r.json()["error"]["kind"] == "busy"
                assert r.headers["retry-after"] == "5"
        finally:
            for _ in range(PREPARE_THREADS):
                portal.call(gate.release)
    assert client.app.state.trace_slots.queued == 0   # every share of the queue came back
    assert client.post("/api/trace", json={"program": "a = 1.0\n"}).status_code == 200


def test_program_too_long_is_refused(client, monkeypatch):
    from gradwalk.server.settings import get_settings
    monkeypatch.setattr(get_settings(), "max_program_chars", 20)
    r = client.post("/api/trace", json={"program": "a = 1.0\n" * 10})
    assert r.status_code == 422 and r.json()["error"]["kind"] == "too_large"


DOUBLING = "def f0(x):\n    return x * 1.0001\n" + "".join(
    f"def f{k}(x):\n    return f{k - 1}(f{k - 1}(x))\n" for k in range(1, 18)) + \
    "a = 1.0\nL = f17(a)\n"   # 38 lines: 2**17 calls of f0 when inlined


def test_nested_calls_over_max_statements_are_a_located_422(client):
    # was a 500 (an IndexError in engine/parse.py: the count had no statement to point at)
    r = client.post("/api/trace", json={"program": DOUBLING})
    assert r.status_code == 422
    error = r.json()["error"]
    assert (error["kind"], error["line"], error["col"]) == ("too_large", 38, 4)
    assert error["message"].startswith("this call of `f17` writes out 262,143 statements")


@pytest.mark.parametrize("path", ["/api/trace", "/api/trace/stream"])
def test_a_loop_over_10_to_the_9_says_what_to_write_where_the_page_shows_it(client, path):
    # the page's error box reads the answer's message, line and col (static/js/format.js)
    r = client.post(path, json={"program": "x = 1.0\nfor i in range(10**9):\n    x = x * 2\n"})
    error = r.json()["error"] if path == "/api/trace" else _sse(r.text)[0][2]["error"]
    assert r.status_code == (422 if path == "/api/trace" else 200)
    assert (error["kind"], error["line"], error["col"], error["end_col"]) == \
        ("bad_argument", 2, 15, 20)
    assert error["message"].endswith("known when the program is read: write 1000000000 in "
                                     "place of `10**9`, though the loop would then run "
                                     "1,000,000,000 iterations, past the limit (max_statements) "
                                     "of 120,000 statements")


def test_nonfinite_values_are_json_strings(client):
    r = client.post("/api/trace", json={"program": "x = 0.0\ny = log(x) * 1\n"})
    assert r.status_code == 200
    assert "NaN" not in r.text.replace('"NaN"', "") and '"-Infinity"' in r.text
    assert r.json()["grads"]["x"] == "Infinity"


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab1.0 =+-*/@()[],\n#Tx_:'\"lambda"))
               | st.characters(), max_size=60))
def test_any_text_answers_200_or_422(client, text):
    # json.dumps escapes lone surrogates (\ud800) that a UTF-8 body could not carry raw
    r = client.post("/api/trace", content=json.dumps({"program": text}),
                    headers={"content-type": "application/json"})
    assert r.status_code in (200, 422), r.text
    if r.status_code == 422:
        assert r.json()["error"]["message"]


def test_page_and_health(client):
    r = client.get("/")
    assert r.status_code == 200 and "seed-tanh-fanout" in r.text
    assert "Content-Security-Policy" in r.headers
    assert client.get("/healthz").text == "ok"


def test_inline_element_setting_applies_to_events_not_to_final_grads(client, monkeypatch):
    from gradwalk.server.settings import get_settings
    monkeypatch.setattr(get_settings(), "max_inline_elements", 4)
    body = client.post("/api/trace", json={"program": "x = [1.0, 2.0, 3.0, 4.0, 5.0]\n"
                                                      "L = sum(x * x)\n"}).json()
    first = body["events"][0]
    assert first["value"]["shape"] == [5] and first["value"]["data"] is None
    assert body["grads"]["x"]["data"] == [2.0, 4.0, 6.0, 8.0, 10.0]


def test_settings_come_from_the_environment(monkeypatch):
    from gradwalk.server.settings import Settings, from_environment
    monkeypatch.setenv("GRADWALK_MAX_INLINE_ELEMENTS", "7")
    monkeypatch.setenv("gradwalk_max_concurrent_traces", "3")   # names match in any case
    s = from_environment()
    assert s.max_inline_elements == 7 and s.max_concurrent_traces == 3
    assert s.max_nodes == Settings().max_nodes == 120_000   # the rest keep their defaults
