"""Open tables (issue 48): ``open_table``, its seats (``table_seat``) and the holds of
the people asking to sit down (``table_hold``): ``app.seating.models``.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-06

"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0028"
down_revision: Union[str, Sequence[str], None] = "0027"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

_OPEN = sa.text("status = 'open'")


def upgrade() -> None:
    op.create_table(
        "open_table",
        sa.Column("id", sa.String(length=24), primary_key=True),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("talk_spectators", sa.Boolean(), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("gate", sa.String(length=16), nullable=False),
        sa.Column("created_by", sa.String(length=64), nullable=True),
        sa.Column("host_seat", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("wait_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("game_id", sa.String(length=64), nullable=True),
    )
    op.create_index("ix_open_table_listed", "open_table", ["created_at", "id"],
                    postgresql_where=_OPEN, sqlite_where=_OPEN)
    op.create_index("ix_open_table_wait", "open_table", ["wait_until"],
                    postgresql_where=_OPEN, sqlite_where=_OPEN)
    op.create_table(
        "table_seat",
        sa.Column("table_id", sa.String(length=24), primary_key=True),
        sa.Column("index", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=True),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("person_key", sa.String(length=320), nullable=True),
        sa.Column("simon", sa.String(length=8), nullable=False),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("hold_id", sa.String(length=32), nullable=True),
    )
    op.create_index("ix_table_seat_person", "table_seat", ["person_key"])
    op.create_table(
        "table_hold",
        sa.Column("id", sa.String(length=32), primary_key=True),
        sa.Column("table_id", sa.String(length=24), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("person_key", sa.String(length=320), nullable=False),
        sa.Column("ip_key", sa.String(length=64), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("held_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("link_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("left_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_table_hold_table", "table_hold", ["table_id"])
    op.create_index("ix_table_hold_person", "table_hold", ["person_key", "asked_at"])
    op.create_index("ix_table_hold_ip", "table_hold", ["ip_key", "asked_at"])


def downgrade() -> None:
    op.drop_table("table_hold")
    op.drop_table("table_seat")
    op.drop_index("ix_open_table_wait", table_name="open_table")
    op.drop_index("ix_open_table_listed", table_name="open_table")
    op.drop_table("open_table")
