"""Alembic environment: runs on the connection that server.storage.migrate hands over.

To write a new revision by hand: copy versions/0001_links.py, set `down_revision` to the
newest id, and describe the change with alembic.op; `upgrade` applies it at the next start.
"""
from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through server.storage.migrate.upgrade (online only)")

context.configure(connection=connection, target_metadata=None)
with context.begin_transaction():
    context.run_migrations()
