"""Issue 15 §1's speed figures, measured side by side in one run (medians of several rounds:
the machine is shared, so a busy spell must touch both sides of a ratio alike).

- chain `x = x * 1.0001 + 0.001` at about 1e4 and 1e5 nodes: the full trace (`trace_json`:
  parse, Tracer, every event, the JSON body) against its floor, `ast.parse` of the same text
  plus `orjson.dumps` of the same body (as a dict), both timed in every round (CPU time),
  after two untimed rounds of both (chain_vs_floor says why);
- the same chains' peak memory per node (bench.chain: a fresh process, VmHWM);
- the stream's first event for 10,001 nodes on loopback (a real `gradwalk serve`, bench.stream),
  and, in this process, the parse, Tracer and graph event that come before it (wall time, and
  their CPU time, which a busy machine inflates less);
- the tensor MLP (batch 256, width 1024, randn weights): `Tracer(...).records()` against numpy
  drawing the same weights and doing the same forward and backward by hand (bench.mlp), one
  BLAS thread.

    .venv/bin/python -m bench.tape [--rounds R] [--quick]
"""
from __future__ import annotations

import os

from bench.mlp import ONE_THREAD

os.environ.update(ONE_THREAD)   # before numpy is imported (a no-op if it already was)

import ast  # noqa: E402
import gc  # noqa: E402
import pathlib  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import orjson  # noqa: E402

from bench.chain import nodes, peak_bytes_per_node, text  # noqa: E402


def cpu(fn) -> float:
    """CPU seconds of fn(), the collector off while it runs (as trace_json pauses it itself)."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    start = time.process_time()
    try:
        fn()
        return time.process_time() - start
    finally:
        if was:
            gc.enable()


WARM_ROUNDS = 2   # untimed rounds of both sides before the timed ones (chain_vs_floor)


def chain_vs_floor(n: int, rounds: int) -> dict:
    """Median µs a node of the full trace and of its floor, timed in the same rounds, after
    WARM_ROUNDS untimed rounds of both.

    The warm rounds: the floor's body is loaded (a dict of about 33 MB at 10,001 nodes) into
    the memory the first trace had just freed, so without them the next traces took fresh
    pages from the system, and on this machine a page fault costs about 3 µs: 5,700 and
    3,500 faults in the first two timed traces at 10,001 nodes against 1,650 from the
    fourth on (the floor's 4,200 and 2,100 against 1,800). Those two rounds, one side's much
    more than the other's, moved the median with the order the rounds' noise put them in;
    after two warm rounds each side is timed from its first round as it runs from then on.
    At 100,001 nodes every round faults alike (about 0.4 a node, each side: its body is
    past glibc's largest heap threshold, 32 MB, so it is always freshly mapped)."""
    from gradwalk.engine.trace.runner import trace_json

    src = text(n)
    body = orjson.loads(trace_json(src))   # the same body, as the dict orjson would write
    full, floor = [], []
    for _ in range(WARM_ROUNDS + rounds):
        full.append(cpu(lambda: trace_json(src)))
        floor.append(cpu(lambda: (ast.parse(src), orjson.dumps(body))))
    del full[:WARM_ROUNDS], floor[:WARM_ROUNDS]
    per = 1e6 / nodes(n)
    f, fl = statistics.median(full) * per, statistics.median(floor) * per
    return {"nodes": nodes(n), "full_us": f, "floor_us": fl, "ratio": f / fl}


def first_event(n: int, rounds: int) -> dict:
    """Median ms to the stream's first event and first `evaluate` on loopback, and of the
    in-process parse, Tracer and graph event before it."""
    import httpx2 as httpx

    from bench.stream import phases, post_seconds, stream_seconds
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "server"))
    from server_process import served

    program = text(n)
    with tempfile.TemporaryDirectory(prefix="gradwalk-bench-") as tmp:
        with served(pathlib.Path(tmp), data_dir=tmp) as server, \
                httpx.Client(base_url=server.url, timeout=120) as client:
            post_seconds(client, program)   # warm the worker
            streams = [stream_seconds(client, program) for _ in range(rounds)]
    inside = [phases(n, 1) for _ in range(rounds)]
    ms = {k: statistics.median(p[k] for p in inside) * 1e3 for k in inside[0]}
    cpu_inside = [phases(n, 1, time.process_time) for _ in range(rounds)]   # a busy machine
    ms["cpu_ms"] = sum(statistics.median(p[k] for p in cpu_inside) for k in cpu_inside[0]) * 1e3
    return {"nodes": nodes(n), "first_event_ms": statistics.median(s[0] for s in streams) * 1e3,
            "first_evaluate_ms": statistics.median(s[1] for s in streams) * 1e3,
            **{k.replace("_s", "_ms"): v for k, v in ms.items()}}


def mlp(rounds: int, width: int = 1024) -> dict:
    """Median ms of Tracer(...).records() and of numpy (draw + forward + backward) by hand."""
    from bench.mlp import by_hand, limits, randn_arrays, randn_program
    from gradwalk.engine.trace.runner import Tracer

    src, lim = randn_program(width), limits()
    ours, numpy = [], []
    for _ in range(rounds):
        ours.append(cpu(lambda: list(Tracer(src, limits=lim).records())))
        numpy.append(cpu(lambda: by_hand(randn_arrays(width))))
    a, b = statistics.median(ours) * 1e3, statistics.median(numpy) * 1e3
    return {"width": width, "records_ms": a, "numpy_ms": b, "ratio": a / b}


def main(argv: list[str]) -> None:
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 5
    quick = "--quick" in argv
    for n in (10_000, 100_000):
        r = chain_vs_floor(n, rounds if n == 10_000 else max(3, rounds // 2))
        print(f"chain {r['nodes']:>7,}: full trace {r['full_us']:.2f} µs/node, floor (ast.parse "
              f"+ orjson.dumps) {r['floor_us']:.2f}: {r['ratio']:.2f} x the floor (target ≤ 3)")
    for n in (10_000, 100_000):
        kb = peak_bytes_per_node("gradwalk", n) / 1e3
        print(f"chain {nodes(n):>7,}: peak memory {kb:.2f} KB/node (target ≤ 2)")
    r = mlp(rounds)
    print(f"MLP 256x{r['width']} randn: Tracer(...).records() {r['records_ms']:.0f} ms, numpy "
          f"draw + forward + backward {r['numpy_ms']:.0f} ms: {r['ratio']:.2f} x (target ≤ 1.5)")
    if not quick:
        r = first_event(10_000, rounds)
        print(f"stream {r['nodes']:,} nodes, loopback: first event {r['first_event_ms']:.0f} ms "
              f"(target < 100), first evaluate {r['first_evaluate_ms']:.0f} ms; in process: "
              f"parse {r['parse_ms']:.0f} ms, Tracer {r['tracer_ms']:.0f} ms, graph event "
              f"{r['graph_ms']:.0f} ms (wall); CPU time of the three {r['cpu_ms']:.0f} ms")


if __name__ == "__main__":
    main(sys.argv[1:])
