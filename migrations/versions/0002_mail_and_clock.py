"""Mail and clock: outbox, seat mail preferences, deadlines, seat clock state.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: Union[str, Sequence[str], None] = "0001"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

TZ = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=64), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("to", sa.String(length=320), nullable=False),
        sa.Column("subject", sa.String(length=300), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("html", sa.Text(), nullable=True),
        sa.Column("headers", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", TZ, nullable=False),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_until", TZ, nullable=True),
        sa.Column("sent_at", TZ, nullable=True),
        sa.Column("message_id", sa.String(length=255), nullable=False),
        sa.Column("idempotency", sa.String(length=200), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", TZ, nullable=False),
        sa.UniqueConstraint("idempotency", name="uq_outbox_idempotency"),
        sa.UniqueConstraint("message_id", name="uq_outbox_message_id"),
    )
    op.create_index("ix_outbox_due", "outbox", ["next_attempt_at"],
                    sqlite_where=sa.text("status = 'pending'"),
                    postgresql_where=sa.text("status = 'pending'"))
    op.create_index("ix_outbox_game", "outbox", ["game_id", "seat"])

    op.create_table(
        "seat_mail",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("last_acted_step", sa.Integer(), nullable=False),
        sa.Column("last_digest_at", TZ, nullable=True),
        sa.Column("updated_at", TZ, nullable=True),
        sa.UniqueConstraint("game_id", "seat", name="uq_seat_mail"),
    )

    op.create_table(
        "deadline",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("due_at", TZ, nullable=False),
        sa.Column("opened_step", sa.Integer(), nullable=False),
        sa.Column("opened_at", TZ, nullable=False),
        sa.Column("fired_at", TZ, nullable=True),
        sa.Column("done_at", TZ, nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_until", TZ, nullable=True),
    )
    op.create_index("ix_deadline_open_due", "deadline", ["due_at"],
                    sqlite_where=sa.text("done_at IS NULL"),
                    postgresql_where=sa.text("done_at IS NULL"))
    op.create_index("ix_deadline_game_seat", "deadline", ["game_id", "seat"])

    op.create_table(
        "seat_clock",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("consecutive_timeouts", sa.Integer(), nullable=False),
        sa.Column("absent", sa.Boolean(), nullable=False),
        sa.Column("vacation_days_used", sa.Integer(), nullable=False),
        sa.Column("vacation_until", TZ, nullable=True),
        sa.UniqueConstraint("game_id", "seat", name="uq_seat_clock"),
    )


def downgrade() -> None:
    op.drop_table("seat_clock")
    op.drop_index("ix_deadline_game_seat", table_name="deadline")
    op.drop_index("ix_deadline_open_due", table_name="deadline")
    op.drop_table("deadline")
    op.drop_table("seat_mail")
    op.drop_index("ix_outbox_game", table_name="outbox")
    op.drop_index("ix_outbox_due", table_name="outbox")
    op.drop_table("outbox")
