"""The links table: one immutable row per short link.

Revision ID: 0001_links
Revises:
Create Date: 2026-11-29
"""
from alembic import op
import sqlalchemy as sa

revision = "0001_links"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "links",
        sa.Column("id", sa.String(32), primary_key=True),              # link_id of the state
        sa.Column("state", sa.Text(), nullable=False),                 # canonical JSON text
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.current_timestamp()),
    )


def downgrade() -> None:
    op.drop_table("links")
