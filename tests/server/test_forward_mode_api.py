"""Forward mode and the gradient check through POST /api/trace, the stream and `gradwalk trace`
(issue 9, section 5): the same fields, the same errors, the CLI's json is the API's body."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gradwalk.engine.trace.runner import body_events
from helpers import case, sse_events

FIRST = case("seed-tanh-fanout")["program"]


def test_forward_mode_body(client):
    r = client.post("/api/trace", json={"program": FIRST, "mode": "forward",
                                        "tangents": {"b": 1}})
    assert r.status_code == 200
    body = r.json()
    assert body["jvp"] == pytest.approx(1.5728954659318548, abs=1e-12)   # ∂L/∂b
    assert body["passes"]["forward"] == 3 and body["passes"]["reverse"] == 1
    assert "all_forward" not in body   # tangents given: one pass
    kinds = [e["kind"] for e in body["events"]]
    assert kinds == ["tangent"] * 7 + ["done"] and body["events"][-1] == {"seq": 7,
                                                                           "kind": "done"}


def test_default_tangents_run_all_forward_passes(client):
    body = client.post("/api/trace", json={"program": FIRST, "mode": "forward"}).json()
    assert body["all_forward"]["passes"] == 3 and body["all_forward"]["agree"] is True
    assert body["all_forward"]["gradient"] == pytest.approx(body["grads"], abs=1e-12)


def test_the_stream_sends_the_same_events_with_the_results_on_done(client):
    request = {"program": FIRST, "mode": "forward", "check": True}
    whole = client.post("/api/trace", json=request).json()
    items = sse_events(client.post("/api/trace/stream", json=request).text)
    assert items[0][0] == "graph"
    assert [data for _, data in items[1:]] == body_events(whole)
    done = items[-1][1]
    assert done["jvp"] == whole["jvp"] and done["gradcheck"] == whole["gradcheck"]


def test_check_adds_gradcheck_in_reverse_mode(client):
    body = client.post("/api/trace", json={"program": FIRST, "check": True,
                                           "eps": 1e-4}).json()
    assert set(body["gradcheck"]) == {"a", "b", "c"}
    assert all(row["ok"] and row["eps"] == 1e-4 for row in body["gradcheck"].values())
    assert "jvp" not in body


@pytest.mark.parametrize("request_, words", [
    ({"mode": "forward", "tangents": {"zz": 1}}, ["tangents", "`zz`"]),
    ({"mode": "forward", "tangents": {"a": [1, 2]}}, ["tangents[`a`]", "shape"]),
    ({"mode": "forward", "tangents": {"a": [[1], [1, 2]]}}, ["tangents[`a`]"]),
])
def test_bad_tangents_are_422_bad_argument(client, request_, words):
    r = client.post("/api/trace", json={"program": FIRST, **request_})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["kind"] == "bad_argument"
    for w in words:
        assert w in error["message"]


def test_bad_tangents_in_the_stream_are_an_error_event_before_any_event(client):
    items = sse_events(client.post("/api/trace/stream", json={
        "program": FIRST, "mode": "forward", "tangents": {"zz": 1}}).text)
    assert [kind for kind, _ in items] == ["error"]
    assert items[0][1]["error"]["kind"] == "bad_argument"


@pytest.mark.parametrize("request_", [{"eps": 0}, {"eps": 2.0}, {"check": "yes"},
                                      {"mode": "sideways"}, {"tangents": [1, 2]}])
def test_malformed_fields_are_bad_request(client, request_):
    r = client.post("/api/trace", json={"program": FIRST, **request_})
    assert r.status_code == 422 and r.json()["error"]["kind"] == "bad_request"


def test_a_check_over_its_limit_is_too_large(client):
    r = client.post("/api/trace", json={"program": "W = randn(50, 50, seed=0)\nL = sum(W)\n",
                                        "check": True})
    assert r.status_code == 422 and r.json()["error"]["kind"] == "too_large"
    assert "2,000" in r.json()["error"]["message"]


# ---- the CLI ---------------------------------------------------------------------------------
def gradwalk(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradwalk.server.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_cli_forward_mode_json_is_the_api_body(client):
    api = client.post("/api/trace", json={"program": FIRST, "mode": "forward",
                                          "tangents": {"a": 0.5, "c": 1}, "check": True,
                                          "eps": 1e-5})
    r = gradwalk("trace", "-", "--mode", "forward", "--tangents", '{"a": 0.5, "c": 1}',
                 "--check", "--eps", "1e-5", stdin=FIRST)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().encode() == api.content
    assert json.loads(r.stdout)["jvp"] == pytest.approx(0.5 * 0.7864477329659274
                                                        + 0.46211715726000974)


def test_cli_bad_tangents_exit_1_with_the_error_json():
    r = gradwalk("trace", "-", "--mode", "forward", "--tangents", '{"q": 1}', stdin=FIRST)
    assert r.returncode == 1
    assert json.loads(r.stdout)["error"]["kind"] == "bad_argument"
    assert "tangents" in r.stderr and "`q`" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("args, words", [
    (["--tangents", "[1, 2]"], "not a JSON object"),
    (["--tangents", "{a: 1}"], "is not JSON: give an object {leaf: value}"),
    (["--eps", "0"], "not a step"),
    (["--eps", "abc"], "not a step"),
    (["--mode", "sideways"], "invalid choice"),
])
def test_cli_bad_flags_are_usage_errors(args, words):
    r = gradwalk("trace", "-", *args, stdin=FIRST)
    assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr


def test_cli_table_in_forward_mode_and_with_the_check():
    r = gradwalk("trace", "-", "--format", "table", "--mode", "forward", "--check", stdin=FIRST)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "a = 1 + 1ε: a is the input we differentiate by, so a\u0307 = ∂a/∂a = 1"
    assert "jvp (the tangent of L) = 0.7864" in lines
    assert "all 3 forward passes agree with reverse mode (max |difference| 0)" in lines
    assert "  a: max abs error 2.9e-11, max rel error 3.7e-11, h = 1e-06: ok" in lines
    r = gradwalk("trace", "-", "--format", "table", "--check", stdin=FIRST)
    assert r.returncode == 0 and "gradient check (central differences):" in r.stdout
    assert "dL/da = 0.7864" in r.stdout   # the backward table is still there
