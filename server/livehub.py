"""The live rooms' fan-out inside one server process, and across processes on PostgreSQL.

Hub: the followers this process holds (each an open GET /api/live/{room}/events), by room,
at most `max_followers` of them. `notified(room, seq)` reads the room's state once from the
database, makes its SSE event and that event's chunk once, and hands them to each of its
followers. A follower whose stream is idle and whose socket takes more is written the chunk
there and then (server/protocol.py RawBody: one transport.write, no task woken); any other
keeps only the newest state it has not sent, for its task to send, so a slow phone skips
steps instead of growing a queue (it always ends at the lecturer's current step).

Who hands a step out: the process whose handler committed it, to its own followers at once
with the state it has (`stepped`); on PostgreSQL every other process's one listener (`listen`,
a task of the app's lifespan), for each NOTIFY on server.storage.live.CHANNEL (`notified`: its
own process's finds the step delivered and reads nothing). The listener keeps a second
connection, on which the hub reads the states (`Hub.read`) and the POST's handler commits the
steps (`Hub.step`: one statement, the UPDATE and its NOTIFY) while it is up: no worker thread
and no pool check on the way of a step. A listener whose connection dies reconnects
(after RETRY_SECONDS) and then re-reads every followed room, so a step posted while it was
away still arrives. `sweep` ends the streams of rooms that expired
and sends the heartbeats: a comment line to each follower that was sent nothing since the
last sweep, so that a stream is never quiet for two sweeps. (A timer per follower and wait,
asyncio.timeout, cost each of 1,000 followers a timer made and cancelled at every step.)
"""
from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field

from starlette.concurrency import run_in_threadpool

from gradwalk.server.protocol import RawBody, chunk
from gradwalk.server.storage.links import pg_connect_args
from gradwalk.server.storage.live import (CHANNEL, LiveStore, StorageUnavailable,
                                          read_current, step_on)
from gradwalk.server.tracing import sse_event

log = logging.getLogger("gradwalk.live")
RETRY_SECONDS = 1.0   # between a listener's lost connection and its next try
LISTENER_NAME = "gradwalk-live-listener"   # its application_name, seen in pg_stat_activity
READER_NAME = "gradwalk-live-reader"       # the listener's second connection's


def state_event(room: str, seq: int, state: str) -> bytes:
    """The SSE `state` event {room, seq, state} with id seq; `state` is canonical JSON text."""
    data = '{"room":"%s","seq":%d,"state":%s}' % (room, seq, state)
    return sse_event(b"state", data.encode("utf-8"), seq)


BEAT = b": still here\n\n"   # a heartbeat: an SSE comment line
BEAT_CHUNK = chunk(BEAT)


class Busy(Exception):
    """The process holds max_followers followers already."""


@dataclass(eq=False)
class Follower:
    """One open stream: the newest state's event not yet sent (`pending`: seq and the SSE
    bytes, made once per room and step by state_event), whether a heartbeat is due
    (`beating`) or anything was sent since the last sweep (`busy`), and `wake` to say so.
    `raw`: the stream's connection (server/protocol.py RawBody), None under a server that
    gives none; `idle`: its task waits on `wake`, everything before sent."""

    hub: "Hub"
    room: str
    sent: int = -1
    pending: tuple[int, bytes] | None = None
    ended: bool = False
    beating: bool = False
    busy: bool = False
    raw: RawBody | None = None
    idle: bool = False
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def offer(self, seq: int, event: bytes, framed: bytes | None = None) -> bool:
        """A state newer than what the follower has: written now when it can be (`framed`:
        chunk(event), made once for all the room's followers), else kept for its task.
        True when it was written now."""
        if seq <= max(self.sent, self.pending[0] if self.pending else -1):
            return False
        if self._written(framed or chunk(event)):
            self.sent = seq
            return True
        self.pending = (seq, event)
        self.wake.set()
        return False

    def _written(self, framed: bytes) -> bool:
        """Write `framed` to the socket now if nothing else is on the way to it (its task
        idle, no pending piece, not ended) and the socket takes more."""
        raw = self.raw
        if (raw is None or not self.idle or self.pending is not None or self.ended
                or self.beating or not raw.ready()):
            return False
        raw.write(framed)
        self.busy = True
        return True

    def end(self) -> None:
        self.ended = True
        self.wake.set()

    def beat(self) -> None:
        """A heartbeat is due, unless something was sent since the last one was asked."""
        if self.busy:
            self.busy = False
        elif not self._written(BEAT_CHUNK):
            self.beating = True
            self.wake.set()

    def next_piece(self) -> bytes | None:
        """What to send now that `wake` is set: the pending state's event, a heartbeat (a
        comment line), or None once the stream is to end."""
        self.wake.clear()
        self.busy, self.beating = True, False
        if self.pending is not None:
            (self.sent, event), self.pending = self.pending, None
            if self.ended:
                self.wake.set()   # the `end` next
            return event
        return None if self.ended else BEAT

    def stop(self) -> None:
        """Leave the hub (called once the response ends, however it ends)."""
        self.hub.leave(self)


class Hub:
    """store: the LiveStore; idle: live_idle_seconds; max_followers: per process; timing:
    live_timing_log (a line per step and process: `live step ROOM SEQ ...`, see _offer)."""

    def __init__(self, store: LiveStore, idle: float, max_followers: int,
                 timing: bool = False) -> None:
        self.store, self.idle, self.max_followers = store, idle, max_followers
        self.timing = timing   # log each step's fan-out times (live_timing_log)
        self.rooms: dict[str, set[Follower]] = {}
        self.count = 0
        self.delivered: dict[str, int] = {}   # room -> the newest seq handed out
        self.conn = None   # the listener's second connection while it is up (PostgreSQL)

    async def read(self, room: str) -> tuple[int, str] | None:
        """The room's current (seq, state): on the listener's connection while it is up,
        else from the store in a worker thread. Raises psycopg.Error, StorageUnavailable."""
        if self.conn is not None:
            return await read_current(self.conn, room, self.idle)
        return await run_in_threadpool(self.store.current, room, self.idle)

    async def step(self, room: str, token: str, state: str) -> int:
        """LiveStore.step: on the listener's connection while it is up (one round trip, no
        thread), else (or when that connection fails: the listener finds out at its next
        read and reconnects) from a worker thread. -> seq; raises NoRoom, WrongToken,
        StorageUnavailable."""
        conn = self.conn
        if conn is not None:
            import psycopg   # there is a connection: psycopg is installed

            try:
                async with asyncio.timeout(self.store.timeout):
                    return await step_on(conn, room, token, state, self.idle)
            except (psycopg.Error, TimeoutError) as e:
                # A step that was committed before its answer was lost is made twice: the
                # same state under two seqs, which the followers take as one step.
                log.warning("live step on the listener's connection failed (%s); stepping "
                            "from a thread", type(e).__name__)
        return await run_in_threadpool(self.store.step, room, token, state, self.idle)

    def join(self, room: str) -> Follower:
        """A new follower of `room`. Raises Busy past max_followers."""
        if self.count >= self.max_followers:
            raise Busy()
        follower = Follower(self, room)
        self.rooms.setdefault(room, set()).add(follower)
        self.count += 1
        return follower

    def leave(self, follower: Follower) -> None:
        group = self.rooms.get(follower.room)
        if group is None or follower not in group:
            return
        group.discard(follower)
        self.count -= 1
        if not group:   # memory flat after a room's students leave
            del self.rooms[follower.room]
            self.delivered.pop(follower.room, None)

    async def notified(self, room: str, seq: int) -> None:
        """Room `room` reached `seq`: read its state once, offer it to its followers here."""
        if room not in self.rooms or self.delivered.get(room, -1) >= seq:
            return
        noted = time.perf_counter()
        self._offer(room, await self.read(room), noted)

    def stepped(self, room: str, seq: int, state: str) -> None:
        """This process committed room `room`'s step `seq` to `state`: its followers here get
        it now, without waiting for the NOTIFY and a read (the NOTIFY, when it comes, finds
        it delivered)."""
        if room in self.rooms and self.delivered.get(room, -1) < seq:
            self._offer(room, (seq, state), time.perf_counter())

    def closed(self, room: str) -> None:
        """This process closed room `room` (its presenter's DELETE): its followers here get
        `end` now; the other processes' on the NOTIFY that came with the delete."""
        self._offer(room, None)

    def _offer(self, room: str, current: tuple[int, str] | None,
               noted: float | None = None) -> None:
        group = self.rooms.get(room, ())
        if current is None:
            for follower in group:
                follower.end()
            return
        seq, state = current
        self.delivered[room] = max(self.delivered.get(room, -1), seq)
        start, cpu = time.perf_counter(), time.thread_time()
        event = state_event(room, seq, state)   # once for all the room's followers here
        framed = chunk(event)
        written = 0
        for follower in group:
            written += follower.offer(seq, event, framed)
        if self.timing and noted is not None:
            # perf_counter: CLOCK_MONOTONIC, one clock for every process of the machine, so
            # bench/live.py sets these beside its own send and arrival times
            log.info("live step %s %d: %d followers, %d written at once; notified %.6f, "
                     "read %.6f, handed out %.6f, fan-out CPU %.3f ms", room, seq, len(group),
                     written, noted, start, time.perf_counter(),
                     1000 * (time.thread_time() - cpu))

    async def refresh(self) -> None:
        """Re-read every followed room: offer its state (a step missed while the listener
        was away), or end its streams when it expired."""
        for room in list(self.rooms):
            self._offer(room, await self.read(room))

    def beat(self) -> None:
        """A heartbeat to every follower here that was sent nothing since the last beat."""
        for group in self.rooms.values():
            for follower in group:
                follower.beat()

    async def sweep(self, every: float) -> None:
        """Forever: refresh every `every` seconds (ends the streams of expired rooms), then
        beat."""
        while True:
            await asyncio.sleep(every)
            try:
                await self.refresh()
            except Exception as e:   # the database down: the streams stay, retried next time
                log.warning("live rooms not refreshed: %s", e)
            self.beat()


async def listen(hub: Hub, url: str, ready: asyncio.Event | None = None) -> None:
    """Forever: LISTEN on CHANNEL over its own psycopg connection (autocommit) to the
    PostgreSQL at `url` (a SQLAlchemy URL), calling hub.notified for each notification, the
    hub reading the states on a second connection (Hub.read); reconnects after RETRY_SECONDS
    when either fails, then refreshes the hub. `ready` is set at each successful LISTEN (for
    tests)."""
    import psycopg
    from sqlalchemy import make_url

    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    while True:
        try:
            conn = await psycopg.AsyncConnection.connect(
                conninfo, autocommit=True, application_name=LISTENER_NAME)
            async with conn:
                reader = await psycopg.AsyncConnection.connect(
                    conninfo, autocommit=True, application_name=READER_NAME,
                    **pg_connect_args(hub.store.timeout, hub.store.PG_SETTINGS))
                async with reader:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    hub.conn = reader
                    if ready is not None:
                        ready.set()
                    await hub.refresh()
                    async for note in conn.notifies():
                        room, _, seq = note.payload.partition(":")
                        await hub.notified(room, int(seq))
        except (psycopg.Error, OSError, ValueError, StorageUnavailable) as e:
            log.warning("live listener lost its connection (%s); reconnecting in %.0f s",
                        str(e).strip().splitlines()[0][:200] if str(e) else type(e).__name__,
                        RETRY_SECONDS)
        finally:
            hub.conn = None   # the sweep reads and the steps commit without it meanwhile
        await asyncio.sleep(RETRY_SECONDS)
