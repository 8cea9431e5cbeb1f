"""A stream's pieces on their way from the trace's worker thread to its client, and the bound
on what every stream holds unsent, together.

The thread never waits for its client (a slow client must not hold a trace slot), so what the
client has not read yet queues here: a stream of a 60,000-node chain is about 80 MB, and
sixteen clients that never read held 1.3 GB (issue 14). StreamBudget bounds the sum over all
streams (max_stream_buffer_bytes); past it the stream furthest behind, the one holding the most
unsent bytes, is dropped: its trace stops, its queue is freed, and its client gets one `error`
event of kind `too_slow` in place of the rest (docs/trace-format.md, "Errors").

Every count is kept on the event loop's thread (a worker thread hands pieces over with
call_soon_threadsafe; a trace worker process's pieces arrive on the loop, server/procs.py), so
no lock is needed.
"""
from __future__ import annotations

import asyncio
import collections
import logging

from gradwalk.server.errors import error_dict
from gradwalk.server.memory import give_back_soon
from gradwalk.server.tracing import ClientGone, error_event

log = logging.getLogger("gradwalk")
TOO_SLOW = error_dict(
    "too_slow", "the stream was dropped: its client read it more slowly than it was made while "
    "the server's buffer for unread streams was full (GRADWALK_MAX_STREAM_BUFFER_BYTES)",
    hint="trace again on a faster connection, or a smaller program")
GIVE_BACK_BYTES = 8 * 1024 * 1024   # a freed backlog this large is returned to the system


class StreamBudget:
    """limit: the bytes all feeds together may hold unsent (bytes). One per app."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self.feeds: set[Feed] = set()

    def grew(self) -> None:
        """Drop the feeds furthest behind until the total is within the limit again."""
        while self.total > self.limit and self.feeds:
            slowest = max(self.feeds, key=lambda feed: feed.queued)
            log.warning("stream dropped with %d bytes unsent: %d bytes of unread streams "
                        "passed the limit of %d", slowest.queued, self.total, self.limit)
            slowest.drop()


class Feed:
    """Pieces of a response made by a producer, handed to the event loop as they come.

    A worker thread calls `put` (it never waits) and `check`; a worker process's pieces are
    handed over on the loop by `arrive`, and its work is stopped through `stopping`. The loop
    reads the pieces with `async for` until the producer has ended, and calls `stop` when it
    no longer wants them. The loop is woken once per piece; pieces are tens of kilobytes, not
    single events.
    """

    def __init__(self, budget: StreamBudget) -> None:
        self._loop = asyncio.get_running_loop()
        self._budget = budget
        self._pieces: collections.deque[bytes] = collections.deque()
        self._ready = asyncio.Event()
        self._ended = False
        self.queued = 0   # bytes in _pieces
        self.stopped = False
        self.stopping = asyncio.Event()   # set with `stopped`, for a producer on the loop
        self.dropped = asyncio.Event()   # set by `drop`, for cut_if_unread
        budget.feeds.add(self)

    # ---- the producer's side (a worker thread) ----
    def put(self, piece: bytes) -> None:
        if self.stopped:
            return
        try:
            self._loop.call_soon_threadsafe(self.arrive, piece)
        except RuntimeError:   # the loop has closed (shutdown): nobody will read
            self.stopped = True

    def check(self) -> None:
        """Raises ClientGone once the reader has stopped or the stream was dropped."""
        if self.stopped:
            raise ClientGone()

    # ---- the event loop's side ----
    def arrive(self, piece: bytes) -> None:
        """A piece made, handed over on the loop's thread."""
        if self.stopped:
            return
        self._pieces.append(piece)
        self.queued += len(piece)
        self._budget.total += len(piece)
        self._ready.set()
        self._budget.grew()

    def _release(self) -> None:
        """Forget the queued pieces and leave the budget."""
        freed = self.queued
        self._budget.total -= freed
        self._budget.feeds.discard(self)
        self._pieces.clear()
        self.queued = 0
        if freed >= GIVE_BACK_BYTES:
            give_back_soon()

    def end(self) -> None:
        """The producer has returned: nothing more will come."""
        self._ended = True
        self._ready.set()

    def stop(self) -> None:
        """The reader is gone: the producer stops at its next check, queued pieces are freed."""
        self.stopped = True
        self.stopping.set()
        self._release()

    def drop(self) -> None:
        """Too far behind: the producer stops, the queue is freed, and the reader gets one
        `too_slow` error event (outside the budget: a few hundred bytes) and then the end."""
        self.stop()
        self.fail(TOO_SLOW)
        self.dropped.set()

    def fail(self, error: dict) -> None:
        """End the stream with one `error` event (outside the budget), after what is queued."""
        self._pieces.append(error_event(error))
        self.end()

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
        piece = self._pieces.popleft()
        if not self.stopped:   # a dropped feed's last piece was never counted
            self.queued -= len(piece)
            self._budget.total -= len(piece)
        return piece


async def cut_if_unread(feed: Feed, connection, grace: float) -> None:
    """Cut `connection` (server/protocol.py RawBody) `grace` seconds after `feed` was dropped
    if its answer has not been sent whole by then (the setting dropped_stream_grace_seconds). Dropping frees the feed's queue, but a client
    that never reads would never take the `too_slow` event queued behind what the sockets
    already hold (about 4 MB on loopback): its connection stayed open with those bytes for as
    long as it liked (a review: three such clients still connected after 75 s). An abort, not a
    close, which would wait for the client to read them first."""
    await feed.dropped.wait()
    await asyncio.sleep(grace)
    if not connection.cycle.response_complete and not connection.transport.is_closing():
        log.warning("a dropped stream's connection was cut: its client had not read the rest "
                    "within %g s (GRADWALK_DROPPED_STREAM_GRACE_SECONDS)", grace)
        connection.transport.abort()
