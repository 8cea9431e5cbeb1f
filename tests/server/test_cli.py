"""The `gradwalk` command line: json is the API body, table is the seed's backward table."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from helpers import assert_intermediates, assert_matches_case, case
from server.main import create_app


def gradwalk(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "server.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_trace_json_seed_case(seed_case, tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(seed_case["program"])
    r = gradwalk("trace", str(path), "--format", "json")
    assert r.returncode == 0, r.stderr
    body = json.loads(r.stdout)
    assert_matches_case(body, seed_case)
    assert_intermediates(body, seed_case)


def test_json_is_exactly_the_api_body():
    program = case("seed-bias-broadcast")["program"]
    api = TestClient(create_app()).post("/api/trace", json={"program": program})
    r = gradwalk("trace", "-", stdin=program)
    assert r.stdout.strip().encode() == api.content


def test_table_of_the_line_fit():
    r = gradwalk("trace", "-", "--format", "table", stdin=case("seed-line-fit")["program"])
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    assert lines[0].split() [:2] == ["Node", "Local"]
    rows = {line.split("  ")[0]: line for line in lines[2:6]}
    assert list(rows) == ["L = e ** 2", "e = v - y", "v = u + b", "u = w * x"]
    assert "dL/dw += -18" in rows["u = w * x"] and "dL/dx += -6" in rows["u = w * x"]
    assert "dL/dy += 6" in rows["e = v - y"]
    assert "dL/dw = -18" in lines and "dL/db = -6" in lines


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_program_error_exits_1_with_line_and_column(fmt):
    r = gradwalk("trace", "-", "--format", fmt, stdin="a = 1.0\nb = a +* 2\n")
    assert r.returncode == 1
    assert "line 2, column 8" in r.stderr
    if fmt == "json":
        assert json.loads(r.stdout)["error"]["line"] == 2
    else:
        assert r.stdout == ""


def test_missing_file():
    r = gradwalk("trace", "/nonexistent/prog.py")
    assert r.returncode == 2 and "cannot read" in r.stderr


def test_internal_error_is_one_line_not_a_traceback(monkeypatch, capsys, tmp_path):
    from server import cli

    def broken(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "trace_body", broken)
    path = tmp_path / "p.py"
    path.write_text("a = 1.0\n")
    assert cli.main(["trace", str(path)]) == 3
    err = capsys.readouterr().err
    assert "internal error (RuntimeError: boom)" in err and "Traceback" not in err
