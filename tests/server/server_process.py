"""`gradwalk serve` in a real process, and raw-socket clients that misbehave on purpose."""
from __future__ import annotations

import contextlib
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """A running `gradwalk serve`: url, port, proc, and its stderr in `log`."""

    def __init__(self, env: dict[str, str], log: pathlib.Path, workers: int = 1,
                 module: str = "gradwalk.server.cli") -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        cmd = [sys.executable, "-m", module, "serve", "--host", "127.0.0.1",
               "--port", str(self.port), "--workers", str(workers)]
        with open(log, "ab") as err:
            self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=err,
                                         env={**os.environ, **env, "PYTHONUNBUFFERED": "1"})

    def wait_healthy(self, timeout: float = 120.0) -> "Served":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            with contextlib.suppress(OSError):
                if get(f"{self.url}/healthz", timeout=2)[0] == 200:
                    return self
            time.sleep(0.1)   # polling the health check while the server starts
        raise TimeoutError("the server did not start")

    def threads(self) -> int:
        """The server process's thread count (from /proc)."""
        for line in pathlib.Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("Threads:"):
                return int(line.split()[1])
        raise RuntimeError("no thread count")

    def rss(self) -> int:
        """The server process's resident set size (bytes, from /proc/<pid>/statm, in pages).
        With workers > 1 this is uvicorn's supervisor, not the workers."""
        pages = int(pathlib.Path(f"/proc/{self.proc.pid}/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE")

    def family_memory(self) -> int:
        """The memory of the server and every process under it (the trace workers and their
        forkserver: server/procs.py), as the sum of their proportional set sizes (bytes,
        /proc/<pid>/smaps_rollup): pages they share are counted once, split among them."""
        return sum(_pss(pid) for pid in [self.proc.pid, *descendants(self.proc.pid)])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def descendants(pid: int) -> list[int]:
    """The processes under `pid` (children, theirs, ...), from /proc."""
    parents = {}
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        children = parents.get(todo.pop(), [])
        found += children
        todo += children
    return found


def _pss(pid: int) -> int:
    """A process's proportional set size (bytes); 0 once it has gone."""
    with contextlib.suppress(OSError):
        for line in pathlib.Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    return 0


@contextlib.contextmanager
def served(tmp_path: pathlib.Path, workers: int = 1, module: str = "gradwalk.server.cli",
           **settings):
    """A server with GRADWALK_<NAME> settings, e.g. served(tmp_path, max_concurrent_traces=1),
    run as `workers` processes (`gradwalk serve --workers`); `module` the CLI run with
    `python -m` (tests/server/busy_server.py, for one, adds a test-only route)."""
    env = {f"GRADWALK_{k.upper()}": str(v) for k, v in settings.items()}
    if module != "gradwalk.server.cli":   # a launcher among the tests
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    server = Served(env, tmp_path / "server.log", workers, module)
    try:
        server.wait_healthy()
        yield server
    finally:
        server.stop()


def get(url: str, timeout: float = 60) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def post(url: str, body: dict, timeout: float = 120) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def post_bytes(url: str, body: bytes, timeout: float = 300) -> tuple[int, bytes]:
    """POST a JSON body; (status, the answer's bytes), not parsed: json.loads of a big trace
    (56 MB for a 60,000-node chain) holds this process's GIL for about a second, which a
    prober thread of this process would count as the server's time."""
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def health_beside_traces(url: str, body: bytes, interval: float = 0.05, after: float = 1.0,
                         tail: list | None = None) -> tuple[list, list]:
    """/healthz asked on a fresh connection every `interval` seconds, as an orchestrator does,
    while two clients POST `body` to /api/trace at once and for `after` seconds more, as an
    orchestrator goes on probing (the server gives the traces' memory back 0.2 s after the
    last slot is free: server/memory.py, a full collection that once held the event loop
    355 ms): (each probe's seconds, the two traces' (status, answer bytes)); the seconds of the
    probes after the answers are also appended to `tail`. The answers are read unparsed
    (post_bytes says why)."""
    answers: list = []
    traces = [threading.Thread(target=lambda: answers.append(
        post_bytes(f"{url}/api/trace", body))) for _ in range(2)]
    for trace in traces:
        trace.start()
    seconds, ended = [], None
    while ended is None or time.monotonic() < ended + after:
        if ended is None and not any(trace.is_alive() for trace in traces):
            ended = time.monotonic()
        start = time.monotonic()
        assert get(f"{url}/healthz", timeout=30) == (200, b"ok")
        seconds.append(time.monotonic() - start)
        if ended is not None and tail is not None:
            tail.append(seconds[-1])
        time.sleep(interval)
    for trace in traces:
        trace.join()
    return seconds, answers


def raw_request(port: int, head: str, body: bytes = b"", rcvbuf: int | None = None,
                timeout: float = 60) -> socket.socket:
    """A socket that has sent `head` (request line and headers, CRLF-separated, without the
    blank line) and `body`, and reads nothing yet. rcvbuf shrinks the receive window, so a
    client that stops reading pushes back on the server at once."""
    sock = socket.socket()
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(timeout)
    sock.connect(("127.0.0.1", port))
    sock.sendall(head.encode() + b"\r\n\r\n" + body)
    return sock


def stream_head(port: int, body: bytes) -> str:
    return (f"POST /api/trace/stream HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}")


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (socket timeout: an error)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def chain(n: int) -> str:
    """x_{i+1} = tanh(x_i), n nodes after the leaf: a long, slow, large trace."""
    return "x0 = 0.5\n" + "".join(f"x{i + 1} = tanh(x{i})\n" for i in range(n))
