"""Issue 14, section 2, on a real `gradwalk serve`: the bytes buffered for unread streams are
bounded together and the stream furthest behind is dropped; the queue in front of the trace
slots is bounded and answers 503 `busy` within the busy timeout; memory comes back when the
clients leave. Small settings and a handful of clients; the issue's full-size figures are
bench/limits.py's (docs/performance.md, "Limits under load")."""
from __future__ import annotations

import json
import threading
import time
import urllib.request

from server_process import chain, post, raw_request, served, stream_head

MB = 1e6
TINY = {"program": "a = 1.0\nL = a * a\n"}


def _wait_for(predicate, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)   # polling the server's log or memory


def _stalled(server, body: bytes, count: int) -> list:
    """`count` stream clients with a 4 KB receive window that have read the status line."""
    socks = []
    for _ in range(count):
        sock = raw_request(server.port, stream_head(server.port, body), body, rcvbuf=4096)
        first = sock.recv(12)
        assert first == b"HTTP/1.1 200", first
        socks.append(sock)
    return socks


def _rest(sock) -> bytes:
    """What the server still sends on a stalled stream, up to the chunked body's end."""
    data = b""
    while not data.endswith(b"\r\n0\r\n\r\n"):
        chunk = sock.recv(65536)
        assert chunk, data[-300:]
        data += chunk
    return data


def _read_stream(url: str, body: bytes) -> bytes:
    request = urllib.request.Request(f"{url}/api/trace/stream", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as r:
        return r.read()


def test_unread_streams_past_the_buffer_bound_are_dropped_and_a_reader_is_not(tmp_path):
    # A 12,000-node chain streams about 10 MB, more than the socket buffers take (up to 4 MB
    # on loopback): three clients that never read pass a 1 MB bound each on its own; each is dropped (its trace stopped, its queue freed) and gets
    # one `too_slow` error event in place of the rest, while a client that reads gets `done`.
    body = json.dumps({"program": chain(12_000)}).encode()
    log = tmp_path / "server.log"
    with served(tmp_path, max_stream_buffer_bytes=1_000_000) as server:
        socks = _stalled(server, body, 3)
        _wait_for(lambda: log.read_text().count("stream dropped") >= 3)
        read = _read_stream(server.url, body)
        assert b"event: done" in read and b"too_slow" not in read
        for sock in socks:
            rest = _rest(sock)
            sock.close()
            assert b"event: done" not in rest
            error = rest.rsplit(b"event: error\ndata: ", 1)[1].split(b"\n", 1)[0]
            assert json.loads(error)["error"]["kind"] == "too_slow"
        status, answer = post(f"{server.url}/api/trace", TINY)
        assert status == 200 and answer["grads"]["a"] == 2.0
    assert log.read_text().count("stream dropped") == 3 and "Traceback" not in log.read_text()


def test_the_memory_of_unread_streams_comes_back_when_their_clients_leave(tmp_path):
    # Three unread streams of a 20,000-node chain hold about 17 MB each (the default bound,
    # 200 MB, keeps them); once their clients have gone the server's RSS is back near where
    # it was before (glibc keeps freed pages unless malloc_trim hands them back: without it
    # RSS stayed 30-60 MB up, measured 2026-12-04).
    body = json.dumps({"program": chain(20_000)}).encode()
    with served(tmp_path) as server:
        _read_stream(server.url, body)   # warm-up: imports, thread pools, the allocator
        time.sleep(1)
        baseline = server.rss()
        socks = _stalled(server, body, 3)
        _wait_for(lambda: server.rss() > baseline + 40 * MB)
        for sock in socks:
            sock.close()
        assert post(f"{server.url}/api/trace", TINY)[0] == 200
        _wait_for(lambda: server.rss() < baseline + 15 * MB, seconds=30)
    assert "Traceback" not in (tmp_path / "server.log").read_text()


def test_a_full_queue_answers_busy_at_once(tmp_path):
    # One slot, held by the trace of a 60,000-node chain (a stream whose client does not
    # read: its status line comes once its trace has the slot); the queue holds 250 KB, two
    # 5,000-node programs (103 KB each). Of six such requests sent together, two are queued
    # and traced once the slot is free, four find the queue full and are answered 503 `busy`
    # at once, before their bodies are read. Before the bound all six were read, parsed and
    # held until their slot.
    program = {"program": chain(5_000)}
    holder = json.dumps({"program": chain(60_000)}).encode()
    with served(tmp_path, max_concurrent_traces=1, max_queued_bytes=250_000,
                busy_timeout_seconds=60, max_program_chars=5_000_000) as server:
        (sock,) = _stalled(server, holder, 1)   # its trace holds the slot now
        answers: list = []
        clients = [threading.Thread(target=lambda: answers.append(
            post(f"{server.url}/api/trace", program, timeout=120))) for _ in range(6)]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
        sock.close()
        assert sorted(status for status, _ in answers) == [200, 200, 503, 503, 503, 503]
        for status, answer in answers:
            if status == 503:
                assert answer["error"]["kind"] == "busy" and answer["error"]["hint"]
            else:
                assert answer["grads"]["x0"] != 0
    assert "Traceback" not in (tmp_path / "server.log").read_text()
