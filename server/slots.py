"""Trace slots and worker threads, awaited on the event loop so that no thread ever waits.

A request waits for one of max_concurrent_traces slots as an async task (holding no thread), and
only once it holds a slot does its numpy work go to a worker thread. Reading and validating the
body and parsing the program also run in worker threads, from their own small pool, so neither
they nor the traces can take the threads that static files use, and the event loop is never
blocked: the page and the health check keep answering while traces run.
"""
from __future__ import annotations

import contextlib
from typing import Callable, TypeVar

import anyio
import anyio.to_thread

from server.tracing import ServerBusy

T = TypeVar("T")
PREPARE_THREADS = 4   # body validation and parsing at once (threads); they are quick


class TraceSlots:
    """count: traces computed at once. Create one per app (the lifespan of its event loop)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._slots = anyio.Semaphore(count)
        self._trace_threads = anyio.CapacityLimiter(count)
        self._prepare_threads = anyio.CapacityLimiter(PREPARE_THREADS)

    @property
    def taken(self) -> int:
        """How many slots are held now."""
        return self.count - self._slots.value

    async def prepare(self, fn: Callable[..., T], *args) -> T:
        """fn(*args) in a worker thread, without a slot (validation, parsing)."""
        return await anyio.to_thread.run_sync(fn, *args, limiter=self._prepare_threads)

    @contextlib.asynccontextmanager
    async def held(self, timeout: float):
        """Hold a slot; raises ServerBusy after `timeout` seconds without one."""
        acquired = False
        with anyio.move_on_after(timeout):
            await self._slots.acquire()
            acquired = True
        if not acquired:
            raise ServerBusy()
        try:
            yield
        finally:
            self._slots.release()

    async def trace(self, timeout: float, fn: Callable[..., T], *args) -> T:
        """fn(*args) in a worker thread while holding a slot (see `held`). Raises ServerBusy.

        If the request is cancelled (its client went away), fn can stop early by calling
        anyio.from_thread.check_cancelled(); the slot is freed when fn returns.
        """
        async with self.held(timeout):
            return await anyio.to_thread.run_sync(fn, *args, limiter=self._trace_threads)
