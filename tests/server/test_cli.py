"""The `gradwalk` command line: json is the API body, table is the seed's backward table."""
from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest
from fastapi.testclient import TestClient

from helpers import assert_intermediates, assert_matches_case, case
from gradwalk.server.main import create_app


def gradwalk(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gradwalk.server.cli", *args], input=stdin,
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


def test_version_is_the_installed_distributions_and_exit_0():
    """`gradwalk --version` was a usage error (exit 2) in the review of 454e759."""
    from importlib.metadata import version
    r = gradwalk("--version")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"gradwalk {version('gradwalk')}\n" and r.stderr == ""


def test_nested_calls_over_the_limit_are_a_located_error_not_an_internal_one(capsys, tmp_path):
    from gradwalk.server import cli
    from test_api import DOUBLING

    path = tmp_path / "calls17.py"
    path.write_text(DOUBLING)
    assert cli.main(["trace", str(path)]) == 1   # was 3, "internal error" (IndexError)
    err = capsys.readouterr().err
    assert "line 38" in err and "this call of `f17` writes out 262,143 statements" in err
    assert "internal" not in err


def test_internal_error_is_one_line_not_a_traceback(monkeypatch, capsys, tmp_path):
    from gradwalk.server import cli, tracing

    def broken(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(tracing, "trace_body", broken)
    path = tmp_path / "p.py"
    path.write_text("a = 1.0\n")
    assert cli.main(["trace", str(path)]) == 3
    err = capsys.readouterr().err
    assert "internal error (RuntimeError: boom)" in err and "Traceback" not in err


# ---- closed streams, broken pipes, Ctrl-C, endless input: one line and a documented code ----
CLI = [sys.executable, "-m", "gradwalk.server.cli"]


def _one_line(stderr: str) -> str:
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    return stderr


def test_closed_stdin_is_one_line_and_exit_2():
    r = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh", *CLI, "trace", "-"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert _one_line(r.stderr) == "gradwalk: cannot read -: stdin is closed\n"


def test_closed_stdout_is_one_line_and_exit_4(tmp_path):
    path = tmp_path / "p.py"
    path.write_text("a = 1.0\nL = a * a\n")
    r = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *CLI, "trace", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 4
    assert _one_line(r.stderr) == "gradwalk: cannot write the output: stdout is closed\n"


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_a_broken_pipe_is_one_line_and_exit_4(fmt):
    # `gradwalk trace ... | head` where head has already gone: the reading end is closed.
    proc = subprocess.Popen([*CLI, "trace", "-", "--format", fmt], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    _, err = proc.communicate(case("seed-line-fit")["program"].encode(), timeout=120)
    assert proc.returncode == 4
    assert "broken pipe" in _one_line(err.decode()) and b"Exception ignored" not in err


def test_ctrl_c_is_one_line_and_exit_130():
    proc = subprocess.Popen([*CLI, "trace", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # Wait until it blocks reading stdin (syscall 0, read, on fd 0), then press Ctrl-C.
        syscall = pathlib.Path(f"/proc/{proc.pid}/syscall")
        deadline = time.monotonic() + 120
        while not syscall.read_text().startswith("0 0x0 "):
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert _one_line(err.decode()) == "gradwalk: interrupted\n"


def test_endless_input_is_refused_at_the_limit_without_reading_it_all():
    # `yes` never ends: reading the whole input would never return.
    yes = subprocess.Popen(["yes", "a = 1.0"], stdout=subprocess.PIPE)
    try:
        r = subprocess.run([*CLI, "trace", "-"], stdin=yes.stdout, capture_output=True,
                           text=True, timeout=120,
                           env={**os.environ, "GRADWALK_MAX_PROGRAM_CHARS": "1000"})
    finally:
        yes.kill()
        yes.wait()
    assert r.returncode == 1
    assert "more than 1,000 characters" in _one_line(r.stderr)
    assert json.loads(r.stdout)["error"]["kind"] == "too_large"


def test_a_file_over_the_limit_is_refused_with_the_limit_named(tmp_path):
    path = tmp_path / "big.py"
    path.write_text("a = 1.0\n" * 1000)
    r = subprocess.run([*CLI, "trace", str(path), "--format", "table"], capture_output=True,
                       text=True, timeout=120,
                       env={**os.environ, "GRADWALK_MAX_PROGRAM_CHARS": "7999"})
    assert r.returncode == 1 and r.stdout == ""
    assert "7,999 characters" in _one_line(r.stderr) and "(trace a shorter program)" in r.stderr


def test_a_file_that_is_not_utf8_is_exit_2(tmp_path):
    path = tmp_path / "latin1.py"
    path.write_bytes("a = 1.0  # caf\u00e9\n".encode("latin-1"))
    r = gradwalk("trace", str(path))
    assert r.returncode == 2 and "cannot read" in _one_line(r.stderr)


def test_help_documents_the_exit_codes():
    r = gradwalk("--help")
    assert r.returncode == 0 and "exit codes:" in r.stdout
    for code in ("0", "1", "2", "3", "4", "130"):
        assert any(line.split()[:1] == [code] for line in r.stdout.splitlines()), code


def test_output_given_a_file_name_says_to_use_o(tmp_path):
    # `--output` is the name to differentiate; `--output out.md` is a slip for `-o out.md`.
    prog = tmp_path / "p.py"
    prog.write_text("a = 1.0\nL = a * 3.0\n")
    r = subprocess.run([sys.executable, "-m", "gradwalk.server.cli", "export", str(prog), "--format",
                        "md", "--output", "out.md"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "--output takes the name to differentiate" in r.stderr and "-o FILE" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "out.md").exists()


# ---- settings from the environment, and what the trace path imports -------------------------
def _env_without_settings() -> dict[str, str]:
    """This environment without any GRADWALK_ variable (CI sets some for other tests)."""
    return {k: v for k, v in os.environ.items() if not k.upper().startswith("GRADWALK_")}


def test_a_setting_in_the_environment_applies_to_the_cli(tmp_path):
    path = tmp_path / "p.py"
    path.write_text("a = 1.0\nb = a * 2.0\nL = b * b\n")   # 5 nodes: a, 2.0, b, L (+1 const)
    ok = subprocess.run([*CLI, "trace", str(path)], capture_output=True, text=True,
                        timeout=120, env=_env_without_settings())
    assert ok.returncode == 0 and json.loads(ok.stdout)["grads"]["a"] == 8.0
    r = subprocess.run([*CLI, "trace", str(path)], capture_output=True, text=True, timeout=120,
                       env={**_env_without_settings(), "gradwalk_max_nodes": "3"})
    assert r.returncode == 1
    assert "the limit (max_nodes) is 3" in _one_line(r.stderr)
    assert json.loads(r.stdout)["error"]["kind"] == "too_large"


def test_a_setting_of_the_wrong_type_is_one_line_and_exit_2(tmp_path):
    path = tmp_path / "p.py"
    path.write_text("a = 1.0\n")
    for command in (["trace", str(path)], ["serve", "--port", "1"]):
        r = subprocess.run([*CLI, *command], capture_output=True, text=True, timeout=120,
                           env={**_env_without_settings(), "GRADWALK_MAX_NODES": "many"})
        assert r.returncode == 2, command
        assert _one_line(r.stderr).startswith("gradwalk: bad setting GRADWALK_MAX_NODES='many'")


def _imported(env: dict[str, str], path: pathlib.Path) -> set[str]:
    """The modules `gradwalk trace path` imports (python -X importtime, on stderr)."""
    r = subprocess.run([sys.executable, "-X", "importtime", *CLI[1:], "trace", str(path)],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in r.stderr.splitlines()
            if line.startswith("import time:") and line.count("|") == 2}


HEAVY = {"pydantic_settings", "pydantic", "fastapi", "starlette", "networkx", "uvicorn", "anyio"}


def test_the_trace_path_imports_no_settings_library_nor_the_web_stack(tmp_path):
    # The defaults need no pydantic-settings (0.2 s of the CLI's start); the web stack and
    # networkx are not part of a trace at all.
    path = tmp_path / "one.py"
    path.write_text("a = 1.0\n")
    modules = _imported(_env_without_settings(), path)
    assert "gradwalk.engine.trace.runner" in modules and "numpy" in modules   # the parse is real
    assert modules & HEAVY == set()
    # a GRADWALK_ setting brings pydantic-settings in to read it (and only then)
    with_setting = _imported({**_env_without_settings(), "GRADWALK_MAX_NODES": "50"}, path)
    assert "pydantic_settings" in with_setting
    assert with_setting & (HEAVY - {"pydantic_settings", "pydantic"}) == set()


@pytest.mark.parametrize("program", [
    "x = randn(2, 3, seed=0)\ny = x[0:0]\nL = mse(y, y)\n",
    "x = randn(2, 3, seed=0)\nL = mean(x[:, 3:]) + var(x[0:0])\n",
])
def test_an_empty_slice_is_one_line_on_stderr_and_no_numpy_warning(program):
    # review of issue 7: numpy's RuntimeWarnings, then an internal error (exit 3)
    r = gradwalk("trace", "-", stdin=program)
    assert r.returncode == 1, r.stderr
    assert r.stderr.count("\n") == 1 and "RuntimeWarning" not in r.stderr, r.stderr
    assert r.stderr.startswith("gradwalk: -: line 2, column "), r.stderr
    assert "with no elements" in r.stderr
