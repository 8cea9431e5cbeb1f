"""POST /api/quiz/mistakes: the quiz's mistakes table over HTTP (issue 16, section 1)."""
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from gradwalk.server.main import create_app
from gradwalk.server.settings import get_settings

TANH_FANOUT = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"


def test_the_tanh_fan_out_table(client):
    r = client.post("/api/quiz/mistakes", json={"program": TANH_FANOUT})
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"adjoint", "value"}
    a_bar = body["adjoint"]["n0"]
    assert [m["kind"] for m in a_bar[:2]] == ["overwrite", "overwrite"]
    assert a_bar[1]["value"] == pytest.approx(1.5728954659318548, rel=1e-12)
    assert a_bar[0]["value"] == pytest.approx(-0.7864477329659274, rel=1e-12)
    d_bar = {m["kind"]: m for m in body["adjoint"]["n4"]}
    assert d_bar["missing_local"]["value"] == 2.0   # t̄ without (1 - t²)
    assert "(1 - t²)" in d_bar["missing_local"]["text"]


@pytest.mark.parametrize("payload, kind", [
    ({"program": "x = +* 2"}, "syntax"),
    ({"program": TANH_FANOUT, "output": "nope"}, "unknown_output"),
    ({"program": TANH_FANOUT, "output": "1x"}, "bad_request"),
    ({"program": TANH_FANOUT, "bugs": ["overwrite"]}, "bad_request"),
    ({}, "bad_request"),
])
def test_bad_input_gets_the_documented_error(client, payload, kind):
    r = client.post("/api/quiz/mistakes", json=payload)
    assert r.status_code == 422
    assert r.json()["error"]["kind"] == kind


def test_a_program_over_the_quiz_bound_is_refused(monkeypatch):
    monkeypatch.setenv("GRADWALK_MAX_QUIZ_NODES", "3")
    get_settings.cache_clear()
    try:
        small = TestClient(create_app(), raise_server_exceptions=False)
        assert small.post("/api/quiz/mistakes", json={"program": "x = 1.0\ny = x * 2.0\n"}).status_code == 200
        r = small.post("/api/quiz/mistakes", json={"program": "x = 1.0\ny = x * 2.0\nz = y * y\nw = z + 1.0\n"})
        assert r.status_code == 422
        assert r.json()["error"]["kind"] == "too_large"
        assert "at most 3 nodes" in r.json()["error"]["message"]
    finally:
        get_settings.cache_clear()
