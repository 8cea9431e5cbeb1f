"""POST /api/trace/node: one node's full value and adjoint for the detail panel (issue 7, §4)."""
from __future__ import annotations

import pytest

from gradwalk.server.settings import get_settings

BIG = ("X = [" + ", ".join("[" + ", ".join(f"{(i * 10 + j) % 7 - 3}.0" for j in range(10)) + "]"
                          for i in range(10)) + "]\nL = sum(tanh(X * 0.1))\n")
KEYS = {"kind", "message", "line", "col", "end_line", "end_col", "hint"}


def test_full_value_and_adjoint_of_a_tensor_over_the_inline_limit(client):
    trace = client.post("/api/trace", json={"program": BIG}).json()
    evaluated = next(e for e in trace["events"] if e["kind"] == "evaluate" and e["node"] == "n0")
    assert evaluated["value"]["data"] is None   # 100 elements > the inline limit (64)
    r = client.post("/api/trace/node", json={"program": BIG, "output": "L", "node": "n0"})
    assert r.status_code == 200
    body = r.json()
    assert body["node"] == "n0" and body["shape"] == [10, 10]
    assert body["value"]["data"][1][:3] == [0.0, 1.0, 2.0]   # (10 + j) % 7 - 3
    # dL/dX = 0.1 (1 - tanh(0.1 x)^2), the same numbers as the done event's grads
    assert body["adjoint"]["data"] == trace["grads"]["X"]["data"]


def test_a_constant_has_no_adjoint(client):
    body = client.post("/api/trace/node", json={"program": BIG, "node": "n1"}).json()
    assert body["value"] == 0.1 and body["adjoint"] is None


@pytest.mark.parametrize("payload, status, kind", [
    ({"program": BIG, "node": "n9"}, 422, "unknown_node"),
    ({"program": BIG, "node": "x1"}, 422, "bad_request"),
    ({"program": BIG, "node": "n01"}, 422, "bad_request"),
    ({"program": BIG}, 422, "bad_request"),
    ({"program": BIG, "node": "n0", "extra": 1}, 422, "bad_request"),
    ({"program": "x = +* 2", "node": "n0"}, 422, "syntax"),
    ({"program": BIG, "node": "n0", "output": "nope"}, 422, "unknown_output"),
])
def test_bad_input_gets_the_documented_error(client, payload, status, kind):
    r = client.post("/api/trace/node", json=payload)
    assert r.status_code == status
    error = r.json()["error"]
    assert error["kind"] == kind and set(error) == KEYS


def test_not_json_is_415(client):
    r = client.post("/api/trace/node", content=b"x", headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and r.json()["error"]["kind"] == "bad_request"


def test_the_limits_apply(client, monkeypatch):
    monkeypatch.setenv("GRADWALK_MAX_ELEMENTS", "50")
    get_settings.cache_clear()
    try:
        r = client.post("/api/trace/node", json={"program": BIG, "node": "n0"})
    finally:
        monkeypatch.delenv("GRADWALK_MAX_ELEMENTS")
        get_settings.cache_clear()
    assert r.status_code == 422 and r.json()["error"]["kind"] == "too_large"
