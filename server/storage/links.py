"""LinkStore: immutable short links, keyed by the hash of their canonical state.

Durability: SQLite in WAL mode with synchronous=FULL (a commit is on disk before the request is
answered, so it survives kill -9 and a power cut); PostgreSQL commits are durable by default.
Two processes creating the same link at once insert with ON CONFLICT DO NOTHING: one row.
"""
from __future__ import annotations

import json
import logging
import threading
from typing import Any

from alembic.util.exc import CommandError
from sqlalchemy import (Column, DateTime, Engine, MetaData, String, Table, Text, create_engine,
                        event, func, select)
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import postgresql, sqlite

from server.storage.canonical import canonical_json, link_id
from server.storage.migrate import sqlite_path, upgrade

log = logging.getLogger("gradwalk.links")

# The shape revision 0001_links creates; queries only, migrations never import it.
links = Table(
    "links", MetaData(),
    Column("id", String(32), primary_key=True),
    Column("state", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False,
           server_default=func.current_timestamp()),
)

# Errors that mean "the database is not there or not answering", never a bug in the request.
_DOWN = (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.TimeoutError, OSError)


class StorageUnavailable(Exception):
    """The link database cannot be reached, is locked past the timeout, or cannot migrate."""


class LinkCollision(Exception):
    """Two different states gave the same id (96 bits of sha256: not expected to happen)."""


class LinkStore:
    """create(state) -> (id, created); get(id) -> state | None. Thread-safe; one per process.

    url: a SQLAlchemy URL (sqlite:///path or postgresql+psycopg://...); timeout: seconds to
    wait for a connection, a lock or a statement before StorageUnavailable.
    """

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        self.timeout = timeout
        self.engine = _make_engine(url, timeout)
        self._ready = False
        self._lock = threading.Lock()

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

    def create(self, state: dict[str, Any]) -> tuple[str, bool]:
        """Store `state`; return its id and whether this call made the row.

        Raises ValueError (state not JSON), StorageUnavailable, LinkCollision.
        """
        text = canonical_json(state).decode("utf-8")
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
                    stored = conn.scalar(select(links.c.state).where(links.c.id == key))
                    if stored != text:
                        raise LinkCollision(key)
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

    def close(self) -> None:
        self.engine.dispose()


def _make_engine(url: str, timeout: float) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": timeout}, pool_timeout=timeout)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if url.startswith("postgresql"):
        ms = int(timeout * 1000)
        return create_engine(url, pool_pre_ping=True, pool_timeout=timeout, connect_args={
            "connect_timeout": max(1, round(timeout)),
            "options": f"-c statement_timeout={ms} -c lock_timeout={ms}"})
    return create_engine(url, pool_pre_ping=True, pool_timeout=timeout)


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
