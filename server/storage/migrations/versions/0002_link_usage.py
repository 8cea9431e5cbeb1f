"""The link_usage table: one row holding the bytes the links take, for the storage cap.

Counted in the database, not in a process, so that every `gradwalk serve` worker and every
server on the same database sees one total; LinkStore.create adds to it in the transaction that
inserts the link. A link counts its state's UTF-8 bytes plus 100 for its row (the id in the row
and in the primary-key index, the timestamp, SQLite's headers: 93 bytes measured for a 20-byte
state). The row starts at what the links already stored take.

Revision ID: 0002_link_usage
Revises: 0001_links
Create Date: 2026-12-04
"""
from alembic import op
import sqlalchemy as sa

revision = "0002_link_usage"
down_revision = "0001_links"
branch_labels = None
depends_on = None

ROW_BYTES = 100   # as server.storage.links.ROW_BYTES at this revision (migrations import no app code)


def upgrade() -> None:
    op.create_table(
        "link_usage",
        sa.Column("id", sa.Integer(), primary_key=True),          # always 1: one row
        sa.Column("bytes", sa.BigInteger(), nullable=False),      # the links' bytes, counted
    )
    octets = ("octet_length(state)" if op.get_bind().dialect.name == "postgresql"
              else "length(CAST(state AS BLOB))")
    op.execute(f"INSERT INTO link_usage (id, bytes) "
               f"SELECT 1, COALESCE(SUM({octets} + {ROW_BYTES}), 0) FROM links")


def downgrade() -> None:
    op.drop_table("link_usage")
