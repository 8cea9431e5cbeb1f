"""Trace slots and worker threads, awaited on the event loop so that no thread ever waits.

A request waits for one of max_concurrent_traces slots as an async task (holding no thread), and
only once it holds a slot does its numpy work go to a worker thread. Reading and validating the
body and parsing the program also run in worker threads, from their own small pool, so neither
they nor the traces can take the threads that static files use, and the event loop is never
blocked: the page and the health check keep answering while traces run.

A stream's trace (`produce`) runs in a task of its own that holds the slot only while the thread
computes: the thread hands its pieces to a Feed that never waits, and the response sends them
from there, so a client that stops reading holds no slot and no thread.
"""
from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from typing import Callable, TypeVar

import anyio
import anyio.to_thread

from server.tracing import ClientGone, ServerBusy

T = TypeVar("T")
PREPARE_THREADS = 4   # body validation and parsing at once (threads); they are quick
log = logging.getLogger("gradwalk")


class TraceSlots:
    """count: traces computed at once. Create one per app (the lifespan of its event loop)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._slots = anyio.Semaphore(count)
        self._trace_threads = anyio.CapacityLimiter(count)
        self._prepare_threads = anyio.CapacityLimiter(PREPARE_THREADS)
        self._producers: set[asyncio.Task] = set()

    @property
    def taken(self) -> int:
        """How many slots are held now."""
        return self.count - self._slots.value

    async def prepare(self, fn: Callable[..., T], *args) -> T:
        """fn(*args) in a worker thread, without a slot (validation, parsing)."""
        return await anyio.to_thread.run_sync(fn, *args, limiter=self._prepare_threads)

    async def _acquire(self, timeout: float) -> None:
        """Take a slot; raises ServerBusy after `timeout` seconds without one."""
        acquired = False
        with anyio.move_on_after(timeout):
            await self._slots.acquire()
            acquired = True
        if not acquired:
            raise ServerBusy()

    @contextlib.asynccontextmanager
    async def held(self, timeout: float):
        """Hold a slot; raises ServerBusy after `timeout` seconds without one."""
        await self._acquire(timeout)
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

    async def produce(self, timeout: float, fn: Callable[..., object], *args) -> Feed:
        """Start fn(*args, put, check) in a worker thread holding a slot, and return the Feed
        it writes to. Raises ServerBusy after `timeout` seconds without a slot.

        fn calls put(piece) for each piece it makes and check() between pieces of work; check
        raises ClientGone once the feed was stopped (its client went away). The thread runs in
        a task of its own, which releases the slot as soon as fn returns, whether the feed
        was read or not: the slot never waits on the reader.
        """
        await self._acquire(timeout)
        feed = Feed()   # from here to the task, nothing awaits: the slot cannot be lost
        task = asyncio.get_running_loop().create_task(
            anyio.to_thread.run_sync(fn, *args, feed.put, feed.check,
                                     limiter=self._trace_threads))
        self._producers.add(task)   # the loop keeps only a weak reference to a task
        task.add_done_callback(lambda done: self._produced(done, feed))
        return feed

    def _produced(self, task: asyncio.Task, feed: Feed) -> None:
        self._producers.discard(task)
        self._slots.release()
        feed.end()
        if not task.cancelled() and task.exception() is not None:
            log.error("the stream's producer failed", exc_info=task.exception())


class Feed:
    """Pieces of a response made in a worker thread, handed to the event loop as they come.

    The thread calls `put` (it never waits: the pieces queue in a deque, which the trace limits
    bound, max_response_bytes) and `check`; the loop reads the pieces with `async for` until
    the producer has ended, and calls `stop` when it no longer wants them. The loop is woken
    once per piece (call_soon_threadsafe); pieces are tens of kilobytes, not single events.
    """

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._pieces: collections.deque[bytes] = collections.deque()
        self._ready = asyncio.Event()
        self._ended = False
        self.stopped = False

    # ---- the producer's side (a worker thread) ----
    def put(self, piece: bytes) -> None:
        if self.stopped:
            return
        self._pieces.append(piece)
        try:
            self._loop.call_soon_threadsafe(self._ready.set)
        except RuntimeError:   # the loop has closed (shutdown): nobody will read
            self.stopped = True

    def check(self) -> None:
        """Raises ClientGone once the reader has stopped."""
        if self.stopped:
            raise ClientGone()

    # ---- the event loop's side ----
    def end(self) -> None:
        """The producer has returned: nothing more will come."""
        self._ended = True
        self._ready.set()

    def stop(self) -> None:
        """The reader is gone: the producer stops at its next check, queued pieces are freed."""
        self.stopped = True
        self._pieces.clear()

    def __aiter__(self) -> Feed:
        return self

    async def __anext__(self) -> bytes:
        """The next piece, waiting for it; StopAsyncIteration once the producer has ended and
        every piece was read."""
        while not self._pieces:
            if self._ended:
                raise StopAsyncIteration
            self._ready.clear()
            if not self._pieces:   # else a piece came between the look and the clear
                await self._ready.wait()
        return self._pieces.popleft()
