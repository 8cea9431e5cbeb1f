"""The chain `x = x * 1.0001 + 0.001` (four nodes a line: two constants, a mul, an add) in
gradwalk, micrograd and PyTorch 0-d tensors: the same graph in every engine.

CPU time (time.process_time) per node of the whole job, best of `repeats`:
- gradwalk: `trace_json(text)` — parse, graph, forward, backward, every event, the JSON body;
  with `graph=True` also the networkx DAG (`Tracer.graph`, built on first use);
- micrograd (the PyPI package): build the expression, then `backward()`, garbage collector off;
- PyTorch: 0-d float64 tensors with requires_grad, then `backward()`, garbage collector off;
- ast.parse: Python's parser alone on the same text, the floor under gradwalk's parse.
micrograd's backward recurses once per node, so every engine runs on a thread with a big stack.
Peak memory per node comes from `python -m bench.chain --memory ENGINE N` in a fresh process:
the peak resident set (VmHWM) minus the resident set before the run, over the node count.

    .venv/bin/python -m bench.chain [N]       # the three engines at N nodes (default 100,000)
"""
from __future__ import annotations

import gc
import resource
import subprocess
import sys
import threading
import time

ENGINES = ("gradwalk", "gradwalk+nx", "micrograd", "torch", "ast.parse")


def nodes(n: int) -> int:
    """The chain's node count for about n nodes: 1 leaf + 4 per line."""
    return 4 * (n // 4) + 1


def text(n: int) -> str:
    return "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * (n // 4)


def run_gradwalk(n: int, graph: bool = False) -> None:
    from gradwalk.engine.trace.runner import Tracer, _body, gc_paused, trace_json
    if not graph:
        trace_json(text(n))
        return
    with gc_paused():
        tracer = Tracer(text(n))
        tracer.graph   # noqa: B018 - built on first use
        _body(tracer)


def run_micrograd(n: int) -> float:
    from micrograd.engine import Value
    x = x0 = Value(1.0)
    for _ in range(n // 4):
        x = x * 1.0001 + 0.001
    x.backward()
    return x0.grad


def run_torch(n: int) -> float:
    import torch
    x = x0 = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    for _ in range(n // 4):
        x = x * 1.0001 + 0.001
    x.backward()
    return float(x0.grad)


def run_ast_parse(n: int) -> None:
    """Only Python's own parser on the program text (`ast.parse`): the floor of any engine that
    reads the program with `ast`, as gradwalk must (never eval)."""
    import ast
    ast.parse(text(n))


RUN = {"ast.parse": run_ast_parse, "gradwalk": run_gradwalk, "gradwalk+nx": lambda n: run_gradwalk(n, graph=True),
       "micrograd": run_micrograd, "torch": run_torch}


def on_big_stack(fn, *args):
    """fn(*args) on a thread with a 512 MB stack and a high recursion limit (micrograd's
    topological sort recurses once per node); returns its result."""
    result: dict = {}

    def work() -> None:
        result["value"] = fn(*args)

    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
    sys.setrecursionlimit(1_000_000)
    threading.stack_size(512 * 1024 * 1024)
    try:
        worker = threading.Thread(target=work)
        worker.start()
    finally:
        threading.stack_size(old_stack)
    worker.join()
    sys.setrecursionlimit(old_limit)
    return result["value"]


def cpu_seconds(engine: str, n: int) -> float:
    """CPU seconds of one run, the collector off for micrograd, torch and ast.parse (gradwalk
    pauses it itself)."""
    def timed() -> float:
        was = gc.isenabled()
        if engine in ("micrograd", "torch", "ast.parse"):   # gradwalk pauses it itself
            gc.disable()
        start = time.process_time()
        try:
            RUN[engine](n)
            return time.process_time() - start
        finally:
            if was:
                gc.enable()
            gc.collect()
    return on_big_stack(timed)


def per_node_us(n: int, repeats: int = 3, engines=ENGINES) -> dict[str, float]:
    """µs of CPU per node for each engine, best of `repeats`, the engines interleaved so a
    change in the machine's load touches them alike."""
    best = {e: float("inf") for e in engines}
    for engine in engines:   # warm imports and caches
        cpu_seconds(engine, 400)
    for _ in range(repeats):
        for engine in engines:
            best[engine] = min(best[engine], cpu_seconds(engine, n))
    return {e: best[e] / nodes(n) * 1e6 for e in engines}


def peak_bytes_per_node(engine: str, n: int) -> float:
    """Peak memory per node of one run in a fresh process (bytes)."""
    out = subprocess.run([sys.executable, "-m", "bench.chain", "--memory", engine, str(n)],
                         capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def _memory(engine: str, n: int) -> None:
    RUN[engine](400)   # imports and caches, outside the figure
    gc.collect()
    with open("/proc/self/statm") as f:
        before = int(f.read().split()[1]) * resource.getpagesize()
    on_big_stack(lambda: (gc.disable(), RUN[engine](n)))
    peak = _peak_rss()
    print(max(peak - before, 0) / nodes(n))


def _peak_rss() -> int:
    """This process's peak resident set (bytes): VmHWM, which starts afresh at exec (ru_maxrss
    keeps the parent's peak across fork and exec on Linux)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def main(argv: list[str]) -> None:
    if argv[:1] == ["--memory"]:
        _memory(argv[1], int(argv[2]))
        return
    n = int(argv[0]) if argv else 100_000
    for engine, us in per_node_us(n).items():
        print(f"{engine:12s} {nodes(n):>7,} nodes  {us:6.2f} µs/node")


if __name__ == "__main__":
    main(sys.argv[1:])
