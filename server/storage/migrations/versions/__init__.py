"""One file per revision; alembic skips this one."""
