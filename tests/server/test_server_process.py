"""A real `gradwalk serve` process under clients that are slow, stop reading, disconnect, or send
half a body; and SIGTERM while one is connected. No assertion on durations: the checks are on
order (what answered while a slot was held) and on state (slots free, threads back)."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import threading
import time

from server_process import (chain, get, post, raw_request, read_until_closed, served,
                            stream_head)

TINY = {"program": "a = 1.0\nL = a * a\n"}
WORKER_IDLE_SECONDS = 10   # anyio's WorkerThread.MAX_IDLE_TIME


def _busy(url: str) -> bool:
    """True when a tiny trace is refused as busy (every slot taken by someone else)."""
    status, body = post(f"{url}/api/trace", TINY)
    assert status in (200, 503), body
    return status == 503


def test_page_health_and_syntax_errors_do_not_wait_behind_a_trace(tmp_path):
    # One slot, and a request gives up on it after 0.2 s: a tiny trace that answers 503 proves
    # the slow trace holds the slot at that moment.
    with served(tmp_path, max_concurrent_traces=1, busy_timeout_seconds=0.2,
                max_program_chars=5_000_000) as server:
        slow: dict = {}
        worker = threading.Thread(target=lambda: slow.update(
            answer=post(f"{server.url}/api/trace", {"program": chain(20_000)}, timeout=600)))
        worker.start()
        try:
            while not _busy(server.url):   # until the slow trace holds the slot
                assert worker.is_alive(), "the slow trace ended before it was seen in flight"
            status, page = get(f"{server.url}/")
            assert status == 200 and b"seed-tanh-fanout" in page
            assert get(f"{server.url}/healthz") == (200, b"ok")
            status, _ = get(f"{server.url}/static/css/app.css")
            assert status == 200
            status, body = post(f"{server.url}/api/trace", {"program": "a = 1.0\nb = a +* 2\n"})
            assert status == 422 and body["error"]["kind"] == "syntax"   # not 503 busy
            assert _busy(server.url), "the slow trace must still hold the slot here"
        finally:
            worker.join()
        assert slow["answer"][0] == 200
        assert not _busy(server.url)


def _start_streams(server, count: int, body: bytes) -> list:
    """`count` stream clients with a tiny receive window; each reads the status line only."""
    socks = []
    for _ in range(count):
        sock = raw_request(server.port, stream_head(server.port, body), body, rcvbuf=4096)
        assert sock.recv(12) == b"HTTP/1.1 200"
        socks.append(sock)
    return socks


def test_clients_that_stop_reading_or_leave_do_not_hold_the_slot(tmp_path):
    # A stream of a 6,000-node chain is about 5 MB, far more than the socket buffers hold, so
    # a client that stops reading blocks the server's sends; the slot must not wait with them.
    body = json.dumps({"program": chain(6_000)}).encode()
    with served(tmp_path, max_concurrent_traces=1, busy_timeout_seconds=120) as server:
        assert post(f"{server.url}/api/trace", TINY)[0] == 200
        baseline = server.threads()
        for _ in range(2):
            stalled = _start_streams(server, 2, body)        # connected, never read again
            for sock in _start_streams(server, 2, body):     # gone before their first event
                sock.close()
            status, answer = post(f"{server.url}/api/trace", TINY)
            assert status == 200, answer                     # the slot came back, not 503
            assert answer["grads"]["a"] == 2.0
            for sock in stalled:
                sock.close()
        # Threads: anyio's pool keeps a worker idle for 10 s and drops it when the next job
        # comes; after that, only the threads of the start remain (none stuck with a client).
        time.sleep(WORKER_IDLE_SECONDS + 1)
        assert post(f"{server.url}/api/trace", TINY)[0] == 200
        deadline = time.monotonic() + 30
        while server.threads() > baseline and time.monotonic() < deadline:
            time.sleep(0.1)   # a dropped worker thread takes a moment to exit
        assert server.threads() == baseline
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log


def test_a_client_gone_before_the_first_event_stops_the_work(tmp_path):
    body = json.dumps({"program": chain(20_000)}).encode()
    with served(tmp_path, max_concurrent_traces=1, busy_timeout_seconds=0.2) as server:
        sock = _start_streams(server, 1, body)[0]
        while not _busy(server.url):   # until its trace holds the slot
            pass
        sock.close()
        while _busy(server.url):       # the slot comes back once the work has stopped
            pass
    log = (tmp_path / "server.log").read_text()
    # stopped at its next event, or, still parsing (no event yet), killed after a grace
    assert re.search(r"stream stopped after \d+ events: the client went away|stream stopped: "
                     r"its trace worker was still busy", log)
    assert "Traceback" not in log


def test_the_first_event_arrives_while_the_trace_runs_and_leaving_frees_the_slot(tmp_path):
    # Events are sent as they are made: the graph event starts arriving while the trace still
    # runs, long before `done`. A client that leaves at once then stops the work before its
    # end, and the slot comes back. The server's log says after how many events it stopped:
    # fewer than the trace's 2n + 3 proves both (the client left only after the first bytes
    # came, and the trace was still running then). (The graph event of this program is
    # megabytes: reading all of it first would race the producer, which never waits on the
    # client; and no request is made before leaving: under load the trace's thread slows the
    # server's loop, and a check that took a second let the trace end first.)
    n = 80_000
    body = json.dumps({"program": chain(n)}).encode()
    with served(tmp_path, max_concurrent_traces=1, busy_timeout_seconds=0.2,
                max_program_chars=5_000_000) as server:
        sock = raw_request(server.port, stream_head(server.port, body), body)
        data = b""
        while b"event: graph" not in data:
            chunk = sock.recv(65536)
            assert chunk, data[-300:]
            data += chunk
        assert data.startswith(b"HTTP/1.1 200") and b"event: done" not in data
        sock.close()
        while _busy(server.url):   # the slot comes back once the work has stopped
            pass
        status, answer = post(f"{server.url}/api/trace", TINY)
        assert status == 200 and answer["grads"]["a"] == 2.0
    log = (tmp_path / "server.log").read_text()
    stopped = re.search(r"stream stopped after (\d+) events: the client went away", log)
    # Under load (CI's, 12+ on 2 cores) the worker may not reach its next check within the
    # 0.5 s grace; it is then killed, which stops the work before its end just as well.
    killed = "its trace worker was still busy 0.5 s after it was told to stop" in log
    assert killed or (stopped is not None and int(stopped.group(1)) < 2 * n + 3), log[-500:]
    assert "Traceback" not in log


def test_sigterm_exits_while_a_stream_client_has_stopped_reading(tmp_path):
    body = json.dumps({"program": chain(6_000)}).encode()
    with served(tmp_path, shutdown_timeout_seconds=1) as server:
        (sock,) = _start_streams(server, 1, body)
        server.proc.send_signal(signal.SIGTERM)
        try:
            # Without a graceful-shutdown timeout the server waits on this client for ever.
            # (uvicorn re-raises the SIGTERM it caught once it has shut down: status -15; the
            # watchdog of server/shutdown.py, if uvicorn is late, exits with 143.)
            assert server.proc.wait(timeout=60) in (0, -signal.SIGTERM, 128 + signal.SIGTERM)
        except subprocess.TimeoutExpired:
            raise AssertionError("the server did not exit on SIGTERM") from None
        finally:
            sock.close()
    log = (tmp_path / "server.log").read_text()
    assert ("timeout graceful shutdown exceeded" in log and "Finished server process" in log
            or "exiting with work still running" in log)


def test_sigterm_with_four_slow_readers_exits_within_the_setting_and_its_margin(tmp_path):
    """Issue 14: with four slow stream readers the process took 13.9 s (setting 5 s); a
    newcomer measured 6.5 s against the README's 5 s + 0.5 s. Here the setting is 1 s: the
    process must be gone within 1 + EXIT_MARGIN_SECONDS and a second of slack for a loaded
    machine (the watchdog's own timer)."""
    from gradwalk.server.shutdown import EXIT_MARGIN_SECONDS

    body = json.dumps({"program": chain(6_000)}).encode()
    with served(tmp_path, shutdown_timeout_seconds=1, max_concurrent_traces=4) as server:
        socks = _start_streams(server, 4, body)
        start = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        try:
            server.proc.wait(timeout=60)
            took = time.monotonic() - start
        finally:
            for sock in socks:
                sock.close()
    assert took < 1 + EXIT_MARGIN_SECONDS + 1.0, f"exited {took:.2f} s after SIGTERM"
    # The streams cut at shutdown are said in a line each, not four tracebacks (a review)
    log = (tmp_path / "server.log").read_text()
    assert "Exception in ASGI application" not in log and "Traceback" not in log, log[-3000:]


def test_a_half_sent_body_answers_408_and_frees_the_connection(tmp_path):
    with served(tmp_path, body_timeout_seconds=1) as server:
        head = (f"POST /api/trace HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Content-Length: 1000")
        sock = raw_request(server.port, head, b'{"program": "a = 1')
        reply = read_until_closed(sock)   # the server closes the connection
        sock.close()
        assert reply.startswith(b"HTTP/1.1 408")
        error = json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]
        assert error["kind"] == "request_timeout" and "1 s" in error["message"]
        assert get(f"{server.url}/healthz") == (200, b"ok")


def test_a_huge_content_length_is_refused_before_the_body_is_read(tmp_path):
    with served(tmp_path, max_body_bytes=1000) as server:
        head = (f"POST /api/trace HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                f"Content-Length: 100000000")
        sock = raw_request(server.port, head)   # announces 100 MB, sends none of it
        reply = read_until_closed(sock)
        sock.close()
        assert reply.startswith(b"HTTP/1.1 413")
        error = json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]
        assert error["kind"] == "too_large" and "1,000 bytes" in error["message"]


def test_an_answer_given_before_the_body_was_read_closes_the_connection(tmp_path):
    # /healthz reads no body: the rest of this one may never come, so the connection must not
    # stay open waiting for it.
    with served(tmp_path) as server:
        sock = raw_request(server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100",
                           b"0123456789")
        reply = read_until_closed(sock)
        sock.close()
        assert reply.startswith(b"HTTP/1.1 200") and reply.endswith(b"\r\n\r\nok")
        assert b"connection: close" in reply.lower()
        # a request without a body keeps its connection (HTTP/1.1 keep-alive)
        sock = raw_request(server.port, "GET /healthz HTTP/1.1\r\nHost: x")
        first = _read_health(sock)
        assert first.startswith(b"HTTP/1.1 200") and b"connection: close" not in first.lower()
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _read_health(sock).startswith(b"HTTP/1.1 200")
        sock.close()


def _read_health(sock) -> bytes:
    """One whole response of /healthz (its body is `ok`)."""
    data = b""
    while not data.endswith(b"\r\n\r\nok"):
        chunk = sock.recv(65536)
        assert chunk, data
        data += chunk
    return data
