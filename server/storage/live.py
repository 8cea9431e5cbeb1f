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
import hmac
import secrets
import time

from sqlalchemy import BigInteger, Column, Float, MetaData, String, Table, Text, cast, delete
from sqlalchemy import bindparam, func, insert, literal, select, text, update
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


# ---- the statements: built once, with bound parameters, and compiled once for psycopg
#
# A step is on the way from the presenter's POST to every follower, and the later worker's read
# of the state after its NOTIFY too: compiling the UPDATE from SQLAlchemy Core at each step cost
# the stepping worker 0.6 ms of CPU before the statement was sent (4 ms of wall time at load
# 12), the SELECT 0.15 ms the reading worker's (docs/performance.md, "Live rooms"). Each is now
# compiled when this module is imported, and psycopg prepares it on its connection at its first
# use.

_PG = pg_dialect.dialect()
_OPEN = (rooms.c.room == bindparam("code")) & (rooms.c.touched >= bindparam("since"))
CURRENT = select(rooms.c.seq, rooms.c.state).where(_OPEN)   # a room's (seq, state), if open
IS_OPEN = select(rooms.c.room).where(_OPEN)
PRESENTER = select(rooms.c.token_hash).where(_OPEN)   # whose token steps an open room
# (the names of the bound values are no column's: SQLAlchemy keeps those for the SET clause)
_STEP = (update(rooms).where(_OPEN, rooms.c.token_hash == bindparam("presenter_hash"))
         .values(state=bindparam("new_state"), seq=rooms.c.seq + 1, touched=bindparam("now")))
STEP = _STEP.returning(rooms.c.seq)   # SQLite: the caller delivers in process
# PostgreSQL: RETURNING sees the new row, its seq is the step's; NOTIFY "room:seq" at the commit
STEP_NOTIFY = _STEP.returning(
    rooms.c.seq, func.pg_notify(CHANNEL, rooms.c.room + ":" + cast(rooms.c.seq, String)))


# The presenter closes the room: its row goes, and (PostgreSQL) the other processes are told as
# of a step, "room:seq+1", whose read then finds no room and ends their followers' streams.
CLOSE = (delete(rooms).where(rooms.c.room == bindparam("code"),
                             rooms.c.token_hash == bindparam("presenter_hash"))
         .returning(rooms.c.seq))


class _Compiled:
    """A statement as psycopg takes it: its SQL text with %(name)s placeholders, and the
    values SQLAlchemy bound itself (the channel, the 1 of seq + 1) beside the caller's."""

    def __init__(self, statement) -> None:
        compiled = statement.compile(dialect=_PG)
        self.sql, self.bound = str(compiled), dict(compiled.params)

    async def fetchone(self, conn, **values):
        """The first row of the statement run on `conn`, a psycopg AsyncConnection, or None
        (prepared on the connection: parsed and planned once)."""
        cursor = await conn.execute(self.sql, {**self.bound, **values}, prepare=True)
        return await cursor.fetchone()


_PG_CURRENT, _PG_IS_OPEN, _PG_STEP = (_Compiled(s) for s in (CURRENT, IS_OPEN, STEP_NOTIFY))


def _open_values(room: str, idle: float) -> dict:
    """The values of _OPEN: the room, and the oldest touch of a room still open (`idle` s)."""
    return {"code": room, "since": time.time() - idle}


def _step_values(room: str, token: str, state: str, idle: float) -> dict:
    now = time.time()
    return {"code": room, "since": now - idle, "presenter_hash": token_hash(token),
            "new_state": state, "now": now}


def _refuse(exists: bool):
    """A step that updated nothing: the token is wrong (the room `exists`) or the room is
    gone."""
    raise WrongToken() if exists else NoRoom()


async def read_current(conn, room: str, idle: float) -> tuple[int, str] | None:
    """LiveStore.current on `conn`, an open psycopg AsyncConnection (autocommit) to the
    PostgreSQL database: (seq, state text), or None. Raises psycopg.Error."""
    row = await _PG_CURRENT.fetchone(conn, **_open_values(room, idle))
    return None if row is None else (row[0], row[1])


async def step_on(conn, room: str, token: str, state: str, idle: float) -> int:
    """LiveStore.step on `conn`, an open psycopg AsyncConnection (autocommit: the UPDATE is
    its own transaction, its NOTIFY sent at its commit): one round trip to the database,
    from the event loop, where the pooled step takes four (the pool's ping `;`, BEGIN, the
    UPDATE, COMMIT) from a worker thread. Raises NoRoom, WrongToken, psycopg.Error."""
    row = await _PG_STEP.fetchone(conn, **_step_values(room, token, state, idle))
    if row is None:
        _refuse(await _PG_IS_OPEN.fetchone(conn, **_open_values(room, idle)) is not None)
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
        try:
            with self.engine.begin() as conn:
                seq = conn.scalar(STEP_NOTIFY if self.postgres else STEP,
                                  _step_values(room, token, state, idle))
                if seq is None:
                    _refuse(conn.scalar(IS_OPEN, _open_values(room, idle)) is not None)
        except _DOWN as e:
            raise _unavailable(e, "stepping a live room") from e
        return seq

    def close_room(self, room: str, token: str, idle: float) -> None:
        """Delete the room (its presenter's `token`); on PostgreSQL NOTIFY the other processes
        in the same transaction, so that their followers' streams end. Raises NoRoom,
        WrongToken."""
        self.open()
        try:
            with self.engine.begin() as conn:
                seq = conn.scalar(CLOSE, {"code": room, "presenter_hash": token_hash(token)})
                if seq is None:
                    _refuse(conn.scalar(IS_OPEN, _open_values(room, idle)) is not None)
                if self.postgres:
                    conn.execute(select(func.pg_notify(CHANNEL, f"{room}:{seq + 1}")))
        except _DOWN as e:
            raise _unavailable(e, "closing a live room") from e

    def check_presenter(self, room: str, token: str, idle: float) -> None:
        """Nothing when `token` is the open room `room`'s presenter token; raises NoRoom,
        WrongToken. For a step refused for its body: the token is judged first, so that a
        client without it hears 403, never what was wrong with the body (routers/live.py)."""
        self.open()
        try:
            with self.engine.connect() as conn:
                kept = conn.scalar(PRESENTER, _open_values(room, idle))
        except _DOWN as e:
            raise _unavailable(e, "reading a live room") from e
        if kept is None:
            raise NoRoom()
        if not hmac.compare_digest(kept, token_hash(token)):
            raise WrongToken()

    def current(self, room: str, idle: float) -> tuple[int, str] | None:
        """(seq, state text) of a room that has not expired, else None."""
        self.open()
        try:
            with self.engine.connect() as conn:
                row = conn.execute(CURRENT, _open_values(room, idle)).first()
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
