"""Live rooms under load: N Server-Sent-Events followers of one room, 50 presenter steps.

For each step: the time from sending the presenter's POST /api/live/{room}/state to the moment
the last follower has the step's event (its `seq`); reported as p50 / p99 / max over the steps,
with every follower's own latency (p50 / p99 over all followers and steps). Then one follower
reconnects (Last-Event-ID: an old seq) and must get the current step first; then all leave. The
whole run is done --rounds times on one server, and the server's memory (the PSS of it and its
workers) sampled before and after each: flat after the first round means nothing is kept per
follower or per room. Also the server's and the client's CPU time per step.

    .venv/bin/python -m bench.live --followers 100 --postgres postgresql+psycopg://...
    .venv/bin/python -m bench.live --followers 1000 --workers 2 --postgres URL

Without --postgres it runs on a fresh SQLite file with --workers 1 (SQLite refuses live rooms
with more workers). ONE asyncio client process (on uvloop's loop, as the server) holds all the
connections, opened CONNECT_BATCH at a time: raw HTTP/1.1, each follower a Stream (an asyncio
Protocol parsing its chunks in the read callback, no task per follower); --stream-client uses
the former client (asyncio streams and a task per follower, about 20 µs of the client's CPU an
event). Also the time the presenter's POST took to be answered (the step committed and NOTIFY
sent). Loopback only; the client shares the 2 cores with the server, so the figures are those
of the pair; to tell them apart the server logs its own times (live_timing_log): per step, when
the last process had the notification and when it had handed the state to all its followers,
and from then to the last follower's read (`client_after`, the client's share). --pin puts the
client on one core and the server with PostgreSQL on the other (bench/pin.py); --batch-client
makes the client SCHED_BATCH, so that its wake-ups do not preempt the server's loop.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time
import urllib.parse

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "server")]   # also when run as a script
from bench.machine import describe  # noqa: E402
from bench.pin import pin, postgres_pids  # noqa: E402
from server_process import descendants, served  # noqa: E402  (the tests' real-server helper)

CONNECT_BATCH = 50   # connections opened at once
PROGRAM = "x = 1.5\nw = -0.8\ny = tanh(w * x)\nL = y * y"


# ---- a raw HTTP/1.1 client: requests and an SSE stream on asyncio streams

async def request(port: int, method: str, path: str, body: dict | None = None,
                  headers: dict | None = None) -> tuple[int, dict]:
    """One request on its own connection -> (status, JSON body)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    data = b"" if body is None else json.dumps(body).encode()
    head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close",
            "Content-Type: application/json", f"Content-Length: {len(data)}"]
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
    raw = await reader.read()
    writer.close()
    status_line, _, rest = raw.partition(b"\r\n")
    _, _, payload = rest.partition(b"\r\n\r\n")
    if b"transfer-encoding: chunked" in rest.lower().split(b"\r\n\r\n")[0]:
        payload = _unchunk(payload)
    return int(status_line.split()[1]), json.loads(payload or b"null")


def _unchunk(data: bytes) -> bytes:
    out = b""
    while data:
        size, _, data = data.partition(b"\r\n")
        n = int(size, 16)
        if n == 0:
            break
        out, data = out + data[:n], data[n + 2:]
    return out


class Follower:
    """One open GET /api/live/{room}/events: `events()` yields (event, id, data dict)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 status: int) -> None:
        self.reader, self.writer, self.status = reader, writer, status
        self.buffer = b""

    @classmethod
    async def open(cls, port: int, room: str, last_id: int | None = None) -> "Follower":
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        extra = "" if last_id is None else f"Last-Event-ID: {last_id}\r\n"
        writer.write(f"GET /api/live/{urllib.parse.quote(room)}/events HTTP/1.1\r\n"
                     f"Host: 127.0.0.1\r\nAccept: text/event-stream\r\n{extra}\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        return cls(reader, writer, int(head.split()[1]))

    async def events(self):
        while True:
            while b"\n\n" not in self.buffer:
                size = int((await self.reader.readline()).strip() or b"0", 16)
                if size == 0:
                    return
                self.buffer += (await self.reader.readexactly(size + 2))[:-2]
            block, _, self.buffer = self.buffer.partition(b"\n\n")
            fields = dict(line.split(": ", 1) for line in block.decode().split("\n")
                          if ": " in line and not line.startswith(":"))
            if "event" in fields:
                yield fields["event"], int(fields.get("id", -1)), json.loads(fields["data"])

    def close(self) -> None:
        self.writer.close()


class Stream(asyncio.Protocol):
    """One follower's connection for the load, parsed in uvloop's read callback: no task, no
    StreamReader and no JSON per event, so that the client's own time per event is small
    (the `Follower` above costs about 20 µs an event: 20 ms a step for 1,000). `arrived(i, seq,
    t)` is called for each `state` event with the time its bytes were read (perf_counter);
    `last` keeps the latest state event's data (JSON bytes) for the final check."""

    def __init__(self, index: int, arrived) -> None:
        self.index, self.arrived = index, arrived
        self.buffer = b""
        self.body = None   # the body's bytes not yet parsed, once the head is in
        self.status = asyncio.get_running_loop().create_future()
        self.last = b""
        self.transport = None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if self.body is None:
            self.buffer += data
            head, sep, rest = self.buffer.partition(b"\r\n\r\n")
            if not sep:
                return
            self.status.set_result(int(head.split(None, 2)[1]))
            self.body, self.buffer, data = b"", b"", rest
        self.body += data
        self._chunks(now)

    def _chunks(self, now: float) -> None:
        """Take the complete chunks off `body` and each complete event off their text."""
        body, at = self.body, 0
        while True:
            eol = body.find(b"\r\n", at)
            if eol < 0:
                break
            end = eol + 2 + int(body[at:eol], 16)
            if len(body) < end + 2:
                break
            self.buffer += body[eol + 2:end]
            at = end + 2
        self.body = body[at:]
        while (cut := self.buffer.find(b"\n\n")) >= 0:
            block, self.buffer = self.buffer[:cut], self.buffer[cut + 2:]
            if block.startswith(b"event: state\n"):
                data, _, seq = block[len(b"event: state\ndata: "):].rpartition(b"\nid: ")
                self.last = data
                self.arrived(self.index, int(seq), now)

    def connection_lost(self, exc) -> None:
        if not self.status.done():
            self.status.set_exception(ConnectionError("closed before its head"))

    def close(self) -> None:
        self.transport.close()


class Readers:
    """The client this bench had before Stream (kept to measure the client's share, with
    --stream-client): a Follower and a task each, asyncio streams, the JSON of every event
    parsed. Holds the tasks; `final()`: each follower's last step."""

    def __init__(self, followers: list[Follower], arrived) -> None:
        self.steps = [None] * len(followers)
        self.followers = followers
        self.tasks = [asyncio.create_task(self._listen(i, f, arrived))
                      for i, f in enumerate(followers)]

    async def _listen(self, i: int, follower: Follower, arrived) -> None:
        async for kind, seq, data in follower.events():
            if kind == "state":
                self.steps[i] = data["state"].get("step", 0)
                arrived(i, seq, time.perf_counter())

    def final(self) -> list:
        return self.steps

    async def close(self) -> None:
        for f in self.followers:
            f.close()
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def open_followers(port: int, room: str, n: int) -> list[Follower]:
    """n followers, opened CONNECT_BATCH at a time."""
    followers: list[Follower] = []
    for start in range(0, n, CONNECT_BATCH):
        followers += await asyncio.gather(*(Follower.open(port, room)
                                            for _ in range(min(CONNECT_BATCH, n - start))))
    return followers


async def open_streams(port: int, room: str, n: int, arrived) -> list[Stream]:
    """n Streams of the room, opened CONNECT_BATCH at a time, each past its answer's head."""
    loop = asyncio.get_running_loop()
    request_bytes = (f"GET /api/live/{urllib.parse.quote(room)}/events HTTP/1.1\r\n"
                     "Host: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n").encode()

    async def one(i: int) -> Stream:
        _, stream = await loop.create_connection(lambda: Stream(i, arrived), "127.0.0.1", port)
        stream.transport.write(request_bytes)
        assert await stream.status == 200
        return stream

    streams: list[Stream] = []
    for start in range(0, n, CONNECT_BATCH):
        batch = range(start, min(n, start + CONNECT_BATCH))
        streams += await asyncio.gather(*(one(i) for i in batch))
    return streams


# ---- the run

def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) of `pid` and every process under it, from /proc (s)."""
    total = 0
    for p in [pid, *descendants(pid)]:
        try:
            fields = pathlib.Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])   # utime, stime (clock ticks)
    return total / os.sysconf("SC_CLK_TCK")


async def run(port: int, n: int, steps: int, cpu=lambda: 0.0, streams: bool = True) -> dict:
    """Open a room, n followers, step it `steps` times; latencies, what each follower got, and
    the CPU seconds the server (`cpu()`) and this client spent on the steps. `streams`: the
    followers are Streams (else the former client, Readers)."""
    status, opened = await request(port, "POST", "/api/live", {"v": 1, "program": PROGRAM})
    assert status == 201, opened
    room, auth = opened["room"], {"Authorization": f"Bearer {opened['presenter_token']}"}
    seen: dict[int, list[float]] = {}
    done = {seq: asyncio.Event() for seq in range(steps + 1)}

    def arrived(i: int, seq: int, t: float) -> None:
        arrivals = seen.setdefault(seq, [])
        arrivals.append(t)
        if len(arrivals) == n and seq in done:
            done[seq].set()

    if streams:
        followers = await open_streams(port, room, n, arrived)
    else:
        readers = Readers(await open_followers(port, room, n), arrived)
    await asyncio.wait_for(done[0].wait(), 60)   # everyone has the current state
    last, each, answered, sent_at = [], [], [], {}
    server_cpu, client_cpu = cpu(), time.process_time()
    for k in range(1, steps + 1):
        sent = time.perf_counter()
        status, answer = await request(port, "POST", f"/api/live/{room}/state",
                                       {"v": 1, "program": PROGRAM, "step": k}, auth)
        answered.append(time.perf_counter() - sent)
        assert status == 200, answer
        await asyncio.wait_for(done[answer["seq"]].wait(), 30)
        sent_at[answer["seq"]] = sent
        last.append(max(seen[answer["seq"]]) - sent)
        each += [t - sent for t in seen[answer["seq"]]]
    server_cpu, client_cpu = cpu() - server_cpu, time.process_time() - client_cpu
    late = await Follower.open(port, room, last_id=1)   # a reconnect mid-lecture
    first = await anext(late.events())
    late.close()
    if streams:
        final = [json.loads(f.last)["state"].get("step", 0) for f in followers]
        for f in followers:
            f.close()
    else:
        final = readers.final()
        await readers.close()
    return {"room": room, "last": last, "each": each, "answered": answered, "final": final,
            "reconnect_step": first[2]["state"]["step"], "steps": steps,
            "sent_at": sent_at, "last_arrival": {seq: max(seen[seq]) for seq in sent_at},
            "server_cpu_ms_per_step": round(1000 * server_cpu / steps, 1),
            "client_cpu_ms_per_step": round(1000 * client_cpu / steps, 1)}


def server_shares(log: str, result: dict) -> dict:
    """From the server's live_timing_log lines for the run's room, per step (ms lists): from
    the POST's sending to the last process's notification (`notified`) and to the last process
    having handed the state to all its followers (`handed_out`); in the slower process, the
    state's read after its notification (`read`) and the loop over its followers (`fan_out`);
    from the last hand-out to the last follower's read (`client_after`: the client's share,
    with the loopback's); and the CPU time of each process's loop (`fan_out_cpu_each_process`,
    from the server's line: what the loop costs, the rest of `fan_out` being its waits for a
    core)."""
    times: dict[int, list[tuple[float, float, float]]] = {}
    cpu: list[float] = []   # the CPU time of each process's loop over its followers
    for line in log.splitlines():
        _, _, tail = line.partition(f"live step {result['room']} ")
        if tail:
            seq = int(tail.split(":")[0])
            noted, read, handed = (float(tail.split(f"{name} ")[1].split(",")[0])
                                   for name in ("notified", "read", "handed out"))
            times.setdefault(seq, []).append((noted, read, handed))
            if "fan-out CPU " in tail:
                cpu.append(float(tail.split("fan-out CPU ")[1].split()[0]))
    out = {"notified": [], "handed_out": [], "read": [], "fan_out": [], "client_after": [],
           "fan_out_cpu_each_process": cpu}
    for seq, sent in result["sent_at"].items():
        if seq in times:
            handed = max(h for _, _, h in times[seq])
            out["notified"].append(1000 * (max(n for n, _, _ in times[seq]) - sent))
            out["handed_out"].append(1000 * (handed - sent))
            out["read"].append(1000 * max(r - n for n, r, _ in times[seq]))
            out["fan_out"].append(1000 * max(h - r for _, r, h in times[seq]))
            out["client_after"].append(1000 * (result["last_arrival"][seq] - handed))
    return out


def loop_factory():
    """uvloop's event loop for the client, as the server has it (a dependency of gradwalk's
    on CPython and not Windows), else asyncio's: it parses 1,000 events a step."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 \
        else values[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--followers", type=int, default=100)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2,
                        help="the whole run again on the same server (figures: the last)")
    parser.add_argument("--postgres", default="", help="SQLAlchemy URL of a PostgreSQL database")
    parser.add_argument("--stream-client", action="store_true",
                        help="the former client (a task and a StreamReader per follower)")
    parser.add_argument("--pin", action="store_true", help="the client on CPU 1, the server "
                        "and PostgreSQL on CPU 0 (bench/pin.py)")
    parser.add_argument("--batch-client", action="store_true", help="the client SCHED_BATCH: "
                        "woken by each follower's bytes, it does not preempt the server's loop")
    args = parser.parse_args(argv)
    workers = args.workers if args.postgres else 1
    with tempfile.TemporaryDirectory() as tmp:
        # no step rate: the presenter here steps as fast as the followers take it
        settings = {"data_dir": tmp, "max_live_followers": args.followers + 10,
                    "live_state_rate_limit": "", "live_timing_log": "true"}
        if args.postgres:
            settings["database_url"] = args.postgres
        with served(pathlib.Path(tmp), workers=workers, **settings) as server:
            if args.batch_client:   # after the server's start: its processes would inherit it
                os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
            memory = [server.family_memory()]
            for _ in range(args.rounds):   # the same load again: memory after each must stay
                if args.pin:   # each round: the database's backends opened since are pinned too
                    server_pids = [server.proc.pid, *descendants(server.proc.pid)]
                    pin(server_pids + (postgres_pids(args.postgres) if args.postgres else []), 0)
                    pin([os.getpid()], 1)
                with asyncio.Runner(loop_factory=loop_factory()) as runner:
                    result = runner.run(run(server.port, args.followers, args.steps,
                                            lambda: cpu_seconds(server.proc.pid),
                                            streams=not args.stream_client))
                time.sleep(1.0)   # the server notices the closed streams
                memory.append(server.family_memory())
            shares = server_shares(server.log.read_text(errors="replace"), result)
    last, each = [x * 1000 for x in result["last"]], [x * 1000 for x in result["each"]]
    answered = [x * 1000 for x in result["answered"]]
    print(json.dumps({"machine": describe(), "followers": args.followers, "workers": workers,
                      "database": "postgresql" if args.postgres else "sqlite",
                      "steps": args.steps,
                      "client": "streams (old)" if args.stream_client else "protocol",
                      "pinned": "client CPU 1, server CPU 0" if args.pin else "no",
                      "client_policy": "SCHED_BATCH" if args.batch_client else "SCHED_OTHER",
                      "last_follower_ms": {"p50": round(pct(last, 50), 1),
                                           "p99": round(pct(last, 99), 1),
                                           "max": round(max(last), 1)},
                      "each_follower_ms": {"p50": round(pct(each, 50), 1),
                                           "p99": round(pct(each, 99), 1)},
                      "post_answered_ms": {"p50": round(pct(answered, 50), 1),
                                           "p99": round(pct(answered, 99), 1)},
                      # from the server's live_timing_log: the last process's times
                      **{f"{name}_ms": {"p50": round(pct(v, 50), 1), "p99": round(pct(v, 99), 1)}
                         for name, v in shares.items() if v},
                      "all_got_final_step": all(s == args.steps for s in result["final"]),
                      "reconnect_got_step": result["reconnect_step"],
                      "server_cpu_ms_per_step": result["server_cpu_ms_per_step"],
                      "client_cpu_ms_per_step": result["client_cpu_ms_per_step"],
                      "memory_mb_before_and_after_each_round":
                          [round(m / 2**20, 1) for m in memory]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
