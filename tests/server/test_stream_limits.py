"""Issue 14, section 2, on a real `gradwalk serve`: the bytes buffered for unread streams are
bounded together and the stream furthest behind is dropped; the queue in front of the trace
slots is bounded and answers 503 `busy` within the busy timeout; memory comes back when the
clients leave. Small settings and a handful of clients; the issue's full-size figures are
bench/limits.py's (docs/performance.md, "Limits under load")."""
from __future__ import annotations

import json
import signal
import threading
import time
import urllib.request

from server_process import chain, health_beside_traces, post, raw_request, served, stream_head

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
    # A 30,000-node chain streams about 26 MB, far more than the socket buffers take (up to
    # 4 MB on loopback): three clients that never read pass an 8 MB bound each on its own;
    # each is dropped (its trace stopped, its queue freed) and gets one `too_slow` error event
    # in place of the rest, while a client that reads gets `done` (what it has not read yet
    # at any moment stays far under 8 MB).
    body = json.dumps({"program": chain(30_000)}).encode()
    log = tmp_path / "server.log"
    with served(tmp_path, max_stream_buffer_bytes=8_000_000) as server:
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


def test_a_dropped_stream_whose_client_never_reads_is_cut(tmp_path):
    # Dropping freed a stream's queue, but its `too_slow` event waited behind what the sockets
    # held (about 4 MB on loopback) for a client that never reads: the three connections of a
    # review stayed open for 75 s and more. Now each is cut (reset) dropped_stream_grace_seconds
    # after its drop; before, this timed out waiting for the cuts.
    body = json.dumps({"program": chain(30_000)}).encode()
    log = tmp_path / "server.log"
    with served(tmp_path, max_stream_buffer_bytes=8_000_000,
                dropped_stream_grace_seconds=2) as server:
        socks = _stalled(server, body, 3)
        _wait_for(lambda: log.read_text().count("stream dropped") >= 3)
        _wait_for(lambda: log.read_text().count("connection was cut") >= 3, seconds=30)
        for sock in socks:
            sock.settimeout(10)
            data = b""
            try:
                while chunk := sock.recv(65536):
                    data += chunk
            except ConnectionResetError:
                pass   # the cut, seen once what arrived before it was read
            sock.close()
            assert b"event: done" not in data
        assert post(f"{server.url}/api/trace", TINY)[0] == 200
    assert log.read_text().count("connection was cut") == 3 and "Traceback" not in log.read_text()


def test_the_memory_of_unread_streams_comes_back_when_their_clients_leave(tmp_path):
    # Three unread streams of a 20,000-node chain hold about 17 MB each (the default bound,
    # 200 MB, keeps them); once their clients have gone most of what RSS grew by is handed
    # back (server/memory.py). Measured 2026-12-04: RSS 104 MB, about 225 MB at the peak,
    # 125 MB after (21 MB kept: Python's partly used arenas); before the fix 118, 338 and
    # 270 MB (152 MB kept: glibc held the freed heap, and the freed objects Python's).
    body = json.dumps({"program": chain(20_000)}).encode()
    with served(tmp_path) as server:
        _read_stream(server.url, body)   # warm-up: imports, thread pools, the allocator
        time.sleep(1)
        baseline, peak = server.rss(), [0]
        socks = _stalled(server, body, 3)

        def grown() -> bool:
            peak[0] = max(peak[0], server.rss())
            return peak[0] > baseline + 40 * MB

        _wait_for(grown)
        time.sleep(3)   # the traces finish into their feeds
        peak[0] = max(peak[0], server.rss())
        for sock in socks:
            sock.close()
        assert post(f"{server.url}/api/trace", TINY)[0] == 200
        time.sleep(3)   # the give-back runs 0.2 s after the server is idle
        kept = (server.rss() - baseline) / MB
        assert kept < 40, f"{kept:.0f} of the {(peak[0] - baseline) / MB:.0f} MB kept"
    assert "Traceback" not in (tmp_path / "server.log").read_text()


def test_a_full_queue_answers_busy_at_once(tmp_path):
    # One slot, held by the trace of a 60,000-node chain (a stream whose client does not
    # read: its status line comes once its trace has the slot); the queue holds 250 KB, two
    # 5,000-node programs (103 KB each). Of six such requests sent together, two are queued
    # and traced once the slot is free, four find the queue full and are answered 503 `busy`
    # at once (their bodies read and dropped, not kept). Before the bound all six were read,
    # parsed and held until their slot.
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


def _answer(port: int, body: bytes) -> tuple[float, bytes]:
    """POST a stream request all at once and read the answer until the server closes or the
    answer is whole: (seconds from the connection, the bytes read, `<reset>` appended to
    those read before a connection reset)."""
    start = time.monotonic()
    sock = raw_request(port, stream_head(port, body) + "\r\nConnection: close", body)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        data += b"<reset>"
    sock.close()
    return time.monotonic() - start, data


def test_busy_answers_are_whole_and_within_the_busy_timeout_of_arrival(tmp_path):
    # A review: 20 streams of a 0.67 MB body; the busy answers came 13.5-15 s after arrival
    # against a 10 s timeout (the server was still starting: test_first_request), one client
    # got a connection reset and no answer, one 200 bytes of the 503 and a reset (the queue was
    # full: busy was answered and the connection closed while the body was still coming).
    # Here one slot is held by an unread stream's trace, the queue holds one of three clients
    # sending 1.3 MB each: it gets busy at the 2 s timeout, the other two at once, each a
    # whole 503 `busy` with Retry-After; before, the two were reset.
    holder = json.dumps({"program": chain(60_000)}).encode()
    body = json.dumps({"program": chain(60_000), "output": "x60000"}).encode()
    with served(tmp_path, max_concurrent_traces=1, max_queued_bytes=100_000,
                busy_timeout_seconds=2, max_program_chars=5_000_000) as server:
        (sock,) = _stalled(server, holder, 1)   # its trace holds the slot now
        answers: list = []
        clients = [threading.Thread(target=lambda: answers.append(_answer(server.port, body)))
                   for _ in range(3)]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
        sock.close()
    for seconds, answer in sorted(answers):
        assert not answer.endswith(b"<reset>"), answer
        assert answer.startswith(b"HTTP/1.1 503") and b"\r\nretry-after: 5\r\n" in answer, answer
        assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["kind"] == "busy"
        assert seconds < 2 + 1.5, f"busy after {seconds:.1f} s"
    assert "Traceback" not in (tmp_path / "server.log").read_text()


def _slow_reader(sock, stop: threading.Event, started: list) -> None:
    """Reads 16 KB every 50 ms until stopped or the server closes the connection; appends
    to `started` once the first bytes (the status line, sent once the trace has its slot)
    came."""
    try:
        while not stop.is_set() and sock.recv(16384):
            if len(started) < 4 and sock not in started:
                started.append(sock)
            time.sleep(0.05)
    except OSError:
        pass


def test_sigterm_with_four_slow_stream_readers_exits_within_the_setting(tmp_path):
    # Four slow readers of a 60,000-node chain: two traces running, two streams waiting for a
    # slot. The process must be gone shutdown_timeout_seconds after SIGTERM, plus the
    # watchdog's 0.5 s (server/shutdown.py) and a generous margin for a loaded CI machine.
    # Before: 13.9 s in the issue with the setting at 5 s, 17.4 s here at load 11; the strict
    # figure is bench/limits.py's.
    body = json.dumps({"program": chain(60_000)}).encode()
    stop = threading.Event()
    with served(tmp_path, shutdown_timeout_seconds=2, max_program_chars=5_000_000) as server:
        socks = [raw_request(server.port, stream_head(server.port, body), body, rcvbuf=16384)
                 for _ in range(4)]
        started: list = []
        readers = [threading.Thread(target=_slow_reader, args=(sock, stop, started))
                   for sock in socks]
        for reader in readers:
            reader.start()
        _wait_for(lambda: len(started) >= 2)   # two traces hold the slots
        start = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        status = server.proc.wait(timeout=60)
        took = time.monotonic() - start
        stop.set()
        for reader in readers:
            reader.join()
        for sock in socks:
            sock.close()
    assert status in (-signal.SIGTERM, 128 + signal.SIGTERM)
    assert took < 2 + 0.5 + 3, f"exited {took:.1f} s after SIGTERM"


def test_the_health_check_answers_fast_beside_two_big_traces(tmp_path):
    # Two 60,000-node traces (each parsed and traced in its slot, in a worker process) while
    # /healthz is asked on a fresh connection every 50 ms, as an orchestrator does. Before:
    # up to 2.84 s in the issue, then up to 0.7-1.7 s with the parse in pieces (the event
    # loop shared the GIL with the trace threads); 1.3-2.1 s here with the traces in threads
    # (GRADWALK_TRACE_PROCESSES=false). The target is 100 ms (bench/healthz.py measures it);
    # the bound (0.8 s) leaves a loaded CI machine's scheduling room (0.44 s was seen at load 8,
    # 0.51 s at load 12) and still fails the threaded design (1.3-2.1 s). The answers are read
    # unparsed: parsing 56 MB here would stall this process's prober, not the server.
    body = json.dumps({"program": chain(60_000)}).encode()
    with served(tmp_path, max_program_chars=5_000_000, trace_timeout_seconds=300) as server:
        seconds, answers = health_beside_traces(server.url, body)
    assert [status for status, _ in answers] == [200, 200], answers[0][1][:300]
    for _, answer in answers:
        assert json.loads(answer)["grads"]["x0"] != 0
    assert len(seconds) >= 10
    assert max(seconds) < 0.8, f"slowest /healthz {max(seconds):.2f} s of {len(seconds)}"
