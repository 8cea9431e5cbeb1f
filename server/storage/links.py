"""LinkStore: immutable short links, keyed by the hash of their canonical state.

Durability: SQLite in WAL mode with synchronous=FULL (a commit is on disk before the request is
answered, so it survives kill -9 and a power cut); PostgreSQL commits are durable by default.
Two processes creating the same link at once insert with ON CONFLICT DO NOTHING: one row.

Storage cap: the bytes the links take are counted in the one row of `link_usage` (revision
0002), updated in the transaction that inserts a link and only when it inserted one, so a state
already stored answers again without counting twice, and the cap holds across processes: the
update `bytes + n <= cap` is refused, and the insert rolled back, once the total would pass it.
"""
from __future__ import annotations

import json
import logging
import threading
from typing import Any

from alembic.util.exc import CommandError
from sqlalchemy import (BigInteger, Column, Connection, DateTime, Engine, Integer, MetaData,
                        String, Table, Text, create_engine, event, func, select, true, update)
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql, sqlite

from gradwalk.server.storage.canonical import canonical_json, link_id
from gradwalk.server.storage.migrate import sqlite_path, upgrade

log = logging.getLogger("gradwalk.links")

# The shapes revisions 0001 and 0002 create; queries only, migrations never import them.
_metadata = MetaData()
links = Table(
    "links", _metadata,
    Column("id", String(32), primary_key=True),
    Column("state", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False,
           server_default=func.current_timestamp()),
)

usage = Table("link_usage", _metadata, Column("id", Integer, primary_key=True),
              Column("bytes", BigInteger, nullable=False))
# What one link counts beyond its state's bytes: the id in the row and in the primary-key index,
# the timestamp and SQLite's row headers (93 bytes measured for a 20-byte state). As in 0002.
ROW_BYTES = 100

# Errors that mean "the database is not there or not answering", never a bug in the request.
_DOWN = (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.TimeoutError, OSError)


class StorageUnavailable(Exception):
    """The link database cannot be reached, is locked past the timeout, or cannot migrate."""


class StorageFull(Exception):
    """Storing the link would pass the storage cap (max_bytes of LinkStore.create)."""


class LinkCollision(Exception):
    """Two different states gave the same id (96 bits of sha256: not expected to happen)."""


class Database:
    """A SQLAlchemy engine on `url` (sqlite:///path or postgresql+psycopg://...), migrated to
    head on first use; the base of LinkStore and LiveStore (server/storage/live.py).
    timeout: seconds to wait for a connection, a lock or a statement before StorageUnavailable.
    PG_SETTINGS: PostgreSQL settings of the subclass's sessions ({name: value}).
    """

    PG_SETTINGS: dict[str, str] = {}

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        self.timeout = timeout
        self.engine = _make_engine(url, timeout, self.PG_SETTINGS)
        self._ready = False
        self._lock = threading.Lock()

    @property
    def postgres(self) -> bool:
        return self.engine.dialect.name == "postgresql"

    def open(self) -> None:
        """Create the SQLite folder and migrate to head, once (retried after a failure).

        Raises StorageUnavailable.
        """
        if self._ready:
            return
        with self._lock:
            if self._ready:
                return
            try:
                path = sqlite_path(self.engine) if self.engine.dialect.name == "sqlite" else None
                if path is not None:
                    path.parent.mkdir(parents=True, exist_ok=True)
                upgrade(self.engine, self.timeout)
            except (sa_exc.SQLAlchemyError, CommandError, OSError) as e:
                raise _unavailable(e, "migrating") from e
            self._ready = True

    def close(self) -> None:
        self.engine.dispose()


class LinkStore(Database):
    """create(state) -> (id, created); get(id) -> state | None. Thread-safe; one per process."""

    def holds(self, state: dict[str, Any], checked: bool = False) -> bool:
        """Whether `state` is stored already (a read, no write). `checked`: as canonical_json's.

        Raises ValueError (state not JSON), StorageUnavailable, LinkCollision.
        """
        text = canonical_json(state, checked=checked).decode("utf-8")
        self.open()
        try:
            with self.engine.connect() as conn:
                return _stored(conn, link_id(text.encode("utf-8")), text)
        except _DOWN as e:
            raise _unavailable(e, "reading a link") from e

    def create(self, state: dict[str, Any], max_bytes: int = 0,
               checked: bool = False) -> tuple[str, bool]:
        """Store `state`; return its id and whether this call made the row. A new row adds
        len(state as canonical UTF-8) + ROW_BYTES to the stored bytes; past `max_bytes`
        (0: no cap) nothing is stored and StorageFull is raised. `checked`: as canonical_json's.

        Raises ValueError (state not JSON), StorageUnavailable, LinkCollision, StorageFull.
        """
        text = canonical_json(state, checked=checked).decode("utf-8")
        key = link_id(text.encode("utf-8"))
        self.open()
        insert = (postgresql.insert if self.engine.dialect.name == "postgresql" else sqlite.insert)
        # RETURNING yields the row only when this statement inserted it (rowcount is not
        # reliable for ON CONFLICT DO NOTHING across drivers).
        stmt = (insert(links).values(id=key, state=text)
                .on_conflict_do_nothing(index_elements=["id"]).returning(links.c.id))
        try:
            with self.engine.begin() as conn:
                created = conn.execute(stmt).first() is not None
                if not created:
                    _stored(conn, key, text)
                elif not _count(conn, len(text.encode("utf-8")) + ROW_BYTES, max_bytes):
                    raise StorageFull()   # leaving `begin` rolls the insert back
        except _DOWN as e:
            raise _unavailable(e, "storing a link") from e
        return key, created

    def get(self, key: str) -> dict[str, Any] | None:
        """The state stored under `key`, or None. Raises StorageUnavailable."""
        self.open()
        try:
            with self.engine.connect() as conn:
                stored = conn.scalar(select(links.c.state).where(links.c.id == key))
        except _DOWN as e:
            raise _unavailable(e, "reading a link") from e
        return None if stored is None else json.loads(stored)

    def count(self) -> int:
        """The number of stored links (for tests and operators)."""
        self.open()
        with self.engine.connect() as conn:
            return conn.scalar(select(func.count()).select_from(links))

    def used_bytes(self) -> int:
        """The bytes counted for the stored links (for tests and operators)."""
        self.open()
        with self.engine.connect() as conn:
            return conn.scalar(select(usage.c.bytes).where(usage.c.id == 1))


def _stored(conn: Connection, key: str, text: str) -> bool:
    """Whether the row `key` holds `text`: False when there is none. Raises LinkCollision when
    it holds another state."""
    stored = conn.scalar(select(links.c.state).where(links.c.id == key))
    if stored is not None and stored != text:
        raise LinkCollision(key)
    return stored is not None


def _count(conn: Connection, size: int, cap: int) -> bool:
    """Add `size` bytes to the stored total unless that passes `cap` (0: no cap); whether it
    did. One UPDATE, so two processes cannot both take the last room: the row lock
    (PostgreSQL) or the write lock (SQLite) makes the second see the first's total."""
    room = (usage.c.bytes + size <= cap) if cap > 0 else true()
    done = conn.execute(update(usage).where(usage.c.id == 1, room)
                        .values(bytes=usage.c.bytes + size))
    return done.rowcount == 1


def _make_engine(url: str, timeout: float, pg_settings: dict[str, str]) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": timeout}, pool_timeout=timeout)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if url.startswith("postgresql"):
        return create_engine(url, pool_pre_ping=True, pool_timeout=timeout,
                             connect_args=pg_connect_args(timeout, pg_settings))
    return create_engine(url, pool_pre_ping=True, pool_timeout=timeout)


def pg_connect_args(timeout: float, pg_settings: dict[str, str] | None = None) -> dict:
    """psycopg's connect arguments: `timeout` (seconds) for the connection, each statement
    and each lock, and the sessions' `pg_settings` ({name: value})."""
    ms = int(timeout * 1000)
    options = {"statement_timeout": str(ms), "lock_timeout": str(ms), **(pg_settings or {})}
    return {"connect_timeout": max(1, round(timeout)),
            "options": " ".join(f"-c {k}={v}" for k, v in options.items())}


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    # WAL lets readers and one writer work at once across worker processes; FULL syncs the
    # WAL on every commit, so an answered POST is on disk even if the process is killed.
    # (The driver's `timeout` connect argument is SQLite's busy timeout for the locks.)
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute("PRAGMA synchronous = FULL")
    cursor.close()


def _unavailable(e: BaseException, doing: str) -> StorageUnavailable:
    # One line in the log, no traceback: a database that is down is an operations matter.
    reason = str(getattr(e, "orig", None) or e).strip().splitlines()[0][:200] if str(e) else ""
    log.warning("link database unavailable while %s: %s: %s", doing, type(e).__name__, reason)
    return StorageUnavailable(f"the short-link database is unavailable ({doing})")
