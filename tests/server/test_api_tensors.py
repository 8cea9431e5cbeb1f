"""The request fields `dtype` and `output_grad` of POST /api/trace, the stream, the node route
and the exports (docs/trace-format.md, "Request fields"); the CLI's --dtype and --output-grad."""
from __future__ import annotations

import json

import numpy as np
import pytest

from gradwalk.engine.trace.values import decode
from gradwalk.engine.trace.runner import body_events
from gradwalk.server.cli import main as cli_main
from helpers import sse_events

PROGRAM = "x = [1.0, 2.0, 3.0]\ny = tanh(x) * x\n"


def test_dtype_float32_makes_every_tensor_float32(client):
    r = client.post("/api/trace", json={"program": PROGRAM, "dtype": "float32"})
    assert r.status_code == 200
    body = r.json()
    assert body["grads"]["x"]["dtype"] == "float32"
    x = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    t = np.tanh(x)
    want = t + x * (np.float32(1) - t * t)   # d/dx tanh(x) x, in float32
    np.testing.assert_allclose(decode(body["grads"]["x"]), want, rtol=1e-6)
    assert {e["value"]["dtype"] for e in body["events"] if e["kind"] == "evaluate"
            and isinstance(e["value"], dict)} == {"float32"}


def test_output_grad_seeds_the_backward_pass(client):
    r = client.post("/api/trace", json={"program": PROGRAM, "output_grad": [1.0, 0.0, -2.0]})
    assert r.status_code == 200
    body = r.json()
    x = np.array([1.0, 2.0, 3.0])
    local = np.tanh(x) + x * (1 - np.tanh(x) ** 2)
    np.testing.assert_allclose(decode(body["grads"]["x"]), local * [1.0, 0.0, -2.0],
                               rtol=1e-12)
    seed = next(e for e in body["events"] if e["kind"] == "seed")
    assert "output_grad" in seed["narration"]


def test_stream_takes_the_same_fields(client):
    request = {"program": PROGRAM, "dtype": "float32", "output_grad": [2.0, 1.0, 0.5]}
    whole = client.post("/api/trace", json=request).json()
    r = client.post("/api/trace/stream", json=request)
    assert r.status_code == 200
    items = sse_events(r.text)
    assert [data for _, data in items[1:]] == body_events(whole)
    assert items[-1][1]["grads"]["x"]["dtype"] == "float32"


@pytest.mark.parametrize("request_body,kind,line,col", [
    ({"program": PROGRAM, "output_grad": [1.0, 2.0]}, "shape", 2, 4),
    ({"program": PROGRAM, "output_grad": [[1.0], [2.0, 3.0]]}, "bad_argument", None, None),
    ({"program": "# dtype: float32\n" + PROGRAM, "dtype": "float64"}, "bad_argument", 1, 9),
    ({"program": "# dtype: half\n" + PROGRAM}, "bad_argument", 1, 9),
    ({"program": "a = [1.0]\nb = reshape(a, 2)\n"}, "shape", 2, 4),
    # review of issue 7: an empty slice reached mse's division by its size (HTTP 500)
    ({"program": "x = randn(2, 3, seed=0)\ny = x[0:0]\nL = mse(y, y)\n"}, "shape", 2, 4),
    ({"program": "x = [1.0, 2.0]\nL = var(x, correction=2)\n"}, "bad_argument", 2, 4),
])
def test_program_errors_are_located_422(client, request_body, kind, line, col):
    r = client.post("/api/trace", json=request_body)
    assert r.status_code == 422
    error = r.json()["error"]
    assert (error["kind"], error["line"], error["col"]) == (kind, line, col), error
    stream = client.post("/api/trace/stream", json=request_body)
    (event, data), = sse_events(stream.text)
    assert event == "error" and data["error"]["kind"] == kind


@pytest.mark.parametrize("request_body", [
    {"program": PROGRAM, "dtype": "float16"},
    {"program": PROGRAM, "dtype": 32},
    {"program": PROGRAM, "output_grad": "ones"},
    {"program": PROGRAM, "output_grad": {"a": 1}},
    {"program": PROGRAM, "gradient": [1.0, 1.0, 1.0]},   # unknown fields are still refused
])
def test_malformed_fields_are_refused(client, request_body):
    r = client.post("/api/trace", json=request_body)
    assert r.status_code == 422
    error = r.json()["error"]
    assert error["kind"] == "bad_request" and error["message"].startswith(
        next(k for k in request_body if k != "program")), error
    assert client.post("/api/trace/stream", json=request_body).status_code == 422


def test_node_route_and_json_export_use_the_same_fields(client):
    request = {"program": PROGRAM, "dtype": "float32", "output_grad": [1.0, 0.0, -2.0]}
    whole = client.post("/api/trace", json=request).json()
    node = client.post("/api/trace/node", json={**request, "node": "n0"})
    assert node.status_code == 200
    assert node.json()["adjoint"] == whole["grads"]["x"]
    export = client.post("/api/export/json", json=request)
    assert export.status_code == 200 and export.json()["grads"] == whole["grads"]


def test_cli_dtype_and_output_grad(tmp_path, capsys):
    path = tmp_path / "p.py"
    path.write_text(PROGRAM)
    assert cli_main(["trace", str(path), "--dtype", "float32", "--output-grad",
                     "[1, 0, -2]"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["grads"]["x"]["dtype"] == "float32" and body["grads"]["x"]["data"][1] == 0.0
    assert cli_main(["trace", str(path), "--output-grad", "[1, 0]"]) == 1
    assert "output_grad has shape (2,)" in capsys.readouterr().err


@pytest.mark.parametrize("depth,status,kind", [(33, 422, "bad_argument"),
                                               (300, 413, "too_large"),
                                               (20_000, 413, "too_large")])
def test_deeply_nested_json_is_refused_not_a_500(client, depth, status, kind):
    """Deeper than a tensor may be (the engine says so), and deeper than the body's depth
    bound (GRADWALK_MAX_JSON_DEPTH, 100: refused before any JSON parser reads it)."""
    raw = ('{"program": "x = [1.0]\\ny = x * x\\n", "output_grad": '
           + "[" * depth + "1" + "]" * depth + "}").encode()
    r = client.post("/api/trace", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == status and r.json()["error"]["kind"] == kind, r.json()
    if status == 413:
        assert "GRADWALK_MAX_JSON_DEPTH" in r.json()["error"]["message"]
