"""server/procs.py: the pool of trace worker processes, driven on an event loop of its own
(no server): values, errors and pieces come back as they were made; stopping, cancelling and
retiring end the process; there are never more processes than the pool's size. A handful of
short-lived workers; every pool is closed in a `finally`."""
from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import time

import pytest

import worker_tasks as tasks
from gradwalk.engine.errors import ProgramError
from gradwalk.server import procs
from gradwalk.server.procs import Pool, WorkerFailed


async def _gone(pid: int, seconds: float = 5.0) -> bool:
    """True once process `pid` has ended (its forkserver reaps it), within `seconds`. Waits
    on the event loop, which closes the worker's channel."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        await asyncio.sleep(0.05)   # polling the process table
    return False


def _with_pool(size: int, work, nice: int = 0) -> None:
    """asyncio.run(work(pool)) with a fresh pool of `size` (its workers `nice` lower in CPU
    priority than this process), closed whatever happens. In a
    thread of its own: in the whole suite an earlier browser test's (Playwright's sync API)
    event loop may still be this thread's running loop, where asyncio.run refuses to start."""
    async def main() -> None:
        pool = Pool(size, nice)
        try:
            await work(pool)
        finally:
            pool.close()

    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, main()).result()


def test_values_program_errors_and_failures_come_back_as_they_were():
    async def work(pool: Pool) -> None:
        assert await pool.run(tasks.add, (2, 3)) == 5
        with pytest.raises(ProgramError) as error:
            await pool.run(tasks.program_error, ())
        assert (error.value.kind, error.value.line, error.value.col) == ("syntax", 3, 4)
        with pytest.raises(WorkerFailed, match="ZeroDivisionError: float division by zero"):
            await pool.run(tasks.divide, (1.0, 0.0))
        size = 2 * procs.worker_process.PART_BYTES + 123
        assert await pool.run(tasks.blob, (size,)) == tasks.blob(size)   # joined
        parts = await pool.run(tasks.blob, (size,), parts=True)
        assert [len(p) for p in parts] == [procs.worker_process.PART_BYTES] * 2 + [123]
        assert b"".join(parts) == tasks.blob(size)
        assert pool.processes == 1   # one worker did all of it, failures included

    _with_pool(1, work)


def test_a_worker_runs_as_much_nicer_than_the_server_as_its_pool_says():
    # 3 and 0, not the default 10: this process may itself run at nice 10 (a niced bench or
    # CI), and the kernel caps a nice at 19. The setting's way to the pool: test_settings.py.
    for nice in (3, 0):
        async def work(pool: Pool) -> None:
            assert await pool.run(tasks.niceness, ()) == min(os.nice(0) + nice, 19)

        _with_pool(1, work, nice)


def test_the_workers_log_records_are_the_servers(caplog):
    async def work(pool: Pool) -> None:
        with caplog.at_level(logging.INFO, logger="gradwalk"):
            assert await pool.run(tasks.warn, ("hello",)) == 1
        (record,) = [r for r in caplog.records if r.name == "gradwalk"]
        assert record.levelno == logging.WARNING and record.getMessage() == \
            "from the worker: hello"

    _with_pool(1, work)


def test_pieces_come_in_order_and_a_stopped_stream_ends_at_its_next_check():
    async def work(pool: Pool) -> None:
        pieces: list[bytes] = []
        assert await pool.run(tasks.count, (5, 0.0), put=pieces.append) == 5
        assert pieces == [b"0", b"1", b"2", b"3", b"4"]
        first = await pool.run(tasks.pid, ())
        pieces.clear()
        stopping = asyncio.Event()

        def put(piece: bytes) -> None:
            pieces.append(piece)
            if len(pieces) == 3:
                stopping.set()   # as Feed.stop does when the client goes

        start = time.monotonic()
        assert await pool.run(tasks.count, (1000, 0.01), put=put, stopping=stopping) is None
        assert 3 <= len(pieces) < 50 and time.monotonic() - start < 5
        assert await pool.run(tasks.pid, ()) == first   # stopped, not killed: the same worker

    _with_pool(1, work)


def test_a_worker_that_does_not_stop_is_killed_after_the_grace(monkeypatch):
    monkeypatch.setattr(procs, "STOP_GRACE_SECONDS", 0.2)

    async def work(pool: Pool) -> None:
        first = await pool.run(tasks.pid, ())
        stopping = asyncio.Event()
        start = time.monotonic()
        result = await pool.run(tasks.deaf, (30.0,), put=lambda piece: stopping.set(),
                                stopping=stopping)
        assert result is None and time.monotonic() - start < 5
        assert await _gone(first) and pool.processes == 0
        assert await pool.run(tasks.add, (1, 1)) == 2   # a new worker
        assert await pool.run(tasks.pid, ()) != first

    _with_pool(1, work)


def test_a_cancelled_task_kills_its_worker():
    async def work(pool: Pool) -> None:
        first = await pool.run(tasks.pid, ())
        task = asyncio.ensure_future(pool.run(tasks.sleep, (30.0,)))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await _gone(first) and pool.processes == 0
        assert await pool.run(tasks.add, (2, 2)) == 4

    _with_pool(1, work)


def test_no_more_workers_than_the_size_and_each_retired_after_its_tasks(monkeypatch):
    monkeypatch.setattr(procs, "MAX_TASKS_PER_WORKER", 3)

    async def work(pool: Pool) -> None:
        pids = [await pool.run(tasks.pid, ()) for _ in range(4)]
        assert pids[0] == pids[1] == pids[2] != pids[3]   # the 4th: a fresh process
        assert await _gone(pids[0])
        busy = [asyncio.ensure_future(pool.run(tasks.sleep, (0.5,))) for _ in range(2)]
        await asyncio.sleep(0.1)
        with pytest.raises(WorkerFailed, match="all 2 trace workers are busy"):
            await pool.run(tasks.add, (1, 2))   # the slots never ask this; refused if asked
        await asyncio.gather(*busy)
        assert pool.processes == 2

    _with_pool(2, work)


def test_an_idle_worker_is_retired(monkeypatch):
    monkeypatch.setattr(procs, "IDLE_SECONDS", 0.2)

    async def work(pool: Pool) -> None:
        first = await pool.run(tasks.pid, ())
        await asyncio.sleep(0.5)
        assert pool.processes == 0 and await _gone(first)

    _with_pool(1, work)


def test_a_worker_that_grew_in_a_task_is_retired_after_it(monkeypatch):
    # What a big trace leaves in a worker's heap goes with the process (RETIRE_GROWTH_BYTES).
    async def work(pool: Pool) -> None:
        first = await pool.run(tasks.pid, ())
        assert await pool.run(tasks.pid, ()) == first   # small tasks: the same worker
        assert await pool.run(tasks.hold, (200 * 1024 * 1024,)) == 1   # grows it by 200 MB
        assert await _gone(first) and pool.processes == 0
        assert await pool.run(tasks.pid, ()) != first

    _with_pool(1, work)
