"""The stream against the POST on a real `gradwalk serve`: for a chain of about 10,000 nodes,
the wall time of `POST /api/trace` (whole body), and of `POST /api/trace/stream` to its first
event (`graph`), to its first stepper event (`evaluate`) and to its end. Best of `repeats`,
one request at a time, POST and stream in turn, loopback. The server runs in its own process
on this machine.

    .venv/bin/python -m bench.stream [NODES]
"""
from __future__ import annotations

import pathlib
import sys
import tempfile
import time

import httpx2 as httpx

from bench.chain import nodes, text

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "server"))
from server_process import served  # noqa: E402  (the tests' real-server helper)


def post_seconds(client: httpx.Client, program: str) -> float:
    start = time.perf_counter()
    r = client.post("/api/trace", json={"program": program})
    r.read()
    assert r.status_code == 200, r.text[:300]
    return time.perf_counter() - start


def stream_seconds(client: httpx.Client, program: str) -> tuple[float, float, float]:
    """(to the first event, to the first `evaluate` event, to the end) in seconds."""
    start = time.perf_counter()
    first = first_step = None
    seen = b""
    with client.stream("POST", "/api/trace/stream", json={"program": program}) as r:
        assert r.status_code == 200
        for chunk in r.iter_bytes():
            now = time.perf_counter() - start
            seen = (seen + chunk)[-65536:] if first_step is None else seen
            if first is None and b"\n\n" in seen:
                first = now
            if first_step is None and b"event: evaluate" in seen:
                first_step = now
    end = time.perf_counter() - start
    assert b"event: done" in chunk or b"done" in seen, "the stream did not end with done"
    return first, first_step, end


def measure(n: int = 10_000, repeats: int = 5) -> dict[str, float]:
    program = text(n)
    with tempfile.TemporaryDirectory(prefix="gradwalk-bench-") as tmp:
        with served(pathlib.Path(tmp), data_dir=tmp) as server, \
                httpx.Client(base_url=server.url, timeout=120) as client:
            post_seconds(client, program)   # warm the worker
            posts, streams = [], []
            for _ in range(repeats):   # interleaved: a busy spell of the machine hits both
                posts.append(post_seconds(client, program))
                streams.append(stream_seconds(client, program))
    return {"nodes": nodes(n), "post_s": min(posts), "first_event_s": min(s[0] for s in streams),
            "first_evaluate_s": min(s[1] for s in streams),
            "stream_s": min(s[2] for s in streams)}


def phases(n: int = 10_000, repeats: int = 5, clock=time.perf_counter) -> dict[str, float]:
    """Seconds by `clock` (wall by default; time.process_time for CPU), in this process, of
    what comes before the stream's first event: the parse (done before the request takes a
    trace slot), the Tracer as the stream makes it (shapes, forward values, ledger, formulas
    and symbols: the graph event's fields need them; and the size check's light bound, which
    comes before the graph) and the graph event's JSON; best of `repeats`. Their sum is the floor
    under the first event, whatever the server does."""
    from gradwalk.engine.parse import parse
    from gradwalk.engine.trace.runner import Tracer, gc_paused

    program, best = text(n), {"parse_s": 9e9, "tracer_s": 9e9, "graph_s": 9e9}
    for _ in range(repeats):
        with gc_paused():
            t0 = clock()
            parsed = parse(program)
            t1 = clock()
            tracer = Tracer(parsed)
            t2 = clock()
            for _part in tracer.graph_parts():
                pass
            t3 = clock()
        for key, seconds in (("parse_s", t1 - t0), ("tracer_s", t2 - t1), ("graph_s", t3 - t2)):
            best[key] = min(best[key], seconds)
    return best


if __name__ == "__main__":
    r = measure(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
    print(f"{r['nodes']:,} nodes: POST {r['post_s'] * 1e3:.0f} ms; stream: first event "
          f"{r['first_event_s'] * 1e3:.0f} ms, first evaluate {r['first_evaluate_s'] * 1e3:.0f} "
          f"ms, whole {r['stream_s'] * 1e3:.0f} ms ({r['stream_s'] / r['post_s']:.2f} x POST)")
