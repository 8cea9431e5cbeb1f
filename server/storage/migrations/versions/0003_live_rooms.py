"""The live_rooms table: one row per live room, its presenter's current state.

A room's code is what students type (6 characters); the presenter's token is kept only as its
sha256 (hex), so the table alone cannot step a room. `seq` counts the states the presenter sent
(the SSE id of each step); `touched` is when the last one came (seconds since the epoch, a float
so SQLite and PostgreSQL compare it alike): rooms idle past live_idle_seconds are deleted.

Revision ID: 0003_live_rooms
Revises: 0002_link_usage
Create Date: 2026-12-05
"""
from alembic import op
import sqlalchemy as sa

revision = "0003_live_rooms"
down_revision = "0002_link_usage"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "live_rooms",
        sa.Column("room", sa.String(16), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),                 # canonical JSON text
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("touched", sa.Float(), nullable=False),
    )
    op.create_index("live_rooms_touched", "live_rooms", ["touched"])


def downgrade() -> None:
    op.drop_index("live_rooms_touched", "live_rooms")
    op.drop_table("live_rooms")
