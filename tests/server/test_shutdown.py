"""server/shutdown.py: SIGTERM ends the process within its setting however late the event loop
is. (The four-slow-readers case, where uvicorn's own exit comes late, is in
test_server_process.py and test_stream_limits.py.)"""
from __future__ import annotations

import contextlib
import signal
import subprocess
import threading
import time
import urllib.request

from server_process import get, served

SETTING = 1   # GRADWALK_SHUTDOWN_TIMEOUT_SECONDS (seconds)


def _loop_held(url: str, timeout: float = 60) -> None:
    """Wait until /healthz, answered first thing on the event loop, no longer answers in 0.5 s:
    the loop is inside the test route's call."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            get(f"{url}/healthz", timeout=0.5)
        except OSError:   # timed out
            return
        time.sleep(0.05)
    raise AssertionError("the event loop never got busy")


def _post_quietly(url: str) -> None:
    with contextlib.suppress(OSError):   # the server is gone before it answers
        urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=60).read()


def test_sigterm_ends_the_process_in_time_while_the_event_loop_is_in_one_long_call(tmp_path):
    """A review measured 7.19 s with the setting at 5 s (load 20): the watchdog was armed by
    the SIGTERM's Python handler, which runs on the event loop's thread between bytecodes, so
    a loop held up was a watchdog armed late. Here the loop is in one 20 s C call that lets go
    of the GIL (tests/server/busy_server.py): before the fix the process exited when the call
    returned (about 20 s); now the watchdog's clock starts at the signal."""
    with served(tmp_path, module="busy_server", shutdown_timeout_seconds=SETTING) as server:
        busy = threading.Thread(target=_post_quietly, args=(f"{server.url}/test/busy?seconds=20",))
        busy.start()
        _loop_held(server.url)
        start = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        try:
            status = server.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError("the server did not exit on SIGTERM") from None
        took = time.monotonic() - start
        busy.join()
    log = (tmp_path / "server.log").read_text()
    assert took < SETTING + 1.0, f"exited {took:.2f} s after SIGTERM (setting {SETTING} s)"
    assert status == 128 + signal.SIGTERM, log[-2000:]
    assert "exiting with work still running" in log and "Traceback" not in log, log[-2000:]
