"""Processes pinned to CPUs, to tell a benchmark's client from its server on a 2-core machine.

bench/live.py --pin runs its client on one core and the server (its processes, every thread
of each, and with --postgres the PostgreSQL cluster's processes) on the other: the client's
CPU then never delays the server's, and what the client adds to a step's latency shows as the
difference from an unpinned run. Other processes on the machine still run on both cores.
"""
from __future__ import annotations

import contextlib
import os
import pathlib

import sqlalchemy as sa


def pin(pids: list[int], cpu: int) -> int:
    """Every thread of each process in `pids` onto `cpu` (sched_setaffinity is per thread:
    /proc/PID/task). -> how many threads were pinned (a process gone meanwhile is skipped)."""
    pinned = 0
    for pid in pids:
        for task in pathlib.Path(f"/proc/{pid}/task").glob("[0-9]*"):
            with contextlib.suppress(OSError):
                os.sched_setaffinity(int(task.name), {cpu})
                pinned += 1
    return pinned


def postgres_pids(url: str) -> list[int]:
    """The PostgreSQL cluster's processes at SQLAlchemy `url`: its postmaster (the first line
    of postmaster.pid in its data directory) and every process under it, which includes the
    backends of the connections already open (a backend forked later inherits the
    postmaster's CPUs)."""
    from server_process import descendants   # tests/server, on bench/live.py's path

    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            data = conn.scalar(sa.text("SHOW data_directory"))
    finally:
        engine.dispose()
    postmaster = int((pathlib.Path(data) / "postmaster.pid").read_text().split()[0])
    return [postmaster, *descendants(postmaster)]
