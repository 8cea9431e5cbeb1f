"""Alembic migrations applied in code at startup, by one process at a time.

Several `gradwalk serve --workers N` processes start at once against one database; each one
calls `upgrade`, and a lock makes them take turns, so the first creates the tables and the
others find them at head. PostgreSQL: a session-level advisory lock. SQLite: a lock file next
to the database (filelock), since SQLite has no lock that outlives a transaction.
"""
from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator

from alembic import command
from alembic.config import Config
from filelock import FileLock
from sqlalchemy import Connection, Engine, text

MIGRATIONS = Path(__file__).parent / "migrations"
ADVISORY_KEY = 0x67726164776C6B   # "gradwlk": any constant shared by every gradwalk process


def alembic_config(connection: Connection) -> Config:
    """A Config built in code (no alembic.ini), so an installed package can migrate itself."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    cfg.attributes["connection"] = connection
    return cfg


def sqlite_path(engine: Engine) -> Path | None:
    """The database file of a SQLite engine; None for an in-memory one."""
    name = engine.url.database
    return None if not name or name == ":memory:" or name.startswith("file:") else Path(name)


def upgrade(engine: Engine, timeout: float) -> None:
    """Bring the database to the newest revision; waits up to `timeout` s for another process.

    Raises filelock.Timeout (SQLite), sqlalchemy.exc.SQLAlchemyError, alembic CommandError.
    """
    with _migration_lock(engine, timeout), engine.connect() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": ADVISORY_KEY})
            conn.commit()   # the lock belongs to the session; alembic runs its own transaction
        try:
            command.upgrade(alembic_config(conn), "head")
            conn.commit()
        finally:
            if engine.dialect.name == "postgresql":
                conn.rollback()
                conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": ADVISORY_KEY})
                conn.commit()


@contextlib.contextmanager
def _migration_lock(engine: Engine, timeout: float) -> Iterator[None]:
    path = sqlite_path(engine) if engine.dialect.name == "sqlite" else None
    if path is None:
        yield
        return
    with FileLock(str(path) + ".migrate.lock", timeout=timeout):
        yield
