"""Alembic migrations of the link store (run by server.storage.migrate, not by alembic.ini)."""
