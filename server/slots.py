"""Trace slots, the queue in front of them, and worker threads, awaited on the event loop so
that no thread ever waits.

A request first takes a share of the queue (max_queued_bytes: its body's bytes, known from
Content-Length): what waits before a slot (bodies being read and validated, programs being
parsed, parsed programs waiting for a slot) is bounded together, and a request that finds the
queue full is answered 503 `busy` at once (its body read and discarded first:
server/jsonbody.py queue_share). From its arrival it has
busy_timeout_seconds to get its body, and get through validation, parsing and the wait for one of
max_concurrent_traces slots; past that it is answered `busy` too, before any more work is done
for it (issue 14: 200 streams of a 30,000-node chain had the server parse for 88 s and hold
1 GB). The waits are async tasks holding no thread. Validation (and the parse of a small
program) runs in a few worker threads; each trace runs in a worker process of a pool as large
as the slots (server/procs.py), so its GIL and its heap are not the event loop's (with the
setting trace_processes off, in a worker thread as before). Neither takes the threads that
static files use, and the event loop is never blocked.

A stream's trace (`produce`) runs in a task of its own that holds the slot only while the
worker computes: the worker hands its pieces to a Feed that never waits (server/feed.py), so a
client that stops reading holds no slot and no worker. When the last slot and the queue are
free the heap's free pages are given back (server/memory.py), once a load has been: a trace
slot taken, or GIVE_BACK_BYTES of bodies admitted, since the last time. (After every request
it was a full collection and malloc_trim per live-room step: with 500 live followers in the
process, 40-60 ms holding the GIL, 0.2 s after each step, while the next step fanned out.)
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import AsyncIterator, Callable, TypeVar

import anyio
import anyio.to_thread

from gradwalk.engine.parse import Program
from gradwalk.server.errors import INTERNAL
from gradwalk.server.feed import GIVE_BACK_BYTES, Feed, StreamBudget
from gradwalk.server.memory import free_in_pieces, give_back_soon
from gradwalk.server.procs import Pool
from gradwalk.server.tracing import ServerBusy

T = TypeVar("T")
PREPARE_THREADS = 4   # body validation and parsing at once (threads); they are quick
MIN_QUEUED_BYTES = 1024   # a request's share of the queue however small its body (bytes)
log = logging.getLogger("gradwalk")


class TraceSlots:
    """count: traces computed at once; queue_bytes: request bodies between their arrival and a
    slot, together (bytes); buffer_bytes: stream bytes not yet read by their clients, together
    (bytes, server/feed.py). Create one per app (the lifespan of its event loop); `pool` is
    its trace worker processes, at most `count` (started when first needed), each
    `worker_nice` lower in CPU priority than this process."""

    def __init__(self, count: int, queue_bytes: int = 1 << 62,
                 buffer_bytes: int = 1 << 62, worker_nice: int = 0) -> None:
        self.count = count
        self.queue_bytes = queue_bytes
        self.queued = 0   # bytes of the requests admitted and not yet in a slot
        # the load since the heap was last given back: bodies admitted (bytes), and
        # GIVE_BACK_BYTES for each slot taken (a trace's result passes through this process)
        self.loaded = 0
        self.streams = StreamBudget(buffer_bytes)
        self._slots = anyio.Semaphore(count)
        self._trace_threads = anyio.CapacityLimiter(count)
        self._prepare_gate = anyio.Semaphore(PREPARE_THREADS)   # waited on with a deadline
        self._prepare_threads = anyio.CapacityLimiter(PREPARE_THREADS)
        self._producers: set[asyncio.Task] = set()
        self.pool = Pool(count, worker_nice)

    @property
    def taken(self) -> int:
        """How many slots are held now."""
        return self.count - self._slots.value

    @contextlib.asynccontextmanager
    async def waiting(self, body_bytes: int, timeout: float,
                      processes: bool = True) -> AsyncIterator[Waiting]:
        """A share of the queue for a request whose body has body_bytes (capped at the queue's
        size, so a lone request always fits), until it holds a slot or ends. Raises ServerBusy
        at once when the queue is full; `timeout` is the busy timeout (see Waiting);
        `processes`: its trace runs in a worker process (else a thread)."""
        if not self.has_room(body_bytes):
            raise ServerBusy()
        weight = self._weight(body_bytes)
        self.queued += weight
        self.loaded += weight
        wait = Waiting(self, weight, timeout, processes)
        try:
            yield wait
        finally:
            wait.leave()

    def _weight(self, body_bytes: int) -> int:
        return min(max(body_bytes, MIN_QUEUED_BYTES), self.queue_bytes)

    def has_room(self, body_bytes: int) -> bool:
        """Whether the queue takes a request whose body has body_bytes now."""
        return self.queued + self._weight(body_bytes) <= self.queue_bytes

    def _left_queue(self) -> None:
        if self.queued == 0 and self.taken == 0 and self.loaded >= GIVE_BACK_BYTES:
            self.loaded = 0
            give_back_soon()   # the load has gone: hand its memory back

    def _release(self) -> None:
        self._slots.release()
        self._left_queue()

    async def _acquire(self, timeout: float) -> None:
        """Take a slot; raises ServerBusy after `timeout` seconds without one."""
        await _take(self._slots, timeout)
        self.loaded += GIVE_BACK_BYTES

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

    async def _produce(self, timeout: float, processes: bool, fn: Callable[..., object],
                       *args) -> Feed:
        await self._acquire(timeout)
        feed = Feed(self.streams)   # from here to the task, nothing awaits: the slot is kept
        if processes:
            work = self.pool.run(fn, args, put=feed.arrive, stopping=feed.stopping)
        else:
            work = anyio.to_thread.run_sync(_freeing, fn, *args, feed.put, feed.check,
                                            limiter=self._trace_threads)
        task = asyncio.get_running_loop().create_task(work)
        self._producers.add(task)   # the loop keeps only a weak reference to a task
        task.add_done_callback(lambda done: self._produced(done, feed))
        return feed

    def _produced(self, task: asyncio.Task, feed: Feed) -> None:
        self._producers.discard(task)
        self._release()
        if task.cancelled() or task.exception() is None or feed.stopped:
            feed.end()
            return
        log.error("the stream's producer failed", exc_info=task.exception())
        feed.fail(INTERNAL)   # a stream never just stops: it ends with an `error` event


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
    the queue, and its busy deadline, `timeout` seconds after its arrival (this Waiting made).
    Every method raises ServerBusy when the deadline passes before its work can start."""

    def __init__(self, slots: TraceSlots, weight: int, timeout: float,
                 processes: bool = True) -> None:
        self.slots, self.weight, self.timeout = slots, weight, timeout
        self.processes = processes   # the trace runs in a worker process, else a thread
        self.deadline = anyio.current_time() + timeout

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
        """fn(*args) in a trace worker process (or thread: `processes`) while holding a slot,
        taken before the deadline. fn and args must pickle: a module-level function of plain
        values (server/procs.py). Raises what fn raises (ProgramError as itself; in a process,
        anything else as WorkerFailed).

        If the request is cancelled (the server shuts down), a worker process is killed at
        once; a thread runs fn to its end. The slot is freed when fn has ended.
        """
        async with self.slots.held(self.left()):
            self.leave()
            if self.processes:
                return await self.slots.pool.run(fn, args)
            return await anyio.to_thread.run_sync(_freeing, fn, *args,
                                                  limiter=self.slots._trace_threads)

    async def body(self, fn: Callable[..., bytes], *args) -> list[bytes]:
        """As `trace`, for an fn that returns bytes (a response body): its value as a list of
        parts of at most 1 MiB, never joined (a trace body can be 100 MB: one buffer of it
        made or copied on the event loop holds it for tens of milliseconds)."""
        async with self.slots.held(self.left()):
            self.leave()
            if self.processes:
                return await self.slots.pool.run(fn, args, parts=True)
            return [await anyio.to_thread.run_sync(_freeing, fn, *args,
                                                   limiter=self.slots._trace_threads)]

    async def produce(self, fn: Callable[..., object], *args) -> Feed:
        """Start fn(*args, put, check) in a trace worker process (or thread: `processes`)
        holding a slot taken before the deadline, and return the Feed it writes to. fn and
        args must pickle, as for `trace`.

        fn calls put(piece) for each piece it makes and check() between pieces of work; check
        raises ClientGone once the feed was stopped (its client went away, or it was dropped
        for being too far behind); a worker process that does not stop soon after is killed.
        The work runs in a task of its own, which releases the slot as soon as fn returns,
        whether the feed was read or not: the slot never waits on the reader. If fn fails the
        stream ends with an `error` event of kind `internal`.
        """
        feed = await self.slots._produce(self.left(), self.processes, fn, *args)
        self.leave()
        return feed
