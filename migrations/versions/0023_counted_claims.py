"""Caps that hold with any number of senders (issue 34 item 1): ``outbox.counted_at``,
when a sender's caps let a claimed row go, so the caps of other senders count it
until it is sent or its claim ends (``app.mail.holds.Caps.settle``).

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-04

"""
from __future__ import annotations

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: Union[str, Sequence[str], None] = "0022"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.add_column("outbox", sa.Column("counted_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # a plain ALTER (SQLite 3.35+ has DROP COLUMN): a batch copy of the table would lose
    # the expression index ix_outbox_to_created, which SQLite cannot reflect
    op.execute("ALTER TABLE outbox DROP COLUMN counted_at")
