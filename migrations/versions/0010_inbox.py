"""Inbox: inbound mail (replies to turn mails), stored raw and applied once (issue 11).

Revision ID: 0010
Revises: 0004
Create Date: 2026-12-01

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: Union[str, Sequence[str], None] = "0009"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "inbox",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("message_id", sa.String(length=255), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("via", sa.String(length=8), nullable=False),
        sa.Column("mail_from", sa.String(length=320), nullable=True),
        sa.Column("rcpt", sa.JSON(), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("outcome", sa.String(length=300), nullable=True),
        sa.Column("game_id", sa.String(length=64), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("applied_seq", sa.Integer(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("message_id", name="uq_inbox_message_id"),
    )
    op.create_index("ix_inbox_pending", "inbox", ["received_at"],
                    sqlite_where=sa.text("status = 'pending'"),
                    postgresql_where=sa.text("status = 'pending'"))


def downgrade() -> None:
    op.drop_index("ix_inbox_pending", table_name="inbox")
    op.drop_table("inbox")
