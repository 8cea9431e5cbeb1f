"""Every limit through the API, the stream and the CLI (issue 6, section 2): each is a setting,
answers 413 or 422 with the error shape naming the limit, and the stream reports the same error
as its last event. The wall-clock budget runs on a fake clock, so no test waits for it."""
from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from gradwalk.engine.trace import deadline as deadline_module
from helpers import sse_events
from gradwalk.server.settings import Settings, get_settings
from gradwalk.server.tracing import limits

ERROR_KEYS = {"kind", "message", "line", "col", "end_line", "end_col", "hint"}
SMALL = "a = [1.0, 2.0]\nb = a * a\nL = sum(b)\n"

# setting, value, program, kind, what the message must name, (line, col) or None
LIMITS = [
    ("max_program_chars", 10, SMALL, "too_large", "GRADWALK_MAX_PROGRAM_CHARS", None),
    ("max_statements", 2, SMALL, "too_large", "max_statements", (3, 0)),
    ("max_depth", 2, "a = 1.0\nL = tanh(exp(tanh(a)))\n", "too_large", "max_depth", (2, 18)),
    ("max_nodes", 2, SMALL, "too_large", "max_nodes", (3, 0)),   # a, b, then L: 3 nodes by line 3
    ("max_elements", 3, "a = [1.0, 2.0]\nL = a + [[1.0], [2.0]]\n", "too_large", "max_elements",
     (2, 4)),
    ("max_total_elements", 3, SMALL, "too_large", "max_total_elements", (2, 4)),
    ("max_flops", 2, SMALL, "too_large", "max_flops", (3, 4)),
    ("max_response_bytes", 100, SMALL, "too_large", "max_response_bytes", (1, 4)),
    ("trace_timeout_seconds", 0, SMALL, "timeout", "trace_timeout_seconds", None),
]
IDS = [row[0] for row in LIMITS]


def _check(error: dict, kind: str, named: str, where) -> None:
    assert set(error) == ERROR_KEYS
    assert error["kind"] == kind and named in error["message"] + (error["hint"] or "")
    if where is None:
        assert error["line"] is None
    else:
        assert (error["line"], error["col"]) == where


@pytest.mark.parametrize("setting, value, program, kind, named, where", LIMITS, ids=IDS)
def test_each_limit_answers_422_naming_it(client, monkeypatch, setting, value, program, kind,
                                          named, where):
    assert client.post("/api/trace", json={"program": program}).status_code == 200
    monkeypatch.setattr(get_settings(), setting, value)
    r = client.post("/api/trace", json={"program": program})
    assert r.status_code == 422
    _check(r.json()["error"], kind, named, where)


@pytest.mark.parametrize("setting, value, program, kind, named, where", LIMITS, ids=IDS)
def test_each_limit_ends_the_stream_with_the_same_error(client, monkeypatch, setting, value,
                                                        program, kind, named, where):
    monkeypatch.setattr(get_settings(), setting, value)
    r = client.post("/api/trace/stream", json={"program": program})
    assert r.status_code == 200
    items = sse_events(r.text)
    assert items[-1][0] == "error" and all(k != "done" for k, _ in items)
    _check(items[-1][1]["error"], kind, named, where)


def test_the_body_limit_is_413_naming_the_bytes(client, monkeypatch):
    monkeypatch.setattr(get_settings(), "max_body_bytes", 50)
    r = client.post("/api/trace", json={"program": SMALL * 3})
    assert r.status_code == 413
    error = r.json()["error"]
    assert error["kind"] == "too_large" and "50 bytes" in error["message"]


class FakeClock:
    """time.monotonic advancing one second per look (the trace looks once per 1,024 nodes)."""

    def __init__(self) -> None:
        self.ticks = itertools.count()

    def monotonic(self) -> float:
        return float(next(self.ticks))


def test_the_default_budget_stops_a_long_trace_and_the_server_goes_on(client, monkeypatch):
    """With the default 20 s and a clock that gains a second per 1,024 nodes, a 40,000-node
    chain runs out inside its forward pass; the next request is traced as usual."""
    monkeypatch.setattr(deadline_module, "time", FakeClock())
    # the clock is patched in this process: the traces run in threads of it
    monkeypatch.setattr(get_settings(), "trace_processes", False)
    long = "x = 1.0\n" + "x = tanh(x)\n" * 40_000
    r = client.post("/api/trace", json={"program": long})
    assert r.status_code == 422 and r.json()["error"]["kind"] == "timeout"
    assert "20 s" in r.json()["error"]["message"]
    r = client.post("/api/trace/stream", json={"program": long})
    assert sse_events(r.text)[-1][1]["error"]["kind"] == "timeout"
    assert client.post("/api/trace", json={"program": SMALL}).status_code == 200
    assert app_slots_free(client)


def app_slots_free(client: TestClient) -> bool:
    return client.app.state.trace_slots.taken == 0


def test_every_limit_is_a_setting_passed_to_the_engine():
    s = Settings(max_statements=7, max_depth=8, trace_timeout_seconds=9.5, max_nodes=10,
                 max_elements=11, max_total_elements=12, max_flops=13, max_response_bytes=14)
    lim = limits(s)
    assert (lim.max_statements, lim.max_depth, lim.timeout_seconds, lim.max_nodes,
            lim.max_elements, lim.max_total_elements, lim.max_flops,
            lim.max_response_bytes) == (7, 8, 9.5, 10, 11, 12, 13, 14)


def test_documented_defaults():
    s = Settings()
    assert (s.max_statements, s.max_depth, s.trace_timeout_seconds) == (120_000, 100, 20.0)


@pytest.mark.parametrize("env, kind, named", [
    ({"GRADWALK_TRACE_TIMEOUT_SECONDS": "0"}, "timeout", "trace_timeout_seconds"),
    ({"GRADWALK_MAX_DEPTH": "1"}, "too_large", "max_depth"),
    ({"GRADWALK_MAX_STATEMENTS": "2"}, "too_large", "max_statements"),
])
def test_the_cli_reports_a_limit_in_one_line_with_exit_1(tmp_path, env, kind, named):
    import os

    path = tmp_path / "prog.py"
    path.write_text("a = 1.0\nb = tanh(tanh(a))\nL = b * b\n")
    r = subprocess.run([sys.executable, "-m", "gradwalk.server.cli", "trace", str(path), "--format",
                        "json"], capture_output=True, text=True, env={**os.environ, **env},
                       timeout=120)
    assert r.returncode == 1
    assert len(r.stderr.strip().splitlines()) == 1 and named in r.stderr
    assert json.loads(r.stdout)["error"]["kind"] == kind
