"""Load on a real `gradwalk serve`: throughput, p50/p99 latency and the count of each status.

`POST /api/trace` and `POST /api/trace/stream` of the first seed example (server/presets.json),
each at 1, 16 and 64 concurrent clients for a few seconds; then, with --soak SECONDS, a soak that
traces a 2,000-node chain again and again (one POST client, one stream client) and samples the
server's resident memory.

    .venv/bin/python bench/load.py                        # starts a server on a free port
    .venv/bin/python bench/load.py --workers 2            # gradwalk serve --workers 2
    .venv/bin/python bench/load.py --url http://127.0.0.1:8000   # a server already running
    .venv/bin/python bench/load.py --soak 300 --clients ""       # the five-minute soak only

A client is an asyncio task on one keep-alive connection (httpx2, the project's test HTTP
client) that sends its next request as soon as the last one is answered. Latency is from sending
the request to the last byte (for the stream: the whole stream, and its first event apart).
The answers counted: the HTTP status, and for a 200 stream the kind of its last event (`done`,
or `error:<kind>`). The only 5xx the server documents is 503 `busy` (every trace slot stayed
taken for GRADWALK_BUSY_TIMEOUT_SECONDS; in the stream, an `error:busy` event); any other 5xx,
a stream that ends otherwise, or a connection error makes the exit status 1.

The client runs on the same machine as the server and takes CPU from it: the figures are those
of the pair, reported with the machine's cores and load average. Needs the test extra
(`pip install -e ".[test]"`, for httpx2).
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import dataclasses
import json
import os
import pathlib
import statistics
import sys
import tempfile
import time

import httpx2 as httpx

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "server")]   # also when run as a script
from bench.machine import describe  # noqa: E402
from server_process import chain, served  # noqa: E402  (the tests' real-server helper)

SEED = json.loads((REPO / "server" / "presets.json").read_text())[0]
SOAK_PROGRAM = chain(2_000)   # a leak of its graph (issue 6: 16 MB per 10,000 nodes) shows fast
JSON = {"Content-Type": "application/json"}
ENDPOINTS = ("trace", "stream")
GOOD = frozenset({"200", "200 done", "503", "200 error:busy"})   # busy: documented


@dataclasses.dataclass
class Run:
    """One endpoint at one concurrency: latencies (s), first-event latencies of a stream (s),
    the count of each answer, and the wall time from the first request to the last answer (s)."""

    endpoint: str
    clients: int
    latencies: list[float] = dataclasses.field(default_factory=list)
    first_event: list[float] = dataclasses.field(default_factory=list)
    answers: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    wall: float = 0.0

    @property
    def throughput(self) -> float:
        """Answers per second."""
        return len(self.latencies) / self.wall if self.wall else 0.0

    def bad(self) -> dict[str, int]:
        """Answers other than 200 and the documented 503 busy."""
        return {k: n for k, n in self.answers.items() if k not in GOOD}

    def row(self) -> str:
        p50, p99 = percentiles(self.latencies)
        first = ""
        if self.first_event:
            f50, f99 = percentiles(self.first_event)
            first = f" | {f50 * 1e3:.1f} / {f99 * 1e3:.1f}"
        answers = ", ".join(f"{k}: {n}" for k, n in sorted(self.answers.items()))
        return (f"| {self.endpoint} | {self.clients} | {len(self.latencies)} | "
                f"{self.throughput:.0f} | {p50 * 1e3:.1f} | {p99 * 1e3:.1f}{first or ' | -'} | "
                f"{answers} |")


def percentiles(values: list[float]) -> tuple[float, float]:
    """(p50, p99) of values, linear interpolation between order statistics."""
    if len(values) < 2:
        return (values[0], values[0]) if values else (float("nan"), float("nan"))
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[49], cuts[98]


async def post_trace(client: httpx.AsyncClient, body: bytes) -> tuple[str, float | None]:
    response = await client.post("/api/trace", content=body, headers=JSON)
    return str(response.status_code), None


async def post_stream(client: httpx.AsyncClient, body: bytes) -> tuple[str, float | None]:
    """The stream read to its end: ('200 <last event kind>', seconds to the first event)."""
    start = time.perf_counter()
    first = None
    tail = b""
    async with client.stream("POST", "/api/trace/stream", content=body, headers=JSON) as r:
        if r.status_code != 200:
            await r.aread()
            return str(r.status_code), None
        async for chunk in r.aiter_bytes():
            if first is None and b"\n\n" in tail[-1:] + chunk:
                first = time.perf_counter() - start
            tail = (tail + chunk)[-4096:]   # enough to hold the last event
    return f"200 {last_event(tail)}", first


def last_event(tail: bytes) -> str:
    """The kind of the last Server-Sent Event in tail: `done`, or `error:<kind>`."""
    block = tail.rstrip(b"\n").rsplit(b"\n\n", 1)[-1].decode(errors="replace")
    fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
    kind = fields.get("event", "?")
    if kind == "error":
        with contextlib.suppress(ValueError, KeyError, TypeError):
            kind = f"error:{json.loads(fields['data'])['error']['kind']}"
    return kind


REQUESTS = {"trace": post_trace, "stream": post_stream}


async def load(url: str, endpoint: str, clients: int, seconds: float, body: bytes) -> Run:
    """`clients` tasks sending `endpoint` requests back to back for `seconds`."""
    run = Run(endpoint, clients)
    request = REQUESTS[endpoint]
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=60) as client:
        start = time.perf_counter()
        end = start + seconds

        async def one_client() -> None:
            while time.perf_counter() < end:
                sent = time.perf_counter()
                try:
                    answer, first = await request(client, body)
                except httpx.HTTPError as e:
                    answer, first = f"client {type(e).__name__}", None
                run.latencies.append(time.perf_counter() - sent)
                run.answers[answer] += 1
                if first is not None:
                    run.first_event.append(first)

        await asyncio.gather(*(one_client() for _ in range(clients)))
        run.wall = time.perf_counter() - start
    return run


def rss(pid: int) -> int:
    """Resident set size of process pid (bytes), from /proc/<pid>/statm (pages)."""
    pages = int(pathlib.Path(f"/proc/{pid}/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


@dataclasses.dataclass
class Soak:
    """RSS samples (seconds since the start, bytes), the answers, and the verdict's figures."""

    samples: list[tuple[float, int]]
    answers: collections.Counter
    warmup: float

    def thirds(self) -> tuple[float, float]:
        """Median RSS (bytes) of the first and the last third of the samples after warm-up."""
        after = [r for t, r in self.samples if t >= self.warmup]
        third = max(1, len(after) // 3)
        return statistics.median(after[:third]), statistics.median(after[-third:])

    def growth(self) -> float:
        """Median RSS of the last third minus that of the first third (bytes)."""
        first, last = self.thirds()
        return last - first


async def soak(url: str, pid: int, seconds: float, program: str = SOAK_PROGRAM,
               every: float = 0.5) -> Soak:
    """Trace `program` again and again for `seconds` (a POST client and a stream client at
    once, so both trace slots are busy) while sampling the RSS of process `pid` every `every`
    seconds. Warm-up: the first fifth of the time (allocator arenas, imports, caches)."""
    body = json.dumps({"program": program}).encode()
    answers: collections.Counter = collections.Counter()
    samples: list[tuple[float, int]] = []
    start = time.perf_counter()
    end = start + seconds

    async def client_loop(request) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=120) as client:
            while time.perf_counter() < end:
                answer, _ = await request(client, body)
                answers[answer] += 1

    async def sampler() -> None:
        while time.perf_counter() < end:
            samples.append((time.perf_counter() - start, rss(pid)))
            await asyncio.sleep(every)

    await asyncio.gather(client_loop(post_trace), client_loop(post_stream), sampler())
    return Soak(samples, answers, warmup=seconds / 5)


def machine() -> str:
    m = describe()
    return (f"{m['cores']} cores ({m['cpu']}), {m['python']}, load average {m['load']} "
            f"(1, 5, 15 min) before the run")


def report_load(runs: list[Run], workers: int, where: str) -> None:
    print(f"\n{where}; gradwalk serve --workers {workers}; program: {SEED['id']}\n")
    print("| endpoint | clients | answers | per second | p50 ms | p99 ms "
          "| first event p50 / p99 ms | answers by status |")
    print("|---|---|---|---|---|---|---|---|")
    for run in runs:
        print(run.row())


def report_soak(result: Soak, seconds: float) -> None:
    mb = [r / 1e6 for _, r in result.samples]
    first, last = result.thirds()
    answers = ", ".join(f"{k}: {n}" for k, n in sorted(result.answers.items()))
    print(f"\nsoak {seconds:g} s of a 2,000-node chain (POST and stream at once): {answers}")
    print(f"RSS MB: start {mb[0]:.0f}, min {min(mb):.0f}, max {max(mb):.0f}, end {mb[-1]:.0f}; "
          f"median after warm-up ({result.warmup:g} s): first third {first / 1e6:.0f}, "
          f"last third {last / 1e6:.0f}, growth {(last - first) / 1e6:+.1f}")
    minutes = collections.defaultdict(list)
    for t, r in result.samples:
        minutes[int(t // 60)].append(r / 1e6)
    print("median RSS MB by minute: " + ", ".join(
        f"{statistics.median(v):.0f}" for _, v in sorted(minutes.items())))


async def main_async(args, url: str, pid: int | None) -> int:
    body = json.dumps({"program": SEED["program"]}).encode()
    where = machine()
    runs = []
    for endpoint in ENDPOINTS:
        for clients in args.clients:
            runs.append(await load(url, endpoint, clients, args.seconds, body))
            print(f"  {endpoint} x{clients}: {runs[-1].throughput:.0f}/s", file=sys.stderr)
    failed = False
    if runs:
        report_load(runs, args.workers, where)
        bad = {f"{r.endpoint} x{r.clients}": r.bad() for r in runs if r.bad()}
        if bad:
            print(f"\nFAIL: answers other than 200 and 503 busy: {bad}")
            failed = True
    if args.soak:
        if pid is None:
            print("--soak needs --pid with --url (the server process to read RSS from)")
            return 2
        result = await soak(url, pid, args.soak)
        report_soak(result, args.soak)
        failed |= set(result.answers) != {"200", "200 done"}
    return 1 if failed else 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server (default: start one on a free port)")
    parser.add_argument("--pid", type=int, help="with --url and --soak: the server's process")
    parser.add_argument("--workers", type=int, default=1, help="gradwalk serve --workers")
    parser.add_argument("--clients", default="1,16,64",
                        type=lambda s: [int(c) for c in s.split(",") if c],
                        help="concurrent clients, comma-separated (default 1,16,64)")
    parser.add_argument("--seconds", type=float, default=5.0, help="per endpoint and level")
    parser.add_argument("--soak", type=float, default=0.0,
                        help="then a soak of this many seconds (needs --workers 1)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.url:
        return asyncio.run(main_async(args, args.url.rstrip("/"), args.pid))
    if args.soak and args.workers != 1:
        print("--soak reads one server process's memory: use --workers 1")
        return 2
    with tempfile.TemporaryDirectory(prefix="gradwalk-load-") as tmp:
        with served(pathlib.Path(tmp), workers=args.workers, data_dir=tmp) as server:
            code = asyncio.run(main_async(args, server.url, server.proc.pid))
        log = (pathlib.Path(tmp) / "server.log").read_text(errors="replace")
    if "Traceback" in log:
        print(f"FAIL: the server logged a traceback:\n{log[-3000:]}")
        code = 1
    return code


if __name__ == "__main__":
    sys.exit(main())
