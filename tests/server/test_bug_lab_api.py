"""The bug lab through POST /api/trace, the stream and `gradwalk trace --bug` (issue 9,
sections 4-6): the request field and the program's `# bugs:` line, the same body from the CLI,
bad switches and in-place errors as 422 with their place."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gradwalk.engine.trace.runner import body_events
from helpers import case, sse_events
from gradwalk.server.presets import presets

FIRST = case("seed-tanh-fanout")["program"]
PRESETS = {p["id"]: p["program"] for p in presets()}


def test_the_bugs_field_turns_a_switch_on(client):
    r = client.post("/api/trace", json={"program": FIRST, "bugs": ["overwrite"]})
    assert r.status_code == 200
    body = r.json()
    assert body["bugs"] == ["overwrite"]
    assert round(body["grads"]["a"], 4) == -0.7864
    assert [e["bug"] for e in body["events"] if "bug" in e] == ["overwrite"]


def test_the_program_line_keeps_the_bug_without_the_field(client):
    body = client.post("/api/trace", json={"program": PRESETS["bug-no-zero-grad"]}).json()
    assert body["bugs"] == ["no_zero_grad"]
    assert body["grads"]["c"] == pytest.approx(2 * 0.46211715726000974, abs=1e-15)
    plain = client.post("/api/trace", json={"program": FIRST}).json()
    assert "bugs" not in plain


def test_the_stream_sends_the_same_bug_events(client):
    request = {"program": FIRST, "bugs": ["no_zero_grad"], "check": True}
    whole = client.post("/api/trace", json=request).json()
    items = sse_events(client.post("/api/trace/stream", json=request).text)
    assert [data for _, data in items[1:]] == body_events(whole)
    done = items[-1][1]
    assert done["bugs"] == ["no_zero_grad"] and done["gradcheck"]["a"]["ok"] is False


@pytest.mark.parametrize("request_,words", [
    ({"bugs": ["nope"]}, "bugs: unknown switch `nope`; the switches are overwrite"),
    ({"bugs": ["inplace"]}, "bugs: `inplace` changes nothing"),
    ({"bugs": ["zero_grad", "no_zero_grad"]}, "cannot both be on"),
    ({"bugs": ["overwrite"], "mode": "forward"}, "mode forward"),
])
def test_bad_switches_are_422_bad_argument(client, request_, words):
    r = client.post("/api/trace", json={"program": FIRST, **request_})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["kind"] == "bad_argument" and words in error["message"]


def test_a_switch_that_is_not_a_string_is_a_bad_request(client):
    r = client.post("/api/trace", json={"program": FIRST, "bugs": [1]})
    assert r.status_code == 422 and r.json()["error"]["kind"] == "bad_request"


def test_an_inplace_update_of_a_saved_tensor_is_422_at_its_line(client):
    text = PRESETS["bug-inplace"].split("\n", 3)[3]
    r = client.post("/api/trace", json={"program": text})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["kind"] == "inplace" and (error["line"], error["col"]) == (7, 0)
    assert "is at version 1; expected version 0 instead." in error["message"]
    items = sse_events(client.post("/api/trace/stream", json={"program": text}).text)
    assert items[-1][0] == "error" and items[-1][1]["error"]["kind"] == "inplace"


# ---- the CLI ---------------------------------------------------------------------------------
def gradwalk(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradwalk.server.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_cli_bug_flags_print_the_api_body(client):
    api = client.post("/api/trace", json={"program": FIRST,
                                          "bugs": ["wrong_order", "overwrite"]})
    r = gradwalk("trace", "-", "--bug", "wrong_order", "--bug", "overwrite", stdin=FIRST)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().encode() == api.content
    assert json.loads(r.stdout)["bugs"] == ["overwrite", "wrong_order"]


def test_cli_unknown_bug_exits_1_with_the_error():
    r = gradwalk("trace", "-", "--bug", "nope", stdin=FIRST)
    assert r.returncode == 1
    assert json.loads(r.stdout)["error"]["kind"] == "bad_argument"
    assert "bugs: unknown switch `nope`" in r.stderr and "Traceback" not in r.stderr
