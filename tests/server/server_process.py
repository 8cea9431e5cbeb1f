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
import time
import urllib.error
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """A running `gradwalk serve`: url, port, proc, and its stderr in `log`."""

    def __init__(self, env: dict[str, str], log: pathlib.Path, workers: int = 1) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        cmd = [sys.executable, "-m", "gradwalk.server.cli", "serve", "--host", "127.0.0.1",
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
def served(tmp_path: pathlib.Path, workers: int = 1, **settings):
    """A server with GRADWALK_<NAME> settings, e.g. served(tmp_path, max_concurrent_traces=1),
    run as `workers` processes (`gradwalk serve --workers`)."""
    env = {f"GRADWALK_{k.upper()}": str(v) for k, v in settings.items()}
    server = Served(env, tmp_path / "server.log", workers)
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
