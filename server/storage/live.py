"""LiveStore: the live rooms' current states, in the `live_rooms` table (revision 0003).

The database holds each room's state so that every `gradwalk serve` worker answers a follower
with the same current step. A step commits the new state and, on PostgreSQL, a NOTIFY on the
channel CHANNEL in the same statement, delivered only once it commits; its payload is
"<room>:<seq>" (never the state: NOTIFY payloads are capped at 8,000 bytes and every worker
reads the state once from the table: `read_current`, on the listener's own connection). On
SQLite (one process) the caller delivers in process.

A step is on the way from the presenter to 1,000 phones, so its round trips to the database
are few: the update and the NOTIFY are one statement, the commit does not wait for the WAL's
flush to disk (synchronous_commit off, this store's sessions only: a crash may lose the last
steps, which the presenter's next step replaces), and each worker steps its rooms (`step_on`)
and reads their states (`read_current`) on an open connection of its own (its listener's
second, server/livehub.py), without a thread or a pool check.

A room idle past `idle` seconds is gone: it reads as absent and the next create deletes it.
"""
from __future__ import annotations

import hashlib
import secrets
import time

from sqlalchemy import BigInteger, Column, Float, MetaData, String, Table, Text, cast, delete
from sqlalchemy import func, insert, literal, select, text, update
from sqlalchemy.dialects.postgresql import psycopg as pg_dialect

from gradwalk.server.storage.links import _DOWN, Database, StorageUnavailable, _unavailable

CHANNEL = "gradwalk_live"
# Codes a person reads off a projector and types on a phone: no 0/O, 1/I/L.
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6   # 31**6, about 8.9e8 codes: a guess hits one of 1,000 rooms once in 887,000
# The advisory lock (a bigint of PostgreSQL's shared key space) that serialises room creation.
CREATE_LOCK = 0x6777_6C69_7665   # "gwlive"

_metadata = MetaData()
rooms = Table(
    "live_rooms", _metadata,
    Column("room", String(16), primary_key=True),
    Column("token_hash", String(64), nullable=False),
    Column("state", Text, nullable=False),
    Column("seq", BigInteger, nullable=False),
    Column("touched", Float, nullable=False),
)


def _free_code(conn) -> str:
    """A code no room has: a taken one is retried (8 misses in a row: about 1e-24)."""
    for _ in range(8):
        code = new_code()
        if conn.scalar(select(rooms.c.room).where(rooms.c.room == code)) is None:
            break
    return code


class TooManyRooms(Exception):
    """max_rooms rooms are open (idle ones not counted)."""


class NoRoom(Exception):
    """No such room, or it expired."""


class WrongToken(Exception):
    """The room exists, the presenter token does not match."""


def token_hash(token: str) -> str:
    """sha256 of the presenter token, hex (64 characters): all the table keeps of it."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(room: str) -> str | None:
    """A typed code in its stored form (upper case, no spaces or dashes), or None when it
    cannot be one (so that a bad code never reaches the database)."""
    code = room.strip().replace("-", "").replace(" ", "").upper()
    return code if len(code) == CODE_LENGTH and all(c in ALPHABET for c in code) else None


_PG = pg_dialect.dialect()   # read_current's and step_on's SQL, as SQLAlchemy writes it for psycopg


def _current(room: str, idle: float):
    """The SELECT of a room's (seq, state), unless it has been idle over `idle` seconds."""
    return select(rooms.c.seq, rooms.c.state).where(rooms.c.room == room,
                                                    rooms.c.touched >= time.time() - idle)


def _stepped(room: str, token: str, state: str, idle: float, postgres: bool):
    """(the UPDATE of a step RETURNING its seq, and on PostgreSQL its NOTIFY as well; the
    condition of the room being open, to tell NoRoom from WrongToken when it updates
    nothing)."""
    now = time.time()
    live = (rooms.c.room == room) & (rooms.c.touched >= now - idle)
    stepped = (update(rooms).where(live, rooms.c.token_hash == token_hash(token))
               .values(state=state, seq=rooms.c.seq + 1, touched=now))
    if postgres:   # RETURNING sees the new row: its seq is the step's
        payload = rooms.c.room + ":" + cast(rooms.c.seq, String)
        return stepped.returning(rooms.c.seq, func.pg_notify(CHANNEL, payload)), live
    return stepped.returning(rooms.c.seq), live


def _refuse(exists: bool):
    """A step that updated nothing: the token is wrong (the room `exists`) or the room is
    gone."""
    raise WrongToken() if exists else NoRoom()


async def _fetch(conn, statement):
    """The first row of `statement` (SQLAlchemy Core) run on `conn`, a psycopg
    AsyncConnection, or None."""
    query = statement.compile(dialect=_PG)
    cursor = await conn.execute(str(query), query.params)
    return await cursor.fetchone()


async def read_current(conn, room: str, idle: float) -> tuple[int, str] | None:
    """LiveStore.current on `conn`, an open psycopg AsyncConnection (autocommit) to the
    PostgreSQL database: (seq, state text), or None. Raises psycopg.Error."""
    row = await _fetch(conn, _current(room, idle))
    return None if row is None else (row[0], row[1])


async def step_on(conn, room: str, token: str, state: str, idle: float) -> int:
    """LiveStore.step on `conn`, an open psycopg AsyncConnection (autocommit: the UPDATE is
    its own transaction, its NOTIFY sent at its commit): one round trip to the database,
    from the event loop, where the pooled step takes four (the pool's ping `;`, BEGIN, the
    UPDATE, COMMIT) from a worker thread. Raises NoRoom, WrongToken, psycopg.Error."""
    stepped, live = _stepped(room, token, state, idle, postgres=True)
    row = await _fetch(conn, stepped)
    if row is None:
        _refuse(await _fetch(conn, select(rooms.c.room).where(live)) is not None)
    return row[0]


class LiveStore(Database):
    """create / step / current, each one short transaction. Thread-safe; one per process.
    idle (seconds): a room untouched for longer is treated as gone. Every method raises
    StorageUnavailable when the database is down."""

    PG_SETTINGS = {"synchronous_commit": "off"}

    def create(self, state: str, max_rooms: int, idle: float) -> tuple[str, str]:
        """Open a room at `state` (canonical JSON text) -> (code, presenter token). Deletes
        the expired rooms first; past `max_rooms` open ones raises TooManyRooms.

        The bound holds across workers: the count and the insert are one statement
        (INSERT ... SELECT ... WHERE count < max_rooms), and on PostgreSQL the creators are
        serialised by a transaction-scoped advisory lock, since under READ COMMITTED two
        such statements at once would each count without the other's row. (SQLite: the
        DELETE takes the database's one write lock first, so creators queue there.)"""
        self.open()
        token = secrets.token_urlsafe(24)
        now = time.time()
        try:
            with self.engine.begin() as conn:
                if self.postgres:
                    conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": CREATE_LOCK})
                conn.execute(delete(rooms).where(rooms.c.touched < now - idle))
                code = _free_code(conn)
                room_count = select(func.count()).select_from(rooms).scalar_subquery()
                row = select(literal(code), literal(token_hash(token)), literal(state),
                             literal(0), literal(now)).where(room_count < max_rooms)
                made = conn.scalar(insert(rooms).from_select(
                    ["room", "token_hash", "state", "seq", "touched"], row).returning(rooms.c.room))
                if made is None:   # (rowcount: -1 on psycopg for an INSERT ... SELECT)
                    raise TooManyRooms()
        except _DOWN as e:
            raise _unavailable(e, "opening a live room") from e
        return code, token

    def step(self, room: str, token: str, state: str, idle: float) -> int:
        """Replace the room's state -> its new sequence number; on PostgreSQL NOTIFY CHANNEL
        "room:seq" in the same statement (sent once the transaction commits). Raises NoRoom,
        WrongToken. (The hub steps on its own connection instead while it has one:
        step_on.)"""
        self.open()
        stepped, live = _stepped(room, token, state, idle, self.postgres)
        try:
            with self.engine.begin() as conn:
                seq = conn.scalar(stepped)
                if seq is None:
                    _refuse(conn.scalar(select(rooms.c.room).where(live)) is not None)
        except _DOWN as e:
            raise _unavailable(e, "stepping a live room") from e
        return seq

    def current(self, room: str, idle: float) -> tuple[int, str] | None:
        """(seq, state text) of a room that has not expired, else None."""
        self.open()
        try:
            with self.engine.connect() as conn:
                row = conn.execute(_current(room, idle)).first()
        except _DOWN as e:
            raise _unavailable(e, "reading a live room") from e
        return None if row is None else (row.seq, row.state)

    def count(self) -> int:
        """Rows in live_rooms, expired ones included (for tests and operators)."""
        self.open()
        with self.engine.connect() as conn:
            return conn.scalar(select(func.count()).select_from(rooms))


__all__ = ["CHANNEL", "LiveStore", "NoRoom", "StorageUnavailable", "TooManyRooms", "WrongToken",
           "normal_code", "read_current", "step_on", "token_hash"]
