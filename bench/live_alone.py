"""bench/live.py's client alone: the same followers and steps against the least server there is.

How much of a step's latency to the last of 1,000 followers is the bench's own client (one
asyncio process reading 1,000 sockets) and the loopback, not gradwalk? Here the client of
bench/live.py (`run`, its Streams, the same requests) talks to a stand-in server of one uvloop
process that answers only what `run` asks: it opens a room, holds each follower's stream
(the same head and `state` events as gradwalk's, server/livehub.py state_event) and, at a
presenter's POST, writes the step's chunk to each follower with one `transport.write` (what
gradwalk's hub does, without the database, the NOTIFY, the second worker and the ASGI app),
then answers. It logs the same timing line as gradwalk's live_timing_log, so the shares are
bench/live.py's: `client_after` is from the stand-in's last write to the client's read of the
last follower's bytes.

    .venv/bin/python -m bench.live_alone --followers 1000

Loopback only, bounded (--followers at most 2,000); the stand-in is stopped at the end.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "server")]
from bench.live import cpu_seconds, loop_factory, pct, run, server_shares  # noqa: E402
from bench.machine import describe  # noqa: E402
from server_process import free_port  # noqa: E402

ROOM = "ALNE22"
SSE_HEAD = (b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-store\r\n"
            b"transfer-encoding: chunked\r\n\r\n")


# ---- the stand-in server

def answer(status: int, body: dict) -> bytes:
    data = json.dumps(body).encode()
    return (b"HTTP/1.1 %d OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n%s" % (status, len(data), data))


class Room:
    """The room's seq and state (canonical JSON text), its followers' transports, the log."""

    def __init__(self, log) -> None:
        self.seq, self.state, self.streams, self.log = 0, "{}", [], log

    def step(self, state: str) -> int:
        from gradwalk.server.livehub import state_event
        from gradwalk.server.protocol import chunk

        noted = time.perf_counter()
        self.seq += 1
        self.state = state
        start, cpu = time.perf_counter(), time.thread_time()
        framed = chunk(state_event(ROOM, self.seq, state))
        self.streams = [t for t in self.streams if not t.is_closing()]
        for transport in self.streams:
            transport.write(framed)
        self.log.write("live step %s %d: %d followers, %d written at once; notified %.6f, "
                       "read %.6f, handed out %.6f, fan-out CPU %.3f ms\n"
                       % (ROOM, self.seq, len(self.streams), len(self.streams), noted, start,
                          time.perf_counter(), 1000 * (time.thread_time() - cpu)))
        return self.seq


class Connection(asyncio.Protocol):
    """One client connection: a request's head (and body, by content-length), then its answer."""

    def __init__(self, room: Room) -> None:
        self.room, self.buffer, self.transport = room, b"", None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        head, sep, body = self.buffer.partition(b"\r\n\r\n")
        if not sep:
            return
        lines = head.decode("latin-1").split("\r\n")
        method, path = lines[0].split()[:2]
        fields = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
        if len(body) < int(fields.get("content-length", "0")):
            return
        self.buffer = b""
        self.handle(method, path, fields, body)

    def handle(self, method: str, path: str, fields: dict, body: bytes) -> None:
        from gradwalk.server.livehub import state_event
        from gradwalk.server.protocol import chunk
        from gradwalk.server.storage import canonical_json

        room, t = self.room, self.transport
        if method == "POST" and path == "/api/live":
            # a new room: seq 0 again (bench/live.py's run waits for each follower's 0)
            room.seq, room.state = 0, canonical_json(json.loads(body)).decode()
            t.write(answer(201, {"room": ROOM, "presenter_token": "stand-in", "url": ""}))
            t.close()
        elif method == "POST" and path == f"/api/live/{ROOM}/state":
            seq = room.step(canonical_json(json.loads(body)).decode())
            t.write(answer(200, {"room": ROOM, "seq": seq}))
            t.close()
        elif method == "GET" and path == f"/api/live/{ROOM}/events":
            t.write(SSE_HEAD + chunk(b"retry: 2000\n\n")
                    + chunk(state_event(ROOM, room.seq, room.state)))
            room.streams.append(t)
        else:
            t.write(answer(404, {"error": {"kind": "not_found"}}))
            t.close()


def serve(port: int, log_path: str) -> None:
    """The stand-in, until SIGTERM: one process, uvloop's loop (as gradwalk's workers)."""
    with open(log_path, "a", buffering=1) as log, \
            asyncio.Runner(loop_factory=loop_factory()) as runner:
        room = Room(log)

        async def main() -> None:
            server = await runner.get_loop().create_server(lambda: Connection(room),
                                                            "127.0.0.1", port, backlog=2048)
            stop = asyncio.Event()
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
            async with server:
                await stop.wait()

        runner.run(main())


# ---- the bench

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--followers", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2, help="figures: the last")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)   # the stand-in's port
    parser.add_argument("--log", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve, args.log)
        return 0
    if not 1 <= args.followers <= 2000:
        parser.error("--followers: 1 to 2,000")
    with tempfile.TemporaryDirectory() as tmp:
        port, log = free_port(), pathlib.Path(tmp) / "stand-in.log"
        proc = subprocess.Popen([sys.executable, "-m", "bench.live_alone", "--serve", str(port),
                                 "--log", str(log)], cwd=REPO)
        try:
            _wait_listening(port, proc)
            for _ in range(args.rounds):
                with asyncio.Runner(loop_factory=loop_factory()) as runner:
                    result = runner.run(run(port, args.followers, args.steps,
                                            lambda: cpu_seconds(proc.pid)))
                time.sleep(0.5)
            shares = server_shares(log.read_text(), result)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
    last, each = [x * 1000 for x in result["last"]], [x * 1000 for x in result["each"]]
    print(json.dumps({"machine": describe(), "server": "stand-in (bench/live_alone.py)",
                      "followers": args.followers, "steps": args.steps,
                      "last_follower_ms": {"p50": round(pct(last, 50), 1),
                                           "p99": round(pct(last, 99), 1),
                                           "max": round(max(last), 1)},
                      "each_follower_ms": {"p50": round(pct(each, 50), 1),
                                           "p99": round(pct(each, 99), 1)},
                      **{f"{name}_ms": {"p50": round(pct(v, 50), 1), "p99": round(pct(v, 99), 1)}
                         for name, v in shares.items() if v and name != "read"},
                      "all_got_final_step": all(s == args.steps for s in result["final"]),
                      "server_cpu_ms_per_step": result["server_cpu_ms_per_step"],
                      "client_cpu_ms_per_step": result["client_cpu_ms_per_step"]}, indent=1))
    return 0


def _wait_listening(port: int, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the stand-in server exited")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)   # the stand-in still starting
    raise TimeoutError("the stand-in server did not start")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
