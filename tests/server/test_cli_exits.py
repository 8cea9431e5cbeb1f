"""Issue 14, section 3: every `gradwalk` command's exit code when its output cannot be written
(a reader that leaves, as `| head -c 10` does; a full disk, /dev/full), and `serve`'s usage
errors (a port out of range, too many workers, an address that cannot be listened on): one
line on stderr and the documented code (README, "Command line"; `gradwalk --help`)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from server_process import free_port

CLI = [sys.executable, "-m", "gradwalk.server.cli"]
# 2,000 tanh lines: every command's output is far more than a pipe holds (64 KiB), so the
# writer is still writing when `head` has read its 10 bytes and gone.
CHAIN = "x0 = 0.5\n" + "".join(f"x{i + 1} = tanh(x{i})\n" for i in range(2_000))
WRITERS = {
    "trace json": ["trace", "{prog}"],
    "trace table": ["trace", "{prog}", "--format", "table"],
    "export md": ["export", "{prog}", "--format", "md"],
    "export tex": ["export", "{prog}", "--format", "tex"],
    "export json": ["export", "{prog}", "--format", "json"],
    "export html": ["export", "{prog}", "--format", "html"],
    # a recorded iteration is the chain's whole walk: far more than a pipe holds
    "train json": ["train", "{prog}", "--steps", "2", "--lr", "0.1", "--record", "0"],
}


def _one_line(stderr: str) -> str:
    assert stderr.count("\n") == 1 and "Traceback" not in stderr, stderr
    return stderr


def _env(unbuffered: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return {**env, "PYTHONUNBUFFERED": "1"} if unbuffered else env


@pytest.fixture(scope="module")
def prog(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("cli") / "chain.py"
    path.write_text(CHAIN)
    return str(path)


@pytest.mark.parametrize("unbuffered", [True, False], ids=["python -u", "buffered"])
@pytest.mark.parametrize("command", WRITERS.values(), ids=WRITERS.keys())
def test_a_reader_that_leaves_early_is_exit_4(command, unbuffered, prog):
    # The issue's input: `gradwalk trace chain.py | head -c 10` exited 0 with no message
    # under PYTHONUNBUFFERED (a raw stdout took 64 KiB and the rest was dropped).
    args = " ".join(a.format(prog=prog) for a in command)
    r = subprocess.run(["bash", "-c", f'"$@" {args} | head -c 10 >/dev/null; '
                        'exit "${PIPESTATUS[0]}"', "bash", *CLI],
                       capture_output=True, text=True, timeout=120, env=_env(unbuffered))
    assert r.returncode == 4, r.stderr
    assert _one_line(r.stderr) == ("gradwalk: the output was closed before all of it was "
                                   "written (broken pipe)\n")


FULL_DISK = {**WRITERS, "trace hvp": ["trace", "{prog}", "--mode", "hvp"],
             "help": ["--help"], "trace help": ["trace", "--help"]}


@pytest.mark.parametrize("command", FULL_DISK.values(), ids=FULL_DISK.keys())
def test_a_full_disk_is_exit_4(command, tmp_path):
    path = tmp_path / "p.py"
    path.write_text("a = 1.0\nb = tanh(a)\nL = b * a\n")
    with open("/dev/full", "wb") as full:
        r = subprocess.run([*CLI, *(a.format(prog=path) for a in command)], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=120)
    assert r.returncode == 4, r.stderr
    assert _one_line(r.stderr) == "gradwalk: cannot write the output: No space left on device\n"


def test_export_to_a_full_disk_with_o_is_exit_4(tmp_path):
    path = tmp_path / "p.py"
    path.write_text("a = 1.0\nL = a * 3.0\n")
    r = subprocess.run([*CLI, "export", str(path), "--format", "md", "-o", "/dev/full"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 4
    assert "cannot write /dev/full" in _one_line(r.stderr) and "No space left" in r.stderr


def test_serve_with_stdout_on_a_full_disk_is_exit_4_and_listens_on_nothing():
    port = free_port()
    with open("/dev/full", "wb") as full:
        r = subprocess.run([*CLI, "serve", "--port", str(port)], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=120)
    assert r.returncode == 4
    assert _one_line(r.stderr) == "gradwalk: cannot write the output: No space left on device\n"
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))   # the port was let go


# ---- serve's usage errors: exit 2, one line, nothing started ---------------------------------
@pytest.mark.parametrize("port", ["99999", "-1", "0", "65536", "http"])
def test_a_port_out_of_range_is_a_usage_error(port):
    r = subprocess.run([*CLI, "serve", "--port", port], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2
    assert _one_line(r.stderr) == (f"gradwalk: serve: argument --port: {port!r} is not a port: "
                                   "give a number from 1 to 65535 (see `gradwalk serve --help`)\n")


def _serve(*args: str, env: dict | None = None, timeout: float = 120):
    """`gradwalk serve ...` in a session of its own, all of which is killed if it outlives
    `timeout` (a server that should have refused must not leave workers behind)."""
    proc = subprocess.Popen([*CLI, "serve", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=env)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        raise
    return proc.returncode, out, err


def test_too_many_workers_is_refused_before_anything_starts():
    from gradwalk.server import serve

    over = serve.max_workers() + 1   # a small number: the bound is 4 per core
    code, out, err = _serve("--port", str(free_port()), "--workers", str(over), timeout=60)
    assert code == 2 and out == ""   # no banner: nothing was started
    assert _one_line(err) == (
        f"gradwalk: serve: argument --workers: {over} is more than the most this machine "
        f"takes, {over - 1} (4 per core, {serve.cores()} cores) (see `gradwalk serve --help`)\n")


def test_the_issue_s_worker_count_is_refused_by_the_bound(monkeypatch):
    # `--workers 100000000` (checked by the argument's type alone: no server is run here)
    import argparse

    from gradwalk.server import cli, serve

    monkeypatch.setattr(serve, "cores", lambda: 2)
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        cli._workers("100000000")
    assert str(refused.value) == ("100000000 is more than the most this machine takes, 8 "
                                  "(4 per core, 2 cores)")
    assert [cli._workers(n) for n in ("1", "8")] == [1, 8]   # the bound itself is taken
    with pytest.raises(argparse.ArgumentTypeError):
        cli._workers("9")


def test_workers_that_cannot_start_stop_the_server_instead_of_restarting(tmp_path):
    # uvicorn restarted a worker that died at start forever (one failure after another).
    # sitecustomize runs in every interpreter, the spawned workers too: their app fails.
    (tmp_path / "sitecustomize.py").write_text(
        "import gradwalk.server.main\n"
        "def create_app():\n"
        "    raise RuntimeError('the app cannot be built (a test)')\n"
        "gradwalk.server.main.create_app = create_app\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.getcwd()])}
    code, out, err = _serve("--port", str(free_port()), "--workers", "2", env=env)
    assert code == 2
    assert err.splitlines()[-1] == ("gradwalk: a worker stopped before it served (exit code "
                                    "1; its log above says why)")
    assert err.count("RuntimeError: the app cannot be built") == 2   # no worker restarted
    assert "died" not in err


def test_the_worker_bound_is_per_core_of_this_process():
    from gradwalk.server import serve

    assert serve.max_workers() == 4 * len(os.sched_getaffinity(0))


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_port_in_use_is_one_line_and_exit_2(workers):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = subprocess.run([*CLI, "serve", "--port", str(port), "--workers", workers],
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert _one_line(r.stderr) == (f"gradwalk: cannot listen on 127.0.0.1:{port}: "
                                   "Address already in use\n")
    assert r.stdout == ""   # no banner: nothing started


def test_a_host_that_does_not_resolve_is_one_line_and_exit_2():
    r = subprocess.run([*CLI, "serve", "--host", "no-such-host.invalid", "--port", "8000"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert _one_line(r.stderr).startswith("gradwalk: cannot listen on no-such-host.invalid:8000: ")


def test_every_usage_error_is_one_line():
    for args in (["trace"], ["trace", "-", "--mode", "sideways"], ["frobnicate"], []):
        r = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120)
        assert r.returncode == 2, args
        assert _one_line(r.stderr).startswith("gradwalk: ") and "--help`)" in r.stderr


def test_an_option_without_a_command_is_named():
    """`gradwalk --bogus` said only "the following arguments are required: command" (a review)."""
    r = subprocess.run([*CLI, "--bogus"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert _one_line(r.stderr).strip() == ("gradwalk: unrecognized arguments: --bogus; give a command "
                                   "first: serve, trace, export, train (see `gradwalk --help`)")


def test_serve_whose_stdout_reader_leaves_says_so_once_and_serves_on(tmp_path):
    # `gradwalk serve | head -1`: every request's access line then met a broken pipe, and
    # logging printed a traceback per request on stderr.
    import signal
    import time

    from server_process import get

    port = free_port()
    err = tmp_path / "serve.err"
    with open(err, "wb") as stderr:
        proc = subprocess.Popen([*CLI, "serve", "--port", str(port)], stdout=subprocess.PIPE,
                                stderr=stderr)
    try:
        assert proc.stdout.readline() == f"gradwalk: open http://127.0.0.1:{port}/\n".encode()
        proc.stdout.close()   # the reader leaves
        deadline = time.monotonic() + 60
        while True:   # polling until it serves
            try:
                if get(f"http://127.0.0.1:{port}/healthz", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline and proc.poll() is None, err.read_text()
            time.sleep(0.1)
        for _ in range(3):
            assert get(f"http://127.0.0.1:{port}/healthz") == (200, b"ok")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    log = err.read_text()
    assert "Traceback" not in log and "Logging error" not in log, log
    assert log.count("gradwalk: the access log (stdout) cannot be written any more; serving "
                     "on without it\n") == 1, log


def test_the_banner_s_address_takes_connections_at_once(tmp_path):
    # A review: "gradwalk: open http://..." was printed when the socket was only bound, so
    # connections were refused for 9 s (24 s with two workers) while the app started. The
    # socket listens before the banner: a connection right after it waits, then is served.
    import signal
    import socket

    from server_process import get

    port = free_port()
    with open(tmp_path / "serve.err", "wb") as stderr:
        proc = subprocess.Popen([*CLI, "serve", "--port", str(port)], stdout=subprocess.PIPE,
                                stderr=stderr)
    try:
        assert proc.stdout.readline() == f"gradwalk: open http://127.0.0.1:{port}/\n".encode()
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass   # refused (ConnectionRefusedError) before the fix
        assert get(f"http://127.0.0.1:{port}/healthz", timeout=60) == (200, b"ok")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
