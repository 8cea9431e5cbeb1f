"""`gradwalk serve` with a watcher of its event loop, for bench/healthz.py --watch.

A thread hands the loop a callback every 5 ms; when the loop has not run it within LATE_SECONDS
the thread takes the main thread's stack (what the loop is doing meanwhile) and, when the
callback has run, writes one line to stderr: `loop late <ms> ms in <innermost frames> [the
threads that used CPU meanwhile]`. A loop found in uvloop's `run` (its C code: the selector,
socket I/O) with no thread using CPU meanwhile was waiting for a core. (A measuring instrument: it costs the server a wake-up every 5 ms.)

    python -m bench.loopwatch serve ...   (from the repository's root)
"""
from __future__ import annotations

import asyncio
import os
import pathlib
import sys
import threading
import time
import traceback

from gradwalk.server import main as server_main
from gradwalk.server.cli import main

TICK_SECONDS = 0.005
LATE_SECONDS = 0.02
FRAMES = 4   # innermost frames named in a line
TICKS = os.sysconf("SC_CLK_TCK")   # of /proc's CPU times
_create_app = server_main.create_app


def _where(frame) -> str:
    if frame is None:
        return "no Python frame"
    stack = traceback.extract_stack(frame)[-FRAMES:]
    return " < ".join(f"{f.name} ({f.filename.rsplit('/', 2)[-1]}:{f.lineno})"
                      for f in reversed(stack))


def _watch(loop: asyncio.AbstractEventLoop, main_id: int) -> None:
    while not loop.is_closed():
        time.sleep(TICK_SECONDS)
        ran, posted = threading.Event(), time.monotonic()
        try:
            loop.call_soon_threadsafe(ran.set)
        except RuntimeError:   # closed meanwhile
            return
        if ran.wait(LATE_SECONDS):
            continue
        where = _where(sys._current_frames().get(main_id))
        before = _cpu_by_thread()
        ran.wait()
        late = time.monotonic() - posted
        print(f"loop late {late * 1e3:.0f} ms in {where} [{_ran(before)}]", file=sys.stderr,
              flush=True)


def _cpu_by_thread() -> dict[int, float]:
    """Each thread's CPU seconds so far (user + system, /proc/self/task/<tid>/stat)."""
    seconds = {}
    for task in pathlib.Path("/proc/self/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:   # ended meanwhile
            continue
        seconds[int(task.name)] = (int(fields[11]) + int(fields[12])) / TICKS
    return seconds


def _ran(before: dict[int, float]) -> str:
    """The threads that used CPU since `before`, by name: who ran while the loop waited."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    after = _cpu_by_thread()
    used = {names.get(tid, str(tid)): after[tid] - s for tid, s in before.items() if tid in after}
    return ", ".join(f"{name} {cpu * 1e3:.0f} ms" for name, cpu in used.items() if cpu > 0)


def create_app():
    threading.Thread(target=_watch, args=(asyncio.get_running_loop(), threading.get_ident()),
                     name="loopwatch", daemon=True).start()
    return _create_app()


server_main.create_app = create_app   # what uvicorn's factory string names

if __name__ == "__main__":
    sys.exit(main())
