"""Issue 14's load cases at full size on a real `gradwalk serve`, with the default settings:

- memory: 16 clients that never read, each streaming a 60,000-node chain (started one after
  another, so the queue in front of the slots admits each); the server's RSS and the memory of
  the server with its trace workers (summed PSS) before, at the peak, and 5 s after they have
  closed; how many streams were dropped (GRADWALK_MAX_STREAM_BUFFER_BYTES).
- queue: 200 concurrent streams of a 30,000-node chain: how many started (200) or were refused
  (503 `busy`), when the last one had its answer, the server's CPU seconds, RSS at the end
  and 5 s later.
- health: /healthz on a fresh connection every 50 ms beside two 60,000-node traces: median,
  95th and 99th percentiles and slowest (target: under 100 ms); bench/healthz.py's probe,
  which also watches the event loop (--watch).

memory and health run twice, alternating, on the same code: with the traces in worker
processes (the default) and in threads of the server (GRADWALK_TRACE_PROCESSES=false, as
before issue 14's last fix).
- shutdown: SIGTERM with four slow stream readers of a 60,000-node chain: seconds to exit
  (GRADWALK_SHUTDOWN_TIMEOUT_SECONDS, 5).

    .venv/bin/python -m bench.limits [memory queue health shutdown] [--rounds N]

The bounded versions of these are the tests of tests/server/test_stream_limits.py.
"""
from __future__ import annotations

import asyncio
import json
import os
import pathlib
import signal
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "server")]
from bench.healthz import figures, probe  # noqa: E402
from bench.machine import describe  # noqa: E402
from server_process import (chain, post, raw_request, served,  # noqa: E402
                            stream_head)
from test_stream_limits import _slow_reader, _stalled  # noqa: E402

MB = 1e6
BIG = {"max_program_chars": 5_000_000, "trace_timeout_seconds": 300}


def _cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _memory(server) -> tuple[float, float]:
    """(the server's RSS, the server's and its workers' summed PSS), in MB."""
    return server.rss() / MB, server.family_memory() / MB


def memory(tmp: pathlib.Path, processes: bool) -> str:
    body = json.dumps({"program": chain(60_000)}).encode()
    with served(tmp, **BIG, busy_timeout_seconds=300, trace_processes=processes) as server:
        post(f"{server.url}/api/trace", {"program": chain(100)})   # warm-up: a worker's imports
        time.sleep(1)
        before = peak = _memory(server)
        socks = []
        for _ in range(16):
            socks += _stalled(server, body, 1)
            peak = tuple(map(max, peak, _memory(server)))
        for _ in range(40):   # the last traces finish into their feeds
            time.sleep(0.25)
            peak = tuple(map(max, peak, _memory(server)))
        for sock in socks:
            sock.close()
        time.sleep(5)
        after = _memory(server)
    dropped = (tmp / "server.log").read_text().count("stream dropped")
    return (f"| 16 unread streams of a 60,000-node chain, traces in "
            f"{'processes' if processes else 'threads'} | server RSS {before[0]:.0f} MB before, "
            f"{peak[0]:.0f} MB at the peak, {after[0]:.0f} MB 5 s after they closed; server "
            f"and workers (PSS) {before[1]:.0f}, {peak[1]:.0f}, {after[1]:.0f} MB "
            f"({after[1] / before[1]:.2f} x before); {dropped} of 16 dropped |")


async def _one_stream(port: int, request: bytes, answers: list) -> None:
    start = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        status = (await reader.readline()).split()[1].decode()
        answers.append((status, time.monotonic() - start))
    except (OSError, IndexError) as e:
        answers.append((type(e).__name__, time.monotonic() - start))
    finally:
        writer.close()


def queue(tmp: pathlib.Path) -> str:
    body = json.dumps({"program": chain(30_000)}).encode()
    with served(tmp, **BIG) as server:
        request = stream_head(server.port, body).encode() + b"\r\n\r\n" + body
        cpu, answers = _cpu_seconds(server.proc.pid), []

        async def run() -> None:
            await asyncio.gather(*(_one_stream(server.port, request, answers)
                                   for _ in range(200)))

        asyncio.run(run())
        cpu = _cpu_seconds(server.proc.pid) - cpu
        end = server.rss()
        time.sleep(5)
        later = server.rss()
    counts = {s: sum(1 for a, _ in answers if a == s) for s in {a for a, _ in answers}}
    last = max(t for _, t in answers)
    return (f"| 200 concurrent streams of a 30,000-node chain | {counts}; the last answer "
            f"after {last:.1f} s; server CPU {cpu:.1f} s; RSS {end / MB:.0f} MB at the end, "
            f"{later / MB:.0f} MB 5 s later |")


def health(tmp: pathlib.Path, processes: bool) -> str:
    seconds, _ = probe(tmp, processes)
    return (f"| /healthz beside two 60,000-node traces in "
            f"{'processes' if processes else 'threads'} | {figures(seconds)} |")


def shutdown(tmp: pathlib.Path) -> str:
    body = json.dumps({"program": chain(60_000)}).encode()
    stop, started = threading.Event(), []
    with served(tmp, **BIG) as server:
        socks = [raw_request(server.port, stream_head(server.port, body), body, rcvbuf=16384)
                 for _ in range(4)]
        for sock in socks:
            threading.Thread(target=_slow_reader, args=(sock, stop, started)).start()
        while len(started) < 2:
            time.sleep(0.05)
        start = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        status = server.proc.wait(timeout=120)
        took = time.monotonic() - start
        stop.set()
    return (f"| SIGTERM with four slow stream readers (setting 5 s) | exited after "
            f"{took:.2f} s, status {status} |")


CASES = {"memory": memory, "queue": queue, "health": health, "shutdown": shutdown}
BOTH_MODES = {"memory", "health"}   # run with the traces in processes, then in threads


def main(args: list[str]) -> None:
    rounds = 1
    if "--rounds" in args:
        at = args.index("--rounds")
        rounds = int(args[at + 1])
        args = args[:at] + args[at + 2:]
    machine = describe()
    print(f"Measured {time.strftime('%Y-%m-%d')} by `python -m bench.limits` on "
          f"{machine['cores']} cores ({machine['cpu']}), {machine['python']}; load "
          f"{machine['load']} at the start.\n")
    print("| case | measured |\n|---|---|")
    for _ in range(rounds):
        for name in args or list(CASES):
            for mode in ((True, False) if name in BOTH_MODES else (None,)):
                with tempfile.TemporaryDirectory() as tmp:
                    run = CASES[name]
                    line = run(pathlib.Path(tmp)) if mode is None else run(pathlib.Path(tmp), mode)
                    print(line, flush=True)
    print(f"\nLoad {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end.")


if __name__ == "__main__":
    main(sys.argv[1:])
