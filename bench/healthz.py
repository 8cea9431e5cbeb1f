"""/healthz beside two concurrent 60,000-node chain traces (issue 14: under 100 ms under load).

A fresh connection asks /healthz every 50 ms, as an orchestrator does, while two clients
trace a 60,000-line chain (POST /api/trace) and for a second after their answers (when the
server gives the traces' memory back), on a real `gradwalk serve` with the default settings
(but the program size and trace timeout the chain needs). Reports the probes' median, 95th and
99th percentiles and the slowest, the slowest after the answers, with the machine's load. The traces' 56 MB answers
are read but not parsed: json.loads of one holds this process's GIL for about a second, which
the prober, a thread of this process, would count as the server's.

--watch runs the server under bench/loopwatch.py and adds what its event loop was doing each
time it was 20 ms late, grouped by place (the server pays a wake-up every 5 ms for it).
--threads runs the traces in threads of the server (GRADWALK_TRACE_PROCESSES=false).

    .venv/bin/python -m bench.healthz [--rounds N] [--watch] [--threads]
"""
from __future__ import annotations

import collections
import json
import os
import pathlib
import re
import statistics
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "server")]
from bench.machine import describe  # noqa: E402
from server_process import chain, health_beside_traces, served  # noqa: E402

BIG = {"max_program_chars": 5_000_000, "trace_timeout_seconds": 300}
INTERVAL_SECONDS = 0.05


def probe(tmp: pathlib.Path, processes: bool = True,
          watch: bool = False) -> tuple[list, list, str]:
    """(the probes' seconds, those of the probes after the answers, the server's log) beside
    two 60,000-node traces."""
    body = json.dumps({"program": chain(60_000)}).encode()
    module = "bench.loopwatch" if watch else "gradwalk.server.cli"
    with served(tmp, module=module, **BIG, trace_processes=processes) as server:
        tail: list = []
        seconds, answers = health_beside_traces(server.url, body, INTERVAL_SECONDS, tail=tail)
    assert [status for status, _ in answers] == [200, 200]
    return seconds, tail, (tmp / "server.log").read_text()


def figures(seconds: list) -> str:
    ms = sorted(s * 1e3 for s in seconds)
    return (f"median {statistics.median(ms):.1f} ms, p95 {ms[int(len(ms) * 0.95)]:.1f} ms, "
            f"p99 {ms[int(len(ms) * 0.99)]:.1f} ms, max {ms[-1]:.1f} ms ({len(ms)} probes)")


def late_places(log: str, top: int = 6) -> list[str]:
    """bench/loopwatch.py's lines grouped by place: count, total and slowest (ms)."""
    places: dict[str, list[float]] = collections.defaultdict(list)
    for ms, where in re.findall(r"loop late (\d+) ms in ([^[]*)", log):
        places[where].append(float(ms))
    ranked = sorted(places.items(), key=lambda p: -sum(p[1]))[:top]
    threads: dict[str, float] = collections.defaultdict(float)
    for name, ms in re.findall(r"([\w-]+) (\d+) ms(?=[,\]])", log):
        threads[name] += float(ms)
    return [*(f"  {len(v)} x, {sum(v):.0f} ms in all, slowest {max(v):.0f} ms: {where}"
              for where, v in ranked),
            "  CPU of the server's threads while the loop was late: " + (", ".join(
                f"{name} {ms:.0f} ms" for name, ms in threads.items()) or "none")]


def main(args: list[str]) -> None:
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 1
    watch, processes = "--watch" in args, "--threads" not in args
    machine = describe()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {machine['cores']} cores "
          f"({machine['cpu']}), {machine['python']}, traces in "
          f"{'processes' if processes else 'threads'}{', loop watched' if watch else ''}")
    for _ in range(rounds):
        load = os.getloadavg()[0]
        with tempfile.TemporaryDirectory() as tmp:
            seconds, tail, log = probe(pathlib.Path(tmp), processes, watch)
        print(f"load {load:.1f}-{os.getloadavg()[0]:.1f}: {figures(seconds)}; after the "
              f"answers, slowest {max(tail) * 1e3:.1f} ms ({len(tail)} probes)", flush=True)
        if watch:
            print("\n".join(late_places(log)) or "  the loop was never 20 ms late")


if __name__ == "__main__":
    main(sys.argv[1:])
