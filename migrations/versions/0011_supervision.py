"""Issue 17 item 1 (supervision): the ``heartbeat`` table, one row per long-running loop.

The clock, the mail sender thread and the inbound apply loop each upsert their
row every few seconds (``app.runners.heartbeats``); the clock sends mail itself when
the sender's row is stale, and ``/readyz`` and ``flask status`` read them.

Revision ID: 0011
Revises: 0007
Create Date: 2026-12-02

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: Union[str, Sequence[str], None] = "0007"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "heartbeat",
        sa.Column("name", sa.String(length=32), primary_key=True),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("beat_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("every_seconds", sa.Float(), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("heartbeat")
