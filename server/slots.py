"""Trace slots, the queue in front of them, and worker threads, awaited on the event loop so
that no thread ever waits.

A request first takes a share of the queue (max_queued_bytes: its body's bytes, known from
Content-Length): what waits before a slot (bodies being read and validated, programs being
parsed, parsed programs waiting for a slot) is bounded together, and a request that finds the
queue full is answered 503 `busy` at once. Once its body has arrived it has
busy_timeout_seconds to get through validation, parsing and the wait for one of
max_concurrent_traces slots; past that it is answered `busy` too, before any more work is done
for it (issue 14: 200 streams of a 30,000-node chain had the server parse for 88 s and hold
1 GB). The waits are async tasks holding no thread; the work runs in worker threads from two
pools, so neither can take the threads that static files use and the event loop is never
blocked.

A stream's trace (`produce`) runs in a task of its own that holds the slot only while the thread
computes: the thread hands its pieces to a Feed that never waits (server/feed.py), so a client
that stops reading holds no slot and no thread. When the last slot and the queue are free the
heap's free pages are given back (server/memory.py).
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import AsyncIterator, Callable, TypeVar

import anyio
import anyio.to_thread

from engine.parse import Program
from server.feed import Feed, StreamBudget
from server.memory import free_in_pieces, give_back_soon
from server.tracing import ServerBusy

T = TypeVar("T")
PREPARE_THREADS = 4   # body validation and parsing at once (threads); they are quick
MIN_QUEUED_BYTES = 1024   # a request's share of the queue however small its body (bytes)
log = logging.getLogger("gradwalk")


class TraceSlots:
    """count: traces computed at once; queue_bytes: request bodies between their arrival and a
    slot, together (bytes); buffer_bytes: stream bytes not yet read by their clients, together
    (bytes, server/feed.py). Create one per app (the lifespan of its event loop)."""

    def __init__(self, count: int, queue_bytes: int = 1 << 62,
                 buffer_bytes: int = 1 << 62) -> None:
        self.count = count
        self.queue_bytes = queue_bytes
        self.queued = 0   # bytes of the requests admitted and not yet in a slot
        self.streams = StreamBudget(buffer_bytes)
        self._slots = anyio.Semaphore(count)
        self._trace_threads = anyio.CapacityLimiter(count)
        self._prepare_gate = anyio.Semaphore(PREPARE_THREADS)   # waited on with a deadline
        self._prepare_threads = anyio.CapacityLimiter(PREPARE_THREADS)
        self._producers: set[asyncio.Task] = set()

    @property
    def taken(self) -> int:
        """How many slots are held now."""
        return self.count - self._slots.value

    @contextlib.asynccontextmanager
    async def waiting(self, body_bytes: int, timeout: float) -> AsyncIterator[Waiting]:
        """A share of the queue for a request whose body has body_bytes (capped at the queue's
        size, so a lone request always fits), until it holds a slot or ends. Raises ServerBusy
        at once when the queue is full; `timeout` is the busy timeout (see Waiting)."""
        weight = min(max(body_bytes, MIN_QUEUED_BYTES), self.queue_bytes)
        if self.queued + weight > self.queue_bytes:
            raise ServerBusy()
        self.queued += weight
        wait = Waiting(self, weight, timeout)
        try:
            yield wait
        finally:
            wait.leave()

    def _left_queue(self) -> None:
        if self.queued == 0 and self.taken == 0:
            give_back_soon()   # the load has gone: hand its memory back

    def _release(self) -> None:
        self._slots.release()
        self._left_queue()

    async def _acquire(self, timeout: float) -> None:
        """Take a slot; raises ServerBusy after `timeout` seconds without one."""
        await _take(self._slots, timeout)

    @contextlib.asynccontextmanager
    async def held(self, timeout: float):
        """Hold a slot; raises ServerBusy after `timeout` seconds without one."""
        await self._acquire(timeout)
        try:
            yield
        finally:
            self._release()

    async def _prepare(self, timeout: float, fn: Callable[..., T], *args) -> T:
        """fn(*args) in a preparing thread, once one is free within `timeout` seconds; raises
        ServerBusy after that. Once started, fn runs to its end."""
        await _take(self._prepare_gate, timeout)
        try:
            return await anyio.to_thread.run_sync(fn, *args, limiter=self._prepare_threads)
        finally:
            self._prepare_gate.release()

    async def _produce(self, timeout: float, fn: Callable[..., object], *args) -> Feed:
        await self._acquire(timeout)
        feed = Feed(self.streams)   # from here to the task, nothing awaits: the slot is kept
        task = asyncio.get_running_loop().create_task(
            anyio.to_thread.run_sync(_freeing, fn, *args, feed.put, feed.check,
                                     limiter=self._trace_threads))
        self._producers.add(task)   # the loop keeps only a weak reference to a task
        task.add_done_callback(lambda done: self._produced(done, feed))
        return feed

    def _produced(self, task: asyncio.Task, feed: Feed) -> None:
        self._producers.discard(task)
        self._release()
        feed.end()
        if not task.cancelled() and task.exception() is not None:
            log.error("the stream's producer failed", exc_info=task.exception())


def _freeing(fn: Callable[..., T], *args) -> T:
    """fn(*args), then each parsed program among args freed in slices, here in the worker
    thread (server/memory.py free_in_pieces): left to its last reference, a big one is freed
    in one stretch that holds the GIL, on the event loop's thread when that was the route's."""
    try:
        return fn(*args)
    finally:
        for arg in args:
            if isinstance(arg, Program):
                free_in_pieces(arg)


async def _take(semaphore: anyio.Semaphore, timeout: float) -> None:
    """Acquire semaphore; raises ServerBusy after `timeout` seconds without it (a free one is
    taken even when no time is left)."""
    with contextlib.suppress(anyio.WouldBlock):
        return semaphore.acquire_nowait()
    acquired = False
    with anyio.move_on_after(max(timeout, 0)):
        await semaphore.acquire()
        acquired = True
    if not acquired:
        raise ServerBusy()


class Waiting:
    """One request between its arrival and its trace slot (TraceSlots.waiting): its share of
    the queue, and its busy deadline, `timeout` seconds after `start` (its body has arrived).
    Every method raises ServerBusy when the deadline passes before its work can start."""

    def __init__(self, slots: TraceSlots, weight: int, timeout: float) -> None:
        self.slots, self.weight, self.timeout = slots, weight, timeout
        self.deadline = anyio.current_time() + timeout

    def start(self) -> None:
        """The body has arrived: the busy timeout runs from now."""
        self.deadline = anyio.current_time() + self.timeout

    def left(self) -> float:
        return self.deadline - anyio.current_time()

    def leave(self) -> None:
        """Give the queue share back (once; the request holds a slot or has ended)."""
        if self.weight:
            self.slots.queued -= self.weight
            self.weight = 0
            self.slots._left_queue()

    async def prepare(self, fn: Callable[..., T], *args) -> T:
        """fn(*args) in a worker thread, without a slot (validation, parsing)."""
        return await self.slots._prepare(self.left(), fn, *args)

    async def trace(self, fn: Callable[..., T], *args) -> T:
        """fn(*args) in a worker thread while holding a slot, taken before the deadline.

        If the request is cancelled (its client went away), fn can stop early by calling
        anyio.from_thread.check_cancelled(); the slot is freed when fn returns.
        """
        async with self.slots.held(self.left()):
            self.leave()
            return await anyio.to_thread.run_sync(_freeing, fn, *args,
                                                  limiter=self.slots._trace_threads)

    async def produce(self, fn: Callable[..., object], *args) -> Feed:
        """Start fn(*args, put, check) in a worker thread holding a slot taken before the
        deadline, and return the Feed it writes to.

        fn calls put(piece) for each piece it makes and check() between pieces of work; check
        raises ClientGone once the feed was stopped (its client went away, or it was dropped
        for being too far behind). The thread runs in a task of its own, which releases the
        slot as soon as fn returns, whether the feed was read or not: the slot never waits on
        the reader.
        """
        feed = await self.slots._produce(self.left(), fn, *args)
        self.leave()
        return feed
