"""Start the gradwalk server on a free port for the browser tests and tools."""
from __future__ import annotations

import contextlib
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[2]

# Debian's chromium, headless, quiet: no sandbox (root in a container), no GPU, no calls home.
BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 30.0,
                 path: str = "/healthz") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}{path}", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)  # polling the health check, not waiting on the page
    raise TimeoutError(f"{url}{path} did not answer in {timeout}s")


@contextlib.contextmanager
def running_server(app: str = "gradwalk.server.main:create_app"):
    """Yield the base URL of `app` run by uvicorn from the repo root; stop it afterwards."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "uvicorn", app, "--factory", "--host", "127.0.0.1",
           "--port", str(port), "--log-level", "warning"]
    # The suite's one shared server makes many links from one address; the rate limit has its
    # own tests (tests/server/test_link_limits.py, tests/e2e/test_link_refusals.py).
    env = {"GRADWALK_LINK_RATE_LIMIT": "", **os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, cwd=REPO, env=env)
    try:
        wait_healthy(url, proc)
        yield url
    finally:
        stop(proc)


@contextlib.contextmanager
def notebook_server(tmp_path, app: str, options: list[str], health: str, timeout: float = 90):
    """The URL of one notebook server, `python -m APP OPTIONS` (in OPTIONS "{port}" is a free
    port, "{root}" tmp_path, "{home}" its own Jupyter folders), in its own process group (the
    kernel it starts goes with it), killed after; `health`: a path answering 200 once up. What
    it prints goes to tmp_path/jupyter/APP.log."""
    port = free_port()
    home = tmp_path / "jupyter"   # its own config and runtime: nothing of the user's
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", app, *(o.format(port=port, root=tmp_path, home=home) for o in options)]
    home.mkdir(parents=True, exist_ok=True)
    log = open(home / f"{app}.log", "wb")   # noqa: SIM115 (closed below)
    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, timeout=timeout, path=health)
        yield url
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
                proc.wait(timeout=15)
                break
            except (ProcessLookupError, subprocess.TimeoutExpired):
                continue
        log.close()


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL if the process is still there after 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def shoot_main(doc: str, default_out: str, shoot) -> None:
    """The command line of a screenshot script (tests/e2e/shoot_*.py): `--url` of a running
    server (else one is started on a free port) and `--out`, a folder; calls shoot(url, out)."""
    import argparse
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--url")
    parser.add_argument("--out", default=default_out)
    args = parser.parse_args()
    if args.url:
        shoot(args.url, pathlib.Path(args.out))
    else:
        with running_server() as url:
            shoot(url, pathlib.Path(args.out))
