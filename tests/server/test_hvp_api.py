"""hvp mode, the Hessian and power iteration through POST /api/trace, the stream and
`gradwalk trace` (issue 9, sections 2, 5 and 6): the same fields, the same errors, the CLI's
json is the API's body."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gradwalk.engine.trace.runner import body_events
from helpers import case, sse_events
from gradwalk.server.presets import presets

FIRST = case("seed-tanh-fanout")["program"]
HV = {"a": 0.05958575158234014, "b": 0.11917150316468028, "c": 0.7864477329659274}   # v=(1,.5,0)


def test_hvp_body(client):
    r = client.post("/api/trace", json={"program": FIRST, "mode": "hvp",
                                        "vector": {"a": 1, "b": 0.5}})
    assert r.status_code == 200
    body = r.json()
    assert body["hvp"] == pytest.approx(HV, abs=1e-15)
    assert body["hvp_forward_over_reverse"] == pytest.approx(HV, abs=1e-15)
    assert body["output"]["name"] == "s"
    labels = [n["label"] for n in body["graph"]["nodes"]]
    assert "t\u0304" in labels and "a\u0304" in labels and labels[-1] == "s"   # t̄, ā
    assert body["events"][-1] == {"seq": len(body["events"]) - 1, "kind": "done"}


def test_the_stream_sends_the_same_events_with_hvp_on_done(client):
    request = {"program": FIRST, "mode": "hvp", "vector": {"a": 1, "b": 0.5}}
    whole = client.post("/api/trace", json=request).json()
    items = sse_events(client.post("/api/trace/stream", json=request).text)
    assert items[0][0] == "graph" and items[0][1]["graph"]["nodes"] == whole["graph"]["nodes"]
    assert [data for _, data in items[1:]] == body_events(whole)
    assert items[-1][1]["hvp"] == whole["hvp"]


def test_power_iteration_preset_through_the_api(client):
    program = next(p["program"] for p in presets() if p["id"] == "hessian-power-iteration")
    body = client.post("/api/trace", json={"program": program}).json()
    assert len(body["hessian"]["leaves"]) == 12 and len(body["hessian"]["matrix"]) == 12
    assert body["eigen"]["steps"] == 30
    assert body["eigen"]["value"] == pytest.approx(7.823725846395, rel=1e-9)
    assert [e["kind"] for e in body["events"]][0] == "evaluate"   # the normal walk


@pytest.mark.parametrize("request_extra, words", [
    ({"mode": "hvp", "vector": {"zz": 1}}, "vector names `zz`"),
    ({"mode": "hvp", "vector": {"a": [1, 2]}}, "vector[`a`] has shape (2,)"),
    ({"mode": "hvp", "vector": {"a": [1, None]}}, "vector[`a`] must be a number"),
])
def test_bad_vector(client, request_extra, words):
    r = client.post("/api/trace", json={"program": FIRST, **request_extra})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["kind"] == "bad_argument" and words in error["message"]


def test_errors_of_second_order(client):
    r = client.post("/api/trace", json={"program": "# hessian: full\nW = zeros(8, 8)\n"
                                                   "L = sum(W * W * W)\n"})
    assert r.status_code == 422
    assert r.json()["error"]["kind"] == "too_large" and "50 scalar inputs" in \
        r.json()["error"]["message"] and "64" in r.json()["error"]["message"]
    r = client.post("/api/trace", json={"program": "z = [1.0, 2.0]\nL = sum(gelu(z))\n",
                                        "mode": "hvp"})
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["kind"] == "unsupported" and "gelu" in error["message"] and error["line"] == 2
    stream = sse_events(client.post("/api/trace/stream", json={
        "program": "z = [1.0, 2.0]\nL = sum(gelu(z))\n", "mode": "hvp"}).text)
    assert stream == [("error", {"error": error})]


def gradwalk(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradwalk.server.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_cli_json_is_the_api_body(client):
    vector = '{"a": 1, "b": 0.5}'
    r = gradwalk("trace", "-", "--mode", "hvp", "--vector", vector, stdin=FIRST)
    assert r.returncode == 0, r.stderr
    api = client.post("/api/trace", json={"program": FIRST, "mode": "hvp",
                                          "vector": json.loads(vector)})
    assert r.stdout.strip().encode() == api.content
    assert json.loads(r.stdout)["hvp"] == pytest.approx(HV, abs=1e-15)


def test_cli_bad_vector():
    r = gradwalk("trace", "-", "--mode", "hvp", "--vector", '{"zz": 1}', stdin=FIRST)
    assert r.returncode == 1
    assert "vector names `zz`" in r.stderr and "Traceback" not in r.stderr
    r = gradwalk("trace", "-", "--mode", "hvp", "--vector", "[1]", stdin=FIRST)
    assert r.returncode == 2 and "--vector" in r.stderr


def test_node_route_answers_for_the_backward_graph(client):
    """POST /api/trace/node takes the mode too: in hvp mode its ids are the backward graph's
    (ā is a node there), and its adjoint is the second-order one, ∂s/∂ā."""
    request = {"program": FIRST, "mode": "hvp", "vector": {"a": 1, "b": 0.5}}
    body = client.post("/api/trace", json=request).json()
    abar = next(n for n in body["graph"]["nodes"] if n["label"] == "a\u0304")
    r = client.post("/api/trace/node", json={**request, "node": abar["id"]})
    assert r.status_code == 200
    data = r.json()
    assert data["value"] == pytest.approx(0.7864477329659274, abs=1e-15)
    assert data["adjoint"] == 1.0   # s = v_a * ā + v_b * b̄ with v_a = 1
